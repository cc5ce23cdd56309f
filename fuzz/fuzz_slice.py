# Invariant: slice never raises on any bytes, cut by size, by time or to a time range (the
# input's last two bytes draw which and how much: a range in eighths of the trace's time,
# before, inside, after or across it, or empty), and its pass on the native walk writes
# exactly the pieces the record-by-record pass writes, and reads the same time range of the
# trace (where the walk is built); when the input lints clean, every piece lints clean and,
# cut by size or time, the pieces' events together, without those a cut wrote, are the
# input's events in the canonical decoding; and each piece's verdict the cut's walk proves
# (the ride, ``rewrite/_slice_ride``) is the lint's of the piece. (A broken input's pieces
# may read differently: the CLI says each piece's verdict and exits 1 when one has an error.)
"""atheris harness for ``fxtlint slice``: python fuzz/fuzz_slice.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import io
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint
from fxtlint.reader_suite._canonical import decode
from fxtlint.rewrite._repair import MARK_NAME
from fxtlint.rewrite._slice import Cutter, slice_trace, time_range, time_range_by_records


class _Kept(io.BytesIO):
    def close(self):  # the slicer closes each piece: keep its bytes
        pass


def pieces(data: bytes, cutter, shortcut: bool = True) -> list:
    outs = {}

    def open_out(i):  # (a trace whose instants go back is cut twice: piece i again replaces the first)
        outs[i] = _Kept()
        return outs[i]

    log = slice_trace(data, open_out, cutter, shortcut=shortcut, ride=shortcut)
    parts = [outs[i].getvalue() for i in sorted(outs)]
    for p, verdict in zip(parts, log.verdicts or ()):  # (None: not proven, the CLI lints the file)
        if verdict is not None:
            labels = [d.severity.label for d in fxtlint.lint_bytes(p, input_format="trace").diagnostics]
            assert verdict == (labels.count("error"), labels.count("warning")), "a ridden verdict is not the lint's"
    return parts


def events(data: bytes) -> list:
    return [r for r in decode(data).records if r["kind"].startswith("event.")
            and not any(a["name"] == MARK_NAME for a in r.get("arguments", ()))]


def check(data: bytes) -> None:
    how = data[-2:] if len(data) >= 2 else b"\0\0"
    span = time_range_by_records(data)
    assert time_range(data) == span, "the walk's time range is not the record-by-record pass's"
    start, length = (span.start, span.end - span.start) if span is not None else (Fraction(0), Fraction(8, 10**6))
    lo, hi = (start + length * ((how[1] >> 4) - 4) / 8, start + length * ((how[1] & 15) - 4) / 8)

    def cutter():
        if how[0] % 3 == 2:
            return Cutter(start=None if how[0] & 4 else lo, end=None if how[0] & 8 else hi)
        return Cutter(size=8 + 8 * how[1]) if how[0] % 3 else Cutter(span=Fraction(1 + how[1], 10**6))

    parts = pieces(data, cutter())
    assert parts == pieces(data, cutter(), shortcut=False), "the walk's pieces are not the record-by-record pass's"
    for p in parts:
        fxtlint.lint_bytes(p)  # a piece lints without raising
    if not fxtlint.lint_bytes(data, input_format="trace").counts:
        for p in parts:
            assert not fxtlint.lint_bytes(p).counts, "a piece of a clean trace does not lint clean"
        if how[0] % 3 != 2:
            assert [e for p in parts for e in events(p)] == events(data), "the pieces' events are not the input's"


if __name__ == "__main__":
    _harness.fuzz(check)
