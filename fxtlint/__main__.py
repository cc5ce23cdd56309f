"""``python -m fxtlint``: the same as the ``fxtlint`` command."""

import sys

from .cli import main

sys.exit(main())
