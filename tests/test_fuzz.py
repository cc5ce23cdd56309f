"""The fuzz harnesses stay alive: their invariants hold on every seed and on drawn bytes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parent.parent
SEEDS = sorted((REPO / "corpus" / "seeds").glob("*.*"))
SEEDS = [p for p in SEEDS if p.suffix in (".fxt", ".log")]


def harness(name):
    spec = importlib.util.spec_from_file_location(name, REPO / "fuzz" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


HARNESSES = [harness("fuzz_reader"), harness("fuzz_lint")]


def test_there_are_seeds():
    assert len(SEEDS) > 40


@pytest.mark.parametrize("mod", HARNESSES, ids=lambda m: m.__name__)
def test_harness_states_its_invariant_first(mod):
    first = Path(mod.__file__).read_text("utf-8").splitlines()[0]
    assert first.startswith("# Invariant:")


@pytest.mark.parametrize("mod", HARNESSES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_invariant_holds_on_seed(mod, seed):
    mod.check(seed.read_bytes())


@pytest.mark.parametrize("mod", HARNESSES, ids=lambda m: m.__name__)
def test_invariant_catches_a_broken_reader(mod, monkeypatch):
    """The check can fail: a reader that reports a record past the buffer trips it."""
    import fxtlint

    real = fxtlint.read_records

    def broken(data, **kw):
        recs, diags = real(data, **kw)
        return recs, diags + [fxtlint.rules.REGISTRY["FR001"].at(len(data) + 8, 0, remaining=0, swapped_text="")]

    monkeypatch.setattr(fxtlint, "read_records", broken)
    real_lint = fxtlint.lint_bytes

    def broken_lint(data, **kw):
        r = real_lint(data, **kw)
        r.diagnostics.append(fxtlint.rules.REGISTRY["FR001"].at(len(data) + 8, 0, remaining=0, swapped_text=""))
        return r

    monkeypatch.setattr(fxtlint, "lint_bytes", broken_lint)
    with pytest.raises(AssertionError):
        mod.check(SEEDS[0].read_bytes())


@given(st.binary(max_size=400))
def test_invariants_on_drawn_bytes(data):
    for mod in HARNESSES:
        mod.check(data)
