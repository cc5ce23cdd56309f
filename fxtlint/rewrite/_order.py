"""Slice in time order: what a cut leaves open, as the lint pairs it (``OrderedSlicer``).

The lint pairs begins with ends in time order, a pairing window (``Limits.pairing_window``
records) at a time (``engine/_pairing``). Where every instant of a trace comes at or after
the ones before it in the file, file order is that order, and ``_slice_pass``' ``OpenEvents``
follows what is open as the lint does. Where one goes back (``_Slicer.went_back``: a trace
written by buffers, a begin written after its end), ``slice_trace`` cuts the trace again
with this slicer, which follows exactly the pairs the lint makes:

- ``Pairs`` reads the trace one pairing window ahead of the slicer, with the reference
  lint's own checker and pairing engine (``RecordChecker``, ``PairingEngine``, told of each
  pair it makes: ``PairingEngine.matched``), and says for each pairing event the record
  its pair's other member is (and that member's instant, where it is in the same window);
- a pair is open in file order from its first member to its second: a piece cut in between
  gets a stand-in of the member it lacks, marked as ``_slice_pass`` marks what a cut
  writes. A stand-in is written at its member's own instant where that is inside the
  piece's time and pairing window, before the piece's records (a member before the piece in
  the file) or after them (one after it); before the piece's first instant, or in an
  earlier pairing window, at the first instant before every record; after its last, or
  in a later window, at the last after every record. So the piece's events and their
  stand-ins are paired in the order the lint paired the trace's (the same time order, ties
  in the same record order);
- a time range (--from/--to): a pair with one member in the range gets a stand-in of the
  other (at the piece's first instant if before the range, at its last if after), and a
  pair from before the range to after it both;
- a flow event is enclosed by a duration (or a complete event) in the lint's time order
  (PR008 otherwise), which may be written wholly before or after it in the file: a piece
  that holds the flow event but neither that duration's records nor its stand-ins (a pair
  open across it in the file) writes the flow event inside a marked duration of its own,
  on its thread at its instant (``PairingEngine.enclosed`` says what encloses it).

Memory: a pairing window of the lookahead's findings, the pairs open in file order (a
range: and the stand-ins its piece needs). Speed: record by record, and each record
decoded twice (the lookahead's and the slicer's): about 0.3 MB/s.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from ..engine._pairing import PairingEngine
from ..engine._provider_state import ProviderState
from ..engine._reader import MAGIC_BE, MAGIC_LE
from ..engine._semantic import LintState, RecordChecker
from ..spec._build import arg, event
from ..spec._encoder import encode_record
from ..spec._limits import DEFAULT_LIMITS
from ..spec._model import Record
from ..spec._roles import STATE_KINDS
from ..spec._tables import tables
from ..spec._time import DEFAULT_RATE, seconds
from ._input import Whole, at_least, decode, frame
from ._open import _PAIRING, MARK_NAME, OpenEvents, _tick, duration_around, in_a_duration, in_sections
from ._slice_pass import _BEGUN_MARK, _ENDED_MARK, _FIXED_BYTES, _ignore, _Piece, _Slicer, end_bytes, first_timestamp

# a pairing role's event kind, as the spec tables give each event variant its role
# (the roles a pair is made of: the begins and the ends)
_KIND = {leaf.pairing: leaf.name.split(".", 1)[1] for leaf in tables().record_leaves()
         if leaf.pairing in ("begin", "end", "async_begin", "async_end", "flow_begin", "flow_end")}
_OTHER = {"begin": "end", "end": "begin", "async_begin": "async_end", "async_end": "async_begin",
          "flow_begin": "flow_end", "flow_end": "flow_begin"}
_BEGINS = frozenset(("begin", "async_begin", "flow_begin"))
_FLOWS = frozenset(("flow_begin", "flow_step", "flow_end"))
_INF = float("inf")


class Pairs:
    """The lint's pairs of IN's events, read a pairing window ahead: ``other(index)`` is
    (the record index of the pair's other member, its instant (ticks, rate) or None where
    it is in another window), or None where the lint pairs the event with nothing (yet)."""

    def __init__(self, inp: Whole, big: bool, limits=DEFAULT_LIMITS):
        self.inp, self.big, self.window = inp, big, limits.pairing_window
        self.lint = LintState(_ignore, limits, ProviderState())
        engine = PairingEngine(_ignore, self.lint.tables.strings.values, limits)
        engine.matched = self._matched
        engine.enclosed = self._enclosed
        self.lint._pairing = engine  # type: ignore[assignment]
        self.checker = RecordChecker(self.lint)
        self.instants: dict = {}  # record index -> instant, of the pairing events of the window read
        self.others: dict = {}  # record index -> (other member's index, its instant or None)
        self.enclosures: dict = {}  # flow record index -> (begins open on its thread, a complete event or None)
        self.paired = 0  # the records before this index are paired (their windows fed)
        self.off = self.idx = 0
        self.ended = False

    def _matched(self, begin: int, end: int) -> None:
        self.others[begin] = (end, self.instants.get(end))
        self.others[end] = (begin, self.instants.get(begin))

    def _enclosed(self, flow: int, begins: list, complete: int | None) -> None:
        self.enclosures[flow] = (begins, complete)

    def other(self, index: int):
        while self.paired <= index and not self.ended:
            self._read()
        return self.others.pop(index, None)

    def enclosure(self, index: int):
        """(the record indexes of the duration begins open on the flow event ``index``'s
        thread when the lint pairs it, that of a complete event enclosing it or None), or
        None where the lint finds nothing enclosing it (PR008) or it is no flow event."""
        while self.paired <= index and not self.ended:
            self._read()
        return self.enclosures.get(index)

    def partner(self, index: int):
        """The record index of the other member of the pair of ``index`` (not yet taken by
        ``other``), or None."""
        got = self.others.get(index)
        return None if got is None else got[0]

    def _read(self) -> None:
        inp = self.inp
        size = frame(inp, self.off, self.idx, self.big, _ignore) if at_least(inp, self.off + 8) else None
        if size is None:
            self.lint.flush()
            self.ended, self.paired = True, self.idx
            return
        rec, _ = decode(inp, self.off, self.idx, size, self.big)
        window = self.lint.window
        change = self.lint.tables.apply(rec)
        self.checker.check(rec, change)  # (a new window: the one before is fed, its pairs told)
        if self.lint.window != window:
            self.instants.clear()
            self.paired = self.lint.window * self.window
        ts = first_timestamp(rec)
        if ts is not None:
            self.instants[rec.index] = (ts, self.lint.tables.current.rate)
        self.off, self.idx = rec.end, self.idx + 1


@dataclass
class _Member:
    """One member of a pair: its role (``OpenEvents.parts``), thread, names, id, provider,
    instant (None: not known, in a later window) and record index (None: not known)."""

    role: str
    koids: tuple
    cat: Any
    name: Any
    ident: int
    pid: Any
    instant: tuple | None
    index: int | None

    def other(self, index, instant) -> _Member:
        return _Member(_OTHER[self.role], self.koids, self.cat, self.name, self.ident, self.pid, instant, index)

    def time(self, default: float) -> Any:
        return seconds(*self.instant) if self.instant is not None else default


class _Written:
    """What ``_Slicer._write_piece`` writes around a piece's body, placed already."""

    def __init__(self, items: list):
        self.items = items  # (provider id, record)

    def providers(self) -> list:
        return list(dict.fromkeys(pid for pid, _ in self.items))

    def begins(self, *_):
        return iter(self.items)

    def ends(self, *_, **__):
        return ((pid, rec, None) for pid, rec in self.items)


class OrderedSlicer(_Slicer):
    """``_Slicer`` whose cuts begin and end what is open as the lint pairs it (the module's
    docstring)."""

    def __init__(self, buf, open_out, cutter, scratch):
        super().__init__(buf, open_out, cutter, scratch)
        self.pairs = Pairs(self.inp, self.big)
        self.firsts: dict = {}  # record index -> _Member: the first member, in the file, of a pair open
        self.firsts_bytes = 0  # what a cut writes for them, at most (``end_bytes``)
        self.edges: list = []  # a range: (member, "before"/"after") of the stand-ins it needs

    def _new_reader(self) -> None:
        super()._new_reader()
        self.firsts, self.firsts_bytes = {}, 0

    def _new_piece(self) -> _Piece:
        piece = super()._new_piece()
        piece.first_index = self.log.records_in - 1  # type: ignore[attr-defined]
        piece.before = list(self.firsts.values())  # type: ignore[attr-defined]
        piece.extra = self.firsts_bytes  # (their stand-ins before the body)
        return piece

    def _overhead(self, piece: _Piece) -> int:
        return _FIXED_BYTES + self._providers_bytes() + piece.extra + self.firsts_bytes

    # (``_Slicer._adds``: an end's too, as an end may be the first member of its pair in the
    # file, its begin after it, which a cut gives a stand-in)
    _STANDING_IN = _Slicer._STANDING_IN | frozenset(("end", "async_end", "flow_end"))

    def _open_first(self, me: _Member) -> None:
        self.firsts[me.index] = me
        self.firsts_bytes += end_bytes(me.role, me.cat, me.name)

    def _follow(self, rec: Record) -> None:
        other = self.pairs.other(rec.index)  # (asked of every record: what the lint paired is let go)
        parts = OpenEvents.parts(rec, self.state)
        if parts is None or parts[0] not in _KIND:
            return
        ts = first_timestamp(rec)
        me = _Member(parts[0], parts[1], parts[2], parts[3], parts[4], self.state.current.id,
                     None if ts is None else (ts, self.state.current.rate), rec.index)
        if other is None:
            if me.role in _BEGINS:  # (ended later, in another window, or never: open to the end)
                self._open_first(me)
        elif other[0] > rec.index:
            me.other_at = other  # type: ignore[attr-defined]
            self._open_first(me)
        else:
            first = self.firsts.pop(other[0], None)
            if first is not None:
                self.firsts_bytes -= end_bytes(first.role, first.cat, first.name)
            if first is not None and self.cutter.ranged:
                self._range_pair(first, me)

    # -- a time range ---------------------------------------------------------------------
    def _side(self, m: _Member) -> str:
        return "after" if m.instant is None else self.cutter._side(*m.instant)

    def _range_pair(self, first: _Member, second: _Member) -> None:
        a, b = self._side(first), self._side(second)
        if a == b:
            return
        for m, side in ((first, a), (second, b)):
            if (side != "inside" and "inside" in (a, b)) or {a, b} == {"before", "after"}:
                self.edges.append((m, side))

    # -- writing a piece ------------------------------------------------------------------
    def _end_archive(self) -> None:
        super()._end_archive()
        self.firsts, self.firsts_bytes = {}, 0

    def _finish(self) -> None:
        assert self.piece is not None
        self.piece.last_index = self.log.records_in - 1  # type: ignore[attr-defined]
        super()._finish()

    def _placed(self, piece: _Piece) -> tuple[list, list]:
        """(time, sort key, member, rate "prefix"/"suffix") of each stand-in, before the body
        and after it."""
        info = piece.info
        start = seconds(*info.first) if info.first is not None else Fraction(0)
        end = seconds(*info.last) if info.last is not None else start
        w = self.pairs.window
        pre: list = []
        post: list = []
        if self.cutter.ranged:
            edges = list(self.edges)
            for first in self.firsts.values():  # open to the end: its other member is after the range
                a = self._side(first)
                if a == "inside" or a == "before":
                    edges.append((first.other(None, None), "after"))
                if a == "before":
                    edges.append((first, "before"))
            for m, side in edges:
                at = (m.time(-_INF if side == "before" else _INF), _INF if m.index is None else m.index)
                (pre if side == "before" else post).append(((start if side == "before" else end), at, m))
        else:
            lo, hi = piece.first_index // w, piece.last_index // w  # type: ignore[attr-defined]
            members = [(m, "before") for m in piece.before]  # type: ignore[attr-defined]
            members += [(m.other(*m.other_at) if hasattr(m, "other_at") else m.other(None, None), "after")
                        for m in self.firsts.values()]
            for m, side in members:
                win = _INF if m.index is None else m.index // w
                t = m.time(_INF)
                key = (win, t, _INF if m.index is None else m.index)
                if side == "before" and (win < lo or t < start):
                    pre.append((start, key, m))
                elif side == "after" and (win > hi or t > end):
                    post.append((end, key, m))
                elif t < start:
                    pre.append((start, key, m))
                elif t > end:
                    post.append((end, key, m))
                else:
                    (pre if side == "before" else post).append((t, key, m))
        pre.sort(key=lambda x: (x[0], x[1]))
        post.sort(key=lambda x: (x[0], x[1]))
        return pre, post

    def _stand_ins(self, placed: list, rate_of, up: bool, home=lambda pid: pid) -> list:
        out = []
        for t, _, m in placed:
            pid = home(m.pid)
            mark = arg("string", MARK_NAME, _BEGUN_MARK if m.role in _BEGINS else _ENDED_MARK)
            ts = _tick(t, rate_of(pid), up=up)
            kw = {} if m.role in ("begin", "end") else {"id": m.ident}
            rec = event(_KIND[m.role], ts, thread=m.koids, category=m.cat, name=m.name, args=(mark,), **kw)
            recs = in_a_duration(rec, mark) if m.role.startswith("flow") else [rec]
            out += [(pid, r) for r in recs]
        return out

    # -- a flow event the piece would leave outside the duration enclosing it -------------
    def _enclosed_here(self, rec: Record, first: int | None) -> bool:
        """Whether the piece that takes the flow event ``rec`` (its records from index
        ``first`` on; None: not known, which asks for the worst case) keeps a duration or a
        complete event that the lint found enclosing it, or gives it that duration's stand-ins:
        a begin of a pair open across it in the file (either member first), or a pair or
        complete event wholly before it in the piece. Not a flow event, or one nothing
        encloses in the lint (PR008 there too): True."""
        enc = self.pairs.enclosure(rec.index) if _PAIRING.get(rec.kind) in _FLOWS else None
        if enc is None:
            return True
        begins, complete = enc
        for b in begins:
            if b < rec.index:
                if b in self.firsts or (first is not None and b >= first):
                    return True
            else:
                e = self.pairs.partner(b)
                if e is not None and e < rec.index and e in self.firsts:
                    return True
        return complete is not None and first is not None and first <= complete < rec.index

    def _around(self, rec: Record) -> list:
        """A marked duration of its own (begin, end) for the flow event ``rec``, on its
        thread at its instant, as ``in_a_duration`` writes one around a stand-in: none where
        its thread does not resolve."""
        koids = self.state.thread(rec, "thread")
        ts = first_timestamp(rec)
        if koids is None or ts is None:
            return []
        return list(duration_around(koids, ts, arg("string", MARK_NAME, _BEGUN_MARK)))

    def _adds(self, rec: Record, piece: _Piece) -> int:
        n = super()._adds(rec, piece)
        if not self._enclosed_here(rec, None):
            n += sum(len(encode_record(r, self.order)) for r in self._around(rec))
        return n

    def _take(self, rec: Record, data, ts, rate) -> None:
        piece = self.piece
        assert piece is not None
        around = [] if self._enclosed_here(rec, piece.first_index) else self._around(rec)  # type: ignore[attr-defined]
        self.pairs.enclosures.pop(rec.index, None)
        if around:  # (the lint pairs the three in time order, ties in record order: begin, flow, end)
            begin = encode_record(around[0], self.order)
            piece.body.write(begin)
            piece.info.bytes += len(begin)  # (written by the cut, as stand-ins are: ``added``)
            piece.wrapped = getattr(piece, "wrapped", 0) + 2  # type: ignore[attr-defined]
        super()._take(rec, data, ts, rate)
        if around:
            end = encode_record(around[1], self.order)
            piece.body.write(end)
            piece.info.bytes += len(end)
        if getattr(piece, "lead_done", False):
            return
        if rec.kind in STATE_KINDS:  # (the records that set reader state the body starts with)
            piece.lead = piece.info.bytes  # type: ignore[attr-defined]
            piece.lead_provider = self.state.current.id  # type: ignore[attr-defined]
            piece.lead_rates = dict(self.rates)  # type: ignore[attr-defined]
            piece.lead_named = set(self.state.announced)  # type: ignore[attr-defined]
        else:
            piece.lead_done = True  # type: ignore[attr-defined]

    def _write_piece(self, piece: _Piece, out) -> None:
        """As ``_Slicer._write_piece``, the stand-ins placed (``_placed``). A piece that starts
        before any provider is named (a trace's first) has its stand-ins written after the
        records that set reader state its body starts with (readers such as fxt read no
        event before a provider's section and its tick rate); its records are paired after
        them all the same."""
        pre, post = self._placed(piece)
        start = piece.start_provider.id
        split = getattr(piece, "lead", 0) if pre and start is None else 0
        if split:
            current, rates, named = piece.lead_provider, piece.lead_rates, piece.lead_named  # type: ignore[attr-defined]

            def home(pid):  # (a provider named after the body's first records: the one they leave in force)
                return pid if pid in named else current
        else:
            current, rates = start, piece.rates

            def home(pid):  # (a provider the piece names itself, after its prefix: the start's section)
                return start if pid in piece.named else pid

            for _, _, m in pre:
                # a provider with no tick rate yet is read at the default one: said, for readers
                # that read no event before an Initialization record (fxt); the lint reads the same
                rates.setdefault(home(m.pid), DEFAULT_RATE)
        put = out.write
        put(MAGIC_BE if self.big else MAGIC_LE)
        added = 0
        # (the providers of the stand-ins: those written after the body's first records are named there)
        piece.opened = _Written([] if split else self._stand_ins(pre, lambda pid: DEFAULT_RATE, False, home))  # type: ignore[assignment]
        kept = self.open
        self.open = _Written(self._stand_ins(post, lambda pid: DEFAULT_RATE, True))  # type: ignore[assignment]
        try:
            prefix = list(self._prefix(piece))  # (the providers of what is written around the body)
        finally:
            self.open = kept
        for rec in prefix:
            put(encode_record(rec, self.order))
            added += 1
        body = piece.body
        body.flush()
        body.seek(0)
        _copy_part(body, out, split)
        for rec in in_sections(self._stand_ins(pre, lambda pid: rates.get(pid, DEFAULT_RATE), False, home), current,
                               end_in=current):
            put(encode_record(rec, self.order))
            added += 1
        _copy_part(body, out, None)
        ends = self._stand_ins(post, lambda pid: self.state.provider(pid).rate, True)
        for rec in in_sections(ends, self.state.current.id):
            put(encode_record(rec, self.order))
            added += 1
        piece.info.added = added + getattr(piece, "wrapped", 0)


def _copy_part(body, out, size: int | None) -> None:
    """``size`` bytes of ``body`` from where it is (None: to its end) written to ``out``."""
    while size is None or size > 0:
        chunk = body.read(1 << 20 if size is None else min(size, 1 << 20))
        if not chunk:
            return
        out.write(chunk)
        if size is not None:
            size -= len(chunk)
