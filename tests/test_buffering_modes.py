"""Buffering modes: what a full buffer did changes what a correct trace looks like.

Each case (a circular trace's start, a full oneshot buffer, a streaming trace's
buffer-full events) is linted with ``buffering_mode`` and its twin without it; both
engines and the stream say the same.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.rules._ex import preamble

ENGINES = ("reference", "fast")


def codes(data: bytes, mode=None, engine="reference") -> Counter:
    report = fxtlint.lint_bytes(data, buffering_mode=mode, engine=engine)
    return Counter(d.code for d in report.diagnostics)


def same_everywhere(data: bytes, mode) -> Counter:
    """The codes, after checking both engines and a byte-by-byte stream agree."""
    whole = fxtlint.lint_bytes(data, buffering_mode=mode, engine="reference")
    assert fxtlint.lint_bytes(data, buffering_mode=mode, engine="fast").to_json() == whole.to_json()
    lint = fxtlint.StreamLinter(buffering_mode=mode, step=1, path="<bytes>")
    for i in range(len(data)):
        lint.feed(data[i:i + 1])
    lint.close()
    assert lint.report.to_json() == whole.to_json()
    return Counter(d.code for d in whole.diagnostics)


def dur(kind, ts, thread=1, name=2):
    return B.event(kind, ts, category=1, name=name, thread=thread)


# a circular trace: thread 1's first records are ends whose begins were overwritten, an
# async end and a flow end likewise; then well-paired work
CIRCULAR = preamble(
    B.thread(2, 10, 12),
    dur("duration_end", 5), dur("duration_end", 6),
    B.event("async_end", 7, category=1, name=2, id=9),
    dur("duration_begin", 8, thread=2), B.event("flow_end", 9, category=1, name=2, thread=2, id=4),
    dur("duration_end", 10, thread=2),
    dur("duration_begin", 11), dur("duration_end", 12),
)
# ... and an end without a begin after the first begin of its thread: a real finding
CIRCULAR_THEN_LOST = CIRCULAR + B.archive(dur("duration_end", 13))


def test_circular_start_is_not_reported():
    assert same_everywhere(CIRCULAR, "circular") == Counter()


def test_circular_start_twin_without_the_option():
    got = same_everywhere(CIRCULAR, None)
    assert got == Counter({"PR001": 2, "PR005": 1, "PR007": 1})
    pr001 = [d for d in fxtlint.lint_bytes(CIRCULAR).diagnostics if d.code == "PR001"]
    assert all(d.details["before_first_begin"] for d in pr001)
    assert all("--buffering-mode circular" in d.message for d in pr001)


def test_circular_still_reports_an_end_after_the_first_begin():
    got = same_everywhere(CIRCULAR_THEN_LOST, "circular")
    assert got == Counter({"PR001": 1})
    (d,) = fxtlint.lint_bytes(CIRCULAR_THEN_LOST, buffering_mode="circular").diagnostics
    assert d.details["before_first_begin"] is False and "buffering-mode" not in d.message


def test_pr001_names_the_option_only_for_the_circular_pattern():
    late = preamble(dur("duration_begin", 5), dur("duration_end", 6), dur("duration_end", 7))
    (d,) = fxtlint.lint_bytes(late).diagnostics
    assert d.code == "PR001" and "buffering-mode" not in d.message
    (d,) = fxtlint.lint_bytes(preamble(dur("duration_end", 7)), buffering_mode="oneshot").diagnostics
    assert "buffering-mode" not in d.message  # a mode was given: no advice


# a oneshot trace whose buffer filled: begins open at the buffer-full record were never
# ended; a begin after it (another provider's, say) is still a finding
ONESHOT_FULL = preamble(
    dur("duration_begin", 5), dur("duration_begin", 6, name=1),
    B.event("async_begin", 7, category=1, name=2, id=3),
    B.provider_event(1, 0),
    dur("duration_begin", 8, thread=1, name=2),
)


def test_full_oneshot_buffer():
    got = same_everywhere(ONESHOT_FULL, "oneshot")
    assert got == Counter({"EV003": 1, "PR004": 1})
    (d,) = [d for d in fxtlint.lint_bytes(ONESHOT_FULL, buffering_mode="oneshot").diagnostics if d.code == "PR004"]
    last = fxtlint.read_records(ONESHOT_FULL)[0][-1]
    assert d.record_index == last.index  # the begin after the buffer-full record


def test_full_oneshot_buffer_twin_without_the_option():
    assert same_everywhere(ONESHOT_FULL, None) == Counter({"EV003": 1, "PR004": 4})


@pytest.mark.parametrize("mode", ["circular", "streaming"])
def test_open_at_buffer_full_is_not_pr004_in_any_mode(mode):
    assert codes(ONESHOT_FULL, mode)["PR004"] == 1


# a streaming trace: the provider handed over full rolling buffers twice
STREAMING = preamble(
    dur("duration_begin", 5), dur("duration_end", 6), B.provider_event(1, 0),
    dur("duration_begin", 7), dur("duration_end", 8), B.provider_event(1, 0),
)


def test_streaming_buffer_full_events_are_the_protocol():
    assert same_everywhere(STREAMING, "streaming") == Counter()
    report = fxtlint.lint_bytes(STREAMING, buffering_mode="streaming")
    assert len(report.summary["buffer_full_at"]) == 2  # still said in the summary


def test_streaming_buffer_full_events_twin_without_the_option():
    assert same_everywhere(STREAMING, None) == Counter({"EV003": 2})


def test_unknown_mode_is_refused():
    with pytest.raises(ValueError):
        fxtlint.lint_bytes(STREAMING, buffering_mode="rolling")


def _check(argv, capsys) -> tuple[int, dict]:
    status = main(["check", "--isolated", "--output-format", "json", *argv])
    return status, json.loads(capsys.readouterr().out)


def test_cli_option(tmp_path, capsys):
    path = tmp_path / "circular.fxt"
    path.write_bytes(CIRCULAR)
    status, out = _check([str(path)], capsys)
    assert out["files"][0]["counts"] == {"PR001": 2, "PR005": 1, "PR007": 1}
    status, out = _check(["--buffering-mode", "circular", str(path)], capsys)
    assert out["files"][0]["counts"] == {} and status == 0


def test_pyproject_key(tmp_path, capsys, monkeypatch):
    (tmp_path / "streaming.fxt").write_bytes(STREAMING)
    (tmp_path / "pyproject.toml").write_text('[tool.fxtlint]\nbuffering-mode = "streaming"\n')
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--output-format", "json", "streaming.fxt"]) == 0
    assert json.loads(capsys.readouterr().out)["files"][0]["counts"] == {}
    # the option wins over the file
    main(["check", "--output-format", "json", "--buffering-mode", "oneshot", "streaming.fxt"])
    assert json.loads(capsys.readouterr().out)["files"][0]["counts"] == {"EV003": 2}
    (tmp_path / "pyproject.toml").write_text('[tool.fxtlint]\nbuffering-mode = "rolling"\n')
    assert main(["check", "streaming.fxt"]) == 2
    assert "buffering-mode must be one of" in capsys.readouterr().err


def test_cli_option_reaches_the_stream_and_the_workers(tmp_path, capsys, monkeypatch):
    import io

    for i in range(2):
        (tmp_path / f"s{i}.fxt").write_bytes(STREAMING)
    status, out = _check(["-j", "2", "--buffering-mode", "streaming", str(tmp_path)], capsys)
    assert [f["counts"] for f in out["files"]] == [{}, {}] and status == 0
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(STREAMING)))
    status, out = _check(["--buffering-mode", "streaming", "-"], capsys)
    assert out["files"][0]["counts"] == {} and status == 0
