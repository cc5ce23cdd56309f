"""The real traces' and the large golden files' whole outputs (report, Trace Event export,
canonical decoding) on the native walk equal the per-record reference's, as ``test_walk``
holds every other input (here apart: the 1 MB trace's reference reading is most of the
seconds it costs).
"""

from __future__ import annotations

import pytest

import fxtlint
from test_walk import GOLDEN_LARGE, REAL, SMALL, WALK, _fmt, same_outputs


# small windows on the traces under 256 KiB: the 1 MB one at its default windows only (its
# small-windows reading was 21 s of CI's test run; windows' edges are the golden files' and
# the conformance suite's, at tiny windows, in test_walk)
@pytest.mark.parametrize(("path", "limits"), [
    pytest.param(p, limits, id=f"{p.name}-{name}") for p in REAL
    for limits, name in [(fxtlint.Limits(), "default-windows"), (SMALL, "small-windows")]
    if name == "default-windows" or p.stat().st_size < 256 << 10])
def test_real_trace_outputs_are_the_same_on_both_paths(path, limits):
    same_outputs(WALK, path.read_bytes(), limits=limits)


@pytest.mark.parametrize("path", GOLDEN_LARGE, ids=lambda p: p.name)
def test_large_golden_outputs_are_the_same_on_both_paths(path):
    assert GOLDEN_LARGE  # (PR012's 65,537 nested begins: a slow case, conftest.SLOW_CASES)
    same_outputs(WALK, path.read_bytes(), _fmt(path))
