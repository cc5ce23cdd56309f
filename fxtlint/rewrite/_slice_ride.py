"""The pieces' lint riding the cut (issue 33 item 1): a piece's verdict from the cut's own
walk of its body, where that walk proves the piece's lint says no error and no warning;
else the piece's file is linted (``cli.slice._verdict``: ``lint_path``, the
specification). A piece's bytes are walked once where the ride proves it.

A piece is the magic record, its prefix (the state records its body reads, ``_prefix``),
the begins of what the cut left open, its body (IN's records, as they are) and the ends
of what it leaves open (``_Slicer._write_piece``). Its lint's diagnostics are then:

- the body's records' own (layout, refs, timestamps, kind checks, what a registration
  changes): the walk's findings (the slice's walk is the strict one: a record its screen
  flags is handed back whole) and, for a record handed back to the record-by-record pass,
  its decoder's and ``RecordChecker``'s, in IN's state. A ref the body reads has the
  same value in the piece (the prefix writes it); what IN's state says beyond the
  piece's (a registration's old value the prefix does not hold, a provider announced
  before the piece that its prefix does not name) only adds findings, never removes
  one: so a finding here, of any rule, leaves the piece to its lint (not proven);
- the frame's records' own (the magic record, the prefix, the begins and the ends, with
  their provider sections): the lint of those records alone (``lint_bytes``), their
  pairing left to the next point; any error or warning of another rule: not proven;
- the pairing of the piece's events: the begins' rows, the body's (the walk's pairing
  rows, ``slice_rows``, and ``RecordChecker``'s of a record handed back) and the ends',
  fed to a pairing engine of the piece's own. The lint pairs in (time, record index)
  order within each pairing window: where no instant of IN goes back in the file
  (``went_back``, the walk's and the pass's), that order is the file's whatever the
  windows, so the ride's rows (IN's record indexes, the begins before the body's first,
  the ends after its last) pair as the piece's do; where one goes back, no piece from
  then on is proven.

Not ridden (every piece linted from its file): a time range (--from/--to) and
--split-archives, and a slicer that cuts IN again in time order (``_order``).
"""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

from .. import rules as R
from ..engine._lint import lint_bytes
from ..engine._reader import decode_record
from ..engine._semantic import LintState, RecordChecker
from ..spec._build import arg
from ..spec._encoder import encode_record
from ..spec._limits import DEFAULT_LIMITS
from ..spec._time import DEFAULT_RATE, seconds
from ._open import MARK_NAME

# the pairing engine's rules: said by the ride's own pairing, not the frame's lint
PAIRING_CODES = frozenset(r.code for r in (
    R.async_without_begin, R.duration_end_mismatch, R.duration_end_without_begin, R.duration_never_ended,
    R.flow_outside_duration, R.flow_without_begin, R.id_begin_reused, R.pairing_state_overflow,
    R.unterminated_at_end))
_SAYS = ("error", "warning")  # what a verdict counts


class Ride:
    """The verdicts of a ``WalkSlicer``'s pieces: ``verdicts[i]`` (0, 0) where the ride proves
    piece ``i + 1``'s lint says no error and no warning, None where its file is to be linted."""

    def __init__(self, slicer, row_bytes: int):
        self.slicer = slicer
        self.row_bytes = row_bytes
        self.verdicts: list = []
        self.fallbacks = 0
        self.proven = False
        self.pairs: LintState | None = None

    # -- a piece -------------------------------------------------------------------------
    def start(self, first_index: int) -> None:
        """A new piece, whose first record is IN's record ``first_index``."""
        s = self.slicer
        self.proven = not s.went_back and first_index > 0
        self.first_index = first_index
        self.last_index = first_index
        self.pairs = pairs = LintState(self._emit, DEFAULT_LIMITS, s.state, None, True)
        pairs.big = s.big
        self.checker = RecordChecker(pairs)
        self.begun: list | None = None  # the begins fed (``_begin``)
        self.blocks: bool | None = None

    def _emit(self, d) -> None:
        if d.severity.label in _SAYS:
            self.proven = False

    def found(self, n: int) -> None:
        """The walk wrote ``n`` finding rows for the piece's records."""
        if n:
            self.proven = False

    def rows(self, nw, index: int) -> None:
        """The walk's pairing rows since the last take (of records before IN's record
        ``index``), to the piece's pairing."""
        self.last_index = max(self.last_index, index - 1)
        n = nw.pending_rows()
        if not n:
            return
        if not self.proven:
            nw.take_row_block()  # (nothing pairs them: let go of)
            return
        self._begin()
        pairs = self.pairs
        assert pairs is not None
        if self.blocks is None:
            self.blocks = getattr(pairs.pairing, "ROW_BLOCK_BYTES", None) == self.row_bytes
        if self.blocks:
            pairs.batch.add_block(nw.take_row_block(), n)
        else:
            add = pairs.batch.add
            for row in nw.take_row_tuples():
                add(*row)
        pairs.flush()

    def record(self, rec, change, found: list) -> None:
        """A record the pass took into the piece (handed back by the walk): its decoder's
        findings ``found``, its semantic checks and pairing row on IN's tables."""
        self.last_index = max(self.last_index, rec.index)
        if not self.proven:
            return
        if any(d.severity.label in _SAYS for d in found):
            self.proven = False
            return
        self._begin()
        self.checker.check(rec, change)
        self.checker.s.flush()

    def _begin(self, piece=None) -> None:
        """The begins of what the cut left open, fed once, before the body's first row: at
        the piece's first instant (where nothing goes back, its first record's)."""
        if self.begun is not None:
            return
        if piece is None:
            piece = self.slicer.piece
            first = self.slicer.nw.piece_state()[7]  # (the walk's tally of the piece so far)
        else:
            first = piece.info.first
        self.begun = self._begins(piece, first)
        self._rows(self.begun, lambda pid: piece.rates.get(pid, DEFAULT_RATE), self.first_index - 1)

    @staticmethod
    def _begins(piece, first) -> list:
        """``(provider id, record)``: the begins the writer writes for ``piece`` whose first
        instant is ``first`` (``_Slicer._write_piece``'s)."""
        start = seconds(*first) if first is not None else Fraction(0)
        return list(piece.opened.begins(start, lambda pid: piece.rates.get(pid, DEFAULT_RATE), _mark(True)))

    def _rows(self, items, rate_of, index: int) -> None:
        """The pairing rows of records the writer makes (begins, ends: ``(provider id,
        record)``, their refs inline), each at its provider's rate, all at record ``index``:
        by ``RecordChecker``'s own steps, on IN's interners."""
        pairs = self.pairs
        assert pairs is not None
        tables = pairs.tables
        order = "big" if pairs.big else "little"
        for pid, built in items:
            data = encode_record(built, order)  # (as written: its refs inline)
            rec = decode_record(data, 0, index, len(data) // 8, self._emit, big=pairs.big)
            current = SimpleNamespace(rate=rate_of(pid), strings={}, threads={}, id=pid)
            shim = SimpleNamespace(batch=pairs.batch, big=pairs.big, emit=self._emit,
                                   tables=SimpleNamespace(threads=tables.threads, strings=tables.strings,
                                                          current=current))
            checker = RecordChecker(shim)  # type: ignore[arg-type]
            checker._pairing_rows(rec, 8 * rec.size_words, checker._string_refs(rec), checker._thread_refs(rec))

    def finish(self, piece, frame: bytes | None) -> None:
        """``piece`` is written (``frame``: its bytes but its body's, None where not kept):
        its verdict."""
        s, pairs = self.slicer, self.pairs
        assert pairs is not None
        proven = self.proven and frame is not None and not s.went_back
        if proven:
            self._begin(piece)
            # (the begins fed are the written ones: at the piece's first instant)
            proven = [r for _, r in self._begins(piece, piece.info.first)] == [r for _, r in self.begun or ()]
        if proven:
            info = piece.info
            end = seconds(*info.last) if info.last is not None else \
                (seconds(*info.first) if info.first is not None else Fraction(0))

            def rate_of(pid):
                return s.state.provider(pid).rate

            ends = [(pid, rec) for pid, rec, _ in s.open.ends(end, rate_of, _mark(False))]
            self._rows(ends, rate_of, self.last_index + 1)
            pairs.finish(cut_short=False)
            proven = self.proven
        if proven and frame is not None:
            report = lint_bytes(frame, input_format="trace")
            proven = not any(d.severity.label in _SAYS and d.code not in PAIRING_CODES for d in report.diagnostics)
        self.verdicts.append((0, 0) if proven else None)
        self.fallbacks += not proven
        self.pairs = None


def _mark(begun: bool):
    """The argument marking a begin or an end the writer wrote (``_Slicer._write_piece``'s)."""
    from ._slice_pass import _BEGUN_MARK, _ENDED_MARK  # (``_slice_pass`` imports nothing of this module)

    return arg("string", MARK_NAME, _BEGUN_MARK if begun else _ENDED_MARK)
