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
    import numpy as np

    from fxtlint.engine._pairing import BEGIN, Batch, PairingEngine

    out: list = []
    engine = PairingEngine(out.append, ["", "a"], **engine_args)
    batch = Batch()
    rows, zeros = np.arange(n), np.zeros(n, np.int64)
    batch.extend(kind=np.full(n, BEGIN), thread=zeros, process=zeros, cat=zeros, name=zeros + 1, ts=rows,
                 id=zeros, end=zeros, offset=8 * rows, index=rows, size=zeros + 16)
    engine.feed(batch)
    return engine, [d.code for d in out]


def test_the_pairing_mode_decides_whether_the_array_proof_runs(monkeypatch):
    """``vectorize=False`` runs the loop only; the default tries the array proof first.
    Both report alike, and an engine given no limits keeps the default stack depth."""
    from fxtlint.engine import _pairing

    tried = []
    real = _pairing.feed_clean
    monkeypatch.setattr(_pairing, "feed_clean", lambda e, c: tried.append(e) or real(e, c))
    depth = fxtlint.Limits().max_stack
    _, loop_codes = _pair_nested(depth + 1, vectorize=False)
    assert tried == []
    engine, proof_codes = _pair_nested(depth + 1)
    assert tried == [engine]
    assert loop_codes == proof_codes == ["PR012"]  # one past the default depth: reported once
    assert _pair_nested(depth)[1] == [] and _pair_nested(depth, vectorize=False)[1] == []
