"""The command line through ``main(argv)``: exit codes, paths, options, subcommands.

Most tests swap in a fake linter and registry (so they test the CLI, not the
rules): each b"ERR" in a file is an ERR1 error at its offset, each b"WRN" a WRN1
warning. The end-to-end tests at the bottom run the real core on the real corpus.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fxtlint
from conftest import CORPUS_REAL as CORPUS
from fxtlint import cli
from fxtlint.cli import _common
from fxtlint.cli._buffers import expand_paths
from fxtlint.engine._result import FileReport
from fxtlint.rules._diagnostics import Example, Rule, Severity

ERR1 = Rule(
    code="ERR1", name="fake-error", severity=Severity.ERROR, message="ERR at {where}",
    what="Finds ERR.", why="ERR is bad.",
    bad=Example("has ERR", lambda: b"xxERRxxx"), good=Example("no ERR", lambda: b"xxxxxxxx"),
    spec="Nowhere, 1.1", params=("where",), scope=("file",), no_mutation="a fake rule",
)
WRN1 = Rule(
    code="WRN1", name="fake-warning", severity=Severity.WARNING, message="WRN at {where}",
    what="Finds WRN.", why="WRN is dubious.",
    bad=Example("has WRN", lambda: b"WRN"), good=Example("empty", lambda: b""),
    spec="Nowhere, 1.2", params=("where",), scope=("file",), no_mutation="a fake rule",
)
FAKE_RULES = [ERR1, WRN1]
# a retired code: `rules` lists it, marked removed, with the code that reports it now
OLD1 = dataclasses.replace(WRN1, code="OLD1", name="fake-old", status="removed", replaced_by="WRN1", scope=(),
                           no_mutation=None)


def fake_lint_buffer(buf, *, input_format="auto", path="<bytes>", sink=None):
    if path.endswith("locked.fxt"):
        raise PermissionError(13, "Permission denied", path)
    data = bytes(buf)
    for rule, needle in ((ERR1, b"ERR"), (WRN1, b"WRN")):
        at = data.find(needle)
        while at >= 0:
            sink.add(rule.at(at, at // 8, span=(at, at + 3), record_size=8, where=at))
            at = data.find(needle, at + 1)
    return FileReport.from_sink(
        path=path, format="log" if input_format == "log" else "trace",
        records=len(data) // 8, size=len(data), byte_order="little", sink=sink,
    )


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(fxtlint, "lint_buffer", fake_lint_buffer, raising=False)
    monkeypatch.setattr(_common, "load_registry", lambda: list(FAKE_RULES))
    monkeypatch.setattr(_common, "load_removed", lambda: [OLD1])


@pytest.fixture
def tree(tmp_path, monkeypatch):
    """clean.fxt, bad.fxt (2 errors, 1 warning), warn.fxt, d/{b.fxt, a/c.fxt, notes.txt}, empty/."""
    (tmp_path / "clean.fxt").write_bytes(b"\x00" * 16)
    (tmp_path / "bad.fxt").write_bytes(b"ERR\x00WRN\x00" + b"\x00" * 8 + b"ERR\x00\x00\x00\x00\x00")
    (tmp_path / "warn.fxt").write_bytes(b"WRN\x00\x00\x00\x00\x00")
    (tmp_path / "d" / "a").mkdir(parents=True)
    (tmp_path / "d" / "b.fxt").write_bytes(b"ERR\x00\x00\x00\x00\x00")
    (tmp_path / "d" / "a" / "c.fxt").write_bytes(b"\x00" * 8)
    (tmp_path / "d" / "notes.txt").write_bytes(b"ERR")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(capsys, *argv):
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, "--output-format", "json", *argv)
    return code, json.loads(out), err


# --- exit status


@pytest.mark.parametrize(
    "argv, expected",
    [
        (["clean.fxt"], 0),
        (["warn.fxt"], 0),  # warnings do not fail
        (["bad.fxt"], 1),
        (["clean.fxt", "bad.fxt"], 1),
        (["d"], 1),
        (["d/a"], 0),
        (["missing.fxt"], 2),
        (["bad.fxt", "missing.fxt"], 2),  # I/O failure outranks errors
        (["empty"], 2),
        (["locked.fxt"], 2),
        (["bad.fxt", "--ignore", "ERR1"], 0),
        (["bad.fxt", "--severity", "ERR1=warning"], 0),
        (["warn.fxt", "--severity", "wrn1=error"], 1),  # codes match case-insensitively
        ([], 2),
        (["clean.fxt", "--severity", "ERR1"], 2),
        (["clean.fxt", "--severity", "ERR1=fatal"], 2),
        (["clean.fxt", "--ignore", "NOPE9"], 2),  # a typo is not silently ignored
        (["clean.fxt", "--max-per-rule", "0"], 2),
        (["clean.fxt", "--input-format", "xml"], 2),
        (["clean.fxt", "--output-format", "xml"], 2),
        (["--help"], 0),
        (["--version"], 0),
    ],
)
def test_exit_status(fake, tree, capsys, argv, expected):
    if argv == ["locked.fxt"]:
        (tree / "locked.fxt").write_bytes(b"")
    assert run(capsys, *argv)[0] == expected


def test_missing_file_is_reported_and_others_still_linted(fake, tree, capsys):
    code, out, err = run(capsys, "missing.fxt", "bad.fxt", "empty")
    assert code == 2
    assert err.splitlines() == [
        "fxtlint: error: missing.fxt: no such file or directory",
        "fxtlint: error: empty: directory contains no .fxt files (nothing to lint: --allow-empty makes that a "
        "note, not an error)",
    ]
    assert "bad.fxt: 3 records, 2 errors, 1 warning, 0 infos (trace, little-endian)" in out.splitlines()
    assert out.splitlines()[-1] == "1 file: 2 errors, 1 warning, 0 infos; 2 could not be read"


@pytest.mark.parametrize("fmt", ["rich", "json"])
def test_allow_empty_makes_a_directory_without_traces_a_note(fake, tree, capsys, fmt):
    """Issue 25, item 11: a CI job whose tests wrote no traces chooses to pass."""
    code, out, err = run(capsys, "empty", "--output-format", fmt)
    assert code == 2 and "empty: directory contains no .fxt files (nothing to lint" in err
    code, out, err = run(capsys, "empty", "--allow-empty", "--output-format", fmt)
    assert code == 0 and err == ("fxtlint: empty: directory contains no .fxt files: nothing to lint there "
                                 "(--allow-empty)\n")
    if fmt == "json":
        assert json.loads(out)["files"] == [] and json.loads(out)["failures"] == []
    # a missing path stays an error; another directory's findings still count
    assert run(capsys, "empty", "nope", "--allow-empty")[0] == 2
    assert run(capsys, "empty", "bad.fxt", "--allow-empty")[0] == 1


def test_unreadable_file_in_json(fake, tree, capsys):
    (tree / "locked.fxt").write_bytes(b"")
    code, run_, err = run_json(capsys, "locked.fxt", "clean.fxt")
    assert code == 2
    assert err == "fxtlint: error: locked.fxt: Permission denied\n"
    assert run_["failures"] == [{"path": "locked.fxt", "message": "Permission denied"}]
    assert [f["path"] for f in run_["files"]] == ["clean.fxt"]


# --- paths


def test_directories_expand_recursively_sorted_fxt_only(fake, tree, capsys):
    code, run_, _ = run_json(capsys, "d", "clean.fxt")
    assert code == 1
    assert [f["path"] for f in run_["files"]] == [
        os.path.join("d", "a", "c.fxt"),
        os.path.join("d", "b.fxt"),
        "clean.fxt",
    ]


def test_expand_paths_table(tree):
    assert expand_paths(["d", "nope", "warn.fxt", "empty", "-"]) == (
        [(os.path.join("d", "a", "c.fxt"), "d"), (os.path.join("d", "b.fxt"), "d"), ("warn.fxt", None),
         ("-", None)],
        [("nope", "no such file or directory"), ("empty", "directory contains no .fxt files")],
    )


# --- JSON


def test_json_shape(fake, tree, capsys):
    code, run_, err = run_json(capsys, "bad.fxt", "clean.fxt")
    assert (code, err) == (1, "")
    assert set(run_) == {"files", "failures", "summary", "tool"}
    assert run_["summary"] == {"files": 2, "errors": 2, "warnings": 1, "infos": 0}
    assert run_["tool"] == {"name": "fxtlint", "version": _version()}
    bad = run_["files"][0]
    assert {"path", "format", "records", "diagnostics"} <= set(bad)
    assert (bad["path"], bad["format"], bad["records"]) == ("bad.fxt", "trace", 3)
    assert bad["diagnostics"] == [
        {"code": "ERR1", "severity": "error", "offset": 0, "record_index": 0,
         "message": "ERR at 0", "span": [0, 3], "record_size": 8, "details": {"where": 0}},
        {"code": "WRN1", "severity": "warning", "offset": 4, "record_index": 0,
         "message": "WRN at 4", "span": [4, 7], "record_size": 8, "details": {"where": 4}},
        {"code": "ERR1", "severity": "error", "offset": 16, "record_index": 2,
         "message": "ERR at 16", "span": [16, 19], "record_size": 8, "details": {"where": 16}},
    ]


def _version():
    from fxtlint.spec._version import tool_version

    return tool_version()


def test_json_is_byte_identical_across_runs(fake, tree, capsys):
    first = run(capsys, "--output-format", "json", "d", "bad.fxt")[1]
    assert run(capsys, "--output-format", "json", "d", "bad.fxt")[1] == first


@pytest.mark.parametrize(
    "argv, codes, severities",
    [
        ([], {"ERR1": 2, "WRN1": 1}, ["error", "warning", "error"]),
        (["--ignore", "WRN1"], {"ERR1": 2}, ["error", "error"]),
        (["--ignore", "WRN1,ERR1"], {}, []),
        (["--ignore", "WRN1", "--ignore", "ERR1"], {}, []),
        (["--severity", "ERR1=info", "--severity", "WRN1=error"], {"ERR1": 2, "WRN1": 1}, ["info", "error", "info"]),
    ],
)
def test_ignore_and_severity_reach_the_sink(fake, tree, capsys, argv, codes, severities):
    _, run_, _ = run_json(capsys, "bad.fxt", *argv)
    (bad,) = run_["files"]
    assert bad["counts"] == codes
    assert [d["severity"] for d in bad["diagnostics"]] == severities


def test_max_per_rule_caps_list_not_counts(fake, tree, capsys):
    code, run_, _ = run_json(capsys, "bad.fxt", "--max-per-rule", "1")
    (bad,) = run_["files"]
    assert code == 1
    assert bad["counts"] == {"ERR1": 2, "WRN1": 1}
    assert bad["capped"] is True
    assert [d["offset"] for d in bad["diagnostics"]] == [0, 4]
    assert run_["summary"]["errors"] == 2


def test_input_format_is_passed_through(fake, tree, capsys):
    _, run_, _ = run_json(capsys, "clean.fxt", "--input-format", "log")
    assert run_["files"][0]["format"] == "log"


# --- rich (captured: not a terminal, so plain text)


def test_rich_output(fake, tree, capsys):
    code, out, _ = run(capsys, "bad.fxt", "clean.fxt", "--max-per-rule", "1")
    assert code == 1
    assert out == (
        "bad.fxt (trace, little-endian, 24 bytes)\n"
        "  error[ERR1] at 0x0 (record 0): ERR at 0\n"
        "    00000000  45 52 52 00 57 52 4e 00                           |ERR.WRN.|\n"
        "              ^^^^^^^^                                           ^^^\n"
        "  warning[WRN1] at 0x4 (record 0): WRN at 4\n"
        "    00000004  57 52 4e 00 00 00 00 00                           |WRN.....|\n"
        "              ^^^^^^^^                                           ^^^\n"
        "  1 more not shown (ERR1: 1)\n"
        "bad.fxt: 3 records, 2 errors, 1 warning, 0 infos (trace, little-endian)\n"
        "clean.fxt: 2 records, 0 errors, 0 warnings, 0 infos (trace, little-endian)\n"
        "2 files: 2 errors, 1 warning, 0 infos\n"
    )
    assert "\x1b" not in out


def test_rich_no_hex(fake, tree, capsys):
    _, out, _ = run(capsys, "bad.fxt", "--no-hex")
    assert out.splitlines() == [
        "bad.fxt (trace, little-endian, 24 bytes)",
        "  error[ERR1] at 0x0 (record 0): ERR at 0",
        "  warning[WRN1] at 0x4 (record 0): WRN at 4",
        "  error[ERR1] at 0x10 (record 2): ERR at 16",
        "bad.fxt: 3 records, 2 errors, 1 warning, 0 infos (trace, little-endian)",
    ]


@pytest.mark.parametrize("flag", ["--quiet", "-q"])
def test_rich_quiet_keeps_the_findings_and_drops_the_summaries(fake, tree, capsys, flag):
    code, out, _ = run(capsys, flag, "bad.fxt", "warn.fxt", "--no-hex")
    assert code == 1
    assert out.splitlines() == [
        "bad.fxt (trace, little-endian, 24 bytes)",
        "  error[ERR1] at 0x0 (record 0): ERR at 0",
        "  warning[WRN1] at 0x4 (record 0): WRN at 4",
        "  error[ERR1] at 0x10 (record 2): ERR at 16",
        "warn.fxt (trace, little-endian, 8 bytes)",
        "  warning[WRN1] at 0x0 (record 0): WRN at 0",
    ]


def test_options_may_follow_paths(fake, tree, capsys):
    code, out, _ = run(capsys, "bad.fxt", "--no-hex", "warn.fxt", "--ignore", "ERR1")
    assert code == 0
    assert out.splitlines()[-1] == "2 files: 0 errors, 2 warnings, 0 infos"


# --- subcommands


def test_rules_table(fake, tree, capsys):
    code, out, _ = run(capsys, "rules")
    assert code == 0
    assert out.splitlines() == [
        "CODE  NAME          SEVERITY  STATUS",
        "ERR1  fake-error    error     stable",
        "OLD1  fake-old      warning   removed: now WRN1",
        "WRN1  fake-warning  warning   stable",
    ]


@pytest.mark.parametrize("argv", [["rules", "--output-format", "json"]])
def test_rules_json(fake, tree, capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 0
    assert json.loads(out) == [
        {"code": "ERR1", "name": "fake-error", "severity": "error", "status": "stable", "message": "ERR at {where}"},
        {"code": "OLD1", "name": "fake-old", "severity": "warning", "status": "removed", "message": "WRN at {where}",
         "replaced_by": "WRN1"},
        {"code": "WRN1", "name": "fake-warning", "severity": "warning", "status": "stable",
         "message": "WRN at {where}"},
    ]


def test_rules_rejects_lint_options(fake, tree, capsys):
    code, _, err = run(capsys, "rules", "--no-hex")
    assert code == 2 and "unrecognized arguments: --no-hex" in err


def test_explain(fake, tree, monkeypatch, capsys):
    from fxtlint.render import _docs

    monkeypatch.setattr(_docs, "_finding", lambda rule, data, fmt: None)  # the fake rules lint nothing
    code, out, _ = run(capsys, "explain", "err1")
    assert code == 0
    assert out == _docs.rule_markdown(ERR1)
    lines = out.splitlines()
    assert lines[0] == "## ERR1 fake-error"
    for line in ["- Severity: error", "- Status: stable", "Finds ERR.", "ERR is bad.", "Nowhere, 1.1",
                 "has ERR (input format: trace, 8 bytes)",
                 "00000000  78 78 45 52 52 78 78 78" + " " * 25 + "  |xxERRxxx|"]:
        assert line in lines


@pytest.mark.parametrize("argv", [["explain", "NOPE1"], ["explain"], ["explain", "ERR1", "WRN1"]])
def test_explain_bad_usage(fake, tree, capsys, argv):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err


def test_explain_unknown_code_message(fake, tree, capsys):
    assert run(capsys, "explain", "NOPE1") == (
        2, "", "fxtlint: error: unknown rule code 'NOPE1' (see `fxtlint rules`)\n"
    )


@pytest.mark.parametrize("name", ["rules", "explain"])
def test_file_named_like_a_subcommand_is_linted_with_check(fake, tree, capsys, name):
    (tree / name).write_bytes(b"ERR\x00\x00\x00\x00\x00")
    code, out, _ = run(capsys, "check", "--quiet", "--no-hex", name)
    assert code == 1
    assert out == f"{name} (trace, little-endian, 8 bytes)\n  error[ERR1] at 0x0 (record 0): ERR at 0\n"
    code, out, _ = run(capsys, "--quiet", f"./{name}")  # a path is never a verb
    assert code == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "bad.fxt"],
        ["bad.fxt"],  # check is the default verb
        ["--quiet", "bad.fxt"],  # so is an option first
        ["check", "bad.fxt", "--quiet"],  # options may follow paths
    ],
)
def test_check_is_the_default_verb(fake, tree, capsys, argv):
    code, out, _ = run(capsys, *argv)
    assert code == 1 and "bad.fxt" in out


def test_every_subcommand_has_its_own_help(fake, tree, capsys):
    for module in cli.COMMANDS:
        verb = module.__name__.rsplit(".", 1)[1]
        code, out, _ = run(capsys, verb, "--help")
        assert code == 0 and out.startswith(f"usage: fxtlint {verb}")
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for module in cli.COMMANDS:
        assert module.__name__.rsplit(".", 1)[1] in out


def test_no_arguments_is_a_usage_error(fake, tree, capsys):
    code, out, err = run(capsys)
    assert code == 2 and out == "" and "no command or path given" in err


def test_unknown_rule_code_is_a_usage_error(fake, tree, capsys):
    code, out, err = run(capsys, "--ignore", "NOPE1", "bad.fxt")
    assert (code, out) == (2, "")
    assert err == "fxtlint: error: unknown rule code 'NOPE1' in --ignore (see `fxtlint rules`)\n"


def test_broken_registry_raises(tree, monkeypatch, capsys):
    def broken():
        raise ImportError("rule module failed")

    monkeypatch.setattr(_common, "load_registry", broken)
    with pytest.raises(ImportError):  # a bug, not "accept any code"
        cli.main(["--ignore", "ERR1", "bad.fxt"])


def test_python_dash_m(tree):
    proc = subprocess.run(
        [sys.executable, "-m", "fxtlint", "--version"],
        capture_output=True, text=True, cwd=Path(fxtlint.__file__).parent.parent,
    )
    from fxtlint.engine import _native

    assert (proc.returncode, proc.stdout) == (0, f"fxtlint {_version()} ({_native.describe()})\n")


# --- end to end: the real core on the real corpus


def test_e2e_clean_real_trace(capsys):
    code, out, err = run(capsys, str(CORPUS / "jane-tracing-small.fxt"))
    assert (code, err) == (0, "")
    assert out == (f"{CORPUS / 'jane-tracing-small.fxt'}: "
                   "17 records, 0 errors, 0 warnings, 0 infos (trace, little-endian)\n")


def test_e2e_not_fxt_is_an_error(capsys):
    path = str(CORPUS / "not-fxt-eztrace.fxt")
    code, run_, _ = run_json(capsys, path)
    assert code == 1
    (report,) = run_["files"]
    assert report["path"] == path
    assert report["severity_counts"]["error"] >= 1
    # not a Fuchsia trace: said once, first, and nothing else
    assert report["counts"] == {"MG005": 1}
    (magic,) = report["diagnostics"]
    assert (magic["severity"], magic["offset"]) == ("error", 0)
    assert magic["message"].startswith("not an FXT file")


def test_e2e_not_fxt_rich_shows_marked_bytes(capsys):
    code, out, _ = run(capsys, str(CORPUS / "not-fxt-eztrace.fxt"))
    assert code == 1
    lines = out.splitlines()
    i = lines.index(next(line for line in lines if line.startswith("  error[MG005] at 0x0 (record 0): ")))
    assert lines[i + 1].startswith("    00000000  00 00 00 02 69 e4 00 00")
    assert "^^" in lines[i + 2]


def test_e2e_directory_of_corpus(capsys):
    code, run_, _ = run_json(capsys, str(CORPUS), "--max-per-rule", "1")
    assert code == 1
    assert [Path(f["path"]).name for f in run_["files"]] == [
        "jane-tracing-richiesams.fxt", "jane-tracing-small.fxt", "not-fxt-eztrace.fxt"
    ]
    assert run_["summary"]["files"] == 3


def test_e2e_ignore_real_codes(capsys):
    path = str(CORPUS / "not-fxt-eztrace.fxt")
    _, run_, _ = run_json(capsys, path)
    codes = ",".join(run_["files"][0]["counts"])
    assert run(capsys, "--quiet", "--ignore", codes, path)[0] == 0


def test_e2e_rules_and_explain_real_registry(capsys):
    from fxtlint.rules import all_rules, removed_rules

    rules = all_rules()
    code, out, _ = run(capsys, "rules")
    assert code == 0 and len(out.splitlines()) == len(rules) + len(removed_rules()) + 1
    assert [line.split()[0] for line in out.splitlines()[1:]] == sorted(r.code for r in rules + removed_rules())
    # the codes PR held before EV: listed, never reused, pointing at their new code
    assert {line.split()[0]: line.split()[-1] for line in out.splitlines() if "removed" in line} == {
        "PR009": "EV001", "PR010": "EV002", "PR011": "EV003"}
    code, out, _ = run(capsys, "explain", rules[0].code)
    assert code == 0 and out.startswith(f"## {rules[0].code} {rules[0].name}\n")


def test_hex_view_shows_the_bytes_that_were_linted(fake, tree, capsys, monkeypatch):
    """The file is replaced right after the lint: the hex view must still show the
    linted bytes (the renderer gets the linted buffer; it does not open the path again)."""
    def lint_then_replace(buf, **kw):
        report = fake_lint_buffer(buf, **kw)
        (tree / "new.fxt").write_bytes(b"XXXXXXXX" * 3)
        os.replace(tree / "new.fxt", tree / "bad.fxt")
        return report

    monkeypatch.setattr(fxtlint, "lint_buffer", lint_then_replace)
    _, out, _ = run(capsys, "bad.fxt")
    assert "45 52 52 00 57 52 4e 00" in out and "58 58 58" not in out


def test_rule_modules_that_fail_to_import_are_an_error_not_accept_any_code(tree, monkeypatch):
    monkeypatch.setitem(sys.modules, "fxtlint.rules", None)
    with pytest.raises(ImportError):
        cli.main(["clean.fxt", "--ignore", "XX999"])


def test_a_removed_code_names_its_replacement(tree, capsys):
    code, _, err = run(capsys, "clean.fxt", "--ignore", "PR011")
    assert code == 2 and "PR011 in --ignore was removed: use EV003" in err
    code, out, _ = run(capsys, "explain", "pr009")
    assert code == 0 and "PR009 (counter-argument-not-numeric) was removed" in out and "## EV001 " in out
