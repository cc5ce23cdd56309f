"""A differential run of the lint's verdict against a plain declared-size reading.

    python tools/declared_differential.py [--n 500] [--seed 1]

Takes the clean traces (every rule's passing example, the golden corpus' clean files and
the real traces that lint clean), mutates one size field or one byte at random, and
compares fxtlint's exit status with what a reader following each record's declared size
meets (``fuzz/declared_reading.py``, written from the spec apart from the engine). The
lint must fail every file on which that reading meets an error; where the reading stops
framing (a size of 0, a record past the end), the lint must stop at the same record.
Prints the counts and every disagreement; exits 1 if there is one.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "fuzz"))

import declared_reading  # noqa: E402

import fxtlint  # noqa: E402
from fxtlint.rules import all_rules  # noqa: E402


def clean_traces() -> list[tuple[str, bytes]]:
    out = [(f"{r.code}-good", r.good.build()) for r in all_rules()
           if r.good.input_format == "trace" and r.status != "removed"]
    real = REPO / "tests" / "data" / "corpus-real"
    for p in sorted((REPO / "corpus" / "golden").glob("*.fxt")) + sorted(real.glob("*.fxt")):
        out.append((p.name, p.read_bytes()))
    return [(name, data) for name, data in out
            if not fxtlint.lint_bytes(data, input_format="trace").severity_counts.get("error")
            and not declared_reading.read(data).failed]


def mutate(data: bytes, rnd: random.Random) -> tuple[str, bytes]:
    if rnd.random() < 0.5:
        off, _, size = rnd.choice(declared_reading.frames(data))
        moves = [size - 1, size + 1, size + 2, size + rnd.randrange(1, 9), 0, rnd.randrange(1, 1 << 12)]
        new = max(0, rnd.choice(moves))
        return f"size of the record at {off:#x}: {size} -> {new}", declared_reading.with_size(data, off, new)
    at = rnd.randrange(len(data))
    value = rnd.randrange(256)
    return f"byte {at:#x}: {data[at]:#04x} -> {value:#04x}", data[:at] + bytes([value]) + data[at + 1:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    traces = [t for t in clean_traces() if len(t[1]) < 1 << 16]  # the 1 MB real trace: tests/test_declared_verdict.py
    both = neither = lint_only = 0
    bad: list[str] = []
    for _ in range(args.n):
        name, data = rnd.choice(traces)
        what, m = mutate(data, rnd)
        plain = declared_reading.read(m)
        report = fxtlint.lint_bytes(m, input_format="trace")
        failed = bool(report.severity_counts.get("error"))
        framed = [d.offset for d in report.diagnostics if d.code in ("FR001", "FR002")]
        resynced = "ST001" in report.counts or "MG005" in report.counts
        if plain.failed and not failed:
            bad.append(f"{name}, {what}: the declared reading meets {plain.errors[:2]}; the lint passes")
        elif not resynced and framed != ([plain.framing_stop] if plain.framing_stop is not None else []):
            bad.append(f"{name}, {what}: framing stops at {framed} in the lint, {plain.framing_stop} by declared sizes")
        both += plain.failed and failed
        lint_only += failed and not plain.failed
        neither += not failed and not plain.failed
    print(f"{len(traces)} clean traces, {args.n} mutated files (one size field or one byte each), seed {args.seed}")
    print(f"both fail: {both}; the lint alone fails (a check the plain reading does not make): {lint_only}; "
          f"neither: {neither}")
    print(f"agree: {args.n - len(bad)} of {args.n}")
    for line in bad:
        print("  DISAGREE", line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
