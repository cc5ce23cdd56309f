"""Which engine a walk runs: one word, named per call, defaulting to ``FXTLINT_ENGINE``.

Every verb runs on one of two engines: the native walk (``_nwalk.pyx``, ``_walk_native``:
one compiled pass in file order, every file size, a trace in either byte order or a
structured-log stream, whole or fed as a stream) where it is built, and the reference
path (the per-record reader, ``RecordChecker``, ``PairingEngine``'s loop) otherwise: the
specification, the oracle and the fallback where nothing compiles. ``report`` is the
lint's walk (its coverage counted beside the linter); ``export`` and ``decode`` ride the
lint's walk too (its rows mode, ``_nwalk_rows.pxi``: their event records formatted
natively) behind a linter whose findings nothing reads. The engines (``ENGINES``; every
one reports the same):

- ``auto`` (the default): every verb on the native walk where it is built, on the
  reference path otherwise;
- ``native``: the native walk required: an error where it is not built;
- ``reference``: every verb on the per-record reader.

``fast`` and ``walk`` are names ``auto`` had (a column engine used to run beside the walk,
and ``walk`` put decode on it before ``auto`` did); ``python`` is the name ``reference``
had for an install without a compiler. They are kept as aliases (``ALIASES``), so the
scripts that set them run as before.

A library call names its engine (``lint_buffer(data, engine=...)``, ``write_document``,
``decode_to``); a call that names none (``engine=None``) takes the process's default:
``FXTLINT_ENGINE`` when set, read once, ``auto`` otherwise.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Mapping

from ..spec._errors import FxtError

ENV = "FXTLINT_ENGINE"
ENGINES = ("auto", "native", "reference", "fast", "walk", "python")
# the names kept for the scripts that set them: each runs as the engine it names
ALIASES = {"fast": "auto", "walk": "auto", "python": "reference"}
# how a walk takes the native walk: ACTIVE, the built module if there is one (None: the
# reference path); REQUIRED, the built module or an FxtError saying why not; None, never
ACTIVE = object()
REQUIRED = object()
PARTS = {"auto": ACTIVE, "native": REQUIRED, "reference": None}


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


def canonical(engine: str | None) -> str:
    """The engine ``engine`` (None: the default) runs as: ``auto``, ``native`` or ``reference``
    (an alias resolved); a ValueError for a name that is no engine."""
    name = default_engine() if engine is None else engine
    if name not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES} or None, not {engine!r}")
    return ALIASES.get(name, name)


def walks_natively(engine: str | None) -> bool:
    """Whether ``engine`` (None: the default) runs on the native walk: where it is built,
    but for ``reference`` (an FxtError for ``native`` where it is not built)."""
    how = PARTS[canonical(engine)]
    if how is None:
        return False
    mod, why = _nwalk_built()
    if mod is None and how is REQUIRED:
        raise FxtError(f"engine native, but the native walk is not built: {why}")
    return mod is not None


def _extension(name: str):
    """(the compiled extension ``fxtlint.engine.<name>``, None) or (None, why it cannot be imported)."""
    full = f"{__package__}.{name}"
    try:
        return importlib.import_module(full), None
    except ImportError as e:
        if e.name in (__package__, full) and name in str(e):
            return None, f"no compiled {full} (the install had no C++ compiler, or compiling failed)"
        return None, str(e)


@functools.cache
def _nwalk_built():
    """(the native walk module, None) or (None, why it cannot be used)."""
    return _extension("_nwalk")  # _nwalk.pyx


def nwalk():
    """The native walk module (``_nwalk``), or None where it is not built."""
    return _nwalk_built()[0]


def default_walk():
    """The native walk module when the default engine walks on it, else None (an
    FxtError of ``walks_natively``, a misspelt ``FXTLINT_ENGINE`` included, is None too):
    the rewriting verbs' choice of path (``rewrite._repair``, ``rewrite._slice``)."""
    try:
        return nwalk() if walks_natively(None) else None
    except FxtError:
        return None


def native_missing() -> str | None:
    """Why the ``native`` engine cannot run here (the native walk not built), or None."""
    return _nwalk_built()[1]


# glibc's mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def tune_allocator() -> bool:
    """For the command line's export and decode: glibc's mmap threshold raised to 64 MB and
    its trim threshold to 128 MB (``mallopt``), so that the text the native walk's rows mode
    writes at each stop (megabytes, made and freed stop after stop) reuses freed blocks
    instead of faulting in fresh pages (``bench/allocator.py`` measures it). Process-wide,
    so never done on import: a library user's process is not ours to tune. True where it
    took effect (the native walk built, glibc)."""
    if nwalk() is None:
        return False
    try:
        import ctypes

        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc: nothing to tune
        return False
    return bool(mallopt(_M_MMAP_THRESHOLD, 64 << 20) and mallopt(_M_TRIM_THRESHOLD, 128 << 20))


def give_back_heap() -> None:
    """Hand the heap a pass freed back to the system (glibc's ``malloc_trim``; nothing
    elsewhere), the cyclic garbage that holds the walk's buffers collected first. For the
    command line's repair, between its lint of IN and its repair pass: kept, the freed heap
    made the pass peak above it instead of reusing it (``bench/rewrite_bench.py --zero-page``
    says the peak; docs/performance.md). Process-wide, as ``tune_allocator``: never done on
    import."""
    import gc

    gc.collect()
    try:
        import ctypes

        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc
        pass


def describe(environ: Mapping[str, str] | None = None) -> str:
    """Which engine runs every verb (the native walk or the reference), and whether the
    native walk is built (and if not, why), for ``fxtlint --version`` (``environ``: the
    environment to read ``FXTLINT_ENGINE`` from; None, this process's default)."""
    try:
        choice = default_engine() if environ is None else engine_of(environ)
    except FxtError as e:
        return f"engine: ? ({e})"
    walk_mod, walk_why = _nwalk_built()
    state = "native walk: built" if walk_mod is not None else f"native walk: not built: {walk_why}"
    runs = ALIASES.get(choice, choice)
    forced = f", forced by {ENV}={choice}" if runs != "auto" else ""
    if runs == "native" and walk_mod is None:
        return f"engine: none, {ENV}=native needs the native walk; {state}"
    engine = "reference" if runs == "reference" or walk_mod is None else "walk"
    return f"engine: {engine}{forced}; {state}"
