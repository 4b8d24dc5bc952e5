"""What bounds and checks a request before any work starts, and the pools work runs in.

Client identity and rate limits and the stream cap (``limits``), connections per client
(``client_connections``), a request's content type and body (``request``), and the two
thread pools (``pools``). The lowest of the server's roles: it imports none of the others.
"""
