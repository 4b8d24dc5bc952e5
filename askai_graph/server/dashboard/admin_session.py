"""The dashboard's sign-in: the admin token exchanged for a signed session cookie, and CSRF tokens.

A session is ``expiry.nonce.signature``: an HMAC-SHA-256 under a key derived from the
admin token, so every worker of a server checks it alike without a shared store, and
changing ``ASKAI_ADMIN_TOKEN`` ends every session. The cookie is ``HttpOnly`` (no page
script reads it), ``SameSite=Strict`` (no other site's page sends it), ``Secure`` when
the request came over https, and scoped to ``/admin``.

Every POST under ``/admin`` is checked twice against cross-site forgery: the
``Origin`` header, when the browser sends one, must be this server's, and a signed-in
POST carries the session's CSRF token (an HMAC of the session) in its form.
Comparisons of secrets use ``hmac.compare_digest`` on bytes: on ``str`` it raises for
any character beyond ASCII, and a cookie is whatever a client sends.

Signing out revokes the session on the server, not only in the browser: its nonce is
recorded until the session would have expired (``admin_revocations``: in process, and
in Redis with ``cache_url`` so every worker knows), and a revoked session is no session.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time

from pydantic import SecretStr
from starlette.requests import Request
from starlette.responses import Response

from askai_graph.server.dashboard.admin_revocations import Revocations

COOKIE = "askai_admin"
SESSION_SECONDS = 8 * 3600
"""How long a sign-in lasts."""


class AdminSessions:
    """Issues and checks the dashboard's sessions and CSRF tokens for one admin token."""

    def __init__(self, token: SecretStr, revocations: Revocations | None = None) -> None:
        """Sign with a key derived from ``token`` (never the token itself); record sign-outs in ``revocations``."""
        self._token_digest = hashlib.sha256(token.get_secret_value().encode()).digest()
        self._key = hashlib.sha256(b"askai-admin-session\0" + token.get_secret_value().encode()).digest()
        self._revocations = revocations or Revocations()

    def token_matches(self, given: str) -> bool:
        """Whether ``given`` is the admin token (compared as digests, in constant time)."""
        return hmac.compare_digest(hashlib.sha256(given.encode()).digest(), self._token_digest)

    def issue(self, now: float | None = None) -> str:
        """Return a new session value, valid for ``SESSION_SECONDS``."""
        payload = f"{int((now or time.time()) + SESSION_SECONDS)}.{secrets.token_urlsafe(16)}"
        return f"{payload}.{self._sign('session', payload)}"

    def valid(self, session: str | None, now: float | None = None) -> bool:
        """Whether ``session`` was issued here and has not expired (signed out or not: see ``session_of``)."""
        if not session or session.count(".") != 2:
            return False
        expiry, nonce, signature = session.split(".")
        if not hmac.compare_digest(signature.encode(), self._sign("session", f"{expiry}.{nonce}").encode()):
            return False
        return expiry.isdigit() and int(expiry) > (now or time.time())

    async def revoke(self, session: str) -> None:
        """Sign ``session`` (a valid one) out: refused from now on, until it would have expired anyway."""
        expiry, nonce, _ = session.split(".")
        await self._revocations.revoke(nonce, float(expiry))

    def csrf(self, session: str) -> str:
        """Return the CSRF token of ``session`` (what its forms carry)."""
        return self._sign("csrf", session)

    def csrf_matches(self, session: str, given: str) -> bool:
        """Whether ``given`` is ``session``'s CSRF token."""
        return hmac.compare_digest(given.encode(), self.csrf(session).encode())

    async def session_of(self, request: Request) -> str | None:
        """Return the request's session if it is valid and not signed out, else ``None``."""
        session = request.cookies.get(COOKIE)
        if session is None or not self.valid(session):
            return None
        return None if await self._revocations.revoked(session.split(".")[1]) else session

    def _sign(self, purpose: str, payload: str) -> str:
        return hmac.new(self._key, f"{purpose}\0{payload}".encode(), hashlib.sha256).hexdigest()


def set_session_cookie(response: Response, request: Request, session: str) -> None:
    """Give ``response`` the session cookie: HttpOnly, SameSite=Strict, Secure over https, path /admin."""
    response.set_cookie(
        COOKIE,
        session,
        max_age=SESSION_SECONDS,
        path="/admin",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )


def clear_session_cookie(response: Response, request: Request) -> None:
    """Tell the browser to drop the session cookie."""
    response.delete_cookie(
        COOKIE, path="/admin", httponly=True, samesite="strict", secure=request.url.scheme == "https"
    )


def same_origin(request: Request) -> bool:
    """Whether a POST may come from this page: no ``Origin`` header (not a browser's cross-site form), or ours."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    host = request.headers.get("host", "")
    return origin in (f"{request.url.scheme}://{host}",)
