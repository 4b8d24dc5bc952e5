"""The answer desk: admission, the answer cache around a run, the run itself, its record.

Both faces (``routes.chat`` and the MCP tools) hand a question to ``desk.Desk``; the
rest is what the desk needs to answer it: the cache (``cache``, ``same_question``,
``redis_cache``), the run and its events (``answering``, ``run``, ``events``,
``recording``, ``thread_run``), the thread's lease (``leases``), the index generation
it serves (``reload``) and the search a question settles (``search_settle``).
"""
