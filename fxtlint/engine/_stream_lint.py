"""The incremental reader and linter: FXT from a socket or a pipe, fed in any chunks.

Like h11, they own no I/O: the caller reads bytes however it likes and feeds them;
each ``feed`` returns what became known, ``close`` what the end of the stream settles
(durations still open, a record cut off, a length that is not whole words). Both drive
the one walk of every verb (``_feeder``), so the records and the findings are exactly
those of ``read_records`` and ``lint_bytes`` on the whole stream, whatever the chunks
(one byte at a time included), while memory stays with the tables, not the stream.
"""

from __future__ import annotations

from ..rules._diagnostics import Diagnostic
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._model import Record
from ._feeder import DEFAULT_STEP, Feeder
from ._hexview import Excerpts, record_window
from ._lint import lint_report, walk_for
from ._lint_consumer import Lint
from ._result import DiagnosticSink, FileReport
from ._walk import Consumer


class StreamLinter:
    """Lint a trace as it arrives: ``feed(chunk)`` returns the diagnostics found so far
    (not returned before), ``close()`` those the end settles, ``report`` the whole
    ``FileReport`` (equal to ``lint_bytes`` of the whole stream).

    ``sink`` selects, re-grades and caps as for a file, ``buffering_mode`` and ``engine``
    as for ``lint_buffer`` (where it is built, the native walk lints the stream as it
    does a whole buffer: ``_walk_native``); ``step`` is how many bytes arrive
    between two advances of the walk (findings come at that grain). With ``hex_bytes``
    the bytes of each finding's record are copied while the walk still holds them
    (``excerpts``, for hex views; up to the sink's cap per rule): a finding made after
    its record was left behind (a duration still open at the end) has none.
    """

    def __init__(self, *, input_format: str = "auto", sink: DiagnosticSink | None = None,
                 limits: Limits = DEFAULT_LIMITS, path: str = "-", step: int = DEFAULT_STEP,
                 hex_bytes: bool = False, buffering_mode: str | None = None, engine: str | None = None):
        self.sink = sink if sink is not None else DiagnosticSink()
        self.path = path
        self._new: list[Diagnostic] = []
        self.sink.listener = self._found
        self.excerpts = Excerpts(b"", ()) if hex_bytes else None
        self.with_bytes: set[Diagnostic] = set()
        self.lint: Lint | None = None
        self.report: FileReport | None = None

        def make_walk(buf, consumers):
            walk = walk_for(buf, (), input_format=input_format, emit=self.sink.add, engine=engine, limits=limits)
            self.lint = Lint(self.sink.add, limits, walk.log, buffering_mode)
            walk.consumers = [self.lint, *consumers]
            walk.lint = self.lint  # the native walk lints when it is the only consumer
            return walk

        self.feeder = Feeder((), make_walk, step=step)

    def feed(self, data) -> list[Diagnostic]:
        self.feeder.feed(data)
        return self._take()

    def flush(self) -> list[Diagnostic]:
        """Walk what has arrived without waiting for ``step`` bytes (the source is idle)."""
        self.feeder.flush()
        return self._take()

    def close(self) -> list[Diagnostic]:
        f = self.feeder
        f.close()
        assert f.walk is not None and self.lint is not None
        self.report = lint_report(f.walk, self.lint, self.sink, self.path, f.size)
        out = self._take()
        f.release()
        return out

    @property
    def bytes_received(self) -> int:
        return self.feeder.size

    def _found(self, d: Diagnostic) -> None:
        self._new.append(d)
        if self.excerpts is None or self.sink.counts[d.code] > self.sink.per_rule_cap:
            return
        stream = self.feeder.stream
        view = stream.view()
        if record_window(d.offset, d.record_size, d.span, len(view))[0] >= stream.released:
            self.excerpts.add(view, [d])
            self.with_bytes.add(d)

    def _take(self) -> list[Diagnostic]:
        out, self._new[:] = list(self._new), []
        return out


def lint_chunks(chunks, **options) -> tuple[FileReport, list[Diagnostic]]:
    """Lint an iterable of byte chunks as a stream (``StreamLinter``'s ``options``): the
    report, and every diagnostic ``feed`` and ``close`` returned, in that order."""
    lint = StreamLinter(**options)
    found: list[Diagnostic] = []
    for c in chunks:
        found += lint.feed(c)
    found += lint.close()
    assert lint.report is not None
    return lint.report, found


class _Records(Consumer):
    """Every record decoded, in file order (a walk without a linter: the reference path)."""

    def __init__(self, out: list):
        self.out = out

    def record(self, rec, change) -> None:
        self.out.append(rec)


class StreamReader:
    """Read records as they arrive: ``feed(chunk)`` returns the records and reader
    diagnostics completed so far, in order (``Record`` or ``Diagnostic`` items),
    ``close()`` the rest. The records and diagnostics are ``read_records``' on the
    whole stream."""

    def __init__(self, *, input_format: str = "auto", limits: Limits = DEFAULT_LIMITS, step: int = DEFAULT_STEP):
        self._out: list[Record | Diagnostic] = []

        def make_walk(buf, consumers):
            walk = walk_for(buf, consumers, input_format=input_format, emit=self._out.append, limits=limits,
                            engine="fast", resync=True)
            return walk

        self.feeder = Feeder((_Records(self._out),), make_walk, step=step)

    def feed(self, data) -> list[Record | Diagnostic]:
        self.feeder.feed(data)
        return self._take()

    def close(self) -> list[Record | Diagnostic]:
        self.feeder.close()
        out = self._take()
        self.feeder.release()
        return out

    def _take(self) -> list:
        out, self._out[:] = list(self._out), []
        return out
