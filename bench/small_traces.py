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

    python bench/small_traces.py --baseline DIR [--rounds 200] [--turns 3]

compares this tree's default engine with a baseline tree's instead (``DIR``: another
checkout with its extensions built in place, as ``bench/fuzz_ab.py`` takes it): the same
golden files linted by each tree in a process of its own, the trees taking turns
``--turns`` times (each file's best over all its rounds), and the ratio of the means.
Each report is read as a CI gate reads it (its exit status and counts: a report builds
its diagnostics when they are first read), in both trees alike. ``--driver`` drops the
native walk's diagnostics rows instead of rendering them, in both trees (the lint's own
set-up, walk, stops and report: what is left of a small lint when its findings cost
nothing; the reports are then wrong, and the 0.03 ms target is the whole lint's).
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


def golden_blobs(max_bytes: int) -> list[tuple[bytes, str]]:
    """The golden files under ``max_bytes`` bytes, with their input formats."""
    golden = sorted(p for p in (REPO / "corpus" / "golden").iterdir()
                    if p.suffix in (".fxt", ".log") and p.stat().st_size < max_bytes)
    return [(p.read_bytes(), "log" if p.suffix == ".log" else "auto") for p in golden]


# a child's program (``python -c``: it imports the fxtlint of the tree it is given, never
# this tree's): the best time of each golden file under a size, linted with the default
# engine, and that engine, as JSON
CHILD = """
import json, sys, time
from pathlib import Path
tree, max_bytes, rounds, driver = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "driver"
sys.path.insert(0, tree)
import fxtlint
from fxtlint.engine import _native
assert Path(fxtlint.__file__).resolve().is_relative_to(Path(tree).resolve()), fxtlint.__file__
if driver:  # the walk's diagnostics rows dropped, not rendered: the driver's share alone (reports wrong)
    from fxtlint.engine import _walk_native
    _walk_native.NativeLint._render = lambda self, found: None
golden = sorted(p for p in (Path(tree) / "corpus" / "golden").iterdir()
                if p.suffix in (".fxt", ".log") and p.stat().st_size < max_bytes)
blobs = [(p.read_bytes(), "log" if p.suffix == ".log" else "auto") for p in golden]
best = [float("inf")] * len(blobs)
for _ in range(rounds):
    for i, (data, fmt) in enumerate(blobs):
        t = time.perf_counter()
        r = fxtlint.lint_bytes(data, input_format=fmt)
        r.has_errors, r.severity_counts["warning"], r.capped  # (what a CI gate reads)
        best[i] = min(best[i], time.perf_counter() - t)
print(json.dumps({"best": best, "files": [p.name for p in golden], "engine": _native.describe()}))
"""


def against(baseline: Path, max_bytes: int, rounds: int, turns: int, driver: bool = False) -> int:
    """This tree's default engine against ``baseline``'s on the golden files, taking turns
    (``driver``: with the walk's diagnostics rows dropped, not rendered)."""
    import json
    import subprocess

    trees = {"baseline": str(baseline.resolve()), "this tree": str(REPO)}
    best: dict[str, list[float]] = {}
    engine, files = {}, {}
    for _ in range(turns):
        for name, tree in trees.items():
            out = subprocess.run([sys.executable, "-c", CHILD, tree, str(max_bytes), str(rounds),
                                  "driver" if driver else "whole"], check=True,
                                 capture_output=True, text=True, cwd=tree).stdout
            got = json.loads(out.splitlines()[-1])
            files[name] = got["files"]
            prev = best.get(name)
            best[name] = got["best"] if prev is None else [min(a, b) for a, b in zip(prev, got["best"])]
            engine[name] = got["engine"]
    if files["baseline"] != files["this tree"]:
        raise SystemExit("the trees' golden files under the size differ: no file-by-file comparison")
    n = len(best["this tree"])
    print(f"{n} golden files under {max_bytes} bytes, default engine, best of {rounds} rounds x {turns} turns "
          "each, the trees taking turns, mean per file" + (" (--driver: the walk's rows dropped, not rendered; "
                                                         "the target is the whole lint's)" if driver else "") + ":")
    mean = {name: 1e3 * sum(ts) / len(ts) for name, ts in best.items()}
    for name in trees:
        print(f"  {name:9}  {mean[name]:7.4f} ms  ({engine[name]})")
    ratio = f"  baseline / this tree: {mean['baseline'] / mean['this tree']:.2f}x; this tree {mean['this tree']:.4f} ms"
    if driver:
        print(f"{ratio} (the driver alone: no target)")
        return 0
    ok = mean["this tree"] <= TARGET_MS
    print(f"{ratio} (target <= {TARGET_MS:g} ms)  {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--max-bytes", type=int, default=2048, help="golden files smaller than this (default 2048)")
    ap.add_argument("--rounds", type=int, default=200, help="interleaved rounds; the best of each is kept")
    ap.add_argument("--baseline", type=Path, help="a checkout with its extensions built in place: compare with it")
    ap.add_argument("--turns", type=int, default=3, help="with --baseline: the turns each tree takes")
    ap.add_argument("--driver", action="store_true",
                    help="with --baseline: drop the walk's diagnostics rows instead of rendering them (the "
                    "driver's share of a small lint: its set-up, the walk, the report; the reports are wrong)")
    args = ap.parse_args(argv)
    if args.driver and not args.baseline:
        ap.error("--driver needs --baseline")
    if args.baseline:
        return against(args.baseline, args.max_bytes, args.rounds, args.turns, args.driver)

    blobs = golden_blobs(args.max_bytes)
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
