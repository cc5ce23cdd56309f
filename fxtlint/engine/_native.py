"""Which scan step the walk runs, and who writes export's and decode's JSON rows: the
native kernel and text filler when they are built, unless ``FXTLINT_ENGINE`` says.

``FXTLINT_ENGINE``: ``python`` forces the pure Python engine; ``native`` requires the
kernel and the filler (an error when one is not built); ``auto`` or unset takes each when it is
built (the kernel: and matches this version's program format), the pure engine otherwise.
"""

from __future__ import annotations

import functools
import importlib
import os
from contextlib import contextmanager

from ..spec._errors import FxtError

ENV = "FXTLINT_ENGINE"
CHOICES = ("auto", "python", "native")
ACTIVE = object()  # a walk's default: the engine kernel() chooses


def _extension(name: str):
    """(the C extension ``fxtlint.engine.<name>``, None) or (None, why it cannot be imported)."""
    full = f"{__package__}.{name}"
    try:
        return importlib.import_module(full), None
    except ImportError as e:
        if e.name in (__package__, full) and name in str(e):
            return None, f"no compiled {full} (the install had no C compiler, or compiling failed)"
        return None, str(e)


@functools.cache
def _built():
    """(the kernel module, None) or (None, why it cannot be used)."""
    _kernel, why = _extension("_kernel")  # _kernel.c
    if _kernel is None:
        return None, why
    from ._kernel_program import HEADER, OPS

    if tuple(_kernel.OPS) != OPS or tuple(_kernel.HEADER) != HEADER:
        return None, "a stale build (its instruction set differs from _kernel_program's): rebuild it"
    return _kernel, None


@functools.cache
def _filler_built():
    """(the text filler module, None) or (None, why it cannot be used)."""
    return _extension("_textfill")  # _textfill.c


def native_missing() -> str | None:
    """Why ``FXTLINT_ENGINE=native`` cannot run here (the kernel or the filler not built), or None."""
    return _built()[1] or _filler_built()[1]


@contextmanager
def forced(choice: str):
    """``FXTLINT_ENGINE`` set to ``choice`` inside the block (tests, the native fuzz harness):
    read at each walk and batch (``kernel()``, ``filler()``), a dict store, not a cost."""
    before = os.environ.get(ENV)
    os.environ[ENV] = choice
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = before


def _choice() -> str:
    choice = os.environ.get(ENV, "auto") or "auto"
    if choice not in CHOICES:
        raise FxtError(f"{ENV}={choice} does not fit: allowed {', '.join(CHOICES)}")
    return choice


def _pick(built, what: str):
    choice = _choice()
    if choice == "python":
        return None
    mod, why = built()
    if mod is None and choice == "native":
        raise FxtError(f"{ENV}=native but the {what} is not built: {why}")
    return mod


def kernel():
    """The native kernel module, or None when the pure Python engine is to run."""
    return _pick(_built, "native kernel")


def filler():
    """The native text filler module (``_textfill.c``), or None when export and decode
    write their rows in pure Python (``_jsontext``)."""
    return _pick(_filler_built, "native text filler")


def tune_allocator() -> bool:
    """For the command line's export and decode: malloc reuses the filler's freed batch
    buffers instead of faulting in fresh pages (``_textfill.tune_allocator``). Process-wide,
    so never done on import. True where it took effect."""
    fill = filler()
    return bool(fill is not None and fill.tune_allocator())


def describe() -> str:
    """Which engine lints and whether the native kernel and text filler are built (and
    if not, why), for ``fxtlint --version``."""
    choice = os.environ.get(ENV, "auto") or "auto"
    if choice not in CHOICES:
        return f"engine: ? ({ENV}={choice} does not fit: allowed {', '.join(CHOICES)})"
    mod, why = _built()
    fill_mod, fill_why = _filler_built()
    state = (("native kernel: built" if mod is not None else f"native kernel: not built: {why}")
             + "; " + ("native text filler: built" if fill_mod is not None
                       else f"native text filler: not built: {fill_why}"))
    if choice == "python":
        return f"engine: python, forced by {ENV}=python; {state}"
    if choice == "native" and (mod is None or fill_mod is None):
        return f"engine: none, {ENV}=native needs both; {state}"
    if mod is None:
        return f"engine: python; {state}"
    if fill_mod is None:
        return f"engine: native, export and decode rows in python; {state}"
    return f"engine: native; {state}"
