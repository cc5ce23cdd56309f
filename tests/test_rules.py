"""The rule registry: complete, unique, used, and every rule's examples fail and pass."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import fxtlint
from fxtlint.spec._tables import _tables_dir
from fxtlint.rules import REGISTRY, all_rules

RULES = all_rules()
SOURCE = "\n".join(p.read_text("utf-8") for p in Path(fxtlint.__file__).parent.rglob("*.py"))
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


def test_exported_names_are_exactly_the_registry():
    """Rules are bound by explicit imports, not ``globals()``: ``__all__`` lists each once."""
    exported = {n: getattr(fxtlint.rules, n) for n in fxtlint.rules.__all__}
    rules = [v for v in exported.values() if isinstance(v, fxtlint.Rule)]
    assert len(rules) == len({id(r) for r in rules})
    assert {r.code for r in rules} == set(REGISTRY)
    assert all(REGISTRY[r.code] is r for r in rules)


def _declare(message, params, **kw):
    from fxtlint.rules._diagnostics import Example, Rule, Severity

    return Rule(code="ZZ001", name="fake", severity=Severity.WARNING, message=message, what="w",
                why="y", bad=Example("b", lambda: b""), good=Example("g", lambda: b""), spec="s",
                params=params, **kw)


def test_template_field_missing_from_params_fails_when_the_rule_is_built():
    assert _declare("bad {thing}", ("thing",)).at(0, 0, thing=3).message == "bad 3"
    with pytest.raises(fxtlint.FxtError, match=r"\{thing\}"):
        _declare("bad {thing}", ("other",))
    with pytest.raises(fxtlint.FxtError, match=r"\{0\}"):
        _declare("bad {0}", ())
    with pytest.raises(fxtlint.FxtError, match="derived"):
        _declare("bad {shown}", ("value",), derived=("shown",))  # derived without derive
    with pytest.raises(fxtlint.FxtError, match="optional"):
        _declare("bad {value}", ("value?",))  # only a *_text clause may be left out


def test_reporting_with_a_missing_or_extra_parameter_raises():
    rule = _declare("bad {thing}{why_text}", ("thing", "why_text?", "where?"))
    assert rule.at(0, 0, thing=1).message == "bad 1"
    assert rule.at(0, 0, thing=1, why_text=": odd", where=4).details == {"thing": 1, "where": 4}
    with pytest.raises(fxtlint.FxtError, match="ZZ001"):
        rule.at(0, 0, thing=1, stray=2)
    with pytest.raises(fxtlint.FxtError, match="ZZ001"):
        rule.at(0, 0)


def test_removed_codes_stay_registered_and_are_never_reported():
    """PR held rules that are not about pairing; they moved to EV under defect names.
    The old codes keep their place so no new rule can take them."""
    removed = fxtlint.rules.removed_rules()
    assert {r.code: r.replaced_by for r in removed} == {"PR009": "EV001", "PR010": "EV002", "PR011": "EV003"}
    for r in removed:
        assert REGISTRY[r.code] is r and r.status == "removed" and r not in RULES
        now = REGISTRY[r.replaced_by]
        assert now.status == "stable" and now.message == r.message
        for engine in ("fast", "reference"):
            codes = fxtlint.lint_bytes(r.bad.build(), engine=engine).counts
            assert r.code not in codes and now.code in codes
    assert REGISTRY["EV003"].name == "records-dropped"  # the defect, not the event


def test_pairing_family_is_only_about_pairing():
    for r in RULES:
        if r.code.startswith("PR"):
            assert any(w in r.name for w in ("duration", "async", "flow", "begin", "unterminated", "pairing")), r
