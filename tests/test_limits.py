"""No hidden global state: tunables are one frozen Limits passed down from lint_buffer,
and the spec tables are frozen."""

from __future__ import annotations

import dataclasses

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.rules import _ex as X


def _nested(n: int) -> bytes:
    return X.preamble(*[B.event("duration_begin", i) for i in range(n)])


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_a_tunable_is_a_limits_argument(engine):
    """What tests used to patch as module globals is an argument of lint_bytes."""
    small = fxtlint.Limits(max_stack=8)
    report = fxtlint.lint_bytes(_nested(9), engine=engine, limits=small)
    assert report.counts.get("PR012") == 1
    assert "more than 8 open duration stack entries" in next(d.message for d in report.diagnostics
                                                                if d.code == "PR012")
    assert "PR012" not in fxtlint.lint_bytes(_nested(9), engine=engine).counts  # defaults untouched


def test_windows_are_limits_and_both_engines_agree_on_them():
    data = _nested(30)
    tiny = fxtlint.Limits(window_words=16, pairing_window=5, max_stack=8)
    fast = fxtlint.lint_bytes(data, limits=tiny)
    assert fast.to_json() == fxtlint.lint_bytes(data, engine="reference", limits=tiny).to_json()
    assert fast.counts["PR012"] == 1


def test_limits_are_frozen_and_checked():
    with pytest.raises(dataclasses.FrozenInstanceError):
        fxtlint.Limits().max_stack = 1
    with pytest.raises(fxtlint.FxtError, match="window_words"):
        fxtlint.Limits(window_words=0)
    with pytest.raises(fxtlint.FxtError, match="pairing_window"):
        fxtlint.Limits(pairing_window=1 << 21)


def test_tables_are_frozen():
    t = fxtlint.tables()
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.max_arguments = 1
    with pytest.raises(TypeError):
        t.records[99] = t.records[0]
    with pytest.raises(TypeError):
        t.enums["thread_state"][99] = "sleeping"
    with pytest.raises(dataclasses.FrozenInstanceError):
        t.records[0].name = "x"
    with pytest.raises(TypeError):
        t.records[4].variants[99] = t.records[0]


def _pair_nested(n: int, **engine_args) -> tuple[object, list[str]]:
    """A pairing engine fed ``n`` nested duration begins on one thread, and what it reported."""
    from fxtlint.engine._pairing import BEGIN, Batch, PairingEngine

    out: list = []
    engine = PairingEngine(out.append, ["", "a"], **engine_args)
    batch = Batch()
    for i in range(n):
        batch.add(BEGIN, 0, 0, 0, 1, i, 0, 0, 8 * i, i, 16)
    engine.feed(batch)
    return engine, [d.code for d in out]


def test_an_engine_given_no_limits_keeps_the_default_stack_depth():
    depth = fxtlint.Limits().max_stack
    assert _pair_nested(depth + 1)[1] == ["PR012"]  # one past the default depth: reported once
    assert _pair_nested(depth)[1] == []
    assert _pair_nested(3, limits=fxtlint.Limits(max_stack=2))[1] == ["PR012"]


@pytest.mark.parametrize("providers", [8_000, pytest.param(80_000, marks=pytest.mark.slow)])
def test_many_providers_cost_memory_by_what_is_used(tmp_path, providers):
    """Hostile input: many Provider Info records, then ten events. Memory must follow
    the tables actually used, never providers x string indexes (2 GB at 8,000 before)."""
    import subprocess
    import sys

    path = tmp_path / "providers.fxt"
    recs = [B.magic()] + [B.provider_info(i, "p") for i in range(providers)]
    recs += [B.event("instant", i, category=3, name=4) for i in range(10)]
    path.write_bytes(B.archive(*recs))
    code = f"""
import resource, sys, tracemalloc
sys.path.insert(0, {str(fxtlint.__file__.rsplit('/fxtlint/', 1)[0])!r})
import fxtlint
tracemalloc.start()
r = fxtlint.lint_path({str(path)!r})
peak = tracemalloc.get_traced_memory()[1]
print(peak, r.counts.get("RF001", 0), r.records)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    peak, unregistered, records = map(int, out.stdout.split())
    assert records == providers + 11
    assert unregistered == 20  # category and name of each event
    assert peak < 1024 * providers + (16 << 20), f"peak {peak / 2**20:.1f} MiB for {providers} providers"
