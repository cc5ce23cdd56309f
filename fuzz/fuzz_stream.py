# Invariant: linting the input as a stream, fed in chunks whose sizes the input itself
# draws (its last bytes, one byte at a time included), gives exactly the report of
# linting it whole (every field of the JSON: counts, spans, details, summary), and the
# findings feed and close returned are each counted once; reading it as a stream gives
# read_records' records and diagnostics. The same holds for the stream joined after its
# magic record (a circular buffer's, or a stream joined mid-way: the magic search runs on
# every advance until 4,096 records are in), and for the input as a file read a chunk at
# a time (``_file.FileSource``); such a file that held fewer bytes than it had when opened
# (it shrank while read) raises FileChanged and nothing else. A walk that decides from
# bytes it has not received yet, or says a finding twice across a chunk boundary, breaks it.
"""atheris harness for the incremental reader and linter:
python fuzz/fuzz_stream.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness

import fxtlint
from fxtlint.engine import _file, _stream_buffer
from fxtlint.engine._reader import MAGIC_BE, MAGIC_LE
from fxtlint.engine._stream_lint import lint_chunks

PLAN = 8  # trailing bytes that draw the chunk sizes and the step (kept as trace bytes too)
# a stream's buffer (a file's read in chunks too) starts at FIRST bytes, not 1 MiB, so that it
# grows again and again under the walk within an input: a walk that reads a record from the
# map of before a growth breaks the invariant (a stream's lint stopped short so, unseen,
# while every input stayed under the first map)
FIRST = 64
SMALL = fxtlint.Limits(window_words=32, pairing_window=7)  # window edges inside small inputs


def chunks(data: bytes) -> list[bytes]:
    """``data`` cut into chunks of 1 to 64 bytes, the sizes cycling through its last bytes."""
    sizes = [1 + b % 64 for b in data[-PLAN:]] or [1]
    out, at, k = [], 0, 0
    while at < len(data):
        n = sizes[k % len(sizes)]
        out.append(data[at : at + n])
        at += n
        k += 1
    return out


def _whole(data: bytes, fmt: str, limits) -> dict:
    j = fxtlint.lint_bytes(data, input_format=fmt, limits=limits).to_json()
    j["path"] = "-"
    return j


def check(data: bytes) -> None:
    first, _stream_buffer._FIRST = _stream_buffer._FIRST, FIRST
    try:
        one(data)
        if data[:8] in (MAGIC_LE, MAGIC_BE) and len(data) > 1 and data[-2] & 1:
            one(data[8:])  # the same stream without its magic record, cut the same way
        as_file(data)
    finally:
        _stream_buffer._FIRST = first


def as_file(data: bytes) -> None:
    """The input as a file read in chunks of 1 to 97 bytes; then as one that shrank."""
    limits = SMALL if data[:1] and data[0] & 1 else fxtlint.Limits()
    chunk, _file.CHUNK = _file.CHUNK, 1 + (data[-1] % 97 if data else 0)
    try:
        got = fxtlint.lint_buffer(_file.FileSource(io.BytesIO(data), "-", len(data)), path="-", limits=limits)
        assert got.to_json() == _whole(data, "auto", limits)
        shrunk = _file.FileSource(io.BytesIO(data), "-", len(data) + 1 + (data[0] % 9 if data else 0))
        try:
            fxtlint.lint_buffer(shrunk, limits=limits)
        except _file.FileChanged:
            return
        raise AssertionError("a file that shrank while read was linted as whole")
    finally:
        _file.CHUNK = chunk


def one(data: bytes) -> None:
    parts = chunks(data)
    step = 1 + (data[-1] % 97 if data else 0)
    limits = SMALL if data[:1] and data[0] & 1 else fxtlint.Limits()
    for fmt in ("auto", "log"):
        report, found = lint_chunks(parts, input_format=fmt, step=step, limits=limits)
        got = report.to_json()
        assert got == _whole(data, fmt, limits), fmt
        assert len(found) == sum(got["counts"].values()), (len(found), got["counts"])
    key = fxtlint.Diagnostic.sort_key
    for fmt in ("trace", "log"):
        reader = fxtlint.StreamReader(input_format=fmt, step=step)
        items = []
        for c in parts:
            items += reader.feed(c)
        items += reader.close()
        # a structured-log stream is little-endian whatever its first word (as every verb reads it)
        records, diags = fxtlint.read_records(data, log=fmt == "log", byte_order="little" if fmt == "log" else None)
        assert [x for x in items if isinstance(x, fxtlint.Record)] == records, fmt
        assert sorted((x for x in items if isinstance(x, fxtlint.Diagnostic)), key=key) == sorted(diags, key=key)


if __name__ == "__main__":
    _harness.fuzz(check)
