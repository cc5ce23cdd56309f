# Invariant: the reader never raises on any bytes, and never reads outside the record it
# is in: the records it returns tile the buffer from offset 0, in order, each inside the
# buffer, and every diagnostic points inside the file. Each input is also read cut at
# every 8-byte boundary (small inputs) or at a few points (large ones), and one byte short.
"""atheris harness for fxtlint's recovering reader: python fuzz/fuzz_reader.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint


def _one(data: bytes) -> None:
    for byte_order in (None, "big"):
        records, diags = fxtlint.read_records(data, byte_order=byte_order)
        pos = 0
        for r in records:
            assert r.offset == pos, (r.offset, pos)
            assert 0 < r.end <= len(data)
            pos = r.end
        for d in diags:
            assert 0 <= d.offset <= len(data), d
            if d.span is not None:
                assert 0 <= d.span[0] <= d.span[1] <= len(data), d
    fxtlint.read_records(data, log=True)


EVERY_CUT_UP_TO = 512  # bytes: below this every record-aligned prefix is read


def check(data: bytes) -> None:
    _one(data)
    n = len(data)
    cuts = set(range(0, n, 8)) if n <= EVERY_CUT_UP_TO else {n // 2 // 8 * 8, n - 8}
    for cut in cuts | {n - 1}:
        if 0 <= cut < n:
            _one(data[:cut])


if __name__ == "__main__":
    _harness.fuzz(check)
