"""What a site owner sets in the generator's config, checked once, before anything is built.

The same options for every generator (``mkdocs.yml``'s plugin entry, Sphinx's
``askai_*`` config values): a misspelt name, a ``server_url`` that is not http(s) or a
mode that does not exist stops the build with one line naming the option, rather than
publishing a site whose widget silently talks to nowhere.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from askai_graph.retrieval.corpus import is_http_url

LOCAL_SITE_URL = "http://127.0.0.1:4321/"
"""The URL pages get in the index when the site's config names none: where ``askai serve --site`` serves them."""


class OptionsError(ValueError):
    """An option of the plugin is unknown or has a wrong value; the message names it."""

    def __init__(self, option: str, problem: str) -> None:
        """Say what is wrong with ``option``."""
        super().__init__(f"option {option!r}: {problem}")
        self.option, self.problem = option, problem


class SiteOptions(BaseModel):
    """The plugin's options, the same for every generator."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server_url: str | None = Field(
        default=None,
        description="The askai serve the widget asks (http or https). Unset: the server that serves the site "
        "(askai serve --site).",
    )
    mode: Literal["floating", "inline"] = Field(
        default="floating", description="floating: an Ask AI button and dialog; inline: the panel under each page."
    )
    index: bool = Field(default=True, description="Write the site's index into the built site (askai/index/).")
    suggestions: list[str] | None = Field(
        default=None, description="Starter questions; unset: the server's; [] shows none."
    )
    strings: dict[str, str] | None = Field(default=None, description="The widget's strings, e.g. a translation.")

    @field_validator("server_url")
    @classmethod
    def _http(cls, value: str | None) -> str | None:
        if value is not None and not is_http_url(value):
            raise ValueError(f"must be an http:// or https:// URL (got {value!r})")
        return value


def site_options(values: dict[str, Any]) -> SiteOptions:
    """Return the checked options.

    Raises:
        OptionsError: an unknown option or a wrong value, in one line naming it.
    """
    try:
        return SiteOptions.model_validate(values)
    except ValidationError as exc:
        problem = exc.errors()[0]
        name = ".".join(str(part) for part in problem["loc"]) or "options"
        if problem["type"] == "extra_forbidden":
            known = ", ".join(SiteOptions.model_fields)
            raise OptionsError(name, f"unknown option (the options are {known})") from None
        raise OptionsError(name, str(problem["msg"]).removeprefix("Value error, ")) from None
