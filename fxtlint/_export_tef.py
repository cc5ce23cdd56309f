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

Sans-IO: ``iter_events`` walks a buffer; ``write_document`` streams JSON to a text file,
so memory grows with the process and thread names, not with the file.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import IO, Iterator

from ._lint import choose_format
from ._model import Argument, Record
from ._provider_state import ProviderState
from ._reader import detect_byte_order, iter_records
from ._tables import tables

_T = tables()
US_PER_S = 10**6
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
# records that only build tables, and so are "exported" through the events they name
TABLE_KINDS = frozenset(("metadata.provider_info", "metadata.provider_section", "metadata.trace_info.magic",
                         "initialization", "string", "thread"))
_OBJ = {n: v for v, n in _T.enums["kernel_object_type"].items()}


@dataclass
class Export:
    """What an export did: counts per phase, and what it left out and why."""

    phases: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)  # reason -> count
    not_exported: Counter = field(default_factory=Counter)  # record kind with no TEF event -> count
    stopped_at: int | None = None  # offset where the reader could not frame a header

    def skipped_lines(self) -> list[str]:
        out = [f"skipped {n} {reason}" for reason, n in sorted(self.skipped.items())]
        if self.stopped_at is not None:
            out.append(f"the reader stopped at offset {self.stopped_at:#x}: the rest of the file was not read")
        return out


def ticks_to_us(ticks: int, rate: int):
    """Microseconds, as an int when exact, else the correctly rounded float."""
    num = ticks * US_PER_S
    if num % rate == 0:
        return num // rate
    return num / rate


def _arg_value(a: Argument, state: ProviderState, export: Export):
    k = a.kind
    if k == "string":
        v = state.string(a.fields, a.strings, "value")
        if v is None:
            export.skipped["unregistered string refs (exported as <string #N>)"] += 1
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
        name = state.string(a.fields, a.strings, "name")
        if name is None:
            export.skipped["unregistered string refs (exported as <string #N>)"] += 1
            name = f"<string #{a.fields.get('name')}>"
        out[name] = _arg_value(a, state, export)
    return out


def _text(rec: Record, state: ProviderState, name: str, export: Export) -> str:
    v = state.string(rec.fields, rec.strings, name)
    if v is None:
        export.skipped["unregistered string refs (exported as <string #N>)"] += 1
        return f"<string #{rec.fields.get(name)}>"
    return v


def iter_events(buf, export: Export | None = None, *, input_format: str = "auto") -> Iterator[tuple[dict, dict | None]]:
    """Yield ``(event, raw)`` for every exportable record of ``buf``, then the M events.

    ``raw`` holds ``ts`` (and ``dur``) in ticks (None for M events), for ``--expect``.
    """
    export = export if export is not None else Export()
    log = choose_format(buf, input_format) == "log"
    state = ProviderState()
    processes: dict[int, str] = {}
    threads: dict[int, str] = {}
    thread_process: dict[int, int] = {}
    frame_codes = ("FR001", "FR002")

    def emit(d):
        if d.code in frame_codes and export.stopped_at is None:
            export.stopped_at = d.offset

    for rec in iter_records(buf, emit, byte_order=detect_byte_order(buf) or "little", log=log):
        k = rec.kind
        if k == "unknown" or k.endswith(".unknown"):
            export.skipped["records of an undefined type or subtype"] += 1
            continue
        if not rec.complete:
            export.skipped[f"records that did not decode ({k})"] += 1
            continue
        state.observe(rec)
        if k in TABLE_KINDS:
            if k == "thread":
                thread_process.setdefault(rec.fields.get("thread_koid", 0), rec.fields.get("process_koid", 0))
            continue
        if k == "kernel_object":
            name = _text(rec, state, "name", export)
            obj = rec.fields.get("object_type")
            if obj == _OBJ.get("process"):
                processes[rec.fields["koid"]] = name
            elif obj == _OBJ.get("thread"):
                threads[rec.fields["koid"]] = name
                for a in rec.args:
                    if a.kind == "koid" and state.string(a.fields, a.strings, "name") == "process":
                        thread_process[rec.fields["koid"]] = a.value
            continue
        ph = PHASES.get(k)
        if ph is None:
            export.not_exported[k] += 1
            continue
        koids = state.thread(rec, "thread")
        if koids is None:
            export.skipped["events on an unregistered thread ref"] += 1
            continue
        rate = state.current.rate
        if rate == 0:
            export.skipped["events of a provider whose tick rate is 0"] += 1
            continue
        pid, tid = koids
        thread_process.setdefault(tid, pid)
        ticks = rec.fields["timestamp"]
        ev = {
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
        yield ev, raw
    for koid, name in sorted(processes.items()):
        export.phases["M"] += 1
        yield {"name": "process_name", "ph": "M", "pid": koid, "tid": 0, "args": {"name": name}}, None
    for koid, name in sorted(threads.items()):
        pid = thread_process.get(koid)
        if pid is None:
            export.skipped["thread names whose process is unknown"] += 1
            continue
        export.phases["M"] += 1
        yield {"name": "thread_name", "ph": "M", "pid": pid, "tid": koid, "args": {"name": name}}, None


def other_data(export: Export, source: str) -> dict:
    return {
        "source": source,
        "exporter": "fxtlint export",
        "fxt_records_not_exported": dict(sorted(export.not_exported.items())),
        "skipped": dict(sorted(export.skipped.items())),
    }


def write_document(buf, out: IO[str], *, source: str = "<bytes>", input_format: str = "auto") -> Export:
    """Stream the Object Format document for ``buf`` to ``out``; returns what it did."""
    export = Export()
    out.write('{"traceEvents": [')
    first = True
    for ev, _ in iter_events(buf, export, input_format=input_format):
        out.write("\n" if first else ",\n")
        out.write(json.dumps(ev, ensure_ascii=False))
        first = False
    out.write("\n],\n")
    out.write(f'"displayTimeUnit": {json.dumps(DISPLAY_TIME_UNIT)},\n')
    out.write(f'"otherData": {json.dumps(other_data(export, source), ensure_ascii=False)}\n}}\n')
    return export


def document(buf, *, source: str = "<bytes>", input_format: str = "auto") -> tuple[dict, Export]:
    """The whole document as a dict (for tests and small traces)."""
    export = Export()
    events = [ev for ev, _ in iter_events(buf, export, input_format=input_format)]
    return {"traceEvents": events, "displayTimeUnit": DISPLAY_TIME_UNIT,
            "otherData": other_data(export, source)}, export
