"""Slice, the record-by-record pass (the specification; ``_slice.slice_trace`` picks it or
the native walk's, ``_slice_walk``, which writes the same pieces).

One pass over the input with the recovering reader, in file order. Each record goes
to the piece in force (``Cutter``: a time range, a size or a duration per piece); a
piece's records are written to a temporary body as they come, while the piece notes
what they need of the reader state built before it. When the piece closes it is
written out as: the magic record; per provider it uses, the provider's name, its
Initialization record and exactly the string and thread registrations its records
read before registering them again; the kernel objects that name its processes and
threads and the userspace objects its records point at (a pointer argument naming the
object's pointer in its process), their strings (and process) written inline; a begin,
marked by an argument, for each duration and async operation open when the piece starts
(and a complete event for each thread's complete event still running then, which encloses
the flow events it enclosed: ``OpenEvents.running``);
the body; an end, marked, for each one still open when it ends. Memory is the reader's
tables, the open durations and the kernel and userspace objects seen, never a piece.

Records that only set reader state (strings, threads, providers, the tick rate) are
copied in place inside a piece (a registration changed in the middle of a piece stays
where it was); the piece's prefix holds what it needs from before.

Cuts are times in the trace's own time: a record's instant is its timestamp read through
its provider's tick rate in effect at that record (``spec/_time``, the lint's and the
export's reading), so one cut falls at the same instant in every provider, and a time
range takes every record whose instant is in it wherever it is in the file (an archive
may hold one provider's records after another's: the walk reads to the end). What a cut
begins or ends is written in its own provider's section, in that provider's ticks.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import IO

from ..engine._provider_state import ProviderState
from ..engine._reader import MAGIC_BE, MAGIC_LE, declared_size, detect_byte_order, start_checks
from ..spec._build import arg, event, initialization, provider_info, provider_section, string, thread
from ..spec._encoder import encode_record
from ..spec._errors import FxtError
from ..spec._model import Record
from ..spec._roles import ARG_STRING_REFS, STATE_KINDS, STRING_REFS, THREAD_REFS, TIMESTAMPS
from ..spec._tables import tables
from ..spec._time import DEFAULT_RATE, U64, before, seconds, ticks_at
from ._input import Whole, records
from ._open import _PAIRING, MARK_NAME, OpenEvents, in_a_duration, in_sections

_T = tables()
_INLINE_BIT = _T.string_inline_bit
_KERNEL_OBJECT = "kernel_object"
_USER_OBJECT = "userspace_object"
_POINTER = "pointer"  # the argument a userspace object is referred to by (its value, in its process)
_MAGIC = "metadata.trace_info.magic"
_PROVIDER_KINDS = ("metadata.provider_info", "metadata.provider_section")
_TICK_KIND = "initialization"
_BEGUN_MARK = "begun at the start of this slice: it began before (fxtlint slice)"
_ENDED_MARK = "ended at the end of this slice: it ends after (fxtlint slice)"


def text_bytes(text) -> int:
    """The bytes a text takes inline: its UTF-8 (or its bytes) padded to a word."""
    return -(-len(text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text) // 8) * 8


def string_bytes(text) -> int:
    """The bytes of a String record of ``text``."""
    return 8 + text_bytes(text)


# --split-size: the bytes a piece's file holds besides its body, at most (``_Slicer._overhead``)
THREAD_BYTES = 24  # a Thread record
UNKNOWN_STRING_BYTES = 8 + 32768  # a String record whose text is not known (the longest a header can say)
_FIXED_BYTES = 8 + 16  # the magic record, and two Provider Section records back to the piece's start
_FAMILY = {"begin": "d", "end": "d", "async_begin": "a", "async_end": "a", "flow_begin": "f", "flow_end": "f",
           "complete": "c"}


def _end_bytes() -> dict[str, int]:
    """Per kind of thing open ("d" a duration, "a" an async operation, "f" a flow, "c" a
    complete event still running): the bytes of what a cut writes for it (a flow: inside a
    duration of its own), its category and name empty, the longer mark, and a Provider
    Section record before it."""
    mark = arg("string", MARK_NAME, max(_BEGUN_MARK, _ENDED_MARK, key=len))

    def size(recs) -> int:
        return 8 + sum(len(encode_record(r, "little")) for r in recs)

    flow = event("flow_end", 0, thread=(1, 2), category="", name="", id=1, args=(mark,))
    return {"d": size([event("duration_end", 0, thread=(1, 2), category="", name="", args=(mark,))]),
            "a": size([event("async_end", 0, thread=(1, 2), category="", name="", id=1, args=(mark,))]),
            "f": size(in_a_duration(flow, mark)),
            "c": size([event("duration_complete", 0, thread=(1, 2), category="", name="", args=(mark,))])}


END_BYTES = _end_bytes()


def end_bytes(role: str, cat, name) -> int:
    """The bytes a cut writes, at most, for a thing open whose begin or end has ``role``."""
    return END_BYTES[_FAMILY[role]] + text_bytes(cat or "") + text_bytes(name or "")


def first_timestamp(rec: Record) -> int | None:
    names = TIMESTAMPS.get(rec.kind, ())
    return rec.fields.get(names[0]) if names and rec.complete else None


Instant = tuple[int, int]  # (ticks, the tick rate of its provider in effect at its record)


def _earlier(a: Instant | None, b: Instant) -> Instant:
    return b if a is None or before(*b, *a) else a


def _later(a: Instant | None, b: Instant) -> Instant:
    return b if a is None or before(*a, *b) else a


@dataclass(frozen=True)
class TimeRange:
    """A trace's time: its first and last instants across every provider (each timestamp
    read through its provider's tick rate at its record), and the rates its timestamps
    were read at."""

    first: Instant
    last: Instant
    rates: tuple[int, ...]

    @property
    def start(self) -> Fraction:
        """The trace's start, in seconds of its own time (``seconds`` of its first instant)."""
        return seconds(*self.first)

    @property
    def end(self) -> Fraction:
        return seconds(*self.last)


def time_range(buf) -> TimeRange | None:
    """The time range of ``buf``'s records (bytes, or an ``Input``: read through once;
    ``restart`` it for the next pass), None when it has no timestamp."""
    first = last = None
    rates: set = set()
    inp = buf if isinstance(buf, Whole) else Whole(buf)
    big = inp.call(detect_byte_order) == "big"
    state = ProviderState()
    for rec in records(inp, big=big):
        state.apply(rec)
        ts = first_timestamp(rec)
        if ts is None:
            continue
        rate = state.current.rate
        rates.add(rate)
        first, last = _earlier(first, (ts, rate)), _later(last, (ts, rate))
    if first is None or last is None:
        return None
    return TimeRange(first, last, tuple(sorted(rates)))


def _ignore(d) -> None:
    pass


@dataclass
class Cutter:
    """Which piece a record goes to, by its instant: its timestamp read through the tick
    rate of its provider in effect at that record (``spec/_time``), so a cut is one time
    for every provider. ``start``/``end``: the time range, in seconds of the trace's own
    time (records whose instant is outside it are left out, those without a timestamp
    follow the record before, and records that set reader state are kept once the piece
    is open, so the records after them read as they did); ``size``: a new piece when the
    next record would make the piece's file larger (bytes: its body and, at most, what
    is written around it, ``_Slicer._overhead``); ``span``: a new piece at the first
    record at least ``span`` seconds after the piece's first instant."""

    start: Fraction | None = None
    end: Fraction | None = None
    size: int | None = None
    span: Fraction | None = None
    archives: bool = False  # a new piece at each magic record after the first: one per concatenated archive
    side: str | None = None  # where the last record with a timestamp was: before, inside, after the range
    _in: bool = False
    _next: Fraction | None = None  # span: when the next piece starts
    _bounds: dict = field(default_factory=dict)  # rate -> (first tick inside, last tick inside) / next piece's tick

    @property
    def ranged(self) -> bool:
        return self.start is not None or self.end is not None

    def place(self, rec: Record, ts: int | None, rate: int, body: int, piece_open: bool,
              written: int | None = None) -> str:
        """"skip", "same" (the piece in force) or "new" (close it, open the next) for
        ``rec``, whose timestamp (None: none) is ``ts`` ticks at ``rate``; ``written``: at
        most the bytes of the piece's file with ``rec`` in it (None: its body's)."""
        if self.ranged:
            if ts is not None:
                self.side = self._side(ts, rate)
                self._in = self.side == "inside"
            elif piece_open and rec.kind in STATE_KINDS:
                return "same"
            return "same" if self._in else "skip"
        if self.size is not None and body and \
                (body + 8 * rec.size_words if written is None else written) > self.size:
            return "new"
        if self.span is not None and ts is not None:
            if self._next is None:
                self._start_span(ts, rate)
            elif body and ts >= self._span_tick(rate):
                self._start_span(ts, rate)
                return "new"
        return "same"

    def _side(self, ts: int, rate: int) -> str:
        lo, hi = self._range_ticks(rate)
        if lo is not None and ts < lo:
            return "before"
        if hi is not None and ts > hi:
            return "after"
        return "inside"

    def _range_ticks(self, rate: int) -> tuple[int | None, int | None]:
        """The range's first and last tick at ``rate`` (None: it has no such end)."""
        bounds = self._bounds.get(rate)
        if bounds is None:  # t / rate >= start <=> t >= ceil(start * rate); <= end <=> t <= floor(end * rate)
            bounds = self._bounds[rate] = (None if self.start is None else ticks_at(self.start, rate, up=True),
                                           None if self.end is None else ticks_at(self.end, rate))
        return bounds

    def side_ticks(self, side: str, rate: int) -> tuple[int, int]:
        """The first and last 64-bit timestamp at ``rate`` that ``place`` reads as ``side``
        ("before", "inside", "after") of the range (first > last: none): the native walk
        hands back a record outside them (``_slice_walk``)."""
        lo, hi = self._range_ticks(rate)
        if side == "before":
            first, last = (1, 0) if lo is None else (0, lo - 1)
        elif side == "inside":
            first, last = 0 if lo is None else lo, U64 - 1 if hi is None else hi
        else:  # (a timestamp before the range's first tick is before it, even past its last)
            first, last = (1, 0) if hi is None else (hi + 1 if lo is None else max(hi + 1, lo), U64 - 1)
        first, last = max(first, 0), min(last, U64 - 1)
        return (first, last) if first <= last else (1, 0)

    def _start_span(self, ts: int, rate: int) -> None:
        assert self.span is not None
        self._next = seconds(ts, rate) + self.span
        self._bounds = {}

    def _span_tick(self, rate: int) -> int:
        tick = self._bounds.get(rate)
        if tick is None:
            assert self._next is not None
            tick = self._bounds[rate] = ticks_at(self._next, rate, up=True)
        return tick


@dataclass
class PieceInfo:
    """What one piece holds: records copied, records written for it, bytes, its first and
    last instants (ticks, rate)."""

    index: int
    records: int = 0
    added: int = 0
    bytes: int = 0
    first: Instant | None = None
    last: Instant | None = None


@dataclass
class SliceLog:
    pieces: list[PieceInfo] = field(default_factory=list)
    records_in: int = 0
    skipped: int = 0
    not_fxt: bool = False
    # an instant went back in the file and IN could not be read again (a pipe): what is
    # open at a cut was followed in file order, not as the lint pairs (``_order``)
    file_order: bool = False
    # the pieces' verdicts where the cut's walk proved them (``_slice_ride``): per piece (0, 0)
    # or None (its file to be linted); None: none ridden. Not compared: how, not what, was cut
    verdicts: list | None = field(default=None, compare=False)


class _Piece:
    def __init__(self, index: int, opened: OpenEvents, current, rates: dict, body: IO[bytes]):
        self.info = PieceInfo(index)
        self.body = body
        self.strings: dict = {}  # provider id -> {index: interned id} read before registered in the piece
        self.threads: dict = {}  # provider id -> {index: koids}
        self.registered: set = set()  # (provider id, "s"/"t", index) registered inside the piece
        self.koids: set = set()  # process and thread koids its records name
        self.providers: dict = {}  # provider id -> Provider, in order of first use
        self.own_objects: set = set()  # koids of the kernel objects the piece holds
        self.pointers: set = set()  # (process koid, pointer) of the userspace objects its records refer to
        self.own_users: set = set()  # (process koid, pointer) of the userspace objects the piece holds
        self.named: set = set()  # providers whose Provider Info record the piece holds before using them
        self.extra = 0  # bytes of what its prefix writes for what it reads, and of what it begins (``_overhead``)
        self.start_provider = current
        self.rates = rates  # provider id -> its Initialization record's rate when the piece started
        self.opened = opened  # what was open when the piece started

    def close(self) -> None:
        self.body.close()


class _Slicer:
    def __init__(self, buf, open_out: Callable[[int], IO[bytes]], cutter: Cutter, scratch: Callable[[], IO[bytes]]):
        self.inp = buf if isinstance(buf, Whole) else Whole(buf)
        self.scratch = scratch
        self.big = self.inp.call(detect_byte_order) == "big"
        self.order = "big" if self.big else "little"
        self.open_out = open_out
        self.cutter = cutter
        self.state = ProviderState()
        self.rates: dict = {}  # provider id -> its Initialization record's rate
        self.kernel_objects: dict = {}  # koid -> (provider id, its last kernel object record, strings inline)
        # (process koid, pointer) -> (provider id, its last userspace object record, strings and process inline)
        self.user_objects: dict = {}
        self.object_bytes: dict = {}  # koid or (process koid, pointer) -> its object's bytes in a prefix
        self.open = OpenEvents()  # what is open: every record (a range: the records up to its end)
        self.before = OpenEvents()  # a range: what is open at its start (the records before it)
        self.log = SliceLog()
        self.piece: _Piece | None = None
        self._back = False  # an instant came before one read earlier (``_instant``)
        self._latest: tuple | None = None  # the latest instant read

    # -- the walk ------------------------------------------------------------------
    def run(self) -> SliceLog:
        if self.inp.call(lambda b: start_checks(b, _ignore, self.big, False)):
            self.log.not_fxt = True
            return self.log  # not FXT at all (MG005): nothing to cut
        for rec in records(self.inp, big=self.big):
            self._one(rec)
        if self.piece is not None:
            self._finish()
        return self.log

    def _one(self, rec: Record) -> None:
        """Place ``rec`` (the piece in force, a new one, or none) and take it."""
        self.log.records_in += 1
        if rec.kind == _MAGIC:
            if self.cutter.archives and self.piece is not None:
                # another archive starts: the one before ends as written (nothing of it is
                # ended or carried on), and the next is read by a new reader, as its own file is
                self._end_archive()
                self._finish()
                self._new_reader()
            return
        data = None
        if declared_size(self._word(rec.offset)) != rec.size_words:
            # the reader framed it by its content: its bytes do not frame alone, its encoding does
            try:
                data = encode_record(rec, self.order)
            except FxtError:
                self.log.skipped += 1
                self._track(rec, None)  # what it registers, a prefix writes for the records reading it
                return
        ts = first_timestamp(rec)
        rate = self.state.current.rate  # its provider's, in effect at it (a record with a timestamp sets none)
        if ts is not None:
            self._instant(ts, rate)
        written = None
        if self.cutter.size is not None and self.piece is not None:
            written = self._body() + (8 * rec.size_words if data is None else len(data)) + \
                self._overhead(self.piece) + self._adds(rec, self.piece)
        where = self.cutter.place(rec, ts, rate, self._body(), self.piece is not None, written)
        if where == "new" and self.piece is not None:
            self._finish()
        if where == "skip":
            self.log.skipped += rec.kind not in STATE_KINDS
            self._track(rec, None)
            return
        if self.piece is None:
            self.piece = self._new_piece()
        self._take(rec, data, ts, rate)

    def _end_archive(self) -> None:
        """An archive ends (--split-archives): what it leaves open is not ended."""
        self.open = OpenEvents()

    def _instant(self, ts: int, rate: int) -> None:
        """A record's instant, in file order: ``went_back`` once one comes before one read
        earlier (of this reader's), where file order is not the order the lint pairs in."""
        latest = self._latest
        if latest is not None and before(ts, rate, latest[0], latest[1]):
            self._back = True
        elif latest is None or before(latest[0], latest[1], ts, rate):
            self._latest = (ts, rate)

    @property
    def went_back(self) -> bool:
        """Whether an instant came before one read earlier in the file (in one archive)."""
        return self._back

    def _body(self) -> int:
        """The bytes of the records the piece in force holds (0: no piece)."""
        return self.piece.info.bytes if self.piece else 0

    def _new_piece(self) -> _Piece:
        opened = self.open.snapshot()
        opened.still_running(self._latest)  # (a complete event that ended before: no piece from here needs it)
        piece = _Piece(len(self.log.pieces) + 1, opened, self.state.current, dict(self.rates), self.scratch())
        piece.extra = self._open_bytes(piece.opened, begins=True)
        return piece

    # -- --split-size: the bytes of a piece's file besides its body, at most ----------------
    def _overhead(self, piece: _Piece) -> int:
        """At most the bytes ``piece``'s file holds besides its body, were it written now: the
        magic record; every provider's Provider Info record and Initialization record; per
        string, thread and object its records read from before it, its record (and a
        section), each counted as it is first noted; a begin of what was open at its start
        and an end of what is open now (``end_bytes``, a section each); sections back."""
        return _FIXED_BYTES + self._providers_bytes() + piece.extra + self._open_bytes(self.open)

    def _providers_bytes(self) -> int:
        return sum(16 + (0 if pid is None else 8 + text_bytes(p.name or ""))
                   for pid, p in self.state.providers.items())

    @staticmethod
    def _open_bytes(opened: OpenEvents, *, begins: bool = False) -> int:
        """What a cut writes for what is open in ``opened``: an end (or with ``begins``, a
        begin) of each thing open, and with ``begins`` a stand-in of each complete event it
        follows (``OpenEvents.running``: at most those)."""
        n = sum(end_bytes("begin", cat, name) for _, cat, name, _, _ in opened.open_durations())
        n += sum(end_bytes("async_begin", cat, name) for _, cat, name, _ in opened.asyncs)
        if begins:
            n += sum(end_bytes("complete", cat, name) for _, _, cat, name, _ in opened.completes.values())
        return n + sum(end_bytes("flow_begin", cat, name) for _, cat, name, _ in opened.flows.values())

    # the pairing roles whose record a cut may give a stand-in for its other member: in file
    # order, a begin (its end is written at the cut)
    _STANDING_IN: frozenset = frozenset(("begin", "async_begin", "flow_begin"))

    def _adds(self, rec: Record, piece: _Piece) -> int:
        """At most the bytes ``rec`` adds to ``_overhead`` of ``piece`` (taken into it): the
        entries it notes first, an end for what it begins; a provider record, its own bytes
        and an Initialization record's."""
        if rec.kind in _PROVIDER_KINDS:
            return 8 * rec.size_words + 24
        p = self.state.current
        strings, threads = self._refs(rec)
        n = 0
        for ref in dict.fromkeys(strings):
            if ref in p.strings and not self._noted_string(piece, p.id, ref):
                n += string_bytes(self.state.strings.values[p.strings[ref]])
        koids: set = set()
        for _, pair in threads:
            koids.update(k for k in pair if not self._noted_koid(piece, k))
        for ref in dict.fromkeys(ref for ref, _ in threads if ref):
            if not self._noted_thread(piece, p.id, ref):
                n += THREAD_BYTES
        n += sum(self.object_bytes.get(k, 0) for k in koids)
        n += sum(self.object_bytes.get(key, 0) for key in set(self._pointers(rec, threads))
                 if not self._noted_pointer(piece, key))
        role = _PAIRING.get(rec.kind)
        if role is not None and role in self._STANDING_IN:
            parts = OpenEvents.parts(rec, self.state)
            if parts is not None:
                n += end_bytes(role, parts[2], parts[3])
        return n

    def _noted_string(self, piece: _Piece, pid, ref: int) -> bool:
        return (pid, "s", ref) in piece.registered or ref in piece.strings.get(pid, ())

    def _noted_thread(self, piece: _Piece, pid, ref: int) -> bool:
        return (pid, "t", ref) in piece.registered or ref in piece.threads.get(pid, ())

    def _noted_koid(self, piece: _Piece, koid: int) -> bool:
        return koid in piece.koids

    def _noted_pointer(self, piece: _Piece, key: tuple) -> bool:
        return key in piece.pointers

    def _new_reader(self) -> None:
        self.state = ProviderState()
        self.rates = {}
        self.kernel_objects = {}
        self.user_objects = {}
        self.object_bytes = {}
        self.open = OpenEvents()
        self.before = OpenEvents()
        self._latest = None

    def _word(self, at: int) -> int:
        return struct.unpack_from(">Q" if self.big else "<Q", self.inp.buf, at)[0]

    def _take(self, rec: Record, data: bytes | None, ts: int | None, rate: int) -> None:
        piece = self.piece
        assert piece is not None
        self._note_refs(rec, piece)
        if data is None:
            data = bytes(self.inp.buf[rec.offset : rec.end])
        piece.body.write(data)
        self._count(piece, len(data), ts, rate)
        self._track(rec, piece)

    def _count(self, piece: _Piece, size: int, ts: int | None, rate: int) -> None:
        """A record of ``size`` bytes (its instant ``ts`` at ``rate``) written to the piece's body."""
        piece.info.bytes += size
        piece.info.records += 1
        if ts is not None:
            piece.info.first = _earlier(piece.info.first, (ts, rate))
            piece.info.last = _later(piece.info.last, (ts, rate))

    def _refs(self, rec: Record) -> tuple[list, list]:
        """What ``rec`` reads of the tables: its string refs to a table (not 0, not inline),
        and (thread ref, koids) of each thread ref that resolves."""
        if rec.kind in STATE_KINDS or not rec.complete:
            return [], []
        refs = [rec.fields.get(n, 0) for n in STRING_REFS.get(rec.kind, ())]
        for a in rec.args:
            refs += [a.fields.get(n, 0) for n in ARG_STRING_REFS.get(a.kind, ())]
        threads = []
        for name in THREAD_REFS.get(rec.kind, ()):
            koids = self.state.thread(rec, name)
            if koids is not None:
                threads.append((rec.fields.get(name, 0), koids))
        return [ref for ref in refs if ref and not ref & _INLINE_BIT], threads

    def _note_refs(self, rec: Record, piece: _Piece) -> None:
        """What ``rec`` reads of the tables as they stand before it."""
        p = self.state.current
        if rec.kind not in _PROVIDER_KINDS and p.id not in piece.named:
            piece.providers.setdefault(p.id, p)
        strings, threads = self._refs(rec)
        for ref in strings:
            if (p.id, "s", ref) not in piece.registered and ref in p.strings:
                noted = piece.strings.setdefault(p.id, {})
                if ref not in noted:
                    noted[ref] = p.strings[ref]
                    piece.extra += string_bytes(self.state.strings.values[p.strings[ref]])
        for ref, koids in threads:
            for k in koids:
                if k not in piece.koids:
                    piece.koids.add(k)
                    piece.extra += self.object_bytes.get(k, 0)
            if ref and (p.id, "t", ref) not in piece.registered:
                noted = piece.threads.setdefault(p.id, {})
                if ref not in noted:
                    noted[ref] = koids
                    piece.extra += THREAD_BYTES
        for key in self._pointers(rec, threads):
            if key not in piece.pointers:
                piece.pointers.add(key)
                piece.extra += self.object_bytes.get(key, 0)

    def _pointers(self, rec: Record, threads: list) -> list:
        """(process koid, pointer) of each pointer argument of ``rec`` naming a userspace
        object kept (its process: that of ``rec``'s first thread ref that resolves)."""
        if not self.user_objects or not threads:
            return []
        process = threads[0][1][0]
        keys = [(process, a.fields.get("value", 0)) for a in rec.args if a.kind == _POINTER]
        return [key for key in keys if key in self.user_objects]

    def _track(self, rec: Record, piece: _Piece | None) -> None:
        """Carry out ``rec``'s effect on the tables, and follow what is open."""
        change = self.state.apply(rec)
        if change is not None:
            if change.effect == "sets_tick_rate":
                self.rates[change.provider.id] = change.new
            elif piece is not None and change.key:
                kind = "s" if change.effect == "registers_string" else "t"
                piece.registered.add((change.provider.id, kind, change.key))
            if piece is not None and change.effect == "names_provider" and change.provider.id not in piece.providers:
                piece.named.add(change.provider.id)  # named in the piece before it was used: its own info
        if rec.kind == _KERNEL_OBJECT and rec.complete:
            self._keep_kernel_object(rec, piece)
        elif rec.kind == _USER_OBJECT and rec.complete:
            self._keep_user_object(rec, piece)
        self._follow(rec)

    def _follow(self, rec: Record) -> None:
        """Follow what is open, in file order (``_order.OrderedSlicer``: as the lint pairs)."""
        side = self.cutter.side if self.cutter.ranged and first_timestamp(rec) is not None else None
        if side != "after":  # a range's ends are of what is open at its end, wherever the rest of the file is
            self.open.see(rec, self.state)
        if side == "before":
            self.before.see(rec, self.state)

    def _keep_kernel_object(self, rec: Record, piece: _Piece | None) -> None:
        """A complete kernel object record: the piece's own, and kept (its strings inline,
        with the provider whose section it was in) for the pieces after that refer to its koid."""
        if piece is not None:
            piece.own_objects.add(rec.fields.get("koid", 0))
        inline = self._inlined(rec)
        if inline is not None:
            koid = rec.fields.get("koid", 0)
            self.kernel_objects[koid] = (self.state.current.id, inline)
            self._object_kept(koid, 8 + len(encode_record(inline, self.order)))

    def _object_kept(self, key, nbytes: int) -> None:
        """An object kept under ``key`` (a koid, or a userspace object's (process koid,
        pointer)) takes ``nbytes`` in a prefix (its record, and a section before it)."""
        self.object_bytes[key] = nbytes

    def _keep_user_object(self, rec: Record, piece: _Piece | None) -> None:
        """A complete userspace object record: the piece's own, and kept (its strings and
        process inline, with the provider whose section it was in) for the pieces after that
        refer to its pointer in its process."""
        koids = self.state.thread(rec, "process")
        if koids is None:
            return
        key = (koids[0], rec.fields.get("pointer", 0))
        if piece is not None:
            piece.own_users.add(key)
        inline = self._inlined(rec)
        if inline is not None:
            fields = {**inline.fields, "process": 0, "process_koid": koids[0]}
            kept = dataclasses.replace(inline, fields=fields)
            self.user_objects[key] = (self.state.current.id, kept)
            self._object_kept(key, 8 + len(encode_record(kept, self.order)))

    def _inlined(self, rec: Record) -> Record | None:
        """``rec`` with its indexed strings written inline (None when one is not registered)."""
        strings = dict(rec.strings)
        fields = dict(rec.fields)
        for name in STRING_REFS.get(rec.kind, ()):
            text = self.state.string(rec.fields, rec.strings, name)
            if text is None:
                return None
            strings[name] = text
        args = []
        for a in rec.args:
            a_strings = dict(a.strings)
            for name in ARG_STRING_REFS.get(a.kind, ()):
                text = self.state.string(a.fields, a.strings, name)
                if text is None:
                    return None
                a_strings[name] = text
            args.append(dataclasses.replace(a, strings=a_strings))
        return dataclasses.replace(rec, fields=fields, strings=strings, args=tuple(args))

    # -- writing a piece -------------------------------------------------------------
    def _finish(self) -> None:
        piece = self.piece
        assert piece is not None
        self.piece = None
        if self.cutter.ranged:  # what is open at the range's start: every record before it seen, in any order
            piece.opened = self.before
        try:
            out = self.open_out(piece.info.index)
            try:
                self._write_piece(piece, out)
            finally:
                out.close()
        finally:
            piece.close()
        self.log.pieces.append(piece.info)

    def _write_piece(self, piece: _Piece, out: IO[bytes]) -> None:
        put = out.write
        info = piece.info
        put(MAGIC_BE if self.big else MAGIC_LE)
        added = 0
        for rec in self._prefix(piece):
            put(encode_record(rec, self.order))
            added += 1
        # what a cut leaves open is begun at the piece's first instant and ended at its last,
        # each in its own provider's section at that provider's rate (begun at or before,
        # ended at or after: no record of the piece falls outside its own events)
        start = seconds(*info.first) if info.first is not None else Fraction(0)
        end = seconds(*info.last) if info.last is not None else start
        begins = piece.opened.begins(start, lambda pid: piece.rates.get(pid, DEFAULT_RATE),
                                     arg("string", MARK_NAME, _BEGUN_MARK))
        for rec in in_sections(begins, piece.start_provider.id, end_in=piece.start_provider.id):
            put(encode_record(rec, self.order))
            added += 1
        self._write_body(piece, out)
        ends = self.open.ends(end, lambda pid: self.state.provider(pid).rate, arg("string", MARK_NAME, _ENDED_MARK))
        for rec in in_sections(((pid, rec) for pid, rec, _ in ends), self.state.current.id):
            put(encode_record(rec, self.order))
            added += 1
        info.added = added

    def _write_body(self, piece: _Piece, out: IO[bytes]) -> None:
        _copy_body(piece.body, out)

    def _prefix(self, piece: _Piece) -> Iterator[Record]:
        """The state records the piece needs from before it, the provider in force at its
        start written last (a provider never named is the reader's first: nothing to write)."""
        start = piece.start_provider
        order = [pid for pid in piece.providers if pid != start.id and pid is not None]
        # the providers of what the cut begins (before the body) and ends (after it), which
        # the piece's own records may not use: their sections and rates come first too
        cut = [*piece.opened.providers(), *(pid for pid in self.open.providers() if pid not in piece.named)]
        order += [pid for pid in dict.fromkeys(cut) if pid not in piece.providers and pid != start.id
                  and pid is not None]
        # the kernel objects naming its processes and threads, each in the section of the
        # provider it came from (one the piece names itself before using it, or the reader's
        # first: in the section in force at the piece's start)
        objects = [ko for ko in (self.kernel_objects.get(k) for k in sorted(piece.koids - piece.own_objects)) if ko]
        # and the userspace objects its records refer to (a pointer argument, in its process)
        objects += [uo for uo in (self.user_objects.get(k) for k in sorted(piece.pointers - piece.own_users)) if uo]
        objects = [(pid if pid is not None and pid not in piece.named else start.id, rec) for pid, rec in objects]
        first = {pid: n for n, pid in enumerate(dict.fromkeys(pid for pid, _ in objects))}
        objects.sort(key=lambda o: first[o[0]])  # (grouped by provider: one section record each)
        order += [pid for pid in dict.fromkeys(pid for pid, _ in objects)
                  if pid not in order and pid != start.id and pid is not None]
        if start.id is not None:
            order.append(start.id)
        if start.id is None:
            yield from self._tables_of(None, piece)
        for pid in order:
            p = self.state.provider(pid)
            yield provider_info(pid, p.name) if pid in self.state.announced and p.name is not None \
                else provider_section(pid)
            yield from self._tables_of(pid, piece)
        yield from in_sections(objects, start.id, end_in=start.id)  # (then back to the start's provider)

    def _tables_of(self, pid, piece: _Piece) -> Iterator[Record]:
        if pid in piece.rates:
            yield initialization(piece.rates[pid])
        for index, gid in sorted(piece.strings.get(pid, {}).items()):
            yield string(index, self.state.strings.values[gid])
        for index, (process, thread_koid) in sorted(piece.threads.get(pid, {}).items()):
            yield thread(index, process, thread_koid)


def _copy_body(body: IO[bytes], out: IO[bytes]) -> None:
    """A piece's body (its scratch, written through) after what ``out`` holds: copied by the
    kernel where both are files (``os.sendfile``: no pass through Python's buffers), else
    a megabyte at a time."""
    body.flush()
    size = body.seek(0, 2)
    body.seek(0)
    try:
        src = body.fileno()
    except (AttributeError, OSError, ValueError):  # (io.BytesIO has no file behind it)
        shutil.copyfileobj(body, out, 1 << 20)
        return
    send_range(out, src, 0, size)


def send_range(out: IO[bytes], src: int, offset: int, size: int) -> int:
    """The ``size`` bytes of the file ``src`` from ``offset`` written to ``out``, by the
    kernel where ``out`` is a file (``os.sendfile``), else read and written a megabyte at
    a time. Returns the bytes written: fewer when the file ends first."""
    try:
        dst = out.fileno()
    except (AttributeError, OSError, ValueError):
        dst = None
    sent = 0
    if dst is not None:
        out.flush()
        try:
            while sent < size:
                n = os.sendfile(dst, src, offset + sent, min(size - sent, 1 << 30))
                if n == 0:
                    break
                sent += n
        except OSError:
            if sent:
                raise
            dst = None  # (a kernel without file-to-file sendfile)
        else:
            out.seek(0, 2)  # (sendfile wrote past the file object's position: its own writes go after)
            return sent
    while sent < size:
        chunk = os.pread(src, min(size - sent, 1 << 20), offset + sent)
        if not chunk:
            break
        out.write(chunk)
        sent += len(chunk)
    return sent
