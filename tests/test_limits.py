"""No hidden global state: tunables are one frozen Limits passed down from lint_buffer,
the spec tables are frozen, and mode switches are undone however a block ends."""

from __future__ import annotations

import dataclasses

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.engine._provider_state import ProviderState
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


def test_history_recording_is_off_again_after_an_error():
    state = ProviderState()
    with pytest.raises(RuntimeError):
        with state.recording() as hist:
            assert state.history is hist
            raise RuntimeError("a check that failed")
    assert state.history is None


def test_pairing_mode_is_set_at_construction():
    from fxtlint.engine._pairing import PairingEngine

    assert PairingEngine(print, [""], vectorize=False).vectorize is False
    assert PairingEngine(print, [""]).limits == fxtlint.Limits()
