"""A stream's bytes at their own offsets, with memory for the part still needed only.

The walk and the reader address a trace by byte offset from its start (records,
diagnostics, spans, resynchronisation all do). A stream fed in chunks keeps that
addressing: its bytes are written into an anonymous private memory map at their
offset in the stream, and the pages the walk has left behind are given back to the
system (``release``), so the map's *resident* size is the unprocessed tail, whatever
the stream's length. While the stream is still being fed, ``len()`` is the whole words
received so far and ``growing`` is true; a reader decision that needs a byte past them
(or the stream's final length) raises ``NeedMore`` instead of guessing (``_reader._have``).
"""

from __future__ import annotations

import mmap
import sys

# Linux: reserve address space without committing memory for it (the pages behind the
# walk are given back; only the tail is ever resident)
_NORESERVE = 0x4000 if sys.platform.startswith("linux") else 0
_FIRST = 1 << 20


class NeedMore(Exception):
    """A decision needs bytes the stream has not delivered yet (or its final length)."""


class _Map(mmap.mmap):
    """The memory map the walk reads: ``len()`` is what has arrived (whole words while
    the stream grows), ``growing`` whether more may come."""

    n: int
    growing: bool
    capacity: int

    def __new__(cls, capacity: int):
        flags = getattr(mmap, "MAP_PRIVATE", 0)
        try:
            self = super().__new__(cls, -1, capacity, flags=flags | _NORESERVE) if flags else \
                super().__new__(cls, -1, capacity)
        except (OSError, ValueError):
            self = super().__new__(cls, -1, capacity, flags=flags) if flags else super().__new__(cls, -1, capacity)
        self.n = 0
        self.growing = True
        self.capacity = capacity
        return self

    def __len__(self) -> int:
        return self.n


class StreamBuffer:
    """The bytes of one stream: ``append`` as they arrive, ``view`` for the walk,
    ``release`` what the walk has left behind, ``end`` when the stream ends."""

    def __init__(self):
        self.map = _Map(_FIRST)
        self.size = 0  # bytes received
        self.released = 0  # bytes below this were given back (page-aligned)

    def append(self, data) -> None:
        m = memoryview(data).cast("B")
        need = self.size + len(m)
        if need > self.map.capacity:
            self._grow(need)
        self.map[self.size:need] = m
        self.size = need
        self.map.n = need - need % 8 if self.map.growing else need

    def append_from(self, readinto, n: int) -> int:
        """Up to ``n`` more bytes, read straight into the map by ``readinto(view)`` (a
        file's ordinary read, no copy in between); returns how many came (0: the end)."""
        need = self.size + n
        if need > self.map.capacity:
            self._grow(need)
        with memoryview(self.map) as whole, whole[self.size:need] as view:
            got = readinto(view) or 0
        self.size += got
        self.map.n = self.size - self.size % 8 if self.map.growing else self.size
        return got

    def skip(self, n: int) -> None:
        """``n`` more bytes arrived that nothing will read (the walk has stopped framing):
        counted in ``len()``, not kept. Only words below the kept ones may be read after."""
        self.size += n
        self.map.n = self.size - self.size % 8 if self.map.growing else self.size

    def _grow(self, need: int) -> None:
        """A larger map holding the live bytes at the same offsets (the rest is never
        touched, so it costs address space, not memory)."""
        cap = self.map.capacity
        while cap < need:
            cap *= 2
        new = _Map(cap)
        new[self.released:self.size] = self.map[self.released:self.size]
        new.n, new.growing = self.map.n, self.map.growing
        old, self.map = self.map, new
        try:
            old.close()
        except BufferError:
            pass  # a view of it is still alive; the old map goes when it does

    def view(self):
        """The buffer the walk reads (only between ``append`` calls: hold no view across one)."""
        return self.map

    def end(self) -> None:
        """No more bytes: ``len()`` becomes the exact length and decisions are final."""
        self.map.growing = False
        self.map.n = self.size

    def release(self, upto: int) -> None:
        """Give back the pages wholly below byte ``upto``."""
        end = min(upto, self.size) - min(upto, self.size) % mmap.PAGESIZE
        if end > self.released and hasattr(mmap, "MADV_DONTNEED"):
            try:
                self.map.madvise(mmap.MADV_DONTNEED, self.released, end - self.released)
            except (OSError, ValueError):
                return
            self.released = end

    def close(self) -> None:
        try:
            self.map.close()
        except BufferError:
            pass  # a view is still alive somewhere; the map goes with it
