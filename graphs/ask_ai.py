"""The graph LangGraph Studio loads: the default Ask AI graph, without a checkpointer.

``langgraph dev`` supplies its own persistence and rejects a graph compiled with one.
"""

from askai_graph import build_graph

graph = build_graph()
