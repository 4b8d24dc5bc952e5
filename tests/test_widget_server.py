"""The server's front-end routes and CORS: GET /, GET /widget.js, /static/, ASKAI_CORS_ORIGINS."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from askai_graph import Settings, build_graph
from askai_graph.server import create_app
from tests.fakes import PASSING, cited_draft, replies, retriever
from tests.live import LiveServer

pytestmark = [pytest.mark.integration, pytest.mark.enable_socket]

ALLOWED = "https://blog.example"
PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}


@pytest.fixture(scope="module")
def base(index_cache: Any) -> Iterator[str]:
    settings = Settings(index_cache_dir=index_cache, cors_origins=(ALLOWED,))
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1), settings=settings
    )
    with LiveServer(create_app(graph, settings)) as url:
        yield url


def test_root_serves_the_full_page_ask_ai(base: str) -> None:
    response = httpx.get(f"{base}/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert '<script src="widget.js"></script>' in response.text
    assert "<askai-widget inline>" in response.text


def test_widget_js_is_served_as_javascript(base: str) -> None:
    response = httpx.get(f"{base}/widget.js")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert "askai-widget" in response.text


def test_lazy_assets_are_served_with_cors_for_a_listed_origin(base: str) -> None:
    response = httpx.get(f"{base}/static/mermaid/mermaid.esm.min.mjs", headers={"Origin": ALLOWED})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED
    assert httpx.get(f"{base}/static/THIRD_PARTY_LICENSES.txt").status_code == 200


def test_a_listed_origin_may_post_to_the_api(base: str) -> None:
    response = httpx.options(f"{base}/api/chat", headers={"Origin": ALLOWED, **PREFLIGHT})
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == ALLOWED


def test_any_other_origin_is_refused(base: str) -> None:
    response = httpx.options(f"{base}/api/chat", headers={"Origin": "https://evil.example", **PREFLIGHT})
    assert "access-control-allow-origin" not in response.headers
    assert response.status_code == 400


def test_without_cors_origins_no_origin_is_allowed(index_cache: Any) -> None:
    settings = Settings(index_cache_dir=index_cache)
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1), settings=settings
    )
    with LiveServer(create_app(graph, settings)) as url:
        response = httpx.options(f"{url}/api/chat", headers={"Origin": ALLOWED, **PREFLIGHT})
    assert "access-control-allow-origin" not in response.headers


def refusals(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "askai_graph.server.routes.web"]


def test_a_refused_preflight_logs_one_line_naming_the_origin_and_the_setting(
    base: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("WARNING", logger="askai_graph.server.routes.web")
    for _ in range(3):  # every reader of the page asks: the log says it once
        httpx.options(f"{base}/api/chat", headers={"Origin": "https://other.example", **PREFLIGHT})
    httpx.options(f"{base}/api/chat", headers={"Origin": ALLOWED, **PREFLIGHT})  # allowed: nothing to say
    assert refusals(caplog) == [
        "refused a cross-origin request from https://other.example to /api/chat: a page there embeds the widget; "
        f"allow it with ASKAI_CORS_ORIGINS={ALLOWED},https://other.example"
    ]


def test_without_cors_origins_a_preflight_is_logged_too(index_cache: Any, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("WARNING", logger="askai_graph.server.routes.web")
    settings = Settings(index_cache_dir=index_cache)
    graph = build_graph(
        writer=replies(cited_draft(1)), critic=replies(PASSING), retriever=retriever(1), settings=settings
    )
    with LiveServer(create_app(graph, settings)) as url:
        assert httpx.options(f"{url}/api/chat", headers={"Origin": ALLOWED, **PREFLIGHT}).status_code == 405
        assert httpx.options(f"{url}/api/chat").status_code == 405  # no Origin: not a preflight, no line
    assert refusals(caplog) == [
        f"refused a cross-origin request from {ALLOWED} to /api/chat: a page there embeds the widget; "
        f"allow it with ASKAI_CORS_ORIGINS={ALLOWED}"
    ]


def test_cors_origins_are_read_comma_separated_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ASKAI_CORS_ORIGINS", "https://blog.example, http://127.0.0.1:8000/")
    assert Settings().cors_origins == ("https://blog.example", "http://127.0.0.1:8000")


@pytest.mark.parametrize("value", ["blog.example", "https://blog.example/path", "ftp://blog.example"])
def test_a_cors_origin_that_is_not_an_origin_is_a_clear_error(value: str) -> None:
    with pytest.raises(ValidationError, match="is not an origin like https://blog.example"):
        Settings(cors_origins=value)


@pytest.mark.parametrize("path", ["/", "/widget.js", "/static/index.html", "/static/widget.js"])
def test_the_page_and_the_widget_say_what_may_run_and_who_may_frame_them(base: str, path: str) -> None:
    headers = httpx.get(f"{base}{path}").headers
    policy = {d.split()[0]: d.split()[1:] for d in headers["content-security-policy"].split("; ")}
    assert policy["script-src"] == ["'self'"] and policy["connect-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'self'"] and policy["object-src"] == ["'none'"]
    assert headers["x-content-type-options"] == "nosniff"


def test_a_site_that_embeds_the_page_is_named_as_a_frame_ancestor(index_cache: Any) -> None:
    settings = Settings(index_cache_dir=index_cache, frame_ancestors="'self' https://blog.example")
    with LiveServer(create_app(build_graph(settings=settings), settings)) as url:
        policy = httpx.get(f"{url}/").headers["content-security-policy"]
    assert "frame-ancestors 'self' https://blog.example" in policy


@pytest.mark.parametrize("value", ["https://x.example; script-src *", "*", "'none' 'self'", "javascript:alert(1)", ""])
def test_a_frame_ancestor_that_is_not_an_origin_is_refused(value: str) -> None:
    with pytest.raises(ValidationError, match="frame_ancestors"):
        Settings(frame_ancestors=value)


def test_the_interactive_api_docs_are_off_unless_turned_on(base: str, index_cache: Any) -> None:
    assert httpx.get(f"{base}/docs").status_code == 404 and httpx.get(f"{base}/redoc").status_code == 404
    assert httpx.get(f"{base}/openapi.json").status_code == 200
    settings = Settings(index_cache_dir=index_cache, api_docs=True)
    with LiveServer(create_app(build_graph(settings=settings), settings)) as url:
        assert httpx.get(f"{url}/docs").status_code == 200 and httpx.get(f"{url}/redoc").status_code == 200
