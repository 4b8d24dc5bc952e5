"""``python -m askai_graph`` runs the ``askai`` command line."""

import sys

from askai_graph.cli import main

sys.exit(main())
