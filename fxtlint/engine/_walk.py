"""One walk over a trace, many consumers: the engine every verb runs.

A ``Walk`` reads a buffer once, in file order, and hands what it reads to its
consumers. The linter (``_lint_consumer.Lint``), the coverage and statistics
(``_coverage.CoverageCollector``), the Trace Event export (``_export_tef``) and the
canonical decoding (``_canonical``) are consumers. It takes one of two paths:

- **the native walk**, for the linter, alone or with consumers that ride beside it
  (``Consumer.rides_native``: report's coverage, counted by the walk's coverage mode,
  ``_walk_coverage``; export and decode, behind a linter whose findings nothing reads,
  formatting the rows of its rows mode, ``_walk_rows``) (``_walk_native``, ``_nwalk.pyx``;
  engines ``auto`` and ``native``, every file size, a trace in either byte order or a
  structured-log stream, whole or fed as a stream): one compiled pass in file order that
  hands the records it cannot prove clean to the per-record reader, one by one, and the
  linter's ``record`` (and the riders');
- **the reference path** (the engine ``reference``; where the native walk is not built;
  and wherever a consumer that cannot ride the native walk is aboard): the per-record
  reader alone, every record decoded and handed to ``record`` with the change it made to
  the provider tables, whole (``one_by_one``) or a stream's records as they arrive
  (``_advance_records``).

Both paths give every consumer the same records in the same states, so each consumer's
output must be the same either way (``tests/test_nwalk.py``, ``tests/test_export_walk.py``
and ``tests/test_report_walk.py`` hold the native walk to the reference, whole output
compared). Memory is the provider tables and what the consumers keep; a memory-mapped
file's pages are given back as the walk moves on.
"""

from __future__ import annotations

import mmap
import struct
from collections import Counter

from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._tables import tables
from ._native import nwalk, walks_natively
from ._provider_state import ProviderState
from ._reader import (
    MagicSearch,
    after_record,
    decode_record,
    forget_chains,
    frame_error,
    length_check,
    size_fields,
    start_checks,
    walk_records,
)
from ._stream_buffer import NeedMore

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from ._walk_native import NativeLint

_T = tables()
TYPE = _T.field(role="type")
SIZE = _T.field(role="size")


class Consumer:
    """Something the walk feeds. Subclasses override what they need."""

    def start(self, walk: Walk) -> None:
        """Before the first record (after the file-level checks)."""

    def record(self, rec, change) -> None:
        """A decoded record, in file order; the provider tables are as it left them and
        ``change`` is what it did to them (None: nothing)."""

    def finish(self, walk: Walk) -> None:
        """After the last record (``walk.cut_short``: framing stopped early)."""

    # True: it can ride the native walk beside the linter (``ride``), the records the walk
    # hands back given to ``record`` as to the linter (report's coverage, export, decode)
    rides_native: bool = False

    def ride(self, walk: Walk, nw, module):
        """Before the native walk ``nw`` (of ``module``) runs with this consumer beside the
        linter: its rider, whose ``take()`` is called at each stop of the walk."""
        raise NotImplementedError


class Walk:
    """Walks ``buf`` once (a trace, or a structured-log stream with ``log``) for
    ``consumers``; reader diagnostics go to ``emit``."""

    def __init__(self, buf, consumers, *, big: bool = False, log: bool = False, emit=None,
                 limits: Limits = DEFAULT_LIMITS, engine: str | None = None, resync: bool = False):
        self.buf = buf
        # False: every record is framed by its declared size, the spec's reading (the lint's
        # verdict); True: recovery reads on from a header a size swallowed (FR004, decode_record)
        self.resync = resync
        # ``engine`` (``_native.ENGINES``; None: the default) chooses the path
        self.engine = engine
        self.consumers = list(consumers)
        self.big = big
        self.log = log
        self.emit = emit if emit is not None else (lambda d: None)
        self.limits = limits
        self.state = ProviderState()
        self.kinds: Counter = Counter()
        self.records = 0
        self.not_fxt = False  # the file-level checks said it is not FXT at all: nothing was walked
        self.cut_short = False  # framing stopped before the end of the data
        self._begun = False
        self.zero_at: int | None = None  # a stream's header of size 0, said when the stream ends
        # the magic search, kept across a stream's attempts at ``begin``: it goes on where it stopped
        self._magic = MagicSearch(big)
        # the linter, when it is this walk's first consumer (``_lint.lint_walk`` says which it
        # is): the walk then runs the native walk (``_walk_native``) where it is built
        self.lint: Consumer | None = None
        self._native: NativeLint | None = None
        self._native_known: bool | None = None  # ``_wants_native`` for a whole run (``run``)

    def begin(self) -> bool:
        """The file-level checks, once (``run`` makes them): False when the file is not
        FXT at all (MG005 said so), and nothing is walked."""
        if not self._begun:
            # on a stream this may need more bytes (NeedMore): it is asked again with them
            self.not_fxt = start_checks(self.buf, self.emit, self.big, self.log, search=self._magic)
            self._begun = True
            self._length_left = getattr(self.buf, "growing", False)  # begun before the stream's end
        return not self.not_fxt

    def end_stream(self) -> None:
        """The file-level check a stream begun before its end makes at its end (its length)."""
        if self._begun and self._length_left and not self.not_fxt:
            length_check(len(self.buf), self.emit)

    def run(self) -> int:
        """Walk; returns the number of records."""
        try:
            return self._run()
        finally:
            forget_chains()  # (the reader's look-ahead memo holds the bytes it chained: not past the walk)

    def _run(self) -> int:
        if self.begin():
            # asked once for the run (the linter's start asks again)
            native = self._native_known = self._wants_native()
            for c in self.consumers:
                c.start(self)
            if native:
                self.start_steps()
                self.advance()
                self.records = self.index
                self.cut_short = self.stopped
            else:
                consumers = self.consumers
                for rec, change in self.one_by_one():
                    for c in consumers:
                        c.record(rec, change)
        for c in self.consumers:
            c.finish(self)
        return self.records

    # -- the reference path: the per-record reader alone ------------------------------
    def one_by_one(self):
        """Yield (record, change) for every record, its effect carried out: the reference
        path's walk of a whole buffer, pulled by the caller (after ``begin``)."""
        buf, state, kinds = self.buf, self.state, self.kinds
        n = walked = 0
        for rec in walk_records(buf, self.emit, big=self.big, log=self.log, resync=self.resync):
            n += 1
            walked = rec.end
            kinds[rec.kind] += 1
            yield rec, state.apply(rec)
            self.records = n
        self.records = n
        # framing stopped before the last whole word: what is open may end in the rest
        self.cut_short = n > 0 and walked < len(buf) - len(buf) % 8
        # where it stopped, as the walk by steps says it (``start_steps``): the next word to
        # frame, its record's index, and whether framing stopped there for good (what repair
        # reads of IN's lint: ``rewrite._resume``)
        self.cur, self.index, self.stopped = walked // 8, n, self.cut_short

    # -- by steps (a stream, a file read in chunks, the native walk) ------------------
    def start_steps(self) -> None:
        """Set up the walk by steps (after ``begin``); ``advance`` then walks the buffer:
        the native walk (``_wants_native``), the reference path's records one by one
        otherwise."""
        self.magic_at = self._magic.find(self.buf)
        self.cur = self.index = self._released = 0  # the next word to frame, and its record's index
        self.stopped = False  # framing stopped for good (a header it cannot frame)
        self._native = self._native_lint()
        if self._native is None:
            self._large = size_fields(self.log)

    def lints_natively(self) -> bool:
        """Whether the linter of this walk runs on the native walk (``_wants_native``)."""
        return self._wants_native()

    def _wants_native(self) -> bool:
        """Whether this walk takes the native walk: a trace in either byte order or a
        structured-log stream, whole or fed as a stream (``StreamLinter``, a file read in
        chunks), all take it. It declines only where it cannot or must not: the engine
        is ``reference`` (or its alias ``python``), the walk is not built here (an FxtError
        for ``native``), there is no linter first aboard (the reference path's own walks),
        or a consumer other than the linter that cannot ride the native walk is aboard
        (``rides_native`` False: the linter and it then share the reference path)."""
        if self._native_known is not None:
            return self._native_known
        return (self.lint is not None and self.consumers[:1] == [self.lint]
                and all(c.rides_native for c in self.consumers[1:]) and walks_natively(self.engine))

    def _native_lint(self) -> NativeLint | None:
        """The native walk's driver, when this walk takes it (``_wants_native``)."""
        if not self._wants_native():
            return None
        from ._walk_native import NativeLint

        module = nwalk()
        assert module is not None
        return NativeLint(self, self.lint, module)

    def settle_zero(self) -> bool | None:
        """Framing stopped at a header of size 0 whose message names the bytes after it
        (``zero_at``: only its word and the stream's length are read, the rest was counted,
        not kept): said once the stream has ended. Returns what ``advance`` returns then
        (False once said), or None when there is no such header and the walk goes on."""
        if self.zero_at is None:
            return None
        if not getattr(self.buf, "growing", False):
            frame_error(8 * self.zero_at, self.index, 0, self.buf, self.emit, self.big)
            self.stopped = True
        return not self.stopped

    def advance(self) -> bool:
        """Walk the records of ``buf`` from where the last call left off. A buffer that
        is still growing (a stream, ``_stream_buffer``) is walked up to the first record
        not wholly there, or the first decision that needs bytes still to come
        (``NeedMore``); the next call, with more bytes, goes on from there, so the
        records and findings are those of the whole buffer however it was cut.
        Returns False when framing stopped for good."""
        if self._native is not None:
            return self._native.advance()
        return self._advance_records()

    def _advance_records(self) -> bool:
        """``advance`` on the reference path: the per-record reader from ``cur`` / ``index``,
        every record decoded, its effect carried out and handed to every consumer's
        ``record``, as ``one_by_one`` does for a whole buffer. On a growing stream it stops
        at the first record not wholly received, or at a decision that needs bytes still
        to come (``NeedMore``), and takes it again with them."""
        buf, emit, big, log, state, kinds, consumers = (self.buf, self.emit, self.big, self.log, self.state,
                                                         self.kinds, self.consumers)
        growing = getattr(buf, "growing", False)
        settled = self.settle_zero()
        if settled is not None:
            return settled
        n = len(buf)
        unpack = struct.Struct(">Q" if big else "<Q").unpack_from
        large = self._large
        off, index, stop = 8 * self.cur, self.index, self.stopped
        while not stop and n - off >= 8:
            (header,) = unpack(buf, off)
            size = large.get(TYPE.get(header), SIZE).get(header)
            if size == 0:
                try:
                    frame_error(off, index, 0, buf, emit, big)
                except NeedMore:
                    self.zero_at = off // 8  # its message names the bytes left: said at the end
                    break
                stop = True
                break
            if off + 8 * size > n:
                if growing:
                    break  # the record has not wholly arrived: framed next time
                frame_error(off, index, size, buf, emit, big)
                stop = True
                break
            try:
                rec = decode_record(buf, off, index, size, emit, big=big, log=log, resync=self.resync)
            except NeedMore:
                break  # a stream: taken again with more bytes
            if not log:
                after_record(rec, emit, self.magic_at)
            kinds[rec.kind] += 1
            change = state.apply(rec)
            for c in consumers:
                c.record(rec, change)
            off = rec.end  # the declared size, unless the content settled it (resync_offset)
            index += 1
        self.cur, self.index, self.stopped = off // 8, index, stop
        self.records = index
        return not stop

    def _release(self, done: int, upto: int) -> int:
        """Give back the pages of a memory-mapped file that the walk has left behind."""
        if not isinstance(self.buf, mmap.mmap) or not hasattr(mmap, "MADV_DONTNEED") or hasattr(self.buf, "growing"):
            return done  # a stream's buffer is given back by its feeder, which knows what findings hold
        end = upto - upto % mmap.PAGESIZE
        if end > done:
            try:
                self.buf.madvise(mmap.MADV_DONTNEED, done, end - done)
            except (OSError, ValueError):
                return done
            return end
        return done
