"""What is open: durations, async operations and flows begun and not yet ended, followed in
file order (repair --close-open ends them; slice begins and ends them at its cuts).

An end met before any begin it could match (a trace whose timestamps go back, where the
linter pairs it in time order with a begin further on) is owed: the next such begin is
taken as already ended, not left open.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from ..engine._provider_state import ProviderState
from ..spec._build import event
from ..spec._model import Argument, Record
from ..spec._roles import THREAD_REFS
from ..spec._tables import tables

_T = tables()
MARK_NAME = "fxtlint"  # the argument (and the cut's duration category) marking what a rewrite wrote
_PAIRING = {leaf.name: leaf.pairing for leaf in _T.record_leaves() if leaf.pairing}
_PAIRING_ID = {leaf.name: leaf.pairing_id for leaf in _T.record_leaves() if leaf.pairing}


class OpenEvents:
    """Open durations per thread (koids -> [(category, name, tag)], outermost first) and
    open async operations ((process koid, category, name, id) -> (koids, tag)); ``tag`` is
    what the caller passed with the begin (repair: its offset in the input)."""

    def __init__(self):
        self.durations: dict[tuple, list] = {}
        self.asyncs: dict[tuple, tuple] = {}
        self.flows: dict[int, tuple] = {}  # flow id -> (koids, category, name): begun, not ended
        self._owed: Counter = Counter()

    def see(self, rec: Record, state: ProviderState, tag=None) -> None:
        """Follow ``rec`` (after its effect on ``state``, which resolves its refs)."""
        role = _PAIRING.get(rec.kind)
        if role is None or not rec.complete:
            return
        refs = THREAD_REFS.get(rec.kind, ())
        koids = state.thread(rec, refs[0]) if refs else None
        cat = state.string(rec.fields, rec.strings, "category")
        name = state.string(rec.fields, rec.strings, "name")
        if koids is None or cat is None or name is None:
            return
        if role in ("begin", "end"):
            key = ("d", koids, cat, name)
            stack = self.durations.setdefault(koids, [])
            if role == "begin":
                if self._owed[key]:
                    self._owed[key] -= 1
                else:
                    stack.append((cat, name, tag))
            elif stack:
                stack.pop()
            else:
                self._owed[key] += 1
        elif role in ("async_begin", "async_end"):
            akey = (koids[0], cat, name, rec.fields.get(_PAIRING_ID[rec.kind], 0))
            if role == "async_begin":
                if self._owed[akey]:
                    self._owed[akey] -= 1
                else:
                    self.asyncs[akey] = (koids, tag)
            elif self.asyncs.pop(akey, None) is None:
                self._owed[akey] += 1
        elif role in ("flow_begin", "flow_end"):  # keyed by id alone, as the linter keys them
            ident = rec.fields.get(_PAIRING_ID[rec.kind], 0)
            fkey = ("f", ident)
            if role == "flow_begin":
                if self._owed[fkey]:
                    self._owed[fkey] -= 1
                else:
                    self.flows[ident] = (koids, cat, name)
            elif self.flows.pop(ident, None) is None:
                self._owed[fkey] += 1

    @staticmethod
    def pairing_id(rec: Record) -> int:
        """The id an async or flow event pairs by (its table's pairing_id word)."""
        return rec.fields.get(_PAIRING_ID.get(rec.kind, ""), 0)

    def open_durations(self):
        """(koids, category, name, tag) of each open duration, outermost first per thread."""
        return [(koids, cat, name, tag) for koids, stack in self.durations.items() for cat, name, tag in stack]

    def begins(self, ts: int, mark: Argument) -> Iterator[Record]:
        """A begin at ``ts``, carrying ``mark``, of every open duration, async operation and
        flow (a flow inside a duration of its own): what a piece cut from the middle of
        a trace opens with."""
        for koids, cat, name, _ in self.open_durations():
            yield event("duration_begin", ts, thread=koids, category=cat, name=name, args=(mark,))
        for (_, cat, name, ident), (koids, _) in self.asyncs.items():
            yield event("async_begin", ts, thread=koids, category=cat, name=name, id=ident, args=(mark,))
        for ident, (koids, cat, name) in self.flows.items():
            yield from in_a_duration(event("flow_begin", ts, thread=koids, category=cat, name=name, id=ident,
                                           args=(mark,)), mark)

    def ends(self, ts: int, mark: Argument, *, flows: bool = True) -> Iterator[tuple[Record, Any]]:
        """An end at ``ts``, carrying ``mark``, of every open flow (with ``flows``; inside a
        duration of its own), duration (innermost first) and async operation, each with the
        tag its begin was seen with (None for a flow's records)."""
        if flows:
            for ident, (koids, cat, name) in self.flows.items():
                for rec in in_a_duration(event("flow_end", ts, thread=koids, category=cat, name=name, id=ident,
                                               args=(mark,)), mark):
                    yield rec, None
        for koids, cat, name, tag in reversed(self.open_durations()):
            yield event("duration_end", ts, thread=koids, category=cat, name=name, args=(mark,)), tag
        for (_, cat, name, ident), (koids, tag) in self.asyncs.items():
            yield event("async_end", ts, thread=koids, category=cat, name=name, id=ident, args=(mark,)), tag

    def snapshot(self) -> OpenEvents:
        copy = OpenEvents()
        copy.durations = {k: list(v) for k, v in self.durations.items() if v}
        copy.asyncs = dict(self.asyncs)
        copy.flows = dict(self.flows)
        return copy


def in_a_duration(flow: Record, mark: Argument) -> list[Record]:
    """A flow event a rewrite writes, inside a duration of its own (a flow event belongs to
    the duration enclosing it), on its thread, at its time."""
    koids = tuple(flow.fields.get(n, 0) for n in ("process_koid", "thread_koid"))
    ts = flow.fields["timestamp"]
    return [event("duration_begin", ts, thread=koids, category=MARK_NAME, name="cut", args=(mark,)), flow,
            event("duration_end", ts, thread=koids, category=MARK_NAME, name="cut", args=(mark,))]
