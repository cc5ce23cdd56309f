"""``repair`` on the native walk (``rewrite/_repair_walk``) writes exactly what the
record-by-record pass writes (the specification), and says exactly the same changes:
on the golden and real corpora and on drawn traces (mutations, bytes, zeroed stretches,
walks cut into short runs so what a run leaves to the next is exercised)."""

from __future__ import annotations

import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.rewrite import _repair, _repair_walk
from fxtlint.rewrite._input import Input
from fxtlint.rewrite._repair import repair
from fxtlint.strategies import archives, mutated_archives

pytestmark = pytest.mark.skipif(_repair.native_walk() is None, reason="the native walk is not built here")

GOLDEN = sorted((REPO / "corpus" / "golden").glob("*.fxt"))
REAL = sorted(CORPUS_REAL.glob("*.fxt"))
SMALL_REAL = [p for p in REAL if p.stat().st_size < 100_000]
LARGE_REAL = [p for p in REAL if p.stat().st_size >= 100_000]


def _run(data: bytes, **options):
    out: list = []
    log = repair(data, out.append, **options)
    return b"".join(out), log


def assert_same(data: bytes, window: int | None = None, **options) -> bytes:
    """The fast path's output and change log are the record-by-record pass's."""
    saved = _repair_walk.WINDOW
    if window is not None:
        _repair_walk.WINDOW = window
    try:
        fast, flog = _run(data, **options)
    finally:
        _repair_walk.WINDOW = saved
    slow, slog = _run(data, shortcut=False, **options)
    assert fast == slow
    assert flog == slog
    return fast


@pytest.mark.parametrize("path", GOLDEN + SMALL_REAL, ids=lambda p: p.name)
def test_the_fast_path_is_the_record_by_record_pass_on_the_corpora(path):
    data = path.read_bytes()
    assert_same(data)
    assert_same(data, window=2)


@pytest.mark.slow
@pytest.mark.parametrize("path", LARGE_REAL, ids=lambda p: p.name)
def test_the_fast_path_is_the_record_by_record_pass_on_the_large_real_traces(path):
    assert_same(path.read_bytes())


@given(mutated_archives(codes=DRAWN_MUTATIONS), st.integers(1, 5))
def test_the_fast_path_is_the_record_by_record_pass_on_mutations(case, window):
    assert_same(case[0], window=window)


@given(st.binary(max_size=300))
def test_the_fast_path_is_the_record_by_record_pass_on_any_bytes(data):
    assert_same(B.archive(B.magic()) + data)


@given(archives(min_size=1), st.data(), st.integers(1, 4), st.booleans())
def test_the_fast_path_is_the_record_by_record_pass_with_a_stretch_zeroed(data, draw, window, stop):
    """A zeroed stretch (a lost page): dropped, and what it held (registrations, a
    provider switch) missing after it: placeholders, losses, the same on both paths."""
    words = len(data) // 8
    lo = draw.draw(st.integers(1, max(1, words - 1)))
    hi = draw.draw(st.integers(lo, words))
    broken = data[: 8 * lo] + bytes(8 * (hi - lo)) + data[8 * hi :]
    assert_same(broken, window=window, stop_at_loss=stop)
    assert_same(broken + broken[8:], window=window)  # and a second archive


@given(archives(min_size=1, byte_order="big"), st.data())
def test_the_fast_path_is_the_record_by_record_pass_on_big_endian_archives(data, draw):
    at = 8 * draw.draw(st.integers(1, len(data) // 8))
    assert_same(data[:at] + bytes(8) + data[at:], window=2)


@pytest.mark.parametrize("chunk", [8, 64, 4096])
def test_a_pipe_read_in_chunks_is_repaired_as_its_bytes(chunk):
    """IN whose length is known only at its end (a pipe), read a chunk at a time: the walk
    stops where the bytes stop and goes on with more, with the record-by-record output."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:40_000]
    broken = data[:16_000] + bytes(64) + data[16_064:] + b"\x01\x02"
    for trace in (data, broken):
        inp = Input(io.BytesIO(trace).readinto, None, "-", chunk=chunk)
        try:
            out, log = _run(inp)
        finally:
            inp.close()
        assert (out, log) == _run(trace, shortcut=False)


def test_a_lost_provider_switch_is_said_alike_across_runs():
    """Thread 4 is provider two's; the switch to two is lost: the events after it read
    provider one's thread 4, a placeholder, until a real registration of it."""
    head = B.archive(B.magic(), B.provider_info(1, "one"), B.thread(1, 10, 11), B.provider_info(2, "two"),
                     B.thread(4, 20, 21), B.provider_section(1),
                     B.event("instant", 5, thread=1, category="c", name="n"))
    tail = B.archive(*[B.event("instant", 10 + i, thread=4, category="c", name="n") for i in range(5)],
                     B.thread(4, 7, 8), B.event("instant", 20, thread=4, category="c", name="n"))
    mended = bytearray(B.archive(B.event("instant", 21, thread=4, category="c", name="n",
                                         args=(B.arg("uint64", "x", 5),))))
    mended[-24 + 5] |= 1  # a reserved bit of its argument (RB002): the record-by-record pass mends it
    data = head + bytes(8) + tail + bytes(mended)
    for window in (1, 2, 3, 100):
        out = assert_same(data, window=window)
        log = _run(data)[1]
        assert [c.code for c in log.changes] == ["FR001", "RF002", "RB002"]
        assert "5 record(s) read thread(s) 4" in log.notes[0].detail  # not the one after the real registration
        assert not [d for d in fxtlint.lint_bytes(out).diagnostics if d.severity == fxtlint.Severity.ERROR]


def test_a_clean_trace_takes_no_record_by_record_step(monkeypatch):
    data = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes()

    def refuse(*a, **k):
        raise AssertionError("a clean record went the record-by-record way")

    monkeypatch.setattr(_repair._Repairer, "step", refuse)
    out, log = _run(data)
    assert out == data and log.changes == [] and log.records_in == log.records_out > 0


def test_without_the_native_walk_repair_goes_record_by_record(monkeypatch):
    data = (REPO / "corpus" / "golden").glob("RF001-*.fxt").__next__().read_bytes()
    expected = _run(data, shortcut=False)
    monkeypatch.setattr(_repair, "native_walk", lambda: None)
    assert _run(data) == expected
