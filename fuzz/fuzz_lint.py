# Invariant: lint never raises on any bytes, in either engine or input format; every
# diagnostic lies inside the file with a registered code; the fast engine reports exactly
# what the per-record reference engine reports (the full JSON of every diagnostic: code,
# severity, offset, record index, message, span, record size); and linting the same bytes
# twice gives the same report.
"""atheris harness for fxtlint's linter: python fuzz/fuzz_lint.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint
from fxtlint.engine._native import default_engine
from fxtlint.rules import REGISTRY

# the column walk checked against the reference: as FXTLINT_ENGINE says when it names one
# ("native", "python"), else the kernel where it is built ("fast")
COLUMNS = default_engine() if default_engine() in ("native", "python") else "fast"


def _json(report) -> list:
    return [d.to_json() for d in report.diagnostics]


def check(data: bytes) -> None:
    fast = fxtlint.lint_bytes(data, engine=COLUMNS)
    ref = fxtlint.lint_bytes(data, engine="reference")
    assert _json(fast) == _json(ref), (fast.counts, ref.counts)
    assert fast.counts == ref.counts and fast.records == ref.records
    assert _json(fxtlint.lint_bytes(data, engine=COLUMNS)) == _json(fast), "lint is not deterministic"
    for report in (fast, fxtlint.lint_bytes(data, input_format="log")):
        for d in report.diagnostics:
            assert d.code in REGISTRY and REGISTRY[d.code].status != "removed", d  # retired codes never fire
            assert 0 <= d.offset <= len(data), d
        assert sum(report.counts.values()) >= len(report.diagnostics)


if __name__ == "__main__":
    _harness.fuzz(check)
