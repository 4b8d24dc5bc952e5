"""Offline Writer, Critic and condenser: real, deterministic lexical algorithms needing no model."""

from askai_graph.models.offline.condenser import LexicalCondenser
from askai_graph.models.offline.critic import LexicalCritic
from askai_graph.models.offline.writer import ExtractiveWriter

__all__ = ["ExtractiveWriter", "LexicalCondenser", "LexicalCritic"]
