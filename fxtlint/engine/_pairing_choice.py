"""Which pairing engine a lint runs: the compiled twin where it is built, the reference otherwise.

The ``reference`` engine keeps ``_pairing.PairingEngine`` (its loop is the specification
and the oracle every other engine is compared with); every other engine pairs with
``_npairing.PairingEngine`` (Cython, C++ mode: the same verdicts, made by the same rules in
the same order) where it is built and matches this version's event kinds, and with the
reference engine where it is not (an install without a compiler).
"""

from __future__ import annotations

import functools

from ._native import _extension, default_engine
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


def pairing_engine(emit, strings: list[str], limits, *, buffering_mode: str | None = None,
                   engine: str | None = None):
    """The pairing engine for a lint run by ``engine`` (``_native.ENGINES``; None: the
    default): the compiled one unless ``engine`` is "reference" or it is not built."""
    name = default_engine() if engine is None else engine
    mod = native_pairing()[0] if name != "reference" else None
    make = PairingEngine if mod is None else mod.PairingEngine
    return make(emit, strings, limits, buffering_mode=buffering_mode)
