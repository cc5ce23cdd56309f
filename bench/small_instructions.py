"""Benchmark: the instructions a small lint executes, this tree against a baseline checkout.

    python bench/small_instructions.py --baseline DIR [--rounds 20] [--max-bytes 2048]

On a shared machine a change of 1% to a 0.03 ms lint is below the timer's noise
(``small_traces.py``); the instructions executed are not. Under valgrind's callgrind, each
tree (``DIR``: another checkout with its extensions built in place, as ``fuzz_ab.py`` takes
it) lints every golden file under ``--max-bytes`` once, in one process, and again
``--rounds`` more times in another; the difference over ``rounds * files`` lints is the
instructions per lint (start-up and first-lint costs cancel). Each report is read as a CI
gate reads it (its exit status and counts), as ``small_traces.py`` reads it, with one
hash seed (``PYTHONHASHSEED=0``) in every process, each run once outside callgrind first
(its modules compiled to bytecode there, not in a count). Prints each tree's instructions per
lint and the ratio baseline / this tree.
Needs ``valgrind`` on the path.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

_CHILD = """
import sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {bench!r})
import fxtlint
import small_traces as st
blobs = st.golden_blobs({max_bytes})
for _ in range(1 + {rounds}):
    for d, f in blobs:
        r = fxtlint.lint_bytes(d, input_format=f)
        r.has_errors; r.severity_counts
print(len(blobs))
"""


def _instructions(tree: Path, rounds: int, max_bytes: int) -> tuple[int, int]:
    """(instructions collected, files) of one process linting the golden files 1 + ``rounds`` times."""
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "child.py"
        script.write_text(_CHILD.format(root=str(tree), bench=str(HERE), max_bytes=max_bytes, rounds=rounds))
        env = {**os.environ, "PYTHONHASHSEED": "0"}  # (one hashing: the same dict probes each run)
        # (once outside callgrind first: the tree's modules compiled to bytecode, not in a count)
        subprocess.run([sys.executable, str(script)], cwd=tree, capture_output=True, check=True, env=env)
        done = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.devnull}",
                               sys.executable, str(script)],
                              cwd=tree, capture_output=True, text=True, check=True, env=env)
    got = re.search(r"Collected : (\d+)", done.stderr)
    if got is None:
        raise SystemExit(f"no instruction count from callgrind:\n{done.stderr[-2000:]}")
    return int(got.group(1)), int(done.stdout.split()[-1])


def per_lint(tree: Path, rounds: int, max_bytes: int) -> float:
    """The instructions one lint of a golden file executes in ``tree``, on average."""
    base, files = _instructions(tree, 0, max_bytes)
    more, _ = _instructions(tree, rounds, max_bytes)
    return (more - base) / (rounds * files)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--max-bytes", type=int, default=2048)
    args = ap.parse_args()
    base = per_lint(args.baseline.resolve(), args.rounds, args.max_bytes)
    this = per_lint(ROOT, args.rounds, args.max_bytes)
    print(f"golden files under {args.max_bytes} bytes, {args.rounds} rounds, instructions per lint (callgrind):")
    print(f"  baseline   {base:,.0f}")
    print(f"  this tree  {this:,.0f}")
    print(f"  baseline / this tree: {base / this:.4f}x ({base - this:+,.0f} instructions a lint)")


if __name__ == "__main__":
    main()
