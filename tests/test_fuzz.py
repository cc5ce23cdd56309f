"""The fuzz harnesses stay alive: their invariants hold on every seed and on drawn bytes,
and each invariant can fail."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:  # fuzz/ is not installed; appended, so an installed fxtlint still wins
    sys.path.append(str(REPO))
from fuzz import HARNESSES, load_harness  # noqa: E402

SEEDS = sorted((REPO / "corpus" / "seeds").glob("*.*"))
SEEDS = [p for p in SEEDS if p.suffix in (".fxt", ".log")]

MODS = {name: load_harness(name) for name in HARNESSES}
BYTE_HARNESSES = [MODS[n] for n, (_, fxt) in HARNESSES.items() if fxt]


def test_there_are_seeds():
    assert len(SEEDS) > 40


@pytest.mark.parametrize("mod", MODS.values(), ids=list(MODS))
def test_harness_states_its_invariant_first(mod):
    first = Path(mod.__file__).read_text("utf-8").splitlines()[0]
    assert first.startswith("# Invariant:")


def runnable(mod):
    """The harness, once it can run here: the native one needs the native walk built (a
    skip saying why where it is not; CI, which has a compiler, sets FXTLINT_EXPECT_NATIVE=1
    and fails instead)."""
    if mod is MODS["native"]:
        import os

        from fxtlint.engine import _native

        if _native.nwalk() is None:
            if os.environ.get("FXTLINT_EXPECT_NATIVE") == "1":
                pytest.fail(f"FXTLINT_EXPECT_NATIVE=1 but {_native.native_missing()}")
            pytest.skip(_native.native_missing())
    return mod


@pytest.mark.parametrize("mod", BYTE_HARNESSES, ids=lambda m: m.__name__)
@pytest.mark.parametrize("seed", SEEDS, ids=lambda p: p.name)
def test_invariant_holds_on_seed(mod, seed):
    runnable(mod).check(seed.read_bytes())


@pytest.mark.parametrize("name", ["fuzz_reader", "fuzz_lint"])
def test_invariant_catches_a_broken_reader(name, monkeypatch):
    """The check can fail: a reader that reports a record past the buffer trips it."""
    mod = next(m for m in BYTE_HARNESSES if m.__name__ == name)
    real = fxtlint.read_records

    def broken(data, **kw):
        recs, diags = real(data, **kw)
        return recs, diags + [fxtlint.rules.REGISTRY["FR001"].at(len(data) + 8, 0, remaining=0)]

    monkeypatch.setattr(fxtlint, "read_records", broken)
    real_lint = fxtlint.lint_bytes

    def broken_lint(data, **kw):
        r = real_lint(data, **kw)
        r.diagnostics.append(fxtlint.rules.REGISTRY["FR001"].at(len(data) + 8, 0, remaining=0))
        return r

    monkeypatch.setattr(fxtlint, "lint_bytes", broken_lint)
    with pytest.raises(AssertionError):
        mod.check(SEEDS[0].read_bytes())


def test_lint_invariant_compares_spans(monkeypatch):
    """The native walk and the reference engine differing only in a diagnostic's span fail
    the check (dataclass equality leaves the span out)."""
    real = fxtlint.lint_bytes

    def skewed(data, **kw):
        r = real(data, **kw)
        if kw.get("engine") == "reference" and r.diagnostics:
            r.diagnostics[0] = dataclasses.replace(r.diagnostics[0], span=(0, 1))
        return r

    monkeypatch.setattr(fxtlint, "lint_bytes", skewed)
    bad = (REPO / "corpus" / "seeds" / "RB001-bad.fxt").read_bytes()
    with pytest.raises(AssertionError):
        MODS["lint"].check(bad)


@pytest.mark.parametrize("what", ["log", "big"])
def test_lint_invariant_holds_the_walk_to_the_reference_on_logs_and_big_endian_twins(what, monkeypatch):
    """The input's last byte picks a twin the native walk is also held to: an odd one, the
    input read as a structured-log stream; 2 mod 4, a little-endian trace's big-endian
    twin. A walk that differs only there trips the check."""
    from fxtlint.engine._native import nwalk
    from fxtlint.engine._reader import MAGIC_BE

    if nwalk() is None:
        pytest.skip("the native walk is not built")
    data = (REPO / "corpus" / "seeds" / "RF001-good.fxt").read_bytes() + bytes([1 if what == "log" else 2])
    check = MODS["lint"].check
    check(data)
    real = fxtlint.lint_bytes

    def skewed(buf, **kw):
        r = real(buf, **kw)
        twin = kw.get("input_format") == "log" if what == "log" else buf[:8] == MAGIC_BE
        if kw.get("engine") == "walk" and twin:
            r.records += 1
        return r

    monkeypatch.setattr(fxtlint, "lint_bytes", skewed)
    with pytest.raises(AssertionError, match="log" if what == "log" else "big-endian"):
        check(data)


def test_prefix_invariant_catches_a_reader_that_looks_ahead(monkeypatch):
    real = fxtlint.read_records

    def looks_ahead(data, **kw):  # decodes the last record differently when more bytes follow
        recs, diags = real(data, **kw)
        if len(data) % 16 == 8 and recs:
            recs[-1] = dataclasses.replace(recs[-1], extra_words=(1,))
        return recs, diags

    monkeypatch.setattr(fxtlint, "read_records", looks_ahead)
    seed = (REPO / "corpus" / "seeds" / "sample.fxt").read_bytes()
    with pytest.raises(AssertionError):
        MODS["prefix"].check(seed + bytes(8))


def test_roundtrip_invariant_catches_a_lossy_encoder(monkeypatch):
    monkeypatch.setattr(fxtlint, "encode_records", lambda recs, order="little": b"")
    with pytest.raises(AssertionError):
        MODS["roundtrip"].check((REPO / "corpus" / "seeds" / "sample.fxt").read_bytes())


def test_roundtrip_skips_malformed_input():
    MODS["roundtrip"].check((REPO / "corpus" / "seeds" / "RB001-bad.fxt").read_bytes() + b"\x01")


def test_strategies_harness_runs_on_bytes():
    check = MODS["strategies"].check
    for data in (b"", bytes(64), bytes(range(256)) * 2):
        check(data)


def test_strategies_harness_can_fail(monkeypatch):
    real = fxtlint.lint_bytes

    def loses_codes(data, **kw):
        r = real(data, **kw)
        r.counts.clear()
        r.diagnostics.clear()
        return r

    monkeypatch.setattr(fxtlint, "lint_bytes", loses_codes)
    with pytest.raises(AssertionError, match=r"'[A-Z]{2}[0-9]{3}', \{\}"):
        for i in range(50):  # some draw is a mutated archive, whose code is now missing
            MODS["strategies"].check(bytes([i]) * 64)


@settings(max_examples=50)
@given(st.binary(max_size=400))
def test_invariants_on_drawn_bytes(data):
    from fxtlint.engine import _native

    built = _native.nwalk() is not None  # without the native walk the seeds' test says why
    for mod in BYTE_HARNESSES:
        if built or mod is not MODS["native"]:
            mod.check(data)


def test_native_harness_lints_with_each_engine_in_the_format_the_last_byte_picks(monkeypatch):
    from fxtlint.engine import _walk

    runnable(MODS["native"])
    natives, formats = [], []
    run, report = _walk.Walk.run, MODS["native"].trace_report

    def walked(walk):  # each walk of the check: whether it took the native walk
        got = run(walk)
        natives.append(walk._native is not None)
        return got

    monkeypatch.setattr(_walk.Walk, "run", walked)
    monkeypatch.setattr(MODS["native"], "trace_report",
                        lambda data, **kw: formats.append(kw["input_format"]) or report(data, **kw))
    sample = (REPO / "corpus" / "seeds" / "sample.fxt").read_bytes()
    MODS["native"].check(sample + b"\x00")
    MODS["native"].check(sample + b"\x01")
    assert formats == ["trace", "trace", "log", "log"]
    # native, then reference: the report, export and decode of the trace; the report and
    # export of the log
    assert natives == [True, False] * 5


def test_native_invariant_catches_a_decoded_line_that_differs(monkeypatch):
    """Lines of the decoding that differ by one byte between the walk's rows mode and the
    reference (here the reference's, skewed) fail the check."""
    from fxtlint.reader_suite import _canonical

    runnable(MODS["native"])
    real = _canonical._line

    def skewed(obj):
        return real(obj).replace("{", "{ ", 1)

    sample = (REPO / "corpus" / "seeds" / "sample.fxt").read_bytes() + b"\x00"
    MODS["native"].check(sample)
    monkeypatch.setattr(_canonical, "_line", skewed)
    with pytest.raises(AssertionError, match="decode: native and reference part at byte"):
        MODS["native"].check(sample)


def test_native_invariant_catches_an_engine_difference(monkeypatch):
    """A native report that differs from the pure engine's in one problem's offsets fails
    the check, and the message names it."""
    runnable(MODS["native"])
    real = MODS["native"].trace_report

    def skewed(data, **kw):
        r = real(data, **kw)
        if kw.get("engine") == "native" and r["problems"]:
            r["problems"][0] = {**r["problems"][0], "first_offsets": [1]}
        return r

    bad = (REPO / "corpus" / "seeds" / "RB001-bad.fxt").read_bytes()
    MODS["native"].check(bad)
    monkeypatch.setattr(MODS["native"], "trace_report", skewed)
    with pytest.raises(AssertionError, match=r"problems\[0\]: native"):
        MODS["native"].check(bad)


def test_native_harness_refuses_to_run_without_the_native_walk(monkeypatch):
    from fxtlint.engine import _native

    monkeypatch.setattr(_native, "_nwalk_built", lambda: (None, "No module named 'fxtlint.engine._nwalk'"))
    with pytest.raises(RuntimeError, match="nothing to fuzz"):
        MODS["native"].native()
    with pytest.raises(fxtlint.FxtError, match="not built"):  # the check itself does not pass quietly
        MODS["native"].check(b"")
