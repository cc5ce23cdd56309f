"""What ``tune_allocator`` saves ``export`` and ``decode``: page faults and system time.

    python bench/allocator.py [--mb 50] [--workload sched] [--repeat 3]

The native walk's rows mode makes and frees the text of each stop of the walk (megabytes)
stop after stop. glibc serves blocks that large from fresh mmap pages, one page fault per
4 KiB written; the command line's ``export`` and ``decode`` call
``fxtlint.engine._native.tune_allocator`` (``mallopt`` through ctypes) so that freed
blocks are reused. Each verb runs
in a child process as the command line runs it, and once more with ``tune_allocator``
replaced by a no-op, interleaved ``--repeat`` times; the script prints the median minor
page faults, system and wall seconds of each, and the ratios untuned / tuned. Linux and
glibc only (elsewhere ``tune_allocator`` does nothing and says so).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_trace  # noqa: E402
from run_bench import REPO  # noqa: E402

# the command line's entry, with or without the tuning (decode.run and export.run look
# tune_allocator up in _native when they run, so replacing it there reaches them)
CHILD = """
import sys
sys.path.insert(0, {repo!r})
import fxtlint.engine._native as native
if {untuned}:
    native.tune_allocator = lambda: False
from fxtlint.cli import main
sys.exit(main(sys.argv[1:]))
"""


def _run(argv: list[str], untuned: bool) -> tuple[int, float, float]:
    """(minor page faults, system seconds, wall seconds) of one child run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = CHILD.format(repo=str(REPO), untuned=untuned)
    done = subprocess.run([sys.executable, "-c", code, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # export says 1 when it skipped something
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return after.ru_minflt - before.ru_minflt, after.ru_stime - before.ru_stime, wall


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--workload", default="sched", choices=("events", "mixed", "sched", "log"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from fxtlint.engine import _native

    if _native.nwalk() is None:
        print("the native walk is not built: nothing to tune")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        trace = Path(tmp) / f"{args.workload}.fxt"
        make_trace.generate(trace, args.mb, workload=args.workload)
        verbs = {"decode": ["decode", str(trace)], "export": ["export", str(trace), "-o", "/dev/null"]}
        if args.workload == "log":
            del verbs["decode"]  # a structured-log stream has no canonical decoding
        print(f"{args.workload} workload, {args.mb:g} MB, median of {args.repeat} interleaved runs per row:")
        print(f"{'verb':8} {'malloc':8} {'minor faults':>13} {'sys s':>7} {'wall s':>7}")
        for verb, cmd in verbs.items():
            got: dict[bool, list[tuple[int, float, float]]] = {True: [], False: []}
            for _ in range(args.repeat):
                for untuned in (True, False):
                    got[untuned].append(_run(cmd, untuned))
            med = {u: tuple(statistics.median(r[i] for r in got[u]) for i in range(3)) for u in got}
            for untuned in (True, False):
                faults, sys_s, wall = med[untuned]
                print(f"{verb:8} {'default' if untuned else 'tuned':8} {faults:>13,.0f} {sys_s:>7.3f} {wall:>7.3f}")
            (fu, su, wu), (ft, st, wt) = med[True], med[False]
            print(f"{verb:8} untuned / tuned: faults {fu / max(ft, 1):.2f}, sys {su / max(st, 1e-3):.2f}, "
                  f"wall {wu / wt:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
