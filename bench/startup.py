"""Benchmark: the start-up of ``fxtlint FILE`` against ``python -c pass``.

    python bench/startup.py [--runs 21] [--file corpus/samples/sample.fxt]

A small lint's wall time is mostly start-up: the interpreter, then fxtlint's imports
(the tables, the rules, rich) and the walk. Issue 26 asks for ``fxtlint sample.fxt``
(920 bytes) in at most 4 times ``python -c pass``. This script starts the two commands
in turn, A B A B ... (paired: a drift of the machine's speed moves both of a pair), after
one warm-up run each, and prints the median of each command's wall time and the median
of the pairs' ratios (the figure to quote), with their spread. The package's bytecode is
compiled first, as ``pip install`` does (an environment with PYTHONDONTWRITEBYTECODE set
would otherwise compile every module on every run). The command line runs with this
interpreter: ``python -m fxtlint FILE``, the console script's own work.
"""

from __future__ import annotations

import argparse
import compileall
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = 4.0  # issue 26: at most this many times `python -c pass`


def wall(cmd: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--file", default=str(REPO / "corpus" / "samples" / "sample.fxt"))
    args = p.parse_args()
    import fxtlint

    compileall.compile_dir(Path(fxtlint.__file__).parent, quiet=1)
    lint = [sys.executable, "-m", "fxtlint", args.file]
    if subprocess.run(lint, capture_output=True, check=False).returncode not in (0, 1):
        sys.exit(f"{' '.join(lint)} failed")
    bare = [sys.executable, "-c", "pass"]
    wall(lint), wall(bare)  # warm-up: the file cache
    a, b = [], []
    for _ in range(args.runs):
        a.append(wall(lint))
        b.append(wall(bare))
    ratios = sorted(x / y for x, y in zip(a, b))
    med = statistics.median(ratios)
    print(f"{args.runs} paired runs of `python -m fxtlint {Path(args.file).name}` and `python -c pass` (wall time):")
    for label, t in (("fxtlint       ", a), ("python -c pass", b)):
        ms = [1000 * x for x in t]
        print(f"  {label} median {statistics.median(ms):7.1f} ms  (min {min(ms):.1f}, max {max(ms):.1f})")
    print(f"  ratio, median of pairs: {med:.2f}x  (min {ratios[0]:.2f}, max {ratios[-1]:.2f}); "
          f"target at most {TARGET:.0f}x: {'met' if med <= TARGET else 'not met'}")


if __name__ == "__main__":
    main()
