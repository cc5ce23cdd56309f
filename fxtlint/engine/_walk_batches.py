"""Walks that show their scan step's batches: what the tests, ``fuzz/fuzz_kernel.py``
and ``bench/kernel_bench.py`` hold the native kernel to.

``ColumnEngineWalk`` is the walk every verb runs, with no consumer and the column
engine as its scan step (recovering by default: ``resync``, so a record whose content
settled its size restarts the framing, the case the tests hold the kernel to);
``KernelWalk`` the same with the native kernel. Each batch's
``Columns`` go to ``on_batch(cols)`` as the scan step gave them, before the decode step
reads them (and, where a record's content settled its size, flags the rows after it).
``run()`` returns the record count.
"""

from __future__ import annotations

from ..spec._limits import DEFAULT_LIMITS, Limits
from ._kernel_screen import KernelScreen, KernelWindow
from ._walk import Walk


class ColumnEngineWalk(Walk):
    """The walk with the column engine's scan step and no consumer."""

    def __init__(self, buf, big: bool, log: bool, on_batch=None, limits: Limits = DEFAULT_LIMITS, emit=None,
                 kernel=None, resync: bool = True):
        super().__init__(buf, (), big=big, log=log, emit=emit, limits=limits, columns=True, kernel=kernel,
                         resync=resync)
        self.on_batch = on_batch

    def _batch(self, cols):
        if self.on_batch is not None:
            self.on_batch(cols)
        return super()._batch(cols)


class KernelWalk(ColumnEngineWalk):
    """``ColumnEngineWalk`` with the kernel as its scan step (``utf8``: as ``KernelScreen``)."""

    def __init__(self, kernel, buf, big: bool, log: bool, on_batch=None, limits: Limits = DEFAULT_LIMITS,
                 emit=None, utf8: bool = False):
        super().__init__(buf, big, log, on_batch, limits, emit, kernel=kernel)
        self.utf8 = utf8

    def scanner(self, W, roots: dict, reference: frozenset, large: dict):
        if not self.utf8:
            return super().scanner(W, roots, reference, large)
        ks = KernelScreen(self.kernel, self.buf, self.big, self.log, reference, utf8=True)
        limits = self.limits

        def window(cur: int, index0: int) -> KernelWindow:
            return ks.window(cur, index0, window_words=limits.window_words, pairing_window=limits.pairing_window)

        return window, ks.close
