"""Which pairing engine a lint runs: the compiled twin on the native walk, the reference loop otherwise.

The lint's reference path (the per-record reader and ``RecordChecker``) keeps
``_pairing.PairingEngine``: its loop is the specification and the oracle the compiled
engine is compared with. The native walk pairs with ``_npairing.PairingEngine`` (Cython,
C++ mode: the same verdicts, made by the same rules in the same order) where it is built
and matches this version's event kinds, and with the reference loop where it is not.
"""

from __future__ import annotations

import functools

from ._native import _extension
from ._pairing import PairingEngine, PairKind


@functools.cache
def native_pairing():
    """(the compiled pairing module, None) or (None, why it cannot be used)."""
    mod, why = _extension("_npairing")  # _npairing.pyx
    if mod is None:
        return None, why
    if dict(mod.KINDS) != {k.name: int(k) for k in PairKind}:
        return None, "a stale build (its event kinds differ from _pairing.PairKind's): rebuild it"
    return mod, None


def pairing_engine(emit, strings: list[str], limits, *, buffering_mode: str | None = None, native: bool = False):
    """The pairing engine of a lint: the compiled one when ``native`` (the lint runs on the
    native walk) and it is built, the reference loop otherwise."""
    mod = native_pairing()[0] if native else None
    make = PairingEngine if mod is None else mod.PairingEngine
    return make(emit, strings, limits, buffering_mode=buffering_mode)
