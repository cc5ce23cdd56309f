"""Slice: pieces of a trace that each open on their own (``slice_trace``).

Two passes write the same pieces: the record-by-record pass (``_slice_pass``: the
specification, every record decoded by the reference reader) and, for a --split-size,
--split-time or --split-archives cut where the native walk is built, the walk (``_slice_walk``: the records
it proves clean copied as byte ranges, the others handed to the record-by-record pass).
A time range (--from/--to) goes record by record.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO

from ._repair import native_walk
from ._slice_pass import Cutter, PieceInfo, SliceLog, TimeRange, _Slicer, first_timestamp, time_range
from ._slice_walk import WalkSlicer

__all__ = ["Cutter", "PieceInfo", "SliceLog", "TimeRange", "first_timestamp", "slice_trace", "time_range"]


def slice_trace(buf, open_out: Callable[[int], IO[bytes]], cutter: Cutter, *,
                scratch: Callable[[], IO[bytes]] = io.BytesIO, shortcut: bool = True) -> SliceLog:
    """Write the pieces of ``buf`` (bytes, or an ``Input``: a file or pipe read in place,
    once) that ``cutter`` chooses: piece ``i`` (from 1) to ``open_out(i)``, which the
    slicer closes. A piece's records wait in ``scratch()``
    (the CLI gives a temporary file: memory stays flat) until its prefix is known.
    ``shortcut`` (the default) lets the native walk read the trace where it is built and
    the cutter is a --split-size, --split-time or --split-archives one (``_slice_walk``:
    the records it proves clean are copied as byte ranges, the others go through the record-by-record
    pass, ``_slice_pass``, the specification, which ``shortcut=False`` runs on every record; the two
    write the same bytes). Never raises on input."""
    one = [cutter.size is not None, cutter.span is not None, cutter.archives]
    if shortcut and not cutter.ranged and sum(one) == 1:
        module = native_walk()
        if module is not None:
            return WalkSlicer(buf, open_out, cutter, scratch, module).run()
    return _Slicer(buf, open_out, cutter, scratch).run()
