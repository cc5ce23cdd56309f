"""The CI renderers (SARIF, GitHub, JUnit, JSON Lines), on the same shared list as the
other renderers (tests/test_render.py), plus SARIF of real lint runs checked by the
OASIS JSON Schema and by the SARIF Multitool.

The Multitool tests skip, saying how to install it, when the tool is missing (set
FXTLINT_SARIF_MULTITOOL to its executable or put ``sarif-multitool`` on PATH); CI
installs it and requires it (tests/external_tools.py).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
from pathlib import Path
from xml.etree import ElementTree as ET

import jsonschema
import pytest

import fxtlint
from conftest import CORPUS_REAL, SPEC_DIR
from fxtlint import build as B
from fxtlint.render import _render_github, _render_jsonl, _render_junit, _render_sarif
from fxtlint.rules import all_rules
from fxtlint.rules._diagnostics import Diagnostic, Severity
from test_render import clean_report, shared_report

SCHEMA = json.loads((SPEC_DIR / "sarif-schema-2.1.0.json").read_text("utf-8"))
FAILURES = [("gone.fxt", "no such file or directory")]


def sarif_errors(log: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(SCHEMA)
    return [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(log)]


def shared_sarif() -> dict:
    return _render_sarif.render([shared_report(), clean_report()], failures=FAILURES, rules=all_rules(),
                                version="9.9.9")


# --- SARIF


def test_sarif_of_the_shared_list_is_valid_by_the_schema():
    assert sarif_errors(shared_sarif()) == []


def test_schema_check_can_fail():
    log = shared_sarif()
    log["runs"][0]["results"][0]["level"] = "fatal"
    del log["version"]
    assert len(sarif_errors(log)) >= 2


def test_sarif_results_one_per_diagnostic_with_byte_regions():
    run = shared_sarif()["runs"][0]
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["E001", "E001", "W010", "E002", "I100", "W010"]
    assert [r["level"] for r in results] == ["error", "error", "warning", "error", "note", "warning"]
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in results]
    assert regions[0] == {"startLine": 1, "byteOffset": 0, "byteLength": 8}
    assert regions[2] == {"startLine": 1, "byteOffset": 30, "byteLength": 4}  # the field, not the record
    assert regions[4] == {"startLine": 1, "byteOffset": 152, "byteLength": 8}  # no span: the record
    assert results[0]["message"]["text"] == "header word is bad."
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results} == {"mem.fxt"}
    rules = run["tool"]["driver"]["rules"]
    for r in results:
        assert rules[r["ruleIndex"]]["id"] == r["ruleId"]
    assert run["invocations"] == [{
        "executionSuccessful": False,
        "toolExecutionNotifications": [{
            "level": "error", "message": {"text": "gone.fxt: no such file or directory."},
            "locations": [{"physicalLocation": {"artifactLocation": {"uri": "gone.fxt", "uriBaseId": "%SRCROOT%"}}}]}],
    }]


def test_sarif_rules_come_from_the_registry():
    driver = shared_sarif()["runs"][0]["tool"]["driver"]
    by_id = {r["id"]: r for r in driver["rules"]}
    registry = all_rules()
    assert [r["id"] for r in driver["rules"][: len(registry)]] == [r.code for r in registry]
    fr1 = by_id["FR001"]
    assert fr1["name"] == "RecordSizeZero"
    assert fr1["shortDescription"]["text"] == "A record header whose size field is 0."
    assert fr1["defaultConfiguration"] == {"level": "error"}
    assert fr1["help"]["markdown"].startswith("## FR001 record-size-zero")
    assert by_id["EX001"]["defaultConfiguration"] == {"level": "note"}
    assert (driver["name"], driver["version"]) == ("fxtlint", "9.9.9")


def test_sarif_driver_names_the_tools_home():
    """The Multitool's SARIF2005 (ProvideToolProperties) asks for the driver's
    informationUri: the project's home, the one pyproject.toml's [project.urls] gives."""
    import tomllib

    from fxtlint.spec._version import HOME_URL

    driver = shared_sarif()["runs"][0]["tool"]["driver"]
    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text("utf-8"))
    home = pyproject["project"]["urls"]["Homepage"]
    assert driver["informationUri"] == HOME_URL == home
    assert home.startswith("https://")


def test_sarif_details_and_uris():
    d = Diagnostic(offset=8, record_index=1, code="RB001", message="x", severity=Severity.ERROR,
                   span=(13, 16), record_size=16, details={"field": "reserved", "bits": [40, 63]})
    r = _render_sarif.result(d, 0, 0, {"uri": "a.fxt", "uriBaseId": "%SRCROOT%"})
    assert r["properties"] == {"recordIndex": 1, "recordOffset": 8, "details": {"field": "reserved", "bits": [40, 63]}}
    assert r["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "a.fxt", "uriBaseId": "%SRCROOT%",
                                                                         "index": 0}


@pytest.mark.parametrize("path, location", [
    ("dir with space/a.fxt", {"uri": "dir%20with%20space/a.fxt", "uriBaseId": "%SRCROOT%"}),
    ("x.fxt", {"uri": "x.fxt", "uriBaseId": "%SRCROOT%"}),
    ("./x.fxt", {"uri": "x.fxt", "uriBaseId": "%SRCROOT%"}),
    ("tools/../traces/x.fxt", {"uri": "traces/x.fxt", "uriBaseId": "%SRCROOT%"}),
    ("/root/proj/traces/x.fxt", {"uri": "traces/x.fxt", "uriBaseId": "%SRCROOT%"}),
    ("/root/proj/tools/../traces/x.fxt", {"uri": "traces/x.fxt", "uriBaseId": "%SRCROOT%"}),
    ("../dir/x.fxt", {"uri": "file:///root/dir/x.fxt"}),  # outside the root: absolute, normalised
    ("/abs/./t.fxt", {"uri": "file:///abs/t.fxt"}),
    ("-", {"uri": "stdin"}),
])
def test_sarif_locations_are_relative_to_the_root_and_normalised(path, location, monkeypatch):
    monkeypatch.setattr(os, "getcwd", lambda: "/root/proj")
    assert _render_sarif.artifact_location(path) == location



def test_a_dotdot_after_a_symlinked_folder_names_the_file_that_was_read(tmp_path, monkeypatch):
    """``tools/../traces/x.fxt`` with tools/ a link elsewhere opens elsewhere's traces/x.fxt:
    dropping the ".." pair lexically would name proj/traces/x.fxt, another file (or none)."""
    proj, away = tmp_path / "proj", tmp_path / "away"
    for d in (proj / "traces", away / "deep", away / "traces"):
        d.mkdir(parents=True)
    (away / "traces" / "x.fxt").write_bytes(b"")
    (proj / "traces" / "y.fxt").write_bytes(b"")
    os.symlink(away / "deep", proj / "tools", target_is_directory=True)
    os.symlink(proj / "traces", proj / "linked", target_is_directory=True)
    monkeypatch.chdir(proj)
    assert _render_sarif.artifact_location("tools/../traces/x.fxt") == {
        "uri": (away / "traces" / "x.fxt").resolve().as_uri()}
    # the twins: a link whose ".." is the folder the lexical reading gives, and no ".." at all
    assert _render_sarif.artifact_location("linked/../traces/y.fxt") == {"uri": "traces/y.fxt",
                                                                          "uriBaseId": "%SRCROOT%"}
    assert _render_sarif.artifact_location("linked/y.fxt") == {"uri": "linked/y.fxt", "uriBaseId": "%SRCROOT%"}

@pytest.fixture(scope="module")
def real_sarif(tmp_path_factory) -> Path:
    """SARIF of a lint of the real corpus and every rule's failing example."""
    tmp_path = tmp_path_factory.mktemp("sarif")
    reports = [fxtlint.lint_path(p) for p in sorted(CORPUS_REAL.glob("*.fxt"))]
    reports += [fxtlint.lint_bytes(r.bad.build(), input_format=r.bad.input_format) for r in all_rules()]
    log = _render_sarif.render(reports, rules=all_rules())
    path = tmp_path / "fxtlint.sarif"
    path.write_text(_render_sarif.dumps(log), encoding="utf-8")
    return path


def test_sarif_of_real_runs_is_valid_by_the_schema(real_sarif):
    log = json.loads(real_sarif.read_text("utf-8"))
    assert sarif_errors(log) == []
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {r.code for r in all_rules()}


# Multitool warnings read and accepted: none (SARIF2005 asked for the driver's
# informationUri, now given). Any warning fails here so that it gets read.
ACCEPTED_WARNINGS: set[str] = set()


def test_sarif_has_no_multitool_error(sarif_multitool, real_sarif, tmp_path):
    tool = sarif_multitool
    sarif = real_sarif
    out = tmp_path / "validation.sarif"
    proc = subprocess.run([*tool, "validate", str(sarif), "--output", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert out.is_file(), proc.stdout + proc.stderr
    findings = json.loads(out.read_text("utf-8-sig"))["runs"][0].get("results", [])
    errors = [f for f in findings if f.get("level", "warning") == "error"]
    assert errors == [], json.dumps(errors, indent=1)[:4000]
    warnings = {f["ruleId"] for f in findings if f.get("level", "warning") == "warning"}
    assert warnings <= ACCEPTED_WARNINGS, warnings


def _sarif_from_the_cli(spelled: str, cwd: Path) -> dict:
    """``fxtlint SPELLED --output-format sarif`` run in ``cwd``, as a CI job runs it."""
    from fxtlint.cli import main

    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp, contextlib.redirect_stdout(out):
        mp.chdir(cwd)
        assert main([spelled, "--output-format", "sarif"]) == 1
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def path_forms(tmp_path_factory) -> dict[str, dict]:
    """The SARIF of one failing trace, per way of naming it on the command line, run in
    proj/ (x.fxt and traces/x.fxt inside it, dir/x.fxt beside it, linked/ a link to traces/)."""
    top = tmp_path_factory.mktemp("forms")
    proj = top / "proj"
    for d in (proj / "traces", proj / "tools", top / "dir"):
        d.mkdir(parents=True)
    bad = fxtlint.rules.REGISTRY["RB001"].bad.build()  # an error: exit status 1
    for f in (proj / "x.fxt", proj / "traces" / "x.fxt", top / "dir" / "x.fxt"):
        f.write_bytes(bad)
    os.symlink(proj / "traces", proj / "linked", target_is_directory=True)
    forms = ["x.fxt", "./x.fxt", "../dir/x.fxt", str(proj / "x.fxt"), "linked/x.fxt", "tools/../traces/x.fxt",
             f"{proj}/tools/../traces/x.fxt"]
    return {spelled: _sarif_from_the_cli(spelled, proj) for spelled in forms}


def _uris(log: dict) -> list[dict]:
    run_ = log["runs"][0]
    return [a["location"] for a in run_["artifacts"]] + [
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in run_["results"]]


def test_sarif_uris_of_every_path_form_are_normalised(path_forms):
    expected = {"x.fxt": "x.fxt", "./x.fxt": "x.fxt", "linked/x.fxt": "linked/x.fxt",
                "tools/../traces/x.fxt": "traces/x.fxt"}
    for spelled, log in path_forms.items():
        assert sarif_errors(log) == [], spelled
        assert log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]
        for loc in _uris(log):
            assert "/../" not in loc["uri"] and "/./" not in loc["uri"] and not loc["uri"].startswith((".", "/"))
            if spelled == "../dir/x.fxt":  # outside the root: a normalised absolute URI
                assert loc["uri"].startswith("file:///") and loc["uri"].endswith("/dir/x.fxt")
                assert "uriBaseId" not in loc
            else:
                assert loc["uriBaseId"] == "%SRCROOT%"
                assert loc["uri"] == expected.get(spelled, "x.fxt" if spelled.endswith("proj/x.fxt") else
                                                  "traces/x.fxt"), spelled


def test_sarif_of_every_path_form_has_no_multitool_error(sarif_multitool, path_forms, tmp_path):
    """The SARIF Multitool validates the log of each path form with 0 errors; a log with
    the '..' URI fxtlint used to write is the control that must fail (SARIF1002)."""
    tool = sarif_multitool
    files = []
    for i, log in enumerate(path_forms.values()):
        files.append(tmp_path / f"form{i}.sarif")
        files[-1].write_text(_render_sarif.dumps(log), encoding="utf-8")
    control = json.loads(json.dumps(path_forms["tools/../traces/x.fxt"]))
    for loc in _uris(control):
        loc.pop("uriBaseId", None)
        loc["uri"] = "file:///proj/tools/../traces/x.fxt"
    (tmp_path / "control.sarif").write_text(_render_sarif.dumps(control), encoding="utf-8")
    out = tmp_path / "validation.sarif"
    proc = subprocess.run([*tool, "validate", *map(str, files), str(tmp_path / "control.sarif"), "--output", str(out)],
                          check=False, capture_output=True, text=True, timeout=300)
    assert out.is_file(), proc.stdout + proc.stderr
    findings = json.loads(out.read_text("utf-8-sig"))["runs"][0].get("results", [])
    by_file: dict[str, list] = {}
    for f in findings:
        name = f["locations"][0]["physicalLocation"]["artifactLocation"]["uri"].rsplit("/", 1)[-1]
        by_file.setdefault(name, []).append((f["ruleId"], f.get("level", "warning")))
    for path in files:
        assert {rule for rule, level in by_file.get(path.name, [])} <= ACCEPTED_WARNINGS, by_file.get(path.name)
        assert "error" not in {level for _, level in by_file.get(path.name, [])}
    assert ("SARIF1002", "error") in by_file["control.sarif"]


# --- GitHub workflow commands


def test_github_commands_exact():
    out = _render_github.render([shared_report(), clean_report()], failures=FAILURES)
    assert out.splitlines() == [
        "::error file=gone.fxt,title=fxtlint::no such file or directory",
        "::error file=mem.fxt,title=fxtlint E001::E001 header word is bad (byte 0x0, record 0)",
        "::error file=mem.fxt,title=fxtlint E001::E001 second bad header (byte 0x10, record 1)",
        "::error file=mem.fxt,title=fxtlint E002::E002 far field (byte 0x30, record 2)",
        "::warning file=mem.fxt,title=fxtlint W010::W010 field crosses a row (byte 0x10, record 1)",
        "::warning file=mem.fxt,title=fxtlint W010::W010 clamped at end of file (byte 0x98, record 3)",
        "::notice file=mem.fxt,title=fxtlint I100::I100 just so you know (byte 0x98, record 3)",
        "::notice title=fxtlint summary::fxtlint: 2 files, 4 errors, 2 warnings, 1 info; "
        "6 annotated, 1 not shown (see the log or --output-format json)",
    ]


def test_github_is_capped_most_severe_first():
    out = _render_github.render([shared_report()], cap=2).splitlines()
    assert [line.split(" ", 1)[0] for line in out] == ["::error", "::error", "::notice"]
    assert "2 annotated, 5 not shown" in out[-1]


def test_github_escapes_data_and_properties():
    assert _render_github.escape_data("50%\nnext") == "50%25%0Anext"
    assert _render_github.escape_property("a,b:c") == "a%2Cb%3Ac"


# --- JUnit


def test_junit_one_failed_case_per_diagnostic():
    root = ET.fromstring(_render_junit.render([shared_report(), clean_report()], failures=FAILURES,
                                              fail_on="info"))
    assert root.tag == "testsuites"
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("8", "6", "1")
    mem, clean, gone = root.findall("testsuite")
    assert [c.get("name") for c in mem.findall("testcase")][:2] == ["E001 at byte 0x0, record 0",
                                                                     "E001 at byte 0x10, record 1"]
    fail = mem.find("testcase/failure")
    assert (fail.get("type"), fail.get("message")) == ("error", "E001: header word is bad")
    assert mem.find("system-out").text == "1 more diagnostics over the per-rule cap"
    assert [c.get("name") for c in clean.findall("testcase")] == ["no problems"]
    assert clean.find("testcase/failure") is None
    assert gone.find("testcase/error").get("message") == "no such file or directory"


def test_junit_fails_only_at_or_above_fail_on():
    root = ET.fromstring(_render_junit.render([shared_report()]))  # --fail-on error, the default
    assert (root.get("tests"), root.get("failures")) == ("6", "3")
    cases = root.findall("testsuite/testcase")
    assert [c.find("failure") is not None for c in cases] == [True, True, False, True, False, False]
    assert cases[2].find("system-out").text == "warning[W010] mem.fxt at byte 0x10, record 1: field crosses a row"


# --- JSON Lines


def test_json_lines_one_object_per_diagnostic():
    lines = _render_jsonl.render([shared_report(), clean_report()]).splitlines()
    objs = [json.loads(line) for line in lines]
    assert len(objs) == 6
    assert objs[0] == {"path": "mem.fxt", "code": "E001", "severity": "error", "offset": 0,
                       "record_index": 0, "message": "header word is bad", "span": [0, 8], "record_size": 16}


def test_sarif_fingerprints_survive_moved_records():
    from fxtlint.rules import _ex as X

    ev = B.event
    bad = [ev("duration_begin", 5), ev("duration_end", 10, name=1), ev("duration_end", 11, name=1)]

    def prints(data):
        log = _render_sarif.render([fxtlint.lint_bytes(data)], rules=all_rules())
        return [r["partialFingerprints"]["fxtlint/v1"] for r in log["runs"][0]["results"]]

    before = prints(X.preamble(*bad))
    assert len(before) == len(set(before)) >= 2  # two PR001/PR002 findings, told apart
    assert prints(X.preamble(B.string(9, "new"), *bad)) == before


def test_sarif_of_a_stream_on_stdin_has_no_multitool_error(sarif_multitool, tmp_path, monkeypatch):
    """`fxtlint - --output-format sarif` (a CI job piping a trace in): the log names the
    stream, and the SARIF Multitool reads it back with 0 errors."""
    import sys

    from fxtlint.cli import main

    data = B.archive(B.magic(), B.event("instant", 5, category=7, name=8))  # unregistered refs
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["-", "--isolated", "--output-format", "sarif"]) == 1
    log = json.loads(out.getvalue())
    assert {r["ruleId"] for r in log["runs"][0]["results"]} >= {"RF001"}
    sarif = tmp_path / "stdin.sarif"
    sarif.write_text(out.getvalue(), encoding="utf-8")
    report = tmp_path / "validation.sarif"
    proc = subprocess.run([*sarif_multitool, "validate", str(sarif), "--output", str(report)],
                          check=False, capture_output=True, text=True, timeout=300)
    assert report.is_file(), proc.stdout + proc.stderr
    findings = json.loads(report.read_text("utf-8-sig"))["runs"][0].get("results", [])
    errors = [f for f in findings if f.get("level", "warning") == "error"]
    assert errors == [], json.dumps(errors, indent=1)[:4000]
    assert {f["ruleId"] for f in findings if f.get("level", "warning") == "warning"} <= ACCEPTED_WARNINGS
