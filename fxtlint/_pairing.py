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
"""

from __future__ import annotations

import enum
from collections import deque
from itertools import islice

import numpy as np

from . import rules as R
from ._limits import DEFAULT_LIMITS, Limits


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


BEGIN, END, COMPLETE = PairKind.BEGIN, PairKind.END, PairKind.COMPLETE
ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END = PairKind.ASYNC_BEGIN, PairKind.ASYNC_INSTANT, PairKind.ASYNC_END
FLOW_BEGIN, FLOW_STEP, FLOW_END = PairKind.FLOW_BEGIN, PairKind.FLOW_STEP, PairKind.FLOW_END
DURATION_KINDS = frozenset((BEGIN, END, COMPLETE))
ASYNC_KINDS = frozenset((ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END))
FLOW_KINDS = frozenset((FLOW_BEGIN, FLOW_STEP, FLOW_END))

KIND_BY_EVENT = {
    "event.duration_begin": BEGIN,
    "event.duration_end": END,
    "event.duration_complete": COMPLETE,
    "event.async_begin": ASYNC_BEGIN,
    "event.async_instant": ASYNC_INSTANT,
    "event.async_end": ASYNC_END,
    "event.flow_begin": FLOW_BEGIN,
    "event.flow_step": FLOW_STEP,
    "event.flow_end": FLOW_END,
}


# id: an async, flow or counter id (0 for other kinds); end: a complete event's end timestamp
COLUMNS = ("kind", "thread", "process", "cat", "name", "ts", "id", "end", "offset", "index", "size")
_DTYPES = dict(zip(COLUMNS, (np.int64, np.int64, np.uint64, np.int64, np.int64, np.uint64, np.uint64,
                             np.uint64, np.int64, np.int64, np.int64)))


class Batch:
    """Pairing events of one window: rows added one by one (the per-record path) or as
    column arrays (the fast path). Row order does not matter: the engine sorts."""

    def __init__(self):
        self._rows: list[tuple] = []
        self._chunks: list[dict] = []
        self.n = 0

    def __len__(self):
        return self.n

    def add(self, kind, thread, process, cat, name, ts, id_, end, offset, index, size):
        self._rows.append((kind, thread, process, cat, name, ts, id_, end, offset, index, size))
        self.n += 1

    def extend(self, **columns) -> None:
        """Append column arrays, one per name in ``COLUMNS``."""
        self._chunks.append({c: np.asarray(columns[c], _DTYPES[c]) for c in COLUMNS})
        self.n += len(columns["kind"])

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
                 vectorize_from: int = VECTORIZE_FROM):
        self.emit = emit
        self.strings = strings
        self.limits = limits
        self.stacks: dict[int, deque] = {}
        self.complete_end: dict[int, int] = {}  # thread -> latest end of a complete event seen
        # dicts keep insertion order: when one is full its oldest eighth is dropped
        self.asyncs: dict[tuple, tuple] = {}
        self.flows: dict[tuple, tuple] = {}
        self.overflowed: set[str] = set()
        self.vectorize = vectorize  # try the array proof of a clean batch before the loop
        self.vectorize_from = vectorize_from  # ... of one of at least this many rows

    def _s(self, gid: int) -> str:
        return self.strings[gid] if 0 <= gid < len(self.strings) else "?"

    @staticmethod
    def order(ts, index):
        """Positions sorted by (timestamp, record index)."""
        n = len(ts)
        if n < 2 or (bool(np.all(ts[1:] >= ts[:-1])) and bool(np.all(index[1:] > index[:-1]))):
            return np.arange(n)
        return lexorder(ts, index)

    def _overflow(self, what: str, offset: int, index: int, size: int, limit: int) -> None:
        if what not in self.overflowed:
            self.overflowed.add(what)
            self.emit(R.pairing_state_overflow.at(offset, index, record_size=size, what=what, limit=limit))

    def _begin(self, live: dict, key, what: str, id_, name, offset, index, size) -> None:
        """An async or flow begin whose id is live already, or whose table is full."""
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
        cols = b.columns()
        if self.vectorize and len(b) >= self.vectorize_from:
            from ._pairing_vec import feed_clean

            if feed_clean(self, cols):
                return
        order = self.order(cols["ts"], cols["index"])
        kind, thread, process, cat, name, ts, ids, ends, offset, index, size = (
            cols[c][order].tolist() for c in COLUMNS)
        stacks = self.stacks
        asyncs = self.asyncs
        flows = self.flows
        emit = self.emit
        s = self._s
        max_stack, max_live, max_scan = self.limits.max_stack, self.limits.max_live, self.limits.max_scan
        for j in range(len(kind)):
            k = kind[j]
            t = thread[j]
            if k == BEGIN:
                st = stacks.get(t)
                if st is None:
                    st = stacks[t] = deque(maxlen=max_stack)
                elif len(st) == max_stack:
                    self._overflow("duration stack", offset[j], index[j], size[j], max_stack)
                st.append((cat[j], name[j], offset[j], index[j], size[j]))
            elif k == END:
                st = stacks.get(t)
                c, n = cat[j], name[j]
                if not st:
                    emit(R.duration_end_without_begin.at(offset[j], index[j], record_size=size[j],
                                                         cat=s(c), name=s(n)))
                    continue
                top = st[-1]
                if top[0] == c and top[1] == n:
                    st.pop()
                    continue
                # an outer begin of the same name: the begins above it were never ended
                for depth in range(len(st) - 2, max(-1, len(st) - 2 - max_scan), -1):
                    e = st[depth]
                    if e[0] == c and e[1] == n:
                        while len(st) > depth + 1:
                            o = st.pop()
                            emit(R.duration_never_ended.at(o[2], o[3], record_size=o[4], cat=s(o[0]),
                                                           name=s(o[1]), end_offset=offset[j]))
                        st.pop()
                        break
                else:
                    st.pop()
                    emit(R.duration_end_mismatch.at(offset[j], index[j], record_size=size[j], cat=s(c),
                                                    name=s(n), bcat=s(top[0]), bname=s(top[1]),
                                                    begin_offset=top[2]))
            elif k == COMPLETE:
                end = ends[j]
                if end > self.complete_end.get(t, -1):
                    self.complete_end[t] = end
            elif k in ASYNC_KINDS:
                key = (process[j], cat[j], name[j], ids[j])
                if k == ASYNC_BEGIN:
                    if key in asyncs or len(asyncs) >= max_live:
                        self._begin(asyncs, key, "async", ids[j], name[j], offset[j], index[j], size[j])
                    else:
                        asyncs[key] = (offset[j], index[j], size[j])
                else:
                    live = asyncs.get(key) if k == ASYNC_INSTANT else asyncs.pop(key, None)
                    if live is None:
                        emit(R.async_without_begin.at(offset[j], index[j], record_size=size[j],
                                                      what="instant" if k == ASYNC_INSTANT else "end",
                                                      id=ids[j], name=s(name[j]), cat=s(cat[j])))
            elif k in FLOW_KINDS:
                st = stacks.get(t)
                if not st and self.complete_end.get(t, -1) < ts[j]:
                    emit(R.flow_outside_duration.at(offset[j], index[j], record_size=size[j], id=ids[j]))
                key = (ids[j],)  # flows are keyed by id alone: they cross processes (PR007's docs)
                if k == FLOW_BEGIN:
                    if key in flows or len(flows) >= max_live:
                        self._begin(flows, key, "flow", ids[j], name[j], offset[j], index[j], size[j])
                    else:
                        flows[key] = (offset[j], index[j], size[j])
                else:
                    live = flows.get(key) if k == FLOW_STEP else flows.pop(key, None)
                    if live is None:
                        emit(R.flow_without_begin.at(offset[j], index[j], record_size=size[j],
                                                     what="step" if k == FLOW_STEP else "end", id=ids[j]))

    def finish(self, cut_short: bool = False) -> None:
        """Report what is still open when the trace ends (``cut_short``: where framing
        stopped before the end of the file)."""
        s = self._s
        for st in self.stacks.values():
            for c, n, off, idx, size in st:
                self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="duration",
                                                   detail=f"{s(c)}/{s(n)}", cut_short=cut_short))
        for (_, c, n, i), (off, idx, size) in self.asyncs.items():
            self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="async operation",
                                               detail=f"{s(c)}/{s(n)} id {i}", cut_short=cut_short))
        for (i,), (off, idx, size) in self.flows.items():
            self.emit(R.unterminated_at_end.at(off, idx, record_size=size, what="flow", detail=f"id {i}",
                                               cut_short=cut_short))
