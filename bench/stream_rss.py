"""Peak RSS of ``fxtlint -`` on a large stream against a small one: memory must follow the
tables and the pairing window, not the stream.

    python bench/stream_rss.py [--mb 2048 --base-mb 50 --workload events]

Each trace is generated on the fly by ``make_trace.generate_to`` into a pipe (nothing is
written to disk) and read by ``python -m fxtlint - --output-format json`` under the
RSS shim of ``run_bench.py`` (peak RSS from VmHWM at exit). The lint must be clean (the
traces are clean by construction) and must have read every byte. Prints, per size, the
bytes, records, seconds, MiB/s and peak RSS, then the ratio of the peak RSS (target
<= 1.5). Linux only (/proc/self/status).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_trace  # noqa: E402
from run_bench import CLI_SHIM, REPO  # noqa: E402

PRODUCER = """
import sys
sys.path.insert(0, {here!r})
import make_trace
make_trace.generate_to(sys.stdout.buffer, {mb!r}, workload={workload!r})
sys.stdout.buffer.flush()
"""


def piped(mb: float, workload: str) -> dict:
    """Generate ``mb`` MiB into a pipe read by ``fxtlint -``; its figures."""
    t = time.perf_counter()
    producer = subprocess.Popen([sys.executable, "-c", PRODUCER.format(here=str(HERE), mb=mb, workload=workload)],
                                stdout=subprocess.PIPE)
    linter = subprocess.run([sys.executable, "-c", CLI_SHIM.format(repo=str(REPO),
                                                                   argv=["-", "--output-format", "json"])],
                            stdin=producer.stdout, capture_output=True, text=True)
    producer.stdout.close()
    if producer.wait() != 0:
        raise RuntimeError("the generator failed")
    dt = time.perf_counter() - t
    if linter.returncode != 0:
        raise RuntimeError(f"fxtlint - failed ({linter.returncode}): {linter.stdout[-2000:]} {linter.stderr[-2000:]}")
    rss = float(linter.stderr.rsplit("BENCH-RSS ", 1)[1].split()[0])
    f = json.loads(linter.stdout)["files"][0]
    if f["counts"]:
        raise RuntimeError(f"the generated trace is not clean: {f['counts']}")
    return {"mib": f["bytes"] / (1 << 20), "records": f["records"], "seconds": dt, "rss_mib": rss}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=2048, help="the large stream, MiB (default 2048)")
    ap.add_argument("--base-mb", type=float, default=50, help="the small stream, MiB (default 50)")
    ap.add_argument("--workload", choices=make_trace.WORKLOADS, default="events")
    a = ap.parse_args(argv)
    rows = [piped(a.base_mb, a.workload), piped(a.mb, a.workload)]
    print(f"fxtlint - on a piped {a.workload} stream (python -m fxtlint - --output-format json)")
    print(f"{'MiB':>9} {'records':>12} {'seconds':>9} {'MiB/s':>7} {'peak RSS MiB':>13}")
    for r in rows:
        print(f"{r['mib']:>9.1f} {r['records']:>12,} {r['seconds']:>9.1f} {r['mib'] / r['seconds']:>7.1f} "
              f"{r['rss_mib']:>13.1f}")
    ratio = rows[1]["rss_mib"] / rows[0]["rss_mib"]
    verdict = "met" if ratio <= 1.5 else "NOT met"
    print(f"peak RSS {rows[1]['mib']:.0f} MiB / {rows[0]['mib']:.0f} MiB stream: {ratio:.2f} "
          f"(target <= 1.5: {verdict})")
    return 0 if ratio <= 1.5 else 1


if __name__ == "__main__":
    sys.exit(main())
