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

from ._columns import INLINE
from ..spec._limits import DEFAULT_LIMITS, MAX_PAIRING_WINDOW, Limits
from ._lookups import REL_BITS
from ._pairing import COMPLETE
from ._reader import field_span
from ..spec._roles import HEADER_FIELDS, INLINE_KOIDS, THREAD_REFS, TIMESTAMPS
from ._semantic import (PAIR_ID, PAIR_KIND, LintState, RecordChecker, timestamp_overflow, unregistered_string,
                        unregistered_thread)
from ._walk import INLINE_TEXT, UNREGISTERED, Batch, Consumer, Rows

assert MAX_PAIRING_WINDOW <= 1 << REL_BITS


class Lint(Consumer):
    """Every rule over one walk; diagnostics go to ``emit`` (the reader's too, through
    the walk's own ``emit``)."""

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS, log: bool = False):
        self.emit = emit
        self.limits = limits
        self.log = log
        self.state: LintState | None = None

    @property
    def buffer_full(self) -> list[int]:
        """Offsets of the records that say a provider dropped records."""
        return [] if self.state is None else self.state.buffer_full

    def start(self, walk) -> None:
        self.walk = walk
        if not self.log:
            self.state = LintState(self.emit, self.limits, walk.state)
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

    # -- semantics of clean rows ----------------------------------------------------------
    def _semantics(self, rows: Rows) -> None:
        emit, state, tables = self.emit, self.state, self.walk.state
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
                pairs, inv = np.unique(np.stack([pw, tw], 1), axis=0, return_inverse=True)
                keys = np.asarray([tables.threads((a, b)) for a, b in pairs.tolist()], np.int64)
                tkey[inline] = keys[inv.reshape(-1)]
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
                    uk, inv = np.unique(known, return_inverse=True)
                    values = tables.threads.values
                    kp = np.asarray([values[k][0] if k >= 0 else 0 for k in uk.tolist()], np.uint64)
                    pid[ind] = kp[inv.reshape(-1)]
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
        if lay.pairing:
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
