"""What is open: durations, async operations and flows begun and not yet ended, followed in
file order (repair --close-open ends them; slice begins and ends them at its cuts, where
no instant goes back in the file: else ``_order`` follows the lint's own pairs).

An end met before any begin it could match (a trace whose timestamps go back, where the
linter pairs it in time order with a begin further on) is owed: the next such begin is
taken as already ended, not left open.

Each open event remembers its provider: what a rewrite writes for it goes in that
provider's section, at a time read through that provider's tick rate (``spec/_time``),
since providers need not share a clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any

from ..engine._provider_state import ProviderState
from ..spec._build import event, provider_section
from ..spec._limits import DEFAULT_LIMITS
from ..spec._model import Argument, Record
from ..spec._roles import THREAD_REFS
from ..spec._tables import tables
from ..spec._time import U64, before, seconds, ticks_at

_T = tables()
MARK_NAME = "fxtlint"  # the argument (and the cut's duration category) marking what a rewrite wrote
_PAIRING = {leaf.name: leaf.pairing for leaf in _T.record_leaves() if leaf.pairing}
_PAIRING_ID = {leaf.name: leaf.pairing_id for leaf in _T.record_leaves() if leaf.pairing}
SCAN = DEFAULT_LIMITS.max_scan  # how deep an end looks for its begin, as the lint of a piece looks


def _tick(time_s: Fraction, rate: int, *, up: bool = False) -> int:
    """``ticks_at``, held to the 64 bits a timestamp has (a time too late for a fast
    clock's 64 bits gets its last tick)."""
    return min(ticks_at(time_s, rate, up=up), U64 - 1)


class OpenEvents:
    """Open durations per thread (koids -> [(category, name, tag, provider id)], outermost
    first) and open async operations ((process koid, category, name, id) -> (koids, tag,
    provider id)); ``tag`` is what the caller passed with the begin (repair: its offset in
    the input), the provider id that of the section the begin was in. Per thread, the
    complete event with the latest end (``completes``: koids -> (end ticks, the rate read
    at, category, name, provider id)), as the lint keeps it: a flow event is enclosed while
    it runs (PR008), so a cut inside it gives the piece after a marked stand-in (``begins``)."""

    def __init__(self):
        self.durations: dict[tuple, list] = {}
        self.asyncs: dict[tuple, tuple] = {}
        self.flows: dict[int, tuple] = {}  # flow id -> (koids, category, name, provider id): begun, not ended
        self.completes: dict[tuple, tuple] = {}  # koids -> (end, rate, category, name, provider id)
        self._owed: Counter = Counter()

    def see(self, rec: Record, state: ProviderState, tag=None) -> None:
        """Follow ``rec`` (after its effect on ``state``, which resolves its refs)."""
        parts = self.parts(rec, state)
        if parts is not None:
            self.follow(*parts, state.current.id, tag, rate=state.current.rate)

    @staticmethod
    def parts(rec: Record, state: ProviderState) -> tuple[str, tuple, Any, Any, int] | None:
        """(role, koids, category, name, id) of a pairing event whose thread, category and
        name resolve (its id the word it pairs by, 0 for a duration), else None."""
        role = _PAIRING.get(rec.kind)
        if role is None or not rec.complete:
            return None
        refs = THREAD_REFS.get(rec.kind, ())
        koids = state.thread(rec, refs[0]) if refs else None
        cat = state.string(rec.fields, rec.strings, "category")
        name = state.string(rec.fields, rec.strings, "name")
        if koids is None or cat is None or name is None:
            return None
        ident = rec.fields.get(_PAIRING_ID[rec.kind], 0) if _PAIRING_ID[rec.kind] else 0
        return role, koids, cat, name, ident

    def follow(self, role: str, koids: tuple, cat, name, ident: int, pid, tag=None, *, rate: int = 0) -> None:
        """A pairing event read in provider ``pid``: a begin opens (or pays an end met
        before it), an end closes the innermost duration of its thread, its async
        operation, its flow (or is owed); a complete event (``ident``: its end, at ``rate``)
        is its thread's running one where it ends later than the one before (the lint's
        ``PairingEngine.complete_end``). (The native walk's copy for slice:
        ``_nwalk.NativeWalk._follow``, checked against this one by the tests.)"""
        if role == "complete":
            held = self.completes.get(koids)
            if held is None or before(held[0], held[1], ident, rate):
                self.completes[koids] = (ident, rate, cat, name, pid)
        elif role in ("begin", "end"):
            key = ("d", koids, cat, name)
            stack = self.durations.setdefault(koids, [])
            if role == "begin":
                if self._owed[key]:
                    self._owed[key] -= 1
                else:
                    stack.append((cat, name, tag, pid))
            elif stack:
                top = stack[-1]
                if top[0] != cat or top[1] != name:
                    # the lint's reading (``PairingEngine._unmatched_end``): an end closes the
                    # innermost open begin of its name within ``max_scan`` levels under the
                    # top, and the begins above it with it (never ended); else the top
                    for depth in range(len(stack) - 2, max(-1, len(stack) - 2 - SCAN), -1):
                        if stack[depth][0] == cat and stack[depth][1] == name:
                            del stack[depth + 1 :]
                            break
                stack.pop()
            else:
                self._owed[key] += 1
        elif role in ("async_begin", "async_end"):
            akey = (koids[0], cat, name, ident)
            if role == "async_begin":
                if self._owed[akey]:
                    self._owed[akey] -= 1
                else:
                    self.asyncs[akey] = (koids, tag, pid)
            elif self.asyncs.pop(akey, None) is None:
                self._owed[akey] += 1
        elif role in ("flow_begin", "flow_end"):  # keyed by id alone, as the linter keys them
            fkey = ("f", ident)
            if role == "flow_begin":
                if self._owed[fkey]:
                    self._owed[fkey] -= 1
                else:
                    self.flows[ident] = (koids, cat, name, pid)
            elif self.flows.pop(ident, None) is None:
                self._owed[fkey] += 1

    @staticmethod
    def pairing_id(rec: Record) -> int:
        """The id an async or flow event pairs by (its table's pairing_id word)."""
        return rec.fields.get(_PAIRING_ID.get(rec.kind, ""), 0)

    def open_durations(self):
        """(koids, category, name, tag, provider id) of each open duration, outermost first
        per thread."""
        return [(koids, *entry) for koids, stack in self.durations.items() for entry in stack]

    def running(self, time_s: Fraction) -> list[tuple]:
        """(koids, end, rate, category, name, provider id) of each thread's complete event
        still running at ``time_s`` seconds (its end at or after it), by koids."""
        return [(koids, *c) for koids, c in sorted(self.completes.items()) if seconds(c[0], c[1]) >= time_s]

    def still_running(self, latest: tuple | None) -> None:
        """Let go of the complete events that ended before the instant ``latest`` (ticks,
        rate; None: none read): a piece starting at or after it needs none of them."""
        if latest is not None:
            self.completes = {k: c for k, c in self.completes.items() if not before(c[0], c[1], *latest)}

    def begins(self, time_s: Fraction, rate_of: Callable[[Any], int], mark: Argument) -> Iterator[tuple[Any, Record]]:
        """(provider id, record): a begin at ``time_s`` seconds (the last tick of its
        provider's rate ``rate_of(provider id)`` at or before it), carrying ``mark``, of every
        open duration, async operation and flow (a flow inside a duration of its own): what
        a piece cut from the middle of a trace opens with; and a complete event from there to
        the end of each complete event still running (``running``: it encloses the piece's
        flow events the running one enclosed)."""
        for koids, cat, name, _, pid in self.open_durations():
            ts = _tick(time_s, rate_of(pid))
            yield pid, event("duration_begin", ts, thread=koids, category=cat, name=name, args=(mark,))
        for koids, end, rate, cat, name, pid in self.running(time_s):
            here = rate_of(pid)
            ts = _tick(time_s, here)
            end = end if here == rate else _tick(seconds(end, rate), here)
            yield pid, event("duration_complete", ts, thread=koids, category=cat, name=name, args=(mark,),
                             end_timestamp=max(end, ts))
        for (_, cat, name, ident), (koids, _, pid) in self.asyncs.items():
            ts = _tick(time_s, rate_of(pid))
            yield pid, event("async_begin", ts, thread=koids, category=cat, name=name, id=ident, args=(mark,))
        for ident, (koids, cat, name, pid) in self.flows.items():
            ts = _tick(time_s, rate_of(pid))
            for rec in in_a_duration(event("flow_begin", ts, thread=koids, category=cat, name=name, id=ident,
                                           args=(mark,)), mark):
                yield pid, rec

    def ends(self, time_s: Fraction, rate_of: Callable[[Any], int], mark: Argument, *,
             flows: bool = True) -> Iterator[tuple[Any, Record, Any]]:
        """(provider id, record, tag): an end at ``time_s`` seconds (the first tick of its
        provider's rate ``rate_of(provider id)`` at or after it; ``rate_of`` is asked as each
        end is made), carrying ``mark``, of every open flow (with ``flows``; inside a
        duration of its own), duration (innermost first) and async operation, each with the
        tag its begin was seen with (None for a flow's records)."""
        if flows:
            for ident, (koids, cat, name, pid) in self.flows.items():
                ts = _tick(time_s, rate_of(pid), up=True)
                for rec in in_a_duration(event("flow_end", ts, thread=koids, category=cat, name=name, id=ident,
                                               args=(mark,)), mark):
                    yield pid, rec, None
        for koids, cat, name, tag, pid in reversed(self.open_durations()):
            ts = _tick(time_s, rate_of(pid), up=True)
            yield pid, event("duration_end", ts, thread=koids, category=cat, name=name, args=(mark,)), tag
        for (_, cat, name, ident), (koids, tag, pid) in self.asyncs.items():
            ts = _tick(time_s, rate_of(pid), up=True)
            yield pid, event("async_end", ts, thread=koids, category=cat, name=name, id=ident, args=(mark,)), tag

    def providers(self) -> list:
        """The provider ids of what is open, each once, in the order ``ends`` meets them."""
        pids = [entry[3] for entry in self.flows.values()] + [entry[4] for entry in self.open_durations()]
        pids += [entry[4] for _, entry in sorted(self.completes.items())]
        return list(dict.fromkeys(pids + [entry[2] for entry in self.asyncs.values()]))

    def snapshot(self) -> OpenEvents:
        copy = OpenEvents()
        copy.durations = {k: list(v) for k, v in self.durations.items() if v}
        copy.asyncs = dict(self.asyncs)
        copy.flows = dict(self.flows)
        copy.completes = dict(self.completes)
        return copy


def in_a_duration(flow: Record, mark: Argument) -> list[Record]:
    """A flow event a rewrite writes, inside a duration of its own (a flow event belongs to
    the duration enclosing it), on its thread, at its time."""
    koids = tuple(flow.fields.get(n, 0) for n in ("process_koid", "thread_koid"))
    begin, end = duration_around(koids, flow.fields["timestamp"], mark)
    return [begin, flow, end]


def duration_around(koids: tuple, ts: int, mark: Argument) -> tuple[Record, Record]:
    """The begin and end of the marked duration a rewrite writes around a flow event on the
    thread ``koids`` at ``ts`` ticks (``in_a_duration``'s; slice's around a flow event it
    copies, ``_order``)."""
    return (event("duration_begin", ts, thread=koids, category=MARK_NAME, name="cut", args=(mark,)),
            event("duration_end", ts, thread=koids, category=MARK_NAME, name="cut", args=(mark,)))


def in_sections(items: Iterable[tuple[Any, Record]], current, *, end_in=None) -> Iterator[Record]:
    """The records of (provider id, record) pairs, each in its provider's section: a
    Provider Section record before a record of another provider than the one in force
    (``current``), and with ``end_in`` one back to that provider after the last. A provider
    id of None (the reader's first provider, never named) cannot be switched to: its
    records are written where they fall."""
    for pid, rec in items:
        if pid is not None and pid != current:
            yield provider_section(pid)
            current = pid
        yield rec
    if end_in is not None and current != end_in:
        yield provider_section(end_in)
