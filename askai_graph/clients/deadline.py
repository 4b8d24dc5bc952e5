"""Bound a provider request's total time, not just each read (an httpx transport).

httpx timeouts bound silence; a server that sends a keep-alive comment every few
seconds is never silent, so only a total deadline ends its hung stream. The transport
also drops a ``Retry-After`` above ``MAX_RETRY_AFTER`` so that retries stay short.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2 as httpx  # the HTTP client the OpenAI SDK (3.x) runs on

# The OpenAI SDK's own backoff ceiling; it would honour a Retry-After of up to 120 s.
MAX_RETRY_AFTER = 8.0
# A model call takes seconds and a TCP/TLS handshake milliseconds: without pooling no
# socket outlives its request, so a dropped graph leaks nothing and no connection is
# ever reused from another event loop.
UNPOOLED = httpx.Limits(max_keepalive_connections=0)


class _DeadlineStream(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body that stops with ``ReadTimeout`` once its request's deadline passed."""

    def __init__(self, stream: Any, deadline: float, request: httpx.Request) -> None:
        self._stream, self._deadline, self._request = stream, deadline, request

    def _check(self) -> None:
        if time.monotonic() > self._deadline:
            raise httpx.ReadTimeout("model request exceeded its total time budget", request=self._request)

    def __iter__(self) -> Iterator[bytes]:
        for chunk in self._stream:
            self._check()
            yield chunk

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._stream:
            self._check()
            yield chunk

    def close(self) -> None:
        self._stream.close()

    async def aclose(self) -> None:
        await self._stream.aclose()


def _capped_retry_after(headers: httpx.Headers) -> httpx.Headers:
    headers = httpx.Headers(headers)
    for name, scale in (("retry-after-ms", 1000), ("retry-after", 1)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            keep = float(value) / scale <= MAX_RETRY_AFTER
        except ValueError:  # an HTTP date: the SDK's own backoff instead
            keep = False
        if not keep:
            del headers[name]
    return headers


def _with_deadline(response: httpx.Response, deadline: float, request: httpx.Request) -> httpx.Response:
    return httpx.Response(
        status_code=response.status_code,
        headers=_capped_retry_after(response.headers),
        stream=_DeadlineStream(response.stream, deadline, request),
        extensions=response.extensions,
    )


class DeadlineTransport(httpx.BaseTransport):
    """An httpx transport bounding each request's total time, not just each read.

    httpx timeouts bound silence; a server sending keep-alive comments every few seconds
    is never silent, so only a total deadline ends its hung stream. It also drops a
    ``Retry-After`` longer than ``MAX_RETRY_AFTER`` so that retries stay short.
    """

    def __init__(self, seconds: float, inner: httpx.BaseTransport | None = None) -> None:
        """Bound every request sent through ``inner`` (a new HTTP transport by default) to ``seconds``."""
        self.seconds = seconds
        self.inner = inner if inner is not None else httpx.HTTPTransport(limits=UNPOOLED)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``; its body raises ``ReadTimeout`` once the deadline passed."""
        deadline = time.monotonic() + self.seconds
        return _with_deadline(self.inner.handle_request(request), deadline, request)

    def close(self) -> None:
        """Close the inner transport."""
        self.inner.close()


class AsyncDeadlineTransport(httpx.AsyncBaseTransport):
    """The asynchronous twin of :class:`DeadlineTransport`."""

    def __init__(self, seconds: float, inner: httpx.AsyncBaseTransport | None = None) -> None:
        """Bound every request sent through ``inner`` (a new HTTP transport by default) to ``seconds``."""
        self.seconds = seconds
        self.inner = inner if inner is not None else httpx.AsyncHTTPTransport(limits=UNPOOLED)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``; its body raises ``ReadTimeout`` once the deadline passed."""
        deadline = time.monotonic() + self.seconds
        return _with_deadline(await self.inner.handle_async_request(request), deadline, request)

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self.inner.aclose()
