"""Time is ticks read through their provider's tick rate (issue 31).

Every check that orders or compares timestamps (durations, complete events, async
operations, flows, the pairing window's order, early ends) reads each timestamp through
the rate in effect for its provider at that record, exactly (``spec/_time``). Each case is
linted by every engine and by a stream fed in pieces, in both byte orders; all must agree.
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import fxtlint
from fxtlint import build as B
from fxtlint.engine import _native
from fxtlint.spec import _time as T
from fxtlint.spec._model import Record
from fxtlint.spec._roles import TIMESTAMPS
from fxtlint.strategies import record_lists

GHZ, MHZ, KHZ = 10**9, 10**6, 10**3
ENGINES = ["reference"] + ([] if _native.native_missing() else ["native"])
ORDERS = ("little", "big")


def lint(records, byte_order="little"):
    """The report of ``records``' archive, after checking every engine and a stream fed
    in pieces give the same whole report."""
    data = B.archive(*records, byte_order=byte_order)
    want = fxtlint.lint_bytes(data, engine="reference")
    for engine in ENGINES[1:]:
        assert fxtlint.lint_bytes(data, engine=engine).to_json() == want.to_json(), engine
    stream = fxtlint.StreamLinter(step=7, path="<bytes>")
    for i in range(0, len(data), 24):
        stream.feed(data[i:i + 24])
    stream.close()
    assert stream.report.to_json() == want.to_json()
    return want


def codes(report) -> Counter:
    """The findings' codes, less the note that an archive is big-endian (EX002)."""
    return Counter(d.code for d in report.diagnostics if d.code != "EX002")


def provider(pid: int, rate: int | None, *, name: str = "p") -> list[Record]:
    """Provider ``pid`` announced and made current, its rate set (None: left at the
    default), its strings 1 "cat" and 2 "name" and its thread 1 (koids 10/11: every
    provider's thread 1 is the same thread)."""
    out = [B.provider_info(pid, f"{name}{pid}"), B.provider_section(pid)]
    if rate is not None:
        out.append(B.initialization(rate))
    return out + [B.string(1, "cat"), B.string(2, "name"), B.thread(1, 10, 11)]


def ev(kind, ts, **kw):
    return B.event(kind, ts, **kw)


def in_duration(*events, begin, end):
    return [ev("duration_begin", begin), *events, ev("duration_end", end)]


# -- the examples and their mirrors -------------------------------------------------
@pytest.mark.parametrize("order", ORDERS)
def test_a_flow_from_a_1ghz_provider_to_a_1khz_one_is_correct(order):
    """Begun at tick 1,000,500 of 1 GHz (1.0005 ms), ended at tick 2 of 1 kHz (2 ms): a
    correct flow (raw ticks would say the end, 2, comes first: PR004 and PR007)."""
    recs = [B.magic(), *provider(1, GHZ),
            *in_duration(ev("flow_begin", 1_000_500, id=0x2A), begin=1_000_000, end=1_001_000),
            *provider(2, KHZ),
            *in_duration(ev("flow_end", 2, id=0x2A), begin=2, end=3)]
    assert codes(lint(recs, order)) == Counter()


@pytest.mark.parametrize("order", ORDERS)
def test_a_flow_that_ends_before_it_begins_across_providers(order):
    """The mirror: begun at 3 ms (tick 3,000,000 of 1 GHz), ended at 2 ms (tick 2 of 1 kHz):
    in time order the end has no live begin, and the begin stays open."""
    recs = [B.magic(), *provider(1, GHZ),
            *in_duration(ev("flow_begin", 3_000_000, id=0x2A), begin=3_000_000, end=3_000_001),
            *provider(2, KHZ),
            *in_duration(ev("flow_end", 2, id=0x2A), begin=2, end=2)]
    assert codes(lint(recs, order)) == Counter({"PR007": 1, "PR004": 1})


@pytest.mark.parametrize("order", ORDERS)
def test_a_duration_ending_before_it_begins_across_a_rate_change(order):
    """Begun at tick 5,000 of 1 kHz (5 s), the rate set to 1 GHz, ended at tick 6,000 (6 µs):
    the end is 5 s before its begin. The message gives ticks, rate and time of both."""
    recs = [B.magic(), *provider(1, KHZ), ev("duration_begin", 5_000), B.initialization(GHZ),
            ev("duration_end", 6_000)]
    report = lint(recs, order)
    assert codes(report) == Counter({"PR002": 1})
    (d,) = [d for d in report.diagnostics if d.code == "PR002"]
    assert ("duration end cat/name at tick 6,000 of 1 GHz (6 µs) is before its begin at tick 5,000 of 1 kHz (5 s)"
            in d.message), d.message
    assert (d.details["ts"], d.details["rate"], d.details["begin_ts"], d.details["begin_rate"]) == (
        6_000, GHZ, 5_000, KHZ)


@pytest.mark.parametrize("order", ORDERS)
def test_a_duration_across_a_rate_change_that_is_in_order(order):
    """The mirror: begun at tick 1,000 of 1 GHz (1 µs), the rate set to 1 kHz, ended at
    tick 2 (2 ms): correct (raw ticks said PR002 "end at 2 is before its begin at 1000")."""
    recs = [B.magic(), *provider(1, GHZ), ev("duration_begin", 1_000), B.initialization(KHZ),
            ev("duration_end", 2)]
    assert codes(lint(recs, order)) == Counter()


def test_one_rate_keeps_todays_message():
    recs = [B.magic(), *provider(1, KHZ), ev("duration_begin", 9), ev("duration_end", 5)]
    (d,) = lint(recs).diagnostics
    assert "duration end cat/name at 5 is before its begin at 9 (" in d.message, d.message


@pytest.mark.parametrize("order", ORDERS)
def test_a_flow_across_three_providers_at_three_rates(order):
    """1 GHz begins at 1 ms, 1 MHz steps at 2 ms, 1 kHz ends at 3 ms: correct. With the
    step at 4 ms instead, the end comes first and the step has no live begin."""
    def trace(step_ticks):
        return [B.magic(),
                *provider(1, GHZ), *in_duration(ev("flow_begin", 1_000_000, id=7), begin=1_000_000, end=1_000_000),
                *provider(2, MHZ), *in_duration(ev("flow_step", step_ticks, id=7), begin=step_ticks, end=step_ticks),
                *provider(3, KHZ), *in_duration(ev("flow_end", 3, id=7), begin=3, end=3)]
    assert codes(lint(trace(2_000), order)) == Counter()
    assert codes(lint(trace(4_000), order)) == Counter({"PR007": 1})


@pytest.mark.parametrize("order", ORDERS)
def test_a_duration_spanning_two_rate_changes(order):
    """Begun at tick 1 of 1 kHz (1 ms), the rate set to 1 MHz and then 1 GHz, ended at
    tick 2,000,000 (2 ms): correct; ended at tick 500,000 (0.5 ms): before its begin."""
    def trace(end):
        return [B.magic(), *provider(1, KHZ), ev("duration_begin", 1), B.initialization(MHZ),
                ev("instant", 1_500), B.initialization(GHZ), ev("duration_end", end)]
    assert codes(lint(trace(2_000_000), order)) == Counter()
    (d,) = [d for d in lint(trace(500_000), order).diagnostics if d.code != "EX002"]
    assert d.code == "PR002" and "tick 500,000 of 1 GHz (500 µs)" in d.message and "tick 1 of 1 kHz (1 ms)" in d.message


@pytest.mark.parametrize("order", ORDERS)
def test_an_async_operation_across_a_rate_change(order):
    """Begun at tick 10 of 1 kHz (10 ms), ended at tick 20,000,000 of 1 GHz (20 ms):
    correct; ended at tick 5,000,000 (5 ms): the end has no live begin, the begin stays open."""
    def trace(end):
        return [B.magic(), *provider(1, KHZ), ev("async_begin", 10, id=3), B.initialization(GHZ),
                ev("async_end", end, id=3)]
    assert codes(lint(trace(20_000_000), order)) == Counter()
    assert codes(lint(trace(5_000_000), order)) == Counter({"PR005": 1, "PR004": 1})


@pytest.mark.parametrize("order", ORDERS)
def test_a_complete_event_encloses_a_flow_of_another_provider_by_time(order):
    """A complete event of 1 kHz from 1 ms to 5 ms encloses a flow at 3 ms written by a
    1 GHz provider on the same thread; at 6 ms it does not (PR008)."""
    def trace(flow_ticks):
        return [B.magic(), *provider(1, KHZ), ev("duration_complete", 1, end_timestamp=5),
                *provider(2, GHZ), ev("flow_begin", flow_ticks, id=9), ev("flow_end", flow_ticks, id=9)]
    assert codes(lint(trace(3_000_000), order)) == Counter()
    assert codes(lint(trace(6_000_000), order)) == Counter({"PR008": 2})


# -- exact near 2^64 -------------------------------------------------------------------------
RA, RB = 10**9 + 7, 999_999_937  # coprime rates, neither dividing the other
TA = 18_000_000_000_000_000_000  # 1.8e19 ticks: under 2^64 ns at both rates


@pytest.mark.parametrize("order", ORDERS)
def test_instants_half_a_microsecond_apart_near_2_64_order_exactly(order):
    """An end 0.5 µs before its begin, at ticks near 2^64 of two coprime rates: the same
    double (so a float reading cannot order them), an early end read exactly; 0.5 µs after
    it, correct."""
    t_begin = Fraction(TA, RA)
    before = math.floor(t_begin * RB) - 499
    after = math.ceil(t_begin * RB) + 499
    assert float(TA) / RA == float(before) / RB  # the precondition: doubles cannot tell

    def trace(end):
        return [B.magic(), *provider(1, RA), ev("duration_begin", TA), *provider(2, RB), ev("duration_end", end)]
    assert codes(lint(trace(after), order)) == Counter()
    (d,) = [d for d in lint(trace(before), order).diagnostics if d.code != "EX002"]
    assert d.code == "PR002" and f"tick {before:,} of" in d.message


def test_time_key_orders_exactly():
    t_begin = Fraction(TA, RA)
    for end in (math.floor(t_begin * RB), math.ceil(t_begin * RB)):
        assert (T.time_key(end, RB) < T.time_key(TA, RA)) == (Fraction(end, RB) < t_begin)
        assert T.before(end, RB, TA, RA) == (Fraction(end, RB) < t_begin)
    assert T.time_key(3, 3) == T.time_key(10**9, 10**9) == T.time_key(7, 7)  # one second, three ways


@given(st.integers(0, 2**64 - 1), st.integers(1, 2**64 - 1), st.integers(0, 2**64 - 1), st.integers(1, 2**64 - 1))
def test_time_key_is_the_order_of_the_rationals(t1, r1, t2, r2):
    a, b = Fraction(t1, r1), Fraction(t2, r2)
    ka, kb = T.time_key(t1, r1), T.time_key(t2, r2)
    assert (ka < kb) == (a < b) and (ka == kb) == (a == b)
    assert T.before(t1, r1, t2, r2) == (a < b)


def test_words_for_an_instant():
    assert T.instant_text(2, KHZ) == "tick 2 of 1 kHz (2 ms)"
    assert T.instant_text(1_000, GHZ) == "tick 1,000 of 1 GHz (1 µs)"
    assert T.instant_text(1_000_500, GHZ) == "tick 1,000,500 of 1 GHz (1.0005 ms)"
    assert T.rate_text(19_200_000) == "19.2 MHz" and T.rate_text(RB) == "999,999,937 Hz"
    assert T.duration_text(Fraction(1, 3)) == "~333.333333 ms"
    assert T.ticks_at(Fraction(1, 3), 1000) == 333 and T.ticks_at(Fraction(1, 3), 1000, up=True) == 334
    assert T.ticks_at(Fraction(1, 2), 1000, up=True) == 500


# -- metamorphic: a clock read at another rate, or restated, changes no finding ---------------
def _scaled(records: list[Record], factor: int) -> list[Record] | None:
    """Every tick rate and every timestamp multiplied by ``factor`` (the archives of
    ``record_lists`` have one provider); None when a value no longer fits in 64 bits."""
    out = []
    for rec in records:
        fields = dict(rec.fields)
        if rec.kind == "initialization":
            fields["ticks_per_second"] *= factor
        for name in TIMESTAMPS.get(rec.kind, ()):
            if name in fields:
                fields[name] *= factor
        if any(v >= 1 << 64 for v in fields.values() if isinstance(v, int)):
            return None
        out.append(dataclasses.replace(rec, fields=fields))
    return out


def _where(report, shift_from=None, by=0):
    """(code, record index, offset) of each finding; those at or after record index
    ``shift_from`` moved ``by`` bytes and one record."""
    out = []
    for d in report.diagnostics:
        idx, off = d.record_index, d.offset
        if shift_from is not None and idx is not None and idx >= shift_from:
            idx, off = idx + 1, off + by
        out.append((d.code, idx, off))
    return sorted(out, key=str)


@st.composite
def traces_with_findings(draw):
    """An archive of ``record_lists``, sometimes with one record after its preamble
    dropped (so pairing, refs and the rest have something to say)."""
    recs = draw(record_lists(max_size=12))
    if len(recs) > 5 and draw(st.booleans()):
        del recs[draw(st.integers(5, len(recs) - 1))]
    return recs


@settings(max_examples=60, deadline=None)
@given(traces_with_findings(), st.integers(2, 10**6), st.sampled_from(ORDERS))
def test_scaling_a_providers_rate_and_timestamps_changes_no_finding(recs, factor, order):
    scaled = _scaled(recs, factor)
    assume(scaled is not None)
    want = _where(fxtlint.lint_bytes(B.archive(*recs, byte_order=order), engine="reference"))
    for engine in ENGINES:
        got = fxtlint.lint_bytes(B.archive(*scaled, byte_order=order), engine=engine)
        assert _where(got) == want, engine


@settings(max_examples=60, deadline=None)
@given(traces_with_findings(), st.data())
def test_restating_the_current_rate_changes_no_finding(recs, data):
    at = data.draw(st.integers(4, len(recs)), label="insert at")
    rate = next(r.fields["ticks_per_second"] for r in reversed(recs[:at]) if r.kind == "initialization")
    init = B.initialization(rate)
    want = _where(fxtlint.lint_bytes(B.archive(*recs), engine="reference"), shift_from=at,
                  by=len(B.archive(init)))
    for engine in ENGINES:
        got = fxtlint.lint_bytes(B.archive(*recs[:at], init, *recs[at:]), engine=engine)
        assert _where(got) == want, engine
