"""Benchmark: what a lint of a small trace costs, per engine, in process.

    python bench/small_traces.py [--max-bytes 2048] [--rounds 200]

A fuzz harness or a CI job over many small test traces pays mostly the fixed costs of
a lint. For every file of the golden corpus under ``--max-bytes`` it times
``fxtlint.lint_bytes(data, engine=E)`` for the lint's two engines, the default ("auto":
the native walk where it is built, as ``fxtlint --version`` says) and the per-record
reference engine ("reference"), interleaved round by round (best of ``--rounds`` per
file and engine), and prints the mean per file. The check: the default costs no more
than the reference (within 5%, the timer's noise on a shared machine), and at most
0.03 ms per file (issue 32; the golden files under 2 KiB average about 120 bytes).

Then it times both engines on prefixes of one synthetic events trace (``make_trace.py``)
of doubling sizes and prints their ratio (the default lints on the native walk at every
size: there is no size at which it switches).
"""

from __future__ import annotations

import argparse
import struct
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import make_trace  # noqa: E402

import fxtlint  # noqa: E402
from fxtlint.engine import _native  # noqa: E402

ENGINES = ("auto", "reference")
NOISE = 1.05
TARGET_MS = 0.03  # issue 32: a golden file under 2 KiB linted in process in at most this (issue 16 asked 0.1)


def best_times(blobs: list[tuple[bytes, str]], rounds: int) -> dict[str, list[float]]:
    """Per engine, the best time of each blob over ``rounds`` interleaved rounds."""
    best = {e: [float("inf")] * len(blobs) for e in ENGINES}
    for _ in range(rounds):
        for e in ENGINES:
            for i, (data, fmt) in enumerate(blobs):
                t = time.perf_counter()
                fxtlint.lint_bytes(data, engine=e, input_format=fmt)
                best[e][i] = min(best[e][i], time.perf_counter() - t)
    return best


def prefix(data: bytes, size: int) -> bytes:
    """The records of ``data`` that fit in ``size`` bytes (whole records only)."""
    off = 0
    while off + 8 <= len(data):
        (h,) = struct.unpack_from("<Q", data, off)
        n = 8 * ((h >> 4) & (0xFFFFFFFF if h & 0xF == 15 else 0xFFF))
        if n == 0 or off + n > size:
            break
        off += n
    return data[:off]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-bytes", type=int, default=2048, help="golden files smaller than this (default 2048)")
    ap.add_argument("--rounds", type=int, default=200, help="interleaved rounds; the best of each is kept")
    args = ap.parse_args(argv)

    golden = sorted(p for p in (REPO / "corpus" / "golden").iterdir()
                    if p.suffix in (".fxt", ".log") and p.stat().st_size < args.max_bytes)
    blobs = [(p.read_bytes(), "log" if p.suffix == ".log" else "auto") for p in golden]
    best = best_times(blobs, args.rounds)
    mean = {e: 1e3 * sum(ts) / len(ts) for e, ts in best.items()}
    size = sum(len(d) for d, _ in blobs) / len(blobs)
    print(f"{len(blobs)} golden files under {args.max_bytes} bytes (mean {size:.0f} bytes), best of "
          f"{args.rounds} rounds each, mean per file ({_native.describe()}):")
    for e in ENGINES:
        print(f"  {e:10} {mean[e]:8.3f} ms")
    ratio = mean["auto"] / mean["reference"]
    ok = ratio <= NOISE
    print(f"default / reference engine: {ratio:.2f}  (target <= 1 within {NOISE - 1:.0%} timer noise)  "
          f"{'PASS' if ok else 'FAIL'}")
    fixed = mean["auto"] <= TARGET_MS
    ok &= fixed
    print(f"default engine, mean per file: {mean['auto']:.3f} ms  (target <= {TARGET_MS:g} ms)  "
          f"{'PASS' if fixed else 'FAIL'}")

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.fxt"
        make_trace.generate(path, 0.25, workload="events")
        full = path.read_bytes()
    print("\nprefixes of a synthetic events trace:")
    print(f"{'bytes':>8} {'auto ms':>9} {'reference ms':>13} {'auto / reference':>17}")
    for size in (1 << 10, 2 << 10, 4 << 10, 8 << 10, 12 << 10, 16 << 10, 32 << 10, 64 << 10, 128 << 10):
        data = prefix(full, size)
        t = best_times([(data, "auto")], max(5, args.rounds // 20))
        print(f"{len(data):8} {1e3 * t['auto'][0]:9.3f} {1e3 * t['reference'][0]:13.3f} "
              f"{t['auto'][0] / t['reference'][0]:17.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
