"""Export a trace to the Trace Event Format (Catapult JSON, the Object Format).

Events map one to one: duration begin/end -> B/E, complete -> X, instant -> i (thread
scope), counter -> C, async begin/instant/end -> b/n/e, flow begin/step/end -> s/t/f
(bound to the enclosing slice), kernel objects naming processes and threads -> M.
Timestamps are microseconds (``ts``/``dur``), converted with the tick rate of the
record's provider (one tick is one nanosecond without an Initialization record);
``displayTimeUnit`` is "ns". Arguments go under ``args``; integers stay exact JSON
integers (never through a float). Correlation and flow ids are hex strings, exact in
every viewer. What the recovering reader could not read, or an event that cannot be
placed on a thread, is counted in ``Export.skipped`` for the CLI to say on stderr.

A consumer of the walk (``_walk``): decoded records become events one by one (a dict,
then ``json.dumps``). Where the native walk is built the export rides it behind a linter
whose findings nothing reads (``_aboard``): its rows mode (``_nwalk_rows.pxi``) writes each
event's JSON natively, byte for byte what ``json.dumps`` writes for ``Exporter.event``'s
dict (``_NativeEvents``), the records it notes (a thread record) and hands back (a kernel
object: it names a process or thread by the tables as they are at it) are decoded one by
one, and the events are written in file order at each stop of the walk. Elsewhere (the
reference path) every record is decoded and its event written as it is read. Kernel
objects, which name processes and threads, are always read as records.

Sans-IO: ``write_document`` streams JSON to a text file, so memory grows with the
process and thread names, not with the file; ``iter_events`` yields the events as
dicts (the per-record path, for ``--expect``).
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Any

from .. import rules as R
from ..engine import _file
from ..engine._jsontext import Lines
from ..engine._lint import walk_for
from ..engine._native import walks_natively
from ..engine._provider_state import ProviderState
from ..engine._reader import decode_record
from ..engine._walk import Consumer, Walk
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._model import Argument, Record
from ..spec._roles import STATE_KINDS, is_undefined
from ..spec._tables import tables
from ..spec._time import ticks_to_us

_T = tables()
DISPLAY_TIME_UNIT = "ns"

PHASES = {
    "event.instant": "i",
    "event.counter": "C",
    "event.duration_begin": "B",
    "event.duration_end": "E",
    "event.duration_complete": "X",
    "event.async_begin": "b",
    "event.async_instant": "n",
    "event.async_end": "e",
    "event.flow_begin": "s",
    "event.flow_step": "t",
    "event.flow_end": "f",
}
KERNEL_OBJECT = "kernel_object"  # names processes and threads: the M events
_OBJ = {n: v for v, n in _T.enums["kernel_object_type"].items()}


@dataclass
class Export:
    """What an export did: counts per phase, and what it left out and why."""

    phases: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)  # reason -> count
    not_exported: Counter = field(default_factory=Counter)  # record kind with no TEF event -> count
    stopped_at: int | None = None  # offset where the reader could not frame a header
    not_fxt: str | None = None  # the reader's verdict (MG005) on a file that is not FXT at all
    log: bool = False  # a structured-log stream: it has no events for the Trace Event Format
    formatted: int = 0  # events the native walk's rows mode wrote (the others: the per-record path's)

    def reader_diagnostic(self, d) -> None:
        """The walk's ``emit``: what the export says about the reader's diagnostics."""
        if d.code in _FRAMING_STOPS and self.stopped_at is None:
            self.stopped_at = d.offset
        elif d.code == R.not_fxt_file.code:
            self.not_fxt = d.message

    def skipped_lines(self) -> list[str]:
        out = []
        if self.log:
            n = sum(self.not_exported.values())
            out.append(f"a structured-log stream has no events for the Trace Event Format: skipped its "
                       f"{n} log record{'' if n == 1 else 's'} (the document has no events)")
        out += [f"skipped {n} {reason}" for reason, n in sorted(self.skipped.items())]
        if self.stopped_at is not None:
            out.append(f"the reader stopped at offset {self.stopped_at:#x}: the rest of the file was not read")
        return out


_FRAMING_STOPS = (R.record_size_zero.code, R.record_past_end_of_file.code)
_UNREGISTERED_STRING = "unregistered string refs (exported as <string #N>)"


def _json_number(v) -> str:
    return json.dumps(v)


def _arg_value(a: Argument, state: ProviderState, export: Export):
    k = a.kind
    if k == "string":
        v = state.string(a.fields, a.strings, "value")
        if v is None:
            export.skipped[_UNREGISTERED_STRING] += 1
            return f"<string #{a.fields.get('value')}>"
        return v
    if k == "double":
        v = a.value
        return v if math.isfinite(v) else repr(v)  # JSON has no NaN or infinity
    if k == "pointer":
        return f"0x{a.value:x}"
    if k == "blob":
        return f"<blob, {len(a.value)} bytes>"
    if k == "null":
        return None
    return a.value  # int32/uint32/int64/uint64/koid: Python ints, exact in JSON; bool


def _args(rec: Record, state: ProviderState, export: Export) -> dict:
    out = {}
    for a in rec.args:
        if a.kind == "unknown":
            export.skipped["arguments of an undefined type"] += 1
            continue
        if not a.complete:  # its content overran its declared size (ST005): no value to export
            export.skipped["arguments that did not decode"] += 1
            continue
        name = state.string(a.fields, a.strings, "name")
        if name is None:
            export.skipped[_UNREGISTERED_STRING] += 1
            name = f"<string #{a.fields.get('name')}>"
        out[name] = _arg_value(a, state, export)
    return out


def _text(rec: Record, state: ProviderState, name: str, export: Export) -> str:
    v = state.string(rec.fields, rec.strings, name)
    if v is None:
        export.skipped[_UNREGISTERED_STRING] += 1
        return f"<string #{rec.fields.get(name)}>"
    return v


class Exporter(Consumer):
    """The export as a consumer of the walk. ``write(texts)`` gets the JSON text of each
    event in file order, a batch at a time; ``metadata()`` gives the M events at the end."""

    def __init__(self, export: Export, write=None):
        self.export = export
        self.write = write
        self.processes: dict[int, str] = {}
        self.threads: dict[int, str] = {}
        self.thread_process: dict[int, int] = {}
        self._first_seen: list = []  # (record index, thread koid, process koid): the stretch's setdefaults
        self.state = ProviderState()
        self.riding = False  # on the native walk's rows (``ride``)

    rides_native = True  # (the walk takes the native walk only with a linter aboard: ``_aboard``)

    def ride(self, walk: Walk, nw, module):
        """The export's rider on the native walk ``nw``: its event records formatted natively
        from the rows mode's rows (``_NativeEvents``), records decoded one by one as ever."""
        self.riding = True
        return _NativeEvents(self, walk, nw, module)

    def start(self, walk: Walk) -> None:
        self.state = walk.state
        self.walk = walk
        self.export.log = walk.log

    # -- one record at a time (decoded records) -----------------------------------------
    def record(self, rec: Record, change=None) -> None:
        got = self.event(rec)
        self._settle()
        if got is not None:
            self.write([json.dumps(got[0], ensure_ascii=False)])

    def event(self, rec: Record, rate: int | None = None):
        """The (event, raw ticks) of ``rec``, or None; counts what it skips. The provider
        tables are as ``rec`` left them (``rate``: the tick rate it was read at, when the
        tables have moved on)."""
        export, state = self.export, self.state
        k = rec.kind
        if is_undefined(k):
            export.skipped["records of an undefined type or subtype"] += 1
            return None
        if not rec.complete:
            export.skipped[f"records that did not decode ({k})"] += 1
            return None
        if k in STATE_KINDS:
            if k == "thread":
                f = rec.fields
                self._first_seen.append((rec.index, f.get("thread_koid", 0), f.get("process_koid", 0)))
            return None
        if k == KERNEL_OBJECT:
            name = _text(rec, state, "name", export)
            obj = rec.fields.get("object_type")
            koid = rec.fields["koid"]
            named: list[tuple] = []
            if obj == _OBJ.get("process"):
                named.append((rec.index, self.processes, koid, name))
            elif obj == _OBJ.get("thread"):
                named.append((rec.index, self.threads, koid, name))
                for a in rec.args:
                    if a.kind == "koid" and a.complete and state.string(a.fields, a.strings, "name") == "process":
                        named.append((rec.index, self.thread_process, koid, a.value))
            self._name(named)
            return None
        ph = PHASES.get(k)
        if ph is None:
            export.not_exported[k] += 1
            return None
        koids = state.thread(rec, "thread")
        if koids is None:
            export.skipped["events on an unregistered thread ref"] += 1
            return None
        rate = state.current.rate if rate is None else rate
        if rate == 0:
            export.skipped["events of a provider whose tick rate is 0"] += 1
            return None
        pid, tid = koids
        self._first_seen.append((rec.index, tid, pid))
        ticks = rec.fields["timestamp"]
        ev: dict[str, Any] = {
            "name": _text(rec, state, "name", export),
            "cat": _text(rec, state, "category", export),
            "ph": ph,
            "ts": ticks_to_us(ticks, rate),
            "pid": pid,
            "tid": tid,
        }
        f = rec.fields
        raw = {"ts": ticks}
        if ph == "X":
            raw["dur"] = max(f["end_timestamp"] - ticks, 0)
            ev["dur"] = ticks_to_us(raw["dur"], rate)
        elif ph == "i":
            ev["s"] = "t"
        elif ph == "C":
            if f.get("counter_id"):
                ev["id"] = f"0x{f['counter_id']:x}"
        elif ph in "bne":
            ev["id"] = f"0x{f['correlation_id']:x}"
        elif ph in "stf":
            ev["id"] = f"0x{f['flow_id']:x}"
            ev["bp"] = "e"
        args = _args(rec, state, export)
        if args or ph == "C":
            ev["args"] = args
        export.phases[ph] += 1
        return ev, raw

    def _settle(self) -> None:
        """A thread's process is the first one seen for it in file order (unless a kernel
        object says otherwise, which always wins)."""
        for _, tid, pid in sorted(self._first_seen):
            self.thread_process.setdefault(tid, pid)
        self._first_seen.clear()

    def finish(self, walk: Walk) -> None:
        self._settle()

    def metadata(self):
        """The M events: process and thread names (after the walk)."""
        export = self.export
        for koid, name in sorted(self.processes.items()):
            export.phases["M"] += 1
            yield {"name": "process_name", "ph": "M", "pid": koid, "tid": 0, "args": {"name": name}}, None
        for koid, name in sorted(self.threads.items()):
            pid = self.thread_process.get(koid)
            if pid is None:
                export.skipped["thread names whose process is unknown"] += 1
                continue
            export.phases["M"] += 1
            yield {"name": "thread_name", "ph": "M", "pid": pid, "tid": koid, "args": {"name": name}}, None

    @staticmethod
    def _name(named: list) -> None:
        """Carry out (record index, table, koid, value) settings in their order: the last wins."""
        for _, table, koid, value in named:
            table[koid] = value


# the field of the value an event prints after its thread, per phase (``Exporter.event``'s)
_SECOND = (("X", "end_timestamp"), ("C", "counter_id"), ("b", "correlation_id"), ("n", "correlation_id"),
           ("e", "correlation_id"), ("s", "flow_id"), ("t", "flow_id"), ("f", "flow_id"))
_NOT_DECODED = 1 << 62  # past every record index


def _quiet(diagnostic) -> None:
    """A noted record's diagnostics: the linter's walk has said them already."""


def _us_text(ticks: int, rate: int) -> str:
    return _json_number(ticks_to_us(ticks, rate))


class _NativeEvents:
    """The export on the native walk's rows mode (``_nwalk_rows.pxi``): at each stop of the
    walk, the events of the rows since the last stop written by the walk's formatter (byte
    for byte ``json.dumps`` of ``Exporter.event``'s), in file order with the records it noted
    (a thread record, an undefined type), which ``Exporter.event`` reads as the reference
    decoder decodes them; what it counted goes to the ``Export``. The records the walk hands
    back (a kernel object among them: it names by the tables as they are at it) go to
    ``Exporter.record`` after the stop's events, as the linter gets them."""

    def __init__(self, ex: Exporter, walk: Walk, nw, module):
        from ..engine._walk_native import _names
        from ..engine._walk_rows import checked, export_plan

        self.sink = checked(module).RowSink()
        self.sink.export_plan(*export_plan(walk.log, tuple(PHASES.items()), _SECOND,
                                           names=((KERNEL_OBJECT, ("koid", "object_type")),)))
        nw.collect_rows(self.sink)
        self.ex = ex
        self.walk = walk
        self.kinds = _names(walk.log)[0]
        self.texts: list[bytes] = []  # per interned id: its JSON text
        self.first: list = []
        self.named: list = []  # the kernel objects' rows: (index, koid, object type, name, parents)

    def _names(self) -> None:
        """The kernel objects' rows since the last call: the names they give, in file order,
        as ``Exporter.event`` gives them."""
        ex, process, thread = self.ex, _OBJ.get("process"), _OBJ.get("thread")
        processes, threads, thread_process = ex.processes, ex.threads, ex.thread_process
        for _index, koid, obj, name, parents in self.named:
            # (a JSON text without a backslash escapes nothing: its text is between the quotes)
            text = json.loads(name) if b"\\" in name else name[1:-1].decode()
            if obj == process:
                processes[koid] = text
            elif obj == thread:
                threads[koid] = text
                for p in parents:
                    thread_process[koid] = p
        self.named.clear()

    def _flush(self, text) -> None:
        """Events the walk's formatter wrote, handed out while it writes (a view it releases)."""
        self.ex.write.raw([text])

    def take(self) -> None:
        w, ex, sink, texts = self.walk, self.ex, self.sink, self.texts
        values = w.state.strings.values
        if len(texts) < len(values):  # (the interner only grows)
            text = w.state.text
            texts += [json.dumps(text(g), ensure_ascii=False).encode() for g in range(len(texts), len(values))]
        first, named = self.first, self.named
        for index, offset, words, rate in sink.take_notes():
            sink.format(index, texts, first, _us_text, named, self._flush)
            self._names()
            rec = decode_record(w.buf, offset, index, words, _quiet, big=w.big, log=w.log, resync=False)
            ev = ex.event(rec, rate)
            if ev is not None:  # (its line after the rows before it, in the walk's text)
                sink.append_line(json.dumps(ev[0], ensure_ascii=False).encode())
        sink.format(_NOT_DECODED, texts, first, _us_text, named, self._flush)
        self._names()
        sink.clear_rows()
        if first:
            ex._first_seen += first
            first.clear()
        ex._settle()
        phases, skipped, counted = sink.take_counts()
        export = ex.export
        export.phases.update(phases)
        export.formatted += sum(phases.values())
        for reason, n in zip(_ROW_SKIPS, skipped):
            if n:
                export.skipped[reason] += n
        for term, n in counted.items():
            export.not_exported[self.kinds[term]] += n
        ex.write.drain(sink)  # (the stretch's events, written out without a copy)


# what the rows mode's formatter counts (``RowSink.take_counts``), as ``Exporter.event`` says it
_ROW_SKIPS = (_UNREGISTERED_STRING, "events on an unregistered thread ref",
              "events of a provider whose tick rate is 0", "arguments of an undefined type")


def _aboard(walk: Walk, ex: Exporter, make_lint) -> None:
    """``ex`` the consumer of ``walk``: riding the native walk behind a linter whose findings
    nothing reads (``make_lint``) where the walk's engine walks natively, alone otherwise."""
    if walks_natively(walk.engine):
        lint = make_lint(walk)
        walk.consumers = [lint, ex]
        walk.lint = lint
    else:
        walk.consumers = [ex]


def _silent_lint(walk: Walk):
    """A linter whose diagnostics go nowhere, asked before each is built (a cap of one a
    rule): the export reads the reader's diagnostics only, from the walk's own ``emit``."""
    from ..engine._lint_consumer import Lint
    from ..engine._result import DiagnosticSink

    lint = Lint(DiagnosticSink(per_rule_cap=1).add, walk.limits, walk.log)
    lint.silent = True
    return lint


def iter_events(buf, export: Export | None = None, *, input_format: str = "auto"):
    """Yield ``(event, raw)`` for every exportable record of ``buf``, then the M events:
    the per-record path, pulled one event at a time.

    ``raw`` holds ``ts`` (and ``dur``) in ticks (None for M events), for ``--expect``.
    """
    export = export if export is not None else Export()
    ex = Exporter(export)
    if isinstance(buf, _file.FileSource):
        yield from _file_events(buf, ex, input_format)
    else:
        walk = walk_for(buf, (), input_format=input_format, emit=export.reader_diagnostic, engine="reference",
                        resync=True)
        if walk.begin():
            ex.start(walk)
            for rec, _ in walk.one_by_one():
                got = ex.event(rec)
                ex._settle()
                if got is not None:
                    yield got
    yield from ex.metadata()


class _Pulled(Consumer):
    """Every record decoded, in file order (a walk without a linter: the reference path),
    its event kept for ``iter_events`` to yield."""

    def __init__(self, ex: Exporter, out: list):
        self.ex = ex
        self.out = out

    def start(self, walk: Walk) -> None:
        self.ex.start(walk)

    def record(self, rec: Record, change=None) -> None:
        got = self.ex.event(rec)
        self.ex._settle()
        if got is not None:
            self.out.append(got)


def _file_events(source: _file.FileSource, ex: Exporter, input_format: str):
    """``iter_events`` of a file read a chunk at a time (``_file``): each chunk walked as
    it is read, its events yielded, then the file's length checked (``FileChanged``)."""
    from ..engine._feeder import Feeder

    out: list = []
    feeder = Feeder([_Pulled(ex, out)], lambda b, c: walk_for(b, c, input_format=input_format,
                                                              emit=ex.export.reader_diagnostic, resync=True),
                    step=_file.CHUNK)
    source.rewind()
    while feeder.feed_from(source.readinto, _file.CHUNK):
        yield from out
        out.clear()
    source.check(feeder.size)
    feeder.close()
    yield from out
    feeder.release()


def other_data(export: Export, source: str) -> dict:
    return {
        "source": source,
        "exporter": "fxtlint export",
        "fxt_records_not_exported": dict(sorted(export.not_exported.items())),
        "skipped": dict(sorted(export.skipped.items())),
    }


def export_walk(walk: Walk, out: IO[str], *, source: str, export: Export) -> Export:
    """Stream the Object Format document of ``walk`` (its ``emit`` being
    ``export.reader_diagnostic``) to ``out``, a batch of events at a time."""
    def run(ex):
        _aboard(walk, ex, _silent_lint)
        walk.run()

    return _write_document(out, source, export, run)


def export_stream(chunks, out: IO[str], *, source: str, export: Export, input_format: str = "auto",
                  limits: Limits = DEFAULT_LIMITS) -> Export:
    """Stream the Object Format document of a trace arriving in ``chunks`` (a pipe) to
    ``out`` as it is read: the walk advances as the chunks come (``_feeder``)."""
    from ..engine._feeder import stream_walk

    def make(buf, consumers):
        walk = walk_for(buf, (), input_format=input_format, emit=export.reader_diagnostic, limits=limits,
                        resync=True)
        walk.consumers = list(consumers)
        if len(consumers) == 1 and isinstance(consumers[0], Exporter):
            _aboard(walk, consumers[0], _silent_lint)
        return walk

    return _write_document(out, source, export, lambda ex: stream_walk(make, [ex], chunks))


def _write_document(out: IO[str], source: str, export: Export, run) -> Export:
    out.write('{"traceEvents": [')
    write = Lines(out, "\n")
    ex = Exporter(export, write)
    run(ex)
    write([json.dumps(ev, ensure_ascii=False) for ev, _ in ex.metadata()])
    out.write("\n],\n")
    out.write(f'"displayTimeUnit": {json.dumps(DISPLAY_TIME_UNIT)},\n')
    out.write(f'"otherData": {json.dumps(other_data(export, source), ensure_ascii=False)}\n}}\n')
    return export


def write_document(buf, out: IO[str], *, source: str = "<bytes>", input_format: str = "auto",
                   engine: str | None = None, limits: Limits = DEFAULT_LIMITS) -> Export:
    """Stream the Object Format document for ``buf`` to ``out``; returns what it did.
    ``engine`` and ``limits`` as in ``lint_buffer``: every engine writes the same bytes."""
    export = Export()
    walk = walk_for(buf, (), input_format=input_format, emit=export.reader_diagnostic, engine=engine,
                    limits=limits, resync=True)
    return export_walk(walk, out, source=source, export=export)


def document(buf, *, source: str = "<bytes>", input_format: str = "auto") -> tuple[dict, Export]:
    """The whole document as a dict (for tests and small traces)."""
    export = Export()
    events = [ev for ev, _ in iter_events(buf, export, input_format=input_format)]
    return {"traceEvents": events, "displayTimeUnit": DISPLAY_TIME_UNIT,
            "otherData": other_data(export, source)}, export
