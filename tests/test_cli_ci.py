"""``fxtlint check`` in CI: output formats, rule selection, fail thresholds, statistics,
pyproject.toml settings, baselines, stdin, directory walks and --quiet.

Uses test_cli's fake linter (each b"ERR" an ERR1 error, each b"WRN" a WRN1 warning)
and its file tree, except where the real linter is the point (stdin).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from fxtlint import build as B
from fxtlint.cli._buffers import expand_paths
from test_cli import fake, run, run_json, tree  # noqa: F401  (fixtures)

# --- selection, severities, thresholds


@pytest.mark.parametrize("argv, expected_counts", [
    (["--select", "ERR"], {"ERR1": 2}),  # a prefix selects a family
    (["--select", "err1,wrn1"], {"ERR1": 2, "WRN1": 1}),  # comma lists, any case
    (["--select", "ALL", "--ignore", "W"], {"ERR1": 2}),
    (["--ignore", "ERR1,WRN1"], {}),
    (["--ignore", "ERR1", "--ignore", "WRN1"], {}),  # repeatable
    (["--select", "ERR1", "--ignore", "E"], {"ERR1": 2}),  # the more specific selector wins
    (["--select", "E", "--ignore", "ERR1"], {}),
])
def test_select_and_ignore(fake, tree, capsys, argv, expected_counts):
    _, run_, _ = run_json(capsys, "bad.fxt", *argv)
    assert run_["files"][0]["counts"] == expected_counts


@pytest.mark.parametrize("argv, expected", [
    (["bad.fxt"], 1),
    (["warn.fxt"], 0),
    (["warn.fxt", "--fail-on", "warning"], 1),
    (["clean.fxt", "--fail-on", "warning"], 0),
    (["bad.fxt", "--exit-zero"], 0),
    (["missing.fxt", "--exit-zero"], 2),  # an unreadable path is never zeroed
    (["bad.fxt", "--severity", "ERR=warning"], 0),  # prefixes in severity overrides
    (["bad.fxt", "--severity", "E=warning,ERR1=error"], 1),  # the more specific wins
    (["warn.fxt", "--severity", "wrn1=error,err1=info"], 1),
    (["bad.fxt", "--select", "NOPE"], 2),
    (["bad.fxt", "--severity", "NOPE=info"], 2),
    (["bad.fxt", "--severity", "=info"], 2),
    (["bad.fxt", "--fail-on", "fatal"], 2),
])
def test_exit_status(fake, tree, capsys, argv, expected):
    assert run(capsys, *argv)[0] == expected


def test_unknown_selector_names_its_option(fake, tree, capsys):
    code, out, err = run(capsys, "bad.fxt", "--select", "ERR1,NOPE")
    assert (code, out) == (2, "")
    assert err == "fxtlint: error: unknown rule code 'NOPE' in --select (see `fxtlint rules`)\n"


def test_statistics(fake, tree, capsys):
    code, out, _ = run(capsys, "bad.fxt", "d", "--statistics")
    assert code == 1
    assert out.splitlines() == [
        "3  ERR1  fake-error  (error)",
        "1  WRN1  fake-warning  (warning)",
    ]
    code, out, _ = run(capsys, "bad.fxt", "--statistics", "--output-format", "json")
    assert json.loads(out) == [
        {"code": "ERR1", "name": "fake-error", "severity": "error", "count": 2},
        {"code": "WRN1", "name": "fake-warning", "severity": "warning", "count": 1},
    ]


# --- output formats through the CLI


def test_every_output_format(fake, tree, capsys):
    code, out, _ = run(capsys, "bad.fxt", "clean.fxt", "--output-format", "sarif")
    log = json.loads(out)
    assert code == 1 and log["version"] == "2.1.0"
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["ERR1", "WRN1", "ERR1"]
    code, out, _ = run(capsys, "bad.fxt", "--output-format", "github")
    assert out.splitlines()[0] == "::error file=bad.fxt,title=fxtlint ERR1::ERR1 ERR at 0 (byte 0x0, record 0)"
    assert out.splitlines()[-1].startswith("::notice title=fxtlint summary::")
    code, out, _ = run(capsys, "bad.fxt", "--output-format", "junit")
    assert ET.fromstring(out).get("failures") == "2"  # the warning is below --fail-on error
    code, out, _ = run(capsys, "bad.fxt", "--output-format", "json-lines")
    assert [json.loads(line)["code"] for line in out.splitlines()] == ["ERR1", "WRN1", "ERR1"]


# --- pyproject.toml


def write_pyproject(where, body: str):
    (where / "pyproject.toml").write_text("[project]\nname = 'x'\n\n[tool.fxtlint]\n" + body, encoding="utf-8")


def test_pyproject_settings_apply_and_options_win(fake, tree, capsys):
    write_pyproject(tree, 'ignore = ["ERR"]\nfail-on = "warning"\n')
    assert run(capsys, "bad.fxt", "--quiet")[0] == 1  # WRN1 fails at fail-on warning
    _, run_, _ = run_json(capsys, "bad.fxt")
    assert run_["files"][0]["counts"] == {"WRN1": 1}
    assert run(capsys, "bad.fxt", "--fail-on", "error")[0] == 0  # the option wins
    assert run(capsys, "bad.fxt", "--isolated")[0] == 1  # settings ignored: ERR1 is back
    _, run_, _ = run_json(capsys, "bad.fxt", "--isolated")
    assert run_["files"][0]["counts"] == {"ERR1": 2, "WRN1": 1}


def test_pyproject_is_found_upward(fake, tree, capsys, monkeypatch):
    write_pyproject(tree, 'select = "WRN"\noutput-format = "json"\n')
    monkeypatch.chdir(tree / "d" / "a")
    code, out, _ = run(capsys, "../b.fxt", "../../bad.fxt")
    assert [f["counts"] for f in json.loads(out)["files"]] == [{}, {"WRN1": 1}]
    assert code == 0


@pytest.mark.parametrize("body, message", [
    ('colour = "always"\n', "unknown setting 'colour'"),
    ("exit-zero = 1\n", "exit-zero must be a bool"),
    ('select = "NOPE"\n', "unknown rule code 'NOPE' in --select"),
    ('output-format = "xml"\n', "output-format must be one of"),
    ("max-per-rule = 0\n", "max-per-rule must be at least 1"),
    ("select = [\n", "pyproject.toml"),
])
def test_bad_pyproject_is_a_usage_error(fake, tree, capsys, body, message):
    write_pyproject(tree, body)
    code, _, err = run(capsys, "bad.fxt")
    assert code == 2 and message in err


# --- baseline


def test_baseline_hides_known_findings_and_reports_new_ones(fake, tree, capsys):
    code, _, err = run(capsys, "bad.fxt", "warn.fxt", "--baseline", "known.json", "--write-baseline")
    assert code == 0 and "wrote 4 findings of 2 files to known.json" in err
    stored = json.loads((tree / "known.json").read_text())
    assert stored["files"]["bad.fxt"] == {  # not fxtlint's codes: keyed on their messages
        "ERR1": [{"finding": "message:ERR at 0", "count": 1, "message": "ERR at 0"},
                 {"finding": "message:ERR at 16", "count": 1, "message": "ERR at 16"}],
        "WRN1": [{"finding": "message:WRN at 4", "count": 1, "message": "WRN at 4"}]}
    assert run(capsys, "bad.fxt", "warn.fxt", "--baseline", "known.json")[0] == 0
    code, run_, _ = run_json(capsys, "bad.fxt", "--baseline", "known.json")
    assert run_["files"][0]["counts"] == {} and run_["files"][0]["diagnostics"] == []
    # the writer gets a new bug: only it is reported, and it fails the run
    (tree / "bad.fxt").write_bytes((tree / "bad.fxt").read_bytes() + b"ERR\x00\x00\x00\x00\x00")
    code, run_, _ = run_json(capsys, "bad.fxt", "--baseline", "known.json")
    assert code == 1
    assert [d["message"] for d in run_["files"][0]["diagnostics"]] == ["ERR at 24"]
    assert run_["files"][0]["severity_counts"] == {"error": 1, "warning": 0, "info": 0}


def test_baseline_from_pyproject_is_relative_to_it(fake, tree, capsys, monkeypatch):
    run(capsys, "bad.fxt", "--baseline", "known.json", "--write-baseline")
    write_pyproject(tree, 'baseline = "known.json"\n')
    monkeypatch.chdir(tree / "d")
    assert run(capsys, "../bad.fxt")[0] == 0  # the same file, spelled from elsewhere
    monkeypatch.chdir(tree)
    assert run(capsys, "bad.fxt")[0] == 0


GOLDEN = Path(__file__).resolve().parent.parent / "corpus" / "golden"
KNOWN = ("RB001-reserved-bits-set.fxt", "ST003-invalid-utf8.fxt", "RF001-string-ref-unregistered.fxt")


@pytest.fixture
def traces(tmp_path, monkeypatch):
    """A project: traces/ with three writer traces that have errors, sub/, a link to traces/,
    and a baseline of them written as `fxtlint traces/ --baseline known.json --write-baseline`."""
    from fxtlint.cli import main

    (tmp_path / "traces").mkdir()
    (tmp_path / "sub").mkdir()
    for name in KNOWN:
        shutil.copy(GOLDEN / name, tmp_path / "traces" / name)
    os.symlink(tmp_path / "traces", tmp_path / "linked", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    assert main(["traces/", "--baseline", "known.json", "--write-baseline"]) == 0
    return tmp_path


def _spellings(root: Path) -> list[tuple[str, str]]:
    """(working directory, how the traces folder is spelled from there)."""
    return [(".", "traces/"), (".", "./traces/"), (".", f"{root}/traces/"), ("sub", "../traces/"),
            (".", "linked/"), ("sub", "../sub/../traces")]


def test_a_baseline_matches_however_the_paths_are_spelled(traces, capsys, monkeypatch):
    from fxtlint.cli import main

    stored = json.loads((traces / "known.json").read_text())
    assert stored["fxtlint_baseline"] == 3 and sorted(stored["files"]) == [f"traces/{n}" for n in sorted(KNOWN)]
    write_pyproject(traces, 'baseline = "known.json"\n')
    capsys.readouterr()
    for cwd, spelled in _spellings(traces):
        monkeypatch.chdir(traces / cwd)
        assert main([spelled, "--output-format", "json"]) == 0, (cwd, spelled)
        out, err = capsys.readouterr()
        assert [f["counts"] for f in json.loads(out)["files"]] == [{}, {}, {}], (cwd, spelled)
        assert err == "", (cwd, spelled)


def test_a_new_finding_is_reported_however_the_paths_are_spelled(traces, capsys, monkeypatch):
    from fxtlint.cli import main
    from fxtlint.rules import REGISTRY

    write_pyproject(traces, 'baseline = "known.json"\n')
    shutil.copy(GOLDEN / "ST004-string-too-long.fxt", traces / "traces" / "ST004-string-too-long.fxt")
    capsys.readouterr()
    for cwd, spelled in _spellings(traces):
        monkeypatch.chdir(traces / cwd)
        assert main([spelled, "--output-format", "json"]) == 1, (cwd, spelled)
        files = json.loads(capsys.readouterr().out)["files"]
        assert [(Path(f["path"]).name, f["counts"]) for f in files if f["counts"]] == [
            ("ST004-string-too-long.fxt", {"ST004": 1})]
    assert REGISTRY["ST004"].severity.label == "error"


def test_entries_that_match_nothing_are_counted_with_what_to_do(traces, capsys):
    from fxtlint.cli import main

    (traces / "traces" / KNOWN[0]).write_bytes((GOLDEN / "clean" / "PR007-flow-across-processes.fxt").read_bytes())
    capsys.readouterr()
    assert main(["traces/", "--baseline", "known.json"]) == 0
    err = capsys.readouterr().err
    n = sum(json.loads((GOLDEN / f"{KNOWN[0]}.report.json").read_text())["counts"].values())
    assert err == (f"fxtlint: {n} baseline {'entry no longer occurs' if n == 1 else 'entries no longer occur'} "
                   "in known.json: rewrite it with --write-baseline\n")
    (traces / "traces" / KNOWN[1]).unlink()  # a file that is gone: its entries are stale too
    assert main(["traces/", "--baseline", "known.json"]) == 0
    assert "entries no longer occur" in capsys.readouterr().err
    # files that exist but are not linted this time say nothing
    shutil.copy(GOLDEN / KNOWN[0], traces / "traces" / KNOWN[0])
    shutil.copy(GOLDEN / KNOWN[1], traces / "traces" / KNOWN[1])
    assert main([f"traces/{KNOWN[2]}", "--baseline", "known.json"]) == 0
    assert capsys.readouterr().err == ""


def test_a_version_1_baseline_is_read_relative_to_its_folder(fake, tree, capsys, monkeypatch):
    (tree / "known.json").write_text(json.dumps({"fxtlint_baseline": 1, "files": {
        "bad.fxt": {"ERR1": {"ERR at 0": 1, "ERR at 16": 1}, "WRN1": {"WRN at 4": 1}}}}))
    monkeypatch.chdir(tree / "d")
    code, run_, err = run_json(capsys, "../bad.fxt", "--baseline", "../known.json")
    assert (code, run_["files"][0]["counts"], err) == (0, {}, "")
    code, run_, _ = run_json(capsys, "b.fxt", "--baseline", "../known.json")  # the twin: not in it
    assert (code, run_["files"][0]["counts"]) == (1, {"ERR1": 1})


@pytest.mark.parametrize("argv, message", [
    (["--write-baseline"], "--write-baseline needs --baseline FILE"),
    (["--baseline", "nope.json"], "nope.json: No such file or directory"),
    (["--baseline", "clean.fxt"], "clean.fxt: not JSON"),
])
def test_baseline_usage_errors(fake, tree, capsys, argv, message):
    code, _, err = run(capsys, "bad.fxt", *argv)
    assert code == 2 and message in err


# --- paths: stdin, walks, excludes, quiet


def test_dash_reads_standard_input(tree, capsys, monkeypatch):
    data = B.archive(B.magic(), B.string(1, "x"), B.string(2, "y\0"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, run_, _ = run_json(capsys, "-")
    assert code == 0
    (f,) = run_["files"]
    assert (f["path"], f["counts"]) == ("-", {"ST008": 1})


def test_dash_in_rich_output_shows_the_hex_view(tree, capsys, monkeypatch):
    data = B.archive(B.magic(), B.string(2, "y\0"))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    _, out, _ = run(capsys, "-")
    assert "warning[ST008]" in out and "79 00" in out


def test_walk_skips_hidden_folders_matches_any_case_and_excludes(tree):
    for rel in (".git/x.fxt", "d/.cache/y.fxt", "d/UPPER.FXT", "d/Mixed.Fxt", "d/gen/z.fxt", "d/.hidden.fxt"):
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(b"\x00" * 8)
    files, failures = expand_paths(["."], ["gen"])
    assert sorted(os.path.normpath(f) for f, _ in files) == sorted(os.path.normpath(p) for p in [
        "bad.fxt", "clean.fxt", "warn.fxt", "d/b.fxt", "d/a/c.fxt", "d/UPPER.FXT", "d/Mixed.Fxt"])
    assert failures == []
    files, _ = expand_paths(["d"], ["*.FXT", "Mixed*"])
    assert sorted(os.path.normpath(f) for f, _ in files) == sorted(os.path.normpath(p) for p in [
        "d/b.fxt", "d/a/c.fxt", "d/gen/z.fxt"])


def test_exclude_option_and_named_files(fake, tree, capsys):
    code, run_, _ = run_json(capsys, "d", "--exclude", "b.fxt")
    assert [f["path"] for f in run_["files"]] == [os.path.join("d", "a", "c.fxt")] and code == 0
    code, run_, _ = run_json(capsys, "d/b.fxt", "--exclude", "b.fxt")  # named: linted anyway
    assert [f["path"] for f in run_["files"]] == ["d/b.fxt"]


def test_quiet_prints_the_findings_of_files_with_problems_and_nothing_else(fake, tree, capsys):
    code, out, _ = run(capsys, "--quiet", "clean.fxt", "warn.fxt", "d/a")
    assert out.splitlines()[:2] == ["warn.fxt (trace, little-endian, 8 bytes)",
                                    "  warning[WRN1] at 0x0 (record 0): WRN at 0"]
    assert "clean.fxt" not in out and "files:" not in out and "0 errors" not in out
    assert code == 0


def test_without_quiet_clean_files_and_the_total_are_printed(fake, tree, capsys):
    _, out, _ = run(capsys, "clean.fxt", "warn.fxt", "d/a")
    assert "clean.fxt: 2 records, 0 errors, 0 warnings, 0 infos (trace, little-endian)" in out.splitlines()
    assert out.splitlines()[-1] == "3 files: 0 errors, 1 warning, 0 infos"



@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "github", "junit"])
def test_quiet_changes_only_the_rich_output(fake, tree, capsys, fmt):
    """The README: the machine formats are written whole with or without --quiet."""
    loud = run(capsys, "--output-format", fmt, "clean.fxt", "bad.fxt", "warn.fxt")
    quiet = run(capsys, "-q", "--output-format", fmt, "clean.fxt", "bad.fxt", "warn.fxt")
    assert quiet == loud and "bad.fxt" in loud[1] and loud[0] == 1

def test_baseline_ignores_positions_of_other_records(tmp_path, capsys, monkeypatch):
    from fxtlint.cli import main
    from fxtlint.rules import _ex as X

    monkeypatch.chdir(tmp_path)
    ev = B.event
    bad = [ev("duration_begin", 5), ev("duration_end", 10, name=1)]  # PR002 names the begin's offset
    (tmp_path / "t.fxt").write_bytes(X.preamble(*bad))
    assert main(["t.fxt", "--baseline", "b.json", "--write-baseline"]) == 0
    # the writer now emits one more record before: every offset moves, the finding is the same
    (tmp_path / "t.fxt").write_bytes(X.preamble(B.string(9, "new"), *bad))
    capsys.readouterr()
    assert main(["t.fxt", "--baseline", "b.json", "--fail-on", "warning"]) == 0
    assert main(["t.fxt", "--fail-on", "warning", "--quiet"]) == 1


def test_baseline_survives_a_record_added_elsewhere(tmp_path, capsys, monkeypatch):
    """Issue 25, item 3: the writer regenerates its trace with one more log line before
    the fault and one after it; the known findings (ST002, FR001 naming the bytes left,
    FR003 naming the file's length) stay known and no entry goes stale."""
    import writer_traces
    from fxtlint.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.fxt").write_bytes(writer_traces.with_padding_left_out())
    assert main(["t.fxt", "--baseline", "b.json", "--write-baseline"]) == 0
    stored = json.loads((tmp_path / "b.json").read_text())
    assert stored["fxtlint_baseline"] == 3 and sorted(stored["files"]["t.fxt"]) == ["FR001", "FR003", "ST002"]
    assert stored["files"]["t.fxt"]["FR003"] == [
        {"finding": {"extra": 6}, "count": 1, "message": stored["files"]["t.fxt"]["FR003"][0]["message"]}]
    (tmp_path / "t.fxt").write_bytes(writer_traces.with_padding_left_out(log_lines=1))
    capsys.readouterr()
    assert main(["t.fxt", "--fail-on", "warning", "--quiet"]) == 1  # the findings are there
    capsys.readouterr()
    assert main(["t.fxt", "--baseline", "b.json", "--output-format", "json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["files"][0]["counts"] == {} and err == ""


def test_baseline_reports_a_finding_whose_own_fields_changed(tmp_path, capsys, monkeypatch):
    """The twin: a finding that differs in its own fields (another string ref) is new."""
    from fxtlint.cli import main
    from fxtlint.rules import _ex as X

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.fxt").write_bytes(X.preamble(B.event("instant", 5, name=77)))  # RF001: ref 77
    assert main(["t.fxt", "--baseline", "b.json", "--write-baseline"]) == 0
    (tmp_path / "t.fxt").write_bytes(X.preamble(B.log(1, "more"), B.event("instant", 5, name=78)))
    capsys.readouterr()
    assert main(["t.fxt", "--baseline", "b.json", "--output-format", "json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["files"][0]["counts"] == {"RF001": 1}
    assert "1 baseline entry no longer occurs" in err


def test_a_version_2_baseline_is_still_matched_on_messages(tmp_path, capsys, monkeypatch):
    from fxtlint.cli import main
    from fxtlint.rules import _ex as X

    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.fxt").write_bytes(X.preamble(B.event("instant", 5, name=77)))
    message = "event.instant: string ref 77 (name) was never registered in the string table"
    assert main(["t.fxt", "--output-format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"][0]["message"]
    assert found.startswith(message)
    (tmp_path / "b.json").write_text(json.dumps({"fxtlint_baseline": 2, "files": {"t.fxt": {"RF001": {found: 1}}}}))
    assert main(["t.fxt", "--baseline", "b.json"]) == 0


@pytest.mark.parametrize("argv, status, failures", [
    ([], 0, "0"),  # a warning below --fail-on error: a green job with green test cases
    (["--fail-on", "warning"], 1, "1"),
    (["--fail-on", "info"], 1, "1"),
])
def test_junit_follows_fail_on_as_the_exit_status_does(fake, tree, capsys, argv, status, failures):
    """Issue 25, item 7: a finding below --fail-on is a passing test case that carries it."""
    code, out, _ = run(capsys, "warn.fxt", "--output-format", "junit", *argv)
    root = ET.fromstring(out)
    assert (code, root.get("failures"), root.find("testsuite").get("failures")) == (status, failures, failures)
    (case,) = root.iter("testcase")
    assert (case.find("failure") is not None) == (status == 1)
    if status == 0:
        assert case.find("system-out").text.startswith("warning[WRN1] warn.fxt at byte")
        assert {p.get("name"): p.get("value") for p in case.iter("property")} == {"code": "WRN1",
                                                                                  "severity": "warning"}
