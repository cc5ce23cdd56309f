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

from typing import TYPE_CHECKING

from ..spec._limits import DEFAULT_LIMITS, MAX_PAIRING_WINDOW, Limits
from ..spec._roles import HEADER_FIELDS, INLINE_KOIDS, THREAD_REFS, TIMESTAMPS
from ._lookups import REL_BITS
from ._pairing import BUFFERING_MODES, COMPLETE, NAMED_KINDS, lexorder
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
from ._walk import INLINE, INLINE_TEXT, UNREGISTERED, Batch, Consumer, Rows

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np  # imported on first use: the per-record path needs no array

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
        self._pids: np.ndarray | None = None  # process koid per interned thread id, as far as known

    @property
    def buffer_full(self) -> list[int]:
        """Offsets of the records that say a provider dropped records."""
        return [] if self.state is None else self.state.buffer_full

    def start(self, walk) -> None:
        self.walk = walk
        if not self.log:
            self.state = LintState(self.emit, self.limits, walk.state, self.buffering_mode, walk.engine)
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
        if self._pids is None:
            self._pids = np.zeros(0, np.uint64)
        have = len(self._pids)
        if have < len(values):
            more = np.fromiter((v[0] for v in values[have:]), np.uint64, len(values) - have)
            self._pids = np.concatenate([self._pids, more])
        if not len(self._pids):
            return np.zeros(len(ids), np.uint64)
        return np.where(ids >= 0, self._pids[np.maximum(ids, 0)], np.uint64(0))

    # -- semantics of clean rows ----------------------------------------------------------
    # The same named steps, in the same order, as ``RecordChecker.check`` (the per-record
    # path); its ``_numeric_arguments`` and ``_kind_checks`` have no twin here: the screen
    # flags the rows they would report on, so those records take the per-record path.
    def _semantics(self, rows: Rows) -> None:
        assert self.state is not None, "rows() lints semantics only with a LintState"
        string_ids = self._string_refs(rows)
        thread_key = self._thread_refs(rows)
        self._timestamps(rows)
        if rows.layout.pairing and thread_key is not None:
            self._pairing_rows(rows, string_ids, thread_key)

    @staticmethod
    def _provider(rows: Rows, r: int):
        """The id of the provider row ``r`` was written under."""
        return rows.batch.look.by_slot[int(rows.slot[r])].id

    def _string_refs(self, rows: Rows) -> dict:
        """String refs of the record and of its arguments, looked up at once (mirrors
        ``RecordChecker._string_refs``): the record's own interned ids by field name."""
        kind, off, idx, size = rows.kind, rows.offset, rows.index, rows.size
        string_ids = {}
        for x in rows.strings():
            where = kind if x.arg is None else f"{kind} argument {x.arg.k}"
            for j in np.nonzero(x.ids == UNREGISTERED)[0].tolist():
                r = int(x.rows[j])
                span = None if x.field is None else field_span(8 * int(x.words[j]), x.field, self.walk.big)
                self.emit(unregistered_string(int(off[r]), int(idx[r]), int(size[r]), span, where, int(x.refs[j]),
                                              x.name, self._provider(rows, r)))
            if x.arg is None:
                string_ids[x.name] = x.ids
        return string_ids

    def _thread_refs(self, rows: Rows):
        """Thread refs (mirrors ``RecordChecker._thread_refs``): the first one's (thread
        key, process koid) per row, the key -1 when unregistered (reported); None when
        the kind has none."""
        kind, n, lay = rows.kind, rows.n, rows.layout
        off, idx, size = rows.offset, rows.index, rows.size
        header = HEADER_FIELDS.get(kind, {})
        words = rows.batch.words
        thread_key = None
        for fname in THREAD_REFS.get(kind, ()):
            ref = rows.value(fname)
            got = rows.threads(fname)
            tkey = np.full(n, -1, np.int64)
            pid = np.zeros(n, np.uint64)
            inline = got == INLINE_TEXT
            names = INLINE_KOIDS.get((kind, fname))
            if inline.any() and names and lay.pairing:
                process_koids = words[rows.position(names[0])[inline]]
                thread_koids = words[rows.position(names[1])[inline]]
                pids, tids, inv = _distinct_pairs(process_koids, thread_koids)
                keys = np.asarray([self.walk.state.threads((a, b)) for a, b in zip(pids.tolist(), tids.tolist())],
                                  np.int64)
                tkey[inline] = keys[inv]
                pid[inline] = process_koids
            ind = np.nonzero(~inline)[0]
            if len(ind):
                known = got[ind]
                tfield = header.get(fname)
                for r in ind[known == UNREGISTERED].tolist():
                    span = None if tfield is None else field_span(int(off[r]), tfield, self.walk.big)
                    self.emit(unregistered_thread(int(off[r]), int(idx[r]), int(size[r]), span, kind, int(ref[r]),
                                                  fname, self._provider(rows, r)))
                if lay.pairing:
                    tkey[ind] = known
                    pid[ind] = self._process_koids(known)
            if thread_key is None:
                thread_key = (tkey, pid)
        return thread_key

    def _timestamps(self, rows: Rows) -> None:
        """Timestamps that do not convert to 64-bit nanoseconds at the provider's rate
        (mirrors ``RecordChecker._timestamps``)."""
        stamps = TIMESTAMPS.get(rows.kind, ())
        if not stamps:
            return
        off, idx, size = rows.offset, rows.index, rows.size
        limit, rate_pos, rates = rows.rates()
        for fname in stamps:
            ts = rows.value(fname)
            for r in np.nonzero(ts > limit)[0].tolist():
                self.emit(timestamp_overflow(int(off[r]), int(idx[r]), int(size[r]), fname, int(ts[r]),
                                             rates[int(rate_pos[r])]))

    def _pairing_rows(self, rows: Rows, string_ids: dict, thread_key) -> None:
        """Pairing rows, for events whose identifying refs resolved (their thread, and
        their category and name for ``NAMED_KINDS``; mirrors ``RecordChecker._pairing_rows``)."""
        assert self.state is not None
        kind, tables = rows.kind, self.walk.state
        cat, name = string_ids["category"].copy(), string_ids["name"].copy()
        for fname, out in (("category", cat), ("name", name)):
            ref = rows.value(fname)
            inline = np.nonzero((ref & INLINE) != 0)[0]
            if len(inline):
                raw = rows.inline_bytes(ref[inline], rows.position(f"{fname} string")[inline])
                out[inline] = [tables.strings(b.decode("ascii")) for b in raw]
        tkey, pid = thread_key
        resolved = (tkey >= 0) & (cat >= 0) & (name >= 0) if PAIR_KIND[kind] in NAMED_KINDS else tkey >= 0
        if not resolved.any():
            return
        count = int(resolved.sum())
        id_word = PAIR_ID[kind]
        zeros = np.zeros(count, np.uint64)
        word = rows.value(id_word)[resolved] if id_word else zeros
        # a complete event's word is its end, the others' an id
        ident, end = (zeros, word) if PAIR_KIND[kind] == COMPLETE else (word, zeros)
        _, rate_pos, rates = rows.rates()  # each row's tick rate, as it saw its provider's
        self.state.batch.extend(
            kind=np.full(count, PAIR_KIND[kind], np.int64), thread=tkey[resolved], process=pid[resolved],
            cat=cat[resolved], name=name[resolved], ts=rows.value(TIMESTAMPS[kind][0])[resolved], id=ident, end=end,
            offset=rows.offset[resolved], index=rows.index[resolved], size=rows.size[resolved],
            rate=np.asarray(rates, np.uint64)[rate_pos[resolved]])

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
