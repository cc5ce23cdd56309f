"""Every verb that takes paths finds files the same way (one walker, ``cli/_buffers``)
and says the same about a path it cannot read: one error line, exit 2, the other paths
still done."""

from __future__ import annotations

import json
import os

import pytest

from conftest import REPO
from fxtlint import build as B
from fxtlint.cli import _buffers, main

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data = SAMPLE.read_bytes()
    for rel in ("w/a.fxt", "w/UPPER.FXT", "w/sub/Mixed.Fxt", "w/.git/objects/junk.fxt", "w/.hidden.fxt",
                "w/gen/skip.fxt", "w/notes.txt"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(data)
    return tmp_path


def _check_paths(capsys, *argv) -> list[str]:
    main(["check", "--output-format", "json", "--isolated", *argv])
    return [f["path"] for f in json.loads(capsys.readouterr().out)["files"]]


def _report_paths(capsys, *argv) -> list[str]:
    main(["report", "--format", "json", *argv])
    return [t["path"] for t in json.loads(capsys.readouterr().out)["traces"]]


def test_report_walks_directories_as_check_does(tree, capsys):
    found = [os.path.join("w", p) for p in ("UPPER.FXT", "a.fxt", "gen/skip.fxt", "sub/Mixed.Fxt")]
    assert _check_paths(capsys, "w") == found  # hidden folders and files skipped, any case
    assert _report_paths(capsys, "w") == found
    kept = [p for p in found if "gen" not in p]
    assert _check_paths(capsys, "w", "--exclude", "gen") == kept
    assert _report_paths(capsys, "w", "--exclude", "gen") == kept
    assert _report_paths(capsys, "w", "--exclude", "gen,*.FXT") == [p for p in kept if not p.endswith("FXT")]


def test_report_reads_standard_input(tree, capsys, monkeypatch):
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SAMPLE.read_bytes())))
    assert _report_paths(capsys, "-") == ["-"]


@pytest.fixture
def locked(tree, monkeypatch):
    """``locked.fxt`` exists but cannot be opened."""
    (tree / "locked.fxt").write_bytes(B.archive(B.magic()))
    real = _buffers.opened

    def opened(path):
        if path.endswith("locked.fxt"):
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(_buffers, "opened", opened)
    return tree


@pytest.mark.parametrize("argv, still_done", [
    (["check", "--isolated", "--output-format", "json", "locked.fxt", "w/a.fxt"], "w/a.fxt"),
    (["report", "--format", "json", "locked.fxt", "w/a.fxt"], "w/a.fxt"),
    (["export", "locked.fxt"], None),
    (["decode", "locked.fxt"], None),
])
def test_an_unreadable_path_is_one_error_line_and_exit_2(locked, capsys, argv, still_done):
    assert main(argv) == 2
    cap = capsys.readouterr()
    lines = cap.err.splitlines()
    assert len(lines) == 1 and "locked.fxt" in lines[0] and "Permission denied" in lines[0], lines
    if still_done:
        assert still_done in cap.out


def test_every_verb_says_the_same_about_a_file_that_is_not_fxt(tmp_path, capsys):
    """One verdict on bad input: check, report, export and decode all say MG005's words."""
    junk = tmp_path / "other.fxt"
    junk.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(40))
    assert main(["check", "--isolated", "--output-format", "json", str(junk)]) == 1
    (diag,) = json.loads(capsys.readouterr().out)["files"][0]["diagnostics"]
    assert diag["code"] == "MG005" and "PNG" in diag["message"]
    assert main(["report", "--format", "json", str(junk)]) == 1
    cap = capsys.readouterr()
    assert json.loads(cap.out)["traces"][0]["verdict"]["note"] == diag["message"]
    out = tmp_path / "out.json"
    assert main(["export", str(junk), "-o", str(out)]) == 1
    assert capsys.readouterr().err.strip() == f"fxtlint: error: {junk}: {diag['message']}; nothing exported"
    assert not out.exists()
    assert main(["decode", str(junk)]) == 1
    cap = capsys.readouterr()
    assert cap.out == '{"records": []}\n'
    assert cap.err.strip() == f"{junk}: MG005 at 0x0: {diag['message']}"
