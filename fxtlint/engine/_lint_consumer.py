"""The linter as a consumer of the walk (``_walk``): every rule, over decoded records.

The linter runs on one of two engines:

1. the native walk (``_walk_native``, ``_nwalk.pyx``), where it is built and the linter is
   the walk's first consumer, any other riding beside it: it checks the records itself (refs, timestamps, the table
   records' findings, pairing rows; the reader's findings as rows) and hands here, to
   ``record``, decoded, only a record it cannot read on from by itself (on a growing
   stream);
2. the reference path (``Walk.one_by_one``, and a stream's ``Walk._advance_records``):
   the per-record reader decodes every record and ``record`` checks each one.

``record`` is ``RecordChecker.check`` (``_semantic``): the reference checks, in file order,
which also report on what a table record changed. A structured-log stream has no tables:
its diagnostics are all the reader's. ``tests/test_nwalk.py`` holds the native walk to
the reference path (whole JSON reports).
"""

from __future__ import annotations

from ..spec._limits import DEFAULT_LIMITS, Limits
from ._pairing import BUFFERING_MODES
from ._semantic import LintState, RecordChecker
from ._walk import Consumer


class Lint(Consumer):
    """Every rule over one walk; diagnostics go to ``emit`` (the reader's too, through
    the walk's own ``emit``)."""

    # True: a linter whose findings nothing reads (export's and decode's, that take the
    # native walk for its rows): the walk writes it no pairing rows (pairing findings are
    # the only ones that cost a pass of their own)
    silent: bool = False

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS, log: bool = False,
                 buffering_mode: str | None = None):
        if buffering_mode is not None and buffering_mode not in BUFFERING_MODES:
            raise ValueError(f"buffering_mode must be one of {BUFFERING_MODES} or None, not {buffering_mode!r}")
        self.emit = emit
        self.limits = limits
        self.log = log
        self.buffering_mode = buffering_mode
        self.state: LintState | None = None

    @property
    def buffer_full(self) -> list[int]:
        """Offsets of the records that say a provider dropped records."""
        return [] if self.state is None else self.state.buffer_full

    def start(self, walk) -> None:
        self.walk = walk
        if not self.log:
            # on the native walk, pairing is compiled where it is built; the reference path
            # pairs with the Python loop
            self.state = LintState(self.emit, self.limits, walk.state, self.buffering_mode, walk.lints_natively())
            self.state.big = walk.big
            self.checker: RecordChecker | None = None  # made at the first record it checks

    def record(self, rec, change) -> None:
        if self.state is not None:
            if self.checker is None:  # (the native walk of whole bytes hands none back)
                self.checker = RecordChecker(self.state)
            self.checker.check(rec, change)

    def finish(self, walk) -> None:
        if self.state is not None:
            self.state.finish(cut_short=walk.cut_short)
