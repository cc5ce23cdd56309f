"""Slice: pieces of a trace that each open on their own (``slice_trace``).

Two passes write the same pieces: the record-by-record pass (``_slice_pass``: the
specification, every record decoded by the reference reader) and, for a --split-size,
--split-time or --split-archives cut or a time range (--from/--to) where the native walk
is built, the walk (``_slice_walk``: the records it proves clean copied as byte ranges,
those outside a range left out, the others handed to the record-by-record pass). Both
follow what is open in file order; where an instant goes back in the file, IN is cut
again by ``_order.OrderedSlicer``, which follows what is open as the lint pairs it (in
time order). A trace's time range (``time_range``: what --from/--to and ticks are read
against) is read on the walk too, or record by record. With ``ride``, the pieces'
verdicts are proven on the cut's walk where it can (``_slice_ride``: ``SliceLog.verdicts``).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO

from ..engine._native import default_walk as native_walk  # (not repair's module: a slice imports none of it)
from ._input import Input, Whole
from ._slice_pass import Cutter, PieceInfo, SliceLog, TimeRange, _Slicer, first_timestamp
from ._slice_pass import time_range as time_range_by_records
from ._slice_walk import WalkSlicer, time_range_walked

__all__ = ["Cutter", "PieceInfo", "SliceLog", "TimeRange", "first_timestamp", "slice_trace", "time_range"]



def time_range(buf, *, shortcut: bool = True) -> TimeRange | None:
    """The time range of ``buf``'s records (bytes, or an ``Input``: read through once;
    ``restart`` it for the next pass), None when it has no timestamp: on the native walk
    where it is built (``shortcut``), else record by record (``_slice_pass.time_range``,
    the specification; the two give the same range)."""
    module = native_walk() if shortcut else None
    if module is not None:
        return time_range_walked(buf, module)
    return time_range_by_records(buf)


def slice_trace(buf, open_out: Callable[[int], IO[bytes]], cutter: Cutter, *,
                scratch: Callable[[], IO[bytes]] = io.BytesIO, shortcut: bool = True, ride: bool = False) -> SliceLog:
    """Write the pieces of ``buf`` (bytes, or an ``Input``: a file or pipe read in place,
    once) that ``cutter`` chooses: piece ``i`` (from 1) to ``open_out(i)``, which the
    slicer closes. A piece's records wait in ``scratch()``
    (the CLI gives a temporary file: memory stays flat) until its prefix is known.
    ``shortcut`` (the default) lets the native walk read the trace where it is built and
    the cutter is one of a --split-size, --split-time, --split-archives or a time range
    (``_slice_walk``: the records it proves clean are copied as byte ranges or, outside a
    range, left out; the others go through the record-by-record pass, ``_slice_pass``, the
    specification, which ``shortcut=False`` runs on every record; the two write the same
    bytes). Where an instant goes back in the file (the lint pairs in time order), the
    pieces are written again by ``_order.OrderedSlicer`` over the first ones, IN read again
    from its start (a pipe cannot be: its pieces stay, ``SliceLog.file_order``). Never
    raises on input. ``ride``: the pieces' verdicts proven on the walk where it can
    (``_slice_ride``: ``SliceLog.verdicts``, a piece's None where its file is to be linted)."""
    one = [cutter.ranged, cutter.size is not None, cutter.span is not None, cutter.archives]
    module = native_walk() if shortcut and sum(one) == 1 else None
    fresh = Cutter(start=cutter.start, end=cutter.end, size=cutter.size, span=cutter.span, archives=cutter.archives)
    walk = WalkSlicer(buf, open_out, cutter, scratch, module) if module is not None else None
    slicer = walk if walk is not None else _Slicer(buf, open_out, cutter, scratch)
    if ride and walk is not None:
        walk.ride_on()
    log = slicer.run()
    again = _again(buf) if slicer.went_back else None
    if again is None:
        log.file_order = slicer.went_back
        if walk is not None and walk.ride is not None:
            log.verdicts = walk.ride.verdicts
        return log
    # an instant went back in the file: the pieces again, each cut beginning and ending what
    # is open as the lint pairs it (``_order``), written over the ones before
    from ._order import OrderedSlicer  # (only where an instant goes back)

    return OrderedSlicer(again, open_out, fresh, scratch).run()


def _again(buf):
    """``buf`` to be read again from its start (None: it cannot be, a pipe read once)."""
    if not isinstance(buf, Whole):
        return buf
    if isinstance(buf, Input):
        if buf.source is None:
            return None
        buf.restart()
        return buf
    return buf.buf
