"""The fast path (the column engine) reports exactly what the per-record reference path reports.

Inputs are drawn to be noisy on purpose: every record kind of the tables, unregistered
refs, several providers, rate changes, out-of-order timestamps, inline and indexed
everything, raw byte damage, and the mutations that know their rule; the pairing and
framing windows are shrunk so every boundary is crossed. Diagnostics are compared as
JSON, so spans, record sizes and severities must agree too.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fxtlint
import writer_traces
from conftest import CORPUS_REAL, DRAWN_MUTATIONS
from fxtlint import build as B
from fxtlint.engine import _walk
from fxtlint.strategies import archives, log_streams, mutated_archives, mutated_log_streams

# every test runs with the native kernel and with the pure column engine as the scan step
pytestmark = pytest.mark.usefixtures("scan_engine")


def same_report(engine: str, data: bytes, input_format: str = "auto", limits: fxtlint.Limits = fxtlint.Limits()):
    """``engine`` and the reference, with the same limits, give the same whole report (JSON form)."""
    fast = fxtlint.lint_bytes(data, engine=engine, input_format=input_format, limits=limits)
    ref = fxtlint.lint_bytes(data, engine="reference", input_format=input_format, limits=limits)
    assert fast.to_json() == ref.to_json()
    assert fast.diagnostics == ref.diagnostics
    return fast


@pytest.fixture(params=[fxtlint.Limits(), fxtlint.Limits(window_words=16, pairing_window=5)],
                ids=["default-windows", "tiny-windows"])
def windows(request):
    """Drawn inputs are small: tiny windows make them cross every boundary."""
    return request.param


@pytest.fixture(params=[fxtlint.Limits(), fxtlint.Limits(window_words=512, pairing_window=257)],
                ids=["default-windows", "small-windows"])
def small_windows(request):
    """Real traces and rule examples are larger: small windows still split them often."""
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


inline_or_index = st.one_of(st.integers(0, 4), st.tuples(st.integers(1, 3), st.integers(1, 3)))


@st.composite
def other_records(draw):
    """Every record kind that is not an event, with drawn fields (valid or not)."""
    which = draw(st.integers(0, 9))
    arglist = st.lists(args(), max_size=3)
    if which == 0:
        return B.log(draw(stamps), draw(st.sampled_from(["", "m", "ünï", "exactly8"])), thread=draw(inline_or_index))
    if which == 1:
        return B.kernel_object(draw(st.integers(0, 9)), draw(st.integers(0, 40)), draw(refs), args=draw(arglist))
    if which == 2:
        return B.userspace_object(draw(st.integers(0, 9)), draw(st.one_of(st.integers(0, 4),
                                                                          st.tuples(st.integers(1, 3)))),
                                  draw(refs), args=draw(arglist))
    if which == 3:
        return B.context_switch(draw(stamps), draw(st.integers(0, 3)), draw(st.integers(0, 7)), 1, 2,
                                args=draw(arglist))
    if which == 4:
        return B.thread_wakeup(draw(stamps), draw(st.integers(0, 3)), 3, args=draw(arglist))
    if which == 5:
        return B.legacy_context_switch(draw(stamps), draw(st.integers(0, 3)), draw(st.integers(0, 7)),
                                       outgoing_thread=draw(inline_or_index), incoming_thread=draw(inline_or_index))
    if which == 6:
        return B.blob(draw(refs), draw(st.binary(max_size=20)), draw(st.integers(0, 4)))
    if which == 7:
        if draw(st.booleans()):
            return B.large_blob(draw(refs), draw(refs), draw(st.binary(max_size=20)), timestamp=draw(stamps),
                                thread=draw(inline_or_index), args=draw(arglist))
        return B.large_blob(draw(refs), draw(refs), draw(st.binary(max_size=20)))
    if which == 8:
        return B.unknown(draw(st.integers(10, 14)), draw(st.binary(max_size=16)))
    return B.provider_event(draw(st.integers(1, 2)), draw(st.integers(0, 2)))


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
    if which in (3, 4):
        return draw(other_records())
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
def test_fast_equals_reference_on_noisy_archives(scan_engine, windows, data):
    same_report(scan_engine, data, limits=windows)


@shared_fixture
@given(st.binary(max_size=300))
def test_fast_equals_reference_on_random_bytes(scan_engine, windows, data):
    same_report(scan_engine, data, limits=windows)
    same_report(scan_engine, data, "log", limits=windows)


@shared_fixture
@given(archives(max_size=12))
def test_fast_equals_reference_on_clean_archives(scan_engine, windows, data):
    assert same_report(scan_engine, data, limits=windows).counts == {}


@shared_fixture
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_fast_equals_reference_on_mutated_archives(scan_engine, windows, mutated):
    data, _ = mutated  # whether the mutation trips its rule is tests/test_strategies.py's concern
    same_report(scan_engine, data, limits=windows)


@shared_fixture
@given(log_streams())
def test_fast_equals_reference_on_log_streams(scan_engine, windows, data):
    assert same_report(scan_engine, data, "log", limits=windows).counts == {}


@shared_fixture
@given(mutated_log_streams(), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 7)), max_size=2))
def test_fast_equals_reference_on_damaged_log_streams(scan_engine, windows, mutated, flips):
    data, _ = mutated
    same_report(scan_engine, data, "log", limits=windows)
    damaged = bytearray(data)
    for pos, bit in flips:
        if pos < len(damaged):
            damaged[pos] ^= 1 << bit
    same_report(scan_engine, bytes(damaged), "log", limits=windows)


# one case per rule: PR012's examples (65,537 nested begins, most of this test's time)
# then run with the slow tests (tests/conftest.py), the others in every run
@pytest.mark.parametrize("rule", fxtlint.rules.all_rules(), ids=lambda r: r.code)
def test_fast_equals_reference_on_rule_examples(scan_engine, small_windows, rule):
    for ex in (rule.bad, rule.good):
        same_report(scan_engine, ex.build(), ex.input_format, limits=small_windows)


@pytest.mark.parametrize("deltas", [{writer_traces.FAULTY: 1}, {writer_traces.FAULTY: -1},
                                    {writer_traces.FAULTY: 2}, {9: 1, 13: -1, 17: 1}, {10: -1, 11: 1},
                                    {30: 1}, {31: -1}, {3: -1}], ids=str)
def test_fast_equals_reference_when_sizes_are_off(scan_engine, windows, deltas):
    """Sizes a word off (FR004, ST001) move the framing: both engines go on from the
    same place, across every window boundary."""
    same_report(scan_engine, writer_traces.with_sizes_off(deltas), limits=windows)


@pytest.mark.parametrize("path", sorted(CORPUS_REAL.glob("*.fxt")),
                         ids=lambda p: p.name)
def test_fast_equals_reference_on_real_traces(scan_engine, small_windows, path):
    same_report(scan_engine, path.read_bytes(), limits=small_windows)


def test_fast_path_screens_clean_records_of_every_kind_without_decoding_them(scan_engine, monkeypatch):
    """The point of the column engine: clean records of any layout never reach the
    per-record decoder; only the records that change the provider tables do."""
    calls = []
    real = _walk.decode_record

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(_walk, "decode_record", counting)
    pre = [B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2)]
    evs = [B.event("duration_begin", i, args=[B.arg("int64", "a", i), B.arg("string", 1, "v")]) for i in range(50)]
    evs += [B.event("duration_end", 100 + i) for i in range(50)]
    others = [B.kernel_object(5, 2, "k", args=[B.arg("koid", 1, 7)]), B.userspace_object(9, 1, 2),
              B.context_switch(200, 1, 3, 4, 5, args=[B.arg("uint32", "p", 1)]), B.thread_wakeup(201, 1, 4),
              B.legacy_context_switch(202, 1, 3, outgoing_thread=1, incoming_thread=(1, 3)),
              B.blob("b", b"payload", 1), B.log(203, "hello", thread=1),
              B.large_blob(1, 2, b"x" * 9, timestamp=204, args=[B.arg("double", 2, 0.5)]), B.large_blob(1, 2, b"y")]
    report = fxtlint.lint_bytes(B.archive(*pre, *evs, *others), engine=scan_engine)
    assert report.counts == {}
    assert len(calls) == len(pre)
    calls.clear()
    log = B.log_stream(*[B.log_record(0x30, i, [B.arg("string", "message", "m"), B.arg("int64", "n", i)])
                         for i in range(20)])
    assert fxtlint.lint_bytes(log, engine=scan_engine).counts == {} and calls == []


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
sys.path.insert(0, {str(_walk.__file__.rsplit('/fxtlint/', 1)[0])!r})
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


def test_distinct_pairs_are_numpys_unique_rows():
    import numpy as np

    from fxtlint.engine._fast import _distinct_pairs

    rng = np.random.default_rng(7)
    for hi in (3, 1 << 40, 1 << 64):
        a = rng.integers(0, 4, 300).astype(np.uint64) * np.uint64(hi - 1 if hi < 1 << 64 else (1 << 63) + 5)
        b = rng.integers(0, hi, 300, dtype=np.uint64)
        pairs, inv = np.unique(np.stack([a, b], 1), axis=0, return_inverse=True)
        ua, ub, got = _distinct_pairs(a, b)
        assert np.array_equal(ua, pairs[:, 0]) and np.array_equal(ub, pairs[:, 1])
        assert np.array_equal(got, inv.reshape(-1))


@pytest.mark.parametrize("indexes", [[1, 2, 3, 7], [5, 100_000], []], ids=["dense", "sparse", "empty"])
def test_table_lookups_dense_or_sorted_agree(indexes):
    """A table kept as a dense array (indexes numbered from 1 up) and one kept only
    sorted (sparse indexes) answer every query as a dictionary would."""
    import numpy as np

    from fxtlint.engine._lookups import TableCache, _find
    from fxtlint.engine._provider_state import ProviderState

    state = ProviderState()
    p = state.current
    for i, k in enumerate(indexes):
        p.strings[k] = 10 + i
    keys, vals, dense = TableCache(state).get(p, "strings")
    assert (dense is not None) == (indexes == [1, 2, 3, 7])
    q = np.asarray([0, 1, 2, 3, 4, 7, 8, 5, 100_000, 32_767], np.uint64)
    want = [p.strings.get(int(k), -1) for k in q]
    assert _find(keys, vals, q, dense).tolist() == want
    assert _find(keys, vals, q).tolist() == want
