"""Pairing stays linear in time and bounded in memory on adversarial input.

For each adversarial pattern it writes a trace of N records and one of 10 N, lints
each in a fresh child process, and prints the time ratio (linear: about 10) and the
peak RSS of both runs (bounded: the 10 N run is not 10 times larger).

    python bench/pairing_scaling.py [--n 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from fxtlint import build as B  # noqa: E402

PRE = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "cat"), B.string(2, "a"),
       B.string(3, "b"), B.thread(1, 10, 11)]


def _repeat(template: bytes, n: int, word_ts: int | None, word_id: int | None) -> bytes:
    """``n`` copies of a one-record template with increasing timestamp and id words."""
    words = np.frombuffer(template, "<u8")
    out = np.tile(words, n).reshape(n, len(words))
    seq = np.arange(1, n + 1, dtype=np.uint64)
    if word_ts is not None:
        out[:, word_ts] = seq
    if word_id is not None:
        out[:, word_id] = seq
    return out.tobytes()


def unclosed_begins(n: int) -> bytes:
    """n duration begins on one thread, never ended."""
    return B.archive(*PRE) + _repeat(B.archive(B.event("duration_begin", 0, name=2)), n, 1, None)


def live_async_ids(n: int) -> bytes:
    """n async begins with distinct ids, never ended."""
    return B.archive(*PRE) + _repeat(B.archive(B.event("async_begin", 0, id=0)), n, 1, 2)


def mismatched_ends(n: int) -> bytes:
    """n/2 begins named "a", then n/2 ends named "b": every end searches the stack."""
    half = n // 2
    return (B.archive(*PRE) + _repeat(B.archive(B.event("duration_begin", 0, name=2)), half, 1, None)
            + _repeat(B.archive(B.event("duration_end", 0, name=3)), half, 1, None))


def orphan_flows(n: int) -> bytes:
    """n flow steps with distinct ids and no begin, outside any duration."""
    return B.archive(*PRE) + _repeat(B.archive(B.event("flow_step", 0, id=0)), n, 1, 2)


SCENARIOS = {
    "unclosed-begins": unclosed_begins,
    "live-async-ids": live_async_ids,
    "mismatched-ends": mismatched_ends,
    "orphan-flows": orphan_flows,
}

CHILD = """
import json, sys, time, resource
sys.path.insert(0, {repo!r})
import fxtlint
t = time.perf_counter()
r = fxtlint.lint_path({path!r})
dt = time.perf_counter() - t
hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]
print(json.dumps({{"seconds": dt, "records": r.records, "rss_mib": hwm / 1024,
                  "diagnostics": sum(r.counts.values())}}))
"""


def measure(path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD.format(repo=str(REPO), path=str(path))],
                         check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=100_000, help="records of the small trace (the large one has 10x)")
    args = ap.parse_args()
    print(f"{'scenario':18} {'records':>9} {'seconds':>8} {'rss MiB':>8} {'diags':>9}   time ratio  rss ratio")
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for name, make in SCENARIOS.items():
            rows = []
            for n in (args.n, 10 * args.n):
                p = Path(tmp) / f"{name}-{n}.fxt"
                p.write_bytes(make(n))
                m = measure(p)
                rows.append(m)
                os.unlink(p)
                print(f"{name:18} {m['records']:>9} {m['seconds']:>8.3f} {m['rss_mib']:>8.1f} {m['diagnostics']:>9}")
            tr = rows[1]["seconds"] / rows[0]["seconds"]
            rr = rows[1]["rss_mib"] / rows[0]["rss_mib"]
            linear = tr < 15
            ok &= linear
            print(f"{'':18} {'':>9} {'':>8} {'':>8} {'':>9}   {tr:10.2f}  {rr:9.2f}  "
                  f"{'linear' if linear else 'NOT LINEAR'}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
