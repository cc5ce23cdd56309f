"""The native kernel beside the column engine: both walks of one buffer, and their comparison.

``python_walk`` runs the walk every verb runs (``_walk.Walk``: ``_scan.scan_window``,
then the decode step, which resynchronises after a record whose content settled its
size), recording each batch's ``Columns`` as the scan step gave them;
``kernel_walk`` runs the same walk with the kernel as its scan step
(``_walk_batches.KernelWalk``). ``assert_same_walk`` holds them to the same batches,
reference rows, groups, diagnostics and framing stop: rows, starts, ends and flags
exactly, and for clean rows every value, word position and argument (what the
consumers read).
"""

from __future__ import annotations

import os

import numpy as np

from fxtlint.engine import _native
from fxtlint.engine._columns import ArgColumns, Group
from fxtlint.engine._reader import detect_byte_order
from fxtlint.engine._scan import Columns
from fxtlint.engine._walk_batches import ColumnEngineWalk, KernelWalk
from fxtlint.spec._limits import DEFAULT_LIMITS, Limits


def require_kernel():
    """The kernel module; a skip saying why when it is not built (CI, which has a compiler,
    sets FXTLINT_EXPECT_NATIVE=1 and fails instead)."""
    import pytest  # the fuzz harness imports this module without it

    k = _native.kernel()
    if k is None:
        why = _native._built()[1]
        if os.environ.get("FXTLINT_EXPECT_NATIVE") == "1":
            pytest.fail(f"FXTLINT_EXPECT_NATIVE=1 but {why}")
        pytest.skip(why)
    return k


def order_of(buf, log: bool) -> bool:
    """True when the walk would read ``buf`` big-endian (as ``lint_buffer`` decides)."""
    return not log and detect_byte_order(buf) == "big"


class Walked:
    """What one walk saw: its batches (``Columns`` copies), diagnostics, records, and
    whether framing stopped early."""

    def __init__(self, walk_class, *args, log: bool, limits: Limits, **kw):
        self.batches: list[Columns] = []
        self.diagnostics: list = []
        walk = walk_class(*args, order_of(args[-1], log), log, self.batches_append, limits,
                          self.diagnostics.append, **kw)
        self.records = walk.run()
        self.cut_short = walk.cut_short

    def batches_append(self, cols: Columns) -> None:
        # the groups may be views of the kernel's outputs, which the next batch overwrites,
        # and the decode step flags the rows after a resynchronised record: keep a copy
        self.batches.append(Columns(cols.index0, cols.starts.copy(), cols.sizes.copy(), cols.types.copy(),
                                    [_snapshot(g) for g in cols.groups], cols.reference.copy()))


def python_walk(buf, log: bool = False, limits: Limits = DEFAULT_LIMITS) -> Walked:
    return Walked(ColumnEngineWalk, buf, log=log, limits=limits)


def kernel_walk(kernel, buf, log: bool = False, limits: Limits = DEFAULT_LIMITS, utf8: bool = False) -> Walked:
    return Walked(KernelWalk, kernel, buf, log=log, limits=limits, utf8=utf8)


def _snapshot(g: Group) -> Group:
    """A copy of Group ``g`` that owns its arrays."""
    c = Group(g.layout, g.rows.copy(), g.start.copy(), g.end.copy())
    c.flag = g.flag.copy()
    c.vals = {k: v.copy() for k, v in g.vals.items()}
    c.pos = {k: v.copy() for k, v in g.pos.items()}
    c.args = [ArgColumns(a.k, a.layout, a.rows.copy(), a.pos.copy(), {k: v.copy() for k, v in a.vals.items()},
                         {k: v.copy() for k, v in a.at.items()}) for a in g.args]
    return c


def clean_args(g: Group) -> list:
    """``g.args`` restricted to clean rows, in order, entries with none left dropped:
    (index, type, rows, header words, {name: (dtype kind, values)}, {name: positions})."""
    out = []
    for a in g.args:
        keep = ~g.flag[a.rows]
        if keep.any():
            out.append((a.k, a.layout.name, a.rows[keep].tolist(), a.pos[keep].tolist(),
                        {n: (v.dtype.kind, v[keep].tolist()) for n, v in a.vals.items()},
                        {n: v[keep].tolist() for n, v in a.at.items()}))
    return out


def assert_same_group(py: Group, kn: Group, where: str) -> None:
    assert py.layout is kn.layout, where
    for name in ("rows", "start", "end", "flag"):
        a, b = getattr(py, name), getattr(kn, name)
        assert a.dtype.kind == b.dtype.kind and np.array_equal(a, b), f"{where}: {name} {a} != {b}"
    clean = ~py.flag
    assert py.vals.keys() == kn.vals.keys(), where
    for name, a in py.vals.items():
        b = kn.vals[name]
        assert a.dtype.kind == b.dtype.kind, f"{where}: vals[{name}] dtype {a.dtype} != {b.dtype}"
        assert np.array_equal(a[clean], b[clean]), f"{where}: vals[{name}] {a[clean]} != {b[clean]}"
    assert py.pos.keys() == kn.pos.keys(), where
    for name, a in py.pos.items():
        assert np.array_equal(a[clean], kn.pos[name][clean]), f"{where}: pos[{name}]"
    assert clean_args(py) == clean_args(kn), f"{where}: args"
    assert all((~kn.flag[a.rows]).all() for a in kn.args), f"{where}: arguments of a flagged row"


def assert_same_walk(kernel, buf, log: bool = False, limits: Limits = DEFAULT_LIMITS) -> int:
    """The kernel frames and screens ``buf`` as the walk does; returns the records."""
    py = python_walk(buf, log, limits)
    kn = kernel_walk(kernel, buf, log, limits)
    assert (kn.records, kn.cut_short) == (py.records, py.cut_short)
    assert kn.diagnostics == py.diagnostics
    assert len(kn.batches) == len(py.batches)
    for p, k in zip(py.batches, kn.batches, strict=True):
        where = f"batch at record {p.index0}"
        assert p.index0 == k.index0, where
        for name in ("starts", "sizes", "types", "reference"):
            a, b = getattr(p, name), getattr(k, name)
            assert a.dtype.kind == b.dtype.kind and np.array_equal(a, b), f"{where}: {name} {a} != {b}"
        assert [g.layout.name for g in p.groups] == [g.layout.name for g in k.groups], where
        for a, b in zip(p.groups, k.groups, strict=True):
            assert_same_group(a, b, f"{where}, {a.layout.name}")
    return py.records
