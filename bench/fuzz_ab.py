"""Benchmark: the lint of mutated 16 KB inputs by this tree and by a baseline tree, in one run.

    python bench/fuzz_ab.py --baseline DIR [--mutated 200] [--rounds 3] [--read status|diagnostics]

``DIR`` is another checkout of fxtlint with its extensions built in place (``git archive
REV | tar -x -C DIR`` and ``python setup.py build_ext --inplace`` there, with setuptools 77 or newer
in the environment: bench/README.md). The inputs are
``fuzz_speed``'s (``draw_mutated``: the hostile inputs, then ``--mutated`` mutants of the
seeds grown to 16 KB), drawn once here and linted (``fxtlint.lint_bytes``, the default
engine) by each tree in a process of its own, the trees taking turns ``--rounds`` times,
so both see the same load. Each lint's report is read as a CI gate reads it (``--read
status``, the default: its exit status and counts, ``has_errors``, ``severity_counts``,
``capped``), or as the CLI and the fuzz harness's equivalence check read it (``--read
diagnostics``: every diagnostic and its message, ``to_json``), in both trees alike (a
report builds its diagnostics when they are first read). Printed per tree: the mean and worst CPU time per input (each
input's best round), the records handed back to the reference reader per input (counted
in a pass of its own), and the ratio of the baseline's mean and worst to this tree's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def child(tree: str, inputs_path: str, read: str = "status") -> None:
    """Lint the inputs with the fxtlint of ``tree``, reading each report as ``read`` says: per
    input its CPU time, and the records its walk handed back."""
    sys.path.insert(0, tree)
    import fxtlint
    from fxtlint.engine import _walk_native

    assert Path(fxtlint.__file__).resolve().is_relative_to(Path(tree).resolve()), fxtlint.__file__
    blob = Path(inputs_path).read_bytes()
    inputs, at = [], 0
    while at < len(blob):
        n = int.from_bytes(blob[at:at + 4], "little")
        inputs.append(blob[at + 4:at + 4 + n])
        at += 4 + n
    if read == "status":
        def lint(data):  # what a CI gate reads: the exit status and the counts
            r = fxtlint.lint_bytes(data)
            return r.has_errors, r.severity_counts["warning"], r.capped
    else:
        def lint(data):  # what the CLI's JSON output and the equivalence check read
            return fxtlint.lint_bytes(data).to_json()

    for data in inputs:  # warm: imports, tables, caches
        lint(data)
    times = []
    for data in inputs:
        t = time.process_time()
        lint(data)
        times.append(time.process_time() - t)
    seen = [0]
    real = _walk_native.decode_record

    def counting(*a, **k):
        seen[0] += 1
        return real(*a, **k)

    _walk_native.decode_record = counting
    handbacks = []
    for data in inputs:
        seen[0] = 0
        fxtlint.lint_bytes(data)
        handbacks.append(seen[0])
    print(json.dumps({"times": times, "handbacks": handbacks}))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, type=Path, help="a checkout with its extensions built in place")
    ap.add_argument("--mutated", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--read", choices=("status", "diagnostics"), default="status",
                    help="what of each report is read: the exit status and counts, or every diagnostic (JSON)")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(*args.child, args.read)
        return 0
    sys.path.insert(0, str(REPO / "bench"))
    sys.path.insert(0, str(REPO))
    from fuzz_speed import draw_mutated

    seeds = [p.read_bytes() for p in sorted((REPO / "corpus" / "seeds").iterdir()) if p.is_file()]
    inputs = draw_mutated(seeds, args.mutated)
    trees = {"baseline": str(args.baseline.resolve()), "this tree": str(REPO)}
    best: dict = {}
    handbacks: dict = {}
    with tempfile.NamedTemporaryFile(suffix=".bin") as f:
        f.write(b"".join(len(d).to_bytes(4, "little") + d for d in inputs))
        f.flush()
        for _ in range(args.rounds):
            for name, tree in trees.items():
                out = subprocess.run([sys.executable, __file__, "--baseline", tree, "--read", args.read,
                                      "--child", tree, f.name],
                                     check=True, capture_output=True, text=True, cwd=tree).stdout
                got = json.loads(out.splitlines()[-1])
                prev = best.get(name)
                best[name] = got["times"] if prev is None else [min(a, b) for a, b in zip(prev, got["times"])]
                handbacks[name] = got["handbacks"]
    print(f"lint of {len(inputs)} inputs (the hostile ones and {args.mutated} mutated, as fuzz_speed draws them), "
          f"report read: {args.read}, CPU time, each input's best of {args.rounds} rounds, the trees taking turns:")
    stats = {}
    hostile = len(inputs) - args.mutated
    for name, times in best.items():
        mean, worst = 1e3 * sum(times) / len(times), 1e3 * max(times)
        mutated = times[hostile:]
        hb = handbacks[name]
        stats[name] = (mean, worst)
        print(f"  {name:9}  mean {mean:7.3f} ms  worst {worst:8.2f} ms  (the mutated alone: mean "
              f"{1e3 * sum(mutated) / max(len(mutated), 1):.3f} ms, worst {1e3 * max(mutated, default=0):.2f} ms)  "
              f"records handed back per input: mean {sum(hb) / len(hb):.1f}, max {max(hb)}")
    (bm, bw), (tm, tw) = stats["baseline"], stats["this tree"]
    print(f"  baseline / this tree: mean {bm / tm:.2f}x, worst {bw / tw:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
