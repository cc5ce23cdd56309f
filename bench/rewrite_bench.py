"""Times and peak memory of ``fxtlint repair`` and ``fxtlint slice``, each against the lint
of the same file measured in the same run, each run as the command users run.

    python bench/rewrite_bench.py [--mb 5] [--slice-mb 500] [--split-size 200MB] [--split-time 0]
                                  [--range] [--zero-page] [--phases] [--workload events]
                                  [--corpus tests/data/corpus-real]
                                  [--keep DIR] [--repeat N]

Prints one JSON line per run: bytes in and out, seconds (wall), the child's CPU seconds
(user + system: ``cpu_seconds``, less at the mercy of a loaded machine's other work), MiB/s, the child's own peak RSS
(Linux ``VmHWM`` of that child alone: each command runs in a fresh process that
reports its own), the exit status, and repair's number of changes or slice's pieces.
Runs on the large files print ``speed_vs_lint`` (the lint's seconds over the verb's:
1.0 is lint speed) and ``rss_vs_lint`` (the verb's peak RSS over the lint's), the lint
(``fxtlint check``) of the same file timed first in the same run; ``cpu_vs_lint`` the
same ratio of CPU seconds. Those are by file size. The lint of a file with a zeroed page
stops framing at the page (FR001) and reads only the bytes before it (``bytes_read`` in
its line): ``cpu_vs_lint_read`` and ``speed_vs_lint_read`` set the verb's MiB/s of the
file against the lint's MiB/s of what it read (the ratio by file size over the share of
the file the lint read); bench/README.md says which of the two issue 33 means. The synthetic traces
are clean by construction: their repair must be the same bytes, their pieces must lint
with no error. ``--zero-page`` also repairs a copy of the synthetic trace with a 4 KiB
page in its middle zeroed (the records around the page go record by record). ``--slice-mb 0``
skips the slice; ``--phases`` (with ``--zero-page``) adds a line with the CPU seconds of each
phase of the zeroed trace's repair run in one process as the verb runs them (IN's lint, the
repair pass, OUT's lint, continued or whole; ``sys`` and ``faults``: each of those three
phases' system seconds and minor page faults), the run with the least CPU of ``--repeat``;
with a slice it adds a line per slice (``slice_phases``) with the CPU seconds of its cut
(``slice_trace``) and of its pieces' lints (``cli.slice._verdict``) run in one process as the
verb runs them, and of the lint of the same trace (``lint_path`` in a process of its own, in
turn with it): ``cut_vs_lint``, ``pieces_vs_lint``, each phase in lints of IN, and
``floor_vs_lint``, the ratio with a cut that only frames and screens (``time_range``'s walk);
``--split-time 10ms`` adds a slice by trace time; ``--range`` adds a slice
to a time range, the middle half of the trace's time (``--from`` a quarter of its length
from its start, ``--to`` three quarters: the command reads the trace's range first, then
cuts). ``--keep DIR`` reads the synthetic traces from DIR where they are
(``bench-<workload>-<mb>mb.fxt``, the names ``run_bench.py --keep`` writes: the same
generator and seed) and writes them there where they are not; they are left in place.
``--repeat N`` runs each command N times and keeps, for each, the run with the least CPU
(its wall time and RSS with it): on a loaded machine the lint that is the baseline moves
by a third from one run to the next, and each ratio is of two such runs.

The children run with Python's bytecode cached (in a folder of the run's own), as an
installed package has it, even where PYTHONDONTWRITEBYTECODE is set (as ``run_bench.py``
runs its children): without it each child compiles every module it imports first, which
costs a slice (more modules) about 0.3 s and the lint about 0.16 s of each run.
"""

from __future__ import annotations

import argparse
import json
import os
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

# the children's environment: Python bytecode cached in a folder of the run's own (``main``)
CHILD_ENV = dict(os.environ)
CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)

# run a command in a child that reports its own peak RSS (VmHWM of /proc/self/status, in KiB:
# that of its own address space; ru_maxrss would carry the bench's own RSS at the fork over exec)
_CHILD = (
    "import sys\n"
    "from fxtlint.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "sys.stdout.flush()\n"
    "hwm = [l.split()[1] for l in open('/proc/self/status') if l.startswith('VmHWM:')]\n"
    "sys.stderr.write('\\n@@rss ' + (hwm[0] if hwm else '0') + '\\n')\n"
    "raise SystemExit(code)\n"
)


_CPU: dict = {}  # argv (as a tuple) -> the child's CPU seconds (user + system), of its last run


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


REPEAT = 1  # runs of each command; the one with the least CPU is kept (``--repeat``)


def run(argv: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
    """(the finished child, seconds, its peak RSS in MiB) of the run of ``argv`` with the
    least CPU of ``REPEAT``; its CPU seconds in ``_CPU``."""
    best = None
    for _ in range(REPEAT):
        got = _run_once(argv)
        if best is None or _CPU[tuple(argv)] < best[1]:
            best = (got, _CPU[tuple(argv)])
    assert best is not None
    _CPU[tuple(argv)] = best[1]
    return best[0]


def _run_once(argv: list[str]) -> tuple[subprocess.CompletedProcess, float, float]:
    cpu = _children_cpu()
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, env=CHILD_ENV,
                          cwd=REPO)
    dt = time.perf_counter() - t
    _CPU[tuple(argv)] = _children_cpu() - cpu
    rss = 0.0
    for line in proc.stderr.splitlines():
        if line.startswith("@@rss "):
            rss = int(line.split()[1]) / 1024
    return proc, dt, rss


def _cpu(argv: list[str]) -> float:
    return round(_CPU.get(tuple(argv), 0.0), 3)


def lint(src: Path) -> dict:
    argv = ["check", str(src), "--no-progress", "--output-format", "json"]
    proc, dt, rss = run(argv)
    size = src.stat().st_size
    return {"lint": src.name, "bytes_in": size, "bytes_read": _read(proc.stdout, size), "seconds": round(dt, 3),
            "cpu_seconds": _cpu(argv), "mib_per_s": round(size / dt / 2**20, 2), "peak_rss_mib": round(rss, 1),
            "exit": proc.returncode}


def _read(report: str, size: int) -> int:
    """The bytes the lint framed: up to the header where it stopped framing (FR001, FR002's
    offset), else the whole file."""
    try:
        doc = json.loads(report)
    except ValueError:
        return size
    found = [d["offset"] for f in doc.get("files", ()) for d in f.get("diagnostics", ()) if d["code"] in _STOPS]
    return min(found, default=size)


_STOPS = ("FR001", "FR002")  # framing stops for good at these (the rest of the file is not read)


def _versus(row: dict, base: dict | None) -> dict:
    """The verb's ratios to the lint of the same file: by file size (``speed_vs_lint``,
    ``cpu_vs_lint``: the file's bytes over the verb's time against the file's bytes over the
    lint's) and, where the lint stopped framing before the end, by the bytes it read
    (``cpu_vs_lint_read``, ``speed_vs_lint_read``: the file's bytes over the verb's time
    against the bytes the lint framed over the lint's time, its speed as MiB/s of what it read)."""
    if base is not None:
        read = base.get("bytes_read", base["bytes_in"]) / base["bytes_in"]
        row["speed_vs_lint"] = round(base["seconds"] / row["seconds"], 3)
        if read < 1:
            row["speed_vs_lint_read"] = round(base["seconds"] / row["seconds"] / read, 3)
        if base.get("cpu_seconds") and row.get("cpu_seconds"):
            row["cpu_vs_lint"] = round(base["cpu_seconds"] / row["cpu_seconds"], 3)
            if read < 1:
                row["cpu_vs_lint_read"] = round(base["cpu_seconds"] / row["cpu_seconds"] / read, 3)
        row["rss_vs_lint"] = round(row["peak_rss_mib"] / base["peak_rss_mib"], 3) if base["peak_rss_mib"] else None
    return row


def repair(src: Path, out: Path, base: dict | None = None) -> dict:
    argv = ["repair", str(src), "-o", str(out), "--output-format", "json"]
    proc, dt, rss = run(argv)
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {}
    size = src.stat().st_size
    row = {"input": src.name, "bytes_in": size, "bytes_out": out.stat().st_size if out.exists() else None,
           "seconds": round(dt, 3), "cpu_seconds": _cpu(argv), "mib_per_s": round(size / dt / 2**20, 2),
           "peak_rss_mib": round(rss, 1), "exit": proc.returncode, "changes": len(doc.get("changes", ())),
           "same_bytes": out.exists() and _same(out, src)}
    if out.exists():
        out.unlink()
    return _versus(row, base)


def _same(a: Path, b: Path) -> bool:
    if a.stat().st_size != b.stat().st_size:
        return False
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def slice_run(src: Path, out: Path, option: str, value: str, base: dict | None = None, *more: str) -> dict:
    argv = ["slice", str(src), "-o", str(out), option, value, *more, "--output-format", "json"]
    proc, dt, rss = run(argv)
    doc = json.loads(proc.stdout) if proc.stdout.strip() else {"pieces": []}
    size = src.stat().st_size
    written = sum(Path(p["path"]).stat().st_size for p in doc["pieces"])
    for p in doc["pieces"]:
        Path(p["path"]).unlink()
    options = {k.lstrip("-"): v for k, v in zip((option, *more[::2]), (value, *more[1::2]))}
    row = {"slice": src.name, **options, "bytes_in": size, "bytes_out": written,
           "seconds": round(dt, 3), "cpu_seconds": _cpu(argv), "mib_per_s": round(size / dt / 2**20, 2),
           "peak_rss_mib": round(rss, 1), "exit": proc.returncode, "pieces": len(doc["pieces"]),
           "errors": sum(p["errors"] for p in doc["pieces"]), "stderr": proc.stderr.split("\n@@rss")[0][-300:]}
    return _versus(row, base)


# the zeroed trace's repair as ``fxtlint repair`` runs it, each phase's CPU seconds (user + system
# of this process, ``getrusage``) apart: IN's lint, the repair pass, OUT's lint (continued from
# IN's where the tree has ``cli.repair._continues`` and it holds, else whole; where the tree has
# ``cli.repair._rest``, the continued lint walks IN's rest inside the repair pass when it can:
# ``out_lint`` "rest", the repair pass's CPU holds it, OUT's lint's is 0)
_PHASES = (
    "import json, resource, sys, types\n"
    "sys_faults = []  # (system seconds, minor page faults) at each mark\n"
    "def cpu():\n"
    "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    sys_faults.append((r.ru_stime, r.ru_minflt))\n"
    "    return r.ru_utime + r.ru_stime\n"
    "t0 = cpu()\n"
    "from fxtlint.cli import repair as verb\n"
    "from fxtlint.cli._rewrite_io import lint_regular_file, opened_input, resumable\n"
    "from fxtlint.rewrite._repair import repair\n"
    "src, out = sys.argv[1:3]\n"
    "t1 = cpu()\n"
    "linted = lint_regular_file(src, resume=True)\n"
    "t2 = cpu()\n"
    "with opened_input(src) as inp:\n"
    "    if linted[3].resume is not None:\n"
    "        resumable(inp, linted[2], src)\n"
    "    with open(out, 'wb') as fh:\n"
    "        go_on = getattr(verb, '_continues', lambda linted: False)(linted)\n"
    "        rest = getattr(verb, '_rest', None)\n"
    "        args, outputs = types.SimpleNamespace(output=out), types.SimpleNamespace(parts={out: out})\n"
    "        more = {} if rest is None or not go_on else {'rest': rest(linted, fh, outputs, args)}\n"
    "        log = repair(inp, fh.write, out_file=fh, resume=linted[3].resume, **more)\n"
    "t3 = cpu()\n"
    "paused = linted[3].paused\n"
    "how = 'rest' if go_on and getattr(paused, 'report', None) is not None else \\\n"
    "    'continued' if go_on and not paused.used else 'whole'\n"
    "report = paused.report if how == 'rest' else verb._lint_continued(paused, out) if how == 'continued' else \\\n"
    "    verb.lint_output(out)\n"
    "t4 = cpu()\n"
    "print(json.dumps({'phases': src.rsplit('/', 1)[-1], 'imports_cpu': round(t1 - t0, 3),\n"
    "                  'in_lint_cpu': round(t2 - t1, 3), 'repair_pass_cpu': round(t3 - t2, 3),\n"
    "                  'out_lint_cpu': round(t4 - t3, 3), 'out_lint': how,\n"
    "                  'out_errors': report.has_errors,\n"
    "                  'sys': [round(b[0] - a[0], 3) for a, b in zip(sys_faults[1:], sys_faults[2:])],\n"
    "                  'faults': [b[1] - a[1] for a, b in zip(sys_faults[1:], sys_faults[2:])]}))\n"
)


def phases(src: Path, out: Path) -> dict:
    """The CPU seconds of each phase of the repair of ``src`` (``_PHASES``), the run with the
    least total CPU of ``REPEAT``."""
    best: dict | None = None
    for _ in range(REPEAT):
        proc = subprocess.run([sys.executable, "-c", _PHASES, str(src), str(out)], capture_output=True, text=True,
                              env=CHILD_ENV, cwd=REPO)
        if out.exists():
            out.unlink()
        if proc.returncode:
            return {"phases": src.name, "error": proc.stderr[-300:]}
        row = json.loads(proc.stdout)
        total = sum(v for k, v in row.items() if k.endswith("_cpu"))
        if best is None or total < best["total_cpu"]:
            best = {**row, "total_cpu": round(total, 3)}
    assert best is not None
    return best


# a slice as ``fxtlint slice`` runs it (``cli.slice.run``: IN read in place, the pieces written
# as files, each linted by ``_verdict``), each phase's CPU seconds (user + system of this
# process) apart: the cut (``slice_trace``: the walk over IN that writes the pieces) and the
# pieces' lints. With "lint" for the option: the lint of IN alone (``lint_path``, as each
# piece's), in a process of its own as ``check`` runs it (the first lint in a process pays
# for memory a later one reuses: measured after the slice, it would come out cheaper)
_SLICE_PHASES = (
    "import json, os, resource, sys\n"
    "def cpu():\n"
    "    r = resource.getrusage(resource.RUSAGE_SELF)\n"
    "    return r.ru_utime + r.ru_stime\n"
    "t0 = cpu()\n"
    "from fxtlint.cli import slice as verb\n"
    "from fxtlint.cli._rewrite_io import Outputs, opened_input\n"
    "from fxtlint.engine._lint import lint_path\n"
    "from fxtlint.rewrite._slice import slice_trace\n"
    "src, out, option, value = sys.argv[1:5]\n"
    "t1 = cpu()\n"
    "if option == 'lint':\n"
    "    lint_path(src, input_format='trace')\n"
    "    print(json.dumps({'lint_cpu': round(cpu() - t1, 3)}))\n"
    "    raise SystemExit(0)\n"
    "args = verb.argparse.Namespace(start=None, end=None, split_size=None, split_time=None, split_archives=False)\n"
    "setattr(args, option.lstrip('-').replace('-', '_'), value)\n"
    "outputs, paths = Outputs(), []\n"
    "def open_out(i):\n"
    "    paths.append(verb.piece_path(out, i))\n"
    "    return verb._PieceFile(outputs, paths[-1])\n"
    "folder = os.path.dirname(os.path.abspath(out))\n"
    "t1 = cpu()\n"
    "ride = {'ride': True} if hasattr(verb, '_verdicts') else {}\n"
    "with opened_input(src) as inp:\n"
    "    log = slice_trace(inp, open_out, verb._cutter(args, inp), scratch=lambda: verb.scratch_file(folder), **ride)\n"
    "t2 = cpu()\n"
    "ridden = getattr(log, 'verdicts', None) or [None] * len(paths)\n"
    "verdicts = verb._verdicts(paths, log.verdicts) if ride else [verb._verdict(p) for p in paths]\n"
    "t3 = cpu()\n"
    "for p in paths:\n"
    "    os.unlink(p)\n"
    "from fxtlint.rewrite._slice import time_range\n"
    "t4 = cpu()\n"
    "with opened_input(src) as inp:\n"
    "    time_range(inp)\n"
    "t5 = cpu()\n"
    "print(json.dumps({'slice_phases': src.rsplit('/', 1)[-1], option.lstrip('-'): value,\n"
    "                  'imports_cpu': round(t1 - t0, 3), 'cut_cpu': round(t2 - t1, 3),\n"
    "                  'pieces_lint_cpu': round(t3 - t2, 3), 'frame_screen_cpu': round(t5 - t4, 3),\n"
    "                  'pieces': len(paths), 'fallbacks': sum(v is None for v in ridden),\n"
    "                  'errors': sum(e for e, _ in verdicts)}))\n"
)


def _phase_child(src: Path, out: Path, option: str, value: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", _SLICE_PHASES, str(src), str(out), option, value],
                          capture_output=True, text=True, env=CHILD_ENV, cwd=REPO)
    if proc.returncode:
        return {"error": proc.stderr[-300:]}
    return json.loads(proc.stdout)


def slice_phases(src: Path, out: Path, option: str, value: str) -> dict:
    """The CPU seconds of the cut and of the pieces' lints of the slice of ``src`` by ``option``
    ``value`` (``_SLICE_PHASES``), the run with the least of the two together of ``REPEAT``, and
    of the lint of ``src`` (``lint_path`` in a process of its own, taken in turn with the slice,
    the least of ``REPEAT``); ``cut_vs_lint``, ``pieces_vs_lint``: each phase's CPU over that
    lint's; ``two_phases_vs_lint``: the lint's over the two phases' together (the ratio the verb
    would reach without its start-up). ``frame_screen_cpu``: a walk over IN that frames and
    screens every record and reads no event's refs (``time_range``, the --from/--to first
    pass: the least a cut walk does), and ``floor_vs_lint`` the ratio a slice would reach with
    a cut that cost only that, its pieces linted as they are."""
    best: dict | None = None
    lint_cpu = None
    for _ in range(REPEAT):
        row = _phase_child(src, out, option, value)
        if "error" in row:
            return {"slice_phases": src.name, **row}
        if best is None or row["cut_cpu"] + row["pieces_lint_cpu"] < best["cut_cpu"] + best["pieces_lint_cpu"]:
            best = row
        got = _phase_child(src, out, "lint", "")
        if "error" in got:
            return {"slice_phases": src.name, **got}
        lint_cpu = got["lint_cpu"] if lint_cpu is None else min(lint_cpu, got["lint_cpu"])
    assert best is not None and lint_cpu
    best["lint_cpu"] = lint_cpu
    best["cut_vs_lint"] = round(best["cut_cpu"] / lint_cpu, 3)
    best["pieces_vs_lint"] = round(best["pieces_lint_cpu"] / lint_cpu, 3)
    best["two_phases_vs_lint"] = round(lint_cpu / (best["cut_cpu"] + best["pieces_lint_cpu"]), 3)
    best["frame_screen_vs_lint"] = round(best["frame_screen_cpu"] / lint_cpu, 3)
    best["floor_vs_lint"] = round(lint_cpu / (best["frame_screen_cpu"] + best["pieces_lint_cpu"]), 3)
    return best


def middle_half(src: Path) -> tuple[str, str]:
    """--from and --to of the middle half of ``src``'s time (in nanoseconds from its start)."""
    sys.path.insert(0, str(REPO))
    from fxtlint.rewrite._slice import time_range

    span = time_range(src.read_bytes())
    assert span is not None
    length = span.end - span.start
    return f"{int(length / 4 * 10**9)}ns", f"{int(3 * length / 4 * 10**9)}ns"


def zeroed(src: Path, dst: Path) -> None:
    """``src`` with the 4 KiB page at its middle zeroed."""
    size = src.stat().st_size
    at = (size // 2) & ~4095
    with open(src, "rb") as fi, open(dst, "wb") as fo:
        left = at
        while left:
            chunk = fi.read(min(left, 1 << 20))
            fo.write(chunk)
            left -= len(chunk)
        fi.seek(at + 4096)
        fo.write(b"\0" * 4096)
        while chunk := fi.read(1 << 20):
            fo.write(chunk)


def _synthetic(args, work: Path, mb: float) -> Path:
    """The synthetic trace of ``mb`` MiB: in ``--keep``'s folder (made there when missing), else in ``work``."""
    if args.keep is None:
        path = work / f"{args.workload}-{mb:g}mb.fxt"
    else:
        args.keep.mkdir(parents=True, exist_ok=True)
        path = args.keep / f"bench-{args.workload}-{mb:g}mb.fxt"
        if path.exists():
            return path
    with open(path, "wb") as fh:
        make_trace.generate_to(fh, mb, workload=args.workload)
    return path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=float, default=5.0, help="size of the synthetic trace to repair (MiB)")
    ap.add_argument("--slice-mb", type=float, default=500.0, help="size of the trace to slice (MiB; 0: none)")
    ap.add_argument("--split-size", default="200MB", help="slice's --split-size")
    ap.add_argument("--split-time", default=None, help="also slice with this --split-time (trace time)")
    ap.add_argument("--range", action="store_true", help="also slice the middle half of the trace's time")
    ap.add_argument("--zero-page", action="store_true", help="also repair the synthetic trace with a zeroed 4 KiB page")
    ap.add_argument("--phases", action="store_true",
                    help="with --zero-page: also the CPU of each phase of the zeroed trace's repair, in one process; "
                    "with a slice: the CPU of its cut and of its pieces' lints, in one process")
    ap.add_argument("--workload", default="events", choices=("events", "mixed", "sched"))
    ap.add_argument("--corpus", type=Path, default=REPO / "tests" / "data" / "corpus-real")
    ap.add_argument("--keep", type=Path, default=None, metavar="DIR",
                    help="read the synthetic traces from DIR where they are (else write them there, and leave them)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each command N times and keep the run with the least CPU (a loaded machine)")
    args = ap.parse_args()
    global REPEAT
    REPEAT = max(1, args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(work / "bytecode")
        # compiled once, before anything is timed (the verbs' modules: slice's and repair's too)
        subprocess.run([sys.executable, "-c", "import fxtlint.cli.slice, fxtlint.cli.repair, fxtlint.cli.check"],
                       cwd=REPO, env=CHILD_ENV, check=True)
        inputs = sorted(args.corpus.glob("*.fxt"))
        for src in inputs:
            print(json.dumps(repair(src, work / f"{src.stem}.repaired.fxt")), flush=True)
        synthetic = _synthetic(args, work, args.mb)
        base = lint(synthetic)
        print(json.dumps(base), flush=True)
        print(json.dumps(repair(synthetic, work / "synthetic.repaired.fxt", base)), flush=True)
        if args.zero_page:
            broken = work / f"{args.workload}-{args.mb:g}mb-zeroed.fxt"
            zeroed(synthetic, broken)
            broken_base = lint(broken)
            print(json.dumps(broken_base), flush=True)
            print(json.dumps(repair(broken, work / "zeroed.repaired.fxt", broken_base)), flush=True)
            if args.phases:
                print(json.dumps(phases(broken, work / "zeroed.repaired.fxt")), flush=True)
            broken.unlink()
        if args.slice_mb:
            if args.slice_mb != args.mb:
                if args.keep is None:
                    synthetic.unlink()
                synthetic = _synthetic(args, work, args.slice_mb)
                base = lint(synthetic)
                print(json.dumps(base), flush=True)
            print(json.dumps(slice_run(synthetic, work / "piece.fxt", "--split-size", args.split_size, base)),
                  flush=True)
            if args.split_time:
                print(json.dumps(slice_run(synthetic, work / "piece.fxt", "--split-time", args.split_time, base)),
                      flush=True)
            if args.phases:
                print(json.dumps(slice_phases(synthetic, work / "piece.fxt", "--split-size", args.split_size)),
                      flush=True)
                if args.split_time:
                    print(json.dumps(slice_phases(synthetic, work / "piece.fxt", "--split-time", args.split_time)),
                          flush=True)
            if args.range:
                start, end = middle_half(synthetic)
                print(json.dumps(slice_run(synthetic, work / "piece.fxt", "--from", start, base, "--to", end)),
                      flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
