"""The pieces' lint riding the cut (``rewrite/_slice_ride``): where the cut's walk proves a
piece's verdict, it is the lint's of the piece's bytes (``lint_bytes``: the errors and
warnings ``fxtlint slice`` prints), on the golden, real and conformance corpora and on
drawn traces (archives in both byte orders, mutations, any bytes), by size and by time,
the walk cut into short runs; a time range and --split-archives are not ridden (every
piece linted from its file); and the CLI lints only the pieces the ride left."""

from __future__ import annotations

import functools
import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.cli import slice as slice_cli
from fxtlint.engine._lint import lint_bytes
from fxtlint.rewrite import _repair, _slice_ride, _slice_walk
from fxtlint.rewrite._slice import Cutter, slice_trace, time_range
from fxtlint.strategies import archives, mutated_archives
from test_slice_walk import GOLDEN, LARGE_REAL, SMALL_REAL, _Kept  # (the same corpora, the same kept writer)

pytestmark = pytest.mark.skipif(_repair.native_walk() is None, reason="the native walk is not built here")

CONFORMANCE = sorted((REPO / "corpus" / "conformance").rglob("*.fxt"))


def _verdict(data: bytes) -> tuple[int, int]:
    labels = [d.severity.label for d in lint_bytes(data, input_format="trace").diagnostics]
    return labels.count("error"), labels.count("warning")


def ridden(data: bytes, cutter: Cutter, window: int | None = None) -> tuple[int, int]:
    """Slice ``data`` with the ride: each verdict it proves is the lint's of its piece.
    (pieces, pieces proven)."""
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    saved = _slice_walk.WINDOW
    if window is not None:
        _slice_walk.WINDOW = window
    try:
        log = slice_trace(data, open_out, cutter, ride=True)
    finally:
        _slice_walk.WINDOW = saved
    pieces = [outs[i].getvalue() for i in sorted(outs)]
    if log.verdicts is None:
        return len(pieces), 0
    assert len(log.verdicts) == len(pieces)
    for i, (piece, verdict) in enumerate(zip(pieces, log.verdicts, strict=True)):
        if verdict is not None:
            assert verdict == _verdict(piece), f"piece {i + 1}"
    return len(pieces), sum(v is not None for v in log.verdicts)


def _cutters(data: bytes) -> list:
    span = time_range(data)
    length = (span.end - span.start) if span else Fraction(1, 1000)
    return [Cutter(size=max(64, len(data) // 8)), Cutter(size=max(16, len(data) // 64)),
            Cutter(span=max(Fraction(1, 10**9), length / 8)), Cutter(span=max(Fraction(1, 10**9), length / 50))]


def _corpus(paths) -> tuple[int, int]:
    pieces = proven = 0
    for path in paths:
        data = path.read_bytes()
        for i, cutter in enumerate(_cutters(data)):
            n, k = ridden(data, cutter, window=3 if i == 1 else None)
            pieces, proven = pieces + n, proven + k
    return pieces, proven


def test_the_ride_says_the_lint_s_verdict_of_the_golden_and_small_real_pieces():
    pieces, proven = _corpus(GOLDEN + SMALL_REAL)
    assert proven > pieces // 2  # (most pieces are proven: the ride is not all fallbacks)


def test_the_ride_says_the_lint_s_verdict_of_the_conformance_pieces():
    pieces, proven = _corpus(CONFORMANCE)
    assert proven > pieces // 2


@pytest.mark.slow
@pytest.mark.parametrize("path", LARGE_REAL, ids=lambda p: p.name)
def test_a_large_real_trace_whose_instants_go_back_is_not_ridden(path):
    """jane-tracing-richiesams.fxt's instants go back in the file: it is cut in time order
    (``OrderedSlicer``), whose pieces are linted from their files, none proven by the ride.
    (Each of ``_cutters``' four cuts of it proved none: one is asked here, the others cost
    CI about 45 s for no verdict.)"""
    data = path.read_bytes()
    pieces, proven = ridden(data, _cutters(data)[0])
    assert pieces > 1 and proven == 0


_SIZES = st.integers(8, 600).map(lambda n: Cutter(size=n))
_SPANS = st.integers(1, 60).map(lambda n: Cutter(span=Fraction(n, 10**6)))


@settings(max_examples=20)
@given(archives(), st.one_of(_SIZES, _SPANS), st.integers(1, 5))
def test_the_ride_says_the_lint_s_verdict_of_archives(data, cutter, window):
    ridden(data, cutter, window)


@settings(max_examples=10)
@given(archives(min_size=1, max_size=12, byte_order="big"), st.one_of(_SIZES, _SPANS))
def test_the_ride_says_the_lint_s_verdict_of_big_endian_archives(data, cutter):
    ridden(data, cutter, 2)


@settings(max_examples=15)
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.one_of(_SIZES, _SPANS), st.integers(1, 4))
def test_the_ride_says_the_lint_s_verdict_of_mutations(case, cutter, window):
    ridden(case[0], cutter, window)


@settings(max_examples=25)
@given(st.binary(max_size=300), st.one_of(_SIZES, _SPANS))
def test_the_ride_says_the_lint_s_verdict_of_any_bytes(data, cutter):
    ridden(B.archive(B.magic()) + data, cutter, 2)


def test_a_range_and_archives_are_not_ridden():
    data = GOLDEN[0].read_bytes()
    span = time_range(data)
    for cutter in (Cutter(archives=True), Cutter(start=span.start, end=span.end) if span else Cutter(archives=True)):
        assert ridden(data, cutter)[1] == 0


@pytest.mark.parametrize("breach", ["found", "frame", "pairing", "order"])
def test_the_check_catches_a_ride_that_drops_a_state_difference(monkeypatch, breach):
    """The ride made to miss what it must see (the walk's findings of the body, the frame's
    own diagnostics, the pairing's, an instant that goes back in the file): the verdict
    check above fails."""
    if breach == "found":
        monkeypatch.setattr(_slice_ride.Ride, "found", lambda self, n: None)
    elif breach == "frame":
        monkeypatch.setattr(_slice_ride, "PAIRING_CODES", _Everything())
    elif breach == "pairing":
        monkeypatch.setattr(_slice_ride.Ride, "_emit", lambda self, d: None)
    else:
        monkeypatch.setattr(_slice_walk.WalkSlicer, "went_back", property(lambda self: False))
    with pytest.raises(AssertionError, match="piece"):
        ridden(_going_back(), Cutter(size=1 << 20), window=1)  # (each record a run: a batch of its own)
        _corpus(GOLDEN + SMALL_REAL + CONFORMANCE)


def _going_back() -> bytes:
    """A duration whose end (tick 3) is written after its begin (tick 4) in the file: in
    file order it pairs, in time order (the lint's) it does not."""
    head = [B.magic(), B.initialization(1_000_000), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 1)]
    ev = functools.partial(B.event, thread=1, category=1, name=2)
    return B.archive(*head, ev("duration_begin", 4), ev("duration_end", 3))


def test_a_trace_going_back_is_not_ridden():
    assert ridden(_going_back(), Cutter(size=1 << 20), window=1) == (1, 0)


class _Everything(frozenset):
    def __contains__(self, item) -> bool:
        return True


def test_the_cli_lints_only_the_pieces_the_ride_left(tmp_path, monkeypatch, capsys):
    linted: list = []
    real = slice_cli._verdict

    def counting(path):
        linted.append(path)
        return real(path)

    monkeypatch.setattr(slice_cli, "_verdict", counting)
    src = tmp_path / "in.fxt"
    src.write_bytes((REPO / "corpus" / "samples" / "sample.fxt").read_bytes())
    out = tmp_path / "p.fxt"
    main(["slice", str(src), "-o", str(out), "--split-size", "200", "--no-progress", "--output-format", "json"])
    pieces = json.loads(capsys.readouterr().out)["pieces"]
    assert pieces
    for p in pieces:  # each piece's counts are its file's lint
        assert (p["errors"], p["warnings"]) == _verdict(Path(p["path"]).read_bytes())
    assert len(linted) < len(pieces)  # (some proven by the ride)
