"""What is open: durations, async operations and flows begun and not yet ended, followed in
file order (repair --close-open ends them; slice begins and ends them at its cuts).

An end met before any begin it could match (a trace whose timestamps go back, where the
linter pairs it in time order with a begin further on) is owed: the next such begin is
taken as already ended, not left open.
"""

from __future__ import annotations

from collections import Counter

from ..engine._provider_state import ProviderState
from ..spec._model import Record
from ..spec._roles import THREAD_REFS
from ..spec._tables import tables

_T = tables()
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

    def open_durations(self):
        """(koids, category, name, tag) of each open duration, outermost first per thread."""
        return [(koids, cat, name, tag) for koids, stack in self.durations.items() for cat, name, tag in stack]

    def snapshot(self) -> OpenEvents:
        copy = OpenEvents()
        copy.durations = {k: list(v) for k, v in self.durations.items() if v}
        copy.asyncs = dict(self.asyncs)
        copy.flows = dict(self.flows)
        return copy
