"""The rule registry: complete, unique, used, and every rule's examples fail and pass."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.rules import REGISTRY, all_rules
from fxtlint.rules import _ex as X
from fxtlint.spec._tables import tables

RULES = all_rules()
T = tables()


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
    assert rule.bad.caption.strip() and rule.good.caption.strip()


def test_a_rule_with_an_unknown_status_is_refused_where_it_is_declared():
    with pytest.raises(fxtlint.FxtError, match="status = 'retired' is not one of"):
        dataclasses.replace(RULES[0], status="retired")


def _report_sites() -> set[str]:
    """Python names of the rules some code reports: ``R.name`` (``R`` the rules package
    under any alias, or ``name`` after ``from .rules import name``) reporting
    (``R.name.at(...)``) or handed to a reporter (``report(R.name, ...)``), in the
    package's code outside the declarations (comments, strings and reads such as
    ``R.name.code`` do not count), or returned first in a sink's row (``return R.name,
    offset, ...``: ``DiagnosticSink.add_at``'s arguments, ``_semantic``'s ``*_row``
    builders; either rule of a conditional there), plus the rules table fields report
    (``rule``, ``rule_between``)."""
    sites = set()
    pkg = Path(fxtlint.__file__).parent
    for path in pkg.rglob("*.py"):
        if path.parent.name == "rules":
            continue
        tree = ast.parse(path.read_text("utf-8"))
        aliases, imported = set(), set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "rules":
                imported |= {a.asname or a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.module:
                aliases |= {a.asname or a.name for a in node.names if a.name == "rules"}
        for node in ast.walk(tree):
            uses = []
            if isinstance(node, ast.Call):
                uses = [node.func.value] if isinstance(node.func, ast.Attribute) and node.func.attr == "at" else []
                uses += [*node.args, *(k.value for k in node.keywords)]
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts:
                first = node.value.elts[0]
                uses = [first.body, first.orelse] if isinstance(first, ast.IfExp) else [first]
            for use in uses:
                if isinstance(use, ast.Attribute) and isinstance(use.value, ast.Name) and use.value.id in aliases:
                    sites.add(use.attr)
                elif isinstance(use, ast.Name) and use.id in imported:
                    sites.add(use.id)
    codes = {c for lay in [*T.record_leaves(), *T.arguments.values(), T.log_record]
             for f in lay.all_fields() for c in (f.rule, f.rule_between) if c}
    return sites | {k for k, v in vars(fxtlint.rules).items() if getattr(v, "code", None) in codes}


REPORT_SITES = _report_sites()


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_rule_is_reported_somewhere_in_the_code(rule):
    """A report site in code; that it reports what it should is the bad example's test below."""
    py_name = next(k for k, v in vars(fxtlint.rules).items() if v is rule)
    assert py_name in REPORT_SITES, f"{rule.code} ({py_name}) is never reported"


def test_a_comment_or_a_read_is_not_a_report_site(tmp_path, monkeypatch):
    """The control: the same search over a module that mentions rules in a comment and reads one."""
    fake = tmp_path / "fxtlint"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "_x.py").write_text("from . import rules as R\n"
                                "# R.record_size_zero.at(0, 0)\n"
                                "R.not_fxt_file.at(0, 0)\n"
                                "report(R.unknown_record_type, 0)\n"
                                "print(R.content_overruns_record.code)\n"
                                "def row(): return R.string_record_empty, 0, 0, 8, {}\n"
                                "def rows(): return (R.tick_rate_zero if x else R.timestamp_overflows_ns), 0\n"
                                "def read(): return R.magic_missing.code, R.not_fxt_file\n"
                                "CODES = (R.magic_repeated, R.string_ref_unregistered)\n")
    monkeypatch.setattr(fxtlint, "__file__", str(fake / "__init__.py"))
    sites = _report_sites()
    assert {"not_fxt_file", "unknown_record_type", "string_record_empty", "tick_rate_zero",
            "timestamp_overflows_ns"} <= sites
    assert not {"record_size_zero", "content_overruns_record", "magic_missing", "magic_repeated",
                "string_ref_unregistered"} & sites


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
                params=params, **{"scope": ("file",), "no_mutation": "a fake rule", **kw})


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
    rule = _declare("bad {thing}{why}", ("thing", "odd?", "where?"), derived=("why",),
                    derive=lambda p: {"why": f": odd {p['odd']}" if "odd" in p else ""})
    assert rule.at(0, 0, thing=1).message == "bad 1"
    found = rule.at(0, 0, thing=1, odd=3, where=4)
    assert found.message == "bad 1: odd 3" and found.details == {"thing": 1, "odd": 3, "where": 4}
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


def test_parameters_are_data_never_sentence_fragments():
    # a clause is the rule's (derive), the engines report only what they found
    with pytest.raises(fxtlint.FxtError, match="sentence fragments"):
        _declare("bad {thing}{why_text}", ("thing", "why_text?"))
    # an optional parameter reaches the message only through derive: never as ""
    with pytest.raises(fxtlint.FxtError, match="through derive"):
        _declare("bad {thing} {odd}", ("thing", "odd?"))
    # a derive that leaves out a field it declares is an error when the message is built
    # (at its first read), not ""
    broken = _declare("bad {thing}{why}", ("thing",), derived=("why",), derive=lambda p: {})
    with pytest.raises(fxtlint.FxtError, match="ZZ001: message parameter 'why' is missing"):
        broken.at(0, 0, thing=1).message  # noqa: B018


# -- messages a writer author can act on (issue 24, item 6): each names what to fix ----------
def _userspace_object_cut_before_its_process_koid() -> bytes:
    record = B.archive(B.userspace_object(0x1234, (5,), 1))
    return X.preamble() + X.with_size(record, 2)[:16]  # header and pointer; the process id word left out


MESSAGES = [
    # a userspace object has the spec's "process id word" only, not a thread koid as well
    ("userspace-process-word", _userspace_object_cut_before_its_process_koid, "ST001",
     "userspace_object: its process_koid word (process 0 means an inline thread: its process koid follows "
     "as a word) needs 8 bytes but the record's size leaves 0"),
    # ST006 and ST007 name the argument as ST005 does, and how many arguments the header declares
    ("ST006", lambda: REGISTRY["ST006"].bad.build(), "ST006",
     "event.instant argument 0 (int32, name ref 1) declares a size of 0 words (its record's header declares "
     "1 argument); the record's remaining arguments cannot be read"),
    ("ST007", lambda: REGISTRY["ST007"].bad.build(), "ST007",
     "event.instant argument 0 (int32, name ref 1) declares 4 words but its record has only 1 word left "
     "(its record's header declares 1 argument)"),
    # EV003: the spec's "likely", and a provider no Provider Info record announced
    ("EV003-announced", lambda: X.preamble(B.provider_event(1, 0)), "EV003",
     "provider 1 reports its buffer full: records were likely dropped, and later pairing warnings may be "
     "caused by it"),
    ("EV003-unannounced", lambda: X.preamble(B.provider_event(7, 0)), "EV003",
     "provider 7, which no Provider Info record announced, reports its buffer full: records were likely "
     "dropped, and later pairing warnings may be caused by it"),
    # ST004: which string of which record
    ("ST004-string-record", lambda: X.preamble(B.string(3, "a" * 32001)), "ST004",
     "the value of the string record for index 3 is 32001 bytes, over the spec's limit of 32000"),
    ("ST004-inline-name", lambda: X.preamble(B.event("instant", 100, name="n" * 32001)), "ST004",
     "the name string of the event.instant record is 32001 bytes, over the spec's limit of 32000"),
    ("ST004-argument", lambda: X.preamble(B.event("instant", 100, args=[B.arg("string", "k", "v" * 32001)])),
     "ST004", 'the value string of argument 0 "k" (string) of the event.instant record is 32001 bytes, over '
     "the spec's limit of 32000"),
    # one tick, not "1 ticks"
    ("TM003-one-tick-per-second", lambda: X.preamble(B.initialization(1), B.event("instant", 2**64 - 1)),
     "TM003", "timestamp 18446744073709551615 ticks at 1 tick/s is past 2^64 nanoseconds"),
]


@pytest.mark.parametrize(("make", "code", "message"), [m[1:] for m in MESSAGES], ids=[m[0] for m in MESSAGES])
def test_messages_name_what_a_writer_must_fix(make, code, message):
    found = [d.message for d in fxtlint.lint_bytes(make()).diagnostics if d.code == code]
    assert found == [message]


def test_an_example_is_built_once():
    """An example's bytes are made at the first ``build`` and kept (PR012's are seconds of
    encoding), a copy of the example keeps them, and a new example builds its own."""
    from fxtlint.rules._diagnostics import Example

    calls: list = []
    ex = Example("x", lambda: calls.append(1) or b"built")
    assert calls == []  # (nothing made before it is asked for)
    assert ex.build() == b"built" and ex.build() is ex.build() and calls == [1]
    assert dataclasses.replace(ex, caption="y").build() is ex.build() and calls == [1]
    assert Example("z", lambda: calls.append(2) or b"other").build() == b"other" and calls == [1, 2]
