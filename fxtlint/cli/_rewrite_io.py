"""What ``repair`` and ``slice`` share on the command line: IN read in place, OUT written
atomically, an interrupted run cleaned up.

- IN (a path, or ``-`` for standard input) is read in place a chunk at a time
  (``rewrite/_input.Input``): no copy of it anywhere, memory flat; a file whose length
  changes while it is read is ``FileChanged`` (exit 2, one line).
- each output is written to a temporary ``.part`` file beside it and renamed when whole
  (``Outputs``); an interrupted run (Ctrl-C, SIGTERM) removes the files it was writing
  and those it wrote, and exits 130 (SIGINT) or 143 (SIGTERM) with one line saying so.
"""

from __future__ import annotations

import os
import secrets
import signal
import stat
import sys
from contextlib import contextmanager

from ..engine._file import FileChanged
from . import _common


class Interrupted(KeyboardInterrupt):
    """SIGTERM, raised where the run is, so its outputs are removed as for Ctrl-C."""

    signum = signal.SIGTERM


@contextmanager
def interruptible():
    """SIGTERM raises ``Interrupted`` inside the block (the main thread's only: a test's
    worker thread leaves the handlers alone)."""
    def on_term(signum, frame):
        raise Interrupted()

    try:
        previous = signal.signal(signal.SIGTERM, on_term)
    except ValueError:  # not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def interrupted_status(e: KeyboardInterrupt, removed: list[str]) -> int:
    """Say the run was interrupted and what was removed; the shell's status for the signal."""
    signum = getattr(e, "signum", signal.SIGINT)
    what = f"removed {len(removed)} partial output(s): {', '.join(removed)}" if removed else "nothing was written"
    _common.error(f"interrupted ({signal.Signals(signum).name}); {what}")
    return 128 + int(signum)


def lint_regular_file(path: str, progress=None, *, resume: bool = False):
    """(the lint of the regular file ``path`` read as a trace, its length, its ``os.stat``
    before the lint, what repair takes from its walk when ``resume``: ``rewrite._resume.Linted``,
    with the walk paused at a header of size 0 where a large file's has one and repair starts
    there, ``rewrite._continue``,
    else None), read as ``check`` reads it (``_lint.open_buffer``;
    ``progress(done, total)`` told after each read of a large one); None for what is not
    a regular file (standard input, a pipe, a device). Raises OSError (``FileChanged``
    when its length changed while read)."""
    from ..engine._file import FileSource
    from ..engine._lint import lint_buffer, lint_walk, open_buffer
    from ..engine._native import give_back_heap
    from ..engine._reader import forget_chains
    from ..rewrite._continue import lint_keeping
    from ..rewrite._resume import Linted, resume_at

    if path == "-":
        return None
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        return None
    at = None
    with open_buffer(path, progress) as buf:
        if resume:  # the walk's tables and where it stopped, beside its report (lint_buffer's report)
            paused = None
            if isinstance(buf, FileSource):  # (read a chunk at a time: the walk may pause at a zeroed page)
                report, walk, paused = lint_keeping(buf, path)
            else:
                try:
                    report, walk = lint_walk(buf, input_format="trace", path=path)
                finally:
                    forget_chains()
            place = resume_at(report, walk, lambda start, end: buf[start:end])
            if paused is not None and (place is None or place.offset != paused.place):
                paused = None  # (repair does not start at the pause: its walk let go now, RSS)
            # (a file that is not FXT at all: its walk never stepped, it stopped nowhere)
            at = Linted(place, 8 * walk.cur if getattr(walk, "stopped", False) else None, paused)
            del walk  # (its tables and buffers let go before the heap is given back: RSS)
        else:
            report = lint_buffer(buf, input_format="trace", path=path)
    give_back_heap()
    if progress is not None:
        progress(st.st_size, st.st_size)
    return report, st.st_size, st, at


def copy_unchanged(path: str, st: os.stat_result, out, send=None) -> None:
    """Copy the regular file ``path`` to the open file ``out`` as it is (the kernel's copy
    where it can, no bytes through Python; ``send(out, fd, offset, size)``, where given, the
    bytes written: repair's ``rewrite._repair_out.send``), after a pass that read it when
    ``os.stat`` said ``st``; ``FileChanged`` (exit 2) when its length or its modification time
    is not that pass's any more: the bytes copied must be the bytes that pass read."""
    out.flush()
    with open(path, "rb", buffering=0) as fh:
        now = os.fstat(fh.fileno())
        if not _same(now, st):
            copied = -1
        elif send is not None:
            copied = send(out, fh.fileno(), 0, st.st_size)
        else:
            copied = _copy(fh, out, st.st_size)
        after = os.fstat(fh.fileno())
    if copied != st.st_size or not _same(after, st):
        raise FileChanged.saying(path, "it is not the file the lint read any more")


def resumable(inp, st: os.stat_result, path: str) -> None:
    """IN opened again (``inp``, an ``Input`` of a regular file) is the file its lint read
    when ``os.stat`` said ``st``: repair takes over the lint's tables (``rewrite._resume``),
    so the bytes it copies before them must be the ones the lint read; ``FileChanged``
    (exit 2) when its length or modification time moved."""
    source = getattr(inp, "source", None)
    if source is None or not _same(os.fstat(source.fh.fileno()), st):
        raise FileChanged.saying(path, "it is not the file the lint read any more")


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    """The same file, unchanged: its device and inode, length and modification time."""
    return (a.st_dev, a.st_ino, a.st_size, a.st_mtime_ns) == (b.st_dev, b.st_ino, b.st_size, b.st_mtime_ns)


def _copy(src, out, size: int) -> int:
    """Bytes copied from the start of ``src`` to ``out``'s position, at most ``size``."""
    done = 0
    fin, fout = src.fileno(), out.fileno()
    try:
        while done < size:
            n = os.copy_file_range(fin, fout, min(size - done, 1 << 30), done)
            if n == 0:
                return done
            done += n
        return done
    except OSError:  # no kernel copy between these files (another file system, an old kernel)
        pass
    os.lseek(fout, 0, os.SEEK_SET)
    os.ftruncate(fout, 0)
    done = 0
    chunk = bytearray(1 << 22)
    src.seek(0)
    while done < size:
        n = src.readinto(memoryview(chunk)[:min(len(chunk), size - done)])
        if not n:
            break
        out.write(memoryview(chunk)[:n])
        done += n
    out.flush()
    return done


@contextmanager
def opened_input(path: str, progress=None):
    """IN as an ``Input`` read in place (standard input for ``-``). Raises OSError."""
    from ..rewrite._input import Input

    if path == "-":
        inp = Input(sys.stdin.buffer.readinto, None, "-", progress=progress)  # type: ignore[union-attr]
        try:
            yield inp
        finally:
            inp.close()
        return
    with open(path, "rb", buffering=0) as fh:
        inp = Input.of_file(fh, path, progress=progress)
        try:
            yield inp
        finally:
            inp.close()


class Outputs:
    """The files a run writes, each through a temporary ``.part`` file beside it renamed
    once whole (``open`` ... ``commit``); ``remove_all`` takes every one away again (the
    partial one and those already renamed), for an interrupted run."""

    def __init__(self):
        self.parts: dict[str, str] = {}  # final path -> its .part file, while written
        self.done: list[str] = []

    def open(self, path: str):
        """A new ``.part`` file beside ``path``, named in ``parts`` before it exists (an
        interrupt at any point finds it there to remove), made as ``open`` would (the umask's mode)."""
        folder = os.path.dirname(os.path.abspath(path))
        while True:
            tmp = os.path.join(folder, f".fxtlint-{os.getpid()}-{secrets.token_hex(6)}.part")
            self.parts[path] = tmp
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            return os.fdopen(fd, "wb", buffering=1 << 20)

    def commit(self, path: str) -> None:
        self.done.append(path)  # named first: an interrupt during the rename finds one or the other
        os.replace(self.parts[path], path)
        del self.parts[path]

    def discard(self) -> None:
        """Remove the ``.part`` files still being written (a failure: the finished ones stay)."""
        for tmp in self.parts.values():
            _unlink(tmp)
        self.parts.clear()

    def remove_all(self) -> list[str]:
        """Remove every file of the run; the final paths removed, or of the parts."""
        removed = list(self.parts)
        self.discard()
        for path in self.done:
            _unlink(path)
        removed = list(dict.fromkeys(self.done + removed))
        self.done = []
        return removed


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (``b`` may not exist yet)."""
    if a == "-":
        return False
    try:
        if os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        return False
    return os.path.realpath(a) == os.path.realpath(b)
