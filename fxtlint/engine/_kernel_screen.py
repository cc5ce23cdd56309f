"""The native kernel's output as the walk's scan step gives it: ``_scan.Columns``.

``KernelScreen(kernel, buf, big, log, reference_kinds)`` frames and screens with the
compiled program. ``scan(start, window_end, max_records)`` runs the kernel over one
batch from any word (the walk frames anew from a record's content end when the
content settled its size); ``window(cur, index0, ...)`` keeps the contract of
``_scan.scan_window`` (its batches, next word, record count and framing stop), and
``Scanned.columns(index0)`` gives what ``_scan.screen_batch`` gives for the same rows.
The walk (``_walk.Walk.scanner``) takes it as its scan step whenever the kernel is
built (``_native.kernel()``); ``_walk_batches`` shows the two scan steps' batches side
by side for the tests, ``fuzz/fuzz_kernel.py`` and ``bench/kernel_bench.py``.

What a Group holds for its clean rows (``~flag``) is the column engine's, value for
value: ``vals``, ``pos``, and ``args`` (one ``ArgColumns`` per argument index and type,
in the column engine's order). For flagged rows the kernel stops at the first check
that fails, so their ``vals`` and ``pos`` hold whatever it read by then, and ``args``
hold no row of theirs (every consumer reads clean rows only). ``rows``, ``s``, ``e``
and ``flag`` are the column engine's exactly, as is the batch's ``reference`` mask.

A group's ``flag``, ``vals`` and ``pos`` are views of the kernel's output arrays, which
the next ``scan`` overwrites: a batch is done with before the next one is scanned, as
in the walk. ``Scanned.args`` is the flat table of argument rows the kernel wrote,
which ``ArgColumns`` regroup per (argument index, type).
"""

from __future__ import annotations

import functools

import numpy as np

from ._columns import ArgColumns, Group
from ._kernel_program import ARG_ROW_HEAD, Program, compile_program
from ._scan import Columns

# how a kernel scan stopped (the stop codes of _kernel.scan)
WINDOW, FULL, ZERO, PAST_END, ARGS_FULL = range(5)


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

    def __init__(self, cap: int, prog: Program, argcap: int):
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
        self.args = np.empty((argcap, prog.arg_columns), np.int64)
        self.generation = 0

    def outputs(self, n: int) -> tuple:
        """The output arguments of ``_kernel.scan`` for at most ``n`` records."""
        return (self.starts[:n], self.sizes[:n], self.types[:n], self.terms[:n], self.order[:n], self.counts,
                self.flags[:n], self.vals[:n], self.pos[:n], self.args)


class Scanned:
    """One batch as the kernel left it: ``n`` records from ``starts``.

    The groups' arrays are views of the ``KernelScreen``'s output arrays, which its next
    ``scan`` overwrites: a batch is done with before the next is scanned (as in the
    walk), and ``columns()`` refuses to run after that."""

    def __init__(self, screen: "KernelScreen", ws: "_Workspace", n: int, nargs: int, stop: int, at: int,
                 at_size: int):
        self.screen = screen
        self.ws = ws
        self.generation = ws.generation
        self.n = n
        self.nargs = nargs
        self.stop = stop
        self.at = at  # the next record's word (or the bad header's, for ZERO and PAST_END)
        self.at_size = at_size
        self.starts = ws.starts[:n].copy()
        self.sizes = ws.sizes[:n].copy()
        self.types = ws.types[:n].copy()

    def _fresh(self) -> None:
        if self.ws is not self.screen.ws or self.ws.generation != self.generation:
            raise RuntimeError("a Scanned batch read after its KernelScreen scanned the next one")

    @property
    def args(self) -> np.ndarray:
        """The kernel's argument rows of the batch's clean records, int64 (nargs, columns):
        (position in the grouped order, argument index, argument type, header word, the
        values, the positions); ``program.arg_leaves[type]`` names the slots."""
        self._fresh()
        return self.ws.args[: self.nargs]

    def columns(self, index0: int) -> Columns:
        """The batch as ``_scan.screen_batch`` gives it (``index0``: its first record's index)."""
        self._fresh()
        ws = self.ws
        prog = self.screen.program
        n = self.n
        counts = ws.counts
        if int(counts.sum()) != n:
            raise RuntimeError("the kernel left a row without a terminal (a program deeper than it walks)")
        ends = np.cumsum(counts).tolist()
        order = ws.order[:n]
        flags = ws.flags[:n].view(bool)
        reference = np.zeros(n, bool)
        reference[order] = flags  # rows without code (slow rows) are always flagged
        groups: list[Group] = []
        blocks = []  # (first position) of each group
        for ordinal in np.flatnonzero(counts).tolist():
            leaf = prog.terminals[ordinal].leaf
            if leaf is None:
                continue
            hi = ends[ordinal]
            lo = hi - int(counts[ordinal])
            rows = order[lo:hi]
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
        if self.nargs:
            self._arguments(groups, blocks)
        return Columns(index0, self.starts, self.sizes, self.types, groups, reference)

    def _arguments(self, groups, blocks) -> None:
        """Each group's ``args``: one ``ArgColumns`` per (argument index, type), in the
        column engine's order (index, then type; rows ascending within)."""
        table = self.args
        prog = self.screen.program
        nt = 1 + max(prog.arg_leaves)
        first_pos = ARG_ROW_HEAD + prog.narg_vals
        bounds = np.searchsorted(table[:, 0], blocks + [self.n]).tolist()
        for g, lo, a, b in zip(groups, blocks, bounds[:-1], bounds[1:], strict=True):
            if a == b:
                continue
            mine = table[a:b]
            key = mine[:, 1] * nt + mine[:, 2]
            # a stable sort keeps positions ascending within a key; small keys sort by radix
            order = np.argsort(key.astype(np.uint16) if key.max() < 1 << 16 else key, kind="stable")
            mine = mine[order]
            key = key[order]
            cut = (np.flatnonzero(key[1:] != key[:-1]) + 1).tolist()
            for x, y in zip([0] + cut, cut + [len(key)], strict=True):
                block = mine[x:y]
                k, t = block[0, 1:3].tolist()
                leaf = prog.arg_leaves[t]
                vals = {name: block[:, ARG_ROW_HEAD + slot] if leaf.signed[name]
                        else block[:, ARG_ROW_HEAD + slot].view(np.uint64) for name, slot in leaf.vals.items()}
                at = {name: block[:, first_pos + slot] for name, slot in leaf.pos.items()}
                g.args.append(ArgColumns(k, leaf.layout, block[:, 0] - lo, block[:, 3], vals, at))


class KernelWindow:
    """``_scan.Window``'s contract from the kernel: ``batches`` yields each batch as it is
    scanned (``Columns``, or the raw ``Scanned`` with ``columns=False``); once they are
    all taken, ``next_word``, ``records``, ``zero_at`` and ``overrun`` say where the
    window ended and why framing stopped, if it did."""

    def __init__(self, screen: "KernelScreen", cur: int, index0: int, window_words: int, pairing_window: int,
                 columns: bool = True):
        self.next_word = cur
        self.records = 0
        self.zero_at: int | None = None
        self.overrun: tuple[int, int] | None = None
        self.batches = self._batches(screen, cur, index0, min(cur + window_words, screen.nwords), pairing_window,
                                     columns)

    def _batches(self, screen, pos, index, wend, pairing_window, columns):
        while True:
            # batches never cross a pairing window (as scan_window cuts them)
            sc = screen.scan(pos, wend, pairing_window - index % pairing_window)
            if sc.n:
                yield sc.columns(index) if columns else sc
            index += sc.n
            self.records += sc.n
            if sc.stop != FULL:
                break
            pos = sc.at
        self.next_word = sc.at
        if sc.stop == ZERO:
            self.zero_at = sc.at
        elif sc.stop == PAST_END:
            self.overrun = (sc.at, sc.at_size)


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

    def scan(self, start: int, window_end: int, max_records: int) -> Scanned:
        """Frame from word ``start`` (any word) while records start before ``window_end``,
        at most ``max_records`` of them, screening each."""
        # every record holds a word at least: no more fit before the window's end
        max_records = max(1, min(max_records, window_end - start))
        ws = self.ws
        if ws is None or ws.cap < max_records:
            ws = self.ws = _Workspace(max_records, self.program, max(2 * max_records, 64))
        ws.generation += 1
        while True:
            n, nargs, stop, at, at_size = self.kernel.scan(self.capsule, self.buf, self.big, self.utf8, start,
                                                           window_end, *ws.outputs(max_records))
            if stop != ARGS_FULL:
                return Scanned(self, ws, n, nargs, stop, at, at_size)
            # what this batch needs, and room to grow
            ws.args = np.empty((2 * nargs, self.program.arg_columns), np.int64)

    def window(self, cur: int, index0: int, *, window_words: int, pairing_window: int,
               columns: bool = True) -> KernelWindow:
        """The records that start in the window at word ``cur`` (``index0``: the index of
        the first), as ``_scan.scan_window`` frames and cuts them."""
        return KernelWindow(self, cur, index0, window_words, pairing_window, columns)

    def close(self) -> None:
        """Drop the buffer and the outputs, so a memory map can be closed."""
        self.buf = None
        self.ws = None
