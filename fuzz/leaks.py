"""The leak check of a harness on the sanitized native walk: replay a corpus on the ASan build,
once and several times, with LeakSanitizer at exit, and compare.

libFuzzer cannot check leaks input by input here (Python keeps caches, so every input
looks like a leak and libFuzzer turns its check off), and CPython leaves objects at exit
that LeakSanitizer reports whatever ran. Nor do a leaked object's allocation stacks name
the leaker: CPython reuses freed tuples, floats and lists from free lists, so a tuple the
native code leaks shows the stack of whoever first allocated its block. So the check compares
two processes on the same inputs, one pass and ``passes`` passes:

- LeakSanitizer's totals at exit: what CPython leaves is the same after one pass and after
  eight; a leak per input adds its objects every pass. Any object more fails the check,
  and so does a report with a frame in the native code (``_nwalk``, ``_npairing``, the
  screen ``_screen.c``: a block it allocated itself and lost);
- the live heap (``__sanitizer_get_current_allocated_bytes``; with ``PYTHONMALLOC=malloc``
  every Python object and native buffer is in it) after each pass and a garbage
  collection: caches fill and stop, a leak grows it every pass. Printed, not judged.

``python -m fuzz leaks native DIR...`` runs it; a campaign of a sanitized harness runs it
on its merged corpus.
"""

from __future__ import annotations

import gc
import importlib
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from . import corpus_files

PASSES = 8
_LIVE = re.compile(r"^pass (\d+): (\d+) bytes live$", re.M)
_KERNEL_FILE = re.compile(r"^fxtlint.engine._nwalk: (.+)$", re.M)  # the native walk the harness imported
_KERNEL_FRAME = re.compile(r"fxtlint/engine/(_nwalk|_npairing|_screen)(\.(c|cpp|pyx|pxi):|[^/\s]*\.so)")
_LEAK = re.compile(r"^(Direct|Indirect) leak of (\d+) byte\(s\) in (\d+) object\(s\)")
_ERROR = re.compile(r"ERROR: AddressSanitizer|runtime error:|Traceback")  # anything but a leak report
_STARTED = re.compile(r"^replaying \d+ inputs, \d+ pass", re.M)  # printed once the harness and native walk loaded
LSAN_EXIT = 23  # the exit status asked of LeakSanitizer when it found leaks


@dataclass
class Replay:
    """One sanitized process's replay: what it printed and LeakSanitizer's totals."""

    passes: int
    status: int
    output: str
    live: list[int] = field(default_factory=list)  # bytes live after each pass
    kernel_file: str = ""  # the native walk it imported
    leaked_bytes: int = 0
    leaked_objects: int = 0
    kernel_reports: list[str] = field(default_factory=list)  # leak reports with a frame in the native code

    @property
    def started(self) -> bool:
        """It got as far as replaying: the harness loaded and its native walk imported."""
        return _STARTED.search(self.output) is not None

    @property
    def finding(self) -> str:
        """What the replay found that is not a leak: a sanitizer's report, or the harness's
        check raising (a traceback once the replay started); empty when nothing."""
        start = _STARTED.search(self.output)
        for m in _ERROR.finditer(self.output):
            if m[0] != "Traceback":
                return self.output[m.start():].splitlines()[0]
            if start and m.start() > start.start():
                return "the harness's check raised: " + _last_line(self.output)
        return ""

    @property
    def error(self) -> str:
        """Why the replay says nothing about leaks, when it does not (an error of the check,
        not a finding): it never got to the inputs, loaded no sanitized native walk, or stopped
        early with no sanitizer report; empty when it ran."""
        if self.finding:
            return ""
        if not self.started:
            return f"it failed before replaying anything (exit {self.status}): {_last_line(self.output)}"
        if not self.kernel_file:
            return "it loaded no native walk"
        if "/build/asan-" not in self.kernel_file:
            return f"it imported {self.kernel_file}, not the sanitized build (build/asan-*)"
        if self.status not in (0, LSAN_EXIT) or len(self.live) != self.passes:
            return (f"it stopped after {len(self.live)} of {self.passes} passes (exit {self.status}) "
                    f"with no sanitizer report: {_last_line(self.output)}")
        return ""

    @property
    def ran(self) -> bool:
        """To the end, on the sanitized native walk, with no sanitizer error but leaks."""
        return not self.error and not self.finding


def _last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else "no output"


@dataclass
class Leaks:
    inputs: int
    once: Replay
    many: Replay

    @property
    def objects_per_pass(self) -> float:
        """Objects LeakSanitizer found at exit per pass beyond what one pass leaves."""
        return (self.many.leaked_objects - self.once.leaked_objects) / (self.many.passes - 1)

    @property
    def growth_per_input(self) -> float:
        """Bytes the live heap grew per input and pass over the second half of the passes
        (the first ones fill caches: the interpreter's, the provider tables')."""
        live, half = self.many.live, len(self.many.live) // 2
        if half < 1 or not self.inputs:
            return 0.0
        return (live[-1] - live[half - 1]) / ((len(live) - half) * self.inputs)

    @property
    def error(self) -> str:
        """Why the check did not run, when it did not: then it judges nothing (no leak, no
        pass); empty when both replays ran on inputs and the sanitized native walk."""
        if not self.inputs:
            return "it replayed 0 inputs (nothing to replay)"
        for r in (self.once, self.many):
            if r.error:
                return f"the {r.passes}-pass replay {r.error}"
        return ""

    @property
    def ok(self) -> bool:
        return not self.error and self.once.ran and self.many.ran \
            and self.many.leaked_objects == self.once.leaked_objects \
            and not self.once.kernel_reports and not self.many.kernel_reports

    @property
    def verdict(self) -> str:
        """The summary's last line: passed, FAILED (a finding), or that the check did not run."""
        if self.error:
            return f"leak check: the check did not run: {self.error} (an error of the check, not a leak verdict)"
        return f"leak check: {'passed' if self.ok else 'FAILED'}"


def reports(text: str) -> list[str]:
    """LeakSanitizer's leak reports in ``text``, one string each (header and stack)."""
    out, cur = [], None
    for line in text.splitlines():
        if _LEAK.match(line):
            cur = [line]
            out.append(cur)
        elif cur is not None and line.strip().startswith("#"):
            cur.append(line)
        else:
            cur = None
    return ["\n".join(r) for r in out]


def check(harness: str, paths, *, passes: int = PASSES) -> Leaks:
    """Replay every file under ``paths`` once and ``passes`` times, each in its own sanitized process."""
    files = corpus_files(paths)
    if not files:  # nothing to judge: no process is started (CPython's exit would be all it saw)
        return Leaks(0, Replay(1, -1, ""), Replay(passes, -1, ""))
    return Leaks(len(files), replay(harness, files, 1), replay(harness, files, passes))


def replay(harness: str, files: list[Path], passes: int) -> Replay:
    from .campaign import harness_env

    env = harness_env(harness)
    keep = [o for o in env.get("ASAN_OPTIONS", "").split(":")
            if o.partition("=")[0] not in ("detect_leaks", "abort_on_error")]
    env["ASAN_OPTIONS"] = ":".join([*keep, "detect_leaks=1", "abort_on_error=0", f"exitcode={LSAN_EXIT}"])
    # run from the build's folder: `python -m` puts the working directory first on the
    # path, and the repository's fxtlint (its unsanitized native walk) must not win
    build = env["PYTHONPATH"].split(os.pathsep)[0]
    # one stream, in the order it was written: a traceback before the replay started is
    # an error of the check, one after it a finding
    proc = subprocess.run([sys.executable, "-m", "fuzz.leaks", harness, str(passes), *map(str, files)],
                          cwd=build, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return parse_replay(passes, proc.returncode, proc.stdout)


def parse_replay(passes: int, status: int, output: str) -> Replay:
    """A replay's figures from its output (stdout and stderr as one stream)."""
    res = Replay(passes, status, output)
    res.live = [int(m[2]) for m in _LIVE.finditer(output)]
    res.kernel_file = next(iter(_KERNEL_FILE.findall(output)), "")
    for r in reports(output):
        size, objects = _LEAK.match(r).group(2, 3)  # type: ignore[union-attr]  # reports() kept matches only
        res.leaked_bytes += int(size)
        res.leaked_objects += int(objects)
        if _KERNEL_FRAME.search(r):
            res.kernel_reports.append(r)
    return res


def summary(res: Leaks) -> str:
    many = res.many
    lines = [f"leak check on {many.kernel_file or 'no native kernel'}, {res.inputs} inputs"]
    if res.error:  # no figures: they would be of a process that checked nothing
        lines += [f"  the {r.passes}-pass replay's output (exit {r.status}):\n{r.output[-3000:]}"
                  for r in (res.once, many) if r.output]
        lines.append(res.verdict)
        return "\n".join(lines)
    for r in (res.once, many):
        lines.append(f"  {r.passes} pass{'es' if r.passes > 1 else ''}: LeakSanitizer at exit {r.leaked_bytes:,} bytes "
                     f"in {r.leaked_objects:,} objects, {len(r.kernel_reports)} reports with a frame in the kernel")
    lines += [f"  leaked per pass beyond one pass: {res.objects_per_pass:g} objects",
              f"  bytes live after each pass: {', '.join(f'{b:,}' for b in many.live)}",
              "  live heap growth over the second half of the passes: "
              f"{res.growth_per_input:.2f} bytes per input and pass"]
    lines += [f"  {r}" for r in (res.once.kernel_reports + many.kernel_reports)[:5]]
    for r in (res.once, many):
        if r.finding:
            lines.append(f"  the {r.passes}-pass replay found: {r.finding} (exit {r.status}):\n{r.output[-3000:]}")
    lines.append(res.verdict)
    return "\n".join(lines)


def _replay(harness: str, passes: int, files: list[str]) -> None:
    """In the sanitized process: each pass runs the harness's check on every file."""
    import ctypes

    from . import load_harness

    live = ctypes.CDLL(None).__sanitizer_get_current_allocated_bytes  # the preloaded ASan runtime
    live.restype = ctypes.c_size_t
    check = load_harness(harness).check
    try:  # the native walk the checks will run on, named before any input (the harness would import it)
        walk = importlib.import_module("fxtlint.engine._nwalk")
        print(f"fxtlint.engine._nwalk: {walk.__file__}", flush=True)
    except ImportError as e:
        sys.exit(f"the native walk (fxtlint.engine._nwalk) is not importable: {e}")
    data = [Path(f).read_bytes() for f in files]
    print(f"replaying {len(data)} inputs, {passes} passes", flush=True)
    for i in range(passes):
        for d in data:
            check(d)
        gc.collect()
        print(f"pass {i + 1}: {live()} bytes live", flush=True)


if __name__ == "__main__":
    _replay(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
