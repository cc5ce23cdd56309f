"""The native kernel's output as the column engine's: ``Group`` objects and slow rows.

``KernelScreen(kernel, buf, big, log, reference_kinds)`` frames and screens with the
compiled program; ``scan(start, window_end, max_records)`` runs the kernel over one
batch and ``Scanned.groups()`` gives what ``Screen.groups`` and ``Screen.screen``
give for the same rows, so the fast path can take either. ``walk(limits)`` is
``FastLinter.run``'s framing (windows, pairing-window batches, the frame error that
stops it) on the kernel.

What a Group holds for its clean rows (``~flag``) is the column engine's, value for
value: ``vals``, ``pos``, ``arg_refs``. For flagged rows the kernel stops at the first
check that fails, so their ``vals`` and ``pos`` hold whatever it read by then, and
``arg_refs`` hold no entry of theirs (every consumer reads clean rows only). ``rows``,
``s``, ``e`` and ``flag`` are the column engine's exactly, as are the slow rows.

A group's ``flag``, ``vals`` and ``pos`` are views of the kernel's output arrays, which
the next ``scan`` overwrites: a batch is done with before the next one is scanned, as
in the fast path. ``Scanned.refs`` is the flat table the kernel wrote for the argument
string refs, which ``arg_refs`` regroups per (argument, type, field) for today's
consumer; a consumer that reads the table directly skips that regrouping.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from . import _fast
from ._columns import Group
from ._kernel_program import Program, compile_program
from ._limits import DEFAULT_LIMITS, Limits

# how a kernel scan stopped (the stop codes of _kernel.scan)
WINDOW, FULL, ZERO, PAST_END, REFS_FULL = range(5)


@functools.cache
def program(log: bool, reference_kinds: frozenset = frozenset()) -> Program:
    return compile_program(log, reference_kinds)


_LOADED: dict = {}


def _loaded(kernel, prog: Program):
    """The kernel's validated copy of ``prog`` (one per program and kernel module)."""
    key = (id(kernel), id(prog))
    got = _LOADED.get(key)
    if got is None or got[0] is not prog:
        got = _LOADED[key] = (prog, kernel.load(prog.code))
    return got[1]


class _Workspace:
    """The kernel's output arrays for one batch, reused from batch to batch."""

    def __init__(self, cap: int, prog: Program, refcap: int):
        self.cap = cap
        self.starts = np.empty(cap, np.int64)
        self.sizes = np.empty(cap, np.int64)
        self.types = np.empty(cap, np.int64)
        self.terms = np.empty(cap, np.int32)
        self.order = np.empty(cap, np.int64)
        self.counts = np.empty(len(prog.terminals), np.int64)
        self.flags = np.empty(cap, np.uint8)
        self.vals = np.empty((cap, max(prog.nvals, 1)), np.uint64)
        self.pos = np.empty((cap, max(prog.npos, 1)), np.int64)
        self.refs = np.empty((refcap, 6), np.int64)
        self.generation = 0

    def outputs(self, n: int) -> tuple:
        """The output arguments of ``_kernel.scan`` for at most ``n`` records."""
        return (self.starts[:n], self.sizes[:n], self.types[:n], self.terms[:n], self.order[:n], self.counts,
                self.flags[:n], self.vals[:n], self.pos[:n], self.refs)


@dataclass
class FrameStop:
    """Where framing stopped for good: ``_reader.frame_error(8 * word, index, size, ...)``
    reports it (size 0: a size of zero; else a record that ends past the buffer)."""

    word: int
    index: int
    size: int


class Scanned:
    """One batch as the kernel left it: ``n`` records from ``starts``.

    The groups' arrays are views of the ``KernelScreen``'s output arrays, which its next
    ``scan`` overwrites: a batch is done with before the next is scanned (as in the fast
    path), and ``groups()`` refuses to run after that."""

    def __init__(self, screen: "KernelScreen", ws: "_Workspace", n: int, nrefs: int, stop: int, at: int,
                 at_size: int):
        self.screen = screen
        self.ws = ws
        self.generation = ws.generation
        self.n = n
        self.nrefs = nrefs
        self.stop = stop
        self.at = at  # the next record's word (or the bad header's, for ZERO and PAST_END)
        self.at_size = at_size
        self.starts = ws.starts[:n].copy()
        self.sizes = ws.sizes[:n].copy()
        self.types = ws.types[:n].copy()

    @property
    def refs(self) -> np.ndarray:
        """The kernel's argument string refs of the batch's clean records, int64 (nrefs, 6):
        (position in the grouped order, argument index, argument type, field id, ref,
        argument header word); ``program.arg_fields[field id]`` is (argument type, Field)."""
        if self.ws.generation != self.generation:
            raise RuntimeError("a Scanned batch read after its KernelScreen scanned the next one")
        return self.ws.refs[: self.nrefs]

    def groups(self):
        """``(groups, slow_rows)`` as ``Screen.groups`` gives them, every group screened."""
        screen = self.screen
        ws = self.ws
        if ws is not screen.ws or ws.generation != self.generation:
            raise RuntimeError("a Scanned batch read after its KernelScreen scanned the next one")
        prog = screen.program
        n = self.n
        counts = ws.counts
        if int(counts.sum()) != n:
            raise RuntimeError("the kernel left a row without a terminal (a program deeper than it walks)")
        ends = np.cumsum(counts).tolist()
        order = ws.order[:n]
        flags = ws.flags[:n].view(bool)
        groups: list[Group] = []
        blocks = []  # (group, first position)
        slow = []
        for ordinal in np.flatnonzero(counts).tolist():
            hi = ends[ordinal]
            lo = hi - int(counts[ordinal])
            rows = order[lo:hi]
            leaf = prog.terminals[ordinal].leaf
            if leaf is None:
                slow.append(rows)
                continue
            s = self.starts[rows]
            g = Group(leaf.layout, rows, s, s + self.sizes[rows])
            g.flag = flags[lo:hi]
            vals = ws.vals[lo:hi]
            for name, slot in leaf.vals.items():
                col = vals[:, slot]
                g.vals[name] = col.view(np.int64) if leaf.signed[name] else col
            pos = ws.pos[lo:hi]
            for name, slot in leaf.pos.items():
                g.pos[name] = pos[:, slot]
            groups.append(g)
            blocks.append(lo)
        if self.nrefs:
            self._arg_refs(groups, blocks)
        return groups, (np.concatenate(slow) if slow else np.zeros(0, np.int64))

    def _arg_refs(self, groups, blocks) -> None:
        """Each group's ``arg_refs``: per (argument, type, field), in the column engine's order
        (argument, then type, then field; rows ascending within)."""
        refs = self.refs
        position = refs[:, 0]
        arg_fields = self.screen.program.arg_fields
        nt = 1 + max(t for t, _ in arg_fields)
        nf = len(arg_fields)
        bounds = np.searchsorted(position, blocks + [self.n]).tolist()
        for g, lo, a, b in zip(groups, blocks, bounds[:-1], bounds[1:], strict=True):
            if a == b:
                continue
            mine = refs[a:b]
            key = (mine[:, 1] * nt + mine[:, 2]) * nf + mine[:, 3]
            # a stable sort keeps positions ascending within a key; small keys sort by radix
            order = np.argsort(key.astype(np.uint16) if key.max() < 1 << 16 else key, kind="stable")
            mine = mine[order]
            key = key[order]
            cut = (np.flatnonzero(key[1:] != key[:-1]) + 1).tolist()
            for x, y in zip([0] + cut, cut + [len(key)], strict=True):
                block = mine[x:y]
                k, _, fid = block[0, 1:4].tolist()
                g.arg_refs.append((k, arg_fields[fid][1], block[:, 0] - lo, block[:, 4], block[:, 5]))


class KernelScreen:
    """Frames and screens ``buf`` (a trace, or a structured-log stream with ``log``) with
    the native kernel; rows of ``reference_kinds`` leaves are framed, not screened.
    ``utf8``: validate text as UTF-8 (flag exactly what the reference reports invalid)
    instead of the column engine's plain-ASCII test (flag any byte >= 0x80)."""

    def __init__(self, kernel, buf, big: bool, log: bool, reference_kinds=frozenset(), utf8: bool = False):
        self.kernel = kernel
        self.buf = buf
        self.big = big
        self.log = log
        self.utf8 = utf8
        self.program = program(log, frozenset(reference_kinds))
        self.capsule = _loaded(kernel, self.program)
        self.nwords = len(buf) // 8
        self.ws: _Workspace | None = None
        self.stop: FrameStop | None = None

    def scan(self, start: int, window_end: int, max_records: int) -> Scanned:
        """Frame from word ``start`` while records start before ``window_end``, at most
        ``max_records`` of them, screening each."""
        # every record holds a word at least: no more fit before the window's end
        max_records = max(1, min(max_records, window_end - start))
        ws = self.ws
        if ws is None or ws.cap < max_records:
            ws = self.ws = _Workspace(max(max_records, 1), self.program, max(2 * max_records, 64))
        ws.generation += 1
        while True:
            n, nrefs, stop, at, at_size = self.kernel.scan(self.capsule, self.buf, self.big, self.utf8, start,
                                                           window_end, *ws.outputs(max_records))
            if stop != REFS_FULL:
                return Scanned(self, ws, n, nrefs, stop, at, at_size)
            ws.refs = np.empty((2 * nrefs, 6), np.int64)  # what this batch needs, and room to grow

    def walk(self, limits: Limits = DEFAULT_LIMITS):
        """Yield ``(index0, Scanned)`` per batch, as ``FastLinter.run`` frames them into
        windows of ``limits.window_words`` and pairing-window batches; afterwards
        ``self.stop`` is the ``FrameStop`` that ended the walk, or None at the buffer's end."""
        nw = self.nwords
        window = limits.pairing_window
        cur = index = 0
        self.stop = None
        while cur < nw:
            wend = min(cur + limits.window_words, nw)
            pos = cur
            while True:
                sc = self.scan(pos, wend, window - index % window)
                if sc.n:
                    yield index, sc
                index += sc.n
                if sc.stop != FULL:
                    break
                pos = sc.at
            if sc.stop == ZERO:
                self.stop = FrameStop(sc.at, index, 0)
                return
            if sc.stop == PAST_END:
                self.stop = FrameStop(sc.at, index, sc.at_size)
                return
            cur = sc.at


class ColumnEngineWalk(_fast.FastLinter):
    """The fast path's own framing and column screen, each batch handed to
    ``on_batch(index0, starts, sizes, types, groups, slow_rows)`` instead of being linted:
    what the kernel must equal (tests, fuzz/fuzz_kernel.py) and the speed it is measured
    against (bench/kernel_bench.py). ``run()`` returns the record count."""

    def __init__(self, buf, big: bool, log: bool, on_batch, limits: Limits = DEFAULT_LIMITS):
        super().__init__(buf, lambda d: None, big, log, limits)
        self.on_batch = on_batch

    def _batch(self, starts, sizes, types, index0):
        roots = _fast._LOG_ROOTS if self.log else _fast._TRACE_ROOTS
        kinds = frozenset() if self.log else _fast.REFERENCE_KINDS
        groups, slow = self.screen.groups(roots, starts, sizes, types, kinds)
        for g in groups:
            self.screen.screen(g)
        self.on_batch(index0, starts, sizes, types, groups, slow)

    def close(self) -> None:
        """Drop the views of the buffer, so a memory map can be closed."""
        self.W = self.screen.W = None
