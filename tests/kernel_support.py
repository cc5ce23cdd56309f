"""The native kernel beside the column engine: both walks of one buffer, and their comparison.

``python_walk`` runs ``FastLinter.run``'s own framing and ``Screen`` (the fast path's
code, its later steps replaced by a recorder); ``kernel_walk`` runs ``KernelScreen.walk``.
``assert_same_walk`` holds them to the same batches, framing stop, slow rows and
groups: rows, starts, ends and flags exactly, and for clean rows every value, word
position and argument string ref (what the consumers read).
"""

from __future__ import annotations

import os
from unittest import mock

import numpy as np

from fxtlint import _fast, _native
from fxtlint._columns import Group
from fxtlint._kernel_screen import ColumnEngineWalk, KernelScreen
from fxtlint._limits import DEFAULT_LIMITS, Limits
from fxtlint._reader import detect_byte_order, start_checks


def require_kernel():
    """The kernel module; a skip saying why when it is not built (CI, which has a compiler,
    sets FXTLINT_EXPECT_NATIVE=1 and fails instead)."""
    import pytest  # the fuzz harness imports this module without it

    try:
        k = _native.kernel()
    except Exception as e:  # FXTLINT_ENGINE set to something else
        pytest.fail(str(e))
    if k is None:
        why = _native._built()[1] or f"{_native.ENV}=python"
        if os.environ.get("FXTLINT_EXPECT_NATIVE") == "1":
            pytest.fail(f"FXTLINT_EXPECT_NATIVE=1 but {why}")
        pytest.skip(why)
    return k


def order_of(buf, log: bool) -> bool:
    """True when the fast path would read ``buf`` big-endian (as ``lint_buffer`` decides)."""
    return not log and detect_byte_order(buf) == "big"


def python_walk(buf, log: bool, limits: Limits = DEFAULT_LIMITS):
    """(batches, frame errors) of the column engine: batches as (index0, starts, sizes,
    types, groups, slow rows), frame errors as (byte offset, index, size)."""
    errors = []
    batches = []

    def frame_error(off, idx, size, *_):
        errors.append((off, idx, size))
        return True

    def on_batch(index0, starts, sizes, types, groups, slow):
        batches.append((index0, starts.copy(), sizes.copy(), types.copy(), groups, slow))

    walk = ColumnEngineWalk(buf, order_of(buf, log), log, on_batch, limits)
    with mock.patch.object(_fast, "frame_error", frame_error):
        walk.run()
    walk.close()
    return batches, errors


def kernel_walk(kernel, buf, log: bool, limits: Limits = DEFAULT_LIMITS, utf8: bool = False):
    big = order_of(buf, log)
    if start_checks(buf, lambda d: None, big, log):
        return [], []
    ks = KernelScreen(kernel, buf, big, log, frozenset() if log else _fast.REFERENCE_KINDS, utf8=utf8)
    batches = []
    for index0, sc in ks.walk(limits):
        groups, slow = sc.groups()
        # the groups are views of the kernel's outputs, which the next batch overwrites
        batches.append((index0, sc.starts, sc.sizes, sc.types, [_snapshot(g) for g in groups], slow))
    stop = ks.stop
    return batches, ([] if stop is None else [(8 * stop.word, stop.index, stop.size)])


def _snapshot(g):
    """A copy of Group ``g`` that owns its arrays."""
    c = Group(g.layout, g.rows.copy(), g.s.copy(), g.e.copy())
    c.flag = g.flag.copy()
    c.vals = {k: v.copy() for k, v in g.vals.items()}
    c.pos = {k: v.copy() for k, v in g.pos.items()}
    c.arg_refs = [(k, f, a.copy(), b.copy(), w.copy()) for k, f, a, b, w in g.arg_refs]
    return c


def clean_arg_refs(g):
    """``g.arg_refs`` restricted to clean rows, entries with none left dropped."""
    out = []
    for k, f, grow, refs, words in g.arg_refs:
        keep = ~g.flag[grow]
        if keep.any():
            out.append((k, f, grow[keep].tolist(), refs[keep].tolist(), words[keep].tolist()))
    return out


def assert_same_group(py, kn, where: str) -> None:
    assert py.layout is kn.layout, where
    for name in ("rows", "s", "e", "flag"):
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
    assert clean_arg_refs(py) == clean_arg_refs(kn), f"{where}: arg_refs"
    assert all((~kn.flag[grow]).all() for _, _, grow, _, _ in kn.arg_refs), f"{where}: refs of a flagged row"


def assert_same_walk(kernel, buf, log: bool = False, limits: Limits = DEFAULT_LIMITS) -> int:
    """The kernel frames and screens ``buf`` as the column engine does; returns the rows."""
    py_batches, py_errors = python_walk(buf, log, limits)
    kn_batches, kn_errors = kernel_walk(kernel, buf, log, limits)
    assert kn_errors == py_errors
    assert len(kn_batches) == len(py_batches)
    rows = 0
    for (pi, ps, pz, pt, pg, pslow), (ki, ks, kz, kt, kg, kslow) in zip(py_batches, kn_batches, strict=True):
        where = f"batch at record {pi}"
        assert pi == ki, where
        assert np.array_equal(ps, ks) and np.array_equal(pz, kz) and np.array_equal(pt, kt), where
        assert np.array_equal(pslow, kslow), f"{where}: slow rows {pslow} != {kslow}"
        assert [g.layout.name for g in pg] == [g.layout.name for g in kg], where
        for a, b in zip(pg, kg, strict=True):
            assert_same_group(a, b, f"{where}, {a.layout.name}")
        rows += len(ps)
    return rows
