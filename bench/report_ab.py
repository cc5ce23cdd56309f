"""Benchmark: what report's coverage costs on the lint's walk (issue 33 item 6).

    python bench/report_ab.py FILE... [--repeat 8]

In one process, per file (read into memory once), alternately: the lint's walk alone
(``lint_walk``, what ``fxtlint FILE`` runs) and the same walk with the coverage beside the
linter (``CoverageCollector``, what ``fxtlint report`` runs: on the native walk, its
coverage mode), ``--repeat`` times each. Prints the best CPU time of each and their ratio
(lint / lint with coverage: report's speed over the lint's, start-up and output left
out). CPU time of this process, not wall time: the machine is shared, and wall time would
also count the other processes' work; the two take turns, so a load moves both.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fxtlint.engine._lint import lint_walk
from fxtlint.writer_report._coverage import CoverageCollector


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=8)
    args = ap.parse_args(argv)
    print(f"{'file':32} {'MiB':>7} {'lint s':>8} {'+coverage s':>12} {'ratio':>6}")
    for path in args.files:
        data = path.read_bytes()
        alone, both = [], []
        for _ in range(args.repeat):
            t = time.process_time()
            lint_walk(data)
            alone.append(time.process_time() - t)
            t = time.process_time()
            lint_walk(data, consumers=[CoverageCollector()])
            both.append(time.process_time() - t)
        a, b = min(alone), min(both)
        print(f"{path.name:32} {len(data) / 2**20:7.1f} {a:8.3f} {b:12.3f} {a / b:6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
