"""Benchmark: the start-up of the ``fxtlint FILE`` command against ``python -c pass``.

    python bench/startup.py [--runs 21] [--file corpus/samples/sample.fxt] [--format rich]
                            [--also OTHER_PYTHON ...]

A small lint's wall time is mostly start-up: the interpreter, then fxtlint's imports
(the tables, the rules) and the walk. Issues 26 and 32 ask for ``fxtlint sample.fxt``
(920 bytes) in at most 4 times ``python -c pass``. This script starts the commands in
turn, A B A B ... (paired: a drift of the machine's speed moves both of a pair), after
one warm-up run each, and prints the median of each command's wall time and CPU time
(user + system, the child's own: what other processes do moves it less) and the medians
of the pairs' ratios (the figures to quote), with their spread. The package's bytecode
is compiled first, as ``pip install`` does (an environment with PYTHONDONTWRITEBYTECODE
set would otherwise compile every module on every run), and the warm-up lint writes the
spec tables' cache (``spec/_tables.parsed_tables``), as a first run after an install does.
Two commands run with this interpreter, their output a pipe (``--format``: rich, the text,
or json): the installed console script, ``fxtlint FILE`` (the ``fxtlint`` next to the
interpreter, ``Path(sys.executable).parent / "fxtlint"``, the script pip wrote from
``[project.scripts]``: the command the issues name and the figure printed last), and
``python -m fxtlint FILE`` beside it. An environment without the script (a checkout run
with ``PYTHONPATH``) times ``python -m fxtlint`` only, and says so. The script is the
installer's: pip 23.2.1, the one a fresh venv of Python 3.11 bundles, writes ``import re``
first (a few ms), pips since early 2025 do not (bench/README.md, ``start48b``).

``--also PYTHON`` (repeatable) times that interpreter's two commands (the ``fxtlint`` next
to ``PYTHON``) in the same rounds, each against the same ``python -c pass`` of this
interpreter: another environment (the code before a change, installed in its own venv)
measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TARGET = 4.0  # issues 26 and 32: at most this many times `python -c pass`


def timed(cmd: list[str]) -> tuple[float, float]:
    """(wall, CPU) seconds of one run of ``cmd``; the CPU time is the child's own."""
    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            cwd="/")
    proc.stdout.read()
    _, _, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0  # reaped here: Popen must not wait for it again
    wall = time.perf_counter() - t
    return wall, usage.ru_utime + usage.ru_stime


def compile_and_warm(python: str, lint: list[str]) -> None:
    code = "import compileall, pathlib, fxtlint; compileall.compile_dir(pathlib.Path(fxtlint.__file__).parent, quiet=1)"
    subprocess.run([python, "-c", code], check=True, cwd="/", stdout=subprocess.DEVNULL)
    if subprocess.run(lint, capture_output=True, check=False, cwd="/").returncode not in (0, 1):
        sys.exit(f"{' '.join(lint)} failed")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=21)
    p.add_argument("--file", default=str(REPO / "corpus" / "samples" / "sample.fxt"))
    p.add_argument("--format", default="rich", choices=("rich", "json"), help="--output-format of the lint")
    p.add_argument("--also", action="append", default=[], metavar="PYTHON",
                   help="another interpreter whose fxtlint is timed in the same rounds")
    args = p.parse_args()
    file = str(Path(args.file).resolve())
    opts = ["--output-format", args.format, file]
    lints: dict[str, list[str]] = {}  # label -> command, in the order of the rounds
    for py in [sys.executable, *args.also]:
        where = "" if py == sys.executable else f" ({py})"
        script = Path(py).parent / "fxtlint"
        if script.is_file():
            lints["fxtlint" + where] = [str(script), *opts]
        else:
            print(f"no console script {script}: `python -m fxtlint` only", file=sys.stderr)
        lints["python -m fxtlint" + where] = [py, "-m", "fxtlint", *opts]
    for py in [sys.executable, *args.also]:
        compile_and_warm(py, [py, "-m", "fxtlint", *opts])
    bare = [sys.executable, "-c", "pass"]
    for lint in lints.values():
        timed(lint)  # warm-up: the file cache
    timed(bare)
    times: dict[str, list[tuple[float, float]]] = {label: [] for label in lints}
    base: list[tuple[float, float]] = []
    for _ in range(args.runs):
        for label, lint in lints.items():
            times[label].append(timed(lint))
        base.append(timed(bare))
    print(f"{args.runs} paired runs of `fxtlint --output-format {args.format} {Path(file).name}` (the console "
          f"script), `python -m fxtlint` and `python -c pass` (cwd /, output a pipe):")
    width = max(46, *map(len, lints))
    print(f"  {'command':{width}} {'wall ms':>8} {'CPU ms':>8}   {'wall ratio':>10} {'CPU ratio':>10}")
    print(f"  {'python -c pass':{width}} {1e3 * statistics.median(w for w, _ in base):8.1f} "
          f"{1e3 * statistics.median(c for _, c in base):8.1f}")
    for label, runs in times.items():
        wall = sorted(a[0] / b[0] for a, b in zip(runs, base))
        cpu = sorted(a[1] / max(b[1], 1e-6) for a, b in zip(runs, base))
        print(f"  {label:{width}} {1e3 * statistics.median(w for w, _ in runs):8.1f} "
              f"{1e3 * statistics.median(c for _, c in runs):8.1f}   {statistics.median(wall):9.2f}x "
              f"{statistics.median(cpu):9.2f}x   (wall ratio min {wall[0]:.2f}, max {wall[-1]:.2f})")
    label = next(iter(lints))
    med = statistics.median(sorted(a[0] / b[0] for a, b in zip(times[label], base)))
    print(f"  this `{label}`, wall ratio, median of pairs: {med:.2f}x; target at most {TARGET:.0f}x: "
          f"{'met' if med <= TARGET else 'not met'}")

if __name__ == "__main__":
    main()
