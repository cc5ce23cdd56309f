"""IN's byte ranges written to OUT past the page cache (``O_DIRECT``), where the system lets it.

Repair writes most of OUT as IN's bytes: the whole of a trace with nothing to mend
(``cli/repair.py``), the records before the place it starts from and the rest after a
zeroed page (``_repair_walk``, ``_continue``). Sent by the kernel (``sendfile``,
``copy_file_range``), every byte is copied again into a new page of OUT's page cache:
on this project's machines (virtual ones) that copy cost 0.15-0.6 s of system time per
500 MB, more than it costs to read IN (bench/README.md, ``repair49``). ``send`` reads a
large range of IN into a buffer of its own (IN's pages are in the cache: IN's lint just
read them) and writes it with ``O_DIRECT`` from there (the disk reads it from the buffer:
no copy into OUT's page cache), a few MiB at a time; the bytes before OUT's next 4 KiB
boundary and after the last whole block are written as before, through the page cache.
Where the file system refuses ``O_DIRECT`` (or the range is small) the range is sent by
the kernel as before (``_slice_pass.send_range``), and so is the rest of a range whose
direct writes the disk takes slower than ``MIN_RATE`` (a direct write waits for the disk;
a write to the page cache does not): the same bytes either way.
"""

from __future__ import annotations

import errno
import mmap
import os
import time
from typing import IO

from ._slice_pass import send_range

ALIGN = 4096  # O_DIRECT's alignment of file offsets, lengths and memory (a page: every block size below it)
CHUNK = 4 << 20  # bytes read and written at a time
DIRECT_MIN = 1 << 20  # ranges below this are sent by the kernel (the direct file's open costs more)
# a disk that takes the direct writes slower than this (bytes a second, over at least ``JUDGED``
# bytes of a range) gets the rest of the range by the kernel: a direct write waits for the disk,
# the page cache's does not, so on a slow disk the kernel's copy costs more CPU but less time
MIN_RATE = 400 << 20
JUDGED = 16 << 20


def send(out: IO[bytes], src: int, offset: int, size: int) -> int:
    """The ``size`` bytes of the file ``src`` from ``offset`` written at the end of ``out``
    (``_slice_pass.send_range``'s contract: returns the bytes written, fewer when the file
    ends first; ``out``'s position is its end after)."""
    if size >= DIRECT_MIN:
        got = _direct(out, src, offset, size)
        if got is not None:
            return got
    return send_range(out, src, offset, size)


def _direct(out: IO[bytes], src: int, offset: int, size: int) -> int | None:
    """``send`` by ``O_DIRECT`` writes; None where this file cannot take them (nothing
    written then)."""
    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):
        return None
    direct = getattr(os, "O_DIRECT", 0)
    if not direct:
        return None
    out.flush()
    pos = out.tell()
    try:  # (a second open file of OUT's, for its O_DIRECT writes: the first keeps its page cache writes)
        dfd = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | direct | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        sent = 0
        head = min(-pos % ALIGN, size)
        if head:  # (up to OUT's next block boundary: through the page cache)
            sent = _plain(fd, src, offset, pos, head)
            if sent < head:
                return _done(out, sent)
        buf = mmap.mmap(-1, CHUNK)
        waited = 0.0  # seconds the direct writes took, for ``written`` bytes
        written = 0
        try:
            while size - sent >= ALIGN:
                n = min(CHUNK, size - sent - (size - sent) % ALIGN)
                with memoryview(buf) as whole, whole[:n] as view:
                    got = os.preadv(src, [view], offset + sent)
                blocks = got - got % ALIGN
                if blocks:
                    t = time.perf_counter()
                    w = _write_direct(dfd, buf, blocks, pos + sent)
                    waited += time.perf_counter() - t
                    written += w
                    # refused after all, or a disk slower than the page cache's copy: the rest by the kernel
                    if w < blocks or (written >= JUDGED and written < waited * MIN_RATE):
                        sent += w
                        return _done(out, sent + _fallback(out, src, offset + sent, pos + sent, size - sent))
                    sent += blocks
                if got < n:  # IN ended first: its last bytes through the page cache
                    if got > blocks:
                        with memoryview(buf) as whole, whole[blocks:got] as last:
                            os.pwrite(fd, last, pos + sent)
                        sent += got - blocks
                    return _done(out, sent)
        finally:
            buf.close()
        if sent < size:  # (after the last whole block: through the page cache)
            sent += _plain(fd, src, offset + sent, pos + sent, size - sent)
        return _done(out, sent)
    finally:
        os.close(dfd)


def _plain(fd: int, src: int, offset: int, at: int, size: int) -> int:
    """A few bytes of ``src`` written at ``at`` of ``fd`` through the page cache."""
    data = os.pread(src, size, offset)
    if data:
        os.pwrite(fd, data, at)
    return len(data)


def _write_direct(dfd: int, buf: mmap.mmap, n: int, at: int) -> int:
    """The first ``n`` bytes of ``buf`` (whole blocks) written at ``at`` by ``O_DIRECT``: how
    many were (0: the file system refused them)."""
    with memoryview(buf) as whole, whole[:n] as part:
        try:
            return os.pwrite(dfd, part, at)
        except OSError as e:
            if e.errno != errno.EINVAL:
                raise
            return 0


def _fallback(out: IO[bytes], src: int, offset: int, at: int, size: int) -> int:
    """The rest of a range the file would not take by ``O_DIRECT``, sent by the kernel."""
    out.seek(at)
    return send_range(out, src, offset, size)


def _done(out: IO[bytes], sent: int) -> int:
    out.seek(0, 2)  # (the writes went past the file object's position: its own writes go after)
    return sent
