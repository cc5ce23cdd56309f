"""The command line's ``export`` and ``decode``: the bytes the native walk's rows mode writes
to a real stdout's bytes layer and to a file read back as their consumers read them, on
each engine; and malloc tuned for them by the command line only (``_native.tune_allocator``)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import fxtlint
from conftest import CORPUS_REAL
from fxtlint.engine import _native

SAMPLE = Path(__file__).resolve().parent.parent / "corpus" / "samples" / "sample.fxt"


def test_the_allocator_is_tuned_by_the_command_line_only(monkeypatch, tmp_path):
    # malloc's thresholds are process-wide: a library user's process is not ours to tune
    from fxtlint.cli import main
    from fxtlint.export._export_tef import write_document
    from fxtlint.reader_suite._canonical import decode_to

    calls: list[int] = []
    monkeypatch.setattr(_native, "tune_allocator", lambda: calls.append(1) or True)
    data = SAMPLE.read_bytes()
    fxtlint.lint_bytes(data)
    write_document(data, io.StringIO())
    decode_to(data, io.StringIO())
    assert calls == []
    assert main(["decode", str(SAMPLE)]) == 0 and calls == [1]
    assert main(["export", str(SAMPLE), "-o", str(tmp_path / "out.json")]) in (0, 1) and calls == [1, 1]


def test_tune_allocator_takes_effect_where_the_walk_is_built():
    """(Run in a child: the thresholds are process-wide.)"""
    code = "from fxtlint.engine import _native; print(_native.tune_allocator())"
    home = str(Path(fxtlint.__file__).parent.parent)
    env = {**os.environ, "PYTHONPATH": home}
    # (cwd: ``-c`` puts the working directory first on sys.path: a checkout there is not the installed fxtlint)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True, cwd=home)
    glibc = os.confstr("CS_GNU_LIBC_VERSION") if hasattr(os, "confstr") else None
    assert run.stdout.split() == [str(bool(_native.nwalk() is not None and glibc))]


def test_the_command_lines_bytes_read_back_as_their_consumers_read_them(tmp_path):
    # a real trace through a child's real stdout (the bytes layer the rows mode writes to)
    # and an export file, on each engine: a JSON parser gets the in-process decoding, and
    # the Trace Event Format's rules hold for the export (the in-process readings made once
    # for both engines)
    from fxtlint.export._export_tef import document
    from fxtlint.reader_suite._canonical import decode
    from tef_validator import validate

    path = CORPUS_REAL / "jane-tracing-richiesams.fxt"
    data = path.read_bytes()
    decoded, events = decode(data).document(), document(data)[0]["traceEvents"]
    # the child imports the fxtlint this test imported (an installed one with its built
    # modules, or the checkout), not the sources of the folder it runs in
    for engine in ("auto", "reference"):
        env = {**os.environ, "FXTLINT_ENGINE": engine, "PYTHONPATH": str(Path(fxtlint.__file__).parent.parent)}
        run = subprocess.run([sys.executable, "-m", "fxtlint", "decode", str(path)], capture_output=True, env=env,
                             cwd=tmp_path, check=False)
        assert run.returncode == 0, (engine, run.stderr)
        assert json.loads(run.stdout.decode("utf-8")) == decoded, engine
        out = tmp_path / f"out-{engine}.json"
        run = subprocess.run([sys.executable, "-m", "fxtlint", "export", str(path), "-o", str(out)],
                             capture_output=True, env=env, cwd=tmp_path, check=False)
        assert run.returncode in (0, 1), (engine, run.stderr)
        exported = json.loads(out.read_text(encoding="utf-8"))
        assert exported["traceEvents"] == events, engine
        if engine == "auto":
            assert validate(exported) == []  # (the other engine's events equal these, and its document's rest)
        else:
            assert exported == json.loads((tmp_path / "out-auto.json").read_text(encoding="utf-8"))
