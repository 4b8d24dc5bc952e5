"""Serving from several processes and riding out the shared stores' outages.

``workers`` (``--workers N``), ``remote`` (the graph on LangGraph Server),
``shared_streams`` (the stream cap in Redis), ``redis_outage`` and ``outages`` (a lost
Redis or threads database answered rather than crashed on). Imports only ``guards``.
"""
