"""``slice`` on the native walk (``rewrite/_slice_walk``) writes exactly the pieces the
record-by-record pass writes (the specification), with the same log: on the golden and
real corpora and on drawn traces (archives in both byte orders, mutations, any bytes,
mixtures of what the walk reads and what it hands back), by size, by time and by a time
range (before, inside, after and across the trace, and empty), the walk cut into short
runs so what a run leaves to the next is exercised; and the walk's time range of a trace
is the record-by-record one."""

from __future__ import annotations

import functools
import io
import os
import tempfile
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine import _stream_buffer
from fxtlint.engine._file import FileChanged
from fxtlint.reader_suite._canonical import decode
from fxtlint.rewrite import _repair, _slice, _slice_pass, _slice_walk
from fxtlint.rewrite._input import Input
from fxtlint.rewrite._open import MARK_NAME, OpenEvents
from fxtlint.rewrite._slice import Cutter, slice_trace, time_range, time_range_by_records
from fxtlint.strategies import archives, mutated_archives, record_lists
from test_slice import events

pytestmark = pytest.mark.skipif(_repair.native_walk() is None, reason="the native walk is not built here")

# PR012's case nests 65,537 durations: cut into pieces, each begins them all again
GOLDEN = [p for p in sorted((REPO / "corpus" / "golden").glob("*.fxt")) if not p.name.startswith("PR012")]
REAL = sorted(CORPUS_REAL.glob("*.fxt"))
SMALL_REAL = [p for p in REAL if p.stat().st_size < 100_000]
LARGE_REAL = [p for p in REAL if p.stat().st_size >= 100_000]


class _Kept(io.BytesIO):
    def close(self) -> None:  # the slicer closes what it writes: keep the bytes readable
        pass


def _run(data, cutter: Cutter, shortcut: bool):
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    log = slice_trace(data, open_out, cutter, shortcut=shortcut)
    return [outs[i].getvalue() for i in sorted(outs)], log


def assert_same(data: bytes, make, window: int | None = None) -> list[bytes]:
    """The walk's pieces and log are the record-by-record pass's (``make``: a new cutter)."""
    saved = _slice_walk.WINDOW
    if window is not None:
        _slice_walk.WINDOW = window
    try:
        fast = _run(data, make(), True)
    finally:
        _slice_walk.WINDOW = saved
    cutter = make()
    slow = _run(data, cutter, False)
    assert fast[0] == slow[0]
    assert fast[1] == slow[1]
    if cutter.size is not None:  # each piece's file within the size, but for a record alone
        assert all(len(part) <= cutter.size
                   for part, info in zip(slow[0], slow[1].pieces, strict=True) if info.records > 1)
    return fast[0]


def _cutters(data: bytes) -> list:
    """A size and a time cut, each fine and coarse, and a time range, for ``data``."""
    span = time_range(data)
    length = (span.end - span.start) if span else Fraction(1, 1000)
    out = [lambda: Cutter(size=max(64, len(data) // 8)), lambda: Cutter(size=max(16, len(data) // 64)),
           lambda: Cutter(span=max(Fraction(1, 10**9), length / 8)),
           lambda: Cutter(span=max(Fraction(1, 10**9), length / 50))]
    if span is not None:
        out.append(lambda: Cutter(start=span.start + length / 3, end=span.start + 2 * length / 3))
    return out


@pytest.mark.parametrize("path", GOLDEN + SMALL_REAL, ids=lambda p: p.name)
def test_the_walk_writes_the_record_by_record_pieces_on_the_corpora(path):
    data = path.read_bytes()
    fine_size, _, _, fine_time, *ranged = _cutters(data)
    assert_same(data, fine_size, window=3)
    assert_same(data, fine_time)
    assert_same(data + data[8:] + data, lambda: Cutter(archives=True))
    for make in ranged:
        assert_same(data, make)


@pytest.mark.slow
@pytest.mark.parametrize("path", LARGE_REAL, ids=lambda p: p.name)
def test_the_walk_writes_the_record_by_record_pieces_on_the_large_real_traces(path):
    """A coarse size cut, and a range across the trace's start (jane-tracing-richiesams.fxt's
    instants go back: each path notices it and cuts the trace a second time with the one
    time-order slicer, record by record, 8 to 10 s a cut here; the fine time cut, the
    middle third and an empty range were three more such cuts, 25 s of the slow run: the
    corpora's cuts and the drawn archives' are those)."""
    data = path.read_bytes()
    coarse_size = _cutters(data)[0]
    assert_same(data, coarse_size)
    assert_same(data, ranged(data, (-1, 1)))


_SIZES = st.integers(8, 600).map(lambda n: (lambda: Cutter(size=n)))
_SPANS = st.integers(1, 60).map(lambda n: (lambda: Cutter(span=Fraction(n, 10**6))))
# a time range in eighths of the trace's length from its start (None: no such end; from -4
# to 12: before, inside, after and across the trace, and empty where --from is after --to)
_EIGHTHS = st.one_of(st.none(), st.integers(-4, 12))
_RANGES = st.tuples(_EIGHTHS, st.integers(-4, 12), st.booleans()).map(
    lambda t: (t[0], t[1]) if t[2] else (t[1], t[0]))


def ranged(data: bytes, eighths: tuple, read=time_range_by_records):
    """A cutter for the time range ``eighths`` of ``data``'s (a trace without timestamps:
    microseconds), as ``read`` reads it."""
    span = read(data)
    start, length = (span.start, span.end - span.start) if span is not None else (Fraction(0), Fraction(8, 10**6))
    lo, hi = (None if e is None else start + length * e / 8 for e in eighths)
    return lambda: Cutter(start=lo, end=hi)


@settings(max_examples=15)
@given(archives(), st.one_of(_SIZES, _SPANS), st.integers(1, 5))
def test_the_walk_writes_the_record_by_record_pieces_of_archives(data, make, window):
    assert_same(data, make, window=window)


@settings(max_examples=15)
@given(st.lists(archives(min_size=0, max_size=8), min_size=1, max_size=4), st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_pieces_of_concatenated_archives(parts, window):
    """--split-archives: a piece per archive, each read by a new reader (the walk's tables
    made anew at each magic record after the first)."""
    assert_same(b"".join(parts), lambda: Cutter(archives=True), window=window)


@settings(max_examples=10)
@given(archives(min_size=1, max_size=12, byte_order="big"), st.one_of(_SIZES, _SPANS))
def test_the_walk_writes_the_record_by_record_pieces_of_big_endian_archives(data, make):
    assert_same(data, make, window=2)


@settings(max_examples=12)
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.one_of(_SIZES, _SPANS), st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_pieces_of_mutations(case, make, window):
    assert_same(case[0], make, window=window)


@settings(max_examples=25)
@given(st.binary(max_size=300), st.one_of(_SIZES, _SPANS))
def test_the_walk_writes_the_record_by_record_pieces_of_any_bytes(data, make):
    assert_same(B.archive(B.magic()) + data, make, window=2)


@settings(max_examples=10)
@given(archives(), _RANGES, st.integers(1, 5))
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_archives(data, eighths, window):
    assert_same(data, ranged(data, eighths), window=window)


@settings(max_examples=10)
@given(archives(min_size=1, max_size=12, byte_order="big"), _RANGES)
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_big_endian_archives(data, eighths):
    assert_same(data, ranged(data, eighths), window=2)


@settings(max_examples=12)
@given(mutated_archives(codes=DRAWN_MUTATIONS), _RANGES, st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_mutations(case, eighths, window):
    assert_same(case[0], ranged(case[0], eighths), window=window)


@settings(max_examples=10)
@given(st.lists(archives(min_size=0, max_size=8), min_size=2, max_size=4), _RANGES, st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_concatenated_archives(parts, eighths, window):
    """One reader over archives one after the other: each archive's records read under
    the tables the ones before left, their times going back at each archive."""
    data = b"".join(parts)
    assert_same(data, ranged(data, eighths), window=window)


@settings(max_examples=15)
@given(st.binary(max_size=300), _RANGES)
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_any_bytes(data, eighths):
    data = B.archive(B.magic()) + data
    assert_same(data, ranged(data, eighths), window=2)


@pytest.mark.parametrize("path", GOLDEN + SMALL_REAL, ids=lambda p: p.name)
def test_the_walk_writes_the_record_by_record_piece_of_ranges_of_the_corpora(path):
    """Before the trace, its start, its middle, its end, after it, across it whole, one
    instant, an empty range (--from after --to), and a range open at either end."""
    data = path.read_bytes()
    for eighths in ((-4, -1), (-1, 1), (2, 6), (7, 9), (9, 12), (-1, 9), (4, 4), (5, 3), (None, 3), (5, None)):
        assert_same(data, ranged(data, eighths), window=5 if eighths == (2, 6) else None)


@pytest.mark.parametrize("path", GOLDEN + SMALL_REAL + [pytest.param(p, marks=pytest.mark.slow) for p in LARGE_REAL],
                         ids=lambda p: p.name)
def test_the_walk_reads_the_record_by_record_time_range_of_the_corpora(path):
    data = path.read_bytes()
    assert time_range(data) == time_range_by_records(data)


@settings(max_examples=20)
@given(st.one_of(archives(), archives(min_size=1, max_size=12, byte_order="big"),
                 mutated_archives(codes=DRAWN_MUTATIONS).map(lambda case: case[0]),
                 st.lists(archives(min_size=0, max_size=6), min_size=2, max_size=3).map(b"".join),
                 st.binary(max_size=200).map(lambda b: B.archive(B.magic()) + b)))
def test_the_walk_reads_the_record_by_record_time_range_of_drawn_traces(data):
    """Across providers and tick rates (the rates the timestamps were read at too), both
    byte orders, mutations, archives one after the other, any bytes."""
    assert time_range(data) == time_range_by_records(data)
    assert time_range(data, shortcut=False) == time_range_by_records(data)


def _part(kind: str, n: int, m: int) -> bytes:
    """One drawn part of a trace: records the walk reads and records it hands back (kernel
    objects, tick rates, magic records, a record with a reserved bit set), reading and
    registering strings and threads under a few providers, open and closed events."""
    name: str | int = "n" if m == 0 else m
    if kind == "event":
        return B.archive(B.event("instant", 10 + n, thread=n % 4, category="c", name=name))
    if kind == "begin":
        return B.archive(B.event("duration_begin", 10 + n, thread=1 + n % 2, category="c", name=name))
    if kind == "end":
        return B.archive(B.event("duration_end", 10 + n, thread=1 + n % 2, category="c", name=name))
    if kind == "async":
        return B.archive(B.event("async_begin" if m % 2 else "async_end", 10 + n, thread=1, category="c",
                                 name="a", id=n % 2))
    if kind == "flow":
        return B.archive(B.event("flow_begin" if m % 2 else "flow_end", 10 + n, thread=1, category="c",
                                 name="f", id=n % 2))
    if kind == "flagged":
        rec = bytearray(B.archive(B.event("instant", 10 + n, thread=n % 4, category="c", name=name,
                                          args=(B.arg("uint64", "x", 5),))))
        rec[-24 + 5] |= 1  # a reserved bit of its argument: the walk hands it back
        return bytes(rec)
    if kind == "string":
        return B.archive(B.string(m, f"s{n}"))
    if kind == "thread":
        return B.archive(B.thread(n % 4, 1, n))
    if kind == "provider":
        return B.archive(B.provider_info(n % 3, f"p{n % 3}") if m % 2 else B.provider_section(n % 3))
    if kind == "rate":
        return B.archive(B.initialization(1000 * (1 + m)))
    if kind == "kernel":
        return B.archive(B.kernel_object(n, 1 + m % 2, f"k{n}"))
    return B.archive(B.magic())


_PARTS = st.lists(st.tuples(st.sampled_from(["event", "event", "begin", "end", "async", "flow", "flagged", "string",
                                             "thread", "provider", "rate", "kernel", "magic"]),
                            st.integers(0, 3), st.integers(0, 2)), min_size=6, max_size=24)


@settings(max_examples=40)
@given(_PARTS, st.one_of(_SIZES.map(lambda f: f), st.integers(1, 40).map(lambda n: (lambda: Cutter(
    span=Fraction(n, 10**9))))), st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_pieces_of_drawn_mixtures(parts, make, window):
    """Refs read before and after their registration in a piece, by records the walk reads
    and by records it hands back, across providers and tick rates; durations, async
    operations and flows begun and ended on either side of a cut (and ended before begun)."""
    data = B.archive(B.magic(), B.string(1, "c")) + b"".join(_part(*p) for p in parts)
    assert_same(data, make, window=window)


@settings(max_examples=40)
@given(_PARTS, _RANGES, st.integers(1, 4))
def test_the_walk_writes_the_record_by_record_piece_of_a_range_of_drawn_mixtures(parts, eighths, window):
    """A time range over records the walk reads and records it hands back, across
    providers and tick rates, time going back: records crossing into and out of the range
    (and back), reader state set outside it while the piece is open, durations, async
    operations and flows begun before the range and ended in it or after it (or ended
    before begun), what is open at its start met after its first record."""
    data = B.archive(B.magic(), B.string(1, "c")) + b"".join(_part(*p) for p in parts)
    assert_same(data, ranged(data, eighths), window=window)
    assert time_range(data) == time_range_by_records(data)


@pytest.mark.parametrize("first", [None, 64])
@pytest.mark.parametrize("chunk", [8, 4096])
def test_a_pipe_read_in_chunks_is_sliced_as_its_bytes(chunk, first, monkeypatch):
    """IN whose length is known only at its end, read a chunk at a time: the walk stops
    where the bytes stop and goes on with more, with the record-by-record pieces
    (``first``: its buffer starts at 64 bytes, not 1 MiB, and so is replaced by a larger map
    again and again under the walk)."""
    if first is not None:
        monkeypatch.setattr(_stream_buffer, "_FIRST", first)
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:40_000]
    inp = Input(io.BytesIO(data).readinto, None, "-", chunk=chunk)
    try:
        fast = _run(inp, Cutter(size=7000), True)
    finally:
        inp.close()
    assert fast == _run(data, Cutter(size=7000), False)


@pytest.mark.parametrize("first", [None, 64])
@pytest.mark.parametrize("chunk", [8, 4096])
def test_a_pipe_read_in_chunks_is_sliced_by_a_range_as_its_bytes(chunk, first, monkeypatch):
    if first is not None:
        monkeypatch.setattr(_stream_buffer, "_FIRST", first)
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:40_000]
    make = ranged(data, (2, 6))
    inp = Input(io.BytesIO(data).readinto, None, "-", chunk=chunk)
    try:
        fast = _run(inp, make(), True)
    finally:
        inp.close()
    assert fast == _run(data, make(), False)
    assert fast[0] and fast[1].skipped > 100


def _walked(data, cutter: Cutter):
    """The walk's own run (``slice_trace`` cuts a trace whose instants go back again, in
    time order: ``_order``), its pieces and log."""
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    log = _slice_walk.WalkSlicer(data, open_out, cutter, io.BytesIO, _repair.native_walk()).run()
    return [outs[i].getvalue() for i in sorted(outs)], log


def _count_the_pass(monkeypatch) -> list:
    """The kinds of the records the reference pass is handed, in order (filled as it runs)."""
    taken: list = []
    real = _slice_pass._Slicer._one

    def counting(self, rec):
        taken.append(rec.kind)
        return real(self, rec)

    monkeypatch.setattr(_slice_pass._Slicer, "_one", counting)
    return taken


def test_a_clean_trace_takes_few_records_by_the_reference_pass(monkeypatch):
    """The walk hands back only what decides something: here the first record, the cuts
    and the kernel objects, not the events between."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    taken = _count_the_pass(monkeypatch)
    parts, log = _walked(data, Cutter(size=100_000))
    assert len(parts) == 11 and log.records_in > 30_000
    assert len(taken) < 200 and taken.count("event.duration_begin") + taken.count("event.duration_end") <= 12


@pytest.mark.parametrize("eighths", [(2, 6), (-4, -1), (9, 12), (None, 1)])
def test_a_range_of_a_clean_trace_takes_few_records_by_the_reference_pass(monkeypatch, eighths):
    """A time range: the walk copies what is inside and leaves out what is before and
    after without the pass; it hands back the records crossing into and out of the range
    and what sets reader state outside it once the piece is open (the piece keeps it:
    here the strings registered after the range), not the events on either side."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    make = ranged(data, eighths, time_range)  # (the walk's: the same, tested above; the pass's takes a second)
    taken = _count_the_pass(monkeypatch)
    parts, log = _walked(data, make())
    assert log.records_in > 30_000 and len(parts) == (eighths[0] is None or 0 <= eighths[0] <= 8)
    assert sum(kind.startswith("event.") for kind in taken) < 40 and len(taken) - taken.count("string") < 40


def test_without_the_native_walk_slice_goes_record_by_record(monkeypatch):
    data = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes()
    expected = _run(data, Cutter(size=100), False)
    monkeypatch.setattr(_slice, "native_walk", lambda: None)
    monkeypatch.setattr(_slice, "WalkSlicer", None)  # (called, it would raise)
    assert _run(data, Cutter(size=100), True) == expected


def _slice_file(src, tmp_path, make, to_files: bool):
    """The pieces of the file ``src`` read in place (into files, or writers with no file)."""
    outs: dict = {}

    def open_out(i: int):
        # (the slicer closes what it writes)
        outs[i] = open(tmp_path / f"p{i}.fxt", "w+b") if to_files else _Kept()  # noqa: SIM115
        return outs[i]

    scratch = (lambda: tempfile.TemporaryFile(dir=tmp_path)) if to_files else io.BytesIO  # noqa: SIM115
    with open(src, "rb") as fh:
        inp = Input.of_file(fh, str(src))
        try:
            log = slice_trace(inp, open_out, make(), scratch=scratch)
        finally:
            inp.close()
    return [(tmp_path / f"p{i}.fxt").read_bytes() if to_files else outs[i].getvalue() for i in sorted(outs)], log


@pytest.mark.parametrize("segments", [3, 1 << 16])
@pytest.mark.parametrize("to_files", [False, True])
def test_a_file_s_pieces_are_sent_from_it_as_the_record_by_record_pieces(tmp_path, monkeypatch, segments, to_files):
    """IN a regular file: the walk's records are sent again from it when a piece is written
    (not through the scratch), into files (the kernel's copy) or any writer; a body of more
    byte ranges than ``SEGMENTS`` is spilled to a scratch first. The same pieces."""
    monkeypatch.setattr(_slice_walk, "SEGMENTS", segments)
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:200_000]
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    makes = [(lambda: Cutter(size=30_000), 3), (lambda: Cutter(span=Fraction(1, 10**5)), 3)]
    if segments == 3:  # (a time range: its byte ranges, and those it leaves out, once)
        makes.append((ranged(data, (1, 5), time_range), 1))
    for make, least in makes:
        got, log = _slice_file(src, tmp_path, make, to_files)
        assert (got, log) == _run(data, make(), False)
        assert len(got) >= least


def test_a_file_cut_short_after_it_was_read_is_said_changed(tmp_path, monkeypatch):
    """The walk's records are sent again from IN when their piece is written: a file cut
    short in between is ``FileChanged`` (exit 2 on the command line), never a short piece."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()[:200_000]
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    real = _slice_walk._Body.write_to

    def truncating(self, out):
        os.truncate(src, 1000)
        return real(self, out)

    monkeypatch.setattr(_slice_walk._Body, "write_to", truncating)
    with pytest.raises(FileChanged):
        _slice_file(src, tmp_path, lambda: Cutter(size=30_000), True)


def test_the_fuzz_invariant_catches_a_walk_that_writes_other_pieces(monkeypatch):
    """fuzz/fuzz_slice.py's check holds both passes to the same pieces."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness

    mod = load_harness("slice")
    data = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes() + b"\x01\x00"  # (by size: 8 bytes a piece)
    mod.check(data)
    real = mod.slice_trace

    def other(buf, open_out, cutter, *, shortcut=True, **kw):
        if not shortcut:
            return real(buf, open_out, cutter, shortcut=False, **kw)
        return real(buf, lambda i: open_out(i) if i == 1 else _Kept(), cutter, **kw)

    monkeypatch.setattr(mod, "slice_trace", other)
    with pytest.raises(AssertionError, match="record-by-record"):
        mod.check(data)


def test_the_fuzz_invariant_draws_ranges_and_catches_a_walk_that_writes_another_range(monkeypatch):
    """fuzz/fuzz_slice.py's last two bytes draw a time range too (here eighths 2 to 6 of
    the trace's time), held to the record-by-record piece."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness

    mod = load_harness("slice")
    data = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes() + b"\x02\x6a"
    made: list = []
    real_cutter = mod.Cutter

    def recording(**kw):
        made.append(real_cutter(**kw))
        return made[-1]

    monkeypatch.setattr(mod, "Cutter", recording)
    mod.check(data)
    assert made and all(c.ranged and c.start is not None and c.end is not None for c in made)
    real = mod.slice_trace

    def other(buf, open_out, cutter, *, shortcut=True, **kw):
        if not shortcut:
            return real(buf, open_out, cutter, shortcut=False, **kw)
        wider = real_cutter(start=cutter.start, end=cutter.end + 1)
        return real(buf, open_out, wider, **kw)

    monkeypatch.setattr(mod, "slice_trace", other)
    with pytest.raises(AssertionError, match="record-by-record"):
        mod.check(data)


# -- time going back: what a cut leaves open, as the lint pairs it (``rewrite/_order``) --------
_IN_BETWEEN = {"event.async_begin": "event.async_instant", "event.flow_begin": "event.flow_step",
               "event.async_instant": "event.async_end", "event.flow_step": "event.flow_end"}


def _stop(recs: list, i: int, j: int) -> bool:
    """Whether record ``i`` moved forward stops before record ``j``: a change of tick rate
    (its time would be read at another), and for an async operation's or a flow's begin its
    first instant or step, for an instant or step its end (the limits of ``_order``: those
    are carried where they fall between their begin and end in the file). A flow's event
    moves past durations freely: a piece without the duration enclosing it writes it in a
    marked one (test_a_flow_outside_its_enclosing_duration_in_the_file_is_enclosed)."""
    r, o = recs[i], recs[j]
    return o.kind == "initialization" or (_IN_BETWEEN.get(r.kind) == o.kind and
                                          OpenEvents.pairing_id(r) == OpenEvents.pairing_id(o))


@st.composite
def _stepping_back(draw):
    """A clean drawn trace with events written later in the file than their time (each
    moved forward past others, ``_stop``): its begins may come after their ends in the
    file, as the lint pairs them in time order."""
    recs = draw(record_lists(min_size=2, max_size=24))
    for _ in range(draw(st.integers(1, 4))):
        timed = [i for i, r in enumerate(recs) if r.kind.startswith("event.") and "timestamp" in r.fields]
        if not timed:
            break
        i = draw(st.sampled_from(timed))
        stop = next((j for j in range(i + 1, len(recs)) if _stop(recs, i, j)), len(recs))
        to = draw(st.integers(i, max(i, stop - 1)))
        recs.insert(to, recs.pop(i))
    return B.archive(*recs)


def _warnings(pieces: list) -> Counter:
    """Warnings and errors of the pieces, by code."""
    out: Counter = Counter()
    for p in pieces:
        out.update(d.code for d in fxtlint.lint_bytes(p).diagnostics if d.severity.label != "info")
    return out


def _flow_and_duration(order: str) -> bytes:
    """A flow (ticks 2 to 3) inside a duration (1 to 4) in time, written outside it in the
    file: before its begin, or after its end."""
    head = [B.magic(), B.initialization(1_000_000), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 1)]
    ev = functools.partial(B.event, thread=1, category=1, name=2)
    duration = [ev("duration_begin", 1), ev("duration_end", 4)]
    flow = [ev("flow_begin", 2, id=1), ev("flow_end", 3, id=1)]
    return B.archive(*head, *(flow + duration if order == "before" else duration + flow))


@pytest.mark.parametrize("order", ["before", "after"])
def test_a_flow_outside_its_enclosing_duration_in_the_file_is_enclosed(order):
    """A flow event written before or after its enclosing duration in the file: its piece
    (each record a piece) writes it inside a marked duration of its own, no PR008."""
    data = _flow_and_duration(order)
    assert not _warnings([data])  # the trace lints clean: the lint pairs in time order
    assert not _warnings(assert_same(data, lambda: Cutter(size=8)))  # each record a piece


@settings(max_examples=10)  # (about 50 ms an example: three slices and the lints)
@given(_stepping_back(), st.one_of(_SIZES, _SPANS, _RANGES))
def test_pieces_of_a_trace_going_back_in_time_carry_no_warning_it_lacks(data, cut):
    """A trace whose instants go back is cut as the lint pairs it, on the walk and record by
    record (the same pieces): no piece has a warning the trace lacks (by code, counted over
    the pieces), and together they hold its events (a cut by size or time) or those of the
    range's time (the marked ones aside)."""
    make = ranged(data, cut) if isinstance(cut, tuple) else cut
    pieces = assert_same(data, make)
    found = _warnings(pieces)
    allowed = _warnings([data])
    assert not found - allowed, (found, allowed)
    if not isinstance(cut, tuple):
        assert [e for p in pieces for e in events(p)] == events(data)


def _costly_trace() -> bytes:
    """Events whose cuts cost much besides their bytes: a 30,000-byte registered name, a
    kernel object with a 20,000-byte name for the thread's process, durations left open
    with long inline names, a userspace object; events of about 2 KB each."""
    long_name, long_obj = "n" * 30_000, "k" * 20_000
    recs = [B.magic(), B.provider_info(7, "p"), B.initialization(1000), B.string(1, "cat"),
            B.string(2, long_name), B.string(3, "b"), B.thread(1, 10, 11), B.kernel_object(10, 1, long_obj),
            B.kernel_object(11, 2, "t11"), B.userspace_object(0x1000, 1, "obj")]
    for i in range(500):
        if i % 50 == 0:
            recs.append(B.event("duration_begin", i, name="i" * 3000 + str(i)))
        recs.append(B.event("instant", i, name=2 if i % 3 else 3,
                            args=[B.arg("pointer", 3, 0x1000), B.arg("string", 3, "v" * 2000)]))
    return B.archive(*recs)


def test_pieces_cut_where_what_a_record_adds_decides_are_the_record_by_record_ones():
    """--split-size cuts the walk decides by an upper bound of what a record adds (``_far``)
    while the cut is far, then by its exact count (``_adds``): sizes whose cuts fall where
    long strings, a large kernel object and long open names weigh are the pass's pieces."""
    data = _costly_trace()
    assert fxtlint.lint_bytes(data).has_errors is False
    for size in range(200_000, 460_000, 37_813):
        parts = assert_same(data, lambda size=size: Cutter(size=size), 64)
        assert 2 <= len(parts) <= len(data) // 100_000


# -- a complete event still running at a cut (issue 33 item 4) ------------------------------
SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"


@pytest.mark.parametrize("size", [1000, 512])  # (--split-size 1KB, 512B: a cut inside `decode`, 220 .. 260)
def test_the_sample_s_pieces_carry_no_warning_it_lacks(size):
    """The sample's flow_end at tick 230 on thread 1002 is enclosed by a complete event (220
    .. 260) written whole in the piece before: the piece that holds it writes a marked
    stand-in of that complete event (no PR008), on the walk and record by record."""
    data = SAMPLE.read_bytes()
    assert not _warnings([data])
    pieces = assert_same(data, lambda: Cutter(size=size))
    assert not _warnings(pieces)
    assert [e for p in pieces for e in events(p)] == events(data)


def _flows_in_a_complete_event() -> bytes:
    """A flow begun, stepped and ended (ticks 2, 20, 35) inside a complete event (1 to 40)
    on its thread, and an instant at 50."""
    head = [B.magic(), B.provider_info(3, "p"), B.initialization(1000), B.string(1, "c"), B.string(2, "n"),
            B.string(3, "work"), B.thread(1, 1, 2), B.thread(2, 1, 3)]
    ev = functools.partial(B.event, thread=1, category=1, name=2)
    return B.archive(*head, ev("duration_complete", 1, name=3, end_timestamp=40), ev("flow_begin", 2, id=7),
                     ev("instant", 10, thread=2), ev("flow_step", 20, id=7), ev("flow_end", 35, id=7),
                     ev("instant", 50))


@pytest.mark.parametrize("make", [lambda: Cutter(size=8), lambda: Cutter(span=Fraction(10, 1000)),
                                  lambda: Cutter(start=Fraction(15, 1000), end=Fraction(60, 1000))],
                         ids=["each-record", "split-time", "range"])
def test_a_complete_event_running_at_a_cut_is_carried_as_a_marked_stand_in(make):
    """A piece cut inside a complete event begins with a marked complete event of its own, on
    its thread, from the piece's first instant to the running one's end: its flow events are
    enclosed as in the trace (no PR008); a piece after its end gets none."""
    data = _flows_in_a_complete_event()
    assert not _warnings([data])
    pieces = assert_same(data, make)
    assert not _warnings(pieces)
    held = [e for p in pieces for e in events(p)]
    assert held == (events(data) if make().start is None else [e for e in events(data) if int(e["timestamp"]) >= 15])
    stand_ins = []
    for p in pieces:
        marks = [r for r in decode(p).records if r["kind"] == "event.duration_complete" and
                 any(a["name"] == MARK_NAME for a in r.get("arguments", ()))]
        if not events(p):
            assert not marks
            continue
        first = min(int(e["timestamp"]) for e in events(p))
        stand_ins += [(first, r["timestamp"], r["end_timestamp"], r["name"], r["thread"]) for r in marks]
        assert all(int(r["timestamp"]) == first for r in marks)
    # (each piece from tick 2 to 40 has one: those at or after 50 none)
    firsts = sorted({min(int(e["timestamp"]) for e in events(p)) for p in pieces if events(p)})
    assert [s[0] for s in stand_ins] == [t for t in firsts if 1 < t <= 40]
    assert {(s[2], s[3]) for s in stand_ins} == {("40", "work")}
