"""Verdicts fixed in issue 10: scopes and limits no stricter than the spec's text.

Flows are keyed by their id alone (the spec matches "a Flow End Event using the same
flow correlation id"; a flow "may span multiple threads or abstraction layers");
the structured-log format has its own argument types and limits.
"""

from __future__ import annotations

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.rules import _ex as X

ev = B.event
THREADS = (B.thread(2, 20, 21), B.thread(3, 30, 31))  # processes 20 and 30; thread 1 is in 10


def counts(*records) -> dict:
    data = X.preamble(*THREADS, *records)
    fast = fxtlint.lint_bytes(data)
    assert fast.diagnostics == fxtlint.lint_bytes(data, engine="reference").diagnostics
    return fast.counts


def in_duration(thread, ts, *events):
    return [ev("duration_begin", ts, thread=thread), *events, ev("duration_end", ts + 9, thread=thread)]


FLOWS = {
    "begin in one process, end in another": (
        in_duration(1, 0, ev("flow_begin", 1, id=8)) + in_duration(2, 10, ev("flow_end", 11, thread=2, id=8)),
        {}),
    "begin, step and end in three processes": (
        in_duration(1, 0, ev("flow_begin", 1, id=8)) + in_duration(2, 10, ev("flow_step", 11, thread=2, id=8))
        + in_duration(3, 20, ev("flow_end", 21, thread=3, id=8)),
        {}),
    "a stray second end in a third process": (
        in_duration(1, 0, ev("flow_begin", 1, id=8)) + in_duration(2, 10, ev("flow_end", 11, thread=2, id=8))
        + in_duration(3, 20, ev("flow_end", 21, thread=3, id=8)),
        {"PR007": 1}),
    "a second end in the same process": (
        in_duration(1, 0, ev("flow_begin", 1, id=8), ev("flow_end", 2, id=8), ev("flow_end", 3, id=8)),
        {"PR007": 1}),
    "the same id begun twice in two processes": (
        in_duration(1, 0, ev("flow_begin", 1, id=8)) + in_duration(2, 10, ev("flow_begin", 11, thread=2, id=8))
        + in_duration(3, 20, ev("flow_end", 21, thread=3, id=8)),
        {"PR006": 1}),
    "a flow never ended": (in_duration(1, 0, ev("flow_begin", 1, id=8)), {"PR004": 1}),
    "async ids stay scoped to their process": (
        [ev("async_begin", 1, id=3), ev("async_end", 2, thread=2, id=3)], {"PR005": 1, "PR004": 1}),
}


@pytest.mark.parametrize("records, expected", FLOWS.values(), ids=FLOWS.keys())
def test_flows_are_keyed_by_id(records, expected):
    assert counts(*records) == expected


def _log(*args) -> bytes:
    return B.log_stream(B.log_record(0x30, 1000, list(args)))


@pytest.mark.parametrize("arg_type", [0, 1, 2, 7, 8, 10, 11, 12, 13, 14, 15])
def test_every_type_the_log_format_does_not_define_is_the_same_error(arg_type):
    data = _log(B.raw_arg(arg_type, "n", b"\0" * 8) if arg_type > 10 else _arg_of_type(arg_type))
    report = fxtlint.lint_bytes(data, input_format="log")
    assert report.counts.get("SL004") == 1 and "UN003" not in report.counts
    (d,) = [d for d in report.diagnostics if d.code == "SL004"]
    assert d.severity == fxtlint.Severity.ERROR and d.details["found"] == arg_type


def _arg_of_type(t: int):
    kind = fxtlint.tables().arguments[t].name
    return B.arg(kind, "n", b"xy" if kind == "blob" else None)


def test_undefined_argument_type_in_a_trace_is_still_only_a_warning():
    assert counts(ev("instant", 5, args=[B.raw_arg(12, 1, b"\0" * 8)])) == {"UN003": 1}


def test_log_strings_have_no_32000_byte_limit():
    report = fxtlint.lint_bytes(_log(B.arg("string", "message", "a" * 32001)), input_format="log")
    assert report.counts == {}


def test_trace_strings_keep_the_32000_byte_limit():
    assert counts(ev("instant", 5, name="a" * 32001)) == {"ST004": 1}
