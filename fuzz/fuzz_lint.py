# Invariant: lint never raises on any bytes, in either engine or input format; every
# diagnostic lies inside the file with a registered code; the native walk (engine "walk",
# where it is built) reports exactly what the per-record reference engine reports (the
# whole JSON report: every diagnostic's code, severity, offset, record index, message,
# span, record size and details), on the input and, as its last byte picks, on the input
# read as a structured-log stream (odd) or on its big-endian twin (2 mod 4, a
# little-endian trace: every word byte-swapped); linting the same bytes
# twice gives the same report; and the verdict on a trace follows the spec's reading by
# declared sizes (declared_reading.py): where that reading meets an error the lint fails,
# and it stops framing where that reading does.
"""atheris harness for fxtlint's linter: python fuzz/fuzz_lint.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path
import declared_reading

import fxtlint
from fxtlint.rules import REGISTRY

# the lint's engine checked against the reference: the native walk where it is built (where
# it is not, "walk" lints on the reference engine and the comparison holds trivially)
WALK = "walk"
_MAGIC_LE = fxtlint.tables().magic_word.to_bytes(8, "little")


def _json(report) -> list:
    return [d.to_json() for d in report.diagnostics]


def big_endian_twin(data: bytes) -> bytes:
    """``data``'s whole words byte-swapped (the bytes after the last one as they are): a
    little-endian trace turned big-endian, its magic record first, every header, field and
    word as the big-endian writer writes it; only its text, a byte stream the same in
    either order, comes out reversed within each word (more findings, read the same way)."""
    words = array("Q", data[:len(data) - len(data) % 8])
    words.byteswap()
    return words.tobytes() + data[len(data) - len(data) % 8:]


def twins(data: bytes) -> list:
    """(bytes, input format) the native walk is also held to, as the input's last byte picks
    (one more pair of lints at most): odd, the input read as a structured-log stream; 2 mod
    4 on a little-endian trace, its big-endian twin."""
    if not data:
        return []
    if data[-1] & 1:
        return [(data, "log")]
    if data[-1] & 3 == 2 and data[:8] == _MAGIC_LE:
        return [(big_endian_twin(data), "auto")]
    return []


def check(data: bytes) -> None:
    lint = fxtlint.lint_bytes(data, engine=WALK)
    ref = fxtlint.lint_bytes(data, engine="reference")
    whole = lint.to_json()  # (its records, counts and every diagnostic's to_json)
    assert whole == ref.to_json(), ("the native walk differs", lint.counts, ref.counts)
    log = None  # the input read as a log stream
    for twin, fmt in twins(data):
        got = fxtlint.lint_bytes(twin, input_format=fmt, engine=WALK)
        assert got.to_json() == fxtlint.lint_bytes(twin, input_format=fmt, engine="reference").to_json(), \
            f"the native walk differs on the input read as {'a log' if fmt == 'log' else 'big-endian'}"
        if fmt == "log":
            log = got  # (linted once: the twin is the log reading)
    assert _json(fxtlint.lint_bytes(data, engine=WALK)) == whole["diagnostics"], "lint is not deterministic"
    if log is None:
        log = fxtlint.lint_bytes(data, input_format="log")
    for report in (lint, log):
        for d in report.diagnostics:
            assert d.code in REGISTRY and REGISTRY[d.code].status != "removed", d  # retired codes never fire
            assert 0 <= d.offset <= len(data), d
        assert sum(report.counts.values()) >= len(report.diagnostics)
    if lint.format == "trace":
        declared(data, lint)


def declared(data: bytes, report) -> None:
    """The lint's verdict against the plain declared-size reading's."""
    plain = declared_reading.read(data)
    if plain.failed:
        assert report.severity_counts.get("error"), ("the declared reading meets", plain.errors[:3])
    if "ST001" in report.counts or "MG005" in report.counts:
        return  # a short size settled by its content (read on from the content), or not FXT at all
    framed = [d.offset for d in report.diagnostics if d.code in ("FR001", "FR002")]
    assert framed == ([plain.framing_stop] if plain.framing_stop is not None else []), (framed, plain.framing_stop)


if __name__ == "__main__":
    _harness.fuzz(check)
