"""Every crash a fuzzing campaign found, minimised, stays fixed: tests/regressions/<harness>/
holds the inputs (``python -m fuzz land`` or a campaign's end puts them there), and each
must now pass its harness's check."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
from fuzz import HARNESSES, load_harness  # noqa: E402
from fuzz.campaign import REGRESSIONS, land_crash, regression_inputs, reproduce  # noqa: E402

CASES = regression_inputs()


def test_regression_folders_name_harnesses():
    folders = [d.name for d in REGRESSIONS.iterdir() if d.is_dir()]
    assert set(folders) <= set(HARNESSES), folders
    assert all(f.suffix == ".bin" for d in REGRESSIONS.iterdir() if d.is_dir() for f in d.iterdir())


def test_every_landed_crash_passes_its_harness():
    checks = {}
    for harness, path in CASES:
        check = checks.setdefault(harness, load_harness(harness).check)
        check(path.read_bytes())  # raises, with the harness's message, if the bug is back


def test_a_landed_crash_is_collected(tmp_path):
    crash = tmp_path / "timeout-abc"
    crash.write_bytes(b"\x10\x00\x04\x46\x78\x54\x16\x00")
    landed = land_crash("reader", crash, tmp_path, root=tmp_path / "regressions")
    assert landed.read_bytes() == crash.read_bytes()
    assert regression_inputs(tmp_path / "regressions") == [("reader", landed)]
    load_harness("reader").check(landed.read_bytes())


def test_reproduce_reports_a_failing_input(tmp_path, capsys):
    f = tmp_path / "x.bin"
    f.write_bytes(b"\x01")

    def broken(data):
        raise AssertionError("the bug is back")

    assert reproduce("lint", [f], check=broken) == 1
    assert "the bug is back" in capsys.readouterr().err
    assert reproduce("lint", [f]) == 0
