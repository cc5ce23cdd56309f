"""What a trace uses of the spec, and its statistics, collected in one streaming pass.

A consumer of the lint's walk (``_walk``), beside the linter: on the native walk
(``rides_native``) the walk counts the records it walks clean itself, in its coverage
mode (``engine/_walk_coverage``, ``_nwalk_coverage.pxi``), and the records it hands
back, or walks with a layout finding, are decoded records counted here one by one
(``record``, ``count``), the reference's way; on the reference path every record is
counted here. Both must give the same result (``tests/test_report_walk.py``). Every
list of "what could be used" comes from the spec tables (record layouts, argument
types, enumerations), never from a hand list, so a layout added to ``spec-tables/``
shows up as unused until a trace uses it. Memory is bounded by the tables: counters per
kind, the providers' tables, and a fixed top-N of record sizes.
"""

from __future__ import annotations

import heapq
from collections import Counter
from typing import TYPE_CHECKING

from ..engine._provider_state import INLINE_BIT, ProviderState
from ..engine._walk import Consumer
from ..spec._model import Record
from ..spec._roles import ARG_STRING_REFS, STRING_REFS, THREAD_REFS, TIMESTAMPS
from ..spec._tables import tables
from ..spec._time import seconds, time_key

if TYPE_CHECKING:
    from ..engine._walk_coverage import NativeCounts

_T = tables()
LARGEST_KEPT = 5
LARGE_RECORD_TYPE = next(t for t, lay in _T.records.items() if lay.size_field.hi > 15)

# the event kinds counted in the statistics, by what they say (each event layout names its group)
EVENT_GROUPS = _T.event_groups
_EVENT_KINDS = [leaf.name for leaf in _T.root("event").leaves()]


def _leaves_under(prefix: str) -> list[str]:
    return [leaf.name for leaf in _T.record_leaves() if leaf.name.startswith(prefix)]


def _enum_field(kind: str, enum: str) -> str:
    return next(f.name for f in _T.leaf(kind).full_fields if f.enum == enum)


_BLOB_TYPE_FIELD = _enum_field("blob", "blob_type")
_OBJECT_TYPE_FIELD = _enum_field("kernel_object", "kernel_object_type")
_SEVERITY_FIELD = next(f.name for f in _T.log_record.full_fields if f.enum == "severity")
# the enumeration each kind's records are counted by: (kind, field) pairs
ENUM_FIELDS = ((_T.log_record.name, _SEVERITY_FIELD), ("blob", _BLOB_TYPE_FIELD),
               ("kernel_object", _OBJECT_TYPE_FIELD))
_LEAF_TYPE = {leaf.name: leaf.type for leaf in _T.record_leaves()}
_UTF8_KINDS = frozenset(
    leaf.name for leaf in _T.record_leaves()
    for it in leaf.full_body if it.kind == "stream" and it.content == "utf8"
)


class CoverageCollector(Consumer):
    """A consumer of the walk; or, alone, ``feed(record)`` for each record in file order.
    Then ``features()``, ``coverage()`` and ``statistics()``."""

    rides_native = True

    def __init__(self, *, byte_order: str = "little", fmt: str = "trace"):
        self.byte_order = byte_order
        self.format = fmt
        self.state = ProviderState()  # the walk's own, once it starts
        self.records: Counter = Counter()
        self.bytes: Counter = Counter()
        self.args: Counter = Counter()
        self.blob_types: Counter = Counter()
        self.object_types: Counter = Counter()
        self.severities: Counter = Counter()  # structured-log streams only
        self.string_refs: Counter = Counter()  # inline / indexed / empty
        self.thread_refs: Counter = Counter()  # inline / indexed
        self.incomplete = 0
        self.large = 0
        self.text_streams = 0
        self.first: tuple[int, int] | None = None  # the trace's first instant: (ticks, rate)
        self.last: tuple[int, int] | None = None  # and its last, across every provider
        self.rates: set = set()
        self._largest: list = []  # min-heap of (bytes, -index, offset, kind)
        self._native: NativeCounts | None = None  # the native walk's counters, while it runs (``ride``)

    # -- the walk -----------------------------------------------------------------------
    def start(self, walk) -> None:
        self.state = walk.state
        self.byte_order = "big" if walk.big else "little"
        self.format = "log" if walk.log else "trace"

    def feed(self, rec: Record) -> None:
        """One record, in file order, without a walk: its effect is carried out here."""
        self.record(rec, self.state.apply(rec))

    def record(self, rec: Record, change=None) -> None:
        self.count(rec, self.state.current.rate)

    def count(self, rec: Record, rate: int) -> None:
        """One decoded record, read where its provider's tick rate is ``rate``."""
        k = rec.kind
        size = 8 * rec.size_words
        self.records[k] += 1
        self.bytes[k] += size
        self._keep_largest(size, rec.index, rec.offset, k)
        if rec.type == LARGE_RECORD_TYPE:
            self.large += 1
        if not rec.complete:
            self.incomplete += 1
        f = rec.fields
        for name in STRING_REFS.get(k, ()):
            self._string_ref(f.get(name, 0))
        for name in THREAD_REFS.get(k, ()):
            self.thread_refs["inline" if f.get(name, 0) == 0 else "indexed"] += 1
        for a in rec.args:
            self.args[a.kind] += 1
            for name in ARG_STRING_REFS.get(a.kind, ()):
                self._string_ref(a.fields.get(name, 0))
        if k in _UTF8_KINDS or any(v & INLINE_BIT for v in (f.get(n, 0) for n in STRING_REFS.get(k, ()))):
            self.text_streams += 1
        counter = self._enum_counter(k)
        if counter is not None:
            counter[0][f.get(counter[1])] += 1
        names = TIMESTAMPS.get(k, ())
        if names and rec.complete:
            stamps = [f[name] for name in names if f.get(name) is not None]
            self._time(rate, min(stamps, default=None), max(stamps, default=None))

    # -- the native walk --------------------------------------------------------------
    def ride(self, walk, nw, module):
        from ..engine._walk_coverage import NativeCounts

        self._native = NativeCounts(walk, nw, module, self.count, ENUM_FIELDS, LARGEST_KEPT)
        return self._native

    def finish(self, walk) -> None:
        if self._native is not None:
            self._absorb(self._native.totals())
            self._native = None

    def _absorb(self, t: dict) -> None:
        """The native walk's counts (``NativeCounts.totals``), added to what was counted here."""
        for k, n in t["records"].items():
            self.records[k] += n
            if _LEAF_TYPE.get(k) == LARGE_RECORD_TYPE:  # (a log's records: never said large)
                self.large += n
            if k in _UTF8_KINDS:
                self.text_streams += n
        for k, n in t["bytes"].items():
            self.bytes[k] += n
        for k, n in t["inline"].items():
            if k not in _UTF8_KINDS:
                self.text_streams += n
        for k, n in t["args"].items():
            self.args[k] += n
        for key, n in zip(("empty", "inline", "indexed"), t["string_refs"]):
            if n:
                self.string_refs[key] += n
        for key, n in zip(("inline", "indexed"), t["thread_refs"]):
            if n:
                self.thread_refs[key] += n
        for k, values in t["enums"].items():
            counter = self._enum_counter(k)
            assert counter is not None, k
            for v, n in values.items():
                counter[0][v] += n
        for rate, lo, hi in t["times"]:
            self._time(rate, lo, hi)
        for size, index, offset, k in t["largest"]:
            self._keep_largest(size, index, offset, k)

    def _enum_counter(self, kind: str):
        """(the counter, the field) of the enumeration a kind's records are counted by."""
        if kind == _T.log_record.name:
            return self.severities, _SEVERITY_FIELD
        if kind == "blob":
            return self.blob_types, _BLOB_TYPE_FIELD
        if kind == "kernel_object":
            return self.object_types, _OBJECT_TYPE_FIELD
        return None

    def _keep_largest(self, size: int, index: int, offset: int, kind: str) -> None:
        item = (size, -index, offset, kind)
        if len(self._largest) < LARGEST_KEPT:
            heapq.heappush(self._largest, item)
        elif item > self._largest[0]:
            heapq.heapreplace(self._largest, item)

    def _time(self, rate: int, lo: int | None, hi: int | None) -> None:
        """Timestamps from ``lo`` to ``hi`` ticks of a provider at ``rate`` ticks/s: the
        trace's first and last instants are compared exactly across rates (``spec/_time``;
        a rate of 0 reads its ticks as nanoseconds, as the lint orders them)."""
        self.rates.add(rate)
        if lo is None or hi is None:
            return
        # equal instants at different rates (2 ticks of 1 kHz, 2 ms at 1 GHz) are told
        # apart by rate, the lower first: the same answer in whatever order records come
        # (the native walk's coverage mode meets them in its own order, the reference in file order)
        if self.first is None or (time_key(lo, rate), rate) < (time_key(*self.first), self.first[1]):
            self.first = (lo, rate)
        if self.last is None or (time_key(hi, rate), rate) > (time_key(*self.last), self.last[1]):
            self.last = (hi, rate)

    def _string_ref(self, ref: int) -> None:
        if ref == 0:
            self.string_refs["empty"] += 1
        elif ref & INLINE_BIT:
            self.string_refs["inline"] += 1
        else:
            self.string_refs["indexed"] += 1

    # -- what the rules look at ------------------------------------------------------------
    def features(self) -> set[str]:
        """Names of what this trace contains, for the rule scopes (``_rule_scope``)."""
        out = {"file", f"format:{self.format}"}
        n = sum(self.records.values())
        if n:
            out.add("records")
            out.add(f"records:{self.format}")
        out.update(f"kind:{k}" for k in self.records)
        if self.args:
            out.add("args")
            out.add(f"args:{self.format}")
        out.update(f"arg:{a}" for a in self.args)
        if self.string_refs["indexed"]:
            out.add("indexed_string_ref")
        if self.string_refs["inline"]:
            out.add("inline_string_ref")
        if self.thread_refs["indexed"]:
            out.add("indexed_thread_ref")
        if self.text_streams or self.args.get("string"):
            out.add("text")
        if self.first is not None:
            out.add("timestamps")
        return out

    # -- the result ---------------------------------------------------------------------
    def coverage(self) -> dict:
        if self.format == "log":
            return self._log_coverage()
        used = self.records

        def kinds(names):
            return [{"kind": k, "records": used.get(k, 0), "used": used.get(k, 0) > 0} for k in names]

        def enum(name, counts):
            rows = [{"value": v, "name": n, "records": counts.get(v, 0), "used": counts.get(v, 0) > 0}
                    for v, n in sorted(_T.enums[name].items())]
            rows += [{"value": v, "name": "undefined", "records": c, "used": True}
                     for v, c in sorted(counts.items(), key=lambda kv: (kv[0] is None, kv[0] or 0))
                     if v not in _T.enums[name]]
            return rows

        record_types = []
        for t, lay in sorted(_T.records.items()):
            names = [leaf.name for leaf in lay.leaves()]
            n = sum(used.get(k, 0) for k in names)
            record_types.append({"type": t, "name": lay.name, "title": lay.title, "records": n, "used": n > 0})
        unknown = sum(c for k, c in used.items() if k == "unknown" or k.endswith(".unknown"))
        providers = [
            {"id": p.id, "name": p.name, "strings": len(p.strings), "threads": len(p.threads),
             "ticks_per_second": p.rate}
            for p in self.state.providers.values()
            if p.id is not None or p.strings or p.threads
        ]
        return {
            "record_types": record_types,
            "record_kinds": kinds([leaf.name for leaf in _T.record_leaves()]),
            "event_types": kinds(_EVENT_KINDS),
            "metadata_kinds": kinds(_leaves_under("metadata.")),
            "argument_types": [
                {"type": t, "kind": a.name, "count": self.args.get(a.name, 0), "used": self.args.get(a.name, 0) > 0}
                for t, a in sorted(_T.arguments.items())
            ] + ([{"type": None, "kind": "unknown", "count": self.args["unknown"], "used": True}]
                 if self.args.get("unknown") else []),
            "blob_types": enum("blob_type", self.blob_types),
            "large_blob_formats": kinds(_leaves_under("large.")),
            "object_types": enum("kernel_object_type", self.object_types),
            "userspace_objects": used.get("userspace_object", 0),
            "undefined_records": unknown,
            "string_refs": {k: self.string_refs.get(k, 0) for k in ("inline", "indexed", "empty")},
            "thread_refs": {k: self.thread_refs.get(k, 0) for k in ("inline", "indexed")},
            "providers": providers,
            "large_records": self.large,
            "byte_order": self.byte_order,
        }

    def _log_coverage(self) -> dict:
        """A structured-log stream has one record layout; its enumerations are severities."""
        lr = _T.log_record
        n = self.records.get(lr.name, 0)
        allowed = set(_T.log_allowed_argument_types)
        sev = self.severities
        severities = [{"value": v, "name": name, "records": sev.get(v, 0), "used": sev.get(v, 0) > 0}
                      for v, name in sorted(_T.enums["severity"].items())]
        severities += [{"value": v, "name": f"raw {v:#x}" if v is not None else "raw", "records": c, "used": True}
                       for v, c in sorted(sev.items(), key=lambda kv: kv[0] or 0) if v not in _T.enums["severity"]]
        return {
            "record_types": [{"type": lr.type, "name": lr.name, "title": lr.title, "records": n, "used": n > 0}],
            "record_kinds": [{"kind": lr.name, "records": n, "used": n > 0}],
            "event_types": [],
            "metadata_kinds": [],
            "argument_types": [
                {"type": t, "kind": a.name, "count": self.args.get(a.name, 0), "used": self.args.get(a.name, 0) > 0}
                for t, a in sorted(_T.arguments.items()) if t in allowed or self.args.get(a.name)
            ] + ([{"type": None, "kind": "unknown", "count": self.args["unknown"], "used": True}]
                 if self.args.get("unknown") else []),
            "blob_types": [],
            "large_blob_formats": [],
            "object_types": [],
            "log_severities": severities,
            "userspace_objects": 0,
            "undefined_records": 0,
            "string_refs": {k: self.string_refs.get(k, 0) for k in ("inline", "indexed", "empty")},
            "thread_refs": {"inline": 0, "indexed": 0},
            "providers": [],
            "large_records": 0,
            "byte_order": self.byte_order,
        }

    def statistics(self) -> dict:
        rates = sorted(self.rates)
        first, last = self.first, self.last
        span = None if first is None or last is None else seconds(*last) - seconds(*first)
        events = {
            group: {k.split(".", 1)[1]: self.records.get(k, 0) for k in kinds}
            for group, kinds in EVENT_GROUPS.items()
        }
        return {
            "records": sum(self.records.values()),
            "bytes": sum(self.bytes.values()),
            "incomplete_records": self.incomplete,
            "by_kind": [
                {"kind": k, "records": self.records[k], "bytes": self.bytes[k]}
                for k in sorted(self.records, key=lambda k: (-self.bytes[k], k))
            ],
            "string_table": {
                "registered": sum(len(p.strings) for p in self.state.providers.values()),
                "records": self.records.get("string", 0),
            },
            "thread_table": {
                "registered": sum(len(p.threads) for p in self.state.providers.values()),
                "records": self.records.get("thread", 0),
            },
            "time": {
                # the first and last instants across providers, each its ticks and its rate;
                # span_ticks only where the two share a rate; span_seconds exact, then rounded once
                "first_ticks": None if first is None else first[0],
                "first_ticks_per_second": None if first is None else first[1],
                "last_ticks": None if last is None else last[0],
                "last_ticks_per_second": None if last is None else last[1],
                "span_ticks": None if first is None or last is None or first[1] != last[1] else last[0] - first[0],
                "ticks_per_second": rates,
                "span_seconds": None if span is None else float(span),
            },
            "events": events,
            "largest_records": [
                {"offset": off, "record_index": -negi, "kind": k, "bytes": size}
                for size, negi, off, k in sorted(self._largest, reverse=True)
            ],
        }
