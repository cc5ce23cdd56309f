"""Begin/end pairing of durations, async operations and flows, in timestamp order.

The linter feeds this engine its pairing rows, batch by batch: the per-record checker
(``_semantic.RecordChecker``) one row at a time, the native walk (``_walk_native``) a
window's rows at once. A batch is
reordered by (timestamp, record index) before matching: records need not be in
timestamp order, and disorder within a batch (``Limits.pairing_window`` records) is
resolved exactly, the way Perfetto's sorter window does.

Memory is bounded on adversarial input: a thread's duration stack keeps at most
``Limits.max_stack`` entries and the live async and flow tables at most
``Limits.max_live`` ids; beyond that the oldest entries are dropped and reported once
per kind. An end that does not match the innermost begin looks at most
``Limits.max_scan`` levels down, so every event costs O(1).

``PairingEngine``'s loop is the specification: ``_npairing.PairingEngine`` (Cython, C++
mode) is its compiled twin, which the native walk pairs with where it is built
(``_pairing_choice``; ``tests/test_npairing.py`` holds the two to the same
diagnostics, in the same order, and the same state). No numpy: a window is a list of
row tuples.
"""

from __future__ import annotations

import enum
from bisect import bisect_right
from collections import deque
from collections.abc import Callable
from itertools import islice

from .. import rules as R
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._time import DEFAULT_RATE, order_keys, time_key


class PairKind(enum.IntEnum):
    """The event kinds the engine understands (the feeders translate table names to
    these; the event variant's selector value is not used). Code asks a kind for its
    family by name (``FLOW_KINDS``), never by the order of the numbers."""

    BEGIN = 0
    END = 1
    COMPLETE = 2
    ASYNC_BEGIN = 3
    ASYNC_INSTANT = 4
    ASYNC_END = 5
    FLOW_BEGIN = 6
    FLOW_STEP = 7
    FLOW_END = 8


# the tracing system's buffering modes (tracing-system design, "Buffering Modes"): what a
# full buffer does, and so what a correct trace looks like (``--buffering-mode``)
BUFFERING_MODES = ("oneshot", "circular", "streaming")

BEGIN, END, COMPLETE = PairKind.BEGIN, PairKind.END, PairKind.COMPLETE
ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END = PairKind.ASYNC_BEGIN, PairKind.ASYNC_INSTANT, PairKind.ASYNC_END
FLOW_BEGIN, FLOW_STEP, FLOW_END = PairKind.FLOW_BEGIN, PairKind.FLOW_STEP, PairKind.FLOW_END
ASYNC_KINDS = frozenset((ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END))
FLOW_KINDS = frozenset((FLOW_BEGIN, FLOW_STEP, FLOW_END))
# The kinds whose category and name identify them (durations pair by them per thread;
# async ids are scoped to process, category and name). An event's identifying refs
# (its thread always, these names for these kinds) must resolve for it to be paired: one
# that does not is left out (its RF001/RF002 says why), on both engines. Names that do
# not identify (a flow's: flows pair by id; a complete event's) may be unresolved: the
# event is paired all the same (its name as "?"), so an unregistered name is one
# finding, not also a pairing mismatch at the other end.
NAMED_KINDS = frozenset((BEGIN, END)) | ASYNC_KINDS


# id: an async, flow or counter id (0 for other kinds); end: a complete event's end timestamp;
# rate: the tick rate in effect for the row's provider at its record (``spec/_time``: ts and
# end are read through it, so rows of providers on different clocks order by their times)
COLUMNS = ("kind", "thread", "process", "cat", "name", "ts", "id", "end", "offset", "index", "size", "rate")


class Batch:
    """Pairing events of one window: rows added one by one (the per-record checker), or
    blocks of rows as the native walk wrote them. Row order does not matter: the engine
    sorts."""

    def __init__(self):
        self._rows: list[tuple] = []
        self._blocks: list[object] = []  # the native walk's rows, bytes-like (``add_block``)
        self.n = 0

    def __len__(self):
        return self.n

    def add(self, kind, thread, process, cat, name, ts, id_, end, offset, index, size, rate=DEFAULT_RATE):
        self._rows.append((kind, thread, process, cat, name, ts, id_, end, offset, index, size, rate))
        self.n += 1

    def add_block(self, block: object, n: int) -> None:
        """``n`` rows as the native walk wrote them (``_pairrow.h``), for the compiled pairing
        engine (``ROW_BLOCK_BYTES``), which copies them in whole: no Python object per row."""
        self._blocks.append(block)
        self.n += n


def _in_time_order(rows: list[tuple]) -> list[tuple]:
    """The window's rows ordered by (time, record index): each timestamp read through its
    own row's rate (``COLUMNS``' order), compared exactly (``spec/_time``)."""
    keys = order_keys([r[5] for r in rows], [r[11] for r in rows])
    return [rows[p] for p in sorted(range(len(rows)), key=lambda p: (keys[p], rows[p][9]))]


class PairingEngine:
    """Matches begins with ends; ``strings`` maps interned string ids back to text."""

    def __init__(self, emit, strings: list[str], limits: Limits = DEFAULT_LIMITS, *,
                 buffering_mode: str | None = None):
        self.emit = emit
        # the trace's buffering mode, when the user says it (``BUFFERING_MODES``): a
        # circular trace starts with ends whose begins were overwritten
        self.buffering_mode = buffering_mode
        self.circular = buffering_mode == "circular"
        # the scopes that have had a begin: an end before the first begin of its scope is
        # the circular-start pattern (threads; (process, category, name) for async; any flow)
        self.began: set = set()
        self.began_async: set = set()
        self.flow_began = False
        self.strings = strings
        self.limits = limits
        self.stacks: dict[int, deque] = {}
        self.complete_end: dict[int, int] = {}  # thread -> latest end of a complete event seen (its time_key)
        # dicts keep insertion order: when one is full its oldest eighth is dropped
        self.asyncs: dict[tuple, tuple] = {}
        self.flows: dict[tuple, tuple] = {}
        self.overflowed: set[str] = set()
        # told of each begin and end it pairs, (begin's record index, end's): slice asks
        # (``rewrite/_order``), to follow what is open in time order as the lint pairs it
        self.matched: Callable[[int, int], None] | None = None
        # told of each flow event a duration or a complete event encloses: (its record index,
        # the record indexes of the begins open on its thread, that of the complete event with
        # the latest end on it where that end is at or after the flow, else None): slice asks
        self.enclosed: Callable[[int, list, int | None], None] | None = None
        self.complete_at: dict[int, int] = {}  # thread -> that complete event's record index (``enclosed``'s)

    def _s(self, gid: int) -> str:
        return self.strings[gid] if 0 <= gid < len(self.strings) else "?"

    def _overflow(self, what: str, offset: int, index: int, size: int, limit: int) -> None:
        if what not in self.overflowed:
            self.overflowed.add(what)
            self.emit(R.pairing_state_overflow.at(offset, index, record_size=size, what=what, limit=limit))

    def _begin(self, live: dict, key, what: str, id_, name, offset, index, size) -> None:
        """An async or flow begin enters its table: reported when its id is live
        already, the oldest ids dropped (and reported) when the table is full."""
        prev = live.pop(key, None)
        if prev is not None:
            self.emit(R.id_begin_reused.at(offset, index, record_size=size, what=what, id=id_,
                                           name=self._s(name), first=prev[0]))
        elif len(live) >= self.limits.max_live:
            self._overflow(f"live {what} ids", offset, index, size, self.limits.max_live)
            # rebuilt rather than popped one by one: a dict's deleted front makes
            # every later "oldest" lookup slower; this is O(1) amortised
            kept = dict(islice(live.items(), self.limits.max_live // 8, None))
            live.clear()
            live.update(kept)
        live[key] = (offset, index, size)

    def feed(self, b: Batch) -> None:
        if not len(b):
            return
        if b._blocks:  # a caller's bug, never the input's: the native walk checks ROW_BLOCK_BYTES first
            raise TypeError("row blocks are the compiled pairing engine's (_npairing): this engine reads rows")
        kind, thread, process, cat, name, ts, ids, ends, offset, index, size, rate = zip(*_in_time_order(b._rows))
        stacks = self.stacks
        max_stack = self.limits.max_stack
        early = _EarlyEnds(kind, thread, cat, name, ts, rate, index, offset, self.limits.max_scan)
        for j in range(len(kind)):
            k = kind[j]
            t = thread[j]
            if k == BEGIN:
                if early.used and j in early.used:
                    continue  # paired already with an end stamped before it
                self.began.add(t)
                st = stacks.get(t)
                if st is None:
                    st = stacks[t] = deque(maxlen=max_stack)
                elif len(st) == max_stack:
                    self._overflow("duration stack", offset[j], index[j], size[j], max_stack)
                st.append((cat[j], name[j], offset[j], index[j], size[j]))
            elif k == END:
                st = stacks.get(t)
                c, n = cat[j], name[j]
                if st and st[-1][0] == c and st[-1][1] == n:
                    top = st.pop()
                    if self.matched is not None:
                        self.matched(top[3], index[j])
                else:
                    self._unmatched_end(st, t, c, n, offset[j], index[j], size[j], early, j)
            elif k == COMPLETE:
                end = time_key(ends[j], rate[j])
                if end > self.complete_end.get(t, -1):
                    self.complete_end[t] = end
                    if self.enclosed is not None:
                        self.complete_at[t] = index[j]
            elif k in ASYNC_KINDS:
                self._async_row(k, (process[j], cat[j], name[j], ids[j]), offset[j], index[j], size[j])
            elif k in FLOW_KINDS:
                self._flow_row(k, t, time_key(ts[j], rate[j]), ids[j], name[j], offset[j], index[j], size[j])

    def _unmatched_end(self, st, t, c, n, offset, index, size, early: _EarlyEnds | None = None,
                       j: int = -1) -> None:
        """A duration end (row ``j`` of the batch ``early`` indexes) that does not close
        the top of its thread's stack. When no begin of its name is open (as deep as it
        looks), its own begin may be written before it but stamped after it
        (``_EarlyEnds``): that pair is said in timestamps and matched, and the stack is
        left as it was."""
        s = self._s
        if not st:
            if self._early_end(early, j, t, c, n, offset, index, size):
                return
            first = t not in self.began
            if not (first and self.circular):
                self.emit(R.duration_end_without_begin.at(offset, index, record_size=size, cat=s(c), name=s(n),
                                                          before_first_begin=first,
                                                          mode_given=self.buffering_mode is not None))
            return
        top = st[-1]
        # an outer begin of the same name: the begins above it were never ended
        for depth in range(len(st) - 2, max(-1, len(st) - 2 - self.limits.max_scan), -1):
            e = st[depth]
            if e[0] == c and e[1] == n:
                while len(st) > depth + 1:
                    o = st.pop()
                    self.emit(R.duration_never_ended.at(o[2], o[3], record_size=o[4], cat=s(o[0]), name=s(o[1]),
                                                        end_offset=offset))
                e = st.pop()
                if self.matched is not None:
                    self.matched(e[3], index)
                return
        if self._early_end(early, j, t, c, n, offset, index, size):
            return
        st.pop()
        self.emit(R.duration_end_mismatch.at(offset, index, record_size=size, cat=s(c), name=s(n),
                                             bcat=s(top[0]), bname=s(top[1]), begin_offset=top[2]))

    def _early_end(self, early: _EarlyEnds | None, j: int, t, c, n, offset, index, size) -> bool:
        """PR002 in timestamps for an end whose own begin is stamped after it (True), if it has one."""
        if early is None:
            return False
        b = early.begin_of(j)
        if b is None:
            return False
        self.began.add(t)
        if self.matched is not None:
            self.matched(early.index[b], index)
        self.emit(R.duration_end_mismatch.at(offset, index, record_size=size, cat=self._s(c), name=self._s(n),
                                             bcat=self._s(c), bname=self._s(n), begin_offset=early.offset[b],
                                             ts=early.ts[j], begin_ts=early.ts[b], rate=early.rate[j],
                                             begin_rate=early.rate[b]))
        return True

    def _async_row(self, k, key: tuple, offset, index, size) -> None:
        """An async event, keyed by (process, category, name, id)."""
        asyncs = self.asyncs
        _process, cat, name, ident = key
        if k == ASYNC_BEGIN:
            self.began_async.add(key[:3])
            self._begin(asyncs, key, "async", ident, name, offset, index, size)
            return
        live = asyncs.get(key) if k == ASYNC_INSTANT else asyncs.pop(key, None)
        if live is not None and k == ASYNC_END and self.matched is not None:
            self.matched(live[1], index)
        if live is None and not (self.circular and key[:3] not in self.began_async):
            self.emit(R.async_without_begin.at(offset, index, record_size=size,
                                               what="instant" if k == ASYNC_INSTANT else "end",
                                               id=ident, name=self._s(name), cat=self._s(cat)))

    def _flow_row(self, k, t, when, ident, name, offset, index, size) -> None:
        """A flow event, on thread ``t`` at time ``when`` (a ``time_key``): enclosed by a
        duration, keyed by its id alone."""
        flows = self.flows
        st = self.stacks.get(t)
        inside = self.complete_end.get(t, -1) >= when
        if not st and not inside:
            self.emit(R.flow_outside_duration.at(offset, index, record_size=size, id=ident))
        elif self.enclosed is not None:
            self.enclosed(index, [e[3] for e in st] if st else [], self.complete_at.get(t) if inside else None)
        key = (ident,)  # flows are keyed by id alone: they cross processes (PR007's docs)
        if k == FLOW_BEGIN:
            self.flow_began = True
            self._begin(flows, key, "flow", ident, name, offset, index, size)
            return
        live = flows.get(key) if k == FLOW_STEP else flows.pop(key, None)
        if live is not None and k == FLOW_END and self.matched is not None:
            self.matched(live[1], index)
        if live is None and not (self.circular and not self.flow_began):
            self.emit(R.flow_without_begin.at(offset, index, record_size=size,
                                              what="step" if k == FLOW_STEP else "end", id=ident))

    def finish(self, cut_short: bool = False, dropped_at: int | None = None) -> None:
        """Report what is still open when the trace ends (``cut_short``: where framing
        stopped before the end of the file). With a buffering mode given, what was open at
        a buffer-full record (begun before record ``dropped_at``, the last one) is not
        reported: its end may be among the records dropped."""
        s = self._s
        if dropped_at is None or self.buffering_mode is None:
            dropped_at = -1
        for st in self.stacks.values():
            for c, n, off, idx, size in st:
                if idx < dropped_at:
                    continue
                self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="duration",
                                                   detail=f"{s(c)}/{s(n)}", cut_short=cut_short))
        for (_, c, n, i), (off, idx, size) in self.asyncs.items():
            if idx < dropped_at:
                continue
            self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="async operation",
                                               detail=f"{s(c)}/{s(n)} id {i:#x}", cut_short=cut_short))
        for (i,), (off, idx, size) in self.flows.items():
            if idx < dropped_at:
                continue
            self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="flow", detail=f"id {i:#x}",
                                               cut_short=cut_short))


class _EarlyEnds:
    """The begins of a batch (in timestamp order) that an end stamped before them pairs
    with: a duration end whose own begin (same thread, category and name) is written
    before it in the file but stamped after it. The begins are indexed on first use
    (only a batch with an unmatched end needs them); an end looks at most ``max_scan``
    of its key's later begins, so every event costs O(1)."""

    def __init__(self, kind, thread, cat, name, ts, rate, index, offset, max_scan: int):
        self.kind, self.thread, self.cat, self.name = kind, thread, cat, name
        self.ts, self.rate, self.index, self.offset = ts, rate, index, offset
        self.max_scan = max_scan
        self.begins: dict[tuple, list[int]] | None = None
        self.used: set[int] = set()

    def begin_of(self, j: int) -> int | None:
        """The begin end ``j`` pairs with (its position, now taken), or None."""
        if self.begins is None:
            self.begins = {}
            for p, k in enumerate(self.kind):
                if k == BEGIN:
                    self.begins.setdefault((self.thread[p], self.cat[p], self.name[p]), []).append(p)
        later = self.begins.get((self.thread[j], self.cat[j], self.name[j]), ())
        at = bisect_right(later, j)
        for p in later[at : at + self.max_scan]:
            if p not in self.used and self.index[p] < self.index[j]:
                self.used.add(p)
                return p
        return None
