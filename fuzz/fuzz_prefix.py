# Invariant: reading a prefix data[:k] yields a prefix of the records read from data:
# exactly the records of data that end at or before k, decoded the same (kind, fields,
# strings, arguments, offset), in either input format. A reader that looks past the
# record it is in, or decodes a record differently once later bytes exist, breaks it.
# A record whose size was settled by its content (resync_offset) looks ahead, so only
# the records before it are held to the property.
"""atheris harness for the reader's prefix property: python fuzz/fuzz_prefix.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # noqa: E402  (puts a source checkout's fxtlint on the path)

import fxtlint  # noqa: E402
from fxtlint.engine._reader import declared_size, detect_byte_order  # noqa: E402


def _key(r):
    return (r.offset, r.size_words, r.complete, r)  # Record equality leaves out offset and size


def _cuts(data: bytes, records) -> set[int]:
    ends = [r.end for r in records]
    cuts = {len(data) // 2, len(data) - 1, 8, 9}
    if ends:
        cuts |= {ends[0], ends[len(ends) // 2] - 1, ends[-1] - 8, ends[-1] + 3}
    return {k for k in cuts if 0 <= k < len(data)}


def _settled(data: bytes, records) -> int:
    """How many records come before the first one whose size its content settled
    (resync_offset): that framing looks at the records after it, so it may differ
    between a prefix and the whole."""
    order = detect_byte_order(data) or "little"
    for i, r in enumerate(records):
        if r.size_words != declared_size(int.from_bytes(data[r.offset : r.offset + 8], order)):
            return i
    return len(records)


def check(data: bytes) -> None:
    for log in (False, True):  # the byte order comes from the first word, which every cut >= 8 keeps
        whole, _ = fxtlint.read_records(data, log=log)
        for k in _cuts(data, whole):
            part, _ = fxtlint.read_records(data[:k], log=log)
            expect = [r for r in whole if r.end <= k]
            got = part
            if not log:
                n = min(_settled(data, whole), _settled(data[:k], part))
                if n < max(len(expect), len(part)):
                    got, expect = part[:n], expect[:n]
            assert [_key(r) for r in got] == [_key(r) for r in expect], (k, len(part), len(expect))


if __name__ == "__main__":
    _harness.fuzz(check)
