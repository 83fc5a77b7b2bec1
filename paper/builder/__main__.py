"""``python -m paper.builder``: build the paper (:mod:`paper.builder.build`)."""

import sys

from paper.builder.build import main

sys.exit(main())
