"""Trace Event Format export: structure checked by an independent validator written from
the format's document (tests/tef_validator.py), counts checked against the report."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from itertools import pairwise

import pytest

import fxtlint
from conftest import CORPUS_REAL, REPO
from fxtlint import build as B
from fxtlint.engine import _native
from fxtlint.export._export_tef import document, ticks_to_us, write_document
from fxtlint.spec._tables import tables
from fxtlint.writer_report._conformance_report import trace_report
from tef_validator import exact_ints, validate

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
REAL = sorted(CORPUS_REAL.glob("jane-*.fxt"))  # the copies in tests/data: never empty, never skipped
# each statistics counter and the phase its events become
PHASE_OF = {("durations", "duration_begin"): "B", ("durations", "duration_end"): "E",
            ("durations", "duration_complete"): "X", ("async", "async_begin"): "b",
            ("async", "async_instant"): "n", ("async", "async_end"): "e", ("flows", "flow_begin"): "s",
            ("flows", "flow_step"): "t", ("flows", "flow_end"): "f", ("counters", "counter"): "C",
            ("instants", "instant"): "i"}


def _pre(*recs, rate=None):
    head = [B.magic(), B.provider_info(1, "p"), B.provider_section(1)]
    if rate is not None:
        head.append(B.initialization(rate))
    return B.archive(*head, B.string(1, "cat"), B.string(2, "name"), B.thread(1, 10, 11), *recs)


def _counts_match(data: bytes) -> None:
    doc, export = document(data)
    assert validate(doc) == []
    stats = trace_report(data)["statistics"]["events"]
    phases = {}
    for ev in doc["traceEvents"]:
        phases[ev["ph"]] = phases.get(ev["ph"], 0) + 1
    for (group, kind), ph in PHASE_OF.items():
        assert phases.get(ph, 0) == stats[group][kind], (group, kind)
    assert export.skipped_lines() == []


def test_sample_exports_valid_trace_events_whose_counts_match_the_report():
    _counts_match(SAMPLE.read_bytes())


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_real_traces_export_valid_trace_events_whose_counts_match(path):
    _counts_match(path.read_bytes())


def test_streamed_document_equals_the_built_one_and_is_the_object_format():
    data = SAMPLE.read_bytes()
    out = io.StringIO()
    write_document(data, out, source="s")
    doc, _ = document(data, source="s")
    assert json.loads(out.getvalue()) == doc
    assert doc["displayTimeUnit"] == "ns" and isinstance(doc["traceEvents"], list)


def test_each_event_kind_becomes_its_phase_with_ids_scope_and_dur():
    data = _pre(
        B.event("instant", 1000), B.event("counter", 1000, id=3, args=[B.arg("int64", "n", 1)]),
        B.event("duration_complete", 1000, end_timestamp=4000),
        B.event("async_begin", 1000, id=0xABC), B.event("async_instant", 1500, id=0xABC),
        B.event("async_end", 2000, id=0xABC), B.event("flow_begin", 1000, id=7),
        B.event("flow_step", 1100, id=7), B.event("flow_end", 1200, id=7),
    )
    evs = document(data)[0]["traceEvents"]
    by = {e["ph"]: e for e in evs}
    assert sorted(by) == sorted("iCXbnestf")
    assert by["i"]["s"] == "t"
    assert by["X"]["dur"] == 3 and by["X"]["ts"] == 1  # 1 tick = 1 ns without an Initialization record
    assert by["b"]["id"] == by["e"]["id"] == "0xabc"
    assert by["s"]["id"] == by["f"]["id"] == "0x7" and by["f"]["bp"] == "e"
    assert by["C"]["args"] == {"n": 1} and by["C"]["id"] == "0x3"
    assert all(e["pid"] == 10 and e["tid"] == 11 and e["cat"] == "cat" for e in evs)


def test_timestamps_use_the_tick_rate_exactly():
    assert ticks_to_us(3, 3) == 1_000_000 and isinstance(ticks_to_us(3, 3), int)
    assert ticks_to_us(1, 3) == pytest.approx(333333.3333333)
    evs = document(_pre(B.event("instant", 25_000), rate=25_000_000))[0]["traceEvents"]
    assert evs[0]["ts"] == 1000


def test_64_bit_integers_stay_exact_json_integers():
    big = [B.arg("uint64", "u", 2**64 - 1), B.arg("int64", "i", -(2**63)), B.arg("koid", "k", 2**63 + 1),
           B.arg("uint32", "w", 2**32 - 1), B.arg("pointer", "p", 0xFFFF0000FFFF0000)]
    data = _pre(B.event("instant", 5, args=big, thread=(2**64 - 2, 2**63)))
    out = io.StringIO()
    write_document(data, out)
    text = out.getvalue()
    assert "18446744073709551615" in text and "-9223372036854775808" in text and exact_ints(text)
    ev = json.loads(text)["traceEvents"][0]
    assert ev["args"] == {"u": 2**64 - 1, "i": -(2**63), "k": 2**63 + 1, "w": 2**32 - 1, "p": "0xffff0000ffff0000"}
    assert (ev["pid"], ev["tid"]) == (2**64 - 2, 2**63)


def test_process_and_thread_names_become_metadata_events():
    evs = document(SAMPLE.read_bytes())[0]["traceEvents"]
    meta = [(e["name"], e["pid"], e["tid"], e["args"]["name"]) for e in evs if e["ph"] == "M"]
    assert meta == [("process_name", 1000, 0, "sample process"), ("thread_name", 1000, 1001, "main thread")]


def test_a_broken_trace_exports_what_was_read_and_says_what_was_skipped():
    data = _pre(B.event("duration_begin", 1), B.event("instant", 2, thread=9),  # thread 9: never registered
                B.event("instant", 3, name=99), B.event("duration_end", 4))
    data += bytes(8)  # a size-0 header: the reader stops here
    doc, export = document(data)
    assert [e["ph"] for e in doc["traceEvents"]] == ["B", "i", "E"]
    assert doc["traceEvents"][1]["name"] == "<string #99>"
    lines = export.skipped_lines()
    assert "skipped 1 events on an unregistered thread ref" in lines
    assert any("unregistered string refs" in line for line in lines)
    assert any(line.startswith("the reader stopped at offset") for line in lines)
    assert validate(doc) == []


def test_an_argument_whose_content_overruns_its_size_is_skipped_not_a_crash():
    """A double argument declaring 2 words (its name and value need 3): the reader says
    ST005 and the argument has no value. The export used to raise TypeError here."""
    data = _pre(B.event("instant", 1, args=[B.arg("double", "d", 0.5)]))
    (*_, event), _ = fxtlint.read_records(data)
    size = next(f for f in tables().argument_header if f.role == "size")
    data = B.patch_field(data, size, 2, word=event.args[0].offset // 8)
    assert fxtlint.lint_bytes(data).counts.get("ST005") == 1
    doc, export = document(data)
    (ev,) = doc["traceEvents"]
    assert "args" not in ev and ev["name"] == "name"
    assert "skipped 1 arguments that did not decode" in export.skipped_lines()
    out = io.StringIO()
    write_document(data, out, engine="fast")
    assert json.loads(out.getvalue())["traceEvents"] == doc["traceEvents"]


# --------------------------------------------------------------------------- the validator
@pytest.mark.parametrize("doc, problem", [
    ([], "not the Object Format"),
    ({"traceEvents": {}}, "traceEvents is missing"),
    ({"traceEvents": [], "displayTimeUnit": "s"}, "displayTimeUnit"),
    ({"traceEvents": [{"ph": "B", "name": "a", "pid": 1, "tid": 1}]}, "ts missing"),
    ({"traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1}]}, "dur"),
    ({"traceEvents": [{"ph": "b", "name": "a", "cat": "c", "pid": 1, "tid": 1, "ts": 1}]}, "without an id"),
    ({"traceEvents": [{"ph": "s", "name": "a", "id": 1, "pid": 1, "tid": 1, "ts": 1}]}, "without a cat"),
    ({"traceEvents": [{"ph": "i", "name": "a", "pid": 1, "tid": 1, "ts": 1, "s": "x"}]}, "instant scope"),
    ({"traceEvents": [{"ph": "C", "name": "a", "pid": 1, "tid": 1, "ts": 1, "args": {"v": "x"}}]}, "numbers"),
    ({"traceEvents": [{"ph": "E", "name": "a", "pid": 1, "tid": 1, "ts": 1}]}, "no open B"),
    ({"traceEvents": [{"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 1}]}, "never ended"),
    ({"traceEvents": [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {}}]}, "args.name"),
    ({"traceEvents": [{"ph": "Q", "name": "a", "pid": 1, "tid": 1, "ts": 1}]}, "unknown phase"),
])
def test_the_validator_catches_each_broken_rule(doc, problem):
    problems = validate(doc)
    assert any(problem in p for p in problems), problems


def test_the_validator_nests_by_timestamp_per_thread():
    evs = [{"ph": "E", "name": "a", "pid": 1, "tid": 1, "ts": 5}, {"ph": "B", "name": "a", "pid": 1, "tid": 1, "ts": 1},
           {"ph": "B", "name": "b", "pid": 1, "tid": 2, "ts": 1}, {"ph": "E", "name": "b", "pid": 1, "tid": 2, "ts": 2}]
    assert validate({"traceEvents": evs}) == []
    assert validate({"traceEvents": evs[:1]}) != []


def test_a_big_endian_trace_exports_the_same_events():
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.thread(1, 10, 11),
            B.event("duration_begin", 1, name="a", args=[B.arg("uint64", "u", 2**64 - 1)]),
            B.event("duration_end", 3, name="a")]
    little = document(B.archive(*recs))[0]["traceEvents"]
    big = document(B.archive(*recs, byte_order="big"))[0]["traceEvents"]
    assert big == little and [e["ts"] for e in big] == [1000, 3000]


# -- the trace's own time across providers -----------------------------------------------
A_RATE, B_RATE = 10**9 + 7, 999_999_937  # rates that do not divide each other


def _clocks(order: str, repeat: int) -> tuple[bytes, dict]:
    """Providers at 1 GHz, 1 kHz (then 1 MHz: a rate change), 10^9+7 and 999,999,937
    ticks/s, their events turn by turn; ``repeat`` copies (more than 14 KiB: the column
    walk). Returns the archive and each event's name -> its exact time in microseconds."""
    big = (1 << 64) - 10**6
    exact: dict = {}
    recs = [B.magic()]
    for pid, name, rate in ((1, "ghz", 10**9), (2, "khz", 1000), (3, "a", A_RATE), (4, "b", B_RATE)):
        recs += [B.provider_info(pid, name), B.initialization(rate)]
    n = 0

    def ev(pid, ticks, rate):
        nonlocal n
        n += 1
        exact[f"e{n}"] = Fraction(ticks * 10**6, rate)
        return [B.provider_section(pid), B.event("instant", ticks, thread=(1, pid), category="c", name=f"e{n}")]

    for k in range(repeat):
        recs += ev(1, 3_000_500 + k, 10**9) + ev(2, 3 + k, 1000) + ev(3, big - 2 * k, A_RATE)
        recs += ev(4, -(-(big - 2 * k) * B_RATE // A_RATE) - 1, B_RATE) + ev(4, -(-(big - 2 * k) * B_RATE // A_RATE),
                                                                           B_RATE)
    recs += [B.provider_section(2), B.initialization(10**6)]
    for k in range(repeat):
        recs += ev(2, 2_500 + k, 10**6)  # 2.5 ms: before the 1 kHz events, after the rate change
    return B.archive(*recs, byte_order=order), exact


@pytest.mark.parametrize("order", ["little", "big"])
@pytest.mark.parametrize("repeat", [1, 120], ids=["records", "columns"])
def test_ts_is_each_event_s_own_time_and_keeps_the_order_of_the_exact_times(order, repeat):
    """Every engine writes each ts as the exact time in µs correctly rounded (ticks through
    its provider's rate at that record), so sorting by ts never turns two events around."""
    data, exact = _clocks(order, repeat)
    assert (len(data) > 14 * 1024) == (repeat > 1)
    engines = ["reference"] + ([] if _native.native_missing() else ["native"])
    texts = set()
    for engine in engines:
        out = io.StringIO()
        write_document(data, out, engine=engine)
        texts.add(out.getvalue())
    assert len(texts) == 1, "the engines differ"
    evs = [e for e in json.loads(texts.pop())["traceEvents"] if e["ph"] == "i"]
    assert len(evs) == len(exact)
    for e in evs:
        want = exact[e["name"]]
        assert e["ts"] == (want.numerator if want.denominator == 1 else float(want)), e
        assert isinstance(e["ts"], int) == (want.denominator == 1)
    by_time = sorted(evs, key=lambda e: exact[e["name"]])
    assert all(a["ts"] <= b["ts"] for a, b in pairwise(by_time))
    assert by_time[0]["ts"] == 2500 and by_time[-1]["ts"] > 10**13  # 2.5 ms (1 MHz) .. near 2^64 / 10^9
