"""Feed the walk from a stream: the same engine as a whole buffer, driven window by window.

A ``Feeder`` owns no I/O (h11's rule): ``feed(data)`` appends bytes to a
``StreamBuffer`` and, once enough have arrived, lets the one ``Walk`` advance over
them: the native walk's steps, or the reference path's records, on the records wholly
received.
A decision the reader takes from bytes after a record (a size its content settles, a
header that fits, the magic search, a message naming the bytes left) raises
``NeedMore`` on a stream still growing; the walk stops before that record and takes it
again with more bytes or at ``close``. So every consumer sees the records and states of
the whole buffer, in the same order, and the findings are the whole buffer's whatever
the chunks. Memory is the unprocessed tail (the pages behind the walk are given back),
the provider tables and what the consumers keep, not the stream.
"""

from __future__ import annotations

import mmap

from . import _file
from ._stream_buffer import NeedMore, StreamBuffer
from ._walk import Walk

# bytes before the format can be told (a structured-log stream, a file that is not FXT
# at all, the byte order): the first 64 bytes say it, as they do for a whole file
HEAD_BYTES = 64
# bytes received between two advances of the walk: each advance has fixed costs (the
# native walk's stop: its rows taken, its findings rendered), so a stream fed byte by byte
# is still walked in steps
DEFAULT_STEP = 1 << 20


class Stream(StreamBuffer):
    """A ``StreamBuffer`` whose map asks the kernel for huge pages (``MADV_HUGEPAGE``,
    where transparent huge pages are on or ``madvise``): a chunk read into it faults
    2 MiB at a time, not 4 KiB (a 250 MB stream: about 130 faults instead of 64k, each of
    which is the kernel's time). The pages behind the walk are given back as before (a
    huge page partly given back is split: resident memory stays the unread tail)."""

    def __init__(self):
        super().__init__()
        _huge(self.map)

    def _grow(self, need: int) -> None:
        super()._grow(need)
        _huge(self.map)


def _huge(m) -> None:
    if hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            m.madvise(mmap.MADV_HUGEPAGE)
        except (OSError, ValueError):
            pass  # (no transparent huge pages here: 4 KiB pages, as before)


class Feeder:
    """Walks a stream for ``consumers`` as it is fed: ``feed(bytes)`` any number of
    times, then ``close()``. ``make_walk(buf, consumers)`` builds the walk once the
    first bytes are there (format and byte order chosen from them, as for a file).

    ``step``: bytes between two advances (smaller finds sooner, costs more scans).
    """

    def __init__(self, consumers, make_walk, *, step: int = DEFAULT_STEP):
        self.consumers = list(consumers)
        self.make_walk = make_walk
        self.step = max(1, step)
        self.stream: StreamBuffer = Stream()
        self.walk: Walk | None = None
        self.started = False  # the file-level checks passed, the consumers started
        self.not_fxt = False  # said so once: the rest is drained
        self.closed = False
        self._tried = 0
        self._scratch = bytearray(0)  # what a drained source is read into (counted, not kept)

    @property
    def size(self) -> int:
        """Bytes received."""
        return self.stream.size

    def feed(self, data) -> None:
        if self.closed:
            raise ValueError("feed() after close()")
        if not len(data):
            return
        if self._draining():
            self.stream.skip(len(data))  # drained (framing has stopped): counted, not kept
            return
        self.stream.append(data)
        self._arrived()

    def feed_from(self, readinto, n: int) -> int:
        """Like ``feed``, the bytes read by ``readinto(view)`` (up to ``n``) straight into
        the stream's buffer: a file's ordinary reads, with no copy. Returns how many
        came (0: the source has ended)."""
        if self.closed:
            raise ValueError("feed() after close()")
        if self._draining():
            if len(self._scratch) < n:
                self._scratch = bytearray(n)
            with memoryview(self._scratch) as view:
                got = readinto(view[:n]) or 0
            self.stream.skip(got)
            return got
        got = self.stream.append_from(readinto, n)
        if got:
            self._arrived()
        return got

    def _draining(self) -> bool:
        return self.not_fxt or (self.walk is not None and self.walk.zero_at is not None)

    def _arrived(self) -> None:
        size = self.stream.size
        if size < HEAD_BYTES:
            return
        # the file-level checks as soon as the first bytes are in (a stream that is not FXT
        # is said at once), asked again as the stream doubles while they need more bytes
        if size - self._tried >= self.step or (not self.started and size >= 2 * self._tried):
            self._advance()

    def flush(self) -> None:
        """Advance over what has arrived now, without waiting for a whole step (the source
        is idle: a slow writer's findings need not wait for its next megabyte)."""
        if not self.closed and not self.not_fxt and self.stream.size >= HEAD_BYTES and self.stream.size > self._tried:
            self._advance()

    def close(self) -> None:
        """The stream ended: walk what is left with the end in sight, and finish."""
        if self.closed:
            return
        self.closed = True
        self.stream.end()
        if self.walk is None:
            # never stepped: the whole-buffer walk, exactly as for a file (it did not skip any byte)
            self.walk = self.make_walk(self.stream.view(), self.consumers)
            self.walk.run()
            return
        walk = self.walk
        walk.buf = self.stream.view()
        if not self.not_fxt:
            self._advance()
        if self.started:
            walk.records = walk.index
            walk.cut_short = walk.stopped
        walk.end_stream()
        for c in walk.consumers:
            c.finish(walk)

    def release(self) -> None:
        """Give the stream's memory back (after ``close``)."""
        self.stream.close()

    # -- one advance of the walk ----------------------------------------------------
    def _advance(self) -> None:
        self._tried = self.stream.size
        if self.walk is None:
            self.walk = self.make_walk(self.stream.view(), self.consumers)
        walk = self.walk
        walk.buf = self.stream.view()
        try:
            if not self.started:
                if not walk.begin():
                    self.not_fxt = True
                    self.stream.release(self.stream.size)
                    return
                walk.start_steps()
                for c in walk.consumers:
                    c.start(walk)
                self.started = True
            walk.advance()
        except NeedMore:
            return  # the file-level checks need more bytes
        self.stream.release(8 * walk.cur)


def stream_walk(make_walk, consumers, chunks, *, step: int | None = None) -> Walk:
    """Walk an iterable of byte chunks for ``consumers`` (the CLI's pipes and follows;
    a None chunk: the source is idle, walk what has come), or a ``FileSource``: the
    file read to its end in reads of ``step`` bytes (default ``_file.CHUNK``), then its
    length checked (``FileChanged`` before the walk's end: no consumer finishes on a
    changed file)."""
    file = isinstance(chunks, _file.FileSource)
    step = step or (_file.CHUNK if file else DEFAULT_STEP)
    f = Feeder(consumers, make_walk, step=step)
    if file:
        chunks.rewind()
        while f.feed_from(chunks.readinto, step):
            pass
        chunks.check(f.size)
    else:
        for chunk in chunks:
            if chunk is None:
                f.flush()
            else:
                f.feed(chunk)
    f.close()
    assert f.walk is not None
    return f.walk


def walk_source(buf, make_walk, consumers=()) -> Walk:
    """Run the walk ``make_walk(buf, consumers)`` builds over ``buf``. A ``FileSource``
    (a file read, not mapped: ``_file``) is read a chunk at a time and walked as a
    stream as the chunks come, each chunk an advance; its ``FileChanged`` propagates
    (the walk's consumers have seen the records before it). Anything else is a buffer,
    walked whole."""
    if isinstance(buf, _file.FileSource):
        return stream_walk(make_walk, consumers, buf)
    walk = make_walk(buf, list(consumers))
    walk.run()
    return walk


def begins(source: _file.FileSource, make_walk) -> bool:
    """Whether the walk of a file read in chunks gets past its file-level checks (False:
    it is not FXT at all, and MG005 went to the walk's ``emit``), decided from its first
    chunk as a stream's walk decides it, before anything is written for it (a verb that
    writes nothing for such a file). A first record longer than the chunk frames as a
    trace record: that is not another file format's bytes."""
    stream = StreamBuffer()
    try:
        source.rewind()
        stream.append_from(source.readinto, _file.CHUNK)
        if stream.size == len(source):
            stream.end()
        try:
            return make_walk(stream.view(), []).begin()
        except NeedMore:
            return True
    finally:
        stream.close()
