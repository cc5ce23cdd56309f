"""The real traces' whole outputs (report, Trace Event export, canonical decoding) on the
column path equal the per-record reference's, as ``test_walk`` holds every other input:
here each trace is read once by the reference for both engines (the native kernel and
the pure column engine), not once per engine, as the 1 MB trace's reference reading is
most of the seconds it costs.
"""

from __future__ import annotations

import pytest

import fxtlint
from conftest import column_native_missing
from test_walk import REAL, SMALL, reference_outputs, same_outputs


@pytest.mark.parametrize("limits", [fxtlint.Limits(), SMALL], ids=["default-windows", "small-windows"])
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_trace_outputs_are_the_same_on_both_paths(path, limits):
    data = path.read_bytes()
    want = reference_outputs(data, limits=limits)
    engines = ["python"] if column_native_missing() else ["python", "native"]
    for engine in engines:
        same_outputs(engine, data, limits=limits, want=want)
