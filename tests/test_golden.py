"""Every golden case still gets its expected report; every rule has a golden case."""

from __future__ import annotations

import json

import pytest

from fxtlint.rules import all_rules
from golden import GOLDEN, case_path, report_for, report_path

CASES = sorted(p for p in GOLDEN.glob("*.*") if p.suffix in (".fxt", ".log"))
CLEAN = sorted(p for p in (GOLDEN / "clean").glob("*.*") if p.suffix in (".fxt", ".log"))


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_has_a_golden_case_that_trips_it(rule):
    path = case_path(rule)
    assert path.is_file(), f"no golden case for {rule.code}: run python tests/golden.py --rewrite"
    assert rule.code in json.loads(report_path(path).read_text())["counts"]


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_golden_report_matches(path):
    expected = json.loads(report_path(path).read_text())
    assert report_for(path) == expected, "report changed: if deliberate, run python tests/golden.py --rewrite"


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_golden_case_matches_and_does_not_trip_its_rule(path):
    expected = json.loads(report_path(path).read_text())
    assert report_for(path) == expected, "report changed: if deliberate, run python tests/golden.py --rewrite"
    assert path.name[:5] not in expected["counts"]


def test_clean_golden_cases_exist():
    assert {p.name for p in CLEAN} >= {"PR007-flow-across-processes.fxt", "ST004-log-string-over-32000.log"}
