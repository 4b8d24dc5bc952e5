"""The server's HTTP faces: one module per route family, plus what they publish about themselves.

Each route module (``chat``, ``feedback``, ``search``, ``search_click``, ``health``,
``llms``, ``suggestions``, ``web``) defines a ``router`` that ``create_app`` includes;
``mcp_endpoint`` mounts the MCP face on ``/mcp``; ``bodies`` and ``openapi`` are what
the routes read and publish. Routes answer through the desk (``answers``); nothing
below them imports a route.
"""
