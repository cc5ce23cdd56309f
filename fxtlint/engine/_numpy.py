"""numpy, imported on first use: ``np`` here stands for the module until an attribute
is read from it, and is the module's attribute from then on.

The lint (the native walk, the reference engine, the pytest plugin) and the per-record
path of the other verbs (the walk below ``_walk.COLUMNS_FROM``) need no array: a file is
linted without numpy's import, which costs more than a small lint (``bench/startup.py``);
only the column path of export and decode imports it (report runs on the lint's walk). A module that uses numpy writes

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
