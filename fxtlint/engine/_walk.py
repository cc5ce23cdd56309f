"""One walk over a trace, many consumers: the engine every verb runs.

A ``Walk`` reads a buffer once, in file order, and hands what it reads to its
consumers. The linter (``_lint_consumer.Lint``), the coverage and statistics
(``_coverage.CoverageCollector``), the Trace Event export (``_export_tef``) and the
canonical decoding (``_canonical``) are consumers. It takes one of three paths:

- **the native walk**, for the linter, alone or with consumers that ride beside it
  (``Consumer.rides_native``: report's coverage, counted by the walk's coverage mode,
  ``_walk_coverage``; export, and decode on the engine ``walk``, behind a linter whose
  findings nothing reads, formatting the rows of its rows mode, ``_walk_rows``)
  (``_walk_native``, ``_nwalk.pyx``; engines ``auto``, ``walk``, ``fast`` and ``native``,
  every file size, a trace in either byte order or a structured-log stream, whole or fed
  as a stream): one compiled pass in file order that
  hands the records it cannot prove clean to the per-record reader, one by one, and the
  linter's ``record`` (and the riders');
- **the reference path** (``columns=False``; and wherever the linter is aboard and the
  native walk is not taken: the linter takes no rows, ``Consumer.takes_rows``): the
  per-record reader alone, every record decoded and handed to ``record`` with the change
  it made to the provider tables, whole (``one_by_one``) or a stream's records as they
  arrive (``_advance_records``);
- **the column path**, for decode (but on the engine ``walk``) and for export where the
  native walk is not taken (engine ``python``; every engine where it is not built), per
  window of the file:

  1. **scan** (``_scan.scan_window``, or the native kernel: ``scanner``): frame the
     window's records, cut them into batches, and screen each batch into ``Columns``:
     per leaf layout, the rows and their field columns, and the rows the reference
     decoder must read;
  2. **decode**: those rows (flagged by the screen, of an undefined type, with an
     ``effect`` on the provider tables, or of a kind a consumer asks for in
     ``decode_kinds``) go through the per-record reader in file order; each record's
     effect is carried out on the one ``ProviderState`` and stamped with its position
     (``recording``), and every consumer gets ``record(rec, change)``;
  3. **rows**: every consumer gets the batch's clean rows as columns (``Batch`` and
     ``Rows``): field values, positions, arguments, and the refs looked up against the
     provider tables as each row sees them (``_lookups``), computed once and shared. A
     consumer reads values (a string's text, an argument's value) only where it needs
     them.

Small buffers skip the columns: below ``COLUMNS_FROM`` bytes the column path's walk is
the reference path. Every path gives every consumer the same records in the same
states, so each consumer's output must be the same either way (``tests/test_walk.py``
holds the column path to the reference, ``tests/test_nwalk.py`` the native walk, whole
output compared). Memory is a few arrays per window, the provider tables, and what the
consumers keep; a memory-mapped file's pages are given back as the walk moves on.
"""

from __future__ import annotations

import mmap
import struct
from collections import Counter

from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._roles import STATE_KINDS
from ..spec._tables import tables
from ._native import ACTIVE, REQUIRED, filling, nwalk, parts, walks_natively
from ._native import kernel as chosen_kernel
from ._provider_state import ProviderState
from ._reader import (
    MagicSearch,
    after_record,
    decode_record,
    frame_error,
    length_check,
    size_fields,
    start_checks,
    walk_records,
)
from ._stream_buffer import NeedMore

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    import numpy as np

    from ._lookups import Lookups, TableCache
    from ._walk_native import NativeLint
else:
    from ._numpy import np  # imported on first use: the per-record path needs no array

_T = tables()
INLINE = _T.string_inline_bit  # a string ref's inline bit, and below it the length
LEN = INLINE - 1
TYPE = _T.field(role="type")
SIZE = _T.field(role="size")
_SBITS = LEN.bit_length()  # bits of a string index
_TBITS = max(f.width for lay in _T.record_leaves() for f in lay.all_fields() if f.role == "thread_ref")
_TRACE_ROOTS = dict(_T.records)
_LOG_ROOTS = {t: _T.log_record for t in range(1 << TYPE.width)}  # a log record is read whatever its type
# below this many bytes the columns' fixed costs exceed the per-record reader's work
# (bench/small_traces.py measures both on the golden corpus)
COLUMNS_FROM = 14 << 10
UNREGISTERED, INLINE_TEXT = -1, -2  # looked-up ids that are not table entries
_AS_ENGINE = object()  # a walk's kernel when none is given: its engine's


class Consumer:
    """Something the walk feeds. Subclasses override what they need."""

    decode_kinds: frozenset = frozenset()  # leaf kinds it needs as decoded records, not columns
    # False: it reads decoded records only (the linter): a walk with it aboard takes the
    # native walk or the reference path, never the column path
    takes_rows: bool = True

    def start(self, walk: Walk) -> None:
        """Before the first record (after the file-level checks)."""

    def record(self, rec, change) -> None:
        """A decoded record, in file order; the provider tables are as it left them and
        ``change`` is what it did to them (None: nothing)."""

    def rows(self, batch: Batch) -> None:
        """The clean rows of a batch, after the batch's decoded records."""

    def finish(self, walk: Walk) -> None:
        """After the last record (``walk.cut_short``: framing stopped early)."""

    # True: it can ride the native walk beside the linter (``ride``), the records the walk
    # hands back given to ``record`` as to the linter (report's coverage)
    rides_native: bool = False

    def ride(self, walk: Walk, nw, module):
        """Before the native walk ``nw`` (of ``module``) runs with this consumer beside the
        linter: its rider, whose ``take()`` is called at each stop of the walk."""
        raise NotImplementedError


class Walk:
    """Walks ``buf`` once (a trace, or a structured-log stream with ``log``) for
    ``consumers``; reader diagnostics go to ``emit``."""

    def __init__(self, buf, consumers, *, big: bool = False, log: bool = False, emit=None,
                 limits: Limits = DEFAULT_LIMITS, engine: str | None = None, columns: bool | None = None,
                 kernel=_AS_ENGINE, resync: bool = False):
        self.buf = buf
        # False: every record is framed by its declared size, the spec's reading (the lint's
        # verdict); True: recovery reads on from a header a size swallowed (FR004, decode_record)
        self.resync = resync
        # ``engine`` (``_native.ENGINES``; None: the default) chooses the path and the native
        # parts; ``columns`` (True, False) and ``kernel`` (a kernel module, or None for the
        # column engine) override its choice (tests, the scan step's own walks)
        self.engine = engine
        path, kernel_how, _, _ = parts(engine)
        # the scan step's engine: looked up when the column path starts (``kernel``)
        self._kernel = kernel_how if kernel is _AS_ENGINE else kernel
        self.consumers = list(consumers)
        self.big = big
        self.log = log
        self.emit = emit if emit is not None else (lambda d: None)
        self.limits = limits
        self._columns_arg = columns
        if columns is None:
            columns = path if path is not None else len(buf) >= COLUMNS_FROM
        self.columns = columns
        self.state = ProviderState()
        self.kinds: Counter = Counter()
        self.records = 0
        self.not_fxt = False  # the file-level checks said it is not FXT at all: nothing was walked
        self.cut_short = False  # framing stopped before the end of the data
        self.W: np.ndarray | None = None  # the buffer's words, while the column walk runs
        self._begun = False
        self._waiting = False  # a stream's walk stopped at a record that needs bytes still to come
        self.zero_at: int | None = None  # a stream's header of size 0, said when the stream ends
        # the magic search, kept across a stream's attempts at ``begin``: it goes on where it stopped
        self._magic = MagicSearch(big)
        # the linter, when it is this walk's only consumer (``_lint.lint_walk`` says which it
        # is): the walk then runs the native walk (``_walk_native``) where it is built
        self.lint: Consumer | None = None
        self._by_record = False  # a stream's walk on the reference path (``_advance_records``)
        self._native: NativeLint | None = None
        self._native_known: bool | None = None  # ``_wants_native`` for a whole run (``_run``)

    @property
    def kernel(self):
        """The native kernel module the scan step runs, or None for the column engine."""
        if self._kernel is ACTIVE or self._kernel is REQUIRED:
            self._kernel = chosen_kernel(self._kernel)
        return self._kernel

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
        if self.lint is not None and self.consumers == [self.lint]:
            return self._run()  # the linter alone writes no export or decode rows
        with filling(self.engine):  # export's and decode's rows, written as the engine says
            return self._run()

    def _run(self) -> int:
        if self.begin():
            # asked once for the run (the linter's start and ``start_columns`` ask again)
            native = self._native_known = self._wants_native()
            for c in self.consumers:
                c.start(self)
            if not self.columns and native:
                self.columns = True  # the native walk lints every file size
            elif self.columns and not native and not self._takes_rows():
                self.columns = False  # the linter is aboard: the reference path, never the columns
            if self.columns:
                self._walk_columns()
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
        """Yield (record, change) for every record, its effect carried out: the walk
        without columns, pulled by the caller (after ``begin``)."""
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

    # -- the column path ------------------------------------------------------------
    def _walk_columns(self) -> None:
        self.start_columns()
        self.advance()
        self.records = self.index
        self.cut_short = self.stopped

    def start_columns(self) -> None:
        """Set up the walk by steps (after ``begin``); ``advance`` then walks the buffer:
        the native walk (``_wants_native``), the reference path's records one by one when
        a consumer takes no rows (the linter where the native walk is not taken), the
        column path otherwise."""
        self.magic_at = self._magic.find(self.buf)
        self.cur = self.index = self._released = 0  # the next word to frame, and its record's index
        self.stopped = False  # framing stopped for good (a header it cannot frame)
        self._native = self._native_lint()
        if self._native is not None:
            return  # (the native walk reads none of the column path's set-up: a small lint's cost)
        self._by_record = not self._takes_rows()
        self._roots = _LOG_ROOTS if self.log else _TRACE_ROOTS
        self._reference = (frozenset() if self.log else STATE_KINDS).union(*(c.decode_kinds for c in self.consumers))
        self._large = size_fields(self.log)
        if not self._by_record:
            # the column path's lookups (numpy): imported by the first walk that takes it
            from ._lookups import TableCache

            self.cache: TableCache = TableCache(self.state)

    def _takes_rows(self) -> bool:
        """Whether every consumer takes the column path's rows (the linter takes none)."""
        return all(c.takes_rows for c in self.consumers)

    def lints_natively(self) -> bool:
        """Whether the linter of this walk runs on the native walk (``_wants_native``)."""
        return self._wants_native()

    def _wants_native(self) -> bool:
        """Whether this walk takes the native walk: a trace in either byte order or a
        structured-log stream, whole or fed as a stream (``StreamLinter``, a file read in
        chunks), all take it. It declines only where it cannot or must not: the engine
        is ``reference`` or ``python`` (no native part), the walk is not built here (an
        FxtError for ``native``), a consumer other than the linter that cannot ride the
        native walk is aboard (``rides_native`` False: export, decode read records and
        rows the native walk does not make; the linter and they then share the reference
        path; report's coverage rides it), or the column path is forced off
        (``columns=False``, the reference path's own walks)."""
        if self._native_known is not None:
            return self._native_known
        return (self.lint is not None and self.consumers[:1] == [self.lint] and self._columns_arg is not False
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
        if self._by_record:
            return self._advance_records()
        buf, emit, big = self.buf, self.emit, self.big
        growing = getattr(buf, "growing", False)
        settled = self.settle_zero()
        if settled is not None:
            return settled
        W = self.W = np.frombuffer(buf, dtype=">u8" if big else "<u8", count=len(buf) // 8)
        window, close = self.scanner(W, self._roots, self._reference, self._large)
        nw = len(W)
        cur, index, released, stop = self.cur, self.index, self._released, self.stopped
        try:
            while cur < nw and not stop:
                win = window(cur, index)
                resumed = None
                for cols in win.batches:
                    resumed = self._batch(cols)
                    if resumed is not None:
                        break
                if resumed is not None:
                    # a record's content settled its size (resync_offset): the records framed
                    # after it are dropped, and framing starts anew from its end; or a record
                    # needs bytes still to come (``NeedMore``): it is taken again with them
                    index, at = resumed
                    cur = at // 8
                    released = self._release(released, at)
                    if self._waiting:
                        break
                    continue
                if win.overrun is not None:
                    word, size = win.overrun
                    if growing:  # the last record has not wholly arrived: frame it next time
                        index += win.records
                        cur = word
                        break
                    frame_error(8 * word, index + win.records, size, buf, emit, big)
                    stop = True
                index += win.records
                if win.zero_at is not None:
                    try:
                        frame_error(8 * win.zero_at, index, 0, buf, emit, big)
                    except NeedMore:
                        cur = self.zero_at = win.zero_at  # its message names the bytes left: said at the end
                        break
                    stop = True
                if stop:
                    break
                cur = win.next_word
                released = self._release(released, 8 * cur)
        finally:
            self.W = None  # drop the views so a memory map can be closed
            close()
        self.cur, self.index, self._released, self.stopped = cur, index, released, stop
        self.records = index
        return not stop

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

    def scanner(self, W, roots: dict, reference: frozenset, large: dict):
        """The scan step over the words ``W``: ``(window, close)``, where ``window(cur,
        index0)`` is a ``_scan.Window`` of the records from word ``cur`` (the next window,
        or a fresh start after a record whose content settled its size) and ``close()``
        drops the step's views of the buffer. The native kernel's when it is built
        (``_kernel_screen.KernelScreen``: its program holds the roots and the size fields,
        and it reads the buffer itself), the column engine's ``scan_window`` otherwise."""
        # the column path's modules: imported by the first walk that takes it
        from ._columns import Screen
        from ._kernel_screen import KernelScreen
        from ._scan import scan_window

        limits = self.limits
        if self.kernel is not None:
            # the kernel reads the buffer itself: give it what the buffer holds (a stream's
            # map is longer than the bytes received so far, _stream_buffer)
            view = memoryview(self.buf)[:len(self.buf)]
            ks = KernelScreen(self.kernel, view, self.big, self.log, reference)

            def kernel_window(cur: int, index0: int):
                return ks.window(cur, index0, window_words=limits.window_words,
                                 pairing_window=limits.pairing_window)

            def kernel_close() -> None:
                ks.close()
                view.release()

            return kernel_window, kernel_close
        screen = Screen(W, self.big, self.log)

        def window(cur: int, index0: int):
            return scan_window(screen, cur, index0, window_words=limits.window_words,
                               pairing_window=limits.pairing_window, large=large, roots=roots,
                               reference_kinds=reference)

        def close() -> None:
            screen.W = None

        return window, close

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

    def _batch(self, cols) -> tuple[int, int] | None:
        """Decode the batch's reference rows, then hand its clean rows to the consumers.
        Returns None, or (index of the next record, its byte offset) when a record's
        content settled its size (``resync_offset``): the rows framed after it are
        misframed and dropped, and the walk frames anew from its end."""
        buf, emit, big, log, state, kinds, consumers = (self.buf, self.emit, self.big, self.log, self.state,
                                                         self.kinds, self.consumers)
        start = state.current
        start_name = start.name
        resumed = None
        self._waiting = False
        with state.recording() as hist:
            for r in np.nonzero(cols.reference)[0].tolist():
                try:
                    rec = decode_record(buf, 8 * int(cols.starts[r]), cols.index0 + r, int(cols.sizes[r]), emit,
                                        big=big, log=log, resync=self.resync)
                except NeedMore:
                    # a stream: this record's framing needs bytes still to come; the batch ends
                    # before it, and the walk takes it again when they arrive
                    resumed = (cols.index0 + r, 8 * int(cols.starts[r]))
                    self._waiting = True
                    for g in cols.groups:
                        g.flag[g.rows >= r] = True
                    break
                if not log:
                    after_record(rec, emit, self.magic_at)
                kinds[rec.kind] += 1
                change = state.apply(rec)
                for c in consumers:
                    c.record(rec, change)
                if rec.size_words != cols.sizes[r]:
                    resumed = (cols.index0 + r + 1, rec.end)
                    for g in cols.groups:
                        g.flag[g.rows > r] = True
                    break
        batch = Batch(self, cols, start, start_name, hist)
        for rows in batch.clean:
            kinds[rows.kind] += rows.n
        for c in consumers:
            c.rows(batch)
        batch.clean = []  # rows point back at their batch: free the columns now, not at a collection
        self.cache.changed(hist)
        return resumed


class Batch:
    """One batch as the consumers see it: its columns, its clean rows per leaf layout
    (``clean``), and the provider tables as each of its rows sees them."""

    def __init__(self, walk: Walk, cols, start, start_name, hist):
        self.walk = walk
        self.buf = walk.buf
        self.state = walk.state
        self.cols = cols
        self.index0 = cols.index0
        self.start = start
        self.hist = hist
        self._look: Lookups | None = None
        # the provider and its name each row sees: before the batch's first switch, then each switch's
        self.switches = [(start, start_name)] + [(p, name) for _, p, name in hist.providers]
        self.switch_at = np.asarray([i - cols.index0 for i, _, _ in hist.providers], np.int64)
        self.clean = [Rows(self, g) for g in cols.groups if not g.flag.all()]

    @property
    def words(self) -> np.ndarray:
        """The buffer as 64-bit words (only while the walk runs: a memory map must close after)."""
        words = self.walk.W
        assert words is not None, "a batch's words are read while its walk runs"
        return words

    @property
    def look(self) -> Lookups:
        if self._look is None:
            from ._lookups import Lookups

            self._look = Lookups(self.state, self.walk.cache, self.start, self.hist, self.index0)
        return self._look


class Rows:
    """The clean rows of one leaf layout in a batch, as columns (every array aligned to
    the rows): ``rel`` (row in the batch), ``index``, ``offset`` and ``size`` (bytes),
    ``s`` (first word). Looked-up refs are computed on first use and shared."""

    def __init__(self, batch: Batch, g):
        self.batch = batch
        self.group = g
        self.layout = g.layout
        self.kind = g.layout.name
        sel = np.nonzero(~g.flag)[0]
        self.n = len(sel)
        # every row clean (the common case): the group's columns as they are, not copies
        self.sel = sel if self.n < len(g.flag) else slice(None)
        self.rel = g.rows[self.sel].astype(np.int64)
        self.s = g.start[self.sel]
        self.offset = 8 * self.s
        self.index = self.rel + batch.index0
        self.size = 8 * (g.end[self.sel] - self.s)
        self._cache: dict = {}

    def value(self, name: str):
        """The column of a header field or body word (in native byte order)."""
        return _native(self.group.vals[name][self.sel])

    def position(self, name: str):
        """Word positions of a body item ("NAME string" for an inline string)."""
        return self.group.pos[name][self.sel]

    def _cached(self, key, make):
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = make()
        return got

    @property
    def slot(self):
        """The provider slot (``Lookups.by_slot``) current at each row."""
        return self._cached("slot", lambda: self.batch.look.slots(self.rel))

    @property
    def switch(self):
        """Per row: its entry in ``batch.switches`` (the provider and its name then)."""
        return self._cached("switch", lambda: np.searchsorted(self.batch.switch_at, self.rel, side="left"))

    def arguments(self) -> list[ArgRows]:
        """The arguments of the rows, per argument position and type."""
        def make():
            g = self.group
            where = np.full(len(g.flag), -1, np.int64)
            where[self.sel] = np.arange(self.n)
            out = []
            for ac in g.args:
                q = where[ac.rows]
                keep = np.nonzero(q >= 0)[0]
                if len(keep) == len(q):
                    out.append(ArgRows(ac, q, slice(None)))  # every row clean: views, not copies
                elif len(keep):
                    out.append(ArgRows(ac, q[keep], keep))
            return out
        return self._cached("args", make)

    def strings(self):
        """Every string ref of the rows and their arguments, looked up at once: a list of
        ``StringRefs``. ``ids``: the interned string id, 0 for the empty ref,
        ``UNREGISTERED`` for an index the provider never registered, ``INLINE_TEXT``
        for an inline string (its bytes: ``inline_bytes``)."""
        return self._cached("strings", self._strings)

    def _strings(self):
        from ..spec._roles import HEADER_FIELDS, STRING_REFS

        everyone = np.arange(self.n)
        header = HEADER_FIELDS.get(self.kind, {})
        out = [StringRefs(None, f, header.get(f), everyone, self.value(f), self.s) for f in STRING_REFS[self.kind]]
        for a in self.arguments():
            for f in a.layout.all_fields():
                if f.role == "string_ref":
                    out.append(StringRefs(a, f.name, f, a.row, a.value(f.name), a.pos))
        if out:
            refs = np.concatenate([x.refs for x in out])
            rows = np.concatenate([x.rows for x in out])
            ids = np.where(refs == 0, 0, INLINE_TEXT).astype(np.int64, copy=False)
            ind = np.nonzero((refs != 0) & ((refs & INLINE) == 0))[0]
            if len(ind):
                at = rows[ind]
                ids[ind] = self.batch.look.lookup("strings", _SBITS, refs[ind], lambda: (self.slot[at], self.rel[at]))
            lo = 0
            for x in out:
                x.ids = ids[lo:lo + len(x.refs)]
                lo += len(x.refs)
        return out

    def string_ids(self, name: str, arg: ArgRows | None = None):
        for x in self.strings():
            if x.arg is arg and x.name == name:
                return x.ids
        raise KeyError(name)

    def threads(self, name: str):
        """Thread ref ``name`` looked up per row: the interned thread id (koids:
        ``state.threads.values[id]``), ``UNREGISTERED``, or ``INLINE_TEXT`` for an inline
        thread (ref 0: its koids are words of the record)."""
        def make():
            ref = self.value(name)
            out = np.full(self.n, INLINE_TEXT, np.int64)
            ind = np.nonzero(ref != 0)[0]
            if len(ind):
                out[ind] = self.batch.look.lookup("threads", _TBITS, ref[ind], lambda: (self.slot[ind], self.rel[ind]))
            return out
        return self._cached(("threads", name), make)

    def rates(self):
        """Per row: (largest timestamp that converts, position in the rate list, the rate list)."""
        return self._cached("rates", lambda: self.batch.look.limits(self.slot, self.rel))

    def inline_bytes(self, refs, positions) -> list[bytes]:
        """The bytes of inline string refs (``refs`` with the inline bit, at word
        ``positions``); clean rows hold plain ASCII."""
        buf = self.batch.buf
        at = zip(positions.tolist(), (refs & LEN).tolist())
        if isinstance(buf, (bytes, mmap.mmap)):
            return [buf[8 * p : 8 * p + n] for p, n in at]
        return [bytes(buf[8 * p : 8 * p + n]) for p, n in at]  # a memoryview's slices are views


class ArgRows:
    """The arguments at one position and of one type over some of a ``Rows``' rows:
    ``row`` (positions in the Rows), ``pos`` (header words). It holds no reference back
    to its rows: no cycle keeps a batch's columns alive after the batch."""

    def __init__(self, ac, row, keep):
        self.k = ac.k
        self.layout = ac.layout
        self.kind = ac.layout.name
        self.row = row
        self.pos = ac.pos[keep]
        self._ac = ac
        self._keep = keep

    def value(self, name: str):
        return _native(self._ac.vals[name][self._keep])

    def position(self, name: str):
        return self._ac.at[name][self._keep]


def _native(x):
    """``x`` in the machine's byte order (words of a big-endian trace are read as such)."""
    return x if x.dtype.isnative else x.astype(x.dtype.newbyteorder("="))


class StringRefs:
    """One string-ref field over rows: of the record (``arg`` None) or of an argument."""

    __slots__ = ("arg", "name", "field", "rows", "refs", "words", "ids")

    def __init__(self, arg, name, fld, rows, refs, words):
        self.arg = arg
        self.name = name
        self.field = fld
        self.rows = rows  # positions in the Rows
        self.refs = refs
        self.words = words  # the word holding the field (for its byte range)
        self.ids = None
