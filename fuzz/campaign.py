"""A fuzzing campaign: run a harness on N libFuzzer workers, then merge and minimise the
corpus, minimise each crash into a regression input, and report.

A campaign directory holds ``corpus/`` (kept between runs), ``crashes/`` (libFuzzer's
artifacts), ``rss.csv`` (memory over time), ``libfuzzer.log`` and, with workers,
libFuzzer's ``fuzz-N.log``.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import (
    HARNESSES,
    MAX_LEN,
    REPO,
    RSS_LIMIT_MB,
    SANITIZED,
    SERVICE_ASAN_OPTIONS,
    TIMEOUT,
    asan_options,
    corpus_files,
    harness_path,
)
from .rss import Sampler
from .rss import trend_line as rss_trend_line
from .seeds import DICT, seed_files, write_dictionary

REGRESSIONS = REPO / "tests" / "regressions"
_STATUS = re.compile(r"^#(\d+)\s+\S+\s+cov: (\d+) ft: (\d+) corp: (\d+)/")
_FINAL = re.compile(r"^stat::number_of_executed_units: (\d+)")
_PEAK = re.compile(r"^stat::peak_rss_mb:\s+(\d+)", re.M)
_SLOWEST = re.compile(r"^stat::slowest_unit_time_sec:\s+(\d+)", re.M)
# a status line's event and resident memory: "#283	INITED cov: ... rss: 186Mb"
_RSS = re.compile(r"^#(\d+)\s+(\S+)\s.*\brss: (\d+)Mb", re.M)
_KERNEL = re.compile(r"^fxtlint.engine._nwalk: (.+)$", re.M)  # what a harness on the native walk prints first


@dataclass
class Result:
    harness: str
    seconds: float
    status: int
    executions: int = 0
    cpu_seconds: float = 0.0  # libFuzzer's process and the workers it waited for: user + system
    edges: int = 0
    features: int = 0
    units_before: int = 0
    units_after_merge: int = 0
    peak_rss_mb: float = 0.0
    slowest_unit_s: int | None = None  # libFuzzer's stat::slowest_unit_time_sec (wall, whole seconds), any worker's
    # libFuzzer's rss: once the seeds are loaded (its INITED line) and at its last status
    # line (DONE at the end of a run): (executions, MB) each, (0, 0.0) when it printed none
    rss_seeded: tuple[int, float] = (0, 0.0)
    rss_end: tuple[int, float] = (0, 0.0)
    kernel: str = ""  # the native walk's file, when the harness runs on it
    crashes: list[Path] = field(default_factory=list)
    timeouts: list[Path] = field(default_factory=list)
    slow_units: list[Path] = field(default_factory=list)
    # libFuzzer's oom-* files whose input stays under the limit when replayed alone: memory
    # grew over the run (the process's, not the input's); one that reproduces is a crash
    memory_growth: list[Path] = field(default_factory=list)
    regressions: list[str] = field(default_factory=list)  # each crash's landed file, or why not
    merge_error: str = ""  # why -merge=1 did not run or kept nothing (an error of the step, not a finding)

    @property
    def errors(self) -> list[str]:
        """Why the campaign's verdict would be about nothing (errors of the run, not
        findings): libFuzzer stopped with no crash or timeout file, it ran no input, or the
        merge did not run."""
        out = []
        if self.status != 0 and not self.crashes and not self.timeouts and not self.memory_growth:
            out.append(f"libFuzzer exited {self.status} and left no crash or timeout file: the run did not "
                       "complete (see libfuzzer.log)")
        if not self.executions:
            out.append("the harness ran no input: libFuzzer printed no executions (see libfuzzer.log)")
        if self.merge_error:
            out.append(f"the -merge=1 step did not run: {self.merge_error}")
        return out


def harness_env(harness: str, mutator: str = "structure", *, preload: bool = False) -> dict[str, str]:
    """The environment a harness runs in: the repository importable, and for a sanitized
    harness the ASan build's fxtlint before it, with the runtime preloaded. With
    ``preload``, as the service runs it: libFuzzer with ASan preloaded, the service's
    ASAN_OPTIONS and the harness's .options ones (``preload_env``)."""
    env = dict(os.environ, FXTLINT_FUZZ_MUTATOR=mutator, PYTHONPATH=os.pathsep.join(
        [str(REPO)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    if harness in SANITIZED:
        san = sanitizer_env(SANITIZED[harness])
        env.update(san, PYTHONPATH=os.pathsep.join([san["PYTHONPATH"], env["PYTHONPATH"]]))
    if preload:
        pre = preload_env(env, harness)
        if harness in SANITIZED:  # its runtime is preloaded already (the same library): the options only
            pre = dict(pre, LD_PRELOAD=env["LD_PRELOAD"], ASAN_OPTIONS=_asan_options(harness, env))
        env.update(pre)
    return env


def asan_with_fuzzer() -> Path:
    """atheris's libFuzzer and ASan in one runtime, the library the service's wrapper
    preloads (as fuzz/kernel_asan.sh finds it for the clang build); RuntimeError saying
    why when there is none."""
    try:
        import atheris
    except ImportError:
        raise RuntimeError("atheris is not installed (pip install '.[fuzz]')") from None
    lib = Path(atheris.path()) / "asan_with_fuzzer.so"
    if not lib.is_file():
        raise RuntimeError(f"atheris ships no {lib.name} at {lib.parent}")
    return lib


def preload_env(base=None, harness: str | None = None) -> dict[str, str]:
    """LD_PRELOAD and ASAN_OPTIONS of the service's run: asan_with_fuzzer.so first (a
    sanitizer runtime must be loaded first), SERVICE_ASAN_OPTIONS, then ``harness``'s own
    (its .options' ``[asan]``, ``fuzz.asan_options``), then any ASAN_OPTIONS of ``base``
    (default the environment), so that the user's values win."""
    base = os.environ if base is None else base
    preload = " ".join(filter(None, [str(asan_with_fuzzer()), base.get("LD_PRELOAD", "")]))
    return {"LD_PRELOAD": preload, "ASAN_OPTIONS": _asan_options(harness, base)}


def _asan_options(harness: str | None, base) -> str:
    own = ":".join(f"{k}={v}" for k, v in asan_options(harness).items()) if harness else ""
    return ":".join(filter(None, [SERVICE_ASAN_OPTIONS, own, base.get("ASAN_OPTIONS", "")]))


def libfuzzer(harness: str, *args, mutator: str = "structure", cwd=None, log=None, timeout=None,
              preload: bool = False):
    """Run a harness with libFuzzer flags; returns the Popen (``log``: a file for its output)."""
    env = harness_env(harness, mutator, preload=preload)
    cmd = [sys.executable, str(harness_path(harness)), *map(str, args)]
    return subprocess.Popen(cmd, cwd=cwd, env=env, stdout=log or subprocess.DEVNULL,
                            stderr=subprocess.STDOUT if log else subprocess.DEVNULL)


def harness_fxtlint(harness: str, *, preload: bool = False) -> str:
    """Which fxtlint (folder, engine) the harness imports when a campaign runs it: asked
    of a process started as the harness is, in its environment."""
    probe = "import _harness; print(_harness.under_test())"
    try:
        env = harness_env(harness, preload=preload)
    except (RuntimeError, OSError) as e:  # the sanitized build cannot be made here (no clang...)
        why = (str(e).strip().splitlines() or ["?"])[-1]
        return f"fxtlint under test: the {harness} harness's environment cannot be set up: {why}"
    out = subprocess.run([sys.executable, "-c", probe], cwd=harness_path(harness).parent, env=env,
                         capture_output=True, text=True)
    lines = out.stdout.strip().splitlines()
    return lines[-1] if out.returncode == 0 and lines else \
        f"fxtlint under test: the {harness} harness cannot import it: {(out.stderr.strip().splitlines() or ['?'])[-1]}"


@functools.cache
def sanitizer_env(cc: str) -> dict[str, str]:
    """The variables that run a command on the native walk built under ASan by ``cc``
    (``fuzz/kernel_asan.sh env``, which builds it first when it is missing or stale):
    the build's fxtlint first on PYTHONPATH, the runtime preloaded, every Python object a
    malloc block."""
    out = subprocess.run(["bash", str(REPO / "fuzz" / "kernel_asan.sh"), "env", cc], capture_output=True, text=True,
                         env=dict(os.environ, PYTHON=sys.executable))
    if out.returncode != 0:
        raise RuntimeError(f"fuzz/kernel_asan.sh env {cc} failed:\n{out.stderr}")
    return dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)


def _units(d: Path) -> int:
    return sum(1 for p in d.iterdir() if p.is_file()) if d.is_dir() else 0


def prepare(workdir: Path, harness: str, extra_seeds=(), *, max_len: int = MAX_LEN) -> tuple[Path, list[Path]]:
    """The campaign's corpus directory and the seed directories to read from."""
    corpus = workdir / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    (workdir / "crashes").mkdir(exist_ok=True)
    if not HARNESSES[harness][1]:  # its inputs are Hypothesis choice sequences, not traces
        return corpus, []
    seeds = workdir / "seeds"
    seeds.mkdir(exist_ok=True)
    for f in seed_files(extra_seeds, max_len=max_len):
        shutil.copyfile(f, seeds / f"{f.parent.name}-{f.name}")
    write_dictionary(workdir / DICT)
    return corpus, [seeds]


def parse_log(text: str) -> tuple[int, int, int]:
    """(executions, edges, features) from libFuzzer's output."""
    execs = edges = ft = 0
    for line in text.splitlines():
        m = _STATUS.match(line)
        if m:
            execs, edges, ft = max(execs, int(m[1])), max(edges, int(m[2])), max(ft, int(m[3]))
        m = _FINAL.match(line)
        if m:
            execs = max(execs, int(m[1]))
    return execs, edges, ft


def rss_over_run(text: str) -> tuple[tuple[int, float], tuple[int, float]] | None:
    """(the INITED line's, the last status line's) (executions, RSS MB) from libFuzzer's
    output: memory once the seeds are loaded and at the end; None without an INITED line."""
    lines = [(int(m[1]), m[2], float(m[3])) for m in _RSS.finditer(text)]
    seeded = [(n, mb) for n, event, mb in lines if event == "INITED"]
    if not seeded:
        return None
    return seeded[0], (lines[-1][0], lines[-1][2])


_CORP = re.compile(r"^#(\d+)\s+(\S+)\s.*\bcorp: (\d+)/(\d+)(b|Kb|Mb)\b.*\brss: (\d+)Mb", re.M)
_INITED = re.compile(r"^#\d+\s+INITED\b", re.M)  # an empty corpus's INITED line has no corp:
_UNIT = {"b": 1, "Kb": 1 << 10, "Mb": 1 << 20}


def corpus_over_run(text: str) -> list[tuple[int, int, int, float]]:
    """``(executions, units, bytes, RSS MB)`` of libFuzzer's status lines from its INITED line
    on: the corpus it holds in memory and the process's memory, side by side."""
    inited = _INITED.search(text)
    if inited is None:
        return []
    return [(int(m[1]), int(m[3]), int(m[4]) * _UNIT[m[5]], float(m[6])) for m in _CORP.finditer(text, inited.start())]


def corpus_line(text: str) -> str | None:
    """One line: how the RSS grew beside the corpus libFuzzer holds, over the run and by thirds
    of its executions (a process whose memory grows with the units it keeps, at a steady
    amount a unit, holds its corpus; growth with no new units is something else)."""
    rows = corpus_over_run(text)
    if len(rows) < 2:
        return None
    first, last = rows[0], rows[-1]
    cuts = [first[0] + (last[0] - first[0]) * k / 3 for k in range(4)]
    marks = [min(rows, key=lambda r: abs(r[0] - c)) for c in cuts]
    steps = [f"{b[3] - a[3]:+.0f} MB / {b[1] - a[1]:+,} units" for a, b in itertools.pairwise(marks)]
    units = last[1] - first[1]
    per = f": {(last[3] - first[3]) * 1024 / units:.0f} KB a unit kept" if units > 0 else ""
    return (f"RSS beside the corpus libFuzzer holds (its status lines, from INITED): {last[3] - first[3]:+.0f} MB "
            f"while it grew {first[1]:,} -> {last[1]:,} units ({first[2] / 1e6:.1f} -> {last[2] / 1e6:.1f} MB){per}; "
            f"by thirds of the executions {', '.join(steps)}")


def memory_lines(workdir: Path) -> list[str]:
    """What ``run`` prints of memory over a campaign from its directory: the RSS trend of
    ``rss.csv`` and the RSS beside the corpus in the first log that has one (``libfuzzer.log``,
    then the workers' ``fuzz-N.log``)."""
    workdir = Path(workdir)
    lines = [rss_trend_line(workdir / "rss.csv")]
    for log in [workdir / "libfuzzer.log", *sorted(workdir.glob("fuzz-*.log"))]:  # one worker's, as rss_over_run
        try:
            lines.append(corpus_line(log.read_text(errors="replace")))
        except OSError:
            continue
        if lines[-1]:
            break
    return [line for line in lines if line]


def run(harness: str, workdir: Path, *, seconds: int | None = None, runs: int | None = None, workers: int = 1,
        mutator: str = "structure", max_len: int = MAX_LEN, rss_limit_mb: int = RSS_LIMIT_MB, rss_every: float = 30.0,
        merge: bool = True, land: bool = True, extra_seeds=(), timeout: int = TIMEOUT,
        preload: bool = False) -> Result:
    workdir = Path(workdir).resolve()
    corpus, seeds = prepare(workdir, harness, extra_seeds, max_len=max_len)
    flags = [f"-max_len={max_len}", f"-rss_limit_mb={rss_limit_mb}", f"-timeout={timeout}", "-print_final_stats=1",
             f"-artifact_prefix={workdir / 'crashes'}/"]
    flags += [f"-max_total_time={seconds}"] if seconds else []
    flags += [f"-runs={runs}"] if runs is not None else []
    if (workdir / DICT).exists():
        flags.append(f"-dict={workdir / DICT}")
    if workers > 1:  # -jobs/-workers rather than -fork: each worker is a whole, long-lived process
        flags += [f"-jobs={workers}", f"-workers={workers}"]
    start = time.monotonic()
    with (workdir / "libfuzzer.log").open("w") as log:
        proc = libfuzzer(harness, *flags, corpus, *seeds, mutator=mutator, cwd=workdir, log=log, preload=preload)
        sampler = Sampler(proc.pid, workdir / "rss.csv", rss_every).start()
        try:
            status, cpu = waited(proc)
        except KeyboardInterrupt:
            proc.terminate()
            status, cpu = waited(proc)
        finally:
            sampler.stop()
    res = Result(harness, time.monotonic() - start, status, cpu_seconds=cpu, peak_rss_mb=sampler.peak_mb)
    text = (workdir / "libfuzzer.log").read_text(errors="replace")
    for job_log in sorted(workdir.glob("fuzz-*.log")):
        execs, edges, ft = parse_log(job_log.read_text(errors="replace"))
        res.executions += execs
        res.edges, res.features = max(res.edges, edges), max(res.features, ft)
    if not res.executions:
        res.executions, res.edges, res.features = parse_log(text)
    for t in [text] + [p.read_text(errors="replace") for p in workdir.glob("fuzz-*.log")]:
        res.peak_rss_mb = max([res.peak_rss_mb] + [float(m) for m in _PEAK.findall(t)])  # libFuzzer's own
    logs = [text] + [p.read_text(errors="replace") for p in sorted(workdir.glob("fuzz-*.log"))]
    slowest = [int(s) for t in logs for s in _SLOWEST.findall(t)]
    res.slowest_unit_s = max(slowest) if slowest else None
    rss = next(filter(None, map(rss_over_run, logs)), None)  # one worker's: the first that has one
    if rss:
        res.rss_seeded, res.rss_end = rss
    kernels = _KERNEL.findall(text)
    res.kernel = kernels[0] if kernels else ""
    res.units_before = _units(corpus)
    if merge:
        try:
            res.units_after_merge = merge_corpus(harness, corpus, mutator=mutator, timeout=timeout, preload=preload)
        except MergeError as e:
            res.merge_error, res.units_after_merge = str(e), res.units_before
    res.crashes, res.timeouts, res.slow_units, ooms = artifacts(sorted((workdir / "crashes").iterdir()))
    for oom in ooms:  # the input's own failure only if it reproduces alone
        status, out = replay(harness, oom, preload=preload, rss_limit_mb=rss_limit_mb)
        (res.crashes if oom_reproduced(status, out) else res.memory_growth).append(oom)
    if land:
        for c in res.crashes:
            try:
                res.regressions.append(str(land_crash(harness, c, workdir / "crashes", preload=preload,
                                                      rss_limit_mb=rss_limit_mb)))
            except NotACrash as e:
                res.regressions.append(f"not landed: {e}")
    return res


def waited(proc: subprocess.Popen) -> tuple[int, float]:
    """``proc`` waited for: (its exit status, the CPU seconds it and the children it waited
    for used, user + system: ``os.wait4``'s). A campaign's executions per CPU second, which a
    loaded machine does not stretch as it stretches the wall clock."""
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    except ChildProcessError:  # waited for already elsewhere: its status is the Popen's, its CPU unknown (0)
        return proc.wait(), 0.0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, usage.ru_utime + usage.ru_stime


class MergeError(Exception):
    """-merge=1 did not run, or kept nothing of a corpus that had units (the message says why)."""


_MERGE_DONE = re.compile(r"^MERGE-OUTER: (\d+) new files with \d+ new features added", re.M)


def merge_error(status: int, log: str, units: int, kept: int) -> str:
    """Why a -merge=1 of ``units`` units that kept ``kept`` did not do its job, from its exit
    status and log; empty when it did."""
    if units == 0:
        return "the corpus has no units to merge (the run wrote none: did it get past its seeds?)"
    tail = " | ".join(ln.strip() for ln in log.strip().splitlines()[-3:]) or "nothing"
    if status != 0:
        return f"libFuzzer -merge=1 exited {status}; its log (merge.log) ends: {tail}"
    if not _MERGE_DONE.search(log) or not kept:
        return (f"libFuzzer -merge=1 kept {kept} of {units} units and printed no 'MERGE-OUTER: N new files' "
                f"summary; its log (merge.log) ends: {tail}")
    return ""


def artifacts(found: list[Path]) -> tuple[list[Path], list[Path], list[Path], list[Path]]:
    """libFuzzer's artifact files sorted out: (crashes, timeouts, slow units, out-of-memory
    stops). An oom- file is the input libFuzzer was running when the process's RSS passed
    -rss_limit_mb: memory that grew over the whole run stops the run at whatever input
    comes next, so it is replayed alone (``oom_reproduced``) before it counts as a crash."""
    crashes = [p for p in found if p.name.startswith("crash-")]
    ooms = [p for p in found if p.name.startswith("oom-")]
    # a slow input is not a wrong answer (Python under instrumentation is slow): reported, not landed
    timeouts = [p for p in found if p.name.startswith("timeout-")]
    # over libFuzzer's -report_slow_units (10 s) but under -timeout: wall-clock time that a
    # loaded machine stretches, so listed, never a finding
    slow_units = [p for p in found if p.name.startswith("slow-unit-")]
    return crashes, timeouts, slow_units, ooms


def oom_reproduced(status: int, output: str) -> bool:
    """An oom- input replayed alone (``replay``) fails libFuzzer's memory limit again."""
    return status != 0 and "Running: " in output and "out-of-memory" in output


def merge_corpus(harness: str, corpus: Path, *, mutator: str = "structure", timeout: int = TIMEOUT,
                 preload: bool = False) -> int:
    """libFuzzer -merge=1 into a fresh directory: the smallest set of units keeping every
    feature; it replaces ``corpus``. Returns the units kept; raises MergeError (the corpus
    left as it was) when the merge did not run or kept nothing."""
    units = _units(corpus)
    if not units:
        raise MergeError(merge_error(0, "", 0, 0))
    merged = corpus.with_name(corpus.name + ".merged")
    shutil.rmtree(merged, ignore_errors=True)
    merged.mkdir()
    # a control file left by an earlier merge in this folder is resumed, not replaced:
    # libFuzzer deletes only a control file it named itself, and reads an old one as this
    # merge's (its file list, already "completed", or copying files since deleted: "No
    # such directory: corpus/<unit>; exiting")
    control = corpus.parent / "merge.ctl"
    control.unlink(missing_ok=True)
    with (corpus.parent / "merge.log").open("w") as log:
        status = libfuzzer(harness, "-merge=1", f"-timeout={timeout}",
                           f"-merge_control_file={control}",
                           merged, corpus, mutator=mutator, cwd=corpus.parent, log=log, preload=preload).wait()
    why = merge_error(status, (corpus.parent / "merge.log").read_text(errors="replace"), units, _units(merged))
    if why:
        shutil.rmtree(merged, ignore_errors=True)
        raise MergeError(why)
    shutil.rmtree(corpus)
    merged.rename(corpus)
    return _units(corpus)


def minimize_crash(harness: str, crash: Path, out: Path, *, runs: int = 2000, preload: bool = False) -> Path:
    """libFuzzer -minimize_crash=1 into ``out``: a smaller input failing the same way (the
    original if none); libFuzzer's log goes to ``minimize.log`` beside ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    with (out.parent / "minimize.log").open("a") as log:
        libfuzzer(harness, "-minimize_crash=1", f"-runs={runs}", f"-timeout={TIMEOUT}",
                  f"-exact_artifact_path={out}", crash, cwd=out.parent, log=log, preload=preload).wait()
    return out if out.exists() and out.stat().st_size else crash


class NotACrash(Exception):
    """An input that does not fail its harness: there is nothing to land."""


def replay(harness: str, path: Path, *, preload: bool = False, rss_limit_mb: int = RSS_LIMIT_MB) -> tuple[int, str]:
    """Run the harness once on ``path`` as the campaign runs it (libFuzzer, the same
    environment, limits and fxtlint); (exit status, its output). 0: the input passes."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, (Path(tmp) / "replay.log").open("w+") as log:
        status = libfuzzer(harness, f"-timeout={TIMEOUT}", f"-rss_limit_mb={rss_limit_mb}", path,
                           cwd=tmp, log=log, preload=preload).wait()
        log.seek(0)
        return status, log.read()


def land_crash(harness: str, crash: Path, scratch: Path, *, root: Path = REGRESSIONS, runs: int = 2000,
               preload: bool = False, rss_limit_mb: int = RSS_LIMIT_MB) -> Path:
    """Land a crash: replay it (NotACrash, saying why, when it does not fail), minimise it
    in ``scratch`` and write the result to ``root/<harness>/<sha1>.bin``, where
    tests/test_fuzz_regressions.py runs the harness's check on it."""
    crash = Path(crash).resolve()
    status, out = replay(harness, crash, preload=preload, rss_limit_mb=rss_limit_mb)
    if "Running: " not in out:  # libFuzzer never got to the input
        last = [ln for ln in out.splitlines() if ln.strip()][-1:] or [f"exit {status}"]
        raise NotACrash(f"the {harness} harness did not run {crash}: {last[0].strip()}")
    if status == 0:
        raise NotACrash(f"{crash} does not fail the {harness} harness (replayed once under libFuzzer: exit 0); "
                        "nothing to land")
    small = minimize_crash(harness, crash, Path(scratch).resolve() / f"minimized-{crash.name}", runs=runs,
                           preload=preload)
    data = small.read_bytes()
    dest = root / harness / f"{hashlib.sha1(data).hexdigest()[:16]}.bin"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)
    return dest


def regression_inputs(root: Path = REGRESSIONS) -> list[tuple[str, Path]]:
    """(harness, input) for every landed crash."""
    return [(d.name, f) for d in sorted(root.iterdir()) if d.is_dir() for f in sorted(d.glob("*.bin"))] \
        if root.is_dir() else []


class UsageError(Exception):
    """A path the command cannot use (the message says why and what to give instead)."""


def check_inputs(harness: str, paths, *, verb: str = "reproduce") -> list[Path]:
    """The files to replay: each path must be a file (a folder or a missing path is a
    usage error that says what to type instead)."""
    out = []
    for p in map(Path, paths):
        if p.is_dir():
            raise UsageError(f"{p} is a folder; give the files in it: python -m fuzz {verb} {harness} {p}/*")
        if not p.is_file():
            raise UsageError(f"{p}: no such file")
        out.append(p)
    return out


def check_corpus(paths) -> list[Path]:
    """The input files under ``paths`` (files, or folders read recursively); a missing
    path, or paths holding no file at all, is a usage error."""

    for p in map(Path, paths):
        if not p.exists():
            raise UsageError(f"{p}: no such file or folder")
    files = corpus_files(paths)
    if not files:
        raise UsageError(f"no input files in {', '.join(map(str, paths))}")
    return files


def check_folder(path) -> Path:
    """A corpus folder (``merge`` rewrites it in place)."""
    p = Path(path)
    if p.is_file():
        raise UsageError(f"{p} is a file; give the corpus folder it is in")
    if not p.is_dir():
        raise UsageError(f"{p}: no such folder")
    return p


def reproduce(harness: str, paths, *, check=None) -> int:
    """Run a harness's check on each file in plain Python; 0 if all pass, 1 if any fails.
    Raises UsageError (before running anything) for a folder or a missing path."""
    import traceback

    from . import load_harness

    paths = check_inputs(harness, paths)
    check = check or load_harness(harness).check
    failed = 0
    for p in paths:
        try:
            check(Path(p).read_bytes())
            print(f"{p}: ok")
        except Exception:  # the point is to show any failure, whatever its type
            failed += 1
            print(f"{p}: FAILED")
            traceback.print_exc()
    return 1 if failed else 0
