"""The rule registry: complete, unique, used, and every rule's examples fail and pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fxtlint
from fxtlint._tables import _tables_dir
from fxtlint.rules import REGISTRY, all_rules

RULES = all_rules()
SOURCE = "\n".join(p.read_text("utf-8") for p in Path(fxtlint.__file__).parent.glob("*.py"))
# field checks report the rule their table names (rule = "CODE")
# the tables the package loads (packaged in an installed wheel, spec-tables/ in a checkout)
TABLES = "\n".join(p.read_text("utf-8") for p in _tables_dir().glob("*.toml"))


def test_codes_are_unique_and_well_formed():
    assert len({r.code for r in RULES}) == len(RULES)
    assert len({r.name for r in RULES}) == len(RULES)
    for r in RULES:
        assert re.fullmatch(r"[A-Z]{2}\d{3}", r.code), r.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", r.name), r.name


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docs_are_complete(rule):
    for attr in ("what", "why", "spec", "message"):
        assert getattr(rule, attr).strip(), attr
    assert rule.bad.caption and rule.good.caption
    assert rule.status in ("stable", "preview", "deprecated", "removed")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_reported_somewhere_in_the_code(rule):
    py_name = next(k for k, v in vars(fxtlint.rules).items() if v is rule)
    assert (re.search(rf"\bR\.{py_name}\b", SOURCE) or re.search(rf'rule(_between)? = "{rule.code}"', TABLES)), \
        f"{rule.code} ({py_name}) is never reported"


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_failing_example_trips_the_rule(rule, engine):
    report = fxtlint.lint_bytes(rule.bad.build(), input_format=rule.bad.input_format, engine=engine)
    assert rule.code in report.counts
    assert all(d.severity == rule.severity for d in report.diagnostics if d.code == rule.code)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_passing_twin_is_clean(rule, engine):
    report = fxtlint.lint_bytes(rule.good.build(), input_format=rule.good.input_format, engine=engine)
    assert rule.code not in report.counts
    assert report.severity_counts["error"] == 0 and report.severity_counts["warning"] == 0, report.counts


def test_severity_defaults_follow_the_issue():
    """Errors: framing, reserved bits, sizes, padding, UTF-8, magic. Warnings: unknown types."""
    # diagnoses that guess at a cause are warnings: a size that may be one too large,
    # a string that may count its C terminator
    heuristics = {"FR004", "ST008"}
    for r in RULES:
        if r.code in heuristics:
            assert r.severity == fxtlint.Severity.WARNING, r.code
        elif r.code[:2] in ("FR", "RB", "ST"):
            assert r.severity == fxtlint.Severity.ERROR, r.code
        if r.code[:2] == "UN":
            assert r.severity == fxtlint.Severity.WARNING, r.code
        if r.code[:2] == "EX":
            assert r.severity == fxtlint.Severity.INFO, r.code


def test_get_is_case_insensitive():
    assert fxtlint.rules.get("fr001") is REGISTRY["FR001"]
    assert fxtlint.rules.get("XX999") is None
