"""`fxtlint check -j N` prints what a serial run prints; the progress bar draws only on a
terminal and only after its delay; hex views from a worker show the linted bytes."""

from __future__ import annotations

import io
import shutil
import time
from pathlib import Path

import pytest
from rich.console import Console

import fxtlint
from fxtlint import cli
from fxtlint.engine._hexview import Excerpts, dump, record_window
from fxtlint.cli._progress import progress_bar

GOLDEN = Path(__file__).resolve().parent.parent / "corpus" / "golden"


@pytest.fixture
def traces(tmp_path):
    """Every golden trace (most with diagnostics and hex views), plus one unreadable path."""
    for p in sorted(GOLDEN.glob("*.fxt")):
        shutil.copy(p, tmp_path / p.name)
    return tmp_path


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("fmt", ["rich", "json", "sarif", "json-lines"])
def test_jobs_print_what_a_serial_run_prints(traces, capsys, fmt):
    serial = run(capsys, "--isolated", "--output-format", fmt, "-j", "1", str(traces))
    parallel = run(capsys, "--isolated", "--output-format", fmt, "-j", "2", str(traces))
    assert serial == parallel
    assert serial[0] == 1 and len(serial[1]) > 1000
    if fmt == "rich":
        assert "^^" in serial[1]  # the hex views are there, and the same


def test_jobs_give_an_unreadable_path_its_error_in_its_place(traces):
    from fxtlint.cli import check

    files = sorted(str(p) for p in traces.glob("*.fxt"))[:4]
    files.insert(2, str(traces / "vanished.fxt"))  # listed, then gone before the lint
    settings = {"input_format": "auto"}
    sink_options = {"per_rule_cap": 200}

    def outcomes(jobs):
        out = []
        for path, report, _ in check._lint_all(files, settings, sink_options, jobs, lambda d, t: None):
            out.append((path, repr(report) if isinstance(report, OSError) else report.to_json()))
        return out

    serial, parallel = outcomes(1), outcomes(2)
    assert serial == parallel
    assert [p for p, _ in serial] == files
    assert "No such file" in serial[2][1]


def test_excerpts_give_the_hex_view_of_the_whole_buffer():
    data = (GOLDEN / "ST002-padding-not-zero.fxt").read_bytes()
    report = fxtlint.lint_bytes(data)
    assert report.diagnostics
    excerpts = Excerpts(data, report.diagnostics)
    for d in report.diagnostics:
        start, end = record_window(d.offset, d.record_size, d.span, len(data))
        assert dump(excerpts, start, end, d.span) == dump(data, start, end, d.span)
    with pytest.raises(KeyError):  # bytes nobody copied are a bug, not zeros
        excerpts[len(data) + 64 : len(data) + 80]


def _terminal(width=100):
    return Console(file=io.StringIO(), force_terminal=True, width=width)


def test_progress_bar_draws_after_its_delay_on_a_terminal():
    console = _terminal()
    with progress_bar(console, 1000, delay=0.0) as advance:
        time.sleep(0.3)
        advance(500, 1000)
        time.sleep(0.3)
    assert "linting" in console.file.getvalue()


@pytest.mark.parametrize("make, kwargs", [
    (_terminal, {"delay": 5.0}),  # the work ended before the delay
    (_terminal, {"delay": 0.0, "enabled": False}),  # --no-progress
    (lambda: Console(file=io.StringIO(), force_terminal=False), {"delay": 0.0}),  # not a terminal
])
def test_progress_bar_stays_away(make, kwargs):
    console = make()
    with progress_bar(console, 1000, **kwargs) as advance:
        time.sleep(0.2)
        advance(1000, 1000)
    assert console.file.getvalue() == ""
