"""What the engine keeps between requests: checkpoints, threads, the run log, the schema lock.

``checkpoints`` (the LangGraph checkpointer on SQLite or PostgreSQL, with the state's
types registered), ``threads`` (a conversation's expiry and lease), ``thread_tokens``
(the secret that owns a conversation, and the key it is stored under), ``runlog/`` (one
record per answered question, and readers' feedback) and ``schema_lock`` (workers
started together create tables one at a time). Each store has an in-process default and
a shared engine behind the same calls.
"""
