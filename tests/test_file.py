"""Files are read, never mapped (``fxtlint/engine/_file.py``): every verb reads a file in
chunks exactly as it reads it whole, and a file that shrinks or grows while a verb reads
it is one line on stderr and exit 2, never a death by SIGBUS.

A memory-mapped file truncated under the walk killed the process (exit 135, no message)
in the native walk. The changes here are made for real, on disk, between two
reads of the verb (a hook on ``FileSource.readinto``), in a child process, so a signal
would show as a negative return code.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import fxtlint
from conftest import REPO
from fxtlint import build as B
from fxtlint.cli import _stream, main
from fxtlint.engine import _feeder, _file

GOLDEN = REPO / "corpus" / "golden"


def trace(n: int = 600, *, bad: bool = True) -> bytes:
    """A trace over several 4 KiB chunks, with findings spread over it (hex views to draw)."""
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    for i in range(n):
        recs.append(B.event("duration_begin", 10 * i, category=1, name=2, thread=1))
        if i % 7:
            recs.append(B.event("duration_end", 10 * i + 5, category=1, name=2, thread=1))
        if bad and i % 150 == 75:
            recs.append(B.event("instant", 10 * i + 6, category=9, name=2, thread=1))  # string 9: never registered
    return B.archive(*recs)


@pytest.fixture
def chunked(monkeypatch):
    """Every file over 64 bytes is a FileSource read 4 KiB at a time."""
    monkeypatch.setattr(_file, "WHOLE", 64)
    monkeypatch.setattr(_file, "CHUNK", 4096)


def _run(capsys, argv) -> tuple[int, str, str]:
    status = main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def _verbs(path, tmp_path) -> list[list[str]]:
    events = tmp_path / "events.json"
    return [
        ["check", "--isolated", "--output-format", "json", str(path)],
        ["check", "--isolated", str(path)],  # rich, plain: the hex views read the file again
        ["check", "--isolated", "--output-format", "sarif", "-j", "2", str(path), str(path)],
        ["report", "--format", "json", str(path)],
        ["report", "--format", "markdown", str(path)],
        ["report", "--format", "json", "--expect", str(events), "--expect-mode", "exact", str(path)],
        ["export", str(path)],
        ["decode", str(path)],
    ]


@pytest.mark.parametrize("name", ["trace", "cut", "golden", "text"])
def test_every_verb_reads_a_file_in_chunks_as_it_reads_it_whole(name, tmp_path, capsys, monkeypatch):
    data = {
        "trace": trace(),
        "cut": trace()[:-13],  # a record cut off, a length that is not whole words
        "golden": (GOLDEN / "RF001-string-ref-unregistered.fxt").read_bytes(),
        "text": b"hello, this is text, not a trace\n" * 300,  # not FXT: said once, nothing exported
    }[name]
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    events = tmp_path / "events.json"
    main(["export", str(path), "-o", str(events)])  # what --expect compares with: the file's own events
    if not events.exists():
        events.write_text('{"traceEvents": []}')
    capsys.readouterr()
    verbs = _verbs(path, tmp_path)
    whole = [_run(capsys, argv) for argv in verbs]
    monkeypatch.setattr(_file, "WHOLE", 64)
    monkeypatch.setattr(_file, "CHUNK", 4096)
    reads = []
    real = _file.FileSource.readinto
    monkeypatch.setattr(_file.FileSource, "readinto", lambda self, v: reads.append(len(v)) or real(self, v))
    for argv, want in zip(verbs, whole):
        reads.clear()
        assert _run(capsys, argv) == want, argv
        if "-j" not in argv:  # workers are other processes
            assert reads and max(reads) <= 4096, argv
    out = tmp_path / "out.json"
    if name == "text":  # nothing exported and no output file, as for a small one
        assert main(["export", str(path), "-o", str(out)]) == 1 and not out.exists()
        assert "nothing exported" in capsys.readouterr().err


def test_library_lint_path_reads_in_chunks_as_lint_bytes(tmp_path, chunked):
    data = trace()
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    got, want = fxtlint.lint_path(path).to_json(), fxtlint.lint_bytes(data).to_json()
    got["path"] = want["path"]
    assert got == want and got["counts"]


def test_memory_is_a_chunk_not_the_file(tmp_path, chunked, monkeypatch):
    """The walk of a file holds the unread tail only (pages behind it given back), as a
    stream's does: never the file."""
    data = trace(3000, bad=False)
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    held = []
    real = _feeder.Feeder._advance

    def advance(self):
        real(self)
        held.append(self.stream.size - self.stream.released)

    monkeypatch.setattr(_feeder.Feeder, "_advance", advance)
    assert fxtlint.lint_path(path).counts == fxtlint.lint_bytes(data).counts
    assert len(data) > 20 * 4096 and len(held) > 20
    assert max(held) < 4 * 4096  # a chunk, a record cut at its end and a page or two


def test_a_small_file_that_changed_is_said_too():
    with pytest.raises(_file.FileChanged) as e:
        _file.read_whole(io.BytesIO(bytes(10)), "t.fxt", 12)
    assert (e.value.filename, e.value.strerror) == ("t.fxt", "changed while being read: 12 bytes expected, 10 read")
    with pytest.raises(_file.FileChanged, match="12 bytes expected, 20 read"):
        _file.read_whole(io.BytesIO(bytes(20)), "t.fxt", 12)
    assert _file.read_whole(io.BytesIO(bytes(12)), "t.fxt", 12) == bytes(12)


# the child: every file a FileSource read 4 KiB at a time; before the second read of
# each the file on disk is changed (shrunk or grown), then the verb goes on reading
CHILD = textwrap.dedent("""
    import os, sys
    from fxtlint.engine import _file
    from fxtlint.cli import main

    _file.WHOLE, _file.CHUNK = 64, 4096
    real = _file.FileSource.readinto

    def readinto(self, view):
        self.calls = getattr(self, "calls", 0) + 1
        if self.calls == 2:
            change, size = sys.argv[1], os.path.getsize(self.path)
            if change == "shrink":
                os.truncate(self.path, size // 2)
            else:
                with open(self.path, "ab") as fh:
                    fh.write(bytes(800))
        return real(self, view)

    _file.FileSource.readinto = readinto
    sys.exit(main(sys.argv[2:]))
""")

VERBS = {
    "check": ["check", "--isolated"],
    "check-json": ["check", "--isolated", "--output-format", "json"],
    "report": ["report", "--format", "markdown"],
    "export": ["export"],
    "decode": ["decode"],
}


# the children import the fxtlint this test imported (an installed one with its built
# modules, in CI, or the checkout), run where it is: ``-c`` puts the working directory first
# on sys.path, and a checkout's fxtlint there, its extensions not built in place, would lint
# on the reference engine (the 8 MiB chunk of ``big_trace`` in seconds, not milliseconds)
HOME = str(Path(fxtlint.__file__).resolve().parent.parent)


def _child(change: str, argv: list[str], engine: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": HOME}
    if engine:
        env["FXTLINT_ENGINE"] = engine
    return subprocess.run([sys.executable, "-c", CHILD, change, *argv], capture_output=True, text=True,
                          env=env, timeout=120, cwd=HOME)


@pytest.mark.parametrize("change", ["shrink", "grow"])
@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_file_that_changes_while_read_is_exit_2_with_one_line(verb, change, tmp_path):
    data = trace()
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    n = len(data)
    got = _child(change, [*VERBS[verb], str(path)])
    assert got.returncode == 2, (got.returncode, got.stderr)  # not -7 (SIGBUS), not a traceback's 1
    read = n // 2 if change == "shrink" else n + 800
    said = f"{path}: changed while being read: {n} bytes expected, {read} read"
    lines = got.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fxtlint: error: ") and lines[0].endswith(said), lines


def test_files_that_change_under_parallel_workers_are_each_one_line(tmp_path):
    paths = [tmp_path / "a.fxt", tmp_path / "b.fxt", tmp_path / "c.fxt"]
    for p in paths:
        p.write_bytes(trace())
    n = len(trace())
    got = _child("shrink", ["check", "--isolated", "--output-format", "json", "-j", "2", *map(str, paths)])
    assert got.returncode == 2, got.stderr
    assert sorted(got.stderr.splitlines()) == [
        f"fxtlint: error: {p}: changed while being read: {n} bytes expected, {n // 2} read" for p in paths]


@pytest.mark.parametrize("engine", ["reference", None])
def test_a_file_truncated_under_either_engine_is_exit_2(engine, tmp_path):
    """The reference reader and the native walk both read only what was read."""
    path = tmp_path / "t.fxt"
    path.write_bytes(trace())
    got = _child("shrink", ["check", "--isolated", "--output-format", "json", str(path)], engine)
    assert got.returncode == 2 and "changed while being read" in got.stderr


def test_a_followed_file_that_shrinks_is_exit_2(tmp_path, capsys, monkeypatch):
    """Growth is a followed file's normal case; shrinking below what was read is an I/O error."""
    data = trace()
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    monkeypatch.setattr(_stream, "READ", 4096)
    real = fxtlint.StreamLinter.feed

    def feed(self, chunk):
        if self.bytes_received == 0:
            os.truncate(path, 1000)
        return real(self, chunk)

    monkeypatch.setattr(fxtlint.StreamLinter, "feed", feed)
    status = main(["check", "--isolated", "--output-format", "json", "--follow", str(path), "--idle-timeout", "5"])
    out, err = capsys.readouterr()
    assert status == 2
    said = "changed while being read: it shrank to 1000 bytes after 4096 were read"
    assert err.strip() == f"fxtlint: error: {path}: {said}"
    assert json.loads(out)["files"] == []


def test_a_followed_file_that_grows_is_read_on(tmp_path, capsys, monkeypatch):
    data = trace()
    path = tmp_path / "t.fxt"
    path.write_bytes(data[:5000])
    monkeypatch.setattr(_stream, "READ", 4096)
    real = fxtlint.StreamLinter.feed

    def feed(self, chunk):
        if self.bytes_received == 0:
            with open(path, "ab") as fh:
                fh.write(data[5000:])
        return real(self, chunk)

    monkeypatch.setattr(fxtlint.StreamLinter, "feed", feed)
    status = main(["check", "--isolated", "--output-format", "json", "--follow", str(path), "--idle-timeout", "0"])
    got = json.loads(capsys.readouterr().out)["files"][0]
    assert status == 1 and got["bytes"] == len(data)
    assert got["diagnostics"] == fxtlint.lint_bytes(data).to_json()["diagnostics"]


# the child: the file is cut to 4 KiB as the walk starts its first advance (its first
# chunk read, or, when files were mapped, its map made): no hook on how the file is read
CUT_AT_FIRST_ADVANCE = textwrap.dedent("""
    import os, sys
    from fxtlint.engine import _walk
    from fxtlint.cli import main

    real, done = _walk.Walk.advance, []

    def advance(self):
        if not done:
            done.append(os.truncate(sys.argv[1], 4096))
        return real(self)

    _walk.Walk.advance = advance
    sys.exit(main(sys.argv[2:]))
""")


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory) -> bytes:
    """About 11 MB of records: larger than a file read whole, and than a chunk."""
    head = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    body = B.archive(*[B.event("instant", i, category=1, name=2, thread=1) for i in range(2000)])
    data = B.archive(*head) + body * 350
    assert len(data) > _file.CHUNK > _file.WHOLE
    return data


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_a_file_truncated_as_the_walk_starts_is_exit_2_not_sigbus(verb, big_trace, tmp_path):
    """The issue's reproducer without its race: a memory-mapped file died here (SIGBUS,
    -7) in the native scan or in numpy (the column engine of then)."""
    path = tmp_path / "t.fxt"
    path.write_bytes(big_trace)
    got = subprocess.run([sys.executable, "-c", CUT_AT_FIRST_ADVANCE, str(path), *VERBS[verb], str(path)],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": HOME}, timeout=300, cwd=HOME)
    assert got.returncode == 2, (got.returncode, got.stderr[-2000:])
    said = f"{path}: changed while being read: {len(big_trace)} bytes expected, {_file.CHUNK} read"
    assert got.stderr.splitlines()[-1].endswith(said), got.stderr
