"""A reader's client address as it is kept: a keyed hash, never the address itself.

Rate limits count requests per client and the run log counts distinct readers; neither
needs the address. Both see ``ReaderHash(key)(address)``, an HMAC-SHA-256 under the
``reader_hash_key`` setting: the same address gives the same value for as long as the
key is kept (every worker of a server, and across restarts when the key is set), while
without the key nobody can test an address against it (IPv4 has only 2^32 values, so a
plain hash would hide nothing).

The same key binds an id to the reader it was issued to (``issue``/``issued``): a
search's ``search_id`` is 16 random hex digits and 16 of an HMAC over them and the
reader, so a question names only a search of its own reader; another reader's id (seen
in a shared link, or guessed) names nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from pydantic import SecretStr

_PROCESS_KEY = secrets.token_bytes(32)
"""The key of every unkeyed ``ReaderHash`` in this process: two apps of one process count a reader alike."""

READER_HASH_CHARS = 32
"""Hex characters kept of the HMAC (128 bits: no two readers of a site collide)."""

ISSUED_CHARS = 32
"""Hex characters of an id ``ReaderHash.issue`` gives: 64 random bits, then 64 of a tag."""


class ReaderHash:
    """Turns a client address into the keyed hash that stands for its reader."""

    def __init__(self, key: SecretStr | str | bytes | None) -> None:
        """Hash under ``key``; ``None`` (or empty): a random key drawn once per process (``keyed`` false)."""
        if isinstance(key, SecretStr):
            key = key.get_secret_value()
        if isinstance(key, str):
            key = key.encode()
        self.keyed = bool(key)
        """Whether the key was given (else it lives and dies with this process)."""
        self._key = key or _PROCESS_KEY

    def __call__(self, address: str) -> str:
        """Return the reader's hash for ``address``."""
        return hmac.new(self._key, address.encode(), hashlib.sha256).hexdigest()[:READER_HASH_CHARS]

    def issue(self, reader: str) -> str:
        """Return a new random id (32 hex digits) that only ``reader`` can present (``issued``)."""
        nonce = secrets.token_hex(ISSUED_CHARS // 4)
        return nonce + self._tag(nonce, reader)

    def issued(self, issued_id: str, reader: str) -> bool:
        """Whether ``issued_id`` is one ``issue`` gave ``reader`` (under this key)."""
        nonce, tag = issued_id[: ISSUED_CHARS // 2], issued_id[ISSUED_CHARS // 2 :]
        return len(issued_id) == ISSUED_CHARS and hmac.compare_digest(self._tag(nonce, reader).encode(), tag.encode())

    def _tag(self, nonce: str, reader: str) -> str:
        # Its own message form (a NUL never is in an address): no tag is ever a reader's hash.
        message = f"issued\0{nonce}\0{reader}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()[: ISSUED_CHARS // 2]

    def __repr__(self) -> str:
        """Never show the key."""
        return "ReaderHash(key=***)"
