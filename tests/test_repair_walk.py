"""``repair`` on the native walk (``rewrite/_repair_walk``) writes exactly what the
record-by-record pass writes (the specification), and says exactly the same changes:
on the golden and real corpora and on drawn traces (mutations, bytes, zeroed stretches,
walks cut into short runs so what a run leaves to the next is exercised)."""

from __future__ import annotations

import io
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine import _stream_buffer
from fxtlint.engine._file import FileChanged
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


@given(archives(min_size=1, max_size=12), st.data(), st.integers(1, 4), st.booleans())
def test_the_fast_path_is_the_record_by_record_pass_with_a_stretch_zeroed(data, draw, window, stop):
    """A zeroed stretch (a lost page): dropped, and what it held (registrations, a
    provider switch) missing after it: placeholders, losses, the same on both paths."""
    words = len(data) // 8
    lo = draw.draw(st.integers(1, max(1, words - 1)))
    hi = draw.draw(st.integers(lo, words))
    broken = data[: 8 * lo] + bytes(8 * (hi - lo)) + data[8 * hi :]
    assert_same(broken, window=window, stop_at_loss=stop)
    assert_same(broken + broken[8:], window=window)  # and a second archive


@given(archives(min_size=1, max_size=10, byte_order="big"), st.data())
def test_the_fast_path_is_the_record_by_record_pass_on_big_endian_archives(data, draw):
    at = 8 * draw.draw(st.integers(1, len(data) // 8))
    assert_same(data[:at] + bytes(8) + data[at:], window=2)


@pytest.mark.parametrize("first", [None, 64])
@pytest.mark.parametrize("chunk", [8, 64, 4096])
def test_a_pipe_read_in_chunks_is_repaired_as_its_bytes(chunk, first, monkeypatch):
    """IN whose length is known only at its end (a pipe), read a chunk at a time: the walk
    stops where the bytes stop and goes on with more, with the record-by-record output
    (``first``: its buffer starts at 64 bytes, not 1 MiB, and so is replaced by a larger
    map again and again under the walk)."""
    if first is not None:
        monkeypatch.setattr(_stream_buffer, "_FIRST", first)
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:40_000]
    broken = data[:16_000] + bytes(64) + data[16_064:] + b"\x01\x02"
    for trace in (data, broken):
        inp = Input(io.BytesIO(trace).readinto, None, "-", chunk=chunk)
        try:
            out, log = _run(inp)
        finally:
            inp.close()
        assert (out, log) == _run(trace, shortcut=False)


def _piece(kind: str, n: int, m: int) -> bytes:
    """One drawn piece of a trace: records the walk reads and records it hands back, reading
    and registering a few strings and threads under a few providers, and zeroed words."""
    name: str | int = "n" if m == 0 else m
    if kind == "event":
        return B.archive(B.event("instant", 10 + n, thread=n % 4, category="c", name=name))
    if kind == "mended":
        return _mended_event(10 + n, n % 4, name)
    if kind == "string":
        return B.archive(B.string(m, f"s{n}"))  # (index 0: RF, kept, registers nothing)
    if kind == "thread":
        return B.archive(B.thread(n % 4, 1, n))
    if kind == "provider":
        return B.archive(B.provider_info(n % 3, f"p{n % 3}") if m % 2 else B.provider_section(n % 3))
    if kind == "rate":
        return B.archive(B.initialization(0 if m % 2 else 1000))
    if kind == "magic":
        return B.archive(B.magic())
    return bytes(8 * (1 + m))  # zeroed words: a stretch dropped


_PIECES = st.lists(st.tuples(st.sampled_from(["event", "event", "event", "mended", "mended", "string", "thread",
                                              "provider", "rate", "magic", "zero"]), st.integers(0, 3),
                             st.integers(0, 2)), min_size=6, max_size=20)


@given(_PIECES, st.integers(1, 4), st.booleans())
def test_the_fast_path_is_the_record_by_record_pass_on_drawn_mixtures(pieces, window, stop):
    """Refs read before and after their registration, by records the walk reads and by
    records it hands back, across providers, tick rates of 0, repeated magic records and
    dropped stretches, the walk cut into runs of a few records."""
    data = B.archive(B.magic()) + b"".join(_piece(*p) for p in pieces)
    assert_same(data, window=window, stop_at_loss=stop)


def test_a_lost_provider_switch_is_said_alike_across_runs():
    """Thread 4 is provider two's; the switch to two is lost: the events after it read
    provider one's thread 4, a placeholder, until a real registration of it."""
    head = B.archive(B.magic(), B.provider_info(1, "one"), B.thread(1, 10, 11), B.provider_info(2, "two"),
                     B.thread(4, 20, 21), B.provider_section(1),
                     B.event("instant", 5, thread=1, category="c", name="n"))
    tail = B.archive(*[B.event("instant", 10 + i, thread=4, category="c", name="n") for i in range(5)],
                     B.thread(4, 7, 8), B.event("instant", 20, thread=4, category="c", name="n"))
    data = head + bytes(8) + tail + _mended_event(21, 4)
    for window in (1, 2, 3, 100):
        out = assert_same(data, window=window)
        log = _run(data)[1]
        assert [c.code for c in log.changes] == ["FR001", "RF002", "RB002"]
        assert "5 record(s) read thread(s) 4" in log.notes[0].detail  # not the one after the real registration
        assert not [d for d in fxtlint.lint_bytes(out).diagnostics if d.severity == fxtlint.Severity.ERROR]


def _mended_event(ts: int, thread: int, name: str | int = "n") -> bytes:
    """An event the walk hands back whole (a reserved bit of its argument, RB002): ``step`` mends it."""
    rec = bytearray(B.archive(B.event("instant", ts, thread=thread, category="c", name=name,
                                      args=(B.arg("uint64", "x", 5),))))
    rec[-24 + 5] |= 1
    return bytes(rec)


@pytest.mark.parametrize("window", [1, 2, 100])
def test_a_placeholder_the_step_wrote_is_not_written_again_for_the_walk(window):
    """Thread 4 and string 9 first read by a record the walk hands back (``step`` writes
    their placeholders), then by records the walk reads: one placeholder each."""
    later = [B.event("instant", 30 + i, thread=4, category="c", name=9) for i in range(3)]
    data = B.archive(B.magic(), B.provider_info(1, "one")) + _mended_event(21, 4, 9) + B.archive(*later)
    assert_same(data, window=window)
    assert [c.code for c in _run(data)[1].changes] == ["RB002", "RF001", "RF002"]


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


def _zeroed_page(data: bytes) -> bytes:
    """``data`` with the 4 KiB page at its middle zeroed (as ``bench/rewrite_bench.py`` breaks a trace)."""
    at = (len(data) // 2) & ~4095
    return data[:at] + bytes(min(4096, len(data) - at)) + data[at + 4096:]


_CORPORA = [p for p in GOLDEN + REAL if p.stat().st_size >= 64]
_SENT: list = []


def _from_file(tmp_path, data: bytes, chunk: int) -> tuple[bytes, _repair.RepairLog]:
    """The repair of ``data`` read from a file in place, OUT written to a file: the records
    kept as they are sent from IN's file to OUT's by the kernel (``out_file``)."""
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(data)
    with open(src, "rb", buffering=0) as fh, open(dst, "wb") as out:
        inp = Input.of_file(fh, str(src), chunk=chunk)
        try:
            log = repair(inp, out.write, out_file=out)
        finally:
            inp.close()
    return dst.read_bytes(), log


@pytest.fixture
def counted_sends(monkeypatch):
    """The bytes each kernel copy of the repair sent."""
    real = _repair_walk.send
    _SENT.clear()

    def counting(out, src, offset, size):
        _SENT.append(size)
        return real(out, src, offset, size)

    monkeypatch.setattr(_repair_walk, "send", counting)
    return _SENT


@pytest.mark.parametrize("path", _CORPORA, ids=lambda p: p.name)
def test_a_file_s_kept_records_are_sent_by_the_kernel_as_the_bytes_repair_writes(tmp_path, path, counted_sends):
    """IN a file and OUT a file: the repair (bytes and change log) of the golden and real
    corpora, whole and with a zeroed page, is the one of IN's bytes in memory (the
    record-by-record pass's: the tests above), its kept records sent from IN's file."""
    data = path.read_bytes()
    for case in (data, _zeroed_page(data)):
        counted_sends.clear()
        got, log = _from_file(tmp_path, case, 4096)
        expected, elog = _run(case)
        assert got == expected
        assert log == elog
        if case is data and not elog.changes and len(data) > 65536:
            assert sum(counted_sends) > 0.9 * len(data)  # nothing to mend: by the kernel but what the pass took


def test_a_file_that_ends_before_its_kept_records_are_sent_is_said_to_have_changed(tmp_path, monkeypatch):
    """The kernel's copy reads IN's file again: a file cut short in between is ``FileChanged``."""
    data = B.archive(B.magic(), *[B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(3000)])
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    real = _repair_walk.send

    def shrinking(out, fd, offset, size):
        os.truncate(src, 8)
        return real(out, fd, offset, size)

    monkeypatch.setattr(_repair_walk, "send", shrinking)
    with open(src, "rb", buffering=0) as fh, open(tmp_path / "out.fxt", "wb") as out:
        inp = Input.of_file(fh, str(src))
        with pytest.raises(FileChanged):
            repair(inp, out.write, out_file=out)
        inp.close()
