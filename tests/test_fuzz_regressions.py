"""Every crash a fuzzing campaign found, minimised, stays fixed: tests/regressions/<harness>/
holds the inputs (``python -m fuzz land`` or a campaign's end puts them there), and each
must now pass its harness's check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
from fuzz import HARNESSES, load_harness  # noqa: E402
from fuzz.campaign import REGRESSIONS, NotACrash, land_crash, regression_inputs, reproduce  # noqa: E402

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


FAULT = """
from .engine._lint import lint_bytes as _lint_bytes  # the face imports its names on first use


def lint_bytes(data, *args, **kw):  # a fault put in this copy for the test
    if b"BOOM" in bytes(data):
        raise AssertionError("the fault in the installed copy")
    return _lint_bytes(data, *args, **kw)
"""


def faulty_install(tmp_path: Path) -> Path:
    """A copy of fxtlint (its built modules too) whose lint_bytes fails on inputs holding
    b"BOOM", in a folder that stands for site-packages (on PYTHONPATH)."""
    import shutil

    site = tmp_path / "site"
    shutil.copytree(REPO / "fxtlint", site / "fxtlint", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "spec-tables", site / "fxtlint" / "spec_tables")  # where a wheel has them
    with (site / "fxtlint" / "__init__.py").open("a") as fh:
        fh.write(FAULT)
    return site


def test_a_landed_crash_is_minimised_and_collected(tmp_path, monkeypatch, atheris_installed):
    monkeypatch.setenv("PYTHONPATH", str(faulty_install(tmp_path)))
    crash = tmp_path / "crashes" / "crash-abc"  # the folder libFuzzer's artifacts are in
    crash.parent.mkdir()
    # four bytes to drop: each step of libFuzzer's minimisation is a child process that
    # starts Python and imports fxtlint (88 bytes took 16 of them, two minutes of CI)
    crash.write_bytes(b"BOOM" + b"y" * 4)
    landed = land_crash("lint", crash, tmp_path / "scratch", root=tmp_path / "regressions", runs=100)
    assert b"BOOM" in landed.read_bytes() and len(landed.read_bytes()) < len(crash.read_bytes())  # minimised
    assert regression_inputs(tmp_path / "regressions") == [("lint", landed)]
    assert (tmp_path / "scratch" / "minimize.log").is_file()


def test_an_input_that_does_not_fail_is_not_landed(tmp_path, atheris_installed):
    unit = tmp_path / "corpus-unit"
    unit.write_bytes(b"\x10\x00\x04\x46\x78\x54\x16\x00")
    with pytest.raises(NotACrash, match="does not fail the reader harness"):
        land_crash("reader", unit, tmp_path, root=tmp_path / "regressions")
    assert not (tmp_path / "regressions").exists()


def _fuzz_cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "fuzz", *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          env=env, timeout=600)


def test_land_refuses_an_input_that_does_not_fail(tmp_path, atheris_installed):
    unit = tmp_path / "crash-not-really"
    unit.write_bytes(b"\x10\x00\x04\x46\x78\x54\x16\x00")
    proc = _fuzz_cli("land", "reader", unit, "--regressions", tmp_path / "regressions")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"refused: {unit} does not fail the reader harness" in proc.stderr
    assert not (tmp_path / "regressions").exists()


@pytest.mark.parametrize("argv, message", [
    (["land", "lint", "no/such/crash"], "python -m fuzz land: error: no/such/crash: no such file"),
    (["land", "lint", "corpus/seeds"],
     "python -m fuzz land: error: corpus/seeds is a folder; give the files in it: "
     "python -m fuzz land lint corpus/seeds/*"),
    (["merge", "lint", "no/such/corpus"], "python -m fuzz merge: error: no/such/corpus: no such folder"),
    (["merge", "lint", "corpus/seeds/sample.fxt"],
     "python -m fuzz merge: error: corpus/seeds/sample.fxt is a file; give the corpus folder it is in"),
    (["coverage", "no/such/corpus"], "python -m fuzz coverage: error: no/such/corpus: no such file or folder"),
    (["profile", "lint", "no/such/corpus"], "python -m fuzz profile: error: no/such/corpus: no such file or folder"),
    (["leaks", "native", "/nonexistent"], "python -m fuzz leaks: error: /nonexistent: no such file or folder"),
])
def test_fuzz_commands_refuse_a_missing_path_in_one_line(argv, message):
    proc = _fuzz_cli(*argv)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.strip() == message and not proc.stdout


def test_coverage_of_an_empty_folder_is_refused(tmp_path):
    proc = _fuzz_cli("coverage", tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"python -m fuzz coverage: error: no input files in {tmp_path}"


def test_reproduce_runs_the_installed_fxtlint_and_says_which(tmp_path):
    """From the checkout, `python -m fuzz` puts the checkout's sources first on the path; the
    harness imports the installed package. A fault put in the installed copy must show."""
    site = faulty_install(tmp_path)
    crash = tmp_path / "crash-boom"
    crash.write_bytes(b"\x10\x00\x04\x46\x78\x54\x16\x00BOOM")
    proc = _fuzz_cli("reproduce", "lint", crash, env=dict(os.environ, PYTHONPATH=str(site)))
    assert proc.stderr.splitlines()[0].startswith(f"fxtlint under test: {site / 'fxtlint'} (engine: "), proc.stderr
    assert proc.returncode == 1 and f"{crash}: FAILED" in proc.stdout
    assert "the fault in the installed copy" in proc.stderr


def test_the_harness_and_the_commands_import_the_same_fxtlint(tmp_path):
    site = faulty_install(tmp_path)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), str(site)]))  # as tests and campaigns set it
    probe = [sys.executable, "-c", "import fuzz, fxtlint; print(fxtlint.__file__)"]
    assert subprocess.run(probe, cwd=REPO, env=env, capture_output=True, text=True).stdout.strip() == \
        str(site / "fxtlint" / "__init__.py")


def test_the_harness_as_a_campaign_starts_it_imports_the_installed_fxtlint(tmp_path, monkeypatch):
    from fuzz.campaign import harness_fxtlint

    site = faulty_install(tmp_path)
    monkeypatch.setenv("PYTHONPATH", str(site))  # harness_env puts the checkout before it
    assert harness_fxtlint("lint").startswith(f"fxtlint under test: {site / 'fxtlint'} (engine: ")


def test_reproduce_reports_a_failing_input(tmp_path, capsys):
    f = tmp_path / "x.bin"
    f.write_bytes(b"\x01")

    def broken(data):
        raise AssertionError("the bug is back")

    assert reproduce("lint", [f], check=broken) == 1
    assert "the bug is back" in capsys.readouterr().err
    assert reproduce("lint", [f]) == 0
