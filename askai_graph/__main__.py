"""``python -m askai_graph`` and the ``askai`` script: the command line, Ctrl-C during its start-up included.

The command line's modules take about a second to import before ``cli.main`` runs
and catches Ctrl-C itself; ``run`` imports them under the same rule (one line, exit
status 130), so a reader who changes their mind at once sees no traceback.
"""

import sys


def run() -> int:
    """Import the command line and run it; return its exit status."""
    try:
        from askai_graph.cli import main
    except KeyboardInterrupt:
        print("askai: interrupted", file=sys.stderr)
        return 130
    return main()


if __name__ == "__main__":
    sys.exit(run())
