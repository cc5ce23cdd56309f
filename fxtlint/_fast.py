"""The fast path: frame with numpy, screen event records vectorised, decode the rest.

Per window of the file, record sizes are computed for every word at once and the
header walk follows them in a tight loop. Records are then processed in batches
aligned with the pairing windows:

1. event records are *screened* with array operations: every field, stream, padding
   byte, argument size and reserved bit the per-record reader would check. An event
   that is not provably clean is flagged;
2. every other record, and every flagged event, is decoded and checked by the
   per-record reader and ``RecordChecker`` in file order (the reference path), which
   also stamps each table change with its record index;
3. the clean events get the semantic checks (refs registered in their provider's
   tables at their position, timestamps that convert, pairing columns) as array
   lookups into those stamped changes.

``tests/test_fast.py`` holds the two paths to the same diagnostics. Memory is a few
arrays per window: the file itself is a memory map whose pages are released as the
walk moves on.
"""

from __future__ import annotations

import mmap
from array import array
from collections import Counter

import numpy as np

from . import rules as R
from ._pairing import KIND_BY_EVENT, PAIRING_WINDOW
from ._reader import after_record, decode_record, field_span, frame_error, size_fields, start_checks
from ._semantic import NS_PER_S, NUMERIC_ARGS, U64, History, RecordChecker, SemanticState
from ._tables import tables

_T = tables()
WINDOW_WORDS = 1 << 21  # 16 MiB of file per window
_INLINE = _T.string_inline_bit
_LEN = _INLINE - 1
_SBITS = _LEN.bit_length()  # bits of a string index
_ASCII_HIGH = np.uint64(0x8080808080808080)
_TYPE = next(f for f in _T.header if f.role == "type")
_SIZE = next(f for f in _T.header if f.role == "size")

# -- the event layout, from the tables ------------------------------------------------
_EV = next(lay for lay in _T.records.values() if lay.name == "event")
EVENT_TYPE = _EV.type
_SHAPE = [it.kind for it in _EV.body]
if _SHAPE != ["word", "words", "string", "string", "args", "variant"]:  # pragma: no cover
    raise RuntimeError(f"the fast path expects the event layout of the spec, found {_SHAPE}")
_SEL = _EV.selector
_ARGC = next(f for f in _EV.fields if f.role == "arg_count")
_THR = next(f for f in _EV.fields if f.role == "thread_ref" and f.name == _EV.body[1].cond)
_CAT = _EV.field(_EV.body[2].name)
_NAME = _EV.field(_EV.body[3].name)
_INLINE_THREAD_WORDS = len(_EV.body[1].names)
_TS_FIELD = _EV.body[0].name
MAX_STRING = _T.max_string_length

EXTRA = np.full(1 << _SEL.width, -1, np.int64)  # words after the arguments; -1: undefined type
EXTRA_IS_TS = np.zeros(1 << _SEL.width, bool)  # the extra word is a timestamp (complete's end)
EXTRA_NAME: dict[int, str] = {}
KIND_NAME: dict[int, str] = {}
PAIR_KIND = np.full(1 << _SEL.width, -1, np.int64)
for _v, _lay in _EV.variants.items():
    _words = [it for it in _lay.body if it.kind == "word"]
    if len(_words) != len(_lay.body):  # pragma: no cover
        raise RuntimeError(f"the fast path expects only words in event variants ({_lay.name})")
    EXTRA[_v] = len(_words)
    EXTRA_IS_TS[_v] = bool(_words) and _words[0].role == "timestamp"
    if _words:
        EXTRA_NAME[_v] = _words[0].name
    KIND_NAME[_v] = _lay.name
    PAIR_KIND[_v] = KIND_BY_EVENT.get(_lay.name, -1)
COUNTER = next(v for v, n in KIND_NAME.items() if n == "event.counter")

# -- argument layouts -----------------------------------------------------------------
_AT = next(f for f in _T.argument_header if f.role == "type")
_AS = next(f for f in _T.argument_header if f.role == "size")
_AN = next(f for f in _T.argument_header if f.role == "string_ref")
_NT = 1 << _AT.width
ARG_KNOWN = np.zeros(_NT, bool)
ARG_ZERO = np.zeros(_NT, np.uint64)
ARG_WORDS = np.zeros(_NT, np.int64)
ARG_STRVAL = np.zeros(_NT, bool)
ARG_SLOW = np.zeros(_NT, bool)  # streams of their own (blob): left to the per-record reader
ARG_NUMERIC = np.zeros(_NT, bool)
ARG_KIND: dict[int, str] = {}
_VALREF = None
for _t, _lay in _T.arguments.items():
    ARG_KNOWN[_t] = True
    ARG_ZERO[_t] = _lay.zero_mask
    ARG_KIND[_t] = _lay.name
    ARG_NUMERIC[_t] = _lay.name in NUMERIC_ARGS
    for it in _lay.body:
        if it.kind == "word":
            ARG_WORDS[_t] += 1
        elif it.kind == "string":
            ARG_STRVAL[_t] = True
            _VALREF = _lay.field(it.name)
        else:
            ARG_SLOW[_t] = True
_STRING_ARG = next(t for t in range(_NT) if ARG_STRVAL[t])


def _f(x, fld):
    """Field ``fld`` of the uint64 array ``x``, as int64 (fields are narrower than 63 bits)."""
    v = x >> np.uint64(fld.lo)
    v &= np.uint64(fld.mask)
    return v.view(np.int64)


_REL_BITS = 20  # history keys hold a record's index within its batch in the low bits
assert PAIRING_WINDOW <= 1 << _REL_BITS


def _latest(keys_list, qkeys, shift):
    """For each query key, the position of the latest history key below it that shares
    its prefix (key >> shift), or -1."""
    if not keys_list:
        return np.full(len(qkeys), -1, np.int64)
    keys = np.asarray(keys_list, np.int64)
    order = np.argsort(keys, kind="stable")
    sk = keys[order]
    j = np.searchsorted(sk, qkeys) - 1
    jc = np.maximum(j, 0)
    hit = (j >= 0) & ((sk[jc] >> shift) == (qkeys >> shift))
    return np.where(hit, order[jc], -1)


class FastLinter:
    """Lints one trace buffer; ``run()`` returns (records, record kind counts)."""

    def __init__(self, buf, emit, big: bool):
        self.buf = buf
        self.emit = emit
        self.big = big
        self.W = np.frombuffer(buf, dtype=">u8" if big else "<u8", count=len(buf) // 8)
        self.state = SemanticState(emit)
        self.state.big = big
        self.checker = RecordChecker(self.state)
        self.kinds: Counter = Counter()

    # -- framing ----------------------------------------------------------------------
    def run(self) -> int:
        buf, emit, W = self.buf, self.emit, self.W
        nw = len(W)
        if start_checks(buf, emit, self.big, False):
            return 0  # not an FXT file: said once, nothing more to say
        large = size_fields(False)
        stop = False
        cur = 0
        index = 0
        released = 0
        while cur < nw:
            b = min(cur + WINDOW_WORDS, nw)
            h = W[cur:b]
            t = _f(h, _TYPE)
            sz = _f(h, _SIZE)
            for lt, sf in large.items():
                m = t == lt
                if m.any():
                    sz[m] = _f(h[m], sf)
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
            stop = False
            if len(starts) and cur + starts[-1] + sizes[-1] > nw:
                last = int(starts[-1])
                frame_error(8 * (cur + last), index + len(starts) - 1, int(sizes[-1]), buf, emit, self.big)
                starts, sizes, types = starts[:-1], sizes[:-1], types[:-1]
                stop = True
            gstarts = starts + cur
            self._records(gstarts, sizes, types, index)
            index += len(starts)
            if zero:
                frame_error(8 * (cur + i), index, 0, buf, emit, self.big)
                stop = True
            if stop:
                break
            cur += i
            released = self._release(released, 8 * cur)
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
        """Split a window's records at pairing-window boundaries and process each batch."""
        n = len(starts)
        pos = 0
        while pos < n:
            first = index0 + pos
            upto = min(n, pos + (PAIRING_WINDOW - first % PAIRING_WINDOW))
            self._batch(starts[pos:upto], sizes[pos:upto], types[pos:upto], first)
            pos = upto

    # -- one batch ----------------------------------------------------------------------
    def _batch(self, starts, sizes, types, index0):
        state = self.state
        state.flush_to(index0)
        is_ev = types == EVENT_TYPE
        ev_rows = np.nonzero(is_ev)[0]
        flagged = self._screen(starts[ev_rows], sizes[ev_rows])
        slow = np.ones(len(starts), bool)
        slow[ev_rows[~flagged]] = False
        # provider tables as they stand before this batch, for the clean events' lookups
        start_provider = state.current
        snapshot = {p: (dict(p.strings), dict(p.threads), p.max_ticks, p.rate)
                    for p in state.providers.values()}
        hist = state.history = History()
        buf, emit, big, check, kinds = self.buf, self.emit, self.big, self.checker.check, self.kinds
        for r in np.nonzero(slow)[0].tolist():
            rec = decode_record(buf, 8 * int(starts[r]), index0 + r, int(sizes[r]), emit, big=big)
            after_record(rec, emit)
            kinds[rec.kind] += 1
            check(rec)
        state.history = None
        clean = ev_rows[~flagged]
        if len(clean):
            self._semantics(clean, starts[clean], sizes[clean], index0, start_provider, snapshot, hist)

    def _screen(self, s, size):
        """Flag every event record the per-record reader would say anything about."""
        W = self.W
        last = len(W) - 1
        e = s + size
        h = W[s]
        et = _f(h, _SEL)
        flag = EXTRA[et] < 0
        argc = _f(h, _ARGC)
        thr = _f(h, _THR)
        p = s + 2 + _INLINE_THREAD_WORDS * (thr == 0)
        streams = []  # (first word, byte length, row)
        rows = np.arange(len(s))
        for fld in (_CAT, _NAME):
            ref = _f(h, fld)
            inl = (ref & _INLINE) != 0
            ln = ref & _LEN
            streams.append((p[inl], ln[inl], rows[inl]))
            p = p + np.where(inl, (ln + 7) >> 3, 0)
        counter = et == COUNTER
        for k in range(int(argc.max(initial=0))):
            r = np.nonzero((argc > k) & ~flag)[0]
            if not len(r):
                break
            pa = p[r]
            er = e[r]
            A = W[np.minimum(pa, last)]
            at = _f(A, _AT)
            asz = _f(A, _AS)
            an = _f(A, _AN)
            nin = (an & _INLINE) != 0
            nl = an & _LEN
            nwd = np.where(nin, (nl + 7) >> 3, 0)
            isstr = at == _STRING_ARG
            vref = _f(A, _VALREF)
            vin = isstr & ((vref & _INLINE) != 0)
            vl = vref & _LEN
            vwd = np.where(vin, (vl + 7) >> 3, 0)
            expect = 1 + nwd + ARG_WORDS[at] + vwd
            bad = ((pa >= er) | (asz != expect) | (pa + asz > er) | ~ARG_KNOWN[at] | ARG_SLOW[at]
                   | ((A & ARG_ZERO[at]) != 0) | (counter[r] & ~ARG_NUMERIC[at]))
            flag[r[bad]] = True
            streams.append((pa[nin] + 1, nl[nin], r[nin]))
            streams.append((pa[vin] + 1 + nwd[vin], vl[vin], r[vin]))
            p[r] = pa + asz
        flag |= (p + np.maximum(EXTRA[et], 0)) != e
        ok = ~flag
        if EXTRA_IS_TS.any():  # a complete event that ends before it starts
            cm = ok & EXTRA_IS_TS[et]
            if cm.any():
                ts = W[np.minimum(s + 1, last)]
                end = W[np.minimum(e - 1, last)]
                flag |= cm & (end < ts)
        # streams: length limit, zero padding, and plain ASCII (anything else is decoded)
        if streams:
            st = np.concatenate([x[0] for x in streams])
            ln = np.concatenate([x[1] for x in streams])
            rw = np.concatenate([x[2] for x in streams])
            keep = ~flag[rw]
            st, ln, rw = st[keep], ln[keep], rw[keep]
            if len(st):
                bad = ln > MAX_STRING
                # a last byte of 0 (a counted C terminator) is reported by the reference decoder
                lb = np.maximum(ln - 1, 0)
                lw0 = W[np.minimum(st + (lb >> 3), last)]
                sh = (8 * (lb & 7)).astype(np.uint64)
                if self.big:
                    sh = np.uint64(56) - sh
                bad |= (ln > 0) & (((lw0 >> sh) & np.uint64(0xFF)) == 0)
                rem = ln & 7
                pr = np.nonzero(rem)[0]
                if len(pr):
                    lw = W[np.minimum(st[pr] + (ln[pr] >> 3), last)]
                    shift = (8 * rem[pr]).astype(np.uint64)
                    if self.big:
                        padbad = (lw & ((np.uint64(1) << (np.uint64(64) - shift)) - np.uint64(1))) != 0
                    else:
                        padbad = (lw >> shift) != 0
                    bad[pr[padbad]] = True
                nwords = (ln + 7) >> 3
                total = int(nwords.sum())
                if total:
                    nz = nwords > 0
                    stn, nwn = st[nz], nwords[nz]
                    offs = np.cumsum(nwn) - nwn
                    idx = np.arange(total, dtype=np.int64) - np.repeat(offs, nwn) + np.repeat(stn, nwn)
                    hi = W[np.minimum(idx, last)] & _ASCII_HIGH
                    nonascii = np.bitwise_or.reduceat(hi, offs) != 0
                    bad[np.nonzero(nz)[0][nonascii]] = True
                flag[rw[bad]] = True
        return flag

    # -- semantics of clean events --------------------------------------------------------
    def _semantics(self, rows, s, size, index0, start_provider, snapshot, hist):
        W, emit, state = self.W, self.emit, self.state
        e = s + size
        idx = rows + index0
        rel = rows.astype(np.int64)
        h = W[s]
        et = _f(h, _SEL)
        for v, c in zip(*np.unique(et, return_counts=True)):
            self.kinds[KIND_NAME[int(v)]] += int(c)
        # which provider each event belongs to
        provs = [start_provider] + [p for _, p in hist.providers]
        slot_of = {}
        for p in provs + list(snapshot):
            slot_of.setdefault(p, len(slot_of))
        sw_idx = np.asarray([i - index0 for i, _ in hist.providers], np.int64)
        sw_slot = np.asarray([slot_of[p] for _, p in hist.providers], np.int64)
        if len(sw_idx):
            j = np.searchsorted(sw_idx, rel) - 1
            slot = np.where(j >= 0, sw_slot[np.maximum(j, 0)], slot_of[start_provider])
        else:
            slot = np.full(len(rows), slot_of[start_provider], np.int64)
        by_slot = {v: k for k, v in slot_of.items()}
        nslots = len(slot_of)

        # strings: the interned id of every ref, or -1 when unregistered
        start_str = np.full((nslots, _INLINE), -1, np.int64)
        start_str[:, 0] = 0
        for p, (strings, _, _, _) in snapshot.items():
            if strings:
                k = np.fromiter(strings.keys(), np.int64, len(strings))
                start_str[slot_of[p], k] = np.fromiter(strings.values(), np.int64, len(strings))
        skeys = [((slot_of[p] << _SBITS | si) << _REL_BITS) | (i - index0) for i, p, si, _ in hist.strings]
        svals = np.asarray([g for _, _, _, g in hist.strings], np.int64)

        def string_ids(refs, qslot, qrel):
            j = _latest(skeys, ((qslot << _SBITS | refs) << _REL_BITS) | qrel, _REL_BITS)
            return np.where(j >= 0, svals[np.maximum(j, 0)] if len(svals) else -1, start_str[qslot, refs])

        cat = _f(h, _CAT)
        name = _f(h, _NAME)
        argc = _f(h, _ARGC)
        thr = _f(h, _THR)
        p = s + 2 + _INLINE_THREAD_WORDS * (thr == 0)
        cat_id = np.zeros(len(rows), np.int64)
        name_id = np.zeros(len(rows), np.int64)
        inline_text = []  # (row, which, first word, length) of inline cat/name for pairing
        pairing = PAIR_KIND[et] >= 0
        for which, (ref, out) in enumerate(((cat, cat_id), (name, name_id))):
            inl = (ref & _INLINE) != 0
            ind = (ref != 0) & ~inl
            if ind.any():
                out[ind] = string_ids(ref[ind], slot[ind], rel[ind])
            ln = ref & _LEN
            for r in np.nonzero(inl & pairing)[0].tolist():
                inline_text.append((r, which, int(p[r]), int(ln[r])))
            p = p + np.where(inl, (ln + 7) >> 3, 0)
        unreg = []  # (row, ref, field, arg index or -1)
        for which, (ref, out) in enumerate(((cat, cat_id), (name, name_id))):
            for r in np.nonzero(out < 0)[0].tolist():
                unreg.append((r, int(ref[r]), (_CAT, _NAME)[which], -1, int(s[r])))
        for k in range(int(argc.max(initial=0))):
            r = np.nonzero(argc > k)[0]
            if not len(r):
                break
            A = W[p[r]]
            at = _f(A, _AT)
            an = _f(A, _AN)
            vref = _f(A, _VALREF)
            for ref, fname, m in ((an, _AN, np.ones(len(r), bool)), (vref, _VALREF, at == _STRING_ARG)):
                ind = m & (ref != 0) & ((ref & _INLINE) == 0)
                if ind.any():
                    ids = string_ids(ref[ind], slot[r[ind]], rel[r[ind]])
                    for q in np.nonzero(ids < 0)[0].tolist():
                        rr = int(r[ind][q])
                        unreg.append((rr, int(ref[ind][q]), fname, k, int(p[rr])))
            p[r] = p[r] + _f(A, _AS)
        for r, ref, fld, k, word in unreg:
            kind = KIND_NAME[int(et[r])]
            where = kind if k < 0 else f"{kind} argument {k}"
            emit(R.string_ref_unregistered.at(8 * int(s[r]), int(idx[r]), record_size=8 * int(size[r]),
                                              span=field_span(8 * word, fld, self.big),
                                              where=where, ref=ref, field=fld.name,
                                              provider=by_slot[int(slot[r])].id))
        for r, which, w0, ln in inline_text:
            text = bytes(self.buf[8 * w0 : 8 * w0 + ln]).decode("ascii")
            (cat_id, name_id)[which][r] = state.strings(text)

        # threads: a key per (process koid, thread koid), or -1 when unregistered
        tkey = np.full(len(rows), -1, np.int64)
        pid = np.zeros(len(rows), np.uint64)
        inl = thr == 0
        if inl.any():
            pw = W[s[inl] + 2]
            tw = W[s[inl] + 3]
            pairs, inv = np.unique(np.stack([pw, tw], 1), axis=0, return_inverse=True)
            keys = np.asarray([state.threads((int(a), int(b))) for a, b in pairs.tolist()], np.int64)
            tkey[inl] = keys[inv.reshape(-1)]
            pid[inl] = pw
        ind = ~inl
        if ind.any():
            start_t = np.full((nslots, 1 << _THR.width), -1, np.int64)
            start_p = np.zeros((nslots, 1 << _THR.width), np.uint64)
            for pv, (_, threads, _, _) in snapshot.items():
                for ti, koids in threads.items():
                    start_t[slot_of[pv], ti] = state.threads(koids)
                    start_p[slot_of[pv], ti] = koids[0]
            tkeys = [((slot_of[pv] << _THR.width | ti) << _REL_BITS) | (i - index0) for i, pv, ti, _ in hist.threads]
            tvals = np.asarray([state.threads(k) for _, _, _, k in hist.threads], np.int64)
            tpids = np.asarray([k[0] for _, _, _, k in hist.threads], np.uint64)
            q = ((slot[ind] << _THR.width | thr[ind]) << _REL_BITS) | rel[ind]
            j = _latest(tkeys, q, _REL_BITS)
            jc = np.maximum(j, 0)
            hit = j >= 0
            tkey[ind] = np.where(hit, tvals[jc] if len(tvals) else -1, start_t[slot[ind], thr[ind]])
            pid[ind] = np.where(hit, tpids[jc] if len(tpids) else 0, start_p[slot[ind], thr[ind]])
            for r in np.nonzero(ind & (tkey < 0))[0].tolist():
                emit(R.thread_ref_unregistered.at(8 * int(s[r]), int(idx[r]), record_size=8 * int(size[r]),
                                                  span=field_span(8 * int(s[r]), _THR, self.big),
                                                  where=KIND_NAME[int(et[r])], ref=int(thr[r]),
                                                  field=_THR.name, provider=by_slot[int(slot[r])].id))

        # timestamps that do not convert to 64-bit nanoseconds at the provider's rate
        ts = W[s + 1]
        extra = W[np.maximum(e - 1, 0)]
        limit = np.full(len(rows), U64 - 1, np.uint64)
        rate = np.full(len(rows), NS_PER_S, object)
        for p_, (_, _, mt, rt) in snapshot.items():
            m = slot == slot_of[p_]
            limit[m] = mt
            rate[m] = rt
        for i, pv, mt, rt in hist.rates:
            m = (slot == slot_of[pv]) & (rel > i - index0)
            limit[m] = mt
            rate[m] = rt
        over = ts > limit
        over_end = EXTRA_IS_TS[et] & (extra > limit)
        for r in np.nonzero(over | over_end)[0].tolist():
            for fld, val, bad in ((_TS_FIELD, ts, over), (EXTRA_NAME.get(int(et[r]), ""), extra, over_end)):
                if bad[r]:
                    emit(R.timestamp_overflows_ns.at(8 * int(s[r]), int(idx[r]), record_size=8 * int(size[r]),
                                                     field=fld, ticks=int(val[r]), rate=rate[r]))

        # pairing columns, for events whose thread and names resolved
        pm = pairing & (tkey >= 0) & (cat_id >= 0) & (name_id >= 0)
        if pm.any():
            state.batch.extend(
                kind=PAIR_KIND[et[pm]], thread=tkey[pm], process=pid[pm], cat=cat_id[pm], name=name_id[pm],
                ts=ts[pm], id=np.where(EXTRA[et[pm]] > 0, extra[pm], 0), offset=8 * s[pm], index=idx[pm],
                size=8 * size[pm])


def lint_trace_fast(buf, emit, big: bool):
    """Lint a trace with the fast path; returns (record count, record kind counts)."""
    fl = FastLinter(buf, emit, big)
    try:
        n = fl.run()
        return n, fl.kinds, fl.state
    finally:
        fl.W = None  # drop the view so a memory map can be closed
