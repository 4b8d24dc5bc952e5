"""Offline Writer, Critic and condenser: real, deterministic lexical algorithms needing no model."""

from askai_graph.offline.condenser import LexicalCondenser
from askai_graph.offline.critic import LexicalCritic
from askai_graph.offline.writer import ExtractiveWriter

__all__ = ["ExtractiveWriter", "LexicalCondenser", "LexicalCritic"]
