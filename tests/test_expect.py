"""``--expect``: missing, extra and differing events, matched by order within a thread;
subset matching by default, exact on request."""

from __future__ import annotations

import json

import pytest

from conftest import REPO
from fxtlint import build as B
from fxtlint.writer_report._expect import ExpectError, compare, load_expected
from fxtlint.export._export_tef import iter_events

SAMPLE = (REPO / "corpus" / "samples" / "sample.fxt").read_bytes()


def _trace():
    return B.archive(B.magic(), B.initialization(1000), B.string(1, "cat"), B.thread(1, 10, 11),
                     B.thread(2, 10, 12),
                     B.event("duration_begin", 1, name="a"), B.event("instant", 2, name="i", thread=2),
                     B.event("duration_end", 3, name="a"))


def _cmp(expected, unit="us", data=None, mode="subset"):
    return compare(expected, iter_events(data if data is not None else _trace()), unit, mode)


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
    for mode, extra in (("subset", []), ("exact", [("i", 12)])):
        r = _cmp(exp, mode=mode)
        assert not r["matches"] and r["mode"] == mode
        assert [e["name"] for e in r["missing"]] == ["never"]
        assert [(e["ph"], e["tid"]) for e in r["extra"]] == extra
        (d,) = r["differing"]
        assert d["thread"] == [10, 11]
        assert d["fields"] == [{"field": "cat", "expected": "dog", "actual": "cat"},
                               {"field": "ts", "expected": 3500, "actual": 3000}]


def test_order_within_a_thread_not_across_threads():
    # the instant on thread 12 is listed first: threads are matched separately
    exp = [{"ph": "i", "name": "i", "pid": 10, "tid": 12},
           {"ph": "B", "name": "a", "pid": 10, "tid": 11}, {"ph": "E", "name": "a", "pid": 10, "tid": 11}]
    assert _cmp(exp)["matches"] and _cmp(exp, mode="exact")["matches"]
    swapped = [exp[0], exp[2], exp[1]]
    r = _cmp(swapped)
    assert not r["matches"] and r["missing_count"] == 1 and r["missing"][0]["ph"] == "B"
    r = _cmp(swapped, mode="exact")
    assert not r["matches"] and r["missing_count"] == 1 and r["extra_count"] == 1


# ---------------------------------------------------------------- a real writer's test (issue 17)


def _writer():
    """A writer's frame: metadata, an outer span, nested spans, a counter, events the test ignores."""
    ev = B.event
    return B.archive(B.magic(), B.initialization(1_000_000), B.string(1, "app"), B.thread(1, 10, 11),
                     ev("duration_begin", 50, name="main"), ev("instant", 60, name="vsync"),
                     ev("duration_begin", 100, name="frame", args=[B.arg("double", "load", 1.5),
                                                                   B.arg("uint64", "big", 1 << 63)]),
                     ev("duration_begin", 110, name="layout"), ev("duration_end", 150, name="layout"),
                     ev("duration_end", 200, name="frame"), ev("duration_end", 300, name="main"))


README_EXPECT = [{"ph": "B", "name": "frame", "ts": 100}, {"ph": "E", "name": "frame", "ts": 200}]


def test_the_readme_example_passes_for_a_writer_that_writes_more():
    r = _cmp(README_EXPECT, data=_writer())
    assert r["matches"] and r["mode"] == "subset" and r["actual_events"] == 7, r


def test_exact_mode_lists_the_events_not_expected():
    r = _cmp(README_EXPECT, data=_writer(), mode="exact")
    assert not r["matches"] and r["missing_count"] == r["differing_count"] == 0
    assert [e["name"] for e in r["extra"]] == ["main", "vsync", "layout", "layout", "main"]


def test_args_compare_key_by_key_only_the_keys_given():
    exp = [{"ph": "B", "name": "frame", "args": {"load": 1.5}}]
    assert _cmp(exp, data=_writer())["matches"]  # "big" is there too, and not asked about


def test_an_arg_that_differs_or_is_absent_is_named():
    exp = [{"ph": "B", "name": "frame", "args": {"load": 2.5, "gone": 1}}]
    (d,) = _cmp(exp, data=_writer())["differing"]
    assert d["fields"] == [{"field": "args.gone", "expected": 1, "absent": True},
                           {"field": "args.load", "expected": 2.5, "actual": 1.5}]


def test_an_expected_event_with_no_counterpart_is_missing_not_compared_with_another():
    exp = [{"ph": "b", "name": "load", "id": 7}, {"ph": "B", "name": "frame"}]
    r = _cmp(exp, data=_writer())
    assert r["differing"] == [] and [e["ph"] for e in r["missing"]] == ["b"] and r["missing_count"] == 1


def test_an_expected_event_with_a_counterpart_that_differs_is_compared_with_it():
    exp = [{"ph": "B", "name": "main"}, {"ph": "B", "name": "frame", "ts": 250}, {"ph": "E", "name": "main"}]
    r = _cmp(exp, data=_writer())
    assert r["missing"] == []
    (d,) = r["differing"]
    assert d["fields"] == [{"field": "ts", "expected": 250, "actual": 100}] and d["position"] == 1


def test_the_first_full_match_wins_over_an_earlier_near_one():
    exp = [{"ph": "B", "name": "layout", "ts": 110}]
    ev = B.event
    data = B.archive(B.magic(), B.initialization(1_000_000), B.string(1, "app"), B.thread(1, 10, 11),
                     ev("duration_begin", 90, name="layout"), ev("duration_end", 95, name="layout"),
                     ev("duration_begin", 110, name="layout"), ev("duration_end", 150, name="layout"))
    assert _cmp(exp, data=data)["matches"]


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
    assert compare(with_meta[:-1], iter_events(SAMPLE))["matches"]  # a subset
    assert not compare(with_meta[:-1], iter_events(SAMPLE), mode="exact")["matches"]


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
