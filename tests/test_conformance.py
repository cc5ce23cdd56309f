"""The conformance runner: how it grades readers (small fake readers written here, run
as real subprocesses), its results file, the matrix, and the CLI around it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import REPO
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.reader_suite._canonical import decode, dumps
from fxtlint.reader_suite._runner import (
    Case,
    ConformanceError,
    Run,
    first_difference,
    grade,
    load_results,
    load_suite,
    parse_output,
    run_suite,
    write_results,
)
from fxtlint.render._reader_matrix import matrix_html, matrix_markdown, summary_table

GOOD = B.archive(B.magic(), B.string(1, "a"), B.thread(1, 1, 2), B.event("instant", 1, category=1, name=1),
                 B.event("instant", 2, category=1, name=1))
BAD = GOOD + b"\x01\x02\x03"  # FR003: a partial header; the two events are the prefix
ODD = GOOD + B.archive(B.unknown(12, b"\0" * 8))
NOTHING = b"\x04\x00\x13"  # three bytes of a header: no record before the fault, nothing to recover


@pytest.fixture
def suite(tmp_path) -> Path:
    """One case per category: valid/ok, invalid/bad (nothing before the fault), recover/cut
    (two records before it), impl/odd."""
    s = tmp_path / "suite"
    for cat, name, data in (("valid", "ok", GOOD), ("invalid", "bad", NOTHING), ("recover", "cut", BAD),
                            ("impl", "odd", ODD)):
        (s / cat).mkdir(parents=True)
        (s / cat / f"{name}.fxt").write_bytes(data)
        if cat in ("valid", "invalid", "recover"):  # invalid/, recover/: the records before the fault
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
from fxtlint.reader_suite._canonical import decode
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
    assert "rejected a file a reader must accept" in res["cases"][0]["detail"]


def test_a_reader_that_accepts_everything_with_nothing(tmp_path, suite):
    res = run_suite(reader(tmp_path, 'print(json.dumps({"records": []}))'), suite, timeout=30)
    g = grades(res)
    assert g["valid/ok"][0] == "wrong" and g["invalid/bad"] == ("fail", "accepted")
    assert g["recover/cut"] == ("wrong", "accepted") and g["impl/odd"] == ("pass", "accepted")
    detail = {c["case"]: c["detail"] for c in res["cases"]}
    assert detail["valid/ok"] == ".records: expected 2 items, got 0"
    assert detail["recover/cut"] == "exit 0: .records: expected 2 items, got 0"
    assert detail["invalid/bad"] == ("accepted a file with no record before its fault: nothing to recover, so a "
                                     "reader must reject it")


def test_a_reader_printing_invalid_json_is_wrong_with_the_parse_error(tmp_path, suite):
    res = run_suite(reader(tmp_path, 'print("{records: oops")'), suite, timeout=30)
    for c in res["cases"]:
        if c["case"] not in ("invalid/bad", "recover/cut"):
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


@pytest.mark.parametrize("category", ["invalid", "recover"])
@pytest.mark.parametrize("status, extra, grade, detail", [
    (1, True, "pass", ""),  # it said the file is damaged: what it read after the fault is its business
    (1, False, "pass", ""),
    (0, False, "pass", ""),  # "reading everything up to the last well-formed record": a pass, warned apart
    (0, True, "wrong", "exit 0 with 1 record after the last well-formed one (a reader that does not report the "
                       "fault stops there): .records: expected 2 items, got 3"),
])
def test_damaged_files_are_graded_by_the_records_before_the_fault(tmp_path, suite, category, status, extra, grade,
                                                                  detail):
    """invalid/ and recover/, one rule: the records before the fault; the exit status is
    free, exit 0 recorded as a warning apart."""
    _damaged_invalid(suite)
    body = f"""
    sys.path.insert(0, {str(Path(__file__).resolve().parent.parent)!r})
    from fxtlint.reader_suite._canonical import decode
    d = decode(data).document()
    if {extra!r}:
        d["records"].append({{"kind": "event.instant", "extra": True}})
    print(json.dumps(d))
    sys.exit({status})
    """
    others = [f"{other}/*" for other in ("valid", "invalid", "recover", "impl") if other != category]
    res = run_suite(reader(tmp_path, body), suite, timeout=30, skip=others)  # (a reader's start each)
    (c,) = [c for c in res["cases"] if c["category"] == category]
    assert (c["grade"], c["outcome"], c["detail"]) == (grade, "rejected" if status else "accepted", detail)
    warned = status == 0 and grade == "pass"
    assert bool(c["warning"]) == warned and res["summary"][category]["warned"] == warned
    if warned:
        assert c["warning"] == ("exit 0: returned the 2 records before the fault without saying the file is "
                                "damaged (the spec asks for the records, not for a rejection)")
        assert "passed with a warning (counted apart, not failures): " in matrix_markdown([res])


@pytest.mark.parametrize("status, out, grade, detail", [
    (1, "", "fail", "rejected without returning the 2 records before the fault"),
    (1, '{"records": []}', "wrong", "rejected: records: 0 of the 2 before the fault"),
    (0, '{"records": []}', "wrong", "exit 0: .records: expected 2 items, got 0"),
])
def test_a_damaged_file_without_its_records_before_the_fault_does_not_pass(tmp_path, suite, status, out, grade,
                                                                           detail):
    _damaged_invalid(suite)
    res = run_suite(reader(tmp_path, f"print({out!r}, end=''); sys.exit({status})"), suite, timeout=30,
                    skip=["valid/*", "impl/*"])
    assert {(c["grade"], c["detail"]) for c in res["cases"] if c["grade"] != "skip"} == {(grade, detail)}


def _damaged_invalid(suite: Path) -> None:
    """invalid/bad with two records before its fault, as recover/cut."""
    (suite / "invalid" / "bad.fxt").write_bytes(BAD)
    (suite / "invalid" / "bad.json").write_text(dumps(decode(BAD).document()))


@pytest.mark.parametrize("status, grade", [(0, "fail"), (1, "pass")])
def test_with_nothing_before_its_fault_a_reader_must_reject(tmp_path, suite, status, grade):
    res = run_suite(reader(tmp_path, f"print(json.dumps({{'records': []}})); sys.exit({status})"), suite,
                    timeout=30, skip=["valid/*", "impl/*", "recover/*"])
    (c,) = [c for c in res["cases"] if c["grade"] != "skip"]
    assert c["grade"] == grade and not c["warning"]
    if status == 0:
        assert c["detail"] == ("accepted a file with no record before its fault: nothing to recover, so a reader "
                               "must reject it")


def test_impl_compares_an_accepting_readers_decoding_when_the_spec_fixes_it(tmp_path, suite):
    (suite / "impl" / "odd.json").write_text(dumps(decode(ODD).document()))
    honest = grades(run_suite(reader(tmp_path, FXTLINT), suite, timeout=30))
    empty = run_suite(reader(tmp_path, 'print(json.dumps({"records": []}))'), suite, timeout=30)
    refuses = grades(run_suite(reader(tmp_path, "sys.exit(1)"), suite, timeout=30))
    assert honest["impl/odd"] == ("pass", "accepted") and refuses["impl/odd"] == ("pass", "rejected")
    assert grades(empty)["impl/odd"] == ("wrong", "accepted")
    assert [c["detail"] for c in empty["cases"] if c["case"] == "impl/odd"] == [".records: expected 2 items, got 0"]


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
    assert "| category | a reader | honest | grumpy |" in md
    assert "| valid | must accept | 1/1 (100%) | 0/1 (0%) |" in md
    assert "| **total** | | **4/4 (100%)** | **2/4 (50%)** |" in md
    assert "| `valid/ok` | accept | pass | FAIL | Event Record |" in md
    assert "| `impl/odd` | either | accepted | rejected |" in md
    assert "**Warning:** grumpy passes none of the 1 valid/ cases" in md
    page = matrix_html([a, b])
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page and "src=" not in page
    assert 'class="fail" title="rejected a file a reader must accept"' in page
    from rich.console import Console

    console = Console(width=120, record=True)
    console.print(summary_table(b))
    text = console.export_text()
    lines = [ln for ln in text.splitlines() if ln.startswith("│")]
    assert "grumpy" in text and [ln.split("│")[1].strip() for ln in lines] == [
        "valid", "recover", "invalid", "impl", "all"]  # what a reader must read comes first
    assert "0/1 (0%)" in lines[0] and "2/4 (50%)" in lines[-1]


def test_load_results_refuses_other_files(tmp_path):
    (tmp_path / "x.json").write_text('{"format": "other"}')
    with pytest.raises(ConformanceError, match="not a results file"):
        load_results(tmp_path / "x.json")


# ------------------------------------------------------------------ the CLI
def test_the_warning_sits_beside_the_scores_not_under_the_failures(tmp_path, suite):
    # stdout and stderr in one stream, as a terminal shows them
    run = subprocess.run([sys.executable, "-m", "fxtlint", "conformance", "run", "--reader",
                          " ".join(reader(tmp_path, "sys.exit(1)")), "--suite", str(suite)],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)
    assert run.returncode == 1
    shown = run.stdout
    assert shown.index("reader0: valid 0/1") < shown.index("warning: reader0 passes none") < shown.index("fail   ")


def test_piped_output_does_not_wrap_at_80_columns(tmp_path, suite):
    """Not a terminal: each line as long as it is, the table as wide as its cells."""
    long = "x" * 150
    run = subprocess.run([sys.executable, "-m", "fxtlint", "conformance", "run", "--reader",
                          " ".join(reader(tmp_path, f"print({long!r}, file=sys.stderr); sys.exit(1)")), "--suite",
                          str(suite)], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 1
    assert f"fail   valid/ok: rejected a file a reader must accept: {long}" in run.stdout.splitlines()
    table = [ln for ln in run.stdout.splitlines() if ln.startswith("│")]
    assert [ln.split("│")[1].strip() for ln in table] == ["valid", "recover", "invalid", "impl", "all"]
    assert "warning: reader0 passes none of the 1 valid/ cases (files a reader must accept): it rejected every one" \
        in run.stderr.splitlines()[0]


def test_cli_matrix_with_the_shipped_results_from_any_folder(tmp_path, suite):
    mine = tmp_path / "mine.json"
    write_results(run_suite(reader(tmp_path, FXTLINT), suite, timeout=30, name="mine"), mine)
    run = subprocess.run([sys.executable, "-m", "fxtlint", "conformance", "matrix", "mine.json", "--shipped",
                          "--view", "sections"], capture_output=True, text=True, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "| category | a reader | mine | fxtlint 0.1.0 | fxt 0.3.0 |" in run.stdout
    none = subprocess.run([sys.executable, "-m", "fxtlint", "conformance", "matrix"], capture_output=True,
                          text=True, cwd=tmp_path)
    assert none.returncode == 2 and "give results files, --shipped, or both" in none.stderr


def test_cli_run_and_matrix(tmp_path, suite, capsys):
    cmd = " ".join(reader(tmp_path, FXTLINT))
    out = tmp_path / "r.json"
    assert main(["conformance", "run", "--reader", cmd, "--suite", str(suite), "--json", str(out),
                 "--path", "--name", "me"]) == 0
    assert json.loads(out.read_text())["summary"]["valid"]["pass"] == 1
    assert main(["conformance", "run", "--reader", " ".join(reader(tmp_path, "sys.exit(1)")),
                 "--suite", str(suite)]) == 1
    printed, err = capsys.readouterr()
    assert "fail   valid/ok: rejected a file a reader must accept" in printed
    assert "reader1: valid 0/1, recover 0/1, invalid 1/1, impl 1/1" in printed
    assert "warning: reader1 passes none of the 1 valid/ cases" in err
    assert main(["conformance", "matrix", str(out), "--format", "html", "-o", str(tmp_path / "m.html")]) == 0
    assert "<th>me</th>" in (tmp_path / "m.html").read_text()
    assert main(["conformance", "matrix", str(out)]) == 0
    assert "| valid | must accept | 1/1 (100%) |" in capsys.readouterr().out


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


# ------------------------------------------------------------------ stopping a run
def _small_suite(tmp_path: Path, ids) -> Path:
    s = tmp_path / "small"
    for cid in ids:
        cat, name = cid.split("/")
        (s / cat).mkdir(parents=True, exist_ok=True)
        (s / cat / f"{name}.fxt").write_bytes(GOOD)
    return s


# The fake reader of the next tests: hangs on files named "hang*" after starting a child
# (in its process group) and writing both pids; crashes (exit 3) on "crash*"; else rejects.
_STOPPABLE = """
import os, subprocess, sys, time
from pathlib import Path
name = Path(sys.argv[-1]).name
if name.startswith("hang"):
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    Path(f"{sys.argv[1]}.{name}").write_text(f"{os.getpid()} {child.pid}")
    time.sleep(120)
sys.exit(3 if name.startswith("crash") else 1)
"""


def _runner(tmp_path: Path, suite: Path, *extra: str) -> tuple[subprocess.Popen, Path, Path]:
    script = tmp_path / "stoppable.py"
    script.write_text(_STOPPABLE)
    pids, out = tmp_path / "pids", tmp_path / "partial.json"
    reader_cmd = f"{sys.executable} {script} {pids}"
    proc = subprocess.Popen([sys.executable, "-m", "fxtlint", "conformance", "run", "--reader", reader_cmd,
                             "--suite", str(suite), "--path", "--json", str(out), *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return proc, pids, out


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for a parent that does not reap is dead too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(path: Path, seconds: float = 30) -> str:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if path.exists() and path.read_text():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_kills_the_readers_group_and_writes_the_partial_results(tmp_path, signum):
    suite = _small_suite(tmp_path, ["invalid/a", "invalid/b", "impl/hang", "impl/later"])
    proc, pids, out = _runner(tmp_path, suite, "--timeout", "100")
    reader_pid, child_pid = map(int, _wait_for(Path(f"{pids}.hang.fxt")).split())
    assert _alive(reader_pid) and _alive(child_pid)
    proc.send_signal(signum)
    stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signum, stderr
    assert "Traceback" not in stderr
    name = signal.Signals(signum).name
    assert f"warning: the run was interrupted by {name} while reading impl/hang: 2 of 4 cases graded" \
        in " ".join(stderr.split())  # rich wraps the line
    deadline = time.monotonic() + 10
    while (_alive(reader_pid) or _alive(child_pid)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(reader_pid) and not _alive(child_pid), "the reader's process group outlived the runner"
    partial = load_results(out)
    assert [(c["case"], c["grade"]) for c in partial["cases"]] == [("invalid/a", "pass"), ("invalid/b", "pass")]
    assert partial["stopped"] == f"interrupted by {name} while reading impl/hang: 2 of 4 cases graded"
    assert "invalid 2/2" in stdout


def test_ctrl_c_with_jobs_kills_every_running_reader(tmp_path):
    suite = _small_suite(tmp_path, ["invalid/a", "impl/hang1", "impl/hang2"])
    proc, pids, out = _runner(tmp_path, suite, "--timeout", "100", "--jobs", "2")
    running = [int(pid) for name in ("hang1", "hang2") for pid in _wait_for(Path(f"{pids}.{name}.fxt")).split()]
    assert all(map(_alive, running))
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130 and "Traceback" not in stderr, stderr
    deadline = time.monotonic() + 10
    while any(map(_alive, running)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, running))
    partial = load_results(out)
    assert [c["case"] for c in partial["cases"]] == ["invalid/a"]
    assert partial["stopped"] == "interrupted by SIGINT while reading impl/hang1, impl/hang2: 1 of 3 cases graded"


def test_max_failures_stops_after_that_many_crashes_in_a_row(tmp_path):
    suite = _small_suite(tmp_path, [f"invalid/crash{i}" for i in range(6)])
    proc, _, out = _runner(tmp_path, suite, "--max-failures", "2")
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 1, stderr
    res = load_results(out)
    assert [c["grade"] for c in res["cases"]] == ["crash", "crash"]
    assert res["stopped"] == "stopped after 2 crashes or timeouts in a row: 2 of 6 cases graded"


def test_max_failures_counts_timeouts_and_only_failures_in_a_row(tmp_path):
    # a crash between passes does not count towards the limit; two timeouts in a row do
    suite = _small_suite(tmp_path, ["invalid/a1", "invalid/a2", "invalid/crash1", "invalid/d1",
                                    "invalid/hang1", "invalid/hang2", "invalid/z"])
    # --timeout 5: the hanging reader sleeps 120 s, and every other case (a Python start,
    # a tenth of a second) must answer within it even on a loaded machine, or it would be
    # graded a timeout too
    proc, _, out = _runner(tmp_path, suite, "--max-failures", "2", "--timeout", "5")
    proc.communicate(timeout=120)
    res = load_results(out)
    assert [(c["case"], c["outcome"]) for c in res["cases"]] == [
        ("invalid/a1", "rejected"), ("invalid/a2", "rejected"), ("invalid/crash1", "crashed"),
        ("invalid/d1", "rejected"), ("invalid/hang1", "timeout"), ("invalid/hang2", "timeout")]
    assert "6 of 7 cases graded" in res["stopped"]  # invalid/z never ran


def test_progress_on_a_terminal_counts_cases_and_grades():
    import io

    from rich.console import Console

    from fxtlint.cli.conformance import _progress
    from fxtlint.reader_suite._runner import Result

    buf = io.StringIO()
    with _progress(Console(file=buf, force_terminal=True, width=120), enabled=True) as advance:
        advance(Result("invalid/a", "invalid", "reject", "pass", "rejected"), 1, 3)
        advance(Result("impl/b", "impl", "either", "crash", "timeout"), 2, 3)
    text = buf.getvalue()
    assert "grading" in text and "2/3" in text and "pass 1 crash 1" in text and "last: impl/b" in text
    with _progress(Console(file=io.StringIO()), enabled=True) as advance:  # not a terminal: nothing
        assert advance is None


# ------------------------------------------------------------------ matrix views
def test_matrix_views_differences_and_sections(tmp_path, suite):
    a = run_suite(reader(tmp_path, FXTLINT), suite, timeout=30, name="honest")
    b = run_suite(reader(tmp_path, "sys.exit(1)"), suite, timeout=30, name="grumpy")
    full = matrix_markdown([a, b])
    diff = matrix_markdown([a, b], "differences")
    assert "## Where the readers differ (3 cases)" in diff and "## Cases" not in diff
    assert "| `valid/ok` | accept | pass | FAIL |" in diff and "`invalid/bad`" not in diff
    sections = matrix_markdown([a, b], "sections")
    assert "## By spec section (passed / graded)" in sections and "Where the readers differ" not in sections
    # the one case with a spec section in the fixture's manifest, and the rest without one
    assert "| Event Record | 1/1 (100%) | 0/1 (0%) |" in sections and "| (none) | 3/3 (100%) | 2/3 (66%) |" in sections
    assert all(part in full for part in ("## By spec section", "## Where the readers differ", "## Cases"))
    assert "(one reader: nothing to compare)" in matrix_markdown([a], "differences")
    page = matrix_html([a, b])
    assert '<tr class="total"><td>total</td>' in page and "only the 3 cases where the readers differ" in page
    assert page.count('<tr class="same">') == 1  # invalid/bad: both rejected; hidden by the checkbox


def test_cli_matrix_view(tmp_path, suite, capsys):
    out = tmp_path / "r.json"
    write_results(run_suite(reader(tmp_path, FXTLINT), suite, timeout=30), out)
    assert main(["conformance", "matrix", str(out), "--view", "sections"]) == 0
    text = capsys.readouterr().out
    assert "## By spec section" in text and "## Cases" not in text


# ------------------------------------------------------------------ malformed/: skip or reject
# an event on a thread nothing registered, between good events: "malformed trace records
# can be skipped", so a reader may skip it (and read the last event) or reject
MALFORMED = GOOD + B.archive(B.event("instant", 3, category=1, name=1, thread=9),
                             B.event("instant", 4, category=1, name=1))
SKIPPED = GOOD + B.archive(B.event("instant", 4, category=1, name=1))  # what a skipping reader reads


@pytest.fixture
def malformed_suite(tmp_path) -> Path:
    s = tmp_path / "suite"
    (s / "malformed").mkdir(parents=True)
    (s / "malformed" / "thread.fxt").write_bytes(MALFORMED)
    (s / "malformed" / "thread.json").write_text(dumps(decode(SKIPPED).document()))
    (s / "manifest.json").write_text(json.dumps({"cases": [
        {"category": "malformed", "name": "thread", "spec": "Thread References", "prefix": 2}]}))
    return s


def _printing(tmp_path, data: bytes, status: int, keep: int | None = None) -> list[str]:
    """A reader that prints fxtlint's decoding of ``data`` (its first ``keep`` records) and exits ``status``."""
    return reader(tmp_path, FXTLINT.replace("d = decode(data)", f"d = decode({data!r})").replace(
        "sys.stdout.write(d.to_json())", f"d.records = d.records[:{keep}]\nsys.stdout.write(d.to_json())").replace(
        "sys.exit(0 if d.accepted else 1)", f"sys.exit({status})"))


def test_malformed_a_reader_may_skip_the_record_or_reject_and_says_which(tmp_path, malformed_suite):
    assert not decode(MALFORMED).accepted and decode(SKIPPED).accepted
    honest = run_suite(reader(tmp_path, FXTLINT), malformed_suite, timeout=30)  # rejects after the prefix
    assert [(c["grade"], c["chose"]) for c in honest["cases"]] == [("pass", "reject")]
    skipper = run_suite(_printing(tmp_path, SKIPPED, 0), malformed_suite, timeout=30)
    assert [(c["grade"], c["outcome"], c["chose"]) for c in skipper["cases"]] == [("pass", "accepted", "skip")]
    assert skipper["summary"]["malformed"]["chose"] == {"skip": 1, "reject": 0, "read-through": 0}
    silent = run_suite(reader(tmp_path, "sys.exit(1)"), malformed_suite, timeout=30)
    assert [c["grade"] for c in silent["cases"]] == ["pass"]


@pytest.mark.parametrize("data, status, keep, detail", [
    (MALFORMED, 0, None, "exit 0, but not the decoding with the malformed record skipped: .records: expected 3 "
                         "items, got 2"),  # dropped the rest
    (MALFORMED, 1, 1, "rejected: records: 1 of the 2 before the fault"),
    (GOOD + B.archive(B.event("instant", 4, category=1, name=1)), 1, 1,
     "rejected: records: 1 of the 2 before the fault"),
])
def test_malformed_grades_the_records_after_the_skipped_one_and_the_prefix(tmp_path, malformed_suite, data, status,
                                                                          keep, detail):
    res = run_suite(_printing(tmp_path, data, status, keep), malformed_suite, timeout=30)
    assert [(c["grade"], c["detail"]) for c in res["cases"]] == [("wrong", detail)]


def test_the_matrix_and_the_summary_show_what_a_reader_chose(tmp_path, malformed_suite):
    from fxtlint.render._reader_matrix import cell, choices

    res = run_suite(_printing(tmp_path, SKIPPED, 0), malformed_suite, timeout=30, name="skipper")
    assert cell(res["cases"][0]) == "skipped"
    assert choices(res) == "skipper chose: malformed/: skipped 1, rejected 0, read through 0"
    assert "skipper chose: malformed/: skipped 1, rejected 0, read through 0" in matrix_markdown([res])


def test_a_reader_that_read_through_the_malformed_record_is_told_so_and_counted_so(tmp_path, malformed_suite):
    """Not "skipped": it decoded the malformed record (here, as if its thread were thread 1)."""
    through = GOOD + B.archive(B.event("instant", 3, category=1, name=1), B.event("instant", 4, category=1, name=1))
    res = run_suite(_printing(tmp_path, through, 0), malformed_suite, timeout=30, name="through")
    (c,) = res["cases"]
    assert (c["grade"], c["chose"]) == ("wrong", "read-through")
    assert c["detail"] == ("read through the malformed record (decoded it; the spec says it can be skipped): 4 "
                           "records where skipping it gives 3; .records[2].timestamp: expected \"4\", got \"3\"")
    assert res["summary"]["malformed"]["chose"] == {"skip": 0, "reject": 0, "read-through": 1}


# ------------------------------------------------------------------ what a reader cannot report
INTS = B.archive(B.magic(), B.string(1, "a"), B.thread(1, 1, 2),
                 B.event("instant", 1, category=1, name=1, args=[B.arg("int32", 1, 5), B.arg("uint64", 1, 6)]))


def _untyped(declare: bool, value: int = 5) -> str:
    """A reader that cannot tell integer types apart: every integer argument is uint64."""
    doc = decode(INTS).document()
    for a in doc["records"][0]["arguments"]:
        a["type"], a["value"] = "uint64", str(value if a["value"] == 5 else a["value"])
    if declare:
        doc["cannot_tell_apart"] = [["int32", "uint32", "int64", "uint64", "pointer", "koid"]]
    return f"print({json.dumps(json.dumps(doc))})"


@pytest.mark.parametrize("declare, value, grade, detail", [
    (True, 5, "unreported", "not reported: int32 (read as uint64)"),
    (False, 5, "wrong", '.records[0].arguments[0].type: expected "int32", got "uint64"'),
    (True, 7, "wrong", '.records[0].arguments[0].type: expected "int32", got "uint64"'),  # a wrong value stays wrong
])
def test_a_field_a_reader_declares_it_cannot_report_is_counted_apart(tmp_path, declare, value, grade, detail):
    s = tmp_path / "suite"
    (s / "valid").mkdir(parents=True)
    (s / "valid" / "ints.fxt").write_bytes(INTS)
    (s / "valid" / "ints.json").write_text(dumps(decode(INTS).document()))
    res = run_suite(reader(tmp_path, _untyped(declare, value)), s, timeout=30)
    assert [(c["grade"], c["detail"]) for c in res["cases"]] == [(grade, detail)]
    assert res["summary"]["valid"][grade] == 1
    from fxtlint.reader_suite._runner import score

    assert score(res, "valid") == (0, 0 if grade == "unreported" else 1)  # not graded, not wrong


# ------------------------------------------------------------------ what the warning says
@pytest.mark.parametrize("body, said", [
    ("sys.exit(0)", "it refused none of the 4 files: accepted 4"),
    ("sys.exit(1)", "it rejected every one of the 4 files, so its other scores only count files it refused"),
    ("sys.exit(0 if data[:1] == b'x' else 1)", "it rejected every one of the 4 files"),
])
def test_the_warning_says_what_a_reader_that_reads_nothing_did(tmp_path, suite, body, said):
    from fxtlint.reader_suite._runner import warnings

    res = run_suite(reader(tmp_path, body), suite, timeout=30, name="r")
    assert warnings(res) == [f"r passes none of the 1 valid/ cases (files a reader must accept): {said}"
                             + ("" if said.endswith("refused") or "accepted" in said
                                else ", so its other scores only count files it refused")]


def test_results_say_which_suite_version_graded_them_and_the_matrix_warns_on_another(tmp_path, suite):
    from fxtlint.reader_suite._runner import SUITE_VERSION, warnings

    assert json.loads((REPO / "corpus" / "conformance" / "manifest.json").read_text())["version"] == SUITE_VERSION
    manifest = json.loads((suite / "manifest.json").read_text())
    (suite / "manifest.json").write_text(json.dumps({**manifest, "version": SUITE_VERSION}))
    res = run_suite(reader(tmp_path, FXTLINT), suite, timeout=30, name="now")
    assert res["suite"] == {"version": SUITE_VERSION} and not warnings(res)
    old = {**res, "suite": {"version": SUITE_VERSION - 1}, "reader": {**res["reader"], "name": "then"}}
    said = f"then was graded by suite version {SUITE_VERSION - 1}, this fxtlint's is {SUITE_VERSION}"
    assert [w for w in warnings(old) if w.startswith(said)]
    assert said in matrix_markdown([res, old])
