"""The conformance runner: how it grades readers (small fake readers written here, run
as real subprocesses), its results file, the matrix, and the CLI around it."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from fxtlint import build as B
from fxtlint._canonical import decode, dumps
from fxtlint._conformance import (
    Case, ConformanceError, Run, first_difference, grade, load_results, load_suite, parse_output, run_suite,
    write_results,
)
from fxtlint._conformance_render import matrix_html, matrix_markdown, summary_table
from fxtlint.cli import main

GOOD = B.archive(B.magic(), B.string(1, "a"), B.thread(1, 1, 2), B.event("instant", 1, category=1, name=1),
                 B.event("instant", 2, category=1, name=1))
BAD = GOOD + b"\x01\x02\x03"  # FR003: a partial header; the two events are the prefix
ODD = GOOD + B.archive(B.unknown(12, b"\0" * 8))


@pytest.fixture
def suite(tmp_path) -> Path:
    """One case per category: valid/ok, invalid/bad, recover/cut, impl/odd."""
    s = tmp_path / "suite"
    for cat, name, data in (("valid", "ok", GOOD), ("invalid", "bad", BAD), ("recover", "cut", BAD),
                            ("impl", "odd", ODD)):
        (s / cat).mkdir(parents=True)
        (s / cat / f"{name}.fxt").write_bytes(data)
        if cat in ("valid", "recover"):
            (s / cat / f"{name}.json").write_text(dumps(decode(data).document()))
    (s / "manifest.json").write_text(json.dumps({"cases": [
        {"category": "valid", "name": "ok", "spec": "Event Record", "what": "two events"}]}))
    return s


def reader(tmp_path: Path, body: str) -> list[str]:
    """A fake reader: a Python script given ``data`` (the file's bytes) and ``path``."""
    script = tmp_path / f"reader{len(list(tmp_path.glob('reader*.py')))}.py"
    script.write_text(textwrap.dedent("""\
        import json, os, signal, subprocess, sys, time
        from pathlib import Path
        path = Path(sys.argv[1]) if len(sys.argv) > 1 else None
        data = path.read_bytes() if path else sys.stdin.buffer.read()
        """) + textwrap.dedent(body))
    return [sys.executable, str(script)]


# An honest reader: fxtlint's own decoding, run in the subprocess.
FXTLINT = f"""
sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
from fxtlint._canonical import decode
d = decode(data)
sys.stdout.write(d.to_json())
sys.exit(0 if d.accepted else 1)
"""


def grades(results) -> dict:
    return {c["case"]: (c["grade"], c["outcome"]) for c in results["cases"]}


@pytest.mark.parametrize("stdin", [True, False], ids=["stdin", "path"])
def test_an_honest_reader_passes_everything(tmp_path, suite, stdin):
    res = run_suite(reader(tmp_path, FXTLINT), suite, stdin=stdin, timeout=30)
    assert grades(res) == {"valid/ok": ("pass", "accepted"), "invalid/bad": ("pass", "rejected"),
                           "recover/cut": ("pass", "rejected"), "impl/odd": ("pass", "accepted")}
    assert res["reader"]["input"] == ("stdin" if stdin else "path")


def test_a_reader_that_rejects_everything(tmp_path, suite):
    res = run_suite(reader(tmp_path, "sys.exit(1)"), suite, timeout=30)
    assert grades(res) == {"valid/ok": ("fail", "rejected"), "invalid/bad": ("pass", "rejected"),
                           "recover/cut": ("fail", "rejected"), "impl/odd": ("pass", "rejected")}
    assert "rejected a valid file" in res["cases"][0]["detail"]


def test_a_reader_that_accepts_everything_with_nothing(tmp_path, suite):
    res = run_suite(reader(tmp_path, 'print(json.dumps({"records": []}))'), suite, timeout=30)
    g = grades(res)
    assert g["valid/ok"][0] == "wrong" and g["invalid/bad"] == ("fail", "accepted")
    assert g["recover/cut"][0] == "wrong" and g["impl/odd"] == ("pass", "accepted")
    detail = {c["case"]: c["detail"] for c in res["cases"]}
    assert detail["valid/ok"] == ".records: expected 2 items, got 0"
    assert detail["recover/cut"] == "records: 0 of the 2 before the fault"


def test_a_reader_printing_invalid_json_is_wrong_with_the_parse_error(tmp_path, suite):
    res = run_suite(reader(tmp_path, 'print("{records: oops")'), suite, timeout=30)
    for c in res["cases"]:
        if c["case"] != "invalid/bad":
            assert c["grade"] == "wrong" and c["detail"].startswith("stdout is not JSON: Expecting property name")


def test_a_reader_printing_json_of_another_shape_is_wrong(tmp_path, suite):
    res = run_suite(reader(tmp_path, "print('[1, 2]')"), suite, timeout=30)
    assert grades(res)["valid/ok"] == ("wrong", "accepted")
    assert "not a canonical decoding" in res["cases"][0]["detail"]


def test_a_hanging_reader_is_killed_and_graded_crash(tmp_path, suite):
    # it also starts a child that holds stdout open: the whole process group must go
    body = "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\ntime.sleep(60)"
    res = run_suite(reader(tmp_path, body), suite, timeout=1, skip=["invalid/*", "recover/*", "impl/*"])
    (c,) = [c for c in res["cases"] if c["grade"] != "skip"]
    assert (c["grade"], c["outcome"], c["exit"]) == ("crash", "timeout", None)
    assert c["detail"] == "no answer within 1 s; killed"


def test_a_reader_killed_by_a_signal_is_a_crash(tmp_path, suite):
    res = run_suite(reader(tmp_path, "os.kill(os.getpid(), signal.SIGSEGV)"), suite, timeout=30)
    assert {(c["grade"], c["outcome"], c["detail"]) for c in res["cases"]} == {("crash", "crashed",
                                                                                 "killed by SIGSEGV")}


def test_another_exit_status_is_a_crash_with_stderr(tmp_path, suite):
    res = run_suite(reader(tmp_path, "print('boom: it broke', file=sys.stderr); sys.exit(3)"), suite, timeout=30)
    assert {(c["grade"], c["detail"]) for c in res["cases"]} == {("crash", "exit status 3: boom: it broke")}


def test_recover_accepts_more_records_after_the_prefix_and_exit_0(tmp_path, suite):
    body = f"""
    sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
    from fxtlint._canonical import decode
    d = decode(data).document()
    d["records"].append({{"kind": "event.instant", "extra": True}})
    print(json.dumps(d))
    """
    res = run_suite(reader(tmp_path, body), suite, timeout=30)
    assert grades(res)["recover/cut"] == ("pass", "accepted")
    assert grades(res)["valid/ok"][0] == "wrong"  # a valid case must match exactly


def test_skip_globs_match_id_or_name(tmp_path, suite):
    res = run_suite(reader(tmp_path, "sys.exit(1)"), suite, timeout=30, skip=["valid/*", "cut"])
    assert grades(res)["valid/ok"] == ("skip", "skipped") and grades(res)["recover/cut"] == ("skip", "skipped")
    assert res["summary"]["valid"]["skip"] == 1 and res["summary"]["invalid"]["pass"] == 1


def test_jobs_keep_the_suite_order(tmp_path, suite):
    one = run_suite(reader(tmp_path, FXTLINT), suite, timeout=30)
    two = run_suite(reader(tmp_path, FXTLINT), suite, timeout=30, jobs=3)
    assert one["cases"] == two["cases"]


def test_bad_runs_are_conformance_errors(tmp_path, suite):
    with pytest.raises(ConformanceError, match="suite folder not found"):
        run_suite([sys.executable], tmp_path / "nowhere")
    with pytest.raises(ConformanceError, match="cannot start reader"):
        run_suite([str(tmp_path / "no-such-reader")], suite)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConformanceError, match="no cases"):
        load_suite(tmp_path / "empty")


@pytest.mark.parametrize("expected, got, diff", [
    ({"a": "1"}, {"a": "1"}, None),
    ({"a": 1}, {"a": 1.0}, None),
    ({"a": 1}, {"a": True}, '.a: expected 1, got true'),
    ({"a": "1"}, {"a": 1}, '.a: expected "1", got 1'),
    ({"a": [1, 2]}, {"a": [1]}, ".a: expected 2 items, got 1"),
    ({"a": {"b": 1}}, {"a": {}}, ".a.b: missing (expected 1)"),
    ({"a": {}}, {"a": {"c": 1}}, ".a.c: unexpected (got 1)"),
    ({"r": [{"x": "y"}]}, {"r": [{"x": "z"}]}, '.r[0].x: expected "y", got "z"'),
])
def test_first_difference(expected, got, diff):
    assert first_difference(expected, got) == diff


def test_parse_output_reasons():
    assert parse_output(b'{"records": []}') == ({"records": []}, "")
    assert parse_output(b"\xff")[1].startswith("stdout is not UTF-8")
    assert parse_output(b"")[1].startswith("stdout is not JSON")


def test_grade_reports_the_signal_name():
    case = Case("valid", "x", Path("x.fxt"), None)
    assert grade(case, Run(-9, b"", b""), 1).detail == "killed by SIGKILL"


# ------------------------------------------------------------------ results and matrix
def test_results_round_trip_and_render(tmp_path, suite):
    a = run_suite(reader(tmp_path, FXTLINT), suite, timeout=30, name="honest")
    b = run_suite(reader(tmp_path, "sys.exit(1)"), suite, timeout=30, name="grumpy")
    write_results(b, tmp_path / "b.json")
    assert load_results(tmp_path / "b.json") == b
    md = matrix_markdown([a, b])
    assert "| category | honest | grumpy |" in md and "| valid | 1/1 | 0/1 |" in md
    assert "| `valid/ok` | accept | pass | FAIL | Event Record |" in md and "| `impl/odd` | either | accepted | rejected |" in md
    page = matrix_html([a, b])
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and "src=" not in page
    assert 'class="fail" title="rejected a valid file"' in page
    from rich.console import Console

    console = Console(width=100, record=True)
    console.print(summary_table(b))
    text = console.export_text()
    assert "grumpy" in text and "│ valid    │     1 │    0 │    1 │" in text


def test_load_results_refuses_other_files(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(ConformanceError, match="not a results file"):
        load_results(tmp_path / "x.json")


# ------------------------------------------------------------------ the CLI
def test_cli_run_and_matrix(tmp_path, suite, capsys):
    cmd = " ".join(reader(tmp_path, FXTLINT))
    out = tmp_path / "r.json"
    assert main(["conformance", "run", "--reader", cmd, "--suite", str(suite), "--json", str(out),
                 "--path", "--name", "me"]) == 0
    assert json.loads(out.read_text())["summary"]["valid"]["pass"] == 1
    assert main(["conformance", "run", "--reader", " ".join(reader(tmp_path, "sys.exit(1)")),
                 "--suite", str(suite)]) == 1
    assert "fail   valid/ok: rejected a valid file" in capsys.readouterr().out
    assert main(["conformance", "matrix", str(out), "--format", "html", "-o", str(tmp_path / "m.html")]) == 0
    assert "<th>me</th>" in (tmp_path / "m.html").read_text()
    assert main(["conformance", "matrix", str(out)]) == 0
    assert "| valid | 1/1 |" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["--reader", "x", "--suite", "/no/such/suite"], "suite folder not found"),
    (["--reader", "/no/such/reader"], "cannot start reader"),
    (["--reader", "'unbalanced"], "--reader: No closing quotation"),
    (["--reader", "x", "--timeout", "0"], "--timeout must be positive"),
])
def test_cli_run_errors_exit_2(tmp_path, suite, capsys, argv, message):
    if "--suite" not in argv:
        argv = [*argv, "--suite", str(suite)]
    assert main(["conformance", "run", *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_matrix_of_a_missing_file_exits_2(tmp_path, capsys):
    assert main(["conformance", "matrix", str(tmp_path / "none.json")]) == 2
    assert "cannot read results" in capsys.readouterr().err


def test_cli_decode(tmp_path, capsys):
    (tmp_path / "good.fxt").write_bytes(GOOD)
    (tmp_path / "bad.fxt").write_bytes(BAD)
    assert main(["decode", str(tmp_path / "good.fxt")]) == 0
    assert json.loads(capsys.readouterr().out) == decode(GOOD).document()
    assert main(["decode", str(tmp_path / "bad.fxt")]) == 1
    out, err = capsys.readouterr()
    assert len(json.loads(out)["records"]) == 2 and "FR003" in err
    assert main(["decode", str(tmp_path / "none.fxt")]) == 2


def test_the_suite_copies_cleanly(tmp_path):
    # load_suite reads the committed manifest's spec and description
    src = Path(__file__).resolve().parent.parent / "corpus" / "conformance"
    dst = tmp_path / "copy"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("results", "adapters", "*.py"))
    cases = load_suite(dst)
    assert len(cases) >= 150 and all(c.spec and c.what for c in cases)


def test_fxtlint_decode_is_a_conforming_reader_command(suite):
    res = run_suite([sys.executable, "-m", "fxtlint", "decode", "-"], suite, timeout=60)
    assert {c["grade"] for c in res["cases"]} == {"pass"}


def test_a_hanging_reader_whose_child_leaves_the_group_is_still_graded(tmp_path, suite):
    # the child starts its own session, so killing the reader's group does not reach it
    body = ("child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(8)'], start_new_session=True)\n"
            "time.sleep(60)")
    res = run_suite(reader(tmp_path, body), suite, timeout=1, skip=["invalid/*", "recover/*", "impl/*"])
    (c,) = [c for c in res["cases"] if c["grade"] != "skip"]
    assert (c["grade"], c["outcome"]) == ("crash", "timeout")
