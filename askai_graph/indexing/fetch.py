"""The crawler's HTTP client: only public http(s) addresses, bounded bodies, polite retries.

Every request, and every hop of a redirect, goes through ``CheckedTransport``, which
resolves the host itself, checks the address it got (no loopback, private, link-local
or otherwise non-public address unless ``allow_private``) and then connects to *that*
address, with the host name kept for the ``Host`` header, TLS SNI and the certificate
check. Resolving once and connecting to the checked address is what defeats DNS
rebinding: a name that answers a public address to the check and a private one to the
connection never reaches the private one. URLs with credentials are refused outright.

``Fetcher`` follows redirects itself, one hop at a time, so a hop can be refused before
it is requested (another site, a disallowed path). Bodies are streamed, decoded here
with their size bounded while decoding (``decoding``: stacked ``gzip, gzip`` and zstd
bombs included), and abandoned at ``max_bytes``; the ``Content-Type`` is checked before
a body is read. The connect and the answer's head are due within ``timeout``, the whole
answer within three times that, each read within ``timeout`` too. httpx retries failed
connects (``AsyncHTTPTransport(retries=...)``); a short loop here retries timeouts,
429 and 5xx answers with exponential backoff, honouring ``Retry-After``, each attempt
paced like any other request (``pacing.HostPacer``).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
import email.utils
import ipaddress
import socket
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from askai_graph.indexing.decoding import BadEncoding, BodyTooLarge, BoundedDecoder, accept_encoding
from askai_graph.indexing.pacing import HostPacer

Resolver = Callable[[str, int], Awaitable[list[str]]]
"""``resolve(host, port)``: the addresses a host name stands for (an address stands for itself)."""
AddressPolicy = Callable[[ipaddress.IPv4Address | ipaddress.IPv6Address], bool]
"""Whether the crawler may connect to an address."""

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
MAX_RETRY_AFTER = 120.0
"""A server asking to wait longer than this (seconds) is given up on for this crawl."""
MAX_REDIRECTS = 10


class UnsafeURL(Exception):
    """A URL the crawler must not request: not http(s), with credentials, or a non-public address."""


@dataclass
class FetchError(Exception):
    """A URL that could not be fetched, with the one-line reason reported for it."""

    reason: str
    """One line: ``HTTP 404 Not Found``, ``timed out after 20 s``, ``not HTML (application/pdf)``."""
    status: int | None = None
    """The HTTP status of the last answer, if there was one."""
    transient: bool = False
    """A 429, a 5xx, a timeout or a network error: the page may well be back next time."""

    def __str__(self) -> str:
        """Return the reason."""
        return self.reason


@dataclass
class Fetched:
    """A successful answer: a body (``200``) or ``not_modified`` (``304``)."""

    url: str
    """The URL asked for."""
    final_url: str
    """Where the last redirect led (``url`` itself without redirects)."""
    status: int
    """``200`` or ``304``."""
    headers: httpx.Headers
    """The final answer's headers."""
    body: bytes = b""
    """The decoded body (none on a 304)."""
    redirects: list[str] = field(default_factory=list)
    """Every redirect target followed, in order."""
    response: httpx.Response | None = field(default=None, repr=False)
    """The open response whose body ``Fetcher.pieces`` reads (only inside ``Fetcher.open``)."""
    started: float = 0.0
    """When its request was sent (the event loop's clock): the whole answer is due three timeouts later."""

    @property
    def not_modified(self) -> bool:
        """Whether the server said the stored copy is current."""
        return self.status == 304


def url_problem(url: str) -> str | None:
    """Return why the crawler may not request ``url``, or ``None`` when it may (address aside)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"not an http(s) URL ({parts.scheme or 'no scheme'})"
    if not parts.hostname:
        return "no host"
    if parts.username is not None or parts.password is not None:
        return "credentials in the URL"
    return None


def is_public_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    """Return whether ``address`` is a public unicast address (not private, loopback, link-local...)."""
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv4 address spelt as IPv6 (::ffff:127.0.0.1, 2002:7f00:1::) is that IPv4 address.
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            address = embedded
    return address.is_global and not (address.is_multicast or address.is_reserved or address.is_unspecified)


async def system_resolver(host: str, port: int) -> list[str]:
    """Resolve ``host`` with the system resolver, without blocking the event loop."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


class CheckedTransport(httpx.AsyncBaseTransport):
    """Connects only to checked addresses: resolve, check, connect to the address checked."""

    def __init__(
        self,
        *,
        allow_private: bool = False,
        resolve: Resolver = system_resolver,
        address_allowed: AddressPolicy | None = None,
        connect_retries: int = 1,
    ) -> None:
        """Check every request's address with ``address_allowed`` (default: public ones, or any).

        Args:
            allow_private: Connect to private and loopback addresses too (a crawl of a local site).
            resolve: Turns a host name into addresses (tests point names at chosen addresses).
            address_allowed: Replaces the address check entirely.
            connect_retries: httpx's retries of a failed connect.
        """
        self._resolve = resolve
        self._allowed: AddressPolicy = address_allowed or (_any_address if allow_private else is_public_address)
        self._connect_retries = connect_retries
        # One pool per host name: a connection opened with one name's SNI is never reused for another's.
        self._pools: dict[str, httpx.AsyncHTTPTransport] = {}

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request`` to the checked address of its host."""
        url = request.url
        problem = url_problem(str(url))
        if problem:
            raise UnsafeURL(problem)
        host = url.host
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            addresses = await self._resolve(host, port)
        except OSError as exc:
            raise httpx.ConnectError(f"cannot resolve {host} ({exc})", request=request) from None
        checked = [ipaddress.ip_address(address.split("%")[0]) for address in addresses]
        allowed = [address for address in checked if self._allowed(address)]
        if not allowed:
            what = f"{host} is" if _is_address(host) else f"{host} resolves to {checked[0] if checked else 'nothing'},"
            raise UnsafeURL(f"{what} not a public address (--allow-private crawls it)")
        pool = self._pools.get(host)
        if pool is None:
            pool = self._pools[host] = httpx.AsyncHTTPTransport(retries=self._connect_retries, trust_env=False)
        extensions = dict(request.extensions)
        if url.scheme == "https" and not _is_address(host):
            extensions["sni_hostname"] = host  # the certificate is checked against the name, not the address
        forwarded = httpx.Request(
            request.method,
            url.copy_with(host=str(allowed[0])),
            headers=request.headers,  # keeps Host: the name asked for
            stream=request.stream,
            extensions=extensions,
        )
        return await pool.handle_async_request(forwarded)

    async def aclose(self) -> None:
        """Close every pool."""
        for pool in self._pools.values():
            await pool.aclose()


class Fetcher:
    """GET a URL politely and safely: paced, retried, redirects checked hop by hop, body bounded."""

    def __init__(
        self,
        transport: httpx.AsyncBaseTransport,
        pacer: HostPacer,
        *,
        user_agent: str,
        timeout: float,
        retries: int,
        backoff: float,
    ) -> None:
        """Send through ``transport``, each attempt after ``pacer`` lets its host be asked.

        Args:
            transport: Usually a ``CheckedTransport``.
            pacer: Spaces requests per host.
            user_agent: Sent with every request.
            timeout: Seconds for a connect and the answer's head, and for each read; the whole
                answer gets three times that.
            retries: Further attempts after a timeout, a network error, a 429 or a 5xx.
            backoff: Seconds before the first retry, doubling each time (unless ``Retry-After`` says).
        """
        self.client = httpx.AsyncClient(
            transport=transport,
            timeout=httpx.Timeout(timeout),
            follow_redirects=False,
            headers={"User-Agent": user_agent, "Accept-Encoding": accept_encoding()},
            trust_env=False,
        )
        self.pacer, self.timeout, self.retries, self.backoff = pacer, timeout, retries, backoff

    async def aclose(self) -> None:
        """Close the client and its connections."""
        await self.client.aclose()

    async def get(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        types: frozenset[str] | None = None,
        max_bytes: int,
        hop_problem: Callable[[str], str | None] | None = None,
    ) -> Fetched:
        """Fetch ``url``, following redirects that ``hop_problem`` does not object to.

        Args:
            url: An http(s) URL.
            headers: Extra request headers (``If-None-Match``...); kept across redirects.
            types: Media types accepted (``None``: any); another ``Content-Type`` is not read.
            max_bytes: A longer body (as sent, or decoded) is abandoned past this.
            hop_problem: Why a redirect target must not be followed, or ``None``.

        Raises:
            FetchError: anything but a 200 or 304 at the end of the redirects, with its reason.
        """
        async with self.open(url, headers=headers, types=types, hop_problem=hop_problem) as answer:
            if not answer.not_modified:
                answer.body = b"".join([piece async for piece in self.pieces(answer, max_bytes)])
            return answer

    @contextlib.asynccontextmanager
    async def open(
        self,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        types: frozenset[str] | None = None,
        hop_problem: Callable[[str], str | None] | None = None,
    ) -> AsyncIterator[Fetched]:
        """Yield the answer to ``url`` with its body unread (``pieces`` reads it); as ``get`` otherwise."""
        request = self.client.build_request("GET", url, headers=headers)
        redirects: list[str] = []
        for _ in range(MAX_REDIRECTS + 1):
            response, started = await self._send(request, redirected=bool(redirects))
            if not response.has_redirect_location:
                break
            next_request = response.next_request
            await response.aclose()
            if next_request is None:  # pragma: no cover - httpx sets it whenever there is a Location
                raise FetchError(f"HTTP {response.status_code} without a usable Location")
            target = str(next_request.url)
            problem = url_problem(target) or (hop_problem(target) if hop_problem else None)
            if problem:
                raise FetchError(f"redirected to {target}: {problem}", status=response.status_code)
            redirects.append(target)
            request = next_request
        else:
            raise FetchError(f"more than {MAX_REDIRECTS} redirects")
        final = str(response.request.url)
        try:
            if response.status_code == 304:
                yield Fetched(url, final, 304, response.headers, redirects=redirects)
                return
            if response.status_code != 200:
                status = response.status_code
                reason = f"HTTP {status} {response.reason_phrase}".rstrip()
                raise FetchError(reason, status=status, transient=status in RETRY_STATUSES)
            media = response.headers.get("content-type", "").split(";")[0].strip().lower()
            if types is not None and media and media not in types:
                raise FetchError(f"not HTML ({media})", status=200)
            answer = Fetched(url, final, 200, response.headers, redirects=redirects)
            answer.response, answer.started = response, started
            yield answer
        finally:
            await response.aclose()

    async def _send(self, request: httpx.Request, *, redirected: bool) -> tuple[httpx.Response, float]:
        """Send ``request`` (retried), its answer's head due within ``timeout``; return it and when it was sent."""
        host = request.url.host
        attempt = 0
        loop = asyncio.get_running_loop()
        while True:
            await self.pacer.wait(host)
            started = loop.time()
            try:
                # httpx times each read, so a head sent a byte at a time never times out there:
                # the connect and the whole head must be done within ``timeout``.
                async with asyncio.timeout(self.timeout):
                    response = await self.client.send(request, stream=True)
            except UnsafeURL as exc:
                where = f"redirected to {request.url}: " if redirected else ""
                raise FetchError(f"{where}refused: {exc}") from None
            except (httpx.TimeoutException, TimeoutError):
                if attempt >= self.retries:
                    elapsed = seconds(loop.time() - started)
                    raise FetchError(f"timed out after {elapsed} s", transient=True) from None
            except httpx.TransportError as exc:
                if attempt >= self.retries:
                    raise FetchError(f"network error ({exc or type(exc).__name__})", transient=True) from None
            else:
                if response.status_code not in RETRY_STATUSES or attempt >= self.retries:
                    return response, started
                wait = retry_after(response.headers.get("retry-after"))
                if wait is not None and wait > MAX_RETRY_AFTER:
                    return response, started  # reported as the status it is; the next crawl tries again
                await response.aclose()
                if wait is not None:
                    self.pacer.pause(host, wait)  # the whole host waits, not just this page
            await asyncio.sleep(self.backoff * 2**attempt)
            attempt += 1

    async def pieces(self, answer: Fetched, max_bytes: int) -> AsyncIterator[bytes]:
        """Yield the body of ``answer`` decoded, in pieces, at most ``max_bytes`` of it (``FetchError`` past that).

        The whole answer, head and body, has three times ``timeout`` from when its request
        was sent: a server dripping a byte at a time cannot hold a worker forever.
        """
        response = answer.response
        if response is None:
            return
        length = response.headers.get("content-length", "")
        too_big = f"larger than {max_bytes} bytes"
        if length.isdigit() and int(length) > max_bytes:
            raise FetchError(f"{too_big} (Content-Length {length})", status=200)
        loop = asyncio.get_running_loop()
        try:
            decoder = BoundedDecoder(response.headers.get("content-encoding", ""), max_bytes)
            async with asyncio.timeout_at(answer.started + self.timeout * 3):
                async for chunk in response.aiter_raw():  # decoded here, bounded (httpx would decode it whole)
                    for piece in decoder.decode(chunk):
                        yield piece
                for piece in decoder.finish():
                    yield piece
        except BodyTooLarge as exc:
            raise FetchError(str(exc), status=200) from None  # the rest is never downloaded
        except BadEncoding as exc:
            raise FetchError(str(exc), status=200) from None
        except (httpx.TimeoutException, TimeoutError):
            elapsed = seconds(loop.time() - answer.started)
            raise FetchError(f"timed out after {elapsed} s reading the body", transient=True) from None
        except httpx.TransportError as exc:
            raise FetchError(f"network error reading the body ({exc or type(exc).__name__})", transient=True) from None


def seconds(elapsed: float) -> str:
    """Return a duration as a reason shows it: ``0.5``, ``2.3``, ``61``."""
    return f"{elapsed:.1f}" if elapsed < 10 else f"{elapsed:.0f}"


def retry_after(value: str | None) -> float | None:
    """Return the seconds a ``Retry-After`` header asks for (delay or HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    return max(0.0, (when - dt.datetime.now(dt.UTC)).total_seconds())


def _any_address(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return True


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True
