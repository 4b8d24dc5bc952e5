"""Connections per client address at the listener, and one log line per interval for the refused ones.

One client holding more than ``max_connections`` connections used to take every
endpoint down for as long as it held them: the listener's cap (``protocol``) counts
connections, not who holds them, and with each of them busy every newcomer got a 503.
Here the listener also counts the connections of each remote address, and refuses one
past ``max_connections_per_client`` at once, before the app sees a byte of it; the
global cap then only ever meets many clients.

The count is the peer address of the TCP connection: behind a reverse proxy every
reader shares the proxy's, so addresses listed in ``trusted_proxies`` are not counted
(the proxy bounds its own clients). It is one process's count: under ``--workers N`` a
client may hold up to N times the cap, spread by the kernel.

Refusals are logged at most one line per ``REFUSAL_LOG_SECONDS`` and reason, with how
many there were: a flood of connections once wrote a line for each (178k lines, 11.8 MB
in 90 s), which is a flood of the disk too.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
from typing import Any

REFUSAL_LOG_SECONDS = 10.0
"""At most one log line per reason in this many seconds for refused connections."""


class TrustedPeers:
    """Whether a peer address is one of ``trusted_proxies``: addresses, networks (``10.0.0.0/8``) or ``*``."""

    def __init__(self, hosts: list[str]) -> None:
        """Read ``hosts`` as ``limits.trusted_hosts`` splits the setting."""
        self.everyone = "*" in hosts
        self.literals = set(hosts)
        self.networks = []
        for host in hosts:
            try:
                self.networks.append(ipaddress.ip_network(host, strict=False))
            except ValueError:
                pass  # a literal (a unix socket's name), compared as written

    def __contains__(self, address: str) -> bool:
        """Whether ``address`` is trusted."""
        if self.everyone or address in self.literals:
            return True
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.networks)


class ClientConnections:
    """Open connections by remote address, at one listener of one process."""

    def __init__(self, cap: int | None, trusted: TrustedPeers) -> None:
        """Allow ``cap`` connections per address (``None``: any number); never count ``trusted`` ones."""
        self.cap = cap
        self.trusted = trusted
        self.open: dict[str, int] = {}

    def admit(self, address: str | None) -> bool:
        """Count a new connection from ``address``; ``False`` if it is past the cap (counted all the same).

        Every connection counted is ``release``d when it ends, refused or not.
        """
        if self.cap is None or address is None or address in self.trusted:
            return True
        count = self.open.get(address, 0) + 1
        self.open[address] = count
        return count <= self.cap

    def release(self, address: str | None) -> None:
        """Forget one connection of ``address`` (it ended)."""
        if address is None or address not in self.open:
            return
        if self.open[address] <= 1:
            del self.open[address]  # the table holds only addresses with connections open
        else:
            self.open[address] -= 1


class RefusalLog:
    """Logs refused connections: the first at once, then how many more, at most one line per interval and reason."""

    def __init__(self, logger: logging.Logger, interval: float = REFUSAL_LOG_SECONDS) -> None:
        """Write to ``logger`` at most once per ``interval`` seconds per reason."""
        self.logger = logger
        self.interval = interval
        self._counts: dict[str, int] = {}  # reason -> refusals since its last line
        self._timers: dict[str, Any] = {}  # reason -> the pending end of its interval

    def refused(self, loop: asyncio.AbstractEventLoop, reason: str) -> None:
        """Record one connection refused for ``reason``."""
        if reason in self._timers:
            self._counts[reason] = self._counts.get(reason, 0) + 1
            return
        self.logger.warning("refusing connections: %s (counted from now on, one line per %g s)", reason, self.interval)
        self._timers[reason] = loop.call_later(self.interval, self._flush, loop, reason)

    def _flush(self, loop: asyncio.AbstractEventLoop, reason: str) -> None:
        count = self._counts.pop(reason, 0)
        if not count:
            del self._timers[reason]  # a quiet interval: the next refusal is logged at once
            return
        self.logger.warning("%d more connections refused in %g s: %s", count, self.interval, reason)
        self._timers[reason] = loop.call_later(self.interval, self._flush, loop, reason)


def peer_host(transport: asyncio.BaseTransport) -> str | None:
    """Return the remote address of ``transport``'s connection (``None`` when it has none, e.g. a unix socket)."""
    peer = transport.get_extra_info("peername")
    return str(peer[0]) if isinstance(peer, tuple) and peer else None
