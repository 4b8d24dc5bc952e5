"""askai-graph for agents: the site's answers, search and catalog as MCP tools.

``tools`` does the work of each tool through the app's answer desk
(``askai_graph.server.answers.desk``: the same graph, answer cache, limits, threads and run log
as ``POST /api/chat``); ``server`` declares the tools on the MCP SDK's server, which the
HTTP app's ``/mcp`` (``askai_graph.server.routes.mcp_endpoint``) loads by name on its first
request (streamable HTTP); ``stdio`` runs it on stdin/stdout for ``askai mcp``.
"""
