"""Structured-log streams: the second format, detected and checked."""

from __future__ import annotations

import pytest

import fxtlint
from fxtlint import build as B

INFO = 0x30


def stream(*recs):
    return B.log_stream(*(recs or (B.log_record(INFO, 5, [B.arg("string", "message", "hi")]),)))


def test_auto_detects_a_structured_log_stream():
    report = fxtlint.lint_bytes(stream())
    assert report.format == "log" and report.counts == {} and report.records == 1


def test_a_trace_with_log_records_stays_a_trace():
    data = B.archive(B.magic(), B.thread(1, 1, 2), B.log(5, "in a trace", thread=1))
    report = fxtlint.lint_bytes(data)
    assert report.format == "trace" and report.counts == {}


def test_forcing_trace_on_a_log_stream_says_it_is_not_fxt_and_why():
    report = fxtlint.lint_bytes(stream(), input_format="trace")
    assert report.format == "trace" and report.counts == {"MG005": 1}
    assert "looks like a structured-log stream" in report.diagnostics[0].message


def test_every_allowed_argument_type_is_clean():
    rec = B.log_record(INFO, -5, [B.arg("int64", "i", -1), B.arg("uint64", "u", 1), B.arg("double", "d", 1.5),
                                  B.arg("string", "s", "x"), B.arg("bool", "b", True)])
    report = fxtlint.lint_bytes(stream(rec), input_format="log")
    assert report.counts == {}


@pytest.mark.parametrize("severity, code", [
    (0x10, None), (0x60, None), (0x2A, "SL003"), (0x5F, "SL003"),
    (0x00, "SL002"), (0x0F, "SL002"), (0x61, "SL002"), (0xFF, "SL002"),
])
def test_severity_ranges(severity, code):
    report = fxtlint.lint_bytes(stream(B.log_record(severity, 1, [B.arg("int64", "n", 1)])), input_format="log")
    assert set(report.counts) == ({code} if code else set())


def test_reserved_bits_of_a_log_record_header():
    data = bytearray(stream())
    data[3] |= 0x01  # bit 24: inside the reserved [16..55]
    report = fxtlint.lint_bytes(bytes(data), input_format="log")
    assert set(report.counts) == {"RB001"}


def test_missing_timestamp_is_a_content_overrun():
    header = fxtlint.tables().log_record
    size = header.size_field
    h = 9 | size.put(1) | (INFO << 56)
    report = fxtlint.lint_bytes(h.to_bytes(8, "little"), input_format="log")
    assert set(report.counts) == {"ST001"}
