"""Where state persists: the stores settings group."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator


class StoreSettings(BaseModel):
    """Where state persists: the threads database, thread expiry and leases, the run log."""

    model_config = ConfigDict(frozen=True)

    thread_ttl_hours: float = Field(
        168.0, gt=0, description="Hours after its last answer a thread expires (HTTP and CLI refuse it then)."
    )
    thread_prune_seconds: float = Field(
        600.0,
        ge=0,
        description="How often `askai serve` deletes threads idle past thread_ttl_hours, with their checkpoints "
        "(0: never; an expired thread is then deleted only when someone continues it).",
    )
    thread_lease_seconds: float = Field(
        900.0, gt=0, description="Longest a streaming answer holds its thread against other requests (409)."
    )
    thread_lease_renew_seconds: float = Field(
        10.0,
        gt=0,
        description="A streaming answer's hold on its thread lasts this long and is renewed while it streams, so "
        "the thread of a process that died is free again within it (409s carry Retry-After meanwhile).",
    )
    database_url: str | None = Field(
        None,
        description="Where threads persist: sqlite:///path or postgresql://...; `askai serve`/`askai chat` default "
        "to a SQLite file in the user data folder, the embedded graph to none.",
    )
    run_log: bool = Field(
        True,
        description="Log every answered question (masked: e-mails, phones, IPs, cards and secrets replaced by labels) "
        "with its gates, gaps and feedback.",
    )
    runlog_retention_days: float = Field(
        90.0,
        ge=0,
        description="Days the run log keeps a run and its feedback; older ones are deleted in the background by "
        "`askai serve` (0: kept forever).",
    )
    reader_hash_key: SecretStr | None = Field(
        None,
        description="Key of the keyed hash (HMAC-SHA-256) that stands for a reader's client address in rate limits and "
        "the run log; unset: a random key per server start, so counts of distinct readers restart with it.",
    )

    @field_validator("database_url")
    @classmethod
    def _known_database(cls, url: str | None) -> str | None:
        if url is not None and not (
            (url.startswith("sqlite:///") and len(url) > len("sqlite:///"))
            or url.startswith(("postgresql://", "postgres://"))
        ):
            raise ValueError("must be sqlite:///path or postgresql://user@host/database")
        return url
