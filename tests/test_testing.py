"""``fxtlint.testing``: assert_conforms and the fxt_conforms pytest fixture."""

from __future__ import annotations

import ast
import os
import re
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
    assert "does not conform: 1 problem of RB001\n" in msg  # counted in words, not "problem(s)"
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
    with pytest.raises(AssertionError, match="1 missing, 0 differing") as info:
        assert_conforms(data, expect='[{"ph": "i", "name": "tock"}]')
    assert 'missing: {"ph": "i", "name": "tock"}' in str(info.value)
    with pytest.raises(AssertionError, match=r'ts: expected 2, got 1$'):
        assert_conforms(data, expect='[{"ph": "i", "name": "tick", "ts": 2}]')


def test_expect_is_a_subset_by_default_and_exact_on_request():
    ev = B.event
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2), ev("duration_begin", 100, name="main"),
                     ev("duration_begin", 200, name="frame"), ev("duration_end", 300, name="frame"),
                     ev("duration_end", 400, name="main"))
    expect = [{"ph": "B", "name": "frame"}, {"ph": "E", "name": "frame"}]
    assert_conforms(data, expect=expect)
    with pytest.raises(AssertionError, match="exact match, ts in us: 2 expected, 4 written; 0 missing, 2 extra"):
        assert_conforms(data, expect=expect, expect_mode="exact")


def _readme_expect() -> list:
    """The ``expect=[...]`` of the README's writer test."""
    text = (REPO / "README.md").read_text("utf-8")
    block = re.search(r"assert_conforms\(path, allow=\(\"EX001\",\), expect=(\[.*?\]),?\s*\)", text, re.S).group(1)
    return ast.literal_eval(block)


def test_the_readme_writer_test_passes_for_a_writer_that_writes_more():
    ev = B.event
    writer = B.archive(B.magic(), B.initialization(1_000_000_000), B.string(1, "app"), B.thread(1, 10, 11),
                       ev("duration_begin", 50, name="main"), ev("instant", 60, name="vsync"),
                       ev("duration_begin", 100, name="frame", args=[B.arg("uint64", "big", 1 << 63)]),
                       ev("duration_begin", 110, name="layout"), ev("duration_end", 150, name="layout"),
                       ev("duration_end", 200, name="frame"), ev("duration_end", 300, name="main"))
    expect = _readme_expect()
    assert len(expect) == 2
    assert_conforms(writer, allow=("EX001",), expect=expect)
    late = writer.replace(B.archive(B.event("duration_end", 200, name="frame")),
                          B.archive(B.event("duration_end", 250, name="frame")))
    with pytest.raises(AssertionError, match=re.escape("ts: expected 0.2, got 0.25")):
        assert_conforms(late, allow=("EX001",), expect=expect)


def test_a_failure_shows_the_findings_not_fxtlint_frames(tmp_path):
    """``__tracebackhide__``: a writer's failing test shows its own line and the findings."""
    bad = tmp_path / "bad.fxt"
    bad.write_bytes(R.get("RB001").bad.build())
    (tmp_path / "test_writer.py").write_text(textwrap.dedent(f"""
        from fxtlint.testing import assert_conforms

        def test_writer_output():
            assert_conforms({str(bad)!r})

        def test_twin():
            assert_conforms({str(SAMPLE)!r})
    """))
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
                         check=False, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    out = run.stdout
    assert "1 failed, 1 passed" in out, out + run.stderr
    assert "error[RB001] at 0x" in out and f"assert_conforms({str(bad)!r})" in out
    assert "fxtlint/testing.py" not in out and "def assert_conforms" not in out
    assert "raise TraceDoesNotConform" not in out


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
    assert "error[MG005]" in run.stdout  # eight zero bytes are not an FXT file


# issue 25, item 5: allow= and buffering_mode= as the command line takes them
def test_allow_as_one_string_is_one_selector():
    assert_conforms(R.get("PR001").bad.build(), allow="PR001")
    with pytest.raises(TraceDoesNotConform) as info:
        assert_conforms(R.get("RB001").bad.build(), allow="PR001,EX")
    assert "(allowed: PR001, EX)" in str(info.value)  # as given, not "0, 1, P, R"


def test_allow_takes_families_and_prefixes_as_ignore_does():
    assert_conforms(R.get("PR001").bad.build(), allow=("PR",))
    assert_conforms(R.get("PR001").bad.build(), allow=("pr00",))
    with pytest.raises(TraceDoesNotConform):
        assert_conforms(R.get("PR001").bad.build(), allow=("RB",))  # the twin: another family


@pytest.mark.parametrize("allow, message", [
    (("XX999",), "unknown rule code 'XX999' in allow (see `fxtlint rules`)"),
    ("PR001,NOPE", "unknown rule code 'NOPE' in allow (see `fxtlint rules`)"),
    (("PR009",), "rule code PR009 in allow was removed: use EV001 (counter-argument-not-numeric)"),
])
def test_allow_naming_no_rule_is_a_usage_error(allow, message):
    with pytest.raises(ValueError) as info:
        assert_conforms(SAMPLE, allow=allow)
    assert str(info.value) == message and not isinstance(info.value, AssertionError)


def test_buffering_mode_as_the_command_line_takes_it():
    circular_start = B.archive(B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2),
                               B.event("duration_end", 10, category=1, name=2))
    with pytest.raises(TraceDoesNotConform, match=r"PR001"):
        assert_conforms(circular_start)
    assert_conforms(circular_start, buffering_mode="circular")
    with pytest.raises(ValueError, match="buffering_mode must be one of"):
        assert_conforms(circular_start, buffering_mode="ring")
