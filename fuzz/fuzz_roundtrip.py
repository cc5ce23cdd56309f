# Invariant: encode(read(x)) == x for every well-formed x (the reader reports nothing and
# every record decoded completely), in the byte order the magic record names.
"""atheris harness for the encoder round trip: python fuzz/fuzz_roundtrip.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint

_MAGIC_BE = fxtlint.tables().magic_word.to_bytes(8, "big")


def well_formed(data: bytes, records, diags) -> bool:
    return not diags and all(r.complete for r in records) and sum(8 * r.size_words for r in records) == len(data)


def check(data: bytes) -> None:
    records, diags = fxtlint.read_records(data)
    if well_formed(data, records, diags):
        order = "big" if data[:8] == _MAGIC_BE else "little"
        again = fxtlint.encode_records(records, order)
        assert again == data, f"encode(read(x)) != x: {len(again)} bytes for {len(data)}"


if __name__ == "__main__":
    _harness.fuzz(check)
