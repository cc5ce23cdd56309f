"""``python -m fxtlint``: the same as the ``fxtlint`` command (``cli.console``, which
imports the command line's modules collecting nothing, bench/startup.py)."""

import sys

from .cli import console

sys.exit(console())
