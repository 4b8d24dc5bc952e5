"""Which searches a reader settled on: the search log keeps those, not every keystroke.

The launcher searches as the reader types, so ``con``, ``config``, ``configuration``
arrive as three searches. The hosted search products count only the last of a reader's
run of queries (Algolia's analytics aggregates one user's queries typed within 30 s into
the last one), and so does this log: a reader's search is held for
``search_settle_seconds``; their next search replaces it when one query extends the
other (typing on, or deleting back to retype), and otherwise lets it be written. A held
search is written when its time runs out, when its reader opens a result or asks
(``settle``), and when the server stops (``aclose``).

Readers are told apart by the keyed hash the log keeps anyway: nothing more about a
reader is held, and only in memory, for seconds.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

from askai_graph.stores.runlog.searches import SearchRecord


class SearchSettler:
    """Holds each reader's newest search until they settle on it, then hands it to ``write``."""

    def __init__(
        self, write: Callable[[SearchRecord], None], seconds: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        """Write settled searches with ``write``; a search unsettled for ``seconds`` is written (0: at once)."""
        self._write, self._seconds, self._clock = write, seconds, clock
        self._held: dict[str, tuple[SearchRecord, float]] = {}
        self._lock = threading.Lock()

    def search(self, record: SearchRecord) -> None:
        """Hold ``record`` as its reader's newest search; write the one it does not continue."""
        if record.reader is None or self._seconds <= 0:
            self._write(record)
            return
        with self._lock:
            settled = self._expired()
            held = self._held.pop(record.reader, None)
            if held is not None and not _continues(held[0].query, record.query):
                settled.append(held[0])
            self._held[record.reader] = (record, self._clock() + self._seconds)
        self._write_all(settled)
        self._wake_after_window()

    def settle(self, reader: str | None) -> None:
        """Write ``reader``'s held search now: they opened a result or asked."""
        with self._lock:
            held = self._held.pop(reader, None) if reader is not None else None
        if held is not None:
            self._write(held[0])

    def expire(self) -> None:
        """Write every held search whose time has run out."""
        with self._lock:
            settled = self._expired()
        self._write_all(settled)

    async def aclose(self) -> None:
        """Write every held search: the server stops."""
        with self._lock:
            settled = [record for record, _ in self._held.values()]
            self._held.clear()
        self._write_all(settled)

    def _expired(self) -> list[SearchRecord]:
        now = self._clock()
        due = [reader for reader, (_, deadline) in self._held.items() if deadline <= now]
        return [self._held.pop(reader)[0] for reader in due]

    def _write_all(self, records: list[SearchRecord]) -> None:
        for record in sorted(records, key=lambda r: r.created_at):
            self._write(record)

    def _wake_after_window(self) -> None:
        # A reader who stops typing sends nothing more: the loop writes their search when its time is up.
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # called outside the server's loop (a test, a script): the next call expires it
            return
        loop.call_later(self._seconds, self.expire)


def _continues(earlier: str, later: str) -> bool:
    """Whether ``later`` is ``earlier`` typed on or deleted back: one begins the other (spaces collapsed, any case)."""
    before, after = " ".join(earlier.split()).casefold(), " ".join(later.split()).casefold()
    return after.startswith(before) or before.startswith(after)
