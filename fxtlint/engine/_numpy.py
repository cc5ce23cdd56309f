"""numpy, imported on first use: ``np`` here stands for the module until an attribute
is read from it, and is the module's attribute from then on.

The per-record path (the walk below ``_walk.COLUMNS_FROM``, the reference engine, the
pytest plugin) needs no array: a small file is linted without numpy's import, which
costs more than the lint (``bench/startup.py``). A module that uses numpy writes

    if TYPE_CHECKING:
        import numpy as np
    else:
        from ._numpy import np

and reads no array at import time (module constants built on first use), so the type
checker sees numpy itself and the import stays lazy.
"""

from __future__ import annotations

import importlib


class _LazyNumpy:
    """numpy's attributes, the module imported when the first one is read. Each one read
    is kept on the instance, so a second read is a plain attribute lookup."""

    def __init__(self) -> None:
        # the fuzz harnesses tell numpy modules by their globals' __name__ (fuzz/_harness.py)
        self.__name__ = "numpy"

    def __getattr__(self, name: str):
        value = getattr(importlib.import_module("numpy"), name)
        setattr(self, name, value)
        return value


np = _LazyNumpy()
