"""``--expect``: missing, extra and differing events, matched by order within a thread."""

from __future__ import annotations

import json

import pytest

from conftest import REPO
from fxtlint import build as B
from fxtlint._expect import ExpectError, compare, load_expected
from fxtlint._export_tef import iter_events

SAMPLE = (REPO / "corpus" / "samples" / "sample.fxt").read_bytes()


def _trace():
    return B.archive(B.magic(), B.initialization(1000), B.string(1, "cat"), B.thread(1, 10, 11),
                     B.thread(2, 10, 12),
                     B.event("duration_begin", 1, name="a"), B.event("instant", 2, name="i", thread=2),
                     B.event("duration_end", 3, name="a"))


def _cmp(expected, unit="us", data=None):
    return compare(expected, iter_events(data if data is not None else _trace()), unit)


def test_exactly_the_written_events_match():
    exp = [{"ph": "B", "name": "a", "pid": 10, "tid": 11, "ts": 1000},
           {"ph": "E", "name": "a", "pid": 10, "tid": 11, "ts": 3000},
           {"ph": "i", "name": "i", "pid": 10, "tid": 12, "ts": 2000, "cat": "cat"}]
    r = _cmp(exp)
    assert r["matches"], r
    assert (r["expected_events"], r["actual_events"]) == (3, 3)


def test_missing_extra_and_differing_field_by_field():
    exp = [{"ph": "B", "name": "a", "pid": 10, "tid": 11, "ts": 1000},
           {"ph": "X", "name": "never", "pid": 10, "tid": 11},
           {"ph": "E", "name": "a", "pid": 10, "tid": 11, "ts": 3500, "cat": "dog"}]
    r = _cmp(exp)
    assert not r["matches"]
    assert [e["name"] for e in r["missing"]] == ["never"]
    assert [(e["ph"], e["tid"]) for e in r["extra"]] == [("i", 12)]
    (d,) = r["differing"]
    assert d["thread"] == [10, 11]
    assert d["fields"] == [{"field": "cat", "expected": "dog", "actual": "cat"},
                           {"field": "ts", "expected": 3500, "actual": 3000}]


def test_order_within_a_thread_not_across_threads():
    # the instant on thread 12 is listed first: threads are matched separately
    exp = [{"ph": "i", "name": "i", "pid": 10, "tid": 12},
           {"ph": "B", "name": "a", "pid": 10, "tid": 11}, {"ph": "E", "name": "a", "pid": 10, "tid": 11}]
    assert _cmp(exp)["matches"]
    swapped = [exp[0], exp[2], exp[1]]
    r = _cmp(swapped)
    assert not r["matches"] and r["missing_count"] == 1 and r["extra_count"] == 1


def test_timestamps_in_ticks():
    exp = {"tsUnit": "ticks", "traceEvents": [{"ph": "B", "name": "a", "ts": 1}, {"ph": "i", "name": "i", "ts": 2},
                                              {"ph": "E", "name": "a", "ts": 3}]}
    events, unit = load_expected(json.dumps(exp))
    assert unit == "ticks"
    assert _cmp(events, unit)["matches"]
    assert not _cmp(events, "us")["matches"]  # the same numbers read as microseconds are wrong


def test_args_and_ids_compare_exactly():
    exp = [{"ph": "C", "name": "requests", "args": {"queued": 3, "rate": 0.5}, "id": 1}]
    events = [e for e in iter_events(SAMPLE) if e[0]["ph"] == "C"]
    r = compare(exp, events)
    assert [f["field"] for f in r["differing"][0]["fields"]] == ["args.rate"]
    exp[0]["args"]["rate"] = 0.75
    assert compare(exp, events)["matches"]


def test_metadata_events_count_only_when_expected():
    with_meta = [e for e, _ in iter_events(SAMPLE)]
    no_meta = [e for e in with_meta if e["ph"] != "M"]
    assert compare(no_meta, iter_events(SAMPLE))["matches"]
    assert compare(with_meta, iter_events(SAMPLE))["matches"]
    assert not compare(with_meta[:-1], iter_events(SAMPLE))["matches"]


@pytest.mark.parametrize("text, where", [
    ('[{"ph": "B",\n  "name": oops}]', "EVENTS.json:2:11"),
    ('[{"ph": "B"}\n\n', "EVENTS.json:3:1"),
])
def test_malformed_json_names_line_and_column(text, where):
    with pytest.raises(ExpectError, match=where):
        load_expected(text)


@pytest.mark.parametrize("text, message", [
    ('{"events": []}', "a list of events"),
    ('[{"name": "a"}]', "has no ph"),
    ('{"tsUnit": "s", "traceEvents": []}', "tsUnit"),
    ('[{"ph": "B", "pid": 1, "tid": 1}, {"ph": "E"}]', "pid and tid"),
])
def test_unusable_expectations_say_why(text, message):
    with pytest.raises(ExpectError, match=message):
        load_expected(text)
