"""Which screen engine runs: the native kernel when it is built, unless ``FXTLINT_ENGINE`` says.

``FXTLINT_ENGINE``: ``python`` forces the pure Python engine; ``native`` requires the
kernel (an error when it is not built); ``auto`` or unset takes the kernel when it is
built and matches this version's program format, the pure engine otherwise.
"""

from __future__ import annotations

import functools
import os

from ._errors import FxtError

ENV = "FXTLINT_ENGINE"
CHOICES = ("auto", "python", "native")
# The fast path screens with the kernel once it is wired in (after the engine's
# restructuring); until then every lint runs the pure Python column engine.
LINT_USES_KERNEL = False


@functools.cache
def _built():
    """(the kernel module, None) or (None, why it cannot be used)."""
    try:
        from . import _kernel
    except ImportError as e:
        return None, f"the native kernel is not built ({e})"
    from ._kernel_program import HEADER, OPS

    if tuple(_kernel.OPS) != OPS or tuple(_kernel.HEADER) != HEADER:
        return None, "the native kernel is a stale build (its instruction set differs): rebuild it"
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
        raise FxtError(f"{ENV}=native but {why}")
    return mod


def describe() -> str:
    """The engine line of ``fxtlint --version``."""
    try:
        mod = kernel()
    except FxtError as e:
        return f"engine: none ({e})"
    if mod is None:
        choice = os.environ.get(ENV, "auto") or "auto"
        why = f"forced by {ENV}=python" if choice == "python" else _built()[1]
        return f"engine: python ({why})"
    if not LINT_USES_KERNEL:
        return "engine: python (the native kernel is built; the lint does not use it yet)"
    return "engine: native"
