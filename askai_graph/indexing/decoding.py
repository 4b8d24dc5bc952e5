"""Decode a response body's ``Content-Encoding`` with its decoded size bounded while decoding.

httpx decodes a body chunk by chunk, but each chunk whole: 17 KB of ``gzip, gzip``
inflates to gigabytes in one call, and the size check after it comes too late (a
``MemoryError``). Here every layer of the encoding (stacked ones too, undone in
reverse order) hands on at most ``PIECE`` bytes at a time, and the last one counts:
past ``max_bytes`` decoding stops with ``BodyTooLarge`` before another piece is made.
The compressed bytes are counted too, so a stream that never inflates cannot run on.

The crawler asks only for the encodings decoded here (``accept_encoding``): gzip and
deflate always, zstd when ``zstandard`` is installed (it usually is: langsmith needs
it), its window limited to the 8 MiB RFC 9659 sets for HTTP. A server that answers
with anything else is refused, not decoded unbounded.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterator
from typing import IO, Protocol, cast

PIECE = 64 * 1024
"""The most bytes one layer hands on at a time."""
ZSTD_MAX_WINDOW = 8 * 1024 * 1024
"""The largest zstd window accepted (RFC 9659: what an HTTP decoder must support, and no more)."""
_ZSTD_SLICE = 128
"""Compressed bytes fed to the zstd writer at a time: a few blocks, a few MB decoded at the very most."""


class BodyTooLarge(Exception):
    """The decoded body passed its bound (the rest was never decoded)."""


class BadEncoding(Exception):
    """A body that is not what its ``Content-Encoding`` says, or an encoding not decoded here."""


class _Layer(Protocol):
    def decode(self, data: bytes) -> Iterator[bytes]:
        """Yield what ``data`` decodes to, ``PIECE`` bytes at most at a time."""
        ...

    def finish(self) -> Iterator[bytes]:
        """Yield what is left once the input has ended."""
        ...


class _Zlib:
    """gzip (several members too) or deflate (zlib-wrapped, or raw as some servers send it)."""

    def __init__(self, wbits: int, *, raw_fallback: bool = False) -> None:
        self.wbits, self.raw_fallback = wbits, raw_fallback
        self.inflater = zlib.decompressobj(wbits)
        self.started = False

    def decode(self, data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = self.inflater.decompress(data, PIECE)
            except zlib.error as exc:
                if self.raw_fallback and not self.started:  # "deflate" sent without its zlib header
                    self.raw_fallback, self.inflater = False, zlib.decompressobj(-zlib.MAX_WBITS)
                    continue
                raise BadEncoding(f"not valid {'gzip' if self.wbits > zlib.MAX_WBITS else 'deflate'} ({exc})") from None
            self.started = True
            if out:
                yield out
            if self.inflater.eof:
                data = self.inflater.unused_data
                if data and self.wbits > zlib.MAX_WBITS and data.lstrip(b"\0"):  # another gzip member follows
                    self.inflater = zlib.decompressobj(self.wbits)
                    continue
                return
            data = self.inflater.unconsumed_tail
            # All input taken but a full piece out: the inflater may hold more output.
            while not data and len(out) == PIECE and not self.inflater.eof:
                out = self.inflater.decompress(b"", PIECE)
                if out:
                    yield out

    def finish(self) -> Iterator[bytes]:
        return iter(())


class _Zstd:
    """zstd frames, one after another, through ``zstandard``'s streaming writer (it writes a piece at a time)."""

    def __init__(self) -> None:
        import zstandard

        self._pieces: list[bytes] = []
        self._error = zstandard.ZstdError
        decompressor = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW)
        sink = cast(IO[bytes], _Collect(self._pieces.append))  # a file as far as the writer cares: it only writes
        self.writer = decompressor.stream_writer(sink, write_size=PIECE)

    def decode(self, data: bytes) -> Iterator[bytes]:
        # The writer hands each piece to ``_Collect``, which refuses to hold more than one:
        # feed the input in small slices so that a slice's pieces are taken before the next.
        for start in range(0, len(data), _ZSTD_SLICE):
            try:
                self.writer.write(data[start : start + _ZSTD_SLICE])
            except self._error as exc:
                raise BadEncoding(f"not valid zstd ({exc})") from None
            yield from self._drain()

    def _drain(self) -> Iterator[bytes]:
        while self._pieces:
            yield self._pieces.pop(0)

    def finish(self) -> Iterator[bytes]:
        return iter(())


class _Collect:
    """The zstd writer's sink: keeps what it writes for ``_Zstd`` to hand on."""

    def __init__(self, keep: Callable[[bytes], None]) -> None:
        self.keep = keep

    def write(self, data: bytes) -> int:
        self.keep(bytes(data))
        return len(data)


def _zstd_available() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


_LAYERS: dict[str, Callable[[], _Layer]] = {
    "gzip": lambda: _Zlib(16 + zlib.MAX_WBITS),
    "x-gzip": lambda: _Zlib(16 + zlib.MAX_WBITS),
    "deflate": lambda: _Zlib(zlib.MAX_WBITS, raw_fallback=True),
}
if _zstd_available():
    _LAYERS["zstd"] = _Zstd


def accept_encoding() -> str:
    """Return the ``Accept-Encoding`` the crawler sends: the encodings decoded here, bounded."""
    return ", ".join(name for name in _LAYERS if name != "x-gzip")


class BoundedDecoder:
    """Undo a ``Content-Encoding`` (its layers in reverse order), at most ``max_bytes`` decoded."""

    def __init__(self, content_encoding: str, max_bytes: int) -> None:
        """Prepare the layers ``content_encoding`` names (``gzip, gzip``; ``identity`` or empty: none).

        Raises:
            BadEncoding: an encoding not decoded here (it was not asked for).
        """
        names = [name.strip().lower() for name in content_encoding.split(",") if name.strip()]
        unknown = [name for name in names if name != "identity" and name not in _LAYERS]
        if unknown:
            raise BadEncoding(f"Content-Encoding {', '.join(unknown)} was not asked for")
        self.layers = [_LAYERS[name]() for name in reversed(names) if name != "identity"]
        self.max_bytes = max_bytes
        self.raw = self.size = 0

    def decode(self, data: bytes) -> Iterator[bytes]:
        """Yield what the next raw bytes ``data`` decode to, in pieces.

        Raises:
            BodyTooLarge: the raw or the decoded body passed ``max_bytes``.
            BadEncoding: the body is not what its encoding says.
        """
        self.raw += len(data)
        if self.raw > self.max_bytes:
            raise BodyTooLarge(f"larger than {self.max_bytes} bytes")
        yield from self._counted(self._through(0, data))

    def finish(self) -> Iterator[bytes]:
        """Yield what is left once the raw body has ended."""
        for index, layer in enumerate(self.layers):
            for piece in layer.finish():
                yield from self._counted(self._through(index + 1, piece))

    def _through(self, index: int, data: bytes) -> Iterator[bytes]:
        if index == len(self.layers):
            yield data
            return
        for piece in self.layers[index].decode(data):
            yield from self._through(index + 1, piece)

    def _counted(self, pieces: Iterator[bytes]) -> Iterator[bytes]:
        for piece in pieces:
            self.size += len(piece)
            if self.size > self.max_bytes:
                raise BodyTooLarge(f"larger than {self.max_bytes} bytes decoded")
            yield piece

