"""The linter as a consumer of the walk (``_walk``): reference checks on the decoded
records, array checks on the clean rows.

The column engine has already proved the clean rows free of anything the reader
could report (``_columns``); what is left is what a record means in its place:

1. every decoded record (flagged by the screen, or one that changes the provider
   tables) is checked by ``RecordChecker`` in file order, the reference path, which
   also reports on what a table record changed;
2. the clean rows get the semantic checks (string and thread refs registered in
   their provider's tables at their position, timestamps that convert, pairing
   columns) as array lookups into the batch's stamped table changes (``Rows``):
   memory is what the batch's changes use, no table is copied or laid out densely.

A structured-log stream has no tables: its diagnostics are all the reader's.
``tests/test_fast.py`` holds the column path and the per-record path to the same
diagnostics.
"""

from __future__ import annotations

import numpy as np

from ..spec._limits import DEFAULT_LIMITS, MAX_PAIRING_WINDOW, Limits
from ..spec._roles import HEADER_FIELDS, INLINE_KOIDS, THREAD_REFS, TIMESTAMPS
from ._columns import INLINE
from ._lookups import REL_BITS
from ._pairing import BUFFERING_MODES, COMPLETE, lexorder
from ._reader import field_span
from ._semantic import (
    PAIR_ID,
    PAIR_KIND,
    LintState,
    RecordChecker,
    timestamp_overflow,
    unregistered_string,
    unregistered_thread,
)
from ._walk import INLINE_TEXT, UNREGISTERED, Batch, Consumer, Rows

assert MAX_PAIRING_WINDOW <= 1 << REL_BITS


class Lint(Consumer):
    """Every rule over one walk; diagnostics go to ``emit`` (the reader's too, through
    the walk's own ``emit``)."""

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS, log: bool = False,
                 buffering_mode: str | None = None):
        if buffering_mode is not None and buffering_mode not in BUFFERING_MODES:
            raise ValueError(f"buffering_mode must be one of {BUFFERING_MODES} or None, not {buffering_mode!r}")
        self.emit = emit
        self.limits = limits
        self.log = log
        self.buffering_mode = buffering_mode
        self.state: LintState | None = None
        self._pids = np.zeros(0, np.uint64)  # process koid per interned thread id, as far as known

    @property
    def buffer_full(self) -> list[int]:
        """Offsets of the records that say a provider dropped records."""
        return [] if self.state is None else self.state.buffer_full

    def start(self, walk) -> None:
        self.walk = walk
        if not self.log:
            self.state = LintState(self.emit, self.limits, walk.state, self.buffering_mode)
            self.state.big = walk.big
            self.checker = RecordChecker(self.state)

    def record(self, rec, change) -> None:
        if self.state is not None:
            self.checker.check(rec, change)

    def rows(self, batch: Batch) -> None:
        if self.state is None:
            return
        self.state.flush_to(batch.index0)
        for rows in batch.clean:
            self._semantics(rows)

    def finish(self, walk) -> None:
        if self.state is not None:
            self.state.finish(cut_short=walk.cut_short)

    def _process_koids(self, ids):
        """The process koid of each interned thread id (0 for ``UNREGISTERED``): the
        interned values only grow, so their koids are kept as an array, extended as needed."""
        values = self.walk.state.threads.values
        have = len(self._pids)
        if have < len(values):
            more = np.fromiter((v[0] for v in values[have:]), np.uint64, len(values) - have)
            self._pids = np.concatenate([self._pids, more])
        if not len(self._pids):
            return np.zeros(len(ids), np.uint64)
        return np.where(ids >= 0, self._pids[np.maximum(ids, 0)], np.uint64(0))

    # -- semantics of clean rows ----------------------------------------------------------
    def _semantics(self, rows: Rows) -> None:
        emit, state, tables = self.emit, self.state, self.walk.state
        assert state is not None, "rows() lints semantics only with a LintState"
        big = self.walk.big
        lay = rows.layout
        kind = rows.kind
        n = rows.n
        off, idx, size = rows.offset, rows.index, rows.size
        by_slot = rows.batch.look.by_slot

        def provider(r):
            return by_slot[int(rows.slot[r])].id

        # string refs, of the record and of its arguments, looked up at once
        ids = {}
        for x in rows.strings():
            where = kind if x.arg is None else f"{kind} argument {x.arg.k}"
            for j in np.nonzero(x.ids == UNREGISTERED)[0].tolist():
                r = int(x.rows[j])
                span = None if x.field is None else field_span(8 * int(x.words[j]), x.field, big)
                emit(unregistered_string(int(off[r]), int(idx[r]), int(size[r]), span, where, int(x.refs[j]),
                                         x.name, provider(r)))
            if x.arg is None:
                ids[x.name] = x.ids

        # thread refs: (thread key, process koid) per row, the key -1 when unregistered (reported)
        header = HEADER_FIELDS.get(kind, {})
        W = rows.batch.W
        thread_key = None
        for fname in THREAD_REFS.get(kind, ()):
            ref = rows.value(fname)
            got = rows.threads(fname)
            tkey = np.full(n, -1, np.int64)
            pid = np.zeros(n, np.uint64)
            inline = got == INLINE_TEXT
            names = INLINE_KOIDS.get((kind, fname))
            if inline.any() and names and lay.pairing:
                pw = W[rows.position(names[0])[inline]]
                tw = W[rows.position(names[1])[inline]]
                pids, tids, inv = _distinct_pairs(pw, tw)
                keys = np.asarray([tables.threads((a, b)) for a, b in zip(pids.tolist(), tids.tolist())], np.int64)
                tkey[inline] = keys[inv]
                pid[inline] = pw
            ind = np.nonzero(~inline)[0]
            if len(ind):
                known = got[ind]
                tfield = header.get(fname)
                for r in ind[known == UNREGISTERED].tolist():
                    span = None if tfield is None else field_span(int(off[r]), tfield, big)
                    emit(unregistered_thread(int(off[r]), int(idx[r]), int(size[r]), span, kind, int(ref[r]), fname,
                                             provider(r)))
                if lay.pairing:
                    tkey[ind] = known
                    pid[ind] = self._process_koids(known)
            if thread_key is None:
                thread_key = (tkey, pid)

        # timestamps that do not convert to 64-bit nanoseconds at the provider's rate
        stamps = TIMESTAMPS.get(kind, ())
        if stamps:
            limit, rate_pos, rates = rows.rates()
            for fname in stamps:
                ts = rows.value(fname)
                for r in np.nonzero(ts > limit)[0].tolist():
                    emit(timestamp_overflow(int(off[r]), int(idx[r]), int(size[r]), fname, int(ts[r]),
                                            rates[int(rate_pos[r])]))

        # pairing columns, for events whose thread and names resolved
        if lay.pairing and thread_key is not None:
            cat, name = ids["category"].copy(), ids["name"].copy()
            for fname, out in (("category", cat), ("name", name)):
                ref = rows.value(fname)
                inline = np.nonzero((ref & INLINE) != 0)[0]
                if len(inline):
                    raw = rows.inline_bytes(ref[inline], rows.position(f"{fname} string")[inline])
                    out[inline] = [tables.strings(b.decode("ascii")) for b in raw]
            tkey, pid = thread_key
            pm = (tkey >= 0) & (cat >= 0) & (name >= 0)
            if pm.any():
                id_word = PAIR_ID[kind]
                zeros = np.zeros(int(pm.sum()), np.uint64)
                word = rows.value(id_word)[pm] if id_word else zeros
                # a complete event's word is its end, the others' an id
                ident, end = (zeros, word) if PAIR_KIND[kind] == COMPLETE else (word, zeros)
                state.batch.extend(
                    kind=np.full(int(pm.sum()), PAIR_KIND[kind], np.int64), thread=tkey[pm], process=pid[pm],
                    cat=cat[pm], name=name[pm], ts=rows.value(stamps[0])[pm], id=ident, end=end,
                    offset=off[pm], index=idx[pm], size=size[pm])


def _distinct_pairs(a, b):
    """The distinct (a, b) pairs, sorted, and each row's position among them (as
    ``np.unique(np.stack([a, b], 1), axis=0, return_inverse=True)``, an order of
    magnitude faster: one sort of packed keys instead of a sort of row views)."""
    o = lexorder(a, b, np.arange(len(a), dtype=np.int64))
    sa, sb = a[o], b[o]
    new = np.ones(len(o), bool)
    new[1:] = (sa[1:] != sa[:-1]) | (sb[1:] != sb[:-1])
    inv = np.empty(len(o), np.int64)
    inv[o] = np.cumsum(new) - 1
    return sa[new], sb[new], inv
