"""The structure-aware mutator: record-level changes that keep framing, crossover at
record boundaries, a byte-level fallback, and determinism by seed."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from fxtlint.strategies import archives

REPO = Path(__file__).resolve().parent.parent
if str(REPO / "fuzz") not in sys.path:
    sys.path.append(str(REPO / "fuzz"))
import mutator  # noqa: E402

SEEDS = [p.read_bytes() for p in sorted((REPO / "corpus" / "seeds").glob("*.fxt"))]
SAMPLE = (REPO / "corpus" / "seeds" / "sample.fxt").read_bytes()


def no_bytes(data, max_size):
    raise AssertionError("fell back to the byte mutator")


def frames(data: bytes) -> bool:
    records, _ = fxtlint.read_records(data)
    return sum(8 * r.size_words for r in records) == len(data)


def test_parse_tiles_the_input():
    p = mutator.parse(SAMPLE + b"\x01\x02")
    assert p.encode() == SAMPLE + b"\x01\x02"
    assert p.tail == b"\x01\x02" and len(p.records) == len(p.chunks) > 20


def test_same_seed_same_output():
    assert mutator.mutate(SAMPLE, 1 << 16, 7) == mutator.mutate(SAMPLE, 1 << 16, 7)


def test_mutations_change_the_input_and_mostly_keep_framing():
    outs = []
    for seed in range(400):
        rng = random.Random(seed)
        if rng.random() < mutator.BYTE_FRACTION:
            continue  # mutate() would hand these to libFuzzer's byte mutator
        outs.append(mutator.mutate(SAMPLE, 1 << 16, seed, byte_mutate=lambda d, m: b"BYTES"))
    changed = [o for o in outs if o not in (SAMPLE, b"BYTES")]
    assert len(changed) > 0.8 * len(outs)
    # header patches may change a size field on purpose; everything else re-encodes
    assert sum(frames(o) for o in changed) > 0.75 * len(changed)


def test_mutations_reach_rules_behind_the_framing():
    codes = set()
    cur = list(SEEDS)
    for seed in range(500):
        out = mutator.mutate(cur[seed % len(cur)], 4096, seed, byte_mutate=lambda d, m: d)
        cur.append(out)
        codes |= set(fxtlint.lint_bytes(out).counts)
    # pairing, references and stream rules, reached by record-level edits of valid seeds
    assert {"PR001", "PR002", "RF001", "RF002", "RF007", "ST002", "UN002"} <= codes


def test_byte_fallback_share():
    calls = []

    def counting(data, max_size):
        calls.append(1)
        return data[:max_size]

    for seed in range(1000):
        mutator.mutate(SAMPLE, 1 << 16, seed, byte_mutate=counting)
    assert 0.15 < len(calls) / 1000 < 0.35


def test_output_respects_max_size():
    for seed in range(300):
        out = mutator.mutate(SAMPLE, 1000, seed, byte_mutate=lambda d, m: d[:m])
        assert len(out) <= 1000


def test_short_inputs_go_to_bytes():
    assert mutator.mutate(b"abc", 100, 1, byte_mutate=lambda d, m: b"fallback") == b"fallback"


def test_repeat_run_fills_to_the_limit():
    p = mutator.parse(SAMPLE)
    rng = random.Random(0)
    while not mutator.repeat_run(p, rng, 1 << 20):
        pass
    out = p.encode()
    assert len(SAMPLE) < len(out) <= 1 << 20 and frames(out)


@pytest.mark.parametrize("seed", range(20))
def test_crossover_splices_at_record_boundaries(seed):
    a, b = SAMPLE, SEEDS[seed % len(SEEDS)]
    out = mutator.crossover(a, b, 1 << 16, seed)
    assert len(out) <= 1 << 16
    if frames(a) and frames(b):
        assert frames(out)


def test_crossover_respects_max_size():
    assert len(mutator.crossover(SAMPLE, SAMPLE, 100, 3)) <= 100


@settings(max_examples=40)
@given(archives(max_size=10), st.integers(0, 2**32 - 1))
def test_mutating_valid_archives_never_raises(data, seed):
    out = mutator.mutate(data, 1 << 16, seed, byte_mutate=lambda d, m: d)
    assert isinstance(out, bytes)
    mutator.crossover(out, data, 1 << 16, seed)


@settings(max_examples=60)
@given(st.binary(max_size=300), st.integers(0, 2**32 - 1))
def test_mutating_any_bytes_never_raises(data, seed):
    assert isinstance(mutator.mutate(data, 1 << 12, seed, byte_mutate=lambda d, m: d[:m]), bytes)
    assert isinstance(mutator.crossover(data, SAMPLE, 1 << 12, seed), bytes)
