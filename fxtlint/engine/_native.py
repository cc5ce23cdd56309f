"""Which engine a walk runs: one word, named per call, defaulting to ``FXTLINT_ENGINE``.

The lint runs on exactly two engines: the native walk (``_nwalk.pyx``, ``_walk_native``:
one compiled pass in file order, every file size, a trace in either byte order or a
structured-log stream, whole or fed as a stream) where it is built, and the reference
path (the per-record reader, ``RecordChecker``, ``PairingEngine``'s loop) otherwise: the
specification, the oracle and the fallback where nothing compiles. ``report`` is the
lint's walk (its coverage counted beside the linter, on either engine); so is ``export``
where the native walk is built, and ``decode`` on the engine ``walk``: they ride the lint's
walk (its rows mode, ``_nwalk_rows.pxi``: their event records formatted natively) behind a
linter whose findings nothing reads. Otherwise their walks take the column path (numpy:
the native kernel or the column engine as the scan step, ``_lookups``' refs, rows written
by the native text filler or Python templates) or the reference path. The engines
(``ENGINES``; every one reports the same):

- ``auto`` (the default): the lint, report and export on the native walk where it is
  built, on the reference path otherwise; decode (and export without the native walk) on
  the reference path below ``_walk.COLUMNS_FROM`` bytes, on the column path above;
- ``walk``: as ``auto``, and decode on the native walk too (its rows mode: events written
  natively, other records decoded one by one);
- ``fast``: as ``auto``; decode (and export without the native walk) on the column path at
  every size, the kernel and the filler where they are built;
- ``native``: every native part required: the lint and export on the native walk, decode
  on the column path's kernel and filler; an error when one is not built;
- ``python``: no native part: the lint on the reference path, the other verbs on the
  column path with the numpy column engine and Python templates (what an install
  without a C compiler runs);
- ``reference``: everything on the per-record reader.

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
# per engine: (the column path of the verbs other than the lint: True always, False never,
# None by size; how the kernel, how the filler, how the lint takes the native walk)
PARTS = {
    "auto": (None, ACTIVE, ACTIVE, ACTIVE),
    "fast": (True, ACTIVE, ACTIVE, ACTIVE),
    "native": (True, REQUIRED, REQUIRED, REQUIRED),
    "python": (True, None, None, None),
    "reference": (False, None, None, None),
    "walk": (None, ACTIVE, ACTIVE, ACTIVE),
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
    """(column path, how the kernel, how the filler, how the native walk) of ``engine``
    (None: the default)."""
    name = default_engine() if engine is None else engine
    got = PARTS.get(name)
    if got is None:
        raise ValueError(f"engine must be one of {ENGINES} or None, not {engine!r}")
    return got


def walks_natively(engine: str | None) -> bool:
    """Whether ``engine`` (None: the default) lints on the native walk where it is built
    (an FxtError for ``native`` where it is not)."""
    how = parts(engine)[3]
    return _pick(_nwalk_built, "native walk", how) is not None


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
    """Why the ``native`` engine cannot run here (the kernel, the filler or the native walk
    not built), or None."""
    return _built()[1] or _filler_built()[1] or _nwalk_built()[1]


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
    """Which engine lints by default (the native walk or the reference), what the other
    verbs' column path runs on, and whether each native part is built (and if not, why),
    for ``fxtlint --version`` (``environ``: the environment to read ``FXTLINT_ENGINE``
    from; None, this process's default)."""
    try:
        choice = default_engine() if environ is None else engine_of(environ)
    except FxtError as e:
        return f"engine: ? ({e})"
    mod, why = _built()
    fill_mod, fill_why = _filler_built()
    walk_mod, walk_why = _nwalk_built()
    state = "; ".join((
        "native kernel: built" if mod is not None else f"native kernel: not built: {why}",
        "native text filler: built" if fill_mod is not None else f"native text filler: not built: {fill_why}",
        "native walk: built" if walk_mod is not None else f"native walk: not built: {walk_why}",
    ))
    forced = f", forced by {ENV}={choice}" if choice not in ("auto", "walk") else ""
    if choice == "native" and (mod is None or fill_mod is None or walk_mod is None):
        return f"engine: none, {ENV}=native needs every native part; {state}"
    if choice in ("python", "reference") or walk_mod is None:
        lint = "reference"  # the per-record reader: the specification, and the fallback
    else:
        lint = "walk"
    if choice == "reference":
        others = "reference"
    elif choice == "python" or mod is None:
        others = "python"
    elif fill_mod is None:
        others = "native, rows in python"
    else:
        others = "native"
    return f"engine: {lint}{forced}; export and decode: {others}; {state}"
