"""Times of ``fxtlint repair`` on the real corpus' traces (the broken one among them)
and on a synthetic trace, and of ``fxtlint slice --split-size`` on a large synthetic
trace, each run as the command users run.

    python bench/rewrite_bench.py [--mb 5] [--slice-mb 500] [--split-size 200MB] [--workload events]
                                  [--corpus tests/data/corpus-real]

Prints one JSON line per run: bytes in and out, seconds, MiB/s, the child's peak RSS
(Linux ``ru_maxrss``, the largest child so far), the exit status, and repair's number of
changes or slice's pieces. The synthetic traces are clean by construction: their repair
must be the same bytes, their pieces must lint with no error. ``--slice-mb 0`` skips the
slice.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
import make_trace  # noqa: E402


def repair(src: Path, out: Path) -> dict:
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "fxtlint", "repair", str(src), "-o", str(out),
                           "--output-format", "json"], capture_output=True, text=True, cwd=REPO)
    dt = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {}
    size = src.stat().st_size
    return {"input": src.name, "bytes_in": size, "bytes_out": out.stat().st_size if out.exists() else None,
            "seconds": round(dt, 3), "mib_per_s": round(size / dt / 2**20, 2),
            "peak_rss_mib": round(max(rss, before) / 1024, 1), "exit": proc.returncode,
            "changes": len(doc.get("changes", ())), "same_bytes": out.exists() and out.read_bytes() == src.read_bytes()}


def slice_run(src: Path, out: Path, split_size: str) -> dict:
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "fxtlint", "slice", str(src), "-o", str(out), "--split-size",
                           split_size, "--output-format", "json"], capture_output=True, text=True, cwd=REPO)
    dt = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {"pieces": []}
    size = src.stat().st_size
    written = sum(Path(p["path"]).stat().st_size for p in doc["pieces"])
    for p in doc["pieces"]:
        Path(p["path"]).unlink()
    return {"slice": src.name, "split_size": split_size, "bytes_in": size, "bytes_out": written,
            "seconds": round(dt, 3), "mib_per_s": round(size / dt / 2**20, 2), "peak_rss_mib": round(rss / 1024, 1),
            "exit": proc.returncode, "pieces": len(doc["pieces"]),
            "errors": sum(p["errors"] for p in doc["pieces"]), "stderr": proc.stderr[-300:]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=5.0, help="size of the synthetic trace (MiB)")
    ap.add_argument("--slice-mb", type=float, default=500.0, help="size of the trace to slice (MiB; 0: none)")
    ap.add_argument("--split-size", default="200MB", help="slice's --split-size")
    ap.add_argument("--workload", default="events", choices=("events", "mixed", "sched"))
    ap.add_argument("--corpus", type=Path, default=REPO / "tests" / "data" / "corpus-real")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        inputs = sorted(args.corpus.glob("*.fxt"))
        synthetic = work / f"{args.workload}-{args.mb:g}mb.fxt"
        with open(synthetic, "wb") as fh:
            make_trace.generate_to(fh, args.mb, workload=args.workload)
        for src in [*inputs, synthetic]:
            print(json.dumps(repair(src, work / f"{src.stem}.repaired.fxt")), flush=True)
        synthetic.unlink()
        if args.slice_mb:
            big = work / f"{args.workload}-{args.slice_mb:g}mb.fxt"
            with open(big, "wb") as fh:
                make_trace.generate_to(fh, args.slice_mb, workload=args.workload)
            print(json.dumps(slice_run(big, work / "piece.fxt", args.split_size)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
