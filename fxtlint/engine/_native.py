"""Which engine a walk runs: one word, named per call, defaulting to ``FXTLINT_ENGINE``.

The engines (``ENGINES``; every one reports the same):

- ``reference``: the per-record reader alone (decode and check every record);
- ``fast``: the column path, its scan step the native kernel and export's and decode's rows
  written by the native text filler where they are built, the column engine (numpy) and
  Python templates otherwise;
- ``native``: the column path with the kernel and the filler, an error when one is not built;
- ``python``: the column path without them (what an install without a C compiler runs);
- ``walk``: the lint on the native walk (``_nwalk.pyx``, ``_walk_native``: one compiled pass
  in file order, every file size, a trace in either byte order or a structured-log stream,
  whole or fed as a stream) where it is built; the other verbs (a walk with a consumer
  other than the linter: ``report``'s coverage, export, decode) as ``auto``;
- ``auto``: the lint on the native walk where it is built, as ``walk``; everything else
  ``reference`` below ``_walk.COLUMNS_FROM`` bytes, ``fast`` above, whichever costs less.

A library call names its engine (``lint_buffer(data, engine=...)``, ``write_document``,
``decode_to``); a call that names none (``engine=None``) takes the process's default:
``FXTLINT_ENGINE`` when set, read once, ``auto`` otherwise. The kernel is used only when it
matches this version's program format.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping
from contextlib import contextmanager
from contextvars import ContextVar

from ..spec._errors import FxtError

ENV = "FXTLINT_ENGINE"
ENGINES = ("auto", "fast", "native", "python", "reference", "walk")
# how a walk takes each native part: ACTIVE, the built module if there is one (None: the
# pure Python part); REQUIRED, the built module or an FxtError saying why not; None, never
ACTIVE = object()
REQUIRED = object()
# per engine: (the column path: True always, False never, None by size; how the kernel, how the filler)
PARTS = {
    "auto": (None, ACTIVE, ACTIVE),
    "fast": (True, ACTIVE, ACTIVE),
    "native": (True, REQUIRED, REQUIRED),
    "python": (True, None, None),
    "reference": (False, None, None),
    "walk": (None, ACTIVE, ACTIVE),
}


def engine_of(environ: Mapping[str, str]) -> str:
    """The default engine ``environ`` sets (``FXTLINT_ENGINE``, ``auto`` when unset or empty)."""
    choice = environ.get(ENV, "") or "auto"
    if choice not in ENGINES:
        raise FxtError(f"{ENV}={choice} does not fit: allowed {', '.join(ENGINES)}")
    return choice


@functools.cache
def default_engine() -> str:
    """The engine of a call that names none: ``FXTLINT_ENGINE``, read once per process."""
    return engine_of(os.environ)


def parts(engine: str | None):
    """(column path, how the kernel, how the filler) of ``engine`` (None: the default)."""
    name = default_engine() if engine is None else engine
    got = PARTS.get(name)
    if got is None:
        raise ValueError(f"engine must be one of {ENGINES} or None, not {engine!r}")
    return got


def walks_natively(engine: str | None) -> bool:
    """Whether ``engine`` (None: the default) lints on the native walk where it is built."""
    return (default_engine() if engine is None else engine) in ("walk", "auto")


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


@functools.cache
def _nwalk_built():
    """(the native walk module, None) or (None, why it cannot be used)."""
    return _extension("_nwalk")  # _nwalk.pyx


def nwalk():
    """The native walk module (``_nwalk``), or None where it is not built."""
    return _nwalk_built()[0]


def native_missing() -> str | None:
    """Why the ``native`` engine cannot run here (the kernel or the filler not built), or None."""
    return _built()[1] or _filler_built()[1]


def _pick(built, what: str, how):
    if how is None:
        return None
    mod, why = built()
    if mod is None and how is REQUIRED:
        raise FxtError(f"engine native, but the {what} is not built: {why}")
    return mod


def kernel(how=ACTIVE):
    """The native kernel module (``how``: ACTIVE, the built one or None; REQUIRED, the
    built one or an FxtError; None: none)."""
    return _pick(_built, "native kernel", how)


# how the running walk writes export's and decode's rows: (how,), set by ``filling``;
# outside any walk, as the default engine says
_FILLING: ContextVar[tuple] = ContextVar("fxtlint_filling")


def filler():
    """The native text filler module (``_textfill.c``) the running walk writes its rows
    with, or None when they are written in pure Python (``_jsontext``)."""
    got = _FILLING.get(None)
    return _pick(_filler_built, "native text filler", parts(None)[2] if got is None else got[0])


@contextmanager
def filling(engine: str | None):
    """Inside the block, ``filler()`` is ``engine``'s (a walk's run and a stream's advance
    set it; tests that write rows both ways)."""
    token = _FILLING.set((parts(engine)[2],))
    try:
        yield
    finally:
        _FILLING.reset(token)


def tune_allocator() -> bool:
    """For the command line's export and decode: malloc reuses the filler's freed batch
    buffers instead of faulting in fresh pages (``_textfill.tune_allocator``). Process-wide,
    so never done on import. True where it took effect."""
    fill = filler()
    return bool(fill is not None and fill.tune_allocator())


def describe(environ: Mapping[str, str] | None = None) -> str:
    """Which engine lints by default and whether the native kernel and text filler are
    built (and if not, why), for ``fxtlint --version`` (``environ``: the environment to
    read ``FXTLINT_ENGINE`` from; None, this process's default)."""
    try:
        choice = default_engine() if environ is None else engine_of(environ)
    except FxtError as e:
        return f"engine: ? ({e})"
    mod, why = _built()
    fill_mod, fill_why = _filler_built()
    state = (("native kernel: built" if mod is not None else f"native kernel: not built: {why}")
             + "; " + ("native text filler: built" if fill_mod is not None
                       else f"native text filler: not built: {fill_why}"))
    walk_mod, walk_why = _nwalk_built()
    state += "; " + ("native walk: built" if walk_mod is not None else f"native walk: not built: {walk_why}")
    if choice in ("python", "reference"):
        return f"engine: {choice}, forced by {ENV}={choice}; {state}"
    if choice in ("auto", "walk") and walk_mod is not None:
        return f"engine: walk; {state}"
    if choice == "native" and (mod is None or fill_mod is None):
        return f"engine: none, {ENV}=native needs both; {state}"
    if mod is None:
        return f"engine: python; {state}"
    if fill_mod is None:
        return f"engine: native, export and decode rows in python; {state}"
    return f"engine: native; {state}"
