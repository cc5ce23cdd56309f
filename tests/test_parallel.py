"""Linting files in parallel processes gives the reports of a serial run, in input order."""

from __future__ import annotations

import pytest

import fxtlint
from fxtlint import lint_paths  # the public face: the README tells users to call it
from fxtlint.rules import all_rules


@pytest.fixture
def files(tmp_path):
    """Failing and passing rule examples of both formats, of different sizes."""
    paths = []
    for rule in all_rules()[::4]:
        for which, ex in (("bad", rule.bad), ("good", rule.good)):
            p = tmp_path / f"{rule.code}-{which}.{'log' if ex.input_format == 'log' else 'fxt'}"
            p.write_bytes(ex.build())
            paths.append(p)
    return paths


def as_json(reports):
    return [r.to_json() if isinstance(r, fxtlint.FileReport) else repr(r) for r in reports]


def test_parallel_reports_equal_serial_reports_in_input_order(files):
    serial = [fxtlint.lint_path(p) for p in files]
    parallel = lint_paths(files, jobs=2)
    assert [r.path for r in parallel] == [str(p) for p in files]
    assert as_json(parallel) == as_json(serial)
    assert any(r.diagnostics for r in parallel)  # the comparison covers findings, not only clean files


def test_sink_options_reach_every_worker(files):
    opts = {"ignored": frozenset({"MG001"}), "per_rule_cap": 1}
    parallel = lint_paths(files, jobs=2, sink_options=opts)
    serial = [fxtlint.lint_path(p, sink=fxtlint.DiagnosticSink(**opts)) for p in files]
    assert as_json(parallel) == as_json(serial)
    assert all("MG001" not in r.counts for r in parallel)


@pytest.mark.parametrize("jobs", [1, 2])
def test_progress_reports_bytes_done_up_to_the_total(files, jobs):
    calls = []
    lint_paths(files, jobs=jobs, progress=lambda done, total: calls.append((done, total)))
    total = sum(p.stat().st_size for p in files)
    assert len(calls) == len(files)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert calls[-1] == (total, total)


def test_an_unreadable_path_is_its_error_in_its_place(files, tmp_path):
    missing = tmp_path / "missing.fxt"
    out = lint_paths([files[0], missing, files[1]], jobs=2)
    assert isinstance(out[1], FileNotFoundError)
    assert out[0].path == str(files[0]) and out[2].path == str(files[1])


def test_jobs_must_be_positive(files):
    with pytest.raises(ValueError, match="jobs"):
        lint_paths(files, jobs=0)
