"""``python -m fxtlint``: the same as the ``fxtlint`` command.

The collector is off while the command line's modules are imported, and what they made
is then frozen (``gc.freeze``: kept out of every later collection, as a module's objects
live as long as the process): a small lint's imports make tens of thousands of objects
and nothing that needs collecting (about 3 ms of a 100 ms start, bench/startup.py).
"""

import gc
import sys

gc.disable()
try:
    from .cli import console
finally:
    gc.freeze()
    gc.enable()

sys.exit(console())
