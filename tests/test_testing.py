"""``fxtlint.testing``: assert_conforms and the fxt_conforms pytest fixture."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import REPO
from fxtlint import build as B
from fxtlint import rules as R
from fxtlint.testing import TraceDoesNotConform, assert_conforms

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"


def test_a_clean_trace_conforms_from_a_path_or_bytes():
    assert assert_conforms(SAMPLE).records == assert_conforms(SAMPLE.read_bytes()).records > 0
    assert assert_conforms(str(SAMPLE)).severity_counts["error"] == 0


def test_failure_lists_diagnostics_in_the_terminal_format():
    with pytest.raises(TraceDoesNotConform) as info:
        assert_conforms(R.get("RB001").bad.build())
    msg = str(info.value)
    assert "does not conform" in msg
    assert "error[RB001] at 0x" in msg  # the terminal renderer's line
    assert "^^" in msg  # and its hex view with the field marked
    assert isinstance(info.value, AssertionError)


def test_warnings_fail_infos_do_not_and_allow_accepts_codes():
    with pytest.raises(AssertionError, match=r"warning\[PR001\]"):
        assert_conforms(R.get("PR001").bad.build())
    assert_conforms(R.get("PR001").bad.build(), allow=("pr001",))
    assert_conforms(R.get("EX001").bad.build())  # EX001 is an info: a note, not a failure


def test_expect_checks_the_events():
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2), B.event("instant", 1000, name="tick"))
    assert_conforms(data, expect=[{"ph": "i", "name": "tick", "ts": 1}])
    with pytest.raises(AssertionError, match="0 missing, 0 extra, 1 differing"):
        assert_conforms(data, expect='[{"ph": "i", "name": "tock"}]')


def test_fixture_in_a_writer_test_suite(tmp_path):
    (tmp_path / "conftest.py").write_text("from fxtlint.testing import fxt_conforms  # noqa: F401\n")
    (tmp_path / "test_writer.py").write_text(textwrap.dedent(f"""
        def test_good(fxt_conforms):
            fxt_conforms({str(SAMPLE)!r})

        def test_bad(fxt_conforms):
            fxt_conforms(bytes(8))
    """))
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert "1 failed, 1 passed" in run.stdout, run.stdout + run.stderr
    assert "error[MG001]" in run.stdout
