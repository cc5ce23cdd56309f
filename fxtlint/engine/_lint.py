"""Lint a buffer or a file: choose the format, read every record, collect diagnostics.

``lint_path`` is the one linting entry that opens a file, and everything it calls
works on a buffer. (The CLI opens the files it lints through ``cli/_buffers.py`` and
calls ``lint_buffer``, so that it renders from the bytes it linted.)

Whole bytes (``bytes``, ``bytearray``) linted on the native walk take ``lint_whole``: one
object is the walk, the linter and its driver (``_walk_native.WholeLint``), so a small
input's lint builds nothing it does not need. Anything else (a file read a chunk at a
time, a stream, other consumers, the reference engine) builds a ``Walk`` with the linter
(``lint_walk``). Both give the same report.
"""

from __future__ import annotations

import os
import stat
from contextlib import contextmanager

from ..spec._limits import DEFAULT_LIMITS, Limits
from . import _file, _native, _reader
from ._native import canonical, nwalk, walks_natively
from ._pairing import BUFFERING_MODES
from ._reader import detect_byte_order, forget_chains, looks_like_structured_log
from ._result import DiagnosticSink, FileReport

TYPE_CHECKING = False  # typing's, without importing typing at run time
if TYPE_CHECKING:
    from ._lint_consumer import Lint
    from ._walk import Walk

INPUT_FORMATS = ("auto", "trace", "log")


def choose_format(buf, input_format: str = "auto") -> str:
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input_format must be one of {INPUT_FORMATS}, not {input_format!r}")
    if input_format != "auto":
        return input_format
    return "log" if looks_like_structured_log(buf) else "trace"


def walk_for(buf, consumers, *, input_format: str = "auto", emit=None, engine: str | None = None,
             limits: Limits = DEFAULT_LIMITS, resync: bool = False) -> Walk:
    """The walk of ``buf`` for ``consumers``: format and byte order chosen, not yet run
    (``engine``: one of ``_native.ENGINES``, None for the default). ``resync`` False frames
    every record by its declared size, as the spec reads a trace (the lint's verdict);
    True is recovery's reading (``decode_record``)."""
    from ._walk import Walk  # (the walk of a stream, a file read a chunk at a time, other consumers, the
    # reference engine: a lint of whole bytes on the native walk imports none of it, ``lint_whole``)

    canonical(engine)  # a name that is no engine fails here, before any reading
    log = choose_format(buf, input_format) == "log"
    big = not log and detect_byte_order(buf) == "big"
    return Walk(buf, consumers, big=big, log=log, emit=emit, limits=limits, engine=engine, resync=resync)


def lint_walk(buf, *, consumers=(), input_format: str = "auto", path: str = "<bytes>",
              sink: DiagnosticSink | None = None, engine: str | None = None,
              limits: Limits = DEFAULT_LIMITS, buffering_mode: str | None = None) -> tuple[FileReport, Walk]:
    """Lint ``buf`` in one walk that also feeds ``consumers`` (on the native walk when each
    of them rides it, ``Consumer.rides_native``, on the reference path otherwise); returns
    the report and the walk (its record kinds, provider tables, and whether the file is
    FXT at all).
    ``buf`` may be ``open_buffer``'s ``FileSource``: the file is read and walked a
    chunk at a time (``_feeder.walk_source``)."""
    from ._feeder import walk_source
    from ._lint_consumer import Lint

    sink = sink if sink is not None else DiagnosticSink()
    lints: list[Lint] = []

    def make(b, extra):
        walk = walk_for(b, (), input_format=input_format, emit=sink.add, engine=engine, limits=limits)
        lints.append(Lint(sink.add, limits, walk.log, buffering_mode))
        walk.consumers = [lints[-1], *extra]
        walk.lint = lints[-1]  # the native walk lints when it is the only consumer
        return walk

    walk = walk_source(buf, make, consumers)
    return lint_report(walk, lints[-1], sink, path, len(buf)), walk


def lint_report(walk: Walk, lint: Lint, sink: DiagnosticSink, path: str, size: int) -> FileReport:
    """The report of a walk that has run with ``lint`` among its consumers."""
    summary: dict = {"record_kinds": dict(sorted(walk.kinds.items()))}
    if not walk.log:
        summary["providers"] = sorted(walk.state.announced)
        summary["buffer_full_at"] = lint.buffer_full
    return FileReport.from_sink(
        path=path, format="log" if walk.log else "trace", records=walk.records, size=size,
        byte_order="big" if walk.big else "little", sink=sink, summary=summary,
    )


def lint_buffer(buf, *, input_format: str = "auto", path: str = "<bytes>",
                sink: DiagnosticSink | None = None, engine: str | None = None,
                limits: Limits = DEFAULT_LIMITS, buffering_mode: str | None = None) -> FileReport:
    """Lint ``buf`` (bytes, bytearray, memoryview or mmap, or ``open_buffer``'s
    ``FileSource``).

    ``engine`` (every one reports the same; ``_native``): the lint runs on the native walk
    ("auto"; "native" requires it: an FxtError where it is not built) where it is built,
    on the reference engine (the per-record reader and checker) otherwise and for
    "reference" ("fast" and "walk" are aliases of "auto", "python" of "reference"). None
    (the default): ``FXTLINT_ENGINE``'s, "auto" when it is not set.
    ``limits`` (windows, caps) goes down to every engine; the defaults suit any file.
    ``buffering_mode`` ("oneshot", "circular", "streaming"; None: not known) is how the
    trace was recorded: what a full buffer did changes what a correct trace looks like
    (PR001, PR004, EV003's docs).
    """
    if type(buf) is bytes or type(buf) is bytearray:
        return lint_whole(buf, input_format, path, sink, engine, limits, buffering_mode)
    try:
        return lint_walk(buf, input_format=input_format, path=path, sink=sink, engine=engine, limits=limits,
                         buffering_mode=buffering_mode)[0]
    finally:
        forget_chains()  # (the reader's look-ahead memo holds the bytes it chained: not past the lint)


def lint_whole(buf, input_format: str, path: str, sink: DiagnosticSink | None, engine: str | None,
               limits: Limits, buffering_mode: str | None) -> FileReport:
    """``lint_buffer`` of whole bytes (``bytes``, ``bytearray``), its arguments positional: on
    the native walk, one object for the walk and the linter (``_walk_native.WholeLint``: a
    small input's lint builds nothing it does not need), where the lint takes it; with
    ``lint_walk`` where it does not."""
    try:
        if engine is None and _DEFAULT[0] is _native._nwalk_built:
            module = _DEFAULT[1]  # (the default engine's walk, as it was read: a small lint's fixed cost)
        else:
            module = _walk_module(engine)  # (a name that is no engine fails here, before any reading)
        if module is None:
            return lint_walk(buf, input_format=input_format, path=path, sink=sink, engine=engine, limits=limits,
                             buffering_mode=buffering_mode)[0]
        order = detect_byte_order(buf)  # (read once: ``choose_format``'s, ``walk_for``'s and ``start_checks``'s)
        if input_format == "auto" and order is not None:
            log, big = False, order == "big"
        else:
            log = choose_format(buf, input_format) == "log"
            big = not log and order == "big"
        if buffering_mode is not None and buffering_mode not in BUFFERING_MODES:
            raise ValueError(f"buffering_mode must be one of {BUFFERING_MODES} or None, not {buffering_mode!r}")
        return (_WHOLE or _whole_lint())(buf, module, DiagnosticSink() if sink is None else sink, log, big, limits,
                                         buffering_mode, order, path)
    finally:
        if _reader._CHAINS[0] is not None:  # (``forget_chains``' question, without its call: a small lint's)
            forget_chains()  # (the reader's look-ahead memo holds the bytes it chained: not past the lint)


# the native walk's module a lint with the default engine takes (None: the reference path), with
# the ``_native._nwalk_built`` it was read through (a test that replaces that function is read again)
_DEFAULT: tuple = (None, None)
_WHOLE = None


def _walk_module(engine: str | None):
    """The native walk's module a lint with ``engine`` takes (None: the reference path); an
    error for a name that is no engine, or "native" where it is not built."""
    global _DEFAULT
    built = _native._nwalk_built  # (before the look: what the answer is remembered with)
    module = nwalk() if walks_natively(engine) else None
    if engine is None:
        _DEFAULT = (built, module)
    return module


def _whole_lint():
    """``_walk_native.WholeLint.lint``, imported by the first lint that takes it (``import
    fxtlint`` does not import the native walk's driver)."""
    global _WHOLE
    from ._walk_native import WholeLint

    _WHOLE = WholeLint.lint
    return _WHOLE


def lint_bytes(data: bytes, *, input_format: str = "auto", sink: DiagnosticSink | None = None,
               engine: str | None = None, limits: Limits = DEFAULT_LIMITS,
               buffering_mode: str | None = None) -> FileReport:
    if type(data) is bytes or type(data) is bytearray:  # (``lint_buffer``'s first step, without its call)
        return lint_whole(data, input_format, "<bytes>", sink, engine, limits, buffering_mode)
    return lint_buffer(data, input_format=input_format, sink=sink, engine=engine, limits=limits,
                       buffering_mode=buffering_mode)


def lint_path(path, *, input_format: str = "auto", sink: DiagnosticSink | None = None,
              engine: str | None = None, limits: Limits = DEFAULT_LIMITS,
              buffering_mode: str | None = None) -> FileReport:
    """Lint the file at ``path`` (``open_buffer``). Raises OSError on I/O failure only
    (``FileChanged`` when the file's length changed while it was read)."""
    path = os.fspath(path)
    with open_buffer(path) as buf:
        return lint_buffer(buf, input_format=input_format, path=path, sink=sink, engine=engine, limits=limits,
                           buffering_mode=buffering_mode)


@contextmanager
def open_buffer(path, progress=None):
    """The file to walk, read with ordinary reads, never mapped (``_file``: a mapped file
    that shrinks kills the process): its bytes for a small file, an empty one, a pipe
    or a device, read whole; a ``FileSource`` for a larger regular file, read a chunk at a time by
    the walk (``_feeder.walk_source``; ``progress(done, total)`` told after each read).
    Raises OSError when the path cannot be read, ``FileChanged`` when the file's length
    changes while it is read."""
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            yield fh.read()  # (a file of /proc says size 0 and has bytes)
        elif st.st_size <= _file.WHOLE:
            yield _file.read_whole(fh, os.fspath(path), st.st_size)
        else:
            yield _file.FileSource(fh, os.fspath(path), st.st_size, progress)

