"""Benchmark: the native kernel's frame + screen against today's Python framing + screen.

    python bench/kernel_bench.py [--mb 50] [--workloads events,mixed,sched,log] [--repeat 3] [--keep DIR]

On the four workloads of ``run_bench.py`` (its writer, ``make_trace.py``), each
memory-mapped as ``lint_path`` maps it, in this process, best of ``--repeat``:

- python: ``FastLinter.run``'s framing loop and the column engine (``Screen.groups`` and
  ``Screen.screen`` per batch), the fast path's later steps left out;
- kernel: ``KernelScreen.walk``: the same windows and batches, framed and screened by the
  kernel (its columns written, not turned into Groups);
- kernel+groups: the same, each batch's output turned into the column engine's Groups
  (``Scanned.groups``): what the fast path would get once the kernel is wired in;
- kernel utf8: the kernel validating text as UTF-8 instead of the ASCII test.

Times are CPU times (``time.process_time``), the best of ``--repeat`` runs: the
machines this runs on are shared, and wall time would also count the others' work.

Then what bounds the kernel, per workload: framing alone (a program whose every leaf
is framed, not screened), and the memory roof (one pass over the words with numpy).

The target: ``run_bench.py`` asks 300 MB/s of the whole lint later (issue 16), scaled
by this run's bare Python header walk on the events workload against 160 MB/s (its
own scaling); the kernel, a part of the lint, is checked against 1 GB/s scaled the same
way. Prints MB/s (MiB of trace per second) and ratios, all from this run.
"""

from __future__ import annotations

import argparse
import mmap
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))  # a source checkout without an install

import make_trace  # noqa: E402
import run_bench  # noqa: E402

from fxtlint import _fast, _native  # noqa: E402
from fxtlint._kernel_screen import ColumnEngineWalk, KernelScreen  # noqa: E402
from fxtlint._limits import DEFAULT_LIMITS  # noqa: E402
from fxtlint._tables import tables  # noqa: E402

LINT_TARGET = 300  # MB/s, issue 16, for the whole lint
KERNEL_TARGET = 1000  # MB/s, for the kernel's frame + screen alone


def python_screen(buf, log: bool) -> int:
    walk = ColumnEngineWalk(buf, False, log, lambda *batch: None)
    try:
        return walk.run()
    finally:
        walk.close()


def kernel_screen(kernel, buf, log: bool, groups=False, utf8=False, kinds=None) -> int:
    if kinds is None:
        kinds = frozenset() if log else _fast.REFERENCE_KINDS
    ks = KernelScreen(kernel, buf, False, log, kinds, utf8=utf8)
    n = 0
    for _, sc in ks.walk(DEFAULT_LIMITS):
        n += sc.n
        if groups:
            sc.groups()
    return n


def every_leaf() -> frozenset:
    """Every leaf layout's name: a program that frames and screens nothing."""
    t = tables()
    return frozenset(leaf.name for leaf in t.record_leaves()) | {t.log_record.name}


def memory_roof(buf) -> int:
    """One pass over the words: what reading the trace costs at all."""
    w = np.frombuffer(buf, np.uint64, count=len(buf) // 8)
    return int(np.bitwise_xor.reduce(w) & 1)


def best(fn, repeat: int) -> float:
    """The least CPU time of ``repeat`` runs: on a shared machine, wall time also counts
    the time other processes held the CPU."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def measure(kernel, buf, log: bool, repeat: int, leafless: frozenset) -> tuple[int, dict]:
    """(records, CPU seconds per target) on one mapped trace."""
    counts = {kernel_screen(kernel, buf, log), python_screen(buf, log)}
    assert len(counts) == 1, f"the engines framed {counts} records"
    t = {
        "python": best(lambda: python_screen(buf, log), repeat),
        "kernel": best(lambda: kernel_screen(kernel, buf, log), repeat),
        "kernel+groups": best(lambda: kernel_screen(kernel, buf, log, groups=True), repeat),
        "kernel utf8": best(lambda: kernel_screen(kernel, buf, log, utf8=True), repeat),
        "kernel frame only": best(lambda: kernel_screen(kernel, buf, log, kinds=leafless), repeat),
        "memory roof": best(lambda: memory_roof(buf), repeat),
    }
    return counts.pop(), t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50, help="trace size (default 50)")
    ap.add_argument("--workloads", default=",".join(make_trace.WORKLOADS), help="comma-separated workloads")
    ap.add_argument("--repeat", type=int, default=5, help="best of N runs (default 5)")
    ap.add_argument("--keep", type=Path, default=None, help="keep generated traces in this folder")
    args = ap.parse_args(argv)
    kernel = _native.kernel()
    if kernel is None:
        print(f"no native kernel to measure: {_native.describe()}")
        return 1
    workloads = [w for w in args.workloads.split(",") if w]
    rows = {}
    scale = 1.0
    with run_bench.trace_folder(args.keep) as folder:
        if "events" in workloads:
            ev = run_bench.trace(folder, "events", args.mb)
            # run_bench.py's own bare walk, timed in CPU time like everything here
            bare = run_bench.run_python(run_bench.BARE_WALK.replace("time.perf_counter", "time.process_time"), ev)
            bare_mbps = ev.stat().st_size / 2**20 / bare["seconds"]
            scale = bare_mbps / run_bench.TARGET_BARE_MBPS
            print(f"bare walk on the events workload: {bare_mbps:.1f} MiB/s, so targets scale by {scale:.2f}")
        leafless = every_leaf()
        for workload in workloads:
            path = run_bench.trace(folder, workload, args.mb)
            mib = path.stat().st_size / 2**20
            with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as buf:
                n, t = measure(kernel, buf, workload == "log", args.repeat, leafless)
            rows[workload] = (mib, n, t)
            print(f"{workload}: {mib:.1f} MiB, " + ", ".join(f"{k} {mib / v:.0f} MiB/s" for k, v in t.items()),
                  flush=True)

    names = ["python", "kernel", "kernel+groups", "kernel utf8", "kernel frame only", "memory roof"]
    print(f"\n{'workload':8} {'MiB':>6} {'records':>10} " + " ".join(f"{n:>17}" for n in names) + "   (MiB/s)")
    for workload, (mib, n, t) in rows.items():
        print(f"{workload:8} {mib:6.1f} {n:10,} " + " ".join(f"{mib / t[k]:17.1f}" for k in names))

    print("\nratios (time / kernel time; python / kernel is the speed-up):")
    print(f"{'workload':8} {'python':>8} {'kernel+groups':>14} {'kernel utf8':>12} {'frame only':>11} "
          f"{'memory roof':>12}")
    for workload, (_, _, t) in rows.items():
        k = t["kernel"]
        print(f"{workload:8} {t['python'] / k:8.1f} {t['kernel+groups'] / k:14.2f} {t['kernel utf8'] / k:12.2f} "
              f"{t['kernel frame only'] / k:11.2f} {t['memory roof'] / k:12.3f}")

    ok = True
    print(f"\ntargets, scaled by {scale:.2f} (this run's bare walk on events / {run_bench.TARGET_BARE_MBPS} MB/s):")
    for workload, (mib, _, t) in rows.items():
        for what, target in (("kernel", KERNEL_TARGET), ("kernel+groups", LINT_TARGET)):
            got = mib / t[what]
            passed = got >= target * scale
            ok &= passed
            print(f"{workload:8} {what:14} {got:8.1f} MiB/s  (target >= {target * scale:.1f})  "
                  f"{'PASS' if passed else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
