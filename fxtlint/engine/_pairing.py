"""Begin/end pairing of durations, async operations and flows, in timestamp order.

Both the per-record checker and the vectorised fast path feed this engine the same
columns, batch by batch, so pairing verdicts cannot differ between them. A batch is
reordered by (timestamp, record index) before matching: records need not be in
timestamp order, and disorder within a batch (``Limits.pairing_window`` records) is
resolved exactly, the way Perfetto's sorter window does.

Memory is bounded on adversarial input: a thread's duration stack keeps at most
``Limits.max_stack`` entries and the live async and flow tables at most
``Limits.max_live`` ids; beyond that the oldest entries are dropped and reported once
per kind. An end that does not match the innermost begin looks at most
``Limits.max_scan`` levels down, so every event costs O(1).

``PairingEngine``'s loop is the specification: ``_npairing.PairingEngine`` (Cython, C++
mode) is its compiled twin, which every engine but the reference pairs with where it is
built (``_pairing_choice``; ``tests/test_npairing.py`` holds the two to the same
diagnostics, in the same order, and the same state). The array proof below
(``feed_clean``) serves only the column path of an install without it.
"""

from __future__ import annotations

import enum
import functools
from bisect import bisect_right
from collections import deque
from itertools import islice
from typing import TYPE_CHECKING, NamedTuple

from .. import rules as R
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._time import DEFAULT_RATE, order_keys, time_key

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np  # imported on first use: the per-record path needs no array


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
_DTYPES = dict(zip(COLUMNS, ("i8", "i8", "u8", "i8", "i8", "u8", "u8", "u8", "i8", "i8", "i8", "u8")))  # numpy's names


class Batch:
    """Pairing events of one window: rows added one by one (the per-record path) or as
    column arrays (the fast path). Row order does not matter: the engine sorts."""

    def __init__(self):
        self._rows: list[tuple] = []
        self._chunks: list[dict] = []
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

    def extend(self, **columns) -> None:
        """Append column arrays, one per name in ``COLUMNS`` ("rate" may be left out: the
        spec's default, 1 tick per nanosecond)."""
        n = len(columns["kind"])
        if "rate" not in columns:
            columns["rate"] = np.full(n, DEFAULT_RATE, np.uint64)
        self._chunks.append({c: np.asarray(columns[c], _DTYPES[c]) for c in COLUMNS})
        self.n += n

    def columns(self) -> dict:
        """Every column as one array."""
        chunks = list(self._chunks)
        if self._rows:
            cols = list(zip(*self._rows))
            chunks.append({c: np.array(v, _DTYPES[c]) for c, v in zip(COLUMNS, cols)})
        if len(chunks) == 1:
            return chunks[0]
        return {c: np.concatenate([ch[c] for ch in chunks]) if chunks else np.zeros(0, _DTYPES[c])
                for c in COLUMNS}


def _in_time_order(rows: list[tuple]) -> list[tuple]:
    """Rows added one by one, ordered by (time, record index) as ``PairingEngine.order``
    orders columns: each timestamp read through its own row's rate (COLUMNS' order)."""
    keys = order_keys([r[5] for r in rows], [r[11] for r in rows])
    return [rows[p] for p in sorted(range(len(rows)), key=lambda p: (keys[p], rows[p][9]))]


def lexorder(*keys):
    """``np.lexsort(tuple(reversed(keys)))``: rows ordered by ``keys``, the first key
    primary, the last unique (a position). Where the keys' ranges fit in 63 bits
    together they are packed into one key, which sorts 2-4 times faster than lexsort."""
    n = len(keys[0])
    if n < 2:
        return np.arange(n)
    spans = [(int(k.min()), int(k.max())) for k in keys]
    bits = [(hi - lo).bit_length() for lo, hi in spans]
    if sum(bits) > 63:
        return np.lexsort(tuple(reversed(keys)))
    packed = np.zeros(n, np.int64)
    for k, (lo, _), b in zip(keys, spans, bits):
        packed <<= b
        packed |= (k - lo).astype(np.int64)
    return np.argsort(packed)  # the last key is unique: no ties, so any sort is stable


# below this many rows a batch goes straight to the loop: the array proof's fixed cost
# (a few dozen numpy calls) exceeds the loop's work there (bench/small_traces.py)
VECTORIZE_FROM = 256


class PairingEngine:
    """Matches begins with ends; ``strings`` maps interned string ids back to text."""

    def __init__(self, emit, strings: list[str], limits: Limits = DEFAULT_LIMITS, *, vectorize: bool = True,
                 vectorize_from: int = VECTORIZE_FROM, buffering_mode: str | None = None):
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
        self.vectorize = vectorize  # try the array proof of a clean batch before the loop
        self.vectorize_from = vectorize_from  # ... of one of at least this many rows

    def _s(self, gid: int) -> str:
        return self.strings[gid] if 0 <= gid < len(self.strings) else "?"

    @staticmethod
    def order(ts, index, rate=None):
        """Positions sorted by (time, record index): each timestamp read through its row's
        tick ``rate`` (None: one rate for all), compared exactly (``spec/_time``)."""
        n = len(ts)
        if rate is not None and n > 1 and not bool(np.all(rate == rate[0])):
            keys = order_keys(ts.tolist(), rate.tolist())
            idx = index.tolist()
            return np.asarray(sorted(range(n), key=lambda p: (keys[p], idx[p])), np.int64)
        if n < 2 or (bool(np.all(ts[1:] >= ts[:-1])) and bool(np.all(index[1:] > index[:-1]))):
            return np.arange(n)
        return lexorder(ts, index)

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
        # the array proof is the column path's: a batch of rows added one by one (the
        # per-record path, a small file) is paired by the loop, with no numpy
        if self.vectorize and b._chunks and len(b) >= self.vectorize_from:
            cols = b.columns()
            if feed_clean(self, cols):
                self._note_begins(cols)
                return
        if b._chunks:
            cols = b.columns()
            order = self.order(cols["ts"], cols["index"], cols["rate"])
            kind, thread, process, cat, name, ts, ids, ends, offset, index, size, rate = (
                cols[c][order].tolist() for c in COLUMNS)
        else:
            # rows added one by one (the per-record path): ordered as ``order`` orders them,
            # by (time, record index), with no array (a small file needs no numpy)
            kind, thread, process, cat, name, ts, ids, ends, offset, index, size, rate = zip(
                *_in_time_order(b._rows))
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
                    st.pop()
                else:
                    self._unmatched_end(st, t, c, n, offset[j], index[j], size[j], early, j)
            elif k == COMPLETE:
                end = time_key(ends[j], rate[j])
                if end > self.complete_end.get(t, -1):
                    self.complete_end[t] = end
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
                st.pop()
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
        if live is None and not (self.circular and key[:3] not in self.began_async):
            self.emit(R.async_without_begin.at(offset, index, record_size=size,
                                               what="instant" if k == ASYNC_INSTANT else "end",
                                               id=ident, name=self._s(name), cat=self._s(cat)))

    def _flow_row(self, k, t, when, ident, name, offset, index, size) -> None:
        """A flow event, on thread ``t`` at time ``when`` (a ``time_key``): enclosed by a
        duration, keyed by its id alone."""
        flows = self.flows
        if not self.stacks.get(t) and self.complete_end.get(t, -1) < when:
            self.emit(R.flow_outside_duration.at(offset, index, record_size=size, id=ident))
        key = (ident,)  # flows are keyed by id alone: they cross processes (PR007's docs)
        if k == FLOW_BEGIN:
            self.flow_began = True
            self._begin(flows, key, "flow", ident, name, offset, index, size)
            return
        live = flows.get(key) if k == FLOW_STEP else flows.pop(key, None)
        if live is None and not (self.circular and not self.flow_began):
            self.emit(R.flow_without_begin.at(offset, index, record_size=size,
                                              what="step" if k == FLOW_STEP else "end", id=ident))

    def _note_begins(self, cols: dict) -> None:
        """The begin scopes of a batch proved clean (no end in it lacked its begin)."""
        kind = cols["kind"]
        b = kind == BEGIN
        if b.any():
            self.began.update(np.unique(cols["thread"][b]).tolist())
        a = kind == ASYNC_BEGIN
        if a.any():
            self.began_async.update(zip(cols["process"][a].tolist(), cols["cat"][a].tolist(),
                                        cols["name"][a].tolist()))
        if not self.flow_began and bool((kind == FLOW_BEGIN).any()):
            self.flow_began = True

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


# Pairing of a well-formed batch as array operations; anything else goes to the loop.
#
# ``feed_clean(engine, batch)`` proves, with numpy, that the engine's loop would report
# nothing for the batch, and then leaves the engine in the state the loop would have
# left it in (duration stacks, latest complete-event ends, live async and flow ids, in
# the same insertion order). If the proof fails it changes nothing and returns False,
# and the engine runs its loop. ``tests/test_pairing.py`` holds the two to the same
# diagnostics and state on drawn batches.
#
# Durations are parenthesis matching: per thread, with the carried stack prepended as
# virtual begins, the depth after each event never drops below zero, and a begin at
# depth d pairs with the next end that leaves depth d - 1; grouped by (thread, depth)
# the pairs are adjacent. Async and flow ids are per-key state machines:
# begin (instant|step)* end, begin again only after an end.

@functools.cache
def _flow_table():
    """By pairing kind: a flow event's? (built on first use: numpy is imported lazily)"""
    table = np.zeros(max(FLOW_KINDS) + 1, bool)
    table[sorted(FLOW_KINDS)] = True
    return table


def _is_flow(kind):
    table = _flow_table()
    return table[np.minimum(kind, len(table) - 1)] & (kind >= 0)


def _segments(*keys):
    """Boolean array: True where a row starts a new run of equal keys (rows already sorted)."""
    n = len(keys[0])
    start = np.zeros(n, bool)
    if n:
        start[0] = True
        for k in keys:
            start[1:] |= k[1:] != k[:-1]
    return start


def _states(kind, begin, middle, end, keys, pos, carried: int):
    """Check one family of id events (async or flow) and find its final live keys.

    Rows 0..carried-1 are the live ids carried in (virtual begins). Returns None if
    the loop would report anything, else (sorted row order, last row per key mask).
    """
    order = lexorder(*keys, pos)
    k = kind[order]
    start = _segments(*(x[order] for x in keys))
    prev = np.empty_like(k)
    prev[1:] = k[:-1]
    ok_begin = start | (prev == end)
    ok_other = ~start & ((prev == begin) | (prev == middle))
    is_b = k == begin
    if not np.all(np.where(is_b, ok_begin, ok_other)):
        return None
    last = np.zeros(len(k), bool)
    if len(k):
        last[:-1] = start[1:]
        last[-1] = True
    return order, last


def feed_clean(engine, cols: dict) -> bool:
    """``cols``: the batch's columns (``Batch.columns()``). Proves the batch clean (the
    loop would report nothing) and leaves the engine as the loop would; False, the
    engine untouched, when it cannot."""
    sort = engine.order(cols["ts"], cols["index"], cols["rate"])
    kind = cols["kind"][sort]
    thread = cols["thread"][sort]
    stacks = _clean_durations(engine, kind, thread, cols["cat"][sort], cols["name"][sort])
    if stacks is None:
        return False
    families = _clean_id_families(engine, kind, cols["process"][sort], cols["cat"][sort], cols["name"][sort],
                                  cols["id"][sort])
    if families is None:
        return False
    # ---- proven clean: leave the engine as the loop would ------------------------------
    where = (cols["offset"][sort], cols["index"][sort], cols["size"][sort])
    _leave_stacks(engine, stacks, where)
    _leave_complete_ends(engine, kind, thread, cols["end"][sort], cols["rate"][sort])
    for fam in families:
        if fam is not None:
            _leave_live_ids(fam, where)
    return True


class _CleanStacks(NamedTuple):
    """What ``_clean_durations`` proved: the duration stacks at the batch's end."""
    threads_here: list  # threads with durations or flows in the batch
    hidden: dict  # per such thread: the carried entries below the reach of its ends
    carried: list  # (thread, entry) carried in and within reach, at virtual positions -nv..-1
    threads: np.ndarray  # begin/end rows sorted by thread, level, position: their thread,
    cats: np.ndarray  # category,
    names: np.ndarray  # name,
    positions: np.ndarray  # position in the sorted batch (< 0: carried),
    open_rows: np.ndarray  # and which of them stay open (stack order)


def _clean_durations(engine, kind, thread, cat, name) -> _CleanStacks | None:
    """Durations and flow enclosure, per thread, on rows sorted in the loop's order;
    None when the loop would report something (or must decide)."""
    pos = np.arange(len(kind), dtype=np.int64)
    dur = (kind == BEGIN) | (kind == END)
    flow = _is_flow(kind)
    rows = np.nonzero(dur | flow)[0]
    # thread keys are small interned ids (>= 0): counted, not sorted
    threads_here = np.flatnonzero(np.bincount(thread[rows])).tolist() if len(rows) else []
    # only the top of a carried stack can be reached: as many entries as the thread
    # has ends here; the rest stays below untouched (and keeps every batch O(its size))
    ends = np.nonzero(kind == END)[0]
    n_ends = np.bincount(thread[ends])
    t_ends = np.flatnonzero(n_ends)
    reach = dict(zip(t_ends.tolist(), n_ends[t_ends].tolist()))
    carried: list[tuple] = []
    hidden = {}
    for t in threads_here:
        st = engine.stacks.get(t, ())
        k = min(len(st), reach.get(t, 0))
        hidden[t] = len(st) - k
        carried.extend((t, st[i]) for i in range(len(st) - k, len(st)))
    nv = len(carried)
    s_thread = np.concatenate([np.asarray([t for t, _ in carried], np.int64), thread[rows]])
    s_pos = np.concatenate([np.arange(-nv, 0, dtype=np.int64), pos[rows]])
    s_kind = np.concatenate([np.full(nv, BEGIN, np.int64), kind[rows]])
    s_cat = np.concatenate([np.asarray([e[0] for _, e in carried], np.int64), cat[rows]])
    s_name = np.concatenate([np.asarray([e[1] for _, e in carried], np.int64), name[rows]])
    o = lexorder(s_thread, s_pos)
    s_thread, s_pos, s_kind, s_cat, s_name = s_thread[o], s_pos[o], s_kind[o], s_cat[o], s_name[o]
    delta = np.where(s_kind == BEGIN, 1, np.where(s_kind == END, -1, 0))
    cs = np.cumsum(delta)
    start = _segments(s_thread)
    starts = np.nonzero(start)[0]
    lens = np.diff(np.append(starts, len(s_thread)))
    depth = cs - np.repeat((cs - delta)[starts], lens)
    depth += np.repeat(np.asarray([hidden[t] for t in s_thread[starts].tolist()], np.int64), lens)
    if len(depth) and (np.any(depth < np.repeat(np.asarray([hidden[t] for t in s_thread[starts].tolist()],
                                                         np.int64), lens)) or depth.max() > engine.limits.max_stack):
        return None
    sflow = _is_flow(s_kind)
    if np.any(sflow & (depth <= 0)):
        return None  # no open duration: the loop decides (a complete event may enclose it)
    be = ~sflow
    level = np.where(s_kind == BEGIN, depth, depth + 1)[be]
    bt, bp, bk, bc, bn = s_thread[be], s_pos[be], s_kind[be], s_cat[be], s_name[be]
    o2 = lexorder(bt, level, bp)
    bt, bk, bc, bn, lv, bp = bt[o2], bk[o2], bc[o2], bn[o2], level[o2], bp[o2]
    is_end = bk == END
    e_at = np.nonzero(is_end)[0]
    if len(e_at):
        q = e_at - 1
        if (q.min() < 0 or np.any(bk[q] != BEGIN) or np.any(bt[q] != bt[e_at]) or np.any(lv[q] != lv[e_at])
                or np.any(bc[q] != bc[e_at]) or np.any(bn[q] != bn[e_at])):
            return None
    closed = np.zeros(len(bk), bool)
    closed[e_at - 1] = True
    open_b = np.nonzero((bk == BEGIN) & ~closed)[0]  # sorted by thread, then level: stack order
    return _CleanStacks(threads_here, hidden, carried, bt, bc, bn, bp, open_b)


def _clean_id_families(engine, kind, process, cat, name, ids) -> list | None:
    """Async and flow ids: per family its rows' states (None without rows); None when
    the loop would report something, or is cheaper."""
    n = len(kind)
    families: list[tuple | None] = []  # per family: its rows' states, or None without rows
    for live, begin, middle, end, keyfn in (
        (engine.asyncs, ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END, lambda r: (process[r], cat[r], name[r], ids[r])),
        (engine.flows, FLOW_BEGIN, FLOW_STEP, FLOW_END, lambda r: (ids[r],)),
    ):
        r = np.nonzero(np.isin(kind, (begin, middle, end)))[0]  # the family by name, not by number order
        if not len(r):
            families.append(None)
            continue
        if len(live) + int(np.count_nonzero(kind[r] == begin)) >= engine.limits.max_live or len(live) > n:
            return None  # near the cap, or more carried ids than events: the loop is cheaper
        carried_keys = list(live)
        nc = len(carried_keys)
        kcols = [np.asarray(c, np.uint64) for c in zip(*carried_keys)] if nc else []
        own = keyfn(r)
        keys = tuple(np.concatenate([kcols[i].astype(own[i].dtype), own[i]]) if nc else own[i]
                     for i in range(len(own)))
        f_kind = np.concatenate([np.full(nc, begin, np.int64), kind[r]])
        f_pos = np.concatenate([np.arange(-nc, 0, dtype=np.int64), r])
        got = _states(f_kind, begin, middle, end, keys, f_pos, nc)
        if got is None:
            return None
        families.append((live, begin, end, keys, f_kind, f_pos, nc, carried_keys, got))
    return families


def _leave_stacks(engine, stacks: _CleanStacks, where) -> None:
    """Duration stacks as the loop leaves them: the reached entries replaced by the
    open ones, in stack order."""
    offset, index_s, size = where
    threads_here, hidden, carried = stacks.threads_here, stacks.hidden, stacks.carried
    nv = len(carried)
    bt, bc, bn, bp, open_b = stacks.threads, stacks.cats, stacks.names, stacks.positions, stacks.open_rows
    vpos = bp[open_b]
    entries_t = bt[open_b].tolist()
    ent = []
    for t_, c_, n_, p_ in zip(entries_t, bc[open_b].tolist(), bn[open_b].tolist(), vpos.tolist()):
        if p_ < 0:
            ent.append((t_, carried[p_ + nv][1]))
        else:
            ent.append((t_, (c_, n_, int(offset[p_]), int(index_s[p_]), int(size[p_]))))
    for t in threads_here:
        st = engine.stacks.get(t)
        if st is not None:
            for _ in range(len(st) - hidden[t]):
                st.pop()
    for t, e in ent:
        st = engine.stacks.get(t)
        if st is None:
            st = engine.stacks[t] = deque(maxlen=engine.limits.max_stack)
        st.append(e)


def _leave_complete_ends(engine, kind, thread, complete_ends, rates) -> None:
    """Per thread, the latest end of a complete event (its ``time_key``)."""
    comp = np.nonzero(kind == COMPLETE)[0]
    if not len(comp):
        return
    ct = thread[comp]
    ce = complete_ends[comp]
    cr = rates[comp]
    if bool(np.all(cr == cr[0])):  # one rate: the latest in ticks is the latest in time
        o3 = np.lexsort((ce, ct))
        lastc = np.ones(len(o3), bool)
        lastc[:-1] = ct[o3][1:] != ct[o3][:-1]
        rate = int(cr[0])
        latest = zip(ct[o3][lastc].tolist(), (time_key(e, rate) for e in ce[o3][lastc].tolist()))
    else:
        keys = [time_key(e, r) for e, r in zip(ce.tolist(), cr.tolist())]
        latest = zip(ct.tolist(), keys)
    for t, e in latest:
        if e > engine.complete_end.get(t, -1):
            engine.complete_end[t] = e


def _leave_live_ids(fam: tuple, where) -> None:
    """One family's live ids as the loop leaves them."""
    offset, index_s, size = where
    live, begin, end, keys, f_kind, f_pos, nc, carried_keys, (order, last) = fam
    # per key: its last row, and its last begin
    k_sorted = f_kind[order]
    p_sorted = f_pos[order]
    key_start = _segments(*(x[order] for x in keys))
    seg = np.cumsum(key_start) - 1
    b_rows = np.nonzero(k_sorted == begin)[0]
    last_b = np.full(int(seg[-1]) + 1, -1, np.int64)
    last_b[seg[b_rows]] = b_rows  # b_rows ascend: the last write per key wins
    last_rows = np.nonzero(last)[0]
    live_end = k_sorted[last_rows] != end
    lb = last_b[seg[last_rows]]
    lb_pos = p_sorted[lb]
    # keys that ended, or were begun again here, leave the table; those live at the
    # end and begun here enter it in the order of their last begin
    first_rows = np.nonzero(key_start)[0]  # a carried key's virtual begin sorts first
    was_live = p_sorted[first_rows] < 0
    for i in np.nonzero(was_live & (~live_end | (lb_pos >= 0)))[0].tolist():
        live.pop(carried_keys[int(p_sorted[first_rows[i]]) + nc], None)
    enter = np.nonzero(live_end & (lb_pos >= 0))[0]
    enter = enter[np.argsort(lb_pos[enter], kind="stable")]
    for i in enter.tolist():
        row = int(order[lb[i]])
        key = tuple(int(x[row]) for x in keys)
        p = int(lb_pos[i])
        live[key] = (int(offset[p]), int(index_s[p]), int(size[p]))
