"""askai-graph for agents: the site's answers, search and catalog as MCP tools.

``tools`` does the work of each tool over what the HTTP app serves (the same graph,
answer cache, limits, threads and run log as ``POST /api/chat``); ``server`` declares
the tools on the MCP SDK's server and mounts it at ``/mcp`` (streamable HTTP);
``stdio`` runs it on stdin/stdout for ``askai mcp``.
"""
