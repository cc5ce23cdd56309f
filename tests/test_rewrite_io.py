"""How ``repair`` and ``slice`` read and write: IN read in place a chunk at a time (the
same output as from bytes in memory, whatever the chunk), no copy of it, a file that
changes while read said as such, an interrupted run leaving no output behind, and a
progress bar on a terminal only (``rewrite/_input.py``, ``cli/_rewrite_io.py``,
``cli/_progress.py``)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from rich.console import Console

import fxtlint
from conftest import CORPUS_REAL, REPO
from fxtlint import build as B
from fxtlint.cli import _progress, main
from fxtlint.engine._file import FileChanged
from fxtlint.rewrite._input import Input
from fxtlint.rewrite._repair import repair
from fxtlint.rewrite._slice import Cutter, slice_trace, time_range


def _events(n: int, start: int = 0) -> bytes:
    return B.archive(*[B.event("instant", start + i, thread=(1, 2), category="c", name="n") for i in range(n)])


def _broken(n: int = 3000) -> bytes:
    """A trace with a zeroed stretch in its middle (FR001, a resynchronisation) and a cut-off end."""
    data = bytearray(B.archive(B.magic()) + _events(n))
    mid = len(data) // 2 & ~7
    data[mid : mid + 256] = bytes(256)
    return bytes(data) + b"\x01\x02\x03"


def _repaired(source, **kw) -> tuple[bytes, list]:
    out: list = []
    log = repair(source, out.append, **kw)
    return b"".join(out), [c.to_json() for c in log.changes]


@pytest.mark.parametrize("chunk", [64, 4096, 1 << 20])
@pytest.mark.parametrize("shortcut", [True, False])
def test_repair_of_a_file_read_in_chunks_is_the_repair_of_its_bytes(tmp_path, chunk, shortcut):
    """Whatever the chunk, read in place IN gives the repair (bytes and change log) its
    bytes in memory give: every reader call that needed more was made again whole."""
    for name, data in [("broken", _broken()), ("clean", B.archive(B.magic()) + _events(2000))]:
        path = tmp_path / f"{name}.fxt"
        path.write_bytes(data)
        with open(path, "rb", buffering=0) as fh:
            inp = Input.of_file(fh, str(path), chunk=chunk)
            try:
                got = _repaired(inp, shortcut=shortcut)
            finally:
                inp.close()
        assert got == _repaired(data, shortcut=shortcut), name


@pytest.mark.parametrize("chunk", [64, 1 << 20])
def test_slice_of_a_file_read_in_chunks_is_the_slice_of_its_bytes(tmp_path, chunk):
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:119_120]  # whole records: one ends there
    path = tmp_path / "in.fxt"
    path.write_bytes(data)

    def pieces(source) -> list[bytes]:
        outs: dict[int, io.BytesIO] = {}

        def open_out(i):  # (piece i again, where a trace going back in time is cut twice)
            outs[i] = io.BytesIO()
            outs[i].close = lambda: None  # type: ignore[method-assign]
            return outs[i]

        slice_trace(source, open_out, Cutter(size=25_000))
        return [outs[i].getvalue() for i in sorted(outs)]

    with open(path, "rb", buffering=0) as fh:
        inp = Input.of_file(fh, str(path), chunk=chunk)
        assert time_range(inp) == time_range(data)
        inp.restart()
        got = pieces(inp)
        inp.close()
    assert got == pieces(data) and len(got) >= 4


def test_a_file_that_shrinks_while_read_is_said_to_have_changed(tmp_path):
    path = tmp_path / "in.fxt"
    path.write_bytes(B.archive(B.magic()) + _events(500))
    with open(path, "rb", buffering=0) as fh:
        inp = Input.of_file(fh, str(path), chunk=1024)
        os.truncate(path, 4096)
        with pytest.raises(FileChanged, match="changed while being read"):
            inp.want(None)
        inp.close()


def test_repair_makes_no_copy_of_its_input(tmp_path, monkeypatch):
    """IN is read in place: no temporary file holds a copy of it (the old spool did)."""
    data = _broken()
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(data)

    def refused(*a, **k):
        raise AssertionError("a temporary copy of the input")

    monkeypatch.setattr(tempfile, "TemporaryFile", refused)
    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refused)
    assert main(["repair", str(src), "-o", str(dst), "--output-format", "json"]) == 0
    assert dst.read_bytes() == _repaired(data)[0]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fxt", "out.fxt"]


def test_repair_and_slice_read_stdin_once_as_it_arrives(tmp_path, monkeypatch, capsys):
    data = _broken()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["repair", "-", "-o", str(tmp_path / "out.fxt")]) == 0
    assert (tmp_path / "out.fxt").read_bytes() == _repaired(data)[0]
    clean = (tmp_path / "out.fxt").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(clean)))
    assert main(["slice", "-", "-o", str(tmp_path / "p.fxt"), "--split-size", "16KiB"]) == 0
    pieces = sorted(tmp_path.glob("p-*.fxt"))
    assert len(pieces) >= 3 and not any(fxtlint.lint_path(p).has_errors for p in pieces)
    capsys.readouterr()


# -- an interrupted run -------------------------------------------------------------------
# the verb in a child whose SIGINT is Python's default (a background pytest may ignore it)
_CHILD = ("import signal, sys\n"
          "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
          "from fxtlint.cli import main\n"
          "raise SystemExit(main(sys.argv[1:]))\n")


def _interrupted(tmp_path, argv: list[str], signum: int) -> tuple[int, str]:
    """Run the verb until it has started writing (a ``.part`` file is there), then send ``signum``."""
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, *argv], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not any(p.name.endswith(".part") for p in tmp_path.iterdir()):
        assert proc.poll() is None and time.monotonic() < deadline, "the run ended before writing"
        time.sleep(0.005)
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_repair_leaves_no_output(tmp_path, signum):
    src = tmp_path / "in.fxt"
    src.write_bytes(_broken(30_000) * 2)  # read record by record: seconds
    status, err = _interrupted(tmp_path, ["repair", str(src), "-o", str(tmp_path / "out.fxt")], signum)
    assert status == 128 + signum
    assert f"interrupted ({signal.Signals(signum).name})" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fxt"]


@pytest.mark.slow
def test_an_interrupted_slice_leaves_no_piece(tmp_path):
    src = tmp_path / "in.fxt"
    src.write_bytes(B.archive(B.magic()) + _events(30_000) * 2)
    status, err = _interrupted(tmp_path, ["slice", str(src), "-o", str(tmp_path / "p.fxt"), "--split-size",
                                          "8KiB"], signal.SIGTERM)
    # (whether a piece was already whole when the signal came, "removed" or "nothing was
    # written", depends on timing: what is certain is the status and that no file is left)
    assert status == 128 + signal.SIGTERM and "interrupted (SIGTERM)" in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fxt"]


# -- progress -------------------------------------------------------------------------------
class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stdout_tty", [True, False])
def test_reading_bar_draws_on_a_terminal_only_when_stdout_is_one_too(monkeypatch, stdout_tty):
    monkeypatch.setattr(sys, "stdout", _Tty() if stdout_tty else io.StringIO())
    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=100)
    with _progress.reading_bar("repairing", console=console, delay=0) as advance:
        time.sleep(0.3)
        advance(512, 1024)
        time.sleep(0.3)
    assert ("repairing" in screen.getvalue()) == stdout_tty


def test_reading_bar_draws_nothing_when_stderr_is_not_a_terminal(monkeypatch):
    monkeypatch.setattr(sys, "stdout", _Tty())
    screen = io.StringIO()
    with _progress.reading_bar("slicing", console=Console(file=screen), delay=0) as advance:
        advance(1, 2)
        time.sleep(0.2)
    assert screen.getvalue() == ""


@pytest.mark.parametrize("verb", ["repair", "slice", "export", "decode", "report"])
def test_each_reading_verb_reports_bytes_read_to_its_bar(tmp_path, monkeypatch, capsys, verb):
    """The verbs hand their bar the bytes read of the total as they read (here a file
    read a chunk at a time, so more than one step)."""
    from fxtlint.engine import _file

    src = tmp_path / "in.fxt"
    data = B.archive(B.magic()) + _events(4000)
    src.write_bytes(data)
    monkeypatch.setattr(_file, "WHOLE", 4096)
    monkeypatch.setattr(_file, "CHUNK", 16 * 1024)
    seen: list[tuple[int, int]] = []

    from contextlib import contextmanager

    @contextmanager
    def fake_bar(label, *, enabled=True, console=None, delay=_progress.DELAY):
        yield lambda done, total: seen.append((done, total))

    for module in ("repair", "slice", "export", "decode", "report"):
        monkeypatch.setattr(f"fxtlint.cli.{module}.reading_bar", fake_bar)
    argv = {"repair": ["repair", str(src), "-o", str(tmp_path / "o.fxt")],
            "slice": ["slice", str(src), "-o", str(tmp_path / "o.fxt"), "--split-size", "1MB"],
            "export": ["export", str(src), "-o", str(tmp_path / "o.json")],
            "decode": ["decode", str(src)],
            "report": ["report", str(src), "--format", "json"]}[verb]
    monkeypatch.setattr("fxtlint.rewrite._input.CHUNK", 16 * 1024)
    assert main(argv) in (0, 1)
    capsys.readouterr()
    assert len(seen) >= 2 and seen[-1] == (len(data), len(data))
    assert all(done <= total == len(data) for done, total in seen)
