"""How often the admin token may be tried: per client and in all, counted before it is compared.

A dashboard token of 16 characters is guessable at the speed a server answers (3,000
wrong tokens at 80 a second went by unthrottled), so every ``POST /admin/login`` counts
against two moving windows of the ``limits`` library, like the other rate limits
(``limits.ClientRateLimit``, in Redis with ``cache_url`` so every worker shares the
counts): ``PER_CLIENT`` for the client's address (its keyed hash), then ``IN_ALL`` for
everyone together, which bounds guesses spread over many addresses. Past either, the
sign-in is ``429`` with ``Retry-After`` and the token is not even compared, so a guess
made while throttled tells nothing.

Every attempt counts, a right token too: counting before comparing leaves no moment in
which concurrent guesses are compared but not yet counted. An owner signs in a few times
a day. An attempt refused by the per-client window is not counted in all, so one
address cannot use up everyone's sign-ins.
"""

from __future__ import annotations

from askai_graph.server.guards.limits import ClientRateLimit, rate_limit_for
from askai_graph.stores.readers import ReaderHash

PER_CLIENT = "5/minute;20/hour"
"""Sign-in attempts one client address may make."""
IN_ALL = "30/minute;200/hour"
"""Sign-in attempts all clients together may make."""
_EVERYONE = "everyone"
"""The one key the window in all counts under."""


class SignInThrottle:
    """The two windows a sign-in attempt counts against (see module docstring)."""

    def __init__(self, per_client: ClientRateLimit, in_all: ClientRateLimit) -> None:
        """Count each attempt in ``per_client`` (by address), then in ``in_all``."""
        self.per_client = per_client
        self.in_all = in_all

    async def admit(self, client: str) -> int | None:
        """Count one sign-in attempt by ``client``; return ``None`` if it may go on, else seconds to wait."""
        wait = await self.per_client.admit(client)
        if wait is None:
            wait = await self.in_all.admit(_EVERYONE)
        return wait

    async def aclose(self) -> None:
        """Close the windows' storage connections."""
        await self.per_client.aclose()
        await self.in_all.aclose()


def sign_in_throttle(
    cache_url: str | None, readers: ReaderHash, *, per_client: str = PER_CLIENT, in_all: str = IN_ALL
) -> SignInThrottle:
    """Return the sign-in throttle, counted in Redis at ``cache_url`` if set, else in process."""
    return SignInThrottle(
        rate_limit_for(per_client, name="askai-admin-sign-in", cache_url=cache_url, readers=readers),
        rate_limit_for(in_all, name="askai-admin-sign-in-all", cache_url=cache_url, readers=readers),
    )
