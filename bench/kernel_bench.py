"""Benchmark: the native kernel as the walk's scan step, against the column engine's.

    python bench/kernel_bench.py [--mb 50] [--workloads events,mixed,sched,log] [--repeat 3] [--keep DIR]

On the four workloads of ``run_bench.py`` (its writer, ``make_trace.py``), each
memory-mapped as ``lint_path`` maps it, in this process, best of ``--repeat``:

- python walk: the walk every verb runs (``_walk.Walk``) with no consumer: the column
  engine's scan step (``_scan.scan_window``), then the decode step (the reference
  decoder on the flagged rows and the records that change the provider tables) and
  each batch's clean rows made ready for the consumers;
- kernel walk: the same walk with the kernel as its scan step (``KernelWalk``): what
  every verb gets once the kernel is wired in;
- python scan, kernel scan: the scan step alone over the same windows and batches
  (``scan_window``; ``KernelScreen.window``, each batch turned into ``Columns``);
- kernel raw: the kernel's scans alone, its outputs not turned into ``Columns``;
- kernel utf8: the same, validating text as UTF-8 instead of the ASCII test;
- frame only: the same with a program whose every leaf is framed, not screened.

Times are CPU times (``time.process_time``), the best of ``--repeat`` runs: the
machines this runs on are shared, and wall time would also count the others' work.
The memory roof is one pass over the words with numpy.

The target: ``run_bench.py`` asks 300 MB/s of the whole lint later (issue 16), scaled
by this run's bare Python header walk on the events workload against 160 MB/s (its
own scaling); the kernel walk (the lint's other steps, ref lookups and pairing, left
out) is checked against it, and the raw kernel against 1 GB/s scaled the same way.
Prints MB/s (MiB of trace per second) and ratios, all from this run.
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

from fxtlint.engine import _native  # noqa: E402
from fxtlint.engine._kernel_screen import KernelScreen  # noqa: E402
from fxtlint.engine._walk_batches import ColumnEngineWalk, KernelWalk  # noqa: E402
from fxtlint.spec._limits import DEFAULT_LIMITS  # noqa: E402
from fxtlint.engine._reader import size_fields  # noqa: E402
from fxtlint.spec._roles import STATE_KINDS  # noqa: E402
from fxtlint.spec._tables import tables  # noqa: E402
from fxtlint.engine._walk import _LOG_ROOTS, _TRACE_ROOTS  # noqa: E402

LINT_TARGET = 300  # MB/s, issue 16, for the whole lint
KERNEL_TARGET = 1000  # MB/s, for the kernel's frame + screen alone
NAMES = ["python walk", "kernel walk", "python scan", "kernel scan", "kernel raw", "kernel utf8", "frame only",
         "memory roof"]


def walk(buf, log: bool, kernel=None) -> int:
    """The walk with no consumer, on the column engine's scan step or the kernel's."""
    w = ColumnEngineWalk(buf, False, log) if kernel is None else KernelWalk(kernel, buf, False, log)
    return w.run()


def scan_only(window, nwords: int) -> int:
    """The records of the windows ``window(cur, index0)`` gives, their batches taken and
    dropped: the walk's loop without the decode step (the workloads never resynchronise)."""
    cur = index = 0
    while cur < nwords:
        win = window(cur, index)
        for _ in win.batches:
            pass
        index += win.records
        if win.zero_at is not None or win.overrun is not None:
            break
        cur = win.next_word
    return index


def scan(buf, log: bool, kernel=None) -> int:
    """The scan step alone, the column engine's or the kernel's, over the walk's windows."""
    w = ColumnEngineWalk(buf, False, log) if kernel is None else KernelWalk(kernel, buf, False, log)
    W = np.frombuffer(buf, "<u8", count=len(buf) // 8)
    window, close = w.scanner(W, _LOG_ROOTS if log else _TRACE_ROOTS, frozenset() if log else STATE_KINDS,
                              size_fields(log))
    try:
        return scan_only(window, len(W))
    finally:
        close()


def kernel_raw(kernel, buf, log: bool, utf8=False, kinds=None) -> int:
    """The kernel's scans over the walk's windows, their outputs left as the kernel wrote them."""
    if kinds is None:
        kinds = frozenset() if log else STATE_KINDS
    ks = KernelScreen(kernel, buf, False, log, kinds, utf8=utf8)
    limits = DEFAULT_LIMITS
    return scan_only(lambda cur, index0: ks.window(cur, index0, window_words=limits.window_words,
                                                   pairing_window=limits.pairing_window, columns=False),
                     len(buf) // 8)


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
    counts = {walk(buf, log), walk(buf, log, kernel), scan(buf, log), scan(buf, log, kernel),
              kernel_raw(kernel, buf, log)}
    assert len(counts) == 1, f"the walks framed {counts} records"
    t = {
        "python walk": best(lambda: walk(buf, log), repeat),
        "kernel walk": best(lambda: walk(buf, log, kernel), repeat),
        "python scan": best(lambda: scan(buf, log), repeat),
        "kernel scan": best(lambda: scan(buf, log, kernel), repeat),
        "kernel raw": best(lambda: kernel_raw(kernel, buf, log), repeat),
        "kernel utf8": best(lambda: kernel_raw(kernel, buf, log, utf8=True), repeat),
        "frame only": best(lambda: kernel_raw(kernel, buf, log, kinds=leafless), repeat),
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

    print(f"\n{'workload':8} {'MiB':>6} {'records':>10} " + " ".join(f"{n:>12}" for n in NAMES) + "   (MiB/s)")
    for workload, (mib, n, t) in rows.items():
        print(f"{workload:8} {mib:6.1f} {n:10,} " + " ".join(f"{mib / t[k]:12.1f}" for k in NAMES))

    ratios = {  # (numerator, denominator) of CPU times
        "walk speed-up": ("python walk", "kernel walk"),
        "scan speed-up": ("python scan", "kernel scan"),
        "scan/walk": ("kernel scan", "kernel walk"),
        "scan/raw": ("kernel scan", "kernel raw"),
        "utf8/raw": ("kernel utf8", "kernel raw"),
        "frame/raw": ("frame only", "kernel raw"),
        "roof/raw": ("memory roof", "kernel raw"),
    }
    print("\nratios of CPU times (speed-ups: python / kernel; scan/walk: the kernel walk's share in its scan step;"
          " x/raw: against the kernel's scans alone):")
    print(f"{'workload':8} " + " ".join(f"{n:>13}" for n in ratios))
    for workload, (_, _, t) in rows.items():
        print(f"{workload:8} " + " ".join(f"{t[a] / t[b]:13.3f}" for a, b in ratios.values()))

    ok = True
    print(f"\ntargets, scaled by {scale:.2f} (this run's bare walk on events / {run_bench.TARGET_BARE_MBPS} MB/s):")
    for workload, (mib, _, t) in rows.items():
        for what, target in (("kernel raw", KERNEL_TARGET), ("kernel walk", LINT_TARGET)):
            got = mib / t[what]
            passed = got >= target * scale
            ok &= passed
            print(f"{workload:8} {what:14} {got:8.1f} MiB/s  (target >= {target * scale:.1f})  "
                  f"{'PASS' if passed else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
