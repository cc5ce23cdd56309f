"""Slice on the native walk: the records it proves clean copied into the piece as byte
ranges, the others taken by the record-by-record pass (``_slice._Slicer._one``, the
specification).

The native walk (``engine/_nwalk.pyx``, the lint's, in its strict mode: a record whose
layout the screen flags is handed back whole, ``layout = False``) runs over IN with its
tables mirrored into the slicer's ``ProviderState`` and, in its slice mode
(``slicing``), notes for the piece in force what each record it walks reads (string and
thread registrations read before the piece registers them again, the koids its threads
name, the pointers to userspace objects kept in their process, the providers it is read
under, its first and last instants, its bytes) and follows
what is open (``OpenEvents.follow``'s steps, natively). It hands back to the
record-by-record pass every record that decides something: one that would start a
piece (no piece yet; a --split-size piece's file it may make larger, counted as the pass
counts it, ``_Slicer._overhead``, with the walk's own tallies; a --split-time record at
or past its provider's cut tick, or the first record with a timestamp), a kernel object
(its strings written inline, kept for the pieces naming its koid), an Initialization
record (the rates a prefix writes), a magic record (left out), a kind with a timestamp
or a koid the walk does not read, and any record the walk cannot prove clean. That
record goes through ``_one`` with the piece state calls below pointed at the walk's,
and the walk goes on after it. So a cut, a prefix, a begin and an end are made by the
same code as on the reference pass; the pieces are the same bytes (tested).

A time range (--from/--to): each run of the walk is on one side of the range, the side
the pass is on (``Cutter.side``, from the last record with a timestamp it placed; records
without one follow it). Inside, the run takes what it walks, as above; before and after,
it leaves its records out (counted as the pass counts them) and takes nothing of them
into the piece, following what is open before the range and nothing after it (the
pass's ``open`` holds what is not after the range: after it the walk reads no event's
refs at all). It hands back a record whose
instant is on another side (``Cutter.side_ticks``: per provider, at its rate), so the
pass places every record that crosses into or out of the range; and, outside the range
with the piece open, a record that sets reader state (the piece keeps it) and, before
the range, a pairing event: what is open at the range's start (the pass's ``before``)
is the walk's at the range's first record (``_open_now(whole=True)``: every record
before it was before the range), and after it the pass's own ``OpenEvents`` follows
those handed back. ``time_range_walked`` reads a trace's time range on the walk.

With the ride on (``ride_on``: a --split-size or --split-time cut), the walk also writes
its pairing rows (``slice_rows``) and each piece's ``_slice_ride.Ride`` is told the
walk's findings and rows of each run, each record the pass takes (its decoder's findings
and its change) and, once written, the piece's frame (its bytes but its body's, kept by
``_Tee``): the piece's verdict where it proves it.

Memory: the walk's tables, the piece's notes (what it reads, not its records: those wait
in ``scratch`` as on the reference pass, or are sent again from IN's file) and what is
open.
"""

from __future__ import annotations

from ..engine._file import FileChanged
from ..engine._provider_state import ProviderState
from ..engine._reader import detect_byte_order, start_checks
from ..engine._walk_native import DONE, END, PAST_END, Mirror, _loaded, _names, plan, sync_change
from ..spec._model import Record
from ..spec._roles import INLINE_KOIDS, STATE_KINDS, TIMESTAMPS
from ._input import Whole, at_least, decode, frame
from ._open import SCAN, OpenEvents
from ._slice_pass import (
    _FIXED_BYTES,
    _KERNEL_OBJECT,
    _MAGIC,
    _POINTER,
    _TICK_KIND,
    _USER_OBJECT,
    END_BYTES,
    THREAD_BYTES,
    UNKNOWN_STRING_BYTES,
    Cutter,
    SliceLog,
    TimeRange,
    _copy_body,
    _ignore,
    _Piece,
    _Slicer,
    first_timestamp,
    send_range,
    string_bytes,
    time_range,
)
from ._slice_ride import Ride

WINDOW = 1 << 16  # records per run of the walk
SEGMENTS = 1 << 16  # a piece's body held as this many byte ranges at most (then spilled to its scratch)
COPY = 1 << 22  # bytes written at a time
_ROLE_KIND = {"begin": 0, "end": 1, "complete": 2, "async_begin": 3, "async_end": 5, "flow_begin": 6, "flow_end": 8}
_LAST = (1 << 64) - 1
_WALKED_MODES = frozenset({1, 2, 3, 5, 6})  # M_EVENT and the table records the walk carries out itself


def _stop_terms() -> list[int]:
    """The terminals whose records the reference pass always takes in a slice."""
    kinds, _ = _names()
    terms = plan()[1]
    out = []
    for t, (kind, term) in enumerate(zip(kinds, terms)):
        if kind is None or term["mode"] not in _WALKED_MODES or kind in (_MAGIC, _KERNEL_OBJECT, _TICK_KIND) or \
                any(len(k) != 2 for (kd, _), k in INLINE_KOIDS.items() if kd == kind) or \
                (TIMESTAMPS.get(kind) and term["nts"] == 0):
            out.append(t)
    return out


def _pointer_arg() -> tuple[int, int]:
    """The pointer argument's type and its value's slot in the walk's argument rows."""
    for t, a in plan()[0].arg_leaves.items():
        if a.layout.name == _POINTER:
            return t, a.vals["value"]
    return -1, 0


def _window(nw, inp, off: int, idx: int) -> int:
    """One run of the walk over what ``inp`` holds, from the record at byte ``off`` (index
    ``idx``) for at most ``WINDOW`` records: how it stopped (the walk's ``run``)."""
    view = memoryview(inp.buf)[: len(inp.buf)]
    try:
        return nw.run(view, off // 8, idx, idx + WINDOW)
    finally:
        view.release()


def time_range_walked(buf, module) -> TimeRange | None:
    """``_slice_pass.time_range`` on the native walk ``module``: the same ``TimeRange``
    (exact instants across tick rates, the rates read at). The walk notes each walked
    record's instant (nothing it reads, nothing open); a record it hands back (a kind it
    leaves to the reference, a tick rate, a provider record: so a run reads one provider
    at one rate, and the rates its timestamps were read at are known) is decoded and
    carried out here. It reads no event's refs (``core_off``): only the tables, framing and
    the screen decide what a timestamp is. IN is read once; not FXT at all, it is read by
    the reference's."""
    inp = buf if isinstance(buf, Whole) else Whole(buf)
    big = inp.call(detect_byte_order) == "big"
    if inp.call(lambda b: start_checks(b, _ignore, big, False)):
        return time_range(inp)
    state = ProviderState()
    nw = module.NativeWalk(_loaded(module, pairing=False), Mirror(state), big)
    nw.layout = False
    nw.magic_at = 0
    nw.slicing = True
    nw.piece_reset()
    nw.note_off = nw.follow_off = nw.core_off = True
    kinds, _ = _names()
    providers = [t for t, kind in enumerate(kinds) if kind in ("metadata.provider_info", "metadata.provider_section")]
    nw.set_stop_terms(_stop_terms() + providers)
    timed = frozenset(t for t, term in enumerate(plan()[1]) if term["nts"])
    rates: set = set()
    off = idx = 0
    while True:
        status = _window(nw, inp, off, idx)
        off, idx = 8 * nw.cur, nw.index
        if any(t in timed for t in nw.take_counts()):
            rates.add(state.current.rate)
        nw.take_findings()
        inp.release(off)
        if status == DONE:
            continue
        if status == END:
            if at_least(inp, off + 8):
                continue
            break
        if status == PAST_END and not inp.done:
            at_least(inp, off + 8 * nw.size)
            continue
        size = frame(inp, off, idx, big, _ignore)
        if size is None:
            break
        rec, _ = decode(inp, off, idx, size, big)
        change = state.apply(rec)
        if change is not None:
            sync_change(nw, state, change)
        ts = first_timestamp(rec)
        if ts is not None:
            rates.add(state.current.rate)
            nw.took(0, True, ts, state.current.rate)
        off, idx = rec.end, idx + 1
        inp.release(off)
    first, last = nw.piece_state()[7:]
    if first is None or last is None:
        return None
    return TimeRange(first, last, tuple(sorted(rates)))


class _Body:
    """A piece's body, where IN is a regular file: byte ranges of IN (the records the walk
    took, sent by the kernel from IN's file when the piece is written: never through the
    scratch) and of the scratch (the records the pass wrote), in order. Past ``SEGMENTS``
    ranges, what it holds goes into a new scratch (memory stays flat)."""

    def __init__(self, scratch, src: int, path: str, make_scratch):
        self.scratch = scratch
        self.src, self.path, self.make_scratch = src, path, make_scratch
        self.segments: list = []  # [from IN, offset, length]
        self.pos = 0  # bytes in the scratch

    def write(self, data) -> None:
        self.scratch.write(data)
        self._add(False, self.pos, len(data))
        self.pos += len(data)

    def take(self, start: int, end: int) -> None:
        self._add(True, start, end - start)

    def _add(self, from_in: bool, offset: int, length: int) -> None:
        segs = self.segments
        if segs and segs[-1][0] == from_in and segs[-1][1] + segs[-1][2] == offset:
            segs[-1][2] += length
            return
        segs.append([from_in, offset, length])
        if len(segs) > SEGMENTS:
            self._spill()

    def _spill(self) -> None:
        spilled = self.make_scratch()
        self.write_to(spilled)
        self.scratch.close()
        self.scratch, self.pos = spilled, spilled.tell()
        self.segments = [[False, 0, self.pos]]

    def write_to(self, out) -> None:
        self.scratch.flush()
        try:
            scratch = self.scratch.fileno()
        except (AttributeError, OSError, ValueError):  # (an io.BytesIO: read back a chunk at a time)
            scratch = None
        for from_in, offset, length in self.segments:
            if from_in or scratch is not None:
                if send_range(out, self.src if from_in else scratch, offset, length) == length:
                    continue
                if from_in:
                    raise FileChanged.saying(self.path, "it ended before bytes the slice had read")
                raise OSError("a piece's scratch ended before the records written to it")
            self.scratch.seek(offset)
            while length:
                chunk = self.scratch.read(min(length, 1 << 20))
                if not chunk:
                    raise OSError("a piece's scratch ended before the records written to it")
                out.write(chunk)
                length -= len(chunk)
        self.scratch.seek(0, 2)

    def close(self) -> None:
        self.scratch.close()


class _Tee:
    """A piece's file, whose writes (but the body's) are kept: the frame the ride lints."""

    def __init__(self, out, kept: list):
        self.out, self.kept = out, kept

    def write(self, data) -> int:
        self.kept.append(bytes(data))
        return self.out.write(data)


class _Told(Mirror):
    """A slice's mirror: the walk is told the bytes of each string it interns and of every
    provider once one is named or met (--split-size: ``_Slicer._overhead``)."""

    def __init__(self, state: ProviderState, slicer: WalkSlicer):
        super().__init__(state)
        self.slicer = slicer

    def intern_bytes(self, raw: bytes) -> int:
        return self.slicer._told(super().intern_bytes(raw))

    def intern(self, raw: bytes) -> int:
        return self.slicer._told(super().intern(raw))

    def names_provider(self, pid: int, name: bytes | None) -> None:
        super().names_provider(pid, name)
        self.slicer._tell_providers()

    def switches_provider(self, pid: int) -> None:
        known = len(self.state.providers)
        super().switches_provider(pid)
        if len(self.state.providers) != known:
            self.slicer._tell_providers()


class WalkSlicer(_Slicer):
    """``_Slicer`` whose pieces note what they read on the native walk ``module``."""

    def __init__(self, buf, open_out, cutter: Cutter, scratch, module):
        super().__init__(buf, open_out, cutter, scratch)
        self.module = module
        self.nw = self._walk()
        self._archive_end = False  # (--split-archives: a piece ends at the next archive's magic record)
        source = getattr(self.inp, "source", None)  # a regular file: its bytes sent again from it
        self.src = source.fh.fileno() if source is not None else None
        self.path = source.path if source is not None else "<bytes>"
        kinds, _ = _names()
        self._state_terms = frozenset(t for t, kind in enumerate(kinds) if kind in STATE_KINDS)
        self.ride: Ride | None = None  # the pieces' lint riding the cut (``ride_on``)
        self._at = 0  # the index of the record the pass takes
        self._decoded: list = []  # its decoder's findings
        self._frame: list | None = None  # the piece's bytes but its body's, while it is written for the ride

    def ride_on(self) -> None:
        """Prove the pieces' verdicts on the cut's walk (``_slice_ride``): a --split-size or
        --split-time cut (not a range, not --split-archives)."""
        if self.cutter.ranged or self.cutter.archives:
            return
        self.ride = Ride(self, self.module.ROW_BYTES)
        self.nw.slice_rows = True

    def _walk(self):
        """A native walk over IN's tables as the slicer's ``state`` holds them (a new reader's:
        empty), in slice mode for the cutter."""
        nw = self.module.NativeWalk(_loaded(self.module), _Told(self.state, self), self.big)
        nw.layout = False  # a record the screen flags is the reference's, whole
        nw.magic_at = 0
        nw.slicing = True
        nw.dur_scan = SCAN  # (an end closes what the lint of a piece closes: ``OpenEvents.follow``)
        nw.piece_reset()  # (nothing in a piece yet; it allocates the walk's slice caches)
        nw.set_stop_terms(_stop_terms())
        nw.set_pointer_arg(*_pointer_arg())
        nw.cut_size = self.cutter.size or 0
        nw.set_costs(THREAD_BYTES, END_BYTES["d"], END_BYTES["a"], END_BYTES["f"], UNKNOWN_STRING_BYTES)
        nw.string_cost(0, string_bytes(""))
        nw.extra_base = _FIXED_BYTES + self._providers_bytes()
        nw.span_on = nw.span_wait = self.cutter.span is not None
        if self.cutter.ranged:  # (``_range_run`` sets each run's side)
            nw.span_on = nw.range_on = True
        return nw

    # -- the walk -------------------------------------------------------------------
    def run(self) -> SliceLog:
        inp = self.inp
        if inp.call(lambda b: start_checks(b, _ignore, self.big, False)):
            self.log.not_fxt = True
            return self.log  # not FXT at all (MG005): nothing to cut
        off = idx = 0
        while True:
            nw = self.nw  # (a new one after each archive's magic record, with --split-archives)
            taking = self._range_run() if self.cutter.ranged else True
            nw.hold = self.piece is None and not self.cutter.ranged
            status = _window(nw, inp, off, idx)
            cur, nidx = 8 * nw.cur, nw.index
            counts = nw.take_counts()
            found = nw.take_findings()
            if self.ride is not None:
                if self.piece is not None and self.ride.pairs is not None:
                    self.ride.found(len(found))
                    self.ride.rows(nw, nidx)
                elif nw.pending_rows():
                    nw.take_row_block()
            self.log.records_in += nidx - idx
            if taking:
                self._copy(off, cur)
            else:  # outside the range: left out, as the pass leaves them out (what sets reader state not counted)
                self.log.skipped += sum(n for t, n in counts.items() if t not in self._state_terms)
                inp.release(cur)
            off, idx = cur, nidx
            if status == DONE:
                continue
            if status == END:
                if at_least(inp, cur + 8):
                    continue  # more of IN has come: the walk goes on
                break
            if status == PAST_END and not inp.done:
                at_least(inp, cur + 8 * nw.size)
                continue
            # HANDBACK, ZERO, past IN's end: the record-by-record pass takes it (or stops)
            size = frame(inp, cur, idx, self.big, _ignore)
            if size is None:
                break
            rec, self._decoded = decode(inp, cur, idx, size, self.big)
            self._at = idx
            self._one(rec)
            self._cut_ticks()
            off, idx = rec.end, idx + 1
            inp.release(off)
        if self.piece is not None:
            self._finish()
        return self.log

    def _range_run(self) -> bool:
        """A time range: set the walk's next run on the side of the range the pass is on
        (``Cutter.side``; none yet: before), and say whether the run takes its records.
        Inside, it takes what it walks; before and after, it leaves it out (before, it
        follows what is open; after, nothing), and hands back a record that sets reader
        state while a piece is open (the piece keeps it) and, before the range with a piece
        open, a pairing event (``self.before`` follows it). A timestamp on another side is
        handed back: the pass places it."""
        c, nw = self.cutter, self.nw
        side = c.side or "before"
        take = c._in  # (the last record with a timestamp was inside: taken, so a piece is open)
        nw.take_off = nw.note_off = not take
        nw.follow_off = nw.core_off = side == "after"
        nw.range_state = not take and self.piece is not None
        nw.range_pairs = side == "before" and self.piece is not None
        ticks = [c.side_ticks(side, rate) for rate in nw.slot_rates()]
        nw.set_range_ticks([lo for lo, _ in ticks], [hi for _, hi in ticks])
        return take

    def _copy(self, start: int, end: int) -> None:
        """IN's records from ``start`` to ``end`` (walked: the piece in force holds them) into
        its body, as they are."""
        if end <= start:
            return
        assert self.piece is not None
        if isinstance(self.piece.body, _Body):
            self.piece.body.take(start, end)
            self.inp.release(end)
            return
        inp, put = self.inp, self.piece.body.write
        with memoryview(inp.buf) as view:
            at = start
            while at < end:
                stop = min(at + COPY, end)
                put(view[at:stop])
                at = stop
        inp.release(end)

    def _cut_ticks(self) -> None:
        """--split-time: the walk's cut tick per provider slot, from the cutter's span."""
        c = self.cutter
        if c.span is None:
            return
        self.nw.span_wait = c._next is None
        if c._next is not None:
            # (a tick past 64 bits: the last one, where a record is only handed back)
            self.nw.set_cut_ticks([min(c._span_tick(rate), _LAST) for rate in self.nw.slot_rates()])

    # -- the piece's state, on the walk's ---------------------------------------------
    def _body(self) -> int:
        return self.nw.piece_bytes if self.piece else 0

    def _new_piece(self) -> _Piece:
        opened = self._open_now()
        opened.still_running(self.nw.latest())
        if self.cutter.ranged:
            # the range's first record: what is open is what the records before it left open
            # (after it, those before the range met later are followed by ``_track``)
            self.before = self._open_now(whole=True)
        piece = _Piece(len(self.log.pieces) + 1, opened, self.state.current, dict(self.rates),
                       self.scratch())
        if self.src is not None:
            piece.body = _Body(piece.body, self.src, self.path, self.scratch)  # type: ignore[assignment]
        self.nw.piece_reset()
        if self.ride is not None:
            self.ride.start(self._at)
        self.nw.piece_extra = piece.extra = self._open_bytes(opened, begins=True)
        return piece

    def _count(self, piece: _Piece, size: int, ts: int | None, rate: int) -> None:
        self.nw.took(size, ts is not None, ts or 0, rate)

    def _note_refs(self, rec: Record, piece: _Piece) -> None:
        nw = self.nw
        if rec.kind not in ("metadata.provider_info", "metadata.provider_section"):
            nw.use_provider()
        strings, threads = self._refs(rec)
        for ref in strings:
            nw.use_string(ref)
        for ref, koids in threads:
            nw.use_koids(koids)
            if ref:
                nw.use_thread(ref, *koids)
        for key in self._pointers(rec, threads):
            nw.use_pointer(*key)

    def _object_kept(self, key, nbytes: int) -> None:
        super()._object_kept(key, nbytes)
        if isinstance(key, tuple):
            self.nw.user_object(*key, nbytes)
        else:
            self.nw.object_cost(key, nbytes)

    # -- --split-size: what the walk counts (``_Slicer._overhead``) ------------------------
    def _told(self, gid: int) -> int:
        """Interned string ``gid``'s String record's bytes, told to the walk."""
        self.nw.string_cost(gid, string_bytes(self.state.strings.values[gid]))
        return gid

    def _tell_providers(self) -> None:
        self.nw.extra_base = _FIXED_BYTES + self._providers_bytes()

    def _overhead(self, piece: _Piece) -> int:
        nw = self.nw
        return _FIXED_BYTES + self._providers_bytes() + nw.piece_extra + nw.open_extra

    def _noted_string(self, piece: _Piece, pid, ref: int) -> bool:
        return self.nw.noted_string(ref)

    def _noted_thread(self, piece: _Piece, pid, ref: int) -> bool:
        return self.nw.noted_thread(ref)

    def _noted_koid(self, piece: _Piece, koid: int) -> bool:
        return self.nw.noted_koid(koid)

    def _noted_pointer(self, piece: _Piece, key: tuple) -> bool:
        return self.nw.noted_pointer(*key)

    def _track(self, rec: Record, piece: _Piece | None) -> None:
        nw, state = self.nw, self.state
        change = state.apply(rec)
        if change is not None:
            sync_change(nw, state, change)
            if change.effect == "registers_string" and change.new is not None:
                self._told(change.new)
            elif change.effect in ("names_provider", "switches_provider"):
                self._tell_providers()
            if change.effect == "sets_tick_rate":
                self.rates[change.provider.id] = change.new
            elif piece is not None and change.key:
                nw.registered(change.effect == "registers_thread", change.key)
            if piece is not None and change.effect == "names_provider":
                nw.named_now(change.provider.id)
        if rec.kind == _KERNEL_OBJECT and rec.complete:
            self._keep_kernel_object(rec, piece)
        elif rec.kind == _USER_OBJECT and rec.complete:
            self._keep_user_object(rec, piece)
        side = self.cutter.side if self.cutter.ranged and first_timestamp(rec) is not None else None
        if piece is not None and self.ride is not None and self.ride.pairs is not None:
            self.ride.record(rec, change, self._decoded)
        if side == "after":
            return  # (a range's ends are of what is open at its end, as on the pass)
        if side == "before" and self.piece is not None:
            self.before.see(rec, state)
        parts = OpenEvents.parts(rec, state)
        if parts is not None and parts[0] in _ROLE_KIND:
            role, koids, cat, name, ident = parts
            nw.follow(_ROLE_KIND[role], koids[0], koids[1], self._told(state.strings(cat)),
                      self._told(state.strings(name)), ident)

    def _open_now(self, *, whole: bool = False) -> OpenEvents:
        """What the walk has open, as an ``OpenEvents`` (texts and provider ids); ``whole``:
        to follow on from (every thread it met, in order, and the ends it owes)."""
        text = self.state.text
        nw = self.nw
        durs, asyncs, flows, completes = nw.open_state()
        out = OpenEvents()
        out.durations = {koids: [(text(c), text(n), None, pid) for c, n, pid in stack] for koids, stack in durs
                         if stack or whole}
        out.asyncs = {(pk, text(c), text(n), ident): (koids, None, pid) for (pk, c, n, ident), koids, pid in asyncs}
        out.flows = {ident: (koids, text(c), text(n), pid) for ident, koids, c, n, pid in flows}
        out.completes = {koids: (end, rate, text(c), text(n), pid) for koids, end, rate, c, n, pid in completes}
        if whole:
            owed_d, owed_a, owed_f = nw.owed_state()
            for koids, c, n, count in owed_d:
                out._owed[("d", koids, text(c), text(n))] = count
            for (pk, c, n, ident), count in owed_a:
                out._owed[(pk, text(c), text(n), ident)] = count
            for ident, count in owed_f:
                out._owed[("f", ident)] = count
        return out

    def _one(self, rec: Record) -> None:
        self._archive_end = rec.kind == _MAGIC and self.cutter.archives and self.piece is not None
        try:
            super()._one(rec)
        finally:
            self._archive_end = False

    def _new_reader(self) -> None:
        self._back = self.went_back  # (the walk's own, before a new walk reads the next archive)
        super()._new_reader()
        self.nw = self._walk()

    @property
    def went_back(self) -> bool:
        return self._back or self.nw.went_back

    def _instant(self, ts: int, rate: int) -> None:
        self.nw.instant(ts, rate)  # (one latest instant: the walk's, of the records it walks and those handed back)

    def _write_body(self, piece: _Piece, out) -> None:
        if isinstance(out, _Tee):
            out = out.out  # (the body: not the frame's)
        if isinstance(piece.body, _Body):
            piece.body.write_to(out)
        else:
            _copy_body(piece.body, out)

    def _finish(self) -> None:
        piece = self.piece
        assert piece is not None
        strings, threads, koids, used, named, records, nbytes, first, last = self.nw.piece_state()
        piece.strings, piece.threads, piece.koids, piece.named = strings, threads, koids, named
        piece.pointers = self.nw.piece_pointers()
        piece.providers = {pid: self.state.provider(pid) for pid in used}
        piece.info.records, piece.info.bytes, piece.info.first, piece.info.last = records, nbytes, first, last
        # (an archive's end ends nothing: the reference pass empties what is open first)
        self.open = OpenEvents() if self._archive_end else self._open_now()
        self._frame = [] if self.ride is not None and self.ride.proven else None
        super()._finish()
        if self.ride is not None:
            self.ride.finish(piece, None if self._frame is None else b"".join(self._frame))
        self._frame = None

    def _take(self, rec: Record, data, ts, rate) -> None:
        if data is not None and self.ride is not None:
            self.ride.proven = False  # (re-encoded: its decoder said why)
        super()._take(rec, data, ts, rate)

    def _write_piece(self, piece: _Piece, out) -> None:
        if self._frame is None:
            super()._write_piece(piece, out)
            return
        super()._write_piece(piece, _Tee(out, self._frame))  # type: ignore[arg-type]

