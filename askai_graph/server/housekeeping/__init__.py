"""What a running server does in the background or once at start, beside answering.

Pruning expired threads (``pruning``), deleting old run-log rows (``retention``) and
tuning the garbage collector (``collector``).
"""
