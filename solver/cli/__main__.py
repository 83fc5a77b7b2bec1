"""``python -m solver.cli``: the ``farkle`` command."""

import sys

from solver.cli.main import main

sys.exit(main())
