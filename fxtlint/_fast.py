"""The fast path: frame with numpy, screen every record with the column engine, decode the rest.

Per window of the file, record sizes are computed for every word at once and the
header walk follows them in a tight loop. Records are then processed in batches
aligned with the pairing windows:

1. every record is *screened* by the column engine (``_columns``), which walks each
   leaf layout of the spec tables over all of the batch's rows of that layout at once
   and flags any row the per-record reader could say anything about;
2. flagged rows, undefined types, and the records that change the provider tables
   (metadata, initialization, string and thread records) are decoded and checked by
   the per-record reader and ``RecordChecker`` in file order (the reference path),
   which also stamps each table change with its record index and old value;
3. the clean rows get the semantic checks (string and thread refs registered in their
   provider's tables at their position, timestamps that convert, pairing columns) as
   array lookups into those stamped changes. Memory is what the batch's changes use:
   no table is ever copied or laid out densely.

Structured-log streams take the same engine (steps 1 and 2; a log has no tables).
``tests/test_fast.py`` holds the two paths to the same diagnostics. Memory is a few
arrays per window: the file itself is a memory map whose pages are released as the
walk moves on.
"""

from __future__ import annotations

import mmap
from array import array
from collections import Counter

import numpy as np

from ._columns import INLINE, LEN, Screen, field
from ._lookups import REL_BITS, Lookups, TableCache
from ._limits import DEFAULT_LIMITS, MAX_PAIRING_WINDOW, Limits
from ._pairing import COMPLETE
from ._reader import after_record, decode_record, field_span, first_magic, frame_error, size_fields, start_checks
from ._semantic import (HEADER_FIELDS, INLINE_KOIDS, PAIR_ID, PAIR_KIND, STRING_REFS, TABLE_KINDS,
                        THREAD_REFS, TIMESTAMPS, RecordChecker, SemanticState, timestamp_overflow,
                        unregistered_string, unregistered_thread)
from ._tables import tables

_T = tables()
_TYPE = next(f for f in _T.header if f.role == "type")
_SIZE = next(f for f in _T.header if f.role == "size")
_SBITS = LEN.bit_length()  # bits of a string index
_TBITS = max(f.width for lay in _T.record_leaves() for f in lay.all_fields() if f.role == "thread_ref")
assert MAX_PAIRING_WINDOW <= 1 << REL_BITS
_TRACE_ROOTS = dict(_T.records)
_LOG_ROOTS = {t: _T.log_record for t in range(1 << _TYPE.width)}  # a log record is read whatever its type
# records whose meaning changes state the batch's lookups depend on: the reference takes them
REFERENCE_KINDS = frozenset(TABLE_KINDS | {leaf.name for leaf in _T.record_leaves() if leaf.type == 0})


class FastLinter:
    """Lints one buffer (a trace, or a structured-log stream with ``log``);
    ``run()`` returns the record count."""

    def __init__(self, buf, emit, big: bool, log: bool = False, limits: Limits = DEFAULT_LIMITS):
        self.buf = buf
        self.limits = limits
        self.emit = emit
        self.big = big
        self.log = log
        self.W = np.frombuffer(buf, dtype=">u8" if big else "<u8", count=len(buf) // 8)
        self.screen = Screen(self.W, big, log)
        self.state = None if log else SemanticState(emit, limits)
        if self.state is not None:
            self.state.big = big
        self.checker = None if log else RecordChecker(self.state)
        self.tables = None if log else TableCache(self.state)
        self.kinds: Counter = Counter()

    # -- framing ----------------------------------------------------------------------
    def run(self) -> int:
        buf, emit, W = self.buf, self.emit, self.W
        nw = len(W)
        if start_checks(buf, emit, self.big, self.log):
            return 0  # not an FXT file: said once, nothing more to say
        self.magic_at = first_magic(buf, self.big)
        large = size_fields(self.log)
        stop = False
        cur = 0
        index = 0
        released = 0
        while cur < nw:
            b = min(cur + self.limits.window_words, nw)
            h = W[cur:b]
            t = field(h, _TYPE)
            sz = field(h, _SIZE)
            for lt, sf in large.items():
                m = t == lt
                if m.any():
                    sz[m] = field(h[m], sf)
            del h
            mv = memoryview(sz)
            rel = array("q")
            app = rel.append
            i = 0
            m_ = b - cur
            zero = False
            while i < m_:
                s = mv[i]
                if s == 0:
                    zero = True
                    break
                app(i)
                i += s
            del mv
            starts = np.frombuffer(rel, np.int64) if len(rel) else np.zeros(0, np.int64)
            sizes = sz[starts]
            types = t[starts]
            del sz, t
            past_end = len(starts) and cur + starts[-1] + sizes[-1] > nw
            if past_end:
                last = int(starts[-1]), int(sizes[-1])
                starts, sizes, types = starts[:-1], sizes[:-1], types[:-1]
            gstarts = starts + cur
            resumed = self._records(gstarts, sizes, types, index)
            if resumed is not None:
                # a record's content settled its size (resync_offset): frame anew from its end
                done, at = resumed
                index += done
                cur = at // 8
                released = self._release(released, at)
                continue
            if past_end:
                frame_error(8 * (cur + last[0]), index + len(starts), last[1], buf, emit, self.big)
                stop = True
            index += len(starts)
            if zero:
                frame_error(8 * (cur + i), index, 0, buf, emit, self.big)
                stop = True
            if stop:
                break
            cur += i
            released = self._release(released, 8 * cur)
        if self.state is not None:
            self.state.finish(cut_short=stop)
        return index

    def _release(self, done: int, upto: int) -> int:
        """Give back the pages of a memory-mapped file that the walk has left behind."""
        if not isinstance(self.buf, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED"):
            return done
        end = upto - upto % mmap.PAGESIZE
        if end > done:
            try:
                self.buf.madvise(mmap.MADV_DONTNEED, done, end - done)
            except (OSError, ValueError):
                return done
            return end
        return done

    def _records(self, starts, sizes, types, index0):
        """Split a window's records at pairing-window boundaries and process each batch.
        Returns None, or (records processed, byte offset) when a record's content moved
        its end: the records framed after it are dropped and framing goes on from there."""
        n = len(starts)
        pos = 0
        window = self.limits.pairing_window
        while pos < n:
            first = index0 + pos
            upto = min(n, pos + (window - first % window))
            resumed = self._batch(starts[pos:upto], sizes[pos:upto], types[pos:upto], first)
            if resumed is not None:
                return pos + resumed[0], resumed[1]
            pos = upto
        return None

    # -- one batch ----------------------------------------------------------------------
    def _batch(self, starts, sizes, types, index0):
        screen = self.screen
        groups, slow_rows = screen.groups(_LOG_ROOTS if self.log else _TRACE_ROOTS, starts, sizes, types,
                                          frozenset() if self.log else REFERENCE_KINDS)
        slow = np.zeros(len(starts), bool)
        slow[slow_rows] = True
        for g in groups:
            screen.screen(g)
            slow[g.rows[g.flag]] = True
        buf, emit, big, kinds = self.buf, self.emit, self.big, self.kinds
        if self.log:
            for r in np.nonzero(slow)[0].tolist():
                rec = decode_record(buf, 8 * int(starts[r]), index0 + r, int(sizes[r]), emit, big=big, log=True)
                kinds[rec.kind] += 1
            for g in groups:
                kinds[g.layout.name] += int(np.count_nonzero(~g.flag))
            return
        state = self.state
        state.flush_to(index0)
        start_provider = state.current
        check = self.checker.check
        resumed = None
        with state.recording() as hist:
            for r in np.nonzero(slow)[0].tolist():
                rec = decode_record(buf, 8 * int(starts[r]), index0 + r, int(sizes[r]), emit, big=big)
                after_record(rec, emit, self.magic_at)
                kinds[rec.kind] += 1
                check(rec)
                if rec.size_words != sizes[r]:  # its content settled its size: the rows after it are misframed
                    resumed = (r + 1, rec.end)
                    for g in groups:
                        g.flag[g.rows > r] = True
                    break
        look = Lookups(state, self.tables, start_provider, hist, index0)
        for g in groups:
            if not g.flag.all():
                self._semantics(g, look, index0)
        self.tables.changed(hist)
        return resumed

    # -- semantics of clean rows ----------------------------------------------------------
    def _semantics(self, g, look: Lookups, index0: int):
        W, emit, state = self.W, self.emit, self.state
        lay = g.layout
        kind = lay.name
        sel = np.nonzero(~g.flag)[0]
        n = len(sel)
        self.kinds[kind] += n
        rel = g.rows[sel].astype(np.int64)
        s = g.s[sel]
        off = 8 * s
        idx = rel + index0
        size = 8 * (g.e[sel] - s)
        slot = look.slots(rel)

        def provider(r):
            return look.by_slot[int(slot[r])].id

        # string refs, of the record and of its arguments, looked up at once: the
        # interned id of each, -1 when unregistered (reported)
        everyone = np.arange(n)
        header = HEADER_FIELDS.get(kind, {})
        # (refs, rows, where, field name, word of the field (for its span), the field or None)
        queries = [(g.vals[f][sel], everyone, kind, f, s, header.get(f)) for f in STRING_REFS.get(kind, ())]
        if g.arg_refs:
            pos_in_sel = np.full(len(g.flag), -1, np.int64)
            pos_in_sel[sel] = everyone
            for k, fld, grow, refs, words in g.arg_refs:
                q = pos_in_sel[grow]
                keep = q >= 0
                if keep.any():
                    queries.append((refs[keep], q[keep], f"{kind} argument {k}", fld.name, words[keep], fld))
        ids = {}
        if queries:
            refs = np.concatenate([q[0] for q in queries])
            rows = np.concatenate([q[1] for q in queries])
            got = np.zeros(len(refs), np.int64)
            ind = np.nonzero((refs != 0) & ((refs & INLINE) == 0))[0]
            if len(ind):
                got[ind] = look.lookup("strings", _SBITS, slot[rows[ind]], refs[ind], rel[rows[ind]])
            bounds = np.cumsum([0] + [len(q[0]) for q in queries])
            for j in np.nonzero(got < 0)[0].tolist():
                which = int(np.searchsorted(bounds, j, side="right")) - 1
                _, qrows, where, fname, words, fld = queries[which]
                r = int(rows[j])
                span = None if fld is None else field_span(8 * int(words[j - bounds[which]]), fld, self.big)
                emit(unregistered_string(int(off[r]), int(idx[r]), int(size[r]), span, where, int(refs[j]), fname,
                                         provider(r)))
            for (_, _, where, fname, _, _), lo, hi in zip(queries, bounds[:-1], bounds[1:]):
                if where == kind:
                    ids[fname] = got[lo:hi]

        # thread refs: (process koid, thread koid) per row, -1 when unregistered (reported)
        thread_key = None
        for fname in THREAD_REFS.get(kind, ()):
            ref = g.vals[fname][sel]
            tkey = np.full(n, -1, np.int64)
            pid = np.zeros(n, np.uint64)
            inline = ref == 0
            names = INLINE_KOIDS.get((kind, fname))
            if inline.any() and names and lay.pairing:
                pw = W[g.pos[names[0]][sel][inline]]
                tw = W[g.pos[names[1]][sel][inline]]
                pairs, inv = np.unique(np.stack([pw, tw], 1), axis=0, return_inverse=True)
                keys = np.asarray([state.threads((a, b)) for a, b in pairs.tolist()], np.int64)
                tkey[inline] = keys[inv.reshape(-1)]
                pid[inline] = pw
            ind = np.nonzero(~inline)[0]
            if len(ind):
                got = look.lookup("threads", _TBITS, slot[ind], ref[ind], rel[ind])
                tfield = header.get(fname)
                for r in ind[got < 0].tolist():
                    span = None if tfield is None else field_span(int(off[r]), tfield, self.big)
                    emit(unregistered_thread(int(off[r]), int(idx[r]), int(size[r]), span, kind, int(ref[r]), fname,
                                             provider(r)))
                if lay.pairing:
                    tkey[ind] = got
                    uk, inv = np.unique(got, return_inverse=True)
                    values = state.threads.values
                    kp = np.asarray([values[k][0] if k >= 0 else 0 for k in uk.tolist()], np.uint64)
                    pid[ind] = kp[inv.reshape(-1)]
            if thread_key is None:
                thread_key = (tkey, pid)

        # timestamps that do not convert to 64-bit nanoseconds at the provider's rate
        stamps = TIMESTAMPS.get(kind, ())
        if stamps:
            limit, rate_pos, rates = look.limits(slot, rel)
            for fname in stamps:
                ts = g.vals[fname][sel]
                for r in np.nonzero(ts > limit)[0].tolist():
                    emit(timestamp_overflow(int(off[r]), int(idx[r]), int(size[r]), fname, int(ts[r]),
                                            rates[int(rate_pos[r])]))

        # pairing columns, for events whose thread and names resolved
        if lay.pairing:
            cat, name = ids["category"], ids["name"]
            for fname, out in (("category", cat), ("name", name)):
                ref = g.vals[fname][sel]
                inline = np.nonzero((ref & INLINE) != 0)[0]
                if len(inline):
                    w0 = g.pos[f"{fname} string"][sel][inline]
                    ln = ref[inline] & LEN
                    for q, a, b in zip(inline.tolist(), w0.tolist(), ln.tolist()):
                        out[q] = state.strings(bytes(self.buf[8 * a : 8 * a + b]).decode("ascii"))
            tkey, pid = thread_key
            pm = (tkey >= 0) & (cat >= 0) & (name >= 0)
            if pm.any():
                id_word = PAIR_ID[kind]
                zeros = np.zeros(int(pm.sum()), np.uint64)
                word = g.vals[id_word][sel][pm] if id_word else zeros
                # a complete event's word is its end, the others' an id
                ident, end = (zeros, word) if PAIR_KIND[kind] == COMPLETE else (word, zeros)
                state.batch.extend(
                    kind=np.full(int(pm.sum()), PAIR_KIND[kind], np.int64), thread=tkey[pm], process=pid[pm],
                    cat=cat[pm], name=name[pm], ts=g.vals[stamps[0]][sel][pm], id=ident, end=end,
                    offset=off[pm], index=idx[pm], size=size[pm])


def lint_fast(buf, emit, big: bool, log: bool = False, limits: Limits = DEFAULT_LIMITS):
    """Lint a buffer with the fast path; returns (record count, record kind counts, semantic
    state), the state None for a structured-log stream (a log has no tables)."""
    fl = FastLinter(buf, emit, big, log, limits)
    try:
        n = fl.run()
        return n, fl.kinds, fl.state
    finally:
        fl.W = fl.screen.W = None  # drop the views so a memory map can be closed
