"""Source Gate: the terminal node that decides whether source cards are shown."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from askai_graph.gates import display_sources, gate_statuses, should_expose_retrieved_links
from askai_graph.settings import Settings


def source_gate(state: Mapping[str, Any], settings: Settings) -> dict[str, Any]:
    """Attach sources only when ``should_expose_retrieved_links`` holds."""
    sources = display_sources(state) if should_expose_retrieved_links(state) else []
    return {"sources": sources, "gates": gate_statuses(state)}
