"""The run log: one structured record per answered question, plus the reader's feedback.

``record`` builds a ``RunRecord`` from a finished run; ``store`` keeps records in the
threads database (SQLite by default, PostgreSQL when ``ASKAI_DATABASE_URL`` says so).
Questions, standalone questions, gaps and comments are stored masked (``masking``: e-mail
addresses, phone numbers, IPs, card numbers and secrets replaced by labels), the reader
only as a keyed hash of the client address; runs older than ``runlog_retention_days``
are deleted (``prune``), and ``forget`` erases one thread's or one run's rows. Set
``ASKAI_RUN_LOG=false`` to keep no log at all.
"""

from askai_graph.stores.checkpoints import default_database_url
from askai_graph.stores.runlog.record import Rating, RunRecord, build_record
from askai_graph.stores.runlog.store import RunLog, RunLogError, RunLogUnavailable, SqlRunLog, open_run_log

__all__ = [
    "Rating",
    "RunLog",
    "RunLogError",
    "RunLogUnavailable",
    "RunRecord",
    "SqlRunLog",
    "build_record",
    "default_database_url",
    "open_run_log",
]
