"""``report``'s coverage on the native walk: its counters' plan from the tables, and the
records they leave to the reference decoder.

The native walk counts, in its coverage mode (``_nwalk_coverage.pxi``), each record it
walks clean, as ``CoverageCollector`` counts a decoded record: per terminal its records,
bytes and records with an inline string ref of its own; argument types; string refs
(its own and its arguments', empty, inline or indexed) and thread refs (inline or
indexed); the values of the enumeration its kind is counted by; per tick rate the least
and greatest ticks of its timestamps; the five largest records. What to count comes from
the spec tables' roles (``STRING_REFS``, ``THREAD_REFS``, ``TIMESTAMPS``,
``ARG_STRING_REFS``), through the slots of the walk's own program, so a layout added to
``spec-tables/`` is counted with no change here; the enumerations are the consumer's
(``enum_fields``: kind -> field).

A record the walk walks with a layout finding (or of an undefined type) is noted, with
the tick rate it was read at, and decoded here by the reference decoder
(``decode_record``, the declared size: the lint's framing); the consumer counts it as it
counts any decoded record (``count(rec, rate)``). The records the walk hands back are
the linter's and the consumer's alike (``NativeLint``). So every count is either the
native one of a clean record or the reference's own.
"""

from __future__ import annotations

import functools

from ..spec._roles import ARG_STRING_REFS, STRING_REFS, THREAD_REFS, TIMESTAMPS
from ._reader import decode_record
from ._walk_native import NSTR, NTHR, NTS, _names, _pad, plan


def _quiet(diagnostic) -> None:
    """A noted record's diagnostics: the linter's walk has said them already."""


@functools.cache
def coverage_plan(log: bool, enum_fields: tuple) -> tuple:
    """(per terminal of ``plan(log)``'s program its counting plan, per argument type its
    string-ref value slots) for the enumerations ``enum_fields`` ((kind, field) pairs)."""
    prog = plan(log)[0]
    enums = dict(enum_fields)
    terms = []
    for t in prog.terminals:
        d = {"decode": 1, "nstr": 0, "str_val": [-1] * NSTR, "nthr": 0, "thr_val": [-1] * NTHR, "nts": 0,
             "ts_val": [-1] * NTS, "enum_val": -1}
        leaf = t.leaf
        if leaf is not None:
            kind, vals = leaf.layout.name, leaf.vals
            strs, threads, stamps = STRING_REFS.get(kind, ()), THREAD_REFS.get(kind, ()), TIMESTAMPS.get(kind, ())
            if len(strs) <= NSTR and len(threads) <= NTHR and len(stamps) <= NTS:
                d.update(decode=0, nstr=len(strs), str_val=_pad([vals[n] for n in strs], NSTR),
                         nthr=len(threads), thr_val=_pad([vals[n] for n in threads], NTHR),
                         nts=len(stamps), ts_val=_pad([vals[n] for n in stamps], NTS),
                         enum_val=vals[enums[kind]] if kind in enums else -1)
        terms.append(d)
    argrefs = {t: [a.vals[n] for n in ARG_STRING_REFS.get(a.layout.name, ())] for t, a in prog.arg_leaves.items()}
    return terms, argrefs


class NativeCounts:
    """The coverage counters of one native walk ``nw`` (of ``walk``, on the walk module
    ``module``); ``count(rec, rate)`` counts a record the reference decoder read."""

    def __init__(self, walk, nw, module, count, enum_fields: tuple, largest_kept: int):
        if getattr(module, "TOP_KEPT", None) != largest_kept:  # (none: a build before the coverage mode)
            raise RuntimeError("a stale build of the native walk (its largest records kept differ): rebuild it")
        self.cov = module.Coverage(*coverage_plan(walk.log, enum_fields))
        nw.cover(self.cov)
        self.walk = walk
        self.count = count
        self.kinds, self.arg_kinds = _names(walk.log)

    def take(self) -> None:
        """The records noted since the last stop, decoded and counted (at each stop of the
        walk, while their bytes are in the buffer)."""
        w = self.walk
        for index, offset, words, rate in self.cov.take_notes():
            rec = decode_record(w.buf, offset, index, words, _quiet, big=w.big, log=w.log, resync=False)
            self.count(rec, rate)

    def totals(self) -> dict:
        """The native counts by name: {"records", "bytes", "inline": {kind: n}, "args":
        {argument kind: n}, "string_refs", "thread_refs", "enums": {kind: {value: n}},
        "times": [(rate, least, greatest)], "largest": [(bytes, index, offset, kind)]}."""
        c = self.cov.counts()
        kinds = self.kinds
        out: dict = {"records": {}, "bytes": {}, "inline": {}, "args": {}, "enums": {}}
        for name in ("records", "bytes", "inline"):
            for term, n in enumerate(c[name]):
                if n:
                    out[name][kinds[term]] = out[name].get(kinds[term], 0) + n
        out["args"] = {self.arg_kinds[t]: n for t, n in enumerate(c["args"]) if n}
        for (term, value), n in c["enums"].items():
            got = out["enums"].setdefault(kinds[term], {})
            got[value] = got.get(value, 0) + n
        out["string_refs"], out["thread_refs"], out["times"] = c["string_refs"], c["thread_refs"], c["times"]
        out["largest"] = [(size, index, offset, kinds[term]) for size, index, offset, term in c["largest"]]
        return out
