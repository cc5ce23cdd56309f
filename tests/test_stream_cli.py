"""``fxtlint -``, ``check --follow``, ``decode -`` and ``export -``: standard input and a
growing file are read as they arrive; findings are printed before the stream ends in
the streaming formats, and the whole-run formats and exit status equal a file's."""

from __future__ import annotations

import io
import json
import select
import subprocess
import sys
import threading
import time

import pytest

import fxtlint
from conftest import REPO
from fxtlint import build as B
from fxtlint.cli import main

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"


def trace(n: int, bad_at: int | None = None) -> bytes:
    """Paired durations on one thread; at record ``bad_at`` an event naming string 7,
    never registered (RF001)."""
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    for i in range(n):
        if i == bad_at:
            recs.append(B.event("instant", 10 * i, category=7, name=2, thread=1))
        recs.append(B.event("duration_begin", 10 * i, category=1, name=2, thread=1))
        recs.append(B.event("duration_end", 10 * i + 5, category=1, name=2, thread=1))
    return B.archive(*recs)


def stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


def run(argv, capsys, monkeypatch, data: bytes) -> tuple[int, str]:
    stdin(monkeypatch, data)
    status = main(argv)
    return status, capsys.readouterr().out


@pytest.mark.parametrize("fmt", ["json", "sarif", "junit", "json-lines", "github"])
def test_stdin_output_equals_the_file(fmt, tmp_path, capsys, monkeypatch):
    data = trace(3000, bad_at=10)[:-3]  # a finding, a cut-off last record, > one step of the stream
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    monkeypatch.chdir(tmp_path)
    want_status = main(["check", "--isolated", "--output-format", fmt, "t.fxt"])
    want = capsys.readouterr().out.replace("t.fxt", "-")
    status, got = run(["check", "--isolated", "--output-format", fmt, "-"], capsys, monkeypatch, data)
    assert status == want_status == 1
    if fmt == "json-lines":  # in the order found, not sorted
        assert sorted(got.splitlines()) == sorted(want.splitlines())
    elif fmt == "github":  # in the order found, not most severe first
        assert sorted(got.splitlines()[:-1]) == sorted(want.splitlines()[:-1])
        assert got.splitlines()[-1] == want.splitlines()[-1]
    elif fmt == "sarif":
        def results(text):
            return [(r["ruleId"], r["message"], r["locations"][0]["physicalLocation"]["region"])
                    for r in json.loads(text)["runs"][0]["results"]]
        assert results(got) == results(want) and results(got)
    else:
        assert got == want


def test_rich_stream_hex_view_from_the_flagged_record(capsys, monkeypatch):
    data = trace(3000, bad_at=1500)
    status, out = run(["check", "--isolated", "-"], capsys, monkeypatch, data)
    assert status == 1
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if "RF001" in line)
    off = int(lines[at].split(" at 0x")[1].split()[0], 16)
    assert lines[at + 1].strip().startswith(f"{off - off % 16:08x}")  # its hex view follows
    assert bytes(data[off:off + 4]).hex(" ") in lines[at + 1]
    assert lines[-1].startswith("<stdin>: 6006 records, 1 error")
    assert lines[0] == "<stdin> (trace, little-endian, read as it arrives)"  # the header, as a file's


def test_rich_stdin_has_a_header_line_as_a_file_does(tmp_path, capsys, monkeypatch):
    """Issue 25, item 11: `cat f | fxtlint -` heads its findings as `fxtlint f` does."""
    data = trace(10, bad_at=5)
    (tmp_path / "t.fxt").write_bytes(data)
    assert main(["check", "--isolated", "--no-hex", str(tmp_path / "t.fxt")]) == 1
    file_lines = capsys.readouterr().out.splitlines()
    status, out = run(["check", "--isolated", "--no-hex", "-"], capsys, monkeypatch, data)
    lines = out.splitlines()
    assert status == 1 and file_lines[0] == f"{tmp_path / 't.fxt'} (trace, little-endian, {len(data)} bytes)"
    assert lines[0] == "<stdin> (trace, little-endian, read as it arrives)"
    assert lines[1:-1] == file_lines[1:-1]  # the same findings
    assert lines[-1] == file_lines[-1].replace(str(tmp_path / "t.fxt"), "<stdin>")


def test_empty_stdin_is_not_said_to_be_little_endian(capsys, monkeypatch):
    status, out = run(["check", "--isolated", "--no-hex", "-"], capsys, monkeypatch, b"")
    assert status == 1 and "endian" not in out
    assert out.splitlines()[0] == "<stdin> (empty, read as it arrives)"
    assert out.splitlines()[-1] == "<stdin>: 0 records, 1 error, 0 warnings, 0 infos (empty)"


def test_findings_are_printed_before_stdin_closes():
    """A real pipe: the first finding comes out while the writer still holds it open."""
    data = trace(20000, bad_at=100)
    proc = subprocess.Popen([sys.executable, "-m", "fxtlint", "check", "--isolated", "--output-format",
                             "json-lines", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO)
    try:
        half = len(data) // 2
        proc.stdin.write(data[:half])
        proc.stdin.flush()
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "no finding printed while the stream was open"
        first = json.loads(proc.stdout.readline())
        assert first["code"] == "RF001" and first["path"] == "-"
        assert proc.poll() is None  # still reading
        proc.stdin.write(data[half:])
        proc.stdin.close()
        assert proc.wait(60) == 1  # the exit status, at the end of the stream
        assert proc.stdout.read() == b""
    finally:
        proc.kill()
        proc.wait()


def test_not_fxt_on_stdin_said_once(capsys, monkeypatch):
    status, out = run(["check", "--isolated", "--output-format", "json-lines", "-"], capsys, monkeypatch,
                      b"\x1f\x8b\x08\x00" + bytes(range(256)) * 400)
    assert status == 1
    assert [json.loads(x)["code"] for x in out.splitlines()] == ["MG005"]


def test_follow_a_file_being_written(tmp_path, capsys):
    data = trace(4000, bad_at=3000)
    path = tmp_path / "live.fxt"
    path.write_bytes(data[:1000])

    def writer():
        with open(path, "ab") as fh:
            for i in range(1000, len(data), 20000):
                time.sleep(0.05)
                fh.write(data[i:i + 20000])
                fh.flush()

    t = threading.Thread(target=writer)
    t.start()
    status = main(["check", "--isolated", "--output-format", "json", "--follow", str(path), "--idle-timeout", "1"])
    t.join()
    got = json.loads(capsys.readouterr().out)["files"][0]
    want = fxtlint.lint_bytes(data).to_json()
    assert status == 1
    assert got["bytes"] == len(data) and got["diagnostics"] == want["diagnostics"]


def test_follow_usage(tmp_path, capsys):
    assert main(["check", "--follow", str(tmp_path / "x.fxt"), str(tmp_path)]) == 2
    assert "--follow FILE lints that one file" in capsys.readouterr().err
    assert main(["check", "--isolated", "--follow", str(tmp_path / "missing.fxt"), "--idle-timeout", "0"]) == 2
    assert capsys.readouterr().err.count("missing.fxt") == 1  # said once
    assert main(["check"]) == 2
    assert "no PATH given" in capsys.readouterr().err


@pytest.mark.parametrize("verb", ["decode", "export"])
@pytest.mark.parametrize("name", ["sample", "big", "cut"])
def test_decode_and_export_stdin_equal_the_file(verb, name, tmp_path, capsys, monkeypatch):
    data = {"sample": SAMPLE.read_bytes(), "big": trace(3000), "cut": trace(3000)[:-11]}[name]
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    want_status = main([verb, str(path)])
    captured = capsys.readouterr()
    want, want_err = captured.out, captured.err.replace(str(path), "-")
    stdin(monkeypatch, data)
    status = main([verb, "-"])
    got = capsys.readouterr()
    if verb == "export":
        want = want.replace(json.dumps(str(path)), json.dumps("-"))
    assert (status, got.out, got.err) == (want_status, want, want_err)


def test_export_stdin_not_fxt(capsys, monkeypatch):
    stdin(monkeypatch, b"hello, this is text, not a trace\n" * 10)
    assert main(["export", "-"]) == 1
    err = capsys.readouterr().err
    assert "nothing exported" in err and err.count("\n") == 1
