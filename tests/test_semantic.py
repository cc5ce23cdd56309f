"""What a trace means: tables per provider, time, and pairing, as tables of (input, expected)."""

from __future__ import annotations

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.engine._provider_state import max_ticks

PRE = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "cat"), B.string(2, "name"),
       B.thread(1, 10, 11)]


def codes(*recs, engine="fast"):
    report = fxtlint.lint_bytes(B.archive(*PRE, *recs), engine=engine)
    return sorted(d.code for d in report.diagnostics)


def begin(ts, **kw):
    return B.event("duration_begin", ts, **kw)


def end(ts, **kw):
    return B.event("duration_end", ts, **kw)


CASES = {
    # tables and refs, per provider
    "ref registered in another provider": (
        [B.provider_info(2, "q"), B.provider_section(2), B.event("instant", 1)], ["RF001", "RF001", "RF002"]),
    "back in the first provider its tables apply": (
        [B.provider_info(2, "q"), B.provider_section(1), B.event("instant", 1)], []),
    "string used before it is registered": (
        [B.event("instant", 1, name=5), B.string(5, "five"), B.event("instant", 2, name=5)], ["RF001"]),
    "argument name and value refs are checked": (
        [B.event("instant", 1, args=[B.arg("string", 7, 8)])], ["RF001", "RF001"]),
    "kernel object name ref is checked": ([B.kernel_object(5, 2, 9)], ["RF001"]),
    "thread ref 0 means inline koids": ([B.event("instant", 1, thread=(10, 11))], []),
    "re-registration replaces the value": (
        [B.string(2, "other"), B.event("instant", 1)], ["RF007"]),
    "re-registration with the same value is silent": ([B.string(2, "name")], []),
    "thread re-registration to new koids": ([B.thread(1, 10, 12)], ["RF007"]),
    "section for an unannounced provider": ([B.provider_section(7)], ["RF005"]),
    "undefined metadata type is a warning": ([B.unknown(0, b"", bits=9)], ["UN002"]),
    # time
    "tick rate zero": ([B.initialization(0)], ["TM001"]),
    "overflow limit is exact": (
        [B.initialization(1000), B.event("instant", max_ticks(1000)),
         B.event("instant", max_ticks(1000) + 1)], ["TM003"]),
    "no overflow at 1 tick per ns": ([B.event("instant", (1 << 64) - 1)], []),
    "rate applies per provider": (
        [B.initialization(1000), B.provider_info(2, "q"), B.provider_section(2), B.string(1, "c"),
         B.string(2, "n"), B.thread(1, 3, 4), B.event("instant", 1 << 62)], []),
    "complete event end before start": ([B.event("duration_complete", 9, end_timestamp=3)], ["TM002"]),
    # durations
    "nested durations close cleanly": ([begin(1), begin(2, name=1), end(3, name=1), end(4)], []),
    "records out of timestamp order": ([end(9), begin(1)], []),
    "indexed and inline refs to one thread pair up": ([begin(1), end(2, thread=(10, 11))], []),
    "same koids on another thread do not": ([begin(1), end(2, thread=(10, 99))], ["PR001", "PR004"]),
    "inline and indexed names compare by text": ([begin(1, name="name"), end(2)], []),
    "end with another name closes the top": ([begin(1), end(2, name=1)], ["PR002"]),
    "outer end skips an unended inner begin": ([begin(1), begin(2, name=1), end(3)], ["PR003"]),
    "unterminated at end is its own rule": ([begin(1)], ["PR004"]),
    # async and flows
    "async scoped by name": (
        [B.event("async_begin", 1, id=4), B.event("async_end", 2, id=4, name=1)], ["PR004", "PR005"]),
    "async instant inside begin/end": (
        [B.event("async_begin", 1, id=4), B.event("async_instant", 2, id=4), B.event("async_end", 3, id=4)], []),
    "async across threads of one process": (
        [B.thread(2, 10, 12), B.event("async_begin", 1, id=4), B.event("async_end", 3, id=4, thread=2)], []),
    "async in another process is another operation": (
        [B.thread(2, 20, 21), B.event("async_begin", 1, id=4), B.event("async_end", 3, id=4, thread=2)],
        ["PR004", "PR005"]),
    "second async begin on a live id": (
        [B.event("async_begin", 1, id=4), B.event("async_begin", 2, id=4), B.event("async_end", 3, id=4)],
        ["PR006"]),
    "flow inside a complete event": (
        [B.event("duration_complete", 1, end_timestamp=9), B.event("flow_begin", 2, id=1),
         B.event("flow_end", 3, id=1)], []),
    "flow after the complete event ended": (
        [B.event("duration_complete", 1, end_timestamp=2), B.event("flow_begin", 3, id=1),
         B.event("flow_end", 4, id=1)], ["PR008", "PR008"]),
    "flow step without begin": ([begin(1), B.event("flow_step", 2, id=5), end(3)], ["PR007"]),
    "flow never ended": ([begin(1), B.event("flow_begin", 2, id=5), end(3)], ["PR004"]),
    # counters, scheduling, buffer full
    "counter with a pointer argument": (
        [B.event("counter", 1, id=1, args=[B.arg("pointer", 1, 5)])], ["EV001"]),
    "counter with numeric arguments": (
        [B.event("counter", 1, id=1, args=[B.arg("int32", 1, 5), B.arg("double", 2, 0.5)])], []),
    "legacy context switch out running": ([B.legacy_context_switch(1, 0, 1, incoming_thread=(1, 2))], ["EV002"]),
    "undefined thread state": ([B.context_switch(1, 0, 9, 10, 11)], ["UN004"]),
    "buffer full": ([B.provider_event(1, 0), end(5)], ["PR001", "EV003"]),
}


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_semantic_case(name, engine):
    recs, expected = CASES[name]
    assert codes(*recs, engine=engine) == sorted(expected)


def test_buffer_full_is_in_the_summary():
    report = fxtlint.lint_bytes(B.archive(*PRE, B.provider_event(1, 0)))
    assert report.summary["buffer_full_at"] == [len(B.archive(*PRE))]


def test_max_ticks_is_the_exact_boundary():
    for rate in (1, 999, 1000, 10**9 - 1, 10**9, 10**12):
        m = max_ticks(rate)
        assert m * 10**9 // rate < 1 << 64
        if m < (1 << 64) - 1:
            assert (m + 1) * 10**9 // rate >= 1 << 64


def test_messages_name_the_strings():
    report = fxtlint.lint_bytes(B.archive(*PRE, begin(1), end(2, name=1)))
    (d,) = report.diagnostics
    assert "cat/cat" in d.message and "cat/name" in d.message
