"""OUT's lint continued from IN's: a repair that lints once what IN's lint proved.

A repair from IN's lint's place (``_resume``) writes IN's bytes before the place as they
are, so OUT's lint up to there is IN's lint up to there. Where IN's lint, reading a file a
chunk at a time (``_feeder``), stops at a header of size 0 (a zeroed page: the message
names the bytes left, so the walk pauses there, ``Walk.zero_at``, until the stream's end),
its whole state at that place (the native walk's tables, the linter's pairing engine and
pending window, the sink, the counts) is OUT's lint's there. ``lint_keeping`` lints IN
and, at such a pause, finishes IN's lint on a copy (``copy.deepcopy`` of the walk, its
linter and sink, without the native walk, which the copy does not run again: it only
says the header of size 0 and finishes; ``_npairing.PairingEngine.__deepcopy__`` copies
the compiled pairing state) and keeps the paused walk itself (``Paused``). When repair
starts at that header (``cli/repair.py``), OUT's lint is the paused walk fed OUT's bytes
from the place on (``Paused.lint_out``): the same walk in the same state, only OUT's
bytes past the place read (``tests/test_repair_continue.py`` holds its report to a
whole lint of OUT, for the repair's OUT and for other bytes after IN's before the place).

IN's lint reads nothing past that pause (``_skip_rest``): the walk only names the bytes
left, from the file's length, and repair reads the rest (and checks its length) anyway;
the changed-while-read check the reads would have made is the file's ``fstat`` (length and
modification time) against the one taken as the lint began.

IN's rest walked once (``Paused.take_rest``). Repair's walk asks, once, after its first run
past the record ``step`` took at the place (the dropped stretch: the placeholders for the
first records framed again are written by then), whether IN's rest is written as it is.
The paused walk answers: it is fed OUT's bytes from its place, those repair wrote and then
IN's rest in the place OUT would hold it (``_Joined``), so that it lints OUT as if repair
wrote the rest unchanged. Repair writes a record as it is wherever the lint finds nothing
it acts on (``_resume.acts``: the same rule ``resume_at`` rests on), so where the walk
finds no such finding in the rest (and hands back to the reference no record that reads
or registers a thread), the rest is sent (``_repair_out.send``), its records counted, and the walk's
report is OUT's lint. What repair would have said there is the losses after the dropped
stretch: the records that read a placeholder thread (OUT's lint has it registered, as
koids 0/0, so they are clean there); the walk counts them (``NativeWalk.watch_thread``,
``take_watched``: from OUT's record index at the question, until a registration of the
thread). Where it pauses again with nothing repair acts on before it, at a header of size 0
(a second zeroed page) or before IN's last bytes (a record cut off at IN's end, a part of a
word), that is IN's lint's pause again: repair walks the rest itself,
writing IN's bytes up to there as they are, and OUT's lint is the walk continued from that
page (``lint_out``, the place moved). Where it finds something else, it is spent (a
continued lint cannot go back): repair walks the rest itself, as before, and OUT is linted
whole (a repeated magic record, an error repair acts on past the first page).
"""

from __future__ import annotations

import mmap
import os
from copy import deepcopy
from dataclasses import dataclass
from typing import Any

from .. import rules as R
from ..engine import _file
from ..engine._feeder import Feeder
from ..engine._file import FileChanged
from ..engine._lint import lint_report, walk_for
from ..engine._lint_consumer import Lint
from ..engine._reader import forget_chains
from ..engine._result import DiagnosticSink, FileReport
from ..spec._roles import THREAD_REFS
from ._repair_out import send
from ._resume import acts


@dataclass
class Paused:
    """IN's lint paused at the header of size 0 at ``place`` (record ``index``), its walk,
    linter and sink as they were there (nothing of the header said yet)."""

    walk: Any
    lint: Lint
    sink: DiagnosticSink
    place: int
    index: int
    used: bool = False
    report: FileReport | None = None  # OUT's lint, where ``take_rest`` made it

    def lint_out(self, fd: int, size: int, path: str, chunk: int | None = None) -> FileReport:
        """The lint of OUT (the open file ``fd`` of ``size`` bytes, whose bytes before
        ``place`` are IN's), the paused walk fed OUT's bytes from the page of the place
        on (once: the walk is OUT's after). Raises ``FileChanged`` when OUT is not
        ``size`` bytes long."""
        assert not self.used
        self.used = True
        chunk = chunk or _file.CHUNK
        walk = self.walk
        walk.zero_at = None
        forget_chains()
        start = self.place - self.place % mmap.PAGESIZE
        f = Feeder((), _never, step=chunk)
        f.stream.skip(start)  # (the bytes before are IN's, walked: never read again)
        f.stream.released = start
        f.walk, f.started = walk, True
        reader = _Reader(fd, start)
        try:
            while f.feed_from(reader.readinto, chunk):
                pass
            if f.size != size:
                raise FileChanged.length(path, size, f.size)
            f.close()
        finally:
            forget_chains()
            f.release()
        return lint_report(walk, self.lint, self.sink, path, f.size)


    def take_rest(self, r, at: int, out_file, part: str, st: os.stat_result, path: str,
                  chunk: int | None = None) -> bool:
        """IN's rest from ``at`` on, walked once: repair (``r``, a ``_repair._Repairer``
        reading IN from a regular file, its walk at ``at`` with OUT written up to there in
        ``out_file``, whose bytes are the file ``part``; ``st``: IN's ``os.stat`` when its
        lint began) asks whether the rest is written as it is. The paused walk is fed OUT's
        bytes from its place: those repair wrote, then IN's rest as OUT's. Where it finds
        nothing repair acts on there (``_resume.acts``: no error, nothing mended, no repeated
        magic record; no record handed back to the reference that reads or registers a
        thread), repair would write the rest as it is: it is sent (``_repair_out.send``) and
        counted, the records reading a placeholder thread counted as losses (the walk
        counts them: ``watch_thread``), and OUT's lint (``report``) is the walk's. True then;
        False where it found something (the walk is spent: OUT is linted whole, and repair
        walks the rest itself), or where it paused again with nothing before it repair acts
        on, at a header of size 0 (another zeroed page) or before IN's last bytes (a record
        cut off, a part of a word): repair walks the rest itself and writes IN's bytes up to
        there as they are, so the walk, paused there, is OUT's lint there, continued by
        ``lint_out`` from that ``place``. Raises ``FileChanged`` when IN changed."""
        source = getattr(r.inp, "source", None)
        if self.used or source is None or out_file is None or r.stopped or self.walk._native is None:
            return False
        out, log, walk, sink, lint = r.out, r.log, self.walk, self.sink, self.lint
        since = log.records_out
        nw = walk._native.nw
        if not all([nw.watch_thread(pid, ref, since) for pid, ref in out.placeholders]):
            return False  # (more placeholder threads than the walk watches: repair walks the rest, and the
            # paused walk, which counts nothing before ``since``, is OUT's lint from its place as before)
        self.used = True
        chunk = chunk or _file.CHUNK
        out_file.flush()
        at_out, end = log.bytes_out, len(source)
        size = at_out + end - at  # OUT's length once the rest is written as it is
        base = dict(sink.counts)
        handed: list = []  # records handed back to the reference that read or register a thread (past ``since``)

        def record(rec, change, _record=lint.record):
            if rec.index >= since and (THREAD_REFS.get(rec.kind) or (change is not None and
                                       change.effect == "registers_thread")):
                handed.append(rec.index)
            _record(rec, change)

        def acted() -> bool:
            return bool(handed) or any(n != base.get(code, 0) and acts(code) for code, n in sink.counts.items())

        start = self.place - self.place % mmap.PAGESIZE
        fd = os.open(part, os.O_RDONLY)
        reader = _Joined(fd, start, at_out, source.fh.fileno(), at)
        walk.zero_at = None
        forget_chains()
        f = Feeder((), _never, step=chunk)
        f.stream.skip(start)  # (the bytes before are IN's, walked: never read again)
        f.stream.released = start
        f.walk, f.started = walk, True
        lint.record = record  # type: ignore[method-assign]  # (this lint's only, until the rest is read)
        ok = True
        try:
            while f.feed_from(reader.readinto, chunk):
                if r.inp.progress is not None and reader.at > at_out:
                    r.inp.progress(at + reader.at - at_out, end)
                if acted():
                    ok = False
                    break
                if walk.zero_at is not None:
                    break  # (paused again, at a header of size 0 in IN's rest: read no further)
            if ok and walk.zero_at is None:
                if f.size != size:
                    raise FileChanged.length(source.path, end, end + f.size - size)
                f.flush()  # (the last bytes walked, the stream still open: a record cut off at its end waits)
                ok = not acted()
            # a place with nothing repair acts on before it where OUT's lint waits (a header of size 0,
            # or IN's last bytes: a record cut off, a part of a word): it pauses there, as IN's did
            pause = None if not ok else walk.zero_at if walk.zero_at is not None else \
                walk.cur if 8 * walk.cur < f.size else None
            if pause is not None:
                self.place, self.index, self.used = 8 * pause, walk.index, False
                ok = False
            elif ok:
                f.close()
                ok = not acted()
        finally:
            os.close(fd)
            forget_chains()
            f.release()
            del lint.record
        if not ok:
            return False
        now = os.fstat(source.fh.fileno())
        if (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
            raise FileChanged.length(source.path, end, now.st_size)
        if send(out_file, source.fh.fileno(), at, end - at) != end - at:
            raise FileChanged.saying(source.path, "it ended before bytes the repair had read")
        n = walk.index - since
        log.records_in += n
        log.records_out += n
        log.bytes_out += end - at
        records, hit = nw.take_watched()
        r.losses.read_many(hit, records)
        r.inp.skip_rest()
        self.report = lint_report(walk, lint, sink, path, f.size)
        return True


class _Joined:
    """``readinto`` of OUT as repair writes it, from ``at``: the file ``out_fd`` up to
    ``split``, then IN's rest (the file ``in_fd`` from ``in_at`` on) in its place."""

    def __init__(self, out_fd: int, at: int, split: int, in_fd: int, in_at: int):
        self.out_fd, self.at, self.split, self.in_fd, self.in_at = out_fd, at, split, in_fd, in_at

    def readinto(self, view) -> int:
        if self.at < self.split:
            n = os.preadv(self.out_fd, [view[: self.split - self.at]], self.at)
        else:
            n = os.preadv(self.in_fd, [view], self.in_at + self.at - self.split)
        self.at += n
        return n


def _never(buf, consumers):
    raise AssertionError("the paused walk is given")  # pragma: no cover


class _Reader:
    """``readinto`` of an open file from an offset, by ``pread`` (its own position)."""

    def __init__(self, fd: int, at: int):
        self.fd, self.at = fd, at

    def readinto(self, view) -> int:
        n = os.preadv(self.fd, [view], self.at)
        self.at += n
        return n


def lint_keeping(source: _file.FileSource, path: str,
                 chunk: int | None = None) -> tuple[FileReport, Any, Paused | None]:
    """The lint of the file ``source`` read as a trace a chunk at a time (``_lint.lint_walk``'s,
    the same report), its walk (finished), and the walk paused at a header of size 0
    (``Paused``), or None where it did not pause (or could not be copied there)."""
    chunk = chunk or _file.CHUNK
    sink = DiagnosticSink()
    lints: list[Lint] = []

    def make(b, extra):  # (``_lint.lint_walk``'s: the walk with the linter first aboard)
        walk = walk_for(b, (), input_format="trace", emit=sink.add)
        lints.append(Lint(sink.add, walk.limits, walk.log, None))
        walk.consumers = [lints[-1], *extra]
        walk.lint = lints[-1]
        return walk

    f = Feeder((), make, step=chunk)
    paused = None
    lint, kept = None, sink  # (after a pause: the copied linter and sink IN's lint finishes with)
    try:
        opened = os.fstat(source.fh.fileno())
        source.rewind()
        while f.feed_from(source.readinto, chunk):
            if f.walk is not None and f.walk.zero_at is not None:
                got = _pause(f, lints[-1], sink)
                if got is not None:  # (else IN's lint finishes on its own walk, nothing kept)
                    paused, lint, kept = got
                _skip_rest(f, source, opened)
                break
        source.check(f.size)
        f.close()
    finally:
        forget_chains()
        f.release()
    walk = f.walk
    assert walk is not None
    return lint_report(walk, lint or lints[-1], kept, path, len(source)), walk, paused


def _skip_rest(f: Feeder, source: _file.FileSource, opened: os.stat_result) -> None:
    """The walk has stopped framing for good (a header of size 0: it only names the bytes
    left, from the stream's length): the rest of the file is counted, not read (repair reads
    it, and checks its length, again). The changed-while-read check the reads would make:
    ``FileChanged`` when the file's length or modification time is not what ``fstat`` said
    when the lint began, or its length is not the length it was opened with."""
    now = os.fstat(source.fh.fileno())
    same = (now.st_size, now.st_mtime_ns) == (opened.st_size, opened.st_mtime_ns)
    if not same or not f.size <= now.st_size == len(source):
        raise FileChanged.length(source.path, len(source), now.st_size)
    f.stream.skip(len(source) - f.size)


def _pause(f: Feeder, lint: Lint, sink: DiagnosticSink) -> tuple[Paused, Lint, DiagnosticSink] | None:
    """At the walk's pause at a header of size 0: the feeder given a copy of the walk, its
    linter and sink to finish IN's lint on; the walk itself kept (``Paused``), with the
    copied linter and sink (to report IN). None where the walk is not the native walk's
    (or a part of it cannot be copied: then nothing changed)."""
    live = f.walk
    if live is None or live.zero_at is None or live._native is None or live.log or live.stopped or lint.state is None:
        return None
    place = 8 * live.zero_at
    memo: dict = {id(live._native): None, id(live.buf): live.buf, id(live.limits): live.limits}
    for rule in R.REGISTRY.values():
        memo[id(rule)] = rule  # (rules are compared by identity)
    for blk in lint.state.batch._blocks:
        memo[id(blk)] = blk  # (the native walk's row blocks: read, never changed)
    try:
        copy = deepcopy(live, memo)
    except Exception:  # (a part that cannot be copied: no pause, IN's lint as it is)
        return None
    f.walk = copy
    return Paused(live, lint, sink, place, live.index), memo[id(lint)], memo[id(sink)]
