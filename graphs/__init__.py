"""Graphs exported for LangGraph Studio (``langgraph.json``)."""
