"""Slice: pieces of a trace that each open on their own.

One pass over the input with the recovering reader, in file order. Each record goes
to the piece in force (``Cutter``: a time range, a size or a duration per piece); a
piece's records are written to a temporary body as they come, while the piece notes
what they need of the reader state built before it. When the piece closes it is
written out as: the magic record; per provider it uses, the provider's name, its
Initialization record and exactly the string and thread registrations its records
read before registering them again; the kernel objects that name its processes and
threads (their strings written inline); a begin, marked by an argument, for each
duration and async operation open when the piece starts; the body; an end, marked,
for each one still open when it ends. Memory is the reader's tables, the open
durations and the kernel objects seen, never a piece.

Records that only set reader state (strings, threads, providers, the tick rate) are
copied in place inside a piece (a registration changed in the middle of a piece stays
where it was); the piece's prefix holds what it needs from before.
"""

from __future__ import annotations

import dataclasses
import io
import shutil
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO

from ..engine._provider_state import NS_PER_S, ProviderState
from ..engine._reader import MAGIC_BE, MAGIC_LE, declared_size, detect_byte_order, start_checks, walk_records
from ..spec._build import arg, initialization, provider_info, provider_section, string, thread
from ..spec._encoder import encode_record
from ..spec._errors import FxtError
from ..spec._model import Record
from ..spec._roles import ARG_STRING_REFS, STATE_KINDS, STRING_REFS, THREAD_REFS, TIMESTAMPS
from ..spec._tables import tables
from ._open import MARK_NAME, OpenEvents

_T = tables()
_INLINE_BIT = _T.string_inline_bit
_KERNEL_OBJECT = "kernel_object"
_MAGIC = "metadata.trace_info.magic"
_PROVIDER_KINDS = ("metadata.provider_info", "metadata.provider_section")
_TICK_KIND = "initialization"
_BEGUN_MARK = "begun at the start of this slice: it began before (fxtlint slice)"
_ENDED_MARK = "ended at the end of this slice: it ends after (fxtlint slice)"


def first_timestamp(rec: Record) -> int | None:
    names = TIMESTAMPS.get(rec.kind, ())
    return rec.fields.get(names[0]) if names and rec.complete else None


def time_range(buf) -> tuple[int, int, int] | None:
    """(first, last timestamp in ticks, ticks per second of the first provider with a
    rate) of ``buf``'s records, None when it has no timestamp."""
    lo = hi = None
    rate = None
    big = detect_byte_order(buf) == "big"
    for rec in walk_records(buf, _ignore, big=big, check_magic=False):
        if rec.kind == _TICK_KIND and rate is None and rec.complete and rec.fields.get("ticks_per_second"):
            rate = rec.fields["ticks_per_second"]
        ts = first_timestamp(rec)
        if ts is None:
            continue
        lo = ts if lo is None or ts < lo else lo
        hi = ts if hi is None or ts > hi else hi
    if lo is None or hi is None:
        return None
    return lo, hi, rate or NS_PER_S


def _ignore(d) -> None:
    pass


@dataclass
class Cutter:
    """Which piece a record goes to. ``start``/``end``: the time range in ticks (records
    with a timestamp outside it are left out, those without follow the record before);
    ``size``: a new piece when the next record would make the body larger (bytes);
    ``span``: a new piece at the first timestamp ``span`` ticks after the piece's first."""

    start: int | None = None
    end: int | None = None
    size: int | None = None
    span: int | None = None
    _in: bool = False
    _first_ts: int | None = None

    def place(self, rec: Record, body: int) -> str:
        """"skip", "same" (the piece in force), "new" (close it, open the next) or "stop"
        (a range's piece ends at the first timestamp after it)."""
        ts = first_timestamp(rec)
        if self.start is not None or self.end is not None:
            if ts is not None:
                if self.end is not None and ts > self.end:
                    return "stop"
                self._in = self.start is None or ts >= self.start
            return "same" if self._in else "skip"
        if self.size is not None and body and body + 8 * rec.size_words > self.size:
            self._first_ts = ts
            return "new"
        if self.span is not None and ts is not None:
            if self._first_ts is None:
                self._first_ts = ts
            elif ts >= self._first_ts + self.span and body:
                self._first_ts = ts
                return "new"
        return "same"


@dataclass
class PieceInfo:
    """What one piece holds: records copied, records written for it, bytes, time span."""

    index: int
    records: int = 0
    added: int = 0
    bytes: int = 0
    first_ts: int | None = None
    last_ts: int | None = None


@dataclass
class SliceLog:
    pieces: list[PieceInfo] = field(default_factory=list)
    records_in: int = 0
    skipped: int = 0
    not_fxt: bool = False


class _Piece:
    def __init__(self, index: int, opened: OpenEvents, current, body: IO[bytes]):
        self.info = PieceInfo(index)
        self.body = body
        self.strings: dict = {}  # provider id -> {index: interned id} read before registered in the piece
        self.threads: dict = {}  # provider id -> {index: koids}
        self.registered: set = set()  # (provider id, "s"/"t", index) registered inside the piece
        self.koids: set = set()  # process and thread koids its records name
        self.providers: dict = {}  # provider id -> Provider, in order of first use
        self.own_objects: set = set()  # koids of the kernel objects the piece holds
        self.named: set = set()  # providers whose Provider Info record the piece holds before using them
        self.start_provider = current
        self.opened = opened  # what was open when the piece started

    def close(self) -> None:
        self.body.close()


class _Slicer:
    def __init__(self, buf, open_out: Callable[[int], IO[bytes]], cutter: Cutter, scratch: Callable[[], IO[bytes]]):
        self.buf = buf
        self.scratch = scratch
        self.big = detect_byte_order(buf) == "big"
        self.order = "big" if self.big else "little"
        self.open_out = open_out
        self.cutter = cutter
        self.state = ProviderState()
        self.rates: dict = {}  # provider id -> its Initialization record's rate
        self.kernel_objects: dict = {}  # koid -> its last kernel object record, strings inline
        self.open = OpenEvents()
        self.log = SliceLog()
        self.piece: _Piece | None = None

    # -- the walk ------------------------------------------------------------------
    def run(self) -> SliceLog:
        if start_checks(self.buf, _ignore, self.big, False):
            self.log.not_fxt = True
            return self.log  # not FXT at all (MG005): nothing to cut
        for rec in walk_records(self.buf, _ignore, big=self.big, check_magic=False):
            self.log.records_in += 1
            if rec.kind == _MAGIC:
                continue
            data = None
            if declared_size(self._word(rec.offset)) != rec.size_words:
                # the reader framed it by its content: its bytes do not frame alone, its encoding does
                try:
                    data = encode_record(rec, self.order)
                except FxtError:
                    self.log.skipped += 1
                    self._track(rec, None)  # what it registers, a prefix writes for the records reading it
                    continue
            where = self.cutter.place(rec, self.piece.info.bytes if self.piece else 0)
            if where == "stop":
                break
            if where == "new" and self.piece is not None:
                self._finish()
            if where == "skip":
                self.log.skipped += rec.kind not in STATE_KINDS
                self._track(rec, None)
                continue
            if self.piece is None:
                self.piece = _Piece(len(self.log.pieces) + 1, self.open.snapshot(), self.state.current,
                                    self.scratch())
            self._take(rec, data)
        if self.piece is not None:
            self._finish()
        return self.log

    def _word(self, at: int) -> int:
        return struct.unpack_from(">Q" if self.big else "<Q", self.buf, at)[0]

    def _take(self, rec: Record, data: bytes | None = None) -> None:
        piece = self.piece
        assert piece is not None
        self._note_refs(rec, piece)
        if data is None:
            data = bytes(self.buf[rec.offset : rec.end])
        piece.body.write(data)
        piece.info.bytes += len(data)
        piece.info.records += 1
        ts = first_timestamp(rec)
        if ts is not None:
            piece.info.first_ts = ts if piece.info.first_ts is None else min(piece.info.first_ts, ts)
            piece.info.last_ts = ts if piece.info.last_ts is None else max(piece.info.last_ts, ts)
        self._track(rec, piece)

    def _note_refs(self, rec: Record, piece: _Piece) -> None:
        """What ``rec`` reads of the tables as they stand before it."""
        p = self.state.current
        if rec.kind not in _PROVIDER_KINDS and p.id not in piece.named:
            piece.providers.setdefault(p.id, p)
        if rec.kind in STATE_KINDS or not rec.complete:
            return
        refs = [(n, rec.fields.get(n, 0)) for n in STRING_REFS.get(rec.kind, ())]
        for a in rec.args:
            refs += [(n, a.fields.get(n, 0)) for n in ARG_STRING_REFS.get(a.kind, ())]
        for _, ref in refs:
            if ref and not ref & _INLINE_BIT and (p.id, "s", ref) not in piece.registered \
                    and ref in p.strings:
                piece.strings.setdefault(p.id, {}).setdefault(ref, p.strings[ref])
        for name in THREAD_REFS.get(rec.kind, ()):
            koids = self.state.thread(rec, name)
            ref = rec.fields.get(name, 0)
            if koids is not None:
                piece.koids.update(koids)
                if ref and (p.id, "t", ref) not in piece.registered:
                    piece.threads.setdefault(p.id, {}).setdefault(ref, koids)

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
            if piece is not None:
                piece.own_objects.add(rec.fields.get("koid", 0))
            inline = self._inlined(rec)
            if inline is not None:
                self.kernel_objects[rec.fields.get("koid", 0)] = inline
        self.open.see(rec, self.state)

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
        start_ts = info.first_ts if info.first_ts is not None else 0
        end_ts = info.last_ts if info.last_ts is not None else start_ts
        for rec in piece.opened.begins(start_ts, arg("string", MARK_NAME, _BEGUN_MARK)):
            put(encode_record(rec, self.order))
            added += 1
        piece.body.seek(0)
        shutil.copyfileobj(piece.body, out, 1 << 20)
        for rec, _ in self.open.ends(end_ts, arg("string", MARK_NAME, _ENDED_MARK)):
            put(encode_record(rec, self.order))
            added += 1
        info.added = added

    def _prefix(self, piece: _Piece) -> Iterator[Record]:
        """The state records the piece needs from before it, the provider in force at its
        start written last (a provider never named is the reader's first: nothing to write)."""
        start = piece.start_provider
        order = [pid for pid in piece.providers if pid != start.id and pid is not None]
        if start.id is not None:
            order.append(start.id)
        if start.id is None:
            yield from self._tables_of(None, piece)
        for pid in order:
            p = self.state.provider(pid)
            yield provider_info(pid, p.name) if pid in self.state.announced and p.name is not None \
                else provider_section(pid)
            yield from self._tables_of(pid, piece)
        for koid in sorted(piece.koids - piece.own_objects):
            ko = self.kernel_objects.get(koid)
            if ko is not None:
                yield ko

    def _tables_of(self, pid, piece: _Piece) -> Iterator[Record]:
        if pid in self.rates:
            yield initialization(self.rates[pid])
        for index, gid in sorted(piece.strings.get(pid, {}).items()):
            yield string(index, self.state.strings.values[gid])
        for index, (process, thread_koid) in sorted(piece.threads.get(pid, {}).items()):
            yield thread(index, process, thread_koid)


def slice_trace(buf, open_out: Callable[[int], IO[bytes]], cutter: Cutter, *,
                scratch: Callable[[], IO[bytes]] = io.BytesIO) -> SliceLog:
    """Write the pieces of ``buf`` that ``cutter`` chooses: piece ``i`` (from 1) to
    ``open_out(i)``, which the slicer closes. A piece's records wait in ``scratch()``
    (the CLI gives a temporary file: memory stays flat) until its prefix is known.
    Never raises on input."""
    return _Slicer(buf, open_out, cutter, scratch).run()
