# Invariant: reading a prefix data[:k] yields a prefix of the records read from data:
# exactly the records of data that end at or before k, decoded the same (kind, fields,
# strings, arguments, offset), in either input format. A reader that looks past the
# record it is in, or decodes a record differently once later bytes exist, breaks it.
"""atheris harness for the reader's prefix property: python fuzz/fuzz_prefix.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # noqa: E402  (puts a source checkout's fxtlint on the path)

import fxtlint  # noqa: E402


def _key(r):
    return (r.offset, r.size_words, r.complete, r)  # Record equality leaves out offset and size


def _cuts(data: bytes, records) -> set[int]:
    ends = [r.end for r in records]
    cuts = {len(data) // 2, len(data) - 1, 8, 9}
    if ends:
        cuts |= {ends[0], ends[len(ends) // 2] - 1, ends[-1] - 8, ends[-1] + 3}
    return {k for k in cuts if 0 <= k < len(data)}


def check(data: bytes) -> None:
    for log in (False, True):  # the byte order comes from the first word, which every cut >= 8 keeps
        whole, _ = fxtlint.read_records(data, log=log)
        for k in _cuts(data, whole):
            part, _ = fxtlint.read_records(data[:k], log=log)
            expect = [r for r in whole if r.end <= k]
            assert [_key(r) for r in part] == [_key(r) for r in expect], (k, len(part), len(expect))


if __name__ == "__main__":
    _harness.fuzz(check)
