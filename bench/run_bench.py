"""Benchmark: fxtlint's full strict lint from the CLI, per workload, against a bare
header walk and the fxt 0.3.0 parser, and fxtlint's other verbs against the lint, at
two sizes, in one run.

    python bench/run_bench.py [--mb 50] [--also-mb 500] [--workloads events,mixed,sched,log]
                              [--verbs report,export,decode] [--verb-engine E] [--engines reference,...]
                              [--keep DIR]
                              [--repeat 3] [--json OUT] [--profile N]

For each workload of ``bench/make_trace.py`` (events; mixed; kernel scheduling;
structured-log stream), clean by construction, each target runs in a fresh child
process so that its time and peak RSS are its own (with Python's bytecode cached, as an
installed package has it, even where PYTHONDONTWRITEBYTECODE is set):

- bare-walk: a plain Python loop over the record headers (struct.unpack_from per
  header, size to the next one): the least any Python reader can do; its speed on the
  events workload calibrates the machine (about 190 MB/s on an idle one here);
- c-walk: the same loop in C (compiled with the machine's ``cc`` at the start of the run;
  skipped where there is none), in a fresh process: the framing limit, what no lint of
  every record can beat;
- fxtlint: ``python -m fxtlint --output-format json FILE``, the command line a user
  runs (every layout and semantic rule; interpreter start-up included). Its JSON must
  report no diagnostic: the workloads are clean by construction;
- fxt-0.3.0: ``fxt.reader.parse_records`` from PyPI, where it can read the file;
- report, export, decode: ``python -m fxtlint report --format json FILE``,
  ``python -m fxtlint export FILE -o OUT.json`` and ``python -m fxtlint decode FILE``,
  the other verbs a user runs on the same trace. Their output goes to /dev/null
  (``export -o /dev/null``; standard output): at 500 MB export and decode write
  gigabytes of JSON, and writing that to a file measures the machine's page cache and
  disk more than fxtlint; ``--verb-output DIR`` writes files instead. A structured-log stream has no canonical
  decoding: decode says so (MG005) and is not timed there. ``--verb-engine E`` runs them
  under ``FXTLINT_ENGINE=E`` (the lint beside them stays on the default engine);
- lint:ENGINE (``--engines``): the same command line as fxtlint with ``FXTLINT_ENGINE=ENGINE``,
  each engine beside the default one in the same run.

It prints MB/s, records/s and peak RSS per target, then per workload its lint's speed over
the bare walk on the events file (issue 32's target: 2x or more, start-up included), over
its own file's bare walk, and over the C walk; then the checks: the lint at 2x or more the
events bare walk, at both sizes; fxt / fxtlint >= 50 on the events
workload; fxtlint's peak RSS at the larger size <= 1.5x the base; and per verb, at each
size, its MB/s over the lint's in the same run (report >= 0.8, export and decode >= 0.5)
and its own peak RSS at the larger size over the base (<= 1.5). The verbs' ratios are
printed again by CPU (user + system of the same runs; not checked), which a shared machine
stretches less than it stretches one command's wall clock.

``--profile N`` then runs the lint once more per workload at the base size under
cProfile (``python -m cProfile -m fxtlint ...``, the same command line) and prints the N
functions with the most time of their own: what bounds the lint.
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
from contextlib import contextmanager
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

import make_trace  # noqa: E402

# issue 32: every workload's lint (start-up included) at this multiple of the bare Python
# header walk over the events file, in the same run (that walk calibrates the machine)
TARGET_BARE_RATIO = 2.0
TARGET_FXT_RATIO = 50
TARGET_RSS_RATIO = 1.5
# each verb's MB/s over the lint's (``fxtlint``), same workload, size and run
VERB_TARGETS = {"report": 0.8, "export": 0.5, "decode": 0.5}  # issue 33 item 6
VERB_ARGS = {
    "report": lambda path, out: ["report", "--format", "json", path],
    "export": lambda path, out: ["export", path, "-o", out],
    "decode": lambda path, out: ["decode", path],
}

CHILD_PRELUDE = """
import json, sys, time
sys.path.insert(0, {repo!r})
path = {path!r}
def done(seconds, records, **extra):
    hwm = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]
    print(json.dumps(dict(seconds=seconds, records=records, rss_mib=hwm / 1024, **extra)))
"""

BARE_WALK = """
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
"""

C_WALK_SOURCE = r"""
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <time.h>
int main(int argc, char **argv) {
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) return 2;
    size_t end = (size_t)st.st_size;
    const unsigned char *m = mmap(0, end ? end : 1, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) return 2;
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    size_t off = 0, n = 0;
    while (off + 8 <= end) {
        uint64_t h;
        memcpy(&h, m + off, 8);
        uint64_t size = (h & 0xF) == 15 ? (h >> 4) & 0xFFFFFFFFu : (h >> 4) & 0xFFF;
        if (size == 0) break;
        off += size * 8;
        n++;
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("%.9f %zu\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9, n);
    return 0;
}
"""
C_WALK: list[Path] = []  # the compiled C header walk, once per run (empty: no compiler)


def build_c_walk(folder: Path) -> str | None:
    """Compile the C header walk into ``folder``; the reason when it cannot be."""
    src, exe = folder / "c_walk.c", folder / "c_walk"
    src.write_text(C_WALK_SOURCE)
    try:
        subprocess.run(["cc", "-O2", "-o", str(exe), str(src)], check=True, capture_output=True, text=True)
    except OSError as e:
        return f"no C walk: no cc ({e})"
    except subprocess.CalledProcessError as e:
        return f"no C walk: cc failed: {e.stderr.strip()[-300:]}"
    C_WALK.append(exe)
    return None


def run_c_walk(path: Path) -> dict:
    if not C_WALK:
        return dict(unavailable="no C compiler (cc) to build the C header walk")
    out = subprocess.run([str(C_WALK[0]), str(path)], check=True, capture_output=True, text=True)
    seconds, records = out.stdout.split()
    return dict(seconds=float(seconds), records=int(records), rss_mib=0.0)


FXT = """
try:
    from fxt.reader import parse_records
except ImportError:
    print(json.dumps(dict(unavailable="pip install 'fxt==0.3.0' (or '.[bench]')")))
    raise SystemExit(0)
with open(path, 'rb') as f:
    t = time.perf_counter()
    try:
        r = parse_records(f)
    except Exception as e:
        print(json.dumps(dict(unavailable=f"fxt cannot read it: {type(e).__name__}: {str(e)[:60]}")))
        raise SystemExit(0)
    dt = time.perf_counter() - t
n = sum(len(p.records) for p in r.records_by_provider.values())
if n == 0:
    print(json.dumps(dict(unavailable="fxt read no records from it")))
    raise SystemExit(0)
done(dt, n, eof=r.had_unexpected_eof)
"""


# the children's environment: Python bytecode is cached (in a folder of the run's own) as
# an installed package has it, even where PYTHONDONTWRITEBYTECODE is set; without it
# every run of the command line would compile fxtlint's modules again first
CHILD_ENV = dict(os.environ)


def cache_bytecode(folder: Path) -> None:
    CHILD_ENV.pop("PYTHONDONTWRITEBYTECODE", None)
    CHILD_ENV["PYTHONPYCACHEPREFIX"] = str(folder)
    _shim(["--version"])  # compile once, before anything is timed


def run_python(code: str, path: Path) -> dict:
    code = CHILD_PRELUDE.format(repo=str(REPO), path=str(path)) + code
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True, env=CHILD_ENV)
    return json.loads(out.stdout.strip().splitlines()[-1])


# ``python -m fxtlint ...`` run under a shim that reports the process's own peak RSS
# (VmHWM after exec; a forked child's rusage would also count the parent's memory)
CLI_SHIM = """
import atexit, json, runpy, sys
sys.path.insert(0, {repo!r})
def hwm():
    kib = [int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM')][0]
    sys.stderr.write('\\nBENCH-RSS ' + json.dumps(kib / 1024) + '\\n')
atexit.register(hwm)
sys.argv = ['fxtlint', *{argv!r}]
runpy.run_module('fxtlint', run_name='__main__', alter_sys=True)
"""


def _children_cpu() -> float:
    """User and system CPU seconds of this process's waited-for children so far."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


LAST_CPU: list[float] = [0.0]  # the CPU seconds of the last ``_shim`` command


def _shim(argv: list[str], stdout=None, env=None) -> tuple[float, str, str, int, float]:
    """``python -m fxtlint ARGV`` under the RSS shim: (seconds, stdout, stderr, status, peak RSS MiB).
    Standard output goes to ``stdout`` (a file object) when given, else it is read back. The
    command's CPU (user + system: the children run one at a time) is left in ``LAST_CPU``."""
    with tempfile.TemporaryFile() as out:
        cpu = _children_cpu()
        t = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", CLI_SHIM.format(repo=str(REPO), argv=argv)],
                              stdout=stdout or out, stderr=subprocess.PIPE, text=True, env=env or CHILD_ENV)
        dt = time.perf_counter() - t
        LAST_CPU[0] = _children_cpu() - cpu
        out.seek(0)
        text = out.read().decode("utf-8")
    rss = float(proc.stderr.rsplit("BENCH-RSS ", 1)[1].split()[0])
    return dt, text, proc.stderr, proc.returncode, rss


def run_cli(path: Path, engine: str | None = None) -> dict:
    """``python -m fxtlint --output-format json FILE``: wall time (start-up included) and peak
    RSS; with ``engine``, under ``FXTLINT_ENGINE=engine``."""
    env = None if engine is None else {**CHILD_ENV, "FXTLINT_ENGINE": engine}
    dt, text, err, status, rss = _shim(["--output-format", "json", str(path)], env=env)
    if status not in (0, 1):
        raise RuntimeError(f"fxtlint failed ({status}): {err}")
    f = json.loads(text)["files"][0]
    return dict(seconds=dt, cpu_seconds=LAST_CPU[0], records=f["records"], rss_mib=rss,
                diagnostics=sum(f["counts"].values()), counts=f["counts"])


VERB_OUTPUT: list[Path] = []  # --verb-output DIR: the folder the verbs write to (else /dev/null)
VERB_ENGINE: list[str] = []  # --verb-engine E: the verbs run under FXTLINT_ENGINE=E


def run_verb(verb: str, path: Path) -> dict:
    """``python -m fxtlint VERB ...`` on ``path``: wall time (start-up included) and peak RSS;
    it must succeed (the workloads are clean). Its output goes to /dev/null unless
    ``--verb-output`` names a folder; under ``FXTLINT_ENGINE`` when ``--verb-engine`` says one."""
    with tempfile.TemporaryDirectory(dir=VERB_OUTPUT[0] if VERB_OUTPUT else None) as tmp, \
            open(Path(tmp) / "stdout" if VERB_OUTPUT else os.devnull, "w") as sink:
        out = str(Path(tmp) / "out.json") if VERB_OUTPUT else os.devnull
        env = {**CHILD_ENV, "FXTLINT_ENGINE": VERB_ENGINE[0]} if VERB_ENGINE else None
        dt, _, err, status, rss = _shim(VERB_ARGS[verb](str(path), out), stdout=sink, env=env)
    if verb == "decode" and "MG005" in err:
        return dict(unavailable="a structured-log stream has no canonical decoding (decode says MG005)")
    # export says on stderr (exit 1) what has no Trace Event counterpart: thread names
    # whose process is unknown (the mixed workload's kernel objects); it exported the rest
    if status != 0 and not (verb == "export" and status == 1 and "skipped" in err):
        raise RuntimeError(f"fxtlint {verb} failed ({status}): {err[-2000:]}")
    return dict(seconds=dt, cpu_seconds=LAST_CPU[0], rss_mib=rss)


# ``python -m fxtlint ...`` under cProfile, the same command line as ``run_cli``: the
# functions with the most time of their own, and the run's total
PROFILE_SHIM = """
import cProfile, io, os, pstats, runpy, sys
sys.path.insert(0, {repo!r})
sys.argv = ['fxtlint', *{argv!r}]
prof = cProfile.Profile()
out, sys.stdout = sys.stdout, open(os.devnull, 'w')
prof.enable()
try:
    runpy.run_module('fxtlint', run_name='__main__', alter_sys=True)
except SystemExit:
    pass
prof.disable()
sys.stdout = out
text = io.StringIO()
pstats.Stats(prof, stream=text).strip_dirs().sort_stats('tottime').print_stats({top})
print(text.getvalue().strip())
"""


def profile_cli(path: Path, top: int) -> str:
    """The lint of ``path`` from the command line under cProfile: pstats' top ``top`` by own time."""
    argv = ["--output-format", "json", str(path)]
    out = subprocess.run([sys.executable, "-c", PROFILE_SHIM.format(repo=str(REPO), argv=argv, top=top)],
                         check=True, capture_output=True, text=True, env=CHILD_ENV)
    return out.stdout


TARGETS = {
    "bare-walk": lambda path: run_python(BARE_WALK, path),
    "c-walk": run_c_walk,
    "fxtlint": run_cli,
    "fxt-0.3.0": lambda path: run_python(FXT, path),
    **{verb: (lambda path, verb=verb: run_verb(verb, path)) for verb in VERB_TARGETS},
}


def best_of(target: str, path: Path, repeat: int) -> dict:
    runs = [TARGETS[target](path) for _ in range(repeat)]
    if "unavailable" in runs[0]:
        return runs[0]
    best = min(runs, key=lambda r: r["seconds"])
    best["rss_mib"] = max(r["rss_mib"] for r in runs)
    return best


@contextmanager
def trace_folder(keep: Path | None):
    """Where the traces go: ``keep`` (made if need be), or a temporary folder removed afterwards."""
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
        yield keep
        return
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def trace(directory: Path, workload: str, mb: float) -> Path:
    p = directory / f"bench-{workload}-{mb:g}mb.fxt"
    if not p.exists():
        digest = make_trace.generate(p, mb, workload=workload)
        print(f"generated {p} ({p.stat().st_size / 2**20:.1f} MiB, sha256 {digest[:16]}…)", flush=True)
    return p


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=float, default=50, help="base trace size (default 50)")
    ap.add_argument("--also-mb", type=float, default=None, help="a second, larger size for the memory check")
    ap.add_argument("--workloads", default=",".join(make_trace.WORKLOADS), help="comma-separated workloads")
    ap.add_argument("--verbs", default=",".join(VERB_TARGETS), help="fxtlint verbs timed beside the lint "
                    f"(comma-separated, of {', '.join(VERB_TARGETS)}; empty for none)")
    ap.add_argument("--engines", default="", metavar="E1,E2",
                    help="also time the lint under FXTLINT_ENGINE=E for each engine E (targets lint:E), "
                    "beside the default engine (comma-separated; empty for none)")
    ap.add_argument("--verb-engine", default=None, metavar="E",
                    help="run the verbs under FXTLINT_ENGINE=E (e.g. walk: decode on the native walk), "
                    "the lint they are compared with on the default engine")
    ap.add_argument("--verb-output", type=Path, default=None, metavar="DIR",
                    help="write the verbs' output (gigabytes of JSON at 500 MB) to files in DIR instead of "
                    "/dev/null: the time then includes the page cache and the disk of the machine")
    ap.add_argument("--keep", type=Path, default=None, help="keep generated traces in this folder")
    ap.add_argument("--repeat", type=int, default=3, help="best of N runs at the base size (default 3; fxt: 1)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--profile", type=int, default=0, metavar="N",
                    help="then profile the lint of each workload at the base size: the N functions with "
                    "the most own time (cProfile)")
    args = ap.parse_args(argv)
    workloads = [w for w in args.workloads.split(",") if w]
    if args.verb_output:
        VERB_OUTPUT.append(args.verb_output)
    if args.verb_engine:
        VERB_ENGINE.append(args.verb_engine)
        print(f"verbs under FXTLINT_ENGINE={args.verb_engine}", flush=True)
    verbs = [v for v in args.verbs.split(",") if v]
    for engine in (e for e in args.engines.split(",") if e):
        TARGETS[f"lint:{engine}"] = lambda path, engine=engine: run_cli(path, engine)
    targets = [t for t in TARGETS if t not in VERB_TARGETS or t in verbs]
    lints = ["fxtlint"] + [t for t in targets if t.startswith("lint:")]

    results: dict = {}
    profiles: dict = {}
    sizes = [args.mb] + ([args.also_mb] if args.also_mb else [])
    with trace_folder(args.keep) as folder, tempfile.TemporaryDirectory() as bytecode:
        cache_bytecode(Path(bytecode))
        why = build_c_walk(Path(bytecode))
        if why:
            print(why, flush=True)
        for workload in workloads:
            for i, mb in enumerate(sizes):
                path = trace(folder, workload, mb)
                rows = results.setdefault(workload, {})[f"{mb:g}"] = {"mib": path.stat().st_size / 2**20}
                for target in targets:
                    if i > 0 and target == "fxt-0.3.0":
                        base = results[workload][f"{args.mb:g}"].get(target, {})
                        predicted = base.get("seconds", 0) * mb / args.mb
                        if "seconds" not in base or predicted > 60:
                            rows[target] = {"skipped": f"predicted {predicted:.0f} s from the base size"
                                            if "seconds" in base else base.get("unavailable", "skipped")}
                            continue
                    repeat = 1 if (i > 0 or target == "fxt-0.3.0") else args.repeat
                    rows[target] = best_of(target, path, repeat)
                    if target in VERB_TARGETS and "seconds" in rows[target]:
                        rows[target]["records"] = rows["fxtlint"]["records"]  # the lint counted them
                    print(f"{workload:7} {mb:5g} MB {target:10} {json.dumps(rows[target])}", flush=True)
                if i == 0 and args.profile:
                    profiles[workload] = profile_cli(path, args.profile)
                if i > 0 and not args.keep:
                    path.unlink()  # 500 MB files: do not keep four of them in /tmp

    print(f"\n{'workload':8} {'target':10} {'MiB':>7} {'seconds':>9} {'MiB/s':>8} {'records/s':>12} "
          f"{'peak RSS MiB':>13}")
    for workload, by_size in results.items():
        for rows in by_size.values():
            for target in targets:
                r = rows.get(target, {})
                if "seconds" not in r:
                    print(f"{workload:8} {target:10} {rows['mib']:7.1f}   {r.get('unavailable') or r.get('skipped')}")
                    continue
                print(f"{workload:8} {target:10} {rows['mib']:7.1f} {r['seconds']:9.3f} "
                      f"{rows['mib'] / r['seconds']:8.1f} {r['records'] / r['seconds']:12,.0f} {r['rss_mib']:13.1f}")

    ok = True
    checks = []
    print()
    # the machine's calibration: this run's bare Python walk over the events file, per size
    calib = {size: rows["mib"] / rows["bare-walk"]["seconds"] for size, rows in results.get("events", {}).items()}
    for size, mbps in calib.items():
        print(f"bare walk on the events workload, {size} MB: {mbps:.1f} MiB/s, so the {TARGET_BARE_RATIO:g}x target "
              f"is {TARGET_BARE_RATIO * mbps:.1f} MiB/s")
    print(f"\n{'workload':8} {'MB':>5} {'lint':16} {'/ events walk':>14} {'/ own walk':>11} {'/ C walk':>9}")
    for workload, by_size in results.items():
        for size, rows in by_size.items():
            for target in lints:
                if "seconds" not in rows.get(target, {}):
                    continue
                mbps = rows["mib"] / rows[target]["seconds"]
                own = rows["mib"] / rows["bare-walk"]["seconds"]
                c = rows.get("c-walk", {})
                c_ratio = f"{mbps / (rows['mib'] / c['seconds']):9.3f}" if c.get("seconds") else f"{'-':>9}"
                events = f"{mbps / calib[size]:14.2f}" if size in calib else f"{'-':>14}"
                print(f"{workload:8} {size:>5} {target:16} {events} {mbps / own:11.2f} {c_ratio}")
    print()
    for workload, by_size in results.items():
        base = by_size[f"{args.mb:g}"]
        lint = base["fxtlint"]
        for target in lints:
            if base.get(target, {}).get("diagnostics"):
                ok = False
                print(f"{workload}: NOT CLEAN: {target} reported {base[target]['counts']}")
        for size, rows in by_size.items():
            if size in calib:
                checks.append((f"{workload} {size} MB: fxtlint MiB/s / events bare walk MiB/s",
                               (rows["mib"] / rows["fxtlint"]["seconds"]) / calib[size], ">=", TARGET_BARE_RATIO))
        if workload == "events" and "seconds" in base.get("fxt-0.3.0", {}):
            checks.append((f"{workload}: fxt-0.3.0 time / fxtlint time", base["fxt-0.3.0"]["seconds"] / lint["seconds"],
                           ">=", TARGET_FXT_RATIO))
        if args.also_mb:
            big = by_size[f"{args.also_mb:g}"]["fxtlint"]
            checks.append((f"{workload}: fxtlint peak RSS {args.also_mb:g} MB / {args.mb:g} MB",
                           big["rss_mib"] / lint["rss_mib"], "<=", TARGET_RSS_RATIO))
        for verb in verbs:
            for size, rows in by_size.items():
                if "seconds" in rows.get(verb, {}):
                    # MB/s over the lint's MB/s, same file: the lint's time over the verb's
                    checks.append((f"{workload} {size} MB: {verb} MiB/s / fxtlint MiB/s",
                                   rows["fxtlint"]["seconds"] / rows[verb]["seconds"], ">=", VERB_TARGETS[verb]))
            if args.also_mb and "seconds" in base.get(verb, {}):
                big = by_size[f"{args.also_mb:g}"][verb]
                checks.append((f"{workload}: {verb} peak RSS {args.also_mb:g} MB / {args.mb:g} MB",
                               big["rss_mib"] / base[verb]["rss_mib"], "<=", TARGET_RSS_RATIO))
    for name, value, op, target in checks:
        passed = value >= target if op == ">=" else value <= target
        ok &= passed
        print(f"{name:58} {value:8.2f}  (target {op} {target:g})  {'PASS' if passed else 'FAIL'}")
    # the same verb ratios by CPU (the lint's CPU over the verb's, the same runs): a shared
    # machine stretches the wall clock of one command and not the next; CPU it stretches less
    by_cpu = [(f"{workload} {size} MB: {verb} by CPU, fxtlint CPU / {verb} CPU",
               rows["fxtlint"]["cpu_seconds"] / rows[verb]["cpu_seconds"])
              for workload, by_size in results.items() for verb in verbs for size, rows in by_size.items()
              if rows.get(verb, {}).get("cpu_seconds") and rows["fxtlint"].get("cpu_seconds")]
    if by_cpu:
        print("\nthe verbs by CPU (not checked: the checks above are the issue's, by the wall clock)")
    for name, value in by_cpu:
        print(f"{name:58} {value:8.2f}")
    for workload, text in profiles.items():
        print(f"\nprofile: fxtlint --output-format json, {workload} workload, {args.mb:g} MB "
              f"(cProfile, by own time)\n{text}")
    if args.json:
        args.json.write_text(json.dumps({"results": results, "checks": checks}, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
