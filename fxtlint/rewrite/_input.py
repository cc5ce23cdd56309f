"""IN as the rewrites read it: in place, a chunk at a time, memory flat.

``repair`` and ``slice`` address their input by byte offset, as the recovering reader
does. ``Input`` reads a file (or standard input) with ordinary reads into a
``StreamBuffer`` (``engine/_stream_buffer``: the bytes at their own offsets in an
anonymous map whose pages behind the rewrite are given back), only as far as the reader
asks: a reader call that needs bytes not read yet raises ``NeedMore`` and is made again
once they are in (``call``). A regular file's length is known when it is opened (the
map's ``final``: the reader frames against it without reading to the end); when the
reads reach the end, a length that is not that one is ``FileChanged`` (exit 2), as for
every verb. Nothing is copied beside OUT and nothing is mapped from the file (a file
another process truncates cannot fault the walk: a read cannot).

``Whole`` is the same interface over bytes already in memory (the library's calls and
the tests): every byte is there, nothing is read.
"""

from __future__ import annotations

import mmap
import os
import stat
from collections.abc import Callable, Iterator
from typing import Any

from ..engine._feeder import Stream
from ..engine._file import FileChanged, FileSource
from ..engine._reader import _UNPACK, _have, declared_size, decode_record, frame_error
from ..engine._stream_buffer import NeedMore, StreamBuffer
from ..rules._diagnostics import Diagnostic
from ..spec._model import Record

CHUNK = 4 << 20  # bytes read at a time, and given back behind the walk at a time


class Whole:
    """A buffer in memory, as an ``Input``: every byte there from the start."""

    def __init__(self, buf):
        self._buf = buf
        self.final: int | None = len(buf)
        self.done = True
        self.source: FileSource | None = None

    @property
    def buf(self):
        return self._buf

    @property
    def size(self) -> int:
        return len(self._buf)

    def want(self, end: int | None) -> None:
        pass

    def call(self, fn: Callable[[Any], Any]) -> Any:
        return fn(self.buf)

    def release(self, upto: int) -> None:
        pass

    def skip_to(self, at: int) -> None:
        pass  # (every byte is there)

    def close(self) -> None:
        pass


class Input(Whole):
    """IN read as far as the rewrite needs (``want``, ``call``), its pages behind the
    rewrite given back (``release``). ``readinto(view)`` reads the next bytes (a file's
    or a pipe's); ``final`` is a regular file's length (None for a pipe: known at its
    end); ``progress(done, total)`` is told the bytes read after each read."""

    def __init__(self, readinto: Callable[[Any], int], final: int | None, path: str, *,
                 source: FileSource | None = None, progress: Callable[[int, int], None] | None = None,
                 chunk: int | None = None):
        self.stream: StreamBuffer = Stream()
        self._readinto = readinto
        self.final = final
        self.path = path
        self.chunk = chunk or CHUNK
        self.done = False
        self.source = source  # a regular file: read again from its start by `restart` (slice's time range pass)
        self.progress = progress
        self._released = 0
        self.want(self.chunk)

    @classmethod
    def of_file(cls, fh, path: str, **kw) -> Input:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):  # a device or a FIFO: read as a pipe
            return cls(fh.readinto, None, path, **kw)
        return cls(fh.readinto, st.st_size, path, source=FileSource(fh, path, st.st_size), **kw)

    @property
    def buf(self):
        """The map the reader reads (fetch it again after anything that reads more)."""
        return self.stream.view()

    @property
    def size(self) -> int:
        """Bytes read so far (all of IN once ``done``)."""
        return self.stream.size

    def restart(self) -> None:
        """Read a regular file again from its first byte (after its lint read it)."""
        assert self.source is not None
        self.stream.close()
        self.stream = Stream()
        self.source.rewind()
        self.final, self.done, self._released = self.source.size, False, 0
        self.want(self.chunk)

    def skip_to(self, at: int) -> None:
        """Read a regular file on from the page holding ``at`` (the bytes before it, not
        read yet, are never read: repair's ``resume``, whose prefix the kernel copies from
        the file); a pipe is read as before."""
        at -= at % mmap.PAGESIZE
        if self.source is None or self.done or at <= self.stream.size:
            return
        self.source.fh.seek(at)
        self.stream.skip(at - self.stream.size)
        self.stream.released = self._released = at  # (nothing below it was ever touched)

    def skip_rest(self) -> None:
        """A regular file's bytes from here to its end counted, not read (repair's rest of IN,
        sent by the kernel and linted as OUT's: ``_continue.Paused.take_rest``): IN has ended."""
        assert self.source is not None and self.final is not None
        if not self.done:
            self.stream.skip(self.final - self.stream.size)
            self._end()

    def want(self, end: int | None) -> None:
        """Read until the bytes up to ``end`` are in (None: to the end), or IN ends."""
        while not self.done and (end is None or self.stream.size < end):
            need = self.chunk if end is None else max(self.chunk, end - self.stream.size)
            if self.final is not None and self.stream.size < self.final:
                need = min(need, max(self.final - self.stream.size, 8))
            got = self.stream.append_from(self._readinto, need)
            if not got:
                self._end()
            else:
                self.stream.map.final = self.final  # type: ignore[attr-defined]  # a grown map is a new one
                if self.progress is not None:
                    self.progress(self.stream.size, self.final or self.stream.size)

    def _end(self) -> None:
        if self.final is not None and self.stream.size != self.final:
            raise FileChanged.length(self.path, self.final, self.stream.size)
        self.stream.end()
        self.final = self.stream.size
        self.stream.map.final = None  # type: ignore[attr-defined]
        self.done = True

    def call(self, fn: Callable[[Any], Any]) -> Any:
        """``fn(buf)``, made again with more of IN read as long as it needs bytes not read yet."""
        while True:
            try:
                return fn(self.stream.view())
            except NeedMore as e:
                if self.done:
                    raise  # cannot happen: an ended stream is final
                need = e.args[0] if e.args else None
                self.want(None if need is None else max(need, self.stream.size + 8))

    def release(self, upto: int) -> None:
        """Give back the pages wholly below byte ``upto`` (a chunk at a time)."""
        if upto - self._released >= self.chunk:
            self.stream.release(upto)
            self._released = upto

    def close(self) -> None:
        self.stream.close()


def at_least(inp: Whole, end: int) -> bool:
    """Whether IN holds the bytes up to ``end`` (reading them in if they exist)."""
    inp.want(end)
    return inp.size >= end


def frame(inp: Whole, off: int, idx: int, big: bool, emit: Callable[[Diagnostic], None]) -> int | None:
    """The size in words of the record whose header is at ``off``, or None when it cannot
    be framed (``frame_error`` said why, to ``emit``)."""
    size = declared_size(_UNPACK[big](inp.buf, off)[0])
    if size and inp.call(lambda b: _have(b, off + 8 * size)):
        return size  # framed: no call needs IN's final length (a pipe's is known at its end only)
    def attempt(b) -> list[Diagnostic]:
        found: list[Diagnostic] = []
        frame_error(off, idx, size, b, found.append, big)
        return found

    for d in inp.call(attempt):
        emit(d)
    return None


def decode(inp: Whole, off: int, idx: int, size: int, big: bool, *,
           resync: bool = True) -> tuple[Record, list[Diagnostic]]:
    """``decode_record`` at ``off``, with its findings (made again whole when it needed more bytes)."""
    def attempt(b):
        found: list[Diagnostic] = []
        return decode_record(b, off, idx, size, found.append, big=big, resync=resync), found

    return inp.call(attempt)


def records(inp: Whole, *, big: bool, resync: bool = True) -> Iterator[Record]:
    """Every record of IN, framed and decoded as ``engine._reader.walk_records`` does
    (without its findings), reading IN as far as each record needs and giving back what
    is behind."""
    off = idx = 0
    while at_least(inp, off + 8):
        size = frame(inp, off, idx, big, _ignore)
        if size is None:
            return
        rec, _ = decode(inp, off, idx, size, big, resync=resync)
        yield rec
        off, idx = rec.end, idx + 1
        inp.release(off)


def _ignore(d) -> None:
    pass
