"""Benchmark: fxtlint's full lint against a bare header walk and the fxt 0.3.0 parser.

    python bench/run_bench.py [--mb 50] [--also-mb 500] [--keep DIR] [--json OUT]

One run measures, on the same synthetic trace (bench/make_trace.py), each target in a
fresh child process so that its peak RSS is its own:

- bare-walk: a plain Python loop over the record headers (struct.unpack_from per
  header, size to the next one): the least any Python reader can do;
- fxtlint: ``fxtlint.lint_path`` (every layout and semantic rule, fast engine);
- fxt-0.3.0: ``fxt.reader.parse_records`` from PyPI (``pip install 'fxtlint[bench]'``).

It prints MB/s, records/s and peak RSS per target, then the ratios against targets:
fxt / fxtlint >= 10, fxtlint / bare-walk <= 3, and fxtlint's peak RSS flat from the
base size to the --also-mb size (<= 1.5x).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import make_trace  # noqa: E402

CHILD_PRELUDE = """
import json, sys, time
sys.path.insert(0, {repo!r})
path = {path!r}
def done(seconds, records, **extra):
    hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]
    print(json.dumps(dict(seconds=seconds, records=records, rss_mib=hwm / 1024, **extra)))
"""

TARGETS = {
    "bare-walk": """
import mmap, struct
with open(path, 'rb') as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    t = time.perf_counter()
    unpack = struct.unpack_from
    off, n, end = 0, 0, len(m)
    while off + 8 <= end:
        h = unpack('<Q', m, off)[0]
        size = (h >> 4) & 0xFFFFFFFF if h & 0xF == 15 else (h >> 4) & 0xFFF
        if size == 0:
            break
        off += size * 8
        n += 1
    dt = time.perf_counter() - t
done(dt, n)
""",
    "fxtlint": """
import fxtlint
t = time.perf_counter()
r = fxtlint.lint_path(path)
dt = time.perf_counter() - t
done(dt, r.records, errors=r.severity_counts['error'], warnings=r.severity_counts['warning'])
""",
    "fxt-0.3.0": """
try:
    from fxt.reader import parse_records
except ImportError:
    print(json.dumps(dict(unavailable="pip install 'fxt==0.3.0' (or '.[bench]')")))
    raise SystemExit(0)
with open(path, 'rb') as f:
    t = time.perf_counter()
    r = parse_records(f)
    dt = time.perf_counter() - t
done(dt, sum(len(p.records) for p in r.records_by_provider.values()), eof=r.had_unexpected_eof)
""",
}


def run(target: str, path: Path) -> dict:
    code = CHILD_PRELUDE.format(repo=str(REPO), path=str(path)) + TARGETS[target]
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def best_of(target: str, path: Path, repeat: int) -> dict:
    runs = [run(target, path) for _ in range(repeat)]
    if "unavailable" in runs[0]:
        return runs[0]
    best = min(runs, key=lambda r: r["seconds"])
    best["rss_mib"] = max(r["rss_mib"] for r in runs)
    return best


def trace(directory: Path, mb: float) -> Path:
    p = directory / f"bench-{mb:g}mb.fxt"
    if not p.exists():
        digest = make_trace.generate(p, mb)
        print(f"generated {p} ({p.stat().st_size / 2**20:.1f} MiB, sha256 {digest[:16]}…)")
    return p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50, help="base trace size (default 50)")
    ap.add_argument("--also-mb", type=float, default=None, help="a second, larger size for the memory check")
    ap.add_argument("--keep", type=Path, default=None, help="keep generated traces in this folder")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs at the base size (default 3)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)

    tmp = None
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        folder = args.keep
    else:
        tmp = tempfile.TemporaryDirectory()
        folder = Path(tmp.name)
    results: dict = {}
    try:
        sizes = [args.mb] + ([args.also_mb] if args.also_mb else [])
        for i, mb in enumerate(sizes):
            path = trace(folder, mb)
            real_mb = path.stat().st_size / 2**20
            rows = results[f"{mb:g}"] = {"mib": real_mb}
            for target in TARGETS:
                if i > 0 and target == "fxt-0.3.0":
                    base = results[f"{args.mb:g}"].get(target, {})
                    predicted = base.get("seconds", 0) * mb / args.mb
                    if predicted > 180:
                        rows[target] = {"skipped": f"predicted {predicted:.0f} s from the base size"}
                        continue
                rows[target] = best_of(target, path, args.repeat if i == 0 else 1)
    finally:
        if tmp is not None:
            tmp.cleanup()

    print(f"\n{'target':12} {'MiB':>7} {'seconds':>9} {'MiB/s':>8} {'records/s':>12} {'peak RSS MiB':>13}")
    for size, rows in results.items():
        for target in TARGETS:
            r = rows.get(target, {})
            if "seconds" not in r:
                print(f"{target:12} {rows['mib']:7.1f}   {r.get('unavailable') or r.get('skipped')}")
                continue
            print(f"{target:12} {rows['mib']:7.1f} {r['seconds']:9.3f} {rows['mib'] / r['seconds']:8.1f} "
                  f"{r['records'] / r['seconds']:12,.0f} {r['rss_mib']:13.1f}")

    base = results[f"{args.mb:g}"]
    ok = True
    print()
    lint = base["fxtlint"]
    if lint.get("errors") or lint.get("warnings"):
        print(f"note: fxtlint reported {lint['errors']} errors and {lint['warnings']} warnings on the trace")
    checks = []
    if "seconds" in base.get("fxt-0.3.0", {}):
        checks.append(("fxt-0.3.0 time / fxtlint time", base["fxt-0.3.0"]["seconds"] / lint["seconds"], ">=", 10))
    checks.append(("fxtlint time / bare-walk time", lint["seconds"] / base["bare-walk"]["seconds"], "<=", 3))
    if args.also_mb:
        big = results[f"{args.also_mb:g}"]["fxtlint"]
        checks.append((f"fxtlint peak RSS {args.also_mb:g} MB / {args.mb:g} MB", big["rss_mib"] / lint["rss_mib"],
                       "<=", 1.5))
    for name, value, op, target in checks:
        passed = value >= target if op == ">=" else value <= target
        ok &= passed
        print(f"{name:40} {value:8.2f}  (target {op} {target})  {'PASS' if passed else 'FAIL'}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "checks": checks}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
