"""What a newcomer reads first: the README's and docs' examples can be followed as written."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import get_type_hints

import pytest

from askai_graph.state import OutputState

ROOT = Path(__file__).parent.parent
README = (ROOT / "README.md").read_text("utf-8")
MCP_DOC = (ROOT / "docs" / "mcp.md").read_text("utf-8")
WIDGET_DOC = (ROOT / "docs" / "widget.md").read_text("utf-8")
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


def blocks(text: str, *languages: str) -> list[tuple[int, str]]:
    """Each fenced block of ``text`` in one of ``languages``: where it starts, and its body."""
    return [(m.start(), m.group(2)) for m in BLOCK.finditer(text) if m.group(1) in languages]


def test_the_readme_says_how_to_get_askai_before_its_first_example_runs_it() -> None:
    uses = [start for start, body in blocks(README, "sh") if re.search(r"^(?:\w+=\S+ )*askai ", body, re.MULTILINE)]
    note = README.find("source .venv/bin/activate")
    assert uses and 0 <= note < uses[0], "the PATH note must come before the first bare askai command"


@pytest.mark.parametrize("doc", ["README.md", "docs/mcp.md"])
def test_mcp_client_configs_name_askai_by_a_path_the_client_can_start(doc: str) -> None:
    # A client starts the server itself, from a folder of its own, without the reader's venv.
    text = (ROOT / doc).read_text("utf-8")
    commands = []
    for _, body in blocks(text, "json"):
        if "mcpServers" not in body:
            continue
        for line in [body] if doc.endswith("mcp.md") else body.splitlines():
            servers = json.loads(line)["mcpServers"].values()
            commands += [(s["command"], s.get("env", {})) for s in servers if "command" in s]
    assert commands
    for command, env in commands:
        assert command.startswith("/") and command.endswith("/.venv/bin/askai"), command
        assert all(value.startswith("/") for value in env.values()), env


@pytest.mark.parametrize("doc", [README, WIDGET_DOC], ids=["README", "widget.md"])
def test_the_embed_snippet_says_another_origin_needs_askai_cors_origins(doc: str) -> None:
    snippet = doc.index('<askai-widget endpoint="http://127.0.0.1:4321"></askai-widget>')
    assert "ASKAI_CORS_ORIGINS=" in doc[snippet : snippet + 400], "say it where the two lines are"


def test_the_public_output_docs_name_every_output_key() -> None:
    section = MCP_DOC[MCP_DOC.index("## The graph's public output") :]
    paragraph = section[: section.index("That is all")]
    assert {key for key in get_type_hints(OutputState)} <= set(re.findall(r"`(\w+)`", paragraph))


def test_the_mcp_docs_say_a_degraded_answer_loses_its_links_on_every_surface() -> None:
    assert "reaches a reader with its inline citations" not in MCP_DOC
    assert "A degraded answer reaches every surface without its links" in MCP_DOC
