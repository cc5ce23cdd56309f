"""Lint a buffer or a file: choose the format, read every record, collect diagnostics.

``lint_path`` is the one linting entry that opens a file, and everything it calls
works on a buffer. (The CLI opens the files it lints through ``cli/_buffers.py`` and
calls ``lint_buffer``, so that it renders from the bytes it linted.)
"""

from __future__ import annotations

import mmap
import os
import stat
from collections import Counter
from contextlib import contextmanager

from ._reader import detect_byte_order, iter_records, looks_like_structured_log
from ._report import DiagnosticSink, FileReport
from ._fast import lint_fast
from ._limits import DEFAULT_LIMITS, Limits
from ._semantic import RecordChecker, SemanticState

INPUT_FORMATS = ("auto", "trace", "log")


def choose_format(buf, input_format: str = "auto") -> str:
    if input_format not in INPUT_FORMATS:
        raise ValueError(f"input_format must be one of {INPUT_FORMATS}, not {input_format!r}")
    if input_format != "auto":
        return input_format
    return "log" if looks_like_structured_log(buf) else "trace"


ENGINES = ("fast", "reference")


def lint_buffer(buf, *, input_format: str = "auto", path: str = "<bytes>",
                sink: DiagnosticSink | None = None, engine: str = "fast",
                limits: Limits = DEFAULT_LIMITS) -> FileReport:
    """Lint ``buf`` (bytes, bytearray, memoryview or mmap).

    ``engine`` "reference" checks record by record with the decoded records; "fast"
    (the default) screens every record with the column engine and must report the same.
    ``limits`` (windows, caps) goes down to every engine; the defaults suit any file.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, not {engine!r}")
    sink = sink if sink is not None else DiagnosticSink()
    fmt = choose_format(buf, input_format)
    log = fmt == "log"
    byte_order = "little" if log else (detect_byte_order(buf) or "little")
    kinds: Counter = Counter()
    n = 0
    state = None
    if engine == "fast":
        n, kinds, state = lint_fast(buf, sink.add, byte_order == "big", log, limits)
    elif log:
        for rec in iter_records(buf, sink.add, byte_order=byte_order, log=True):
            kinds[rec.kind] += 1
            n += 1
    else:
        state = SemanticState(sink.add, limits)
        state.big = byte_order == "big"
        check = RecordChecker(state).check
        walked = 0
        for rec in iter_records(buf, sink.add, byte_order=byte_order):
            kinds[rec.kind] += 1
            n += 1
            walked = rec.end
            check(rec)
        # framing stopped before the last whole word: what is open may end in the rest
        state.finish(cut_short=n > 0 and walked < len(buf) - len(buf) % 8)
    summary: dict = {"record_kinds": dict(sorted(kinds.items()))}
    if state is not None:
        summary["providers"] = sorted(p for p in state.announced)
        summary["buffer_full_at"] = state.buffer_full
    return FileReport.from_sink(
        path=path, format=fmt, records=n, size=len(buf), byte_order=byte_order, sink=sink,
        summary=summary,
    )


def lint_bytes(data: bytes, *, input_format: str = "auto", sink: DiagnosticSink | None = None,
               engine: str = "fast", limits: Limits = DEFAULT_LIMITS) -> FileReport:
    return lint_buffer(data, input_format=input_format, sink=sink, engine=engine, limits=limits)


def lint_path(path, *, input_format: str = "auto", sink: DiagnosticSink | None = None,
              engine: str = "fast", limits: Limits = DEFAULT_LIMITS) -> FileReport:
    """Lint the file at ``path``, memory-mapped. Raises OSError on I/O failure only."""
    path = os.fspath(path)
    with open_buffer(path) as buf:
        return lint_buffer(buf, input_format=input_format, path=path, sink=sink, engine=engine, limits=limits)


@contextmanager
def open_buffer(path):
    """The file's bytes, mapped read-only (read whole for empty files, pipes and devices,
    which cannot be mapped). Raises OSError when the path cannot be read."""
    with open(path, "rb") as fh:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
            yield fh.read()
            return
        m = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        with closing_map(m):
            yield m


@contextmanager
def closing_map(m: mmap.mmap):
    """Close ``m`` on the way out. A view of it still alive after a lint that succeeded
    is a bug and its BufferError propagates; after a failure the failure is what counts."""
    try:
        yield m
    except BaseException:
        try:
            m.close()
        except BufferError:
            pass  # a view outlived the error being raised; that error is the news
        raise
    m.close()
