"""Which scan step the walk runs: the native kernel when it is built, unless ``FXTLINT_ENGINE`` says.

``FXTLINT_ENGINE``: ``python`` forces the pure Python engine; ``native`` requires the
kernel (an error when it is not built); ``auto`` or unset takes the kernel when it is
built and matches this version's program format, the pure engine otherwise.
"""

from __future__ import annotations

import functools
import os

from ..spec._errors import FxtError

ENV = "FXTLINT_ENGINE"
CHOICES = ("auto", "python", "native")
ACTIVE = object()  # a walk's default: the engine kernel() chooses


@functools.cache
def _built():
    """(the kernel module, None) or (None, why it cannot be used)."""
    try:
        from . import _kernel
    except ImportError as e:
        if e.name in ("fxtlint.engine", "fxtlint.engine._kernel") and "_kernel" in str(e):
            return None, "no compiled fxtlint.engine._kernel (the install had no C compiler, or compiling failed)"
        return None, str(e)
    from ._kernel_program import HEADER, OPS

    if tuple(_kernel.OPS) != OPS or tuple(_kernel.HEADER) != HEADER:
        return None, "a stale build (its instruction set differs from _kernel_program's): rebuild it"
    return _kernel, None


def kernel():
    """The native kernel module, or None when the pure Python engine is to run."""
    choice = os.environ.get(ENV, "auto") or "auto"
    if choice not in CHOICES:
        raise FxtError(f"{ENV}={choice} does not fit: allowed {', '.join(CHOICES)}")
    if choice == "python":
        return None
    mod, why = _built()
    if mod is None and choice == "native":
        raise FxtError(f"{ENV}=native but the native kernel is not built: {why}")
    return mod


def describe() -> str:
    """Which engine lints and why, for ``fxtlint --version``."""
    choice = os.environ.get(ENV, "auto") or "auto"
    if choice not in CHOICES:
        return f"engine: ? ({ENV}={choice} does not fit: allowed {', '.join(CHOICES)})"
    mod, why = _built()
    kernel_state = "native kernel: built" if mod is not None else f"native kernel: not built: {why}"
    if choice == "python":
        return f"engine: python, forced by {ENV}=python; {kernel_state}"
    if mod is None:
        if choice == "native":
            return f"engine: none, {ENV}=native but {why}"
        return f"engine: python; {kernel_state}"
    return "engine: native"
