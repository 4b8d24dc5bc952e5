"""The committed diagram equals the compiled graph; Studio's export has no checkpointer."""

from __future__ import annotations

from pathlib import Path

from graphs.ask_ai import graph

ROOT = Path(__file__).resolve().parent.parent


def test_committed_mermaid_diagram_matches_the_graph() -> None:
    committed = (ROOT / "graphs" / "ask_ai.mmd").read_text()
    assert graph.get_graph().draw_mermaid() == committed, "run `make diagram` and commit graphs/ask_ai.mmd"


def test_every_branch_is_drawn() -> None:
    edges = {(e.source, e.target) for e in graph.get_graph().edges}
    assert {
        ("research", "writer"),
        ("research", "fallback"),
        ("validation", "critic"),
        ("validation", "research"),
        ("validation", "fallback"),
        ("critic", "accept"),
        ("critic", "accept_early"),
        ("critic", "research"),
        ("critic", "degrade"),
    } <= edges


def test_studio_graph_is_compiled_without_a_checkpointer() -> None:
    assert graph.checkpointer is None


def test_langgraph_json_points_at_the_studio_graph() -> None:
    import json

    config = json.loads((ROOT / "langgraph.json").read_text())
    assert config["graphs"] == {"ask_ai": "./graphs/ask_ai.py:graph"}
