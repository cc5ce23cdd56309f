"""The seam between the bytes and the engine: a window of words in, batch columns out.

``scan_window`` is the one step that touches every word of a trace. It frames the
records that start in a window (sizes for every word at once with numpy, then a tight
loop that follows them), cuts them into batches that never cross a pairing window, and
screens each batch with the column engine (``_columns``). A batch comes out as
``Columns``: where each record starts, its size and type, the rows of each leaf layout
with their field columns (``Group``) and flags, and the rows the per-record reference
decoder must read (flagged, undefined, or named in ``reference_kinds``).

Everything after this step on the column path (decoding the flagged rows, the provider
tables, export and canonical decoding; the lint and report never take it: they run on
the native walk or the per-record reference) reads these columns, never the framing, so a
faster kernel or a window fed from a socket replaces this module alone.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from ..spec._tables import tables
from ._columns import Group, Screen, field

_T = tables()
TYPE = _T.field(role="type")
SIZE = _T.field(role="size")


@dataclass
class Columns:
    """One batch of framed records (``index0``: the index of its first)."""

    index0: int
    starts: np.ndarray  # first word of each record, in the whole buffer
    sizes: np.ndarray  # in words
    types: np.ndarray
    groups: list[Group]  # screened rows per leaf layout; ``Group.flag`` marks rows not proven clean
    reference: np.ndarray  # per row: the reference decoder reads it (bool)

    def __len__(self) -> int:
        return len(self.starts)


@dataclass
class Window:
    """What one window gave: its batches (screened one at a time as they are taken, so
    memory holds one batch's columns), where the next window starts, and why framing
    stopped, if it did: a header of size 0 at ``zero_at`` (a word position), or a last
    record running past the end of the data, ``overrun`` = (word, size in words)."""

    batches: Iterator[Columns]
    next_word: int
    records: int
    zero_at: int | None = None
    overrun: tuple[int, int] | None = None


def frame(W, cur: int, end: int, large: dict):
    """Frame the records starting in words ``[cur, end)`` of ``W``: (starts relative to
    ``cur``, sizes, types, the word after the last one, whether a size-0 header stopped it)."""
    headers = W[cur:end]
    types = field(headers, TYPE)
    sizes = field(headers, SIZE)
    for lt, sf in large.items():
        m = types == lt
        if m.any():
            sizes[m] = field(headers[m], sf)
    del headers
    mv = memoryview(sizes)
    rel = array("q")
    app = rel.append
    i = 0
    n = end - cur
    zero = False
    while i < n:
        s = mv[i]
        if s == 0:
            zero = True
            break
        app(i)
        i += s
    del mv
    starts = np.frombuffer(rel, np.int64) if len(rel) else np.zeros(0, np.int64)
    return starts, sizes[starts], types[starts], cur + i, zero


def scan_window(screen: Screen, cur: int, index0: int, *, window_words: int, pairing_window: int, large: dict,
                roots: dict, reference_kinds: frozenset) -> Window:
    """Frame the records that start in the window at word ``cur`` of the screen's words
    (``index0``: the index of the first); their batches are screened as they are taken."""
    W = screen.W
    nw = len(W)
    starts, sizes, types, nxt, zero = frame(W, cur, min(cur + window_words, nw), large)
    overrun = None
    if len(starts) and cur + starts[-1] + sizes[-1] > nw:
        overrun = (cur + int(starts[-1]), int(sizes[-1]))
        starts, sizes, types = starts[:-1], sizes[:-1], types[:-1]
    starts = starts + cur

    def batches():
        n = len(starts)
        pos = 0
        while pos < n:
            first = index0 + pos
            upto = min(n, pos + (pairing_window - first % pairing_window))
            yield screen_batch(screen, first, starts[pos:upto], sizes[pos:upto], types[pos:upto], roots,
                               reference_kinds)
            pos = upto

    return Window(batches(), nxt, len(starts), zero_at=nxt if zero else None, overrun=overrun)


def screen_batch(screen: Screen, index0: int, starts, sizes, types, roots: dict,
                 reference_kinds: frozenset) -> Columns:
    """Split a batch by leaf layout and screen each group."""
    reference = np.zeros(len(starts), bool)
    groups, slow_rows = screen.groups(roots, starts, sizes, types, reference_kinds)
    reference[slow_rows] = True
    for g in groups:
        screen.screen(g)
        reference[g.rows[g.flag]] = True
    return Columns(index0, starts, sizes, types, groups, reference)
