# Invariant: lint never raises on any bytes, in either engine or input format; every
# diagnostic lies inside the file with a registered code; and the fast engine reports
# exactly what the per-record reference engine reports.
"""atheris harness for fxtlint's linter: python fuzz/fuzz_lint.py [-atheris flags] [corpus dirs]."""

from __future__ import annotations

import sys
from pathlib import Path

try:
    import fxtlint
except ImportError:  # run from a source checkout without an install
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import fxtlint
from fxtlint.rules import REGISTRY


def check(data: bytes) -> None:
    fast = fxtlint.lint_bytes(data, engine="fast")
    ref = fxtlint.lint_bytes(data, engine="reference")
    assert fast.diagnostics == ref.diagnostics, (fast.counts, ref.counts)
    assert fast.counts == ref.counts and fast.records == ref.records
    for report in (fast, fxtlint.lint_bytes(data, input_format="log")):
        for d in report.diagnostics:
            assert d.code in REGISTRY, d
            assert 0 <= d.offset <= len(data), d
        assert sum(report.counts.values()) >= len(report.diagnostics)


def main() -> None:
    import atheris  # only the fuzzer needs it; tests import check() without it

    atheris.instrument_all()  # coverage feedback from fxtlint's code, already imported
    atheris.Setup(sys.argv, check)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
