"""What a rule module declares with but a lint never calls, made at its first use.

A rule's mutation (``Rule.mutation``) and its examples build archives with the spec's
builders (``spec._build``, over the encoder) and the mutation helpers (``_mutate``,
``_ex``); a lint reads none of them. The family modules bind those modules to their
names as ``LaterModule``s and declare each mutation as a ``Later``, so that importing the
registry (as every lint does) imports neither the builders nor the encoder (about 1.5 ms
of a small lint's start, bench/startup.py); the first use imports them, once per process.
"""

from __future__ import annotations

import sys


class Later:
    """A callable made at its first call (``make()``), then called with the arguments:
    a mutation named where its rule is declared, ``Later(lambda: M.append(B.magic()))``."""

    __slots__ = ("make", "made")

    def __init__(self, make):
        self.make = make
        self.made = None

    def __call__(self, *args, **kwargs):
        made = self.made
        if made is None:
            made = self.made = self.make()
        return made(*args, **kwargs)


class LaterModule:
    """The module ``name``, bound to ``alias`` in ``namespace`` (a module's globals): its
    first attribute read imports it and binds the module itself there, so that each later
    read is the module's own (no look-up through this object)."""

    __slots__ = ("_name", "_namespace", "_alias")

    def __init__(self, name: str, namespace: dict, alias: str):
        self._name, self._namespace, self._alias = name, namespace, alias

    def __getattr__(self, attr: str):
        # (imported as an import statement does, so that ``python -X importtime`` lists it,
        # which ``importlib.import_module`` does not: tests/test_startup.py reads that list)
        __import__(self._name)
        module = sys.modules[self._name]
        self._namespace[self._alias] = module
        return getattr(module, attr)
