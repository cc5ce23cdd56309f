"""The fast and the reference engines give the same report: compared whole, in JSON
form (spans, record sizes, severities and details included), as glTF-Validator
compares golden reports. And the reader's prefix property at every 8-byte cut."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings

import fxtlint
from fxtlint import strategies as fst
from fxtlint.rules import all_rules

from conftest import CORPUS_REAL

REPO = Path(__file__).resolve().parent.parent
INPUTS = sorted((REPO / "corpus" / "golden").glob("*.fxt")) + sorted(CORPUS_REAL.glob("*.fxt"))


def assert_same_report(fast: fxtlint.FileReport, ref: fxtlint.FileReport) -> None:
    assert fast.to_json() == ref.to_json()
    assert fast.diagnostics == ref.diagnostics  # Diagnostic equality compares every field


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_engines_agree_on_whole_reports(path):
    data = path.read_bytes()
    assert_same_report(fxtlint.lint_bytes(data), fxtlint.lint_bytes(data, engine="reference"))


@settings(max_examples=40, deadline=None)
@given(fst.archives())
def test_engines_agree_on_whole_reports_of_drawn_traces(data):
    assert_same_report(fxtlint.lint_bytes(data), fxtlint.lint_bytes(data, engine="reference"))


@settings(max_examples=40, deadline=None)
@given(fst.mutated_archives())
def test_engines_agree_on_whole_reports_of_drawn_defects(case):
    data, _ = case
    assert_same_report(fxtlint.lint_bytes(data), fxtlint.lint_bytes(data, engine="reference"))


@pytest.mark.parametrize("change", [
    {"span": (0, 1)}, {"record_size": 4096}, {"severity": fxtlint.Severity.INFO}, {"details": {"x": 1}},
])
def test_a_difference_outside_code_offset_and_message_fails_the_comparison(change):
    report = fxtlint.lint_bytes(all_rules()[0].bad.build())
    d = report.diagnostics[0]
    other = dataclasses.replace(d, **change)
    assert other != d
    changed = dataclasses.replace(report, diagnostics=[other, *report.diagnostics[1:]])
    with pytest.raises(AssertionError):
        assert_same_report(changed, report)


def test_diagnostics_sort_by_their_sort_key_not_by_comparison():
    report = fxtlint.lint_bytes(all_rules()[0].bad.build())
    d = report.diagnostics[0]
    later = dataclasses.replace(d, offset=d.offset + 8)
    assert sorted([later, d], key=fxtlint.Diagnostic.sort_key) == [d, later]
    with pytest.raises(TypeError):
        sorted([later, d])  # no ordering that ignores fields pretends to be equality
    assert hash(d) == hash(dataclasses.replace(d))


def _prefix_cases():
    out = [(r.code + "-bad", r.bad.build()) for r in all_rules() if r.bad.input_format == "trace"]
    out += [(r.code + "-good", r.good.build()) for r in all_rules() if r.good.input_format == "trace"]
    return [(name, data) for name, data in out if len(data) <= 2048]


@pytest.mark.parametrize("name, data", _prefix_cases(), ids=[n for n, _ in _prefix_cases()])
def test_every_8_byte_prefix_reads_as_the_whole_input_up_to_the_cut(name, data):
    """Cut at every record-aligned point: what the prefix holds whole is read exactly as
    in the whole input, the rest is one truncated record at the most."""
    whole, _ = fxtlint.read_records(data)
    for cut in range(0, len(data) + 1, 8):
        recs, diags = fxtlint.read_records(data[:cut])
        inside = [r for r in whole if r.end <= cut]
        assert recs[: len(inside)] == inside, cut
        assert [(r.offset, r.size_words) for r in recs[: len(inside)]] == [(r.offset, r.size_words) for r in inside]
        assert len(recs) - len(inside) <= 1, cut
        for d in diags:
            assert 0 <= d.offset <= cut and (d.span is None or 0 <= d.span[0] <= d.span[1] <= cut), (cut, d)
