"""A file read with ordinary reads, never memory-mapped: one that changes under the walk
is an I/O error, not a crash.

A memory-mapped file that another process truncates kills the reader with SIGBUS as
soon as it touches a page past the new end (in the native walk), with no
message. So a file is read, not mapped: a small one whole into bytes, a larger one in
chunks that the walk takes as a stream's (``_feeder``: the bytes at their own offsets
in an anonymous map whose pages behind the walk are given back), so memory stays with
the tables and the unread chunk, not the file. A read cannot fault: a file that shrank
ends early, one that grew reads on, and either is ``FileChanged`` (an ``OSError``, so
every verb says it as the I/O error it is and exits 2) once its end is reached.
"""

from __future__ import annotations

import errno
import os

# files up to this size are read whole into bytes and walked as a buffer (a chunked
# walk's fixed costs are not worth it); larger ones are read and walked a chunk at a time
WHOLE = 1 << 20
CHUNK = 8 << 20  # bytes read at a time, and walked between two advances of a file's walk


class FileChanged(OSError):
    """The file's length changed while it was read (another process truncated it, or
    wrote on): what the walk read is not the file that was opened. An ``OSError``
    (``EIO``) whose ``strerror`` says what happened and whose ``filename`` is the path."""

    @classmethod
    def saying(cls, path: str, what: str) -> FileChanged:
        return cls(errno.EIO, f"changed while being read: {what}", path)

    @classmethod
    def length(cls, path: str, expected: int, read: int) -> FileChanged:
        return cls.saying(path, f"{expected} bytes expected, {read} read")


class FileSource:
    """A regular file opened to be walked (``open_buffer``'s, for files over ``WHOLE``).

    A pass (``_feeder.stream_walk``) reads it front to back with ``readinto`` straight
    into the stream's buffer, then ``check``s the length read against the one it had
    when opened (``FileChanged``). ``len()`` is that length, and a slice reads those
    bytes again (the few rows of a hex view after the walk) with ``os.pread``, which
    cannot fault either. It is not a buffer: the walk takes it through
    ``_feeder.walk_source``.
    """

    def __init__(self, fh, path: str, size: int, progress=None):
        self.fh = fh
        self.path = path
        self.size = size
        self.progress = progress  # told (bytes read, size) after each read of a pass, or None
        self.done = 0

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, index: slice) -> bytes:
        if not isinstance(index, slice) or index.step not in (None, 1):
            raise TypeError("a FileSource is read by contiguous slices")
        start, stop, _ = index.indices(self.size)
        if stop <= start:
            return b""
        return os.pread(self.fh.fileno(), stop - start, start)

    def readinto(self, view) -> int:
        """Read the next bytes into the writable ``view`` (as ``io.RawIOBase.readinto``:
        0 at the end). A pass starts at ``rewind``."""
        n = self.fh.readinto(view)
        if self.progress is not None:
            self.done += n or 0
            self.progress(self.done, self.size)
        return n

    def rewind(self) -> None:
        """Start a pass over the file from its first byte."""
        self.fh.seek(0)
        self.done = 0

    def check(self, read: int) -> None:
        """After a pass that read ``read`` bytes to the file's end: ``FileChanged`` when
        that is not the length the file had when opened (a shrink ends the reads early,
        growth reads on to the new end)."""
        if read != self.size:
            raise FileChanged.length(self.path, self.size, read)


def read_whole(fh, path: str, size: int) -> bytes:
    """A small file's bytes, read to its end; ``FileChanged`` when they are not the
    ``size`` bytes it had when opened."""
    data = fh.read()
    if len(data) != size:
        raise FileChanged.length(path, size, len(data))
    return data
