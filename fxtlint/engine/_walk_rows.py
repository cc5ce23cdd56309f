"""The native walk's rows mode (``_nwalk_rows.pxi``), the Python side: for ``export`` and
``decode``, each event record the walk walks clean as one flat row of int64 words, its
refs resolved as the lint's walk resolves them, and the records it leaves to the reference
per-record path.

A row (``ROW_WIDTH`` words, ``FIELDS`` by name): the record's index, byte offset, size in
words, terminal (its kind: ``kinds[term]``), provider slot, tick rate, flags
(``ROW_KOIDS``: its thread resolved), the thread's koids, then its string refs' interned
ids in the order of ``spec._roles.STRING_REFS[kind]`` (0: the empty ref, ``ROW_INLINE``:
an inline text, in the record; -1: unregistered, which makes the record unclean: never in
a row). An interned id is the walk's ``ProviderState.strings`` id (``state.text(gid)``).

A record that is not an event, or has any finding, is noted (index, offset, declared
words, tick rate) and decoded here by the reference decoder (``decode_record``); the
records the walk hands back go to the consumer's ``record`` as to the linter. So a trace's
records are each exactly one of: a row, a noted record, a handed-back record.

This is the walk's side only: ``export`` and ``decode`` do not use it yet (issue 33 item
6); ``RowsRider.take`` is called at each stop of the walk, so memory holds the rows of one
stretch between stops.
"""

from __future__ import annotations

from array import array

from ._reader import decode_record
from ._walk_native import _names

FIELDS = ("index", "offset", "words", "term", "slot", "rate", "flags", "pk", "tk")


def _quiet(diagnostic) -> None:
    """A noted record's diagnostics: the linter's walk has said them already."""


class RowsRider:
    """The rows of one native walk ``nw`` (of ``walk``, on the walk module ``module``):
    ``rows(words, n)`` gets each stop's rows (an ``array('q')`` of ``n`` rows), ``record(rec,
    rate)`` each noted record the reference decoder read."""

    def __init__(self, walk, nw, module, rows, record):
        self.sink = module.RowSink()
        self.width = module.ROW_WIDTH
        self.inline = module.ROW_INLINE
        self.koids = module.ROW_KOIDS
        nw.collect_rows(self.sink)
        self.walk = walk
        self.rows = rows
        self.record = record
        self.kinds = _names(walk.log)[0]

    def take(self) -> None:
        """The rows and the noted records since the last stop (at each stop of the walk,
        while their bytes are in the buffer), in file order within each."""
        raw, notes = self.sink.take()
        if raw:
            words = array("q", raw)
            self.rows(words, len(words) // self.width)
        if notes:
            w = self.walk
            n = array("q", notes)
            for k in range(0, len(n), 4):
                index, offset, words_, rate = n[k], n[k + 1], n[k + 2], n[k + 3]
                rec = decode_record(w.buf, offset, index, words_, _quiet, big=w.big, log=w.log, resync=False)
                self.record(rec, rate & 0xFFFFFFFFFFFFFFFF)
