"""The fast path reports exactly what the per-record reference path reports.

Inputs are drawn to be noisy on purpose: unregistered refs, several providers, rate
changes, out-of-order timestamps, inline and indexed everything, and raw byte damage,
and the pairing and framing windows are shrunk so every boundary is crossed.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fxtlint
from fxtlint import _fast, _semantic
from fxtlint import build as B

from conftest import CORPUS_REAL


def same_report(data: bytes):
    fast = fxtlint.lint_bytes(data, engine="fast")
    ref = fxtlint.lint_bytes(data, engine="reference")
    assert fast.diagnostics == ref.diagnostics
    assert fast.counts == ref.counts
    assert fast.records == ref.records
    assert fast.summary == ref.summary
    return fast


def set_windows(monkeypatch, words, records):
    monkeypatch.setattr(_fast, "WINDOW_WORDS", words)
    monkeypatch.setattr(_fast, "PAIRING_WINDOW", records)
    monkeypatch.setattr(_semantic, "PAIRING_WINDOW", records)


@pytest.fixture(params=[None, (16, 5)], ids=["default-windows", "tiny-windows"])
def windows(request, monkeypatch):
    """Drawn inputs are small: tiny windows make them cross every boundary."""
    if request.param:
        set_windows(monkeypatch, *request.param)
    return request.param


@pytest.fixture(params=[None, (512, 257)], ids=["default-windows", "small-windows"])
def small_windows(request, monkeypatch):
    """Real traces and rule examples are larger: small windows still split them often."""
    if request.param:
        set_windows(monkeypatch, *request.param)
    return request.param


refs = st.one_of(st.integers(0, 6), st.sampled_from(["", "x", "inline", "ünï", "exactly8"]))
threads = st.one_of(st.integers(0, 4), st.tuples(st.integers(1, 3), st.integers(1, 3)))
stamps = st.one_of(st.integers(0, 50), st.just((1 << 64) - 1), st.integers(1 << 60, 1 << 63))


@st.composite
def args(draw):
    kind = draw(st.sampled_from(["null", "int32", "uint32", "int64", "uint64", "double", "string",
                                 "pointer", "koid", "bool", "blob"]))
    value = {"double": 0.5, "string": draw(refs), "bool": True, "blob": b"\x00\xff",
             "int32": -3, "int64": -(1 << 40)}.get(kind, 5)
    return B.arg(kind, draw(refs), value)


@st.composite
def records(draw):
    which = draw(st.integers(0, 9))
    if which == 0:
        return B.string(draw(st.integers(0, 6)), draw(st.sampled_from(["", "a", "b", "cat", "name"])))
    if which == 1:
        return B.thread(draw(st.integers(0, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    if which == 2:
        return draw(st.sampled_from([B.provider_info(1, "one"), B.provider_info(2, "two"), B.provider_section(1),
                                     B.provider_section(2), B.provider_section(3), B.provider_event(1, 0),
                                     B.initialization(0), B.initialization(1000), B.initialization(10**12)]))
    if which == 3:
        return draw(st.sampled_from([B.log(5, "m", thread=1), B.kernel_object(1, 2, "k"),
                                     B.context_switch(3, 0, 3, 1, 2), B.legacy_context_switch(4, 0, 1),
                                     B.blob(1, b"abc"), B.large_blob(1, 2, b"x" * 9, timestamp=3)]))
    kind = draw(st.sampled_from(["instant", "counter", "duration_begin", "duration_end", "duration_complete",
                                 "async_begin", "async_instant", "async_end", "flow_begin", "flow_step",
                                 "flow_end"]))
    return B.event(kind, draw(stamps), thread=draw(threads), category=draw(refs), name=draw(refs),
                   args=draw(st.lists(args(), max_size=3)), id=draw(st.integers(0, 2)),
                   end_timestamp=draw(stamps))


@st.composite
def noisy_archives(draw):
    recs = [B.magic()] + draw(st.lists(records(), max_size=40))
    data = bytearray(B.archive(*recs, byte_order=draw(st.sampled_from(["little", "little", "big"]))))
    for pos, bit in draw(st.lists(st.tuples(st.integers(0, max(0, len(data) - 1)), st.integers(0, 7)),
                                  max_size=2)):
        if data:
            data[pos] ^= 1 << bit
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return bytes(data if cut is None else data[:cut])


shared_fixture = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@shared_fixture
@given(noisy_archives())
def test_fast_equals_reference_on_noisy_archives(windows, data):
    same_report(data)


@shared_fixture
@given(st.binary(max_size=300))
def test_fast_equals_reference_on_random_bytes(windows, data):
    same_report(data)


def test_fast_equals_reference_on_rule_examples(small_windows):
    for rule in fxtlint.rules.all_rules():
        for ex in (rule.bad, rule.good):
            if ex.input_format == "trace":
                same_report(ex.build())


@pytest.mark.parametrize("path", sorted(CORPUS_REAL.glob("*.fxt")),
                         ids=lambda p: p.name)
def test_fast_equals_reference_on_real_traces(small_windows, path):
    same_report(path.read_bytes())


def test_fast_path_screens_clean_events_without_decoding_them(monkeypatch):
    """The point of the fast path: clean events never reach the per-record decoder."""
    calls = []
    real = _fast.decode_record

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(_fast, "decode_record", counting)
    pre = [B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2)]
    evs = [B.event("duration_begin", i, args=[B.arg("int64", "a", i), B.arg("string", 1, "v")]) for i in range(50)]
    evs += [B.event("duration_end", 100 + i) for i in range(50)]
    report = fxtlint.lint_bytes(B.archive(*pre, *evs))
    assert report.counts == {}
    assert len(calls) == len(pre)
