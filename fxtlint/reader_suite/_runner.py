"""Grading FXT readers against the conformance suite (corpus/conformance/).

The protocol (toml-test's, for FXT): the runner starts the reader's command once per
case, without a shell, with the file on stdin or its path appended. Exit 0 means
accepted, with the canonical decoding (fxtlint.reader_suite._canonical) on stdout; exit 1 means
rejected, optionally with the decoding of the records read before the fault; any other
exit status, a signal or the timeout is a crash.

A case's folder says what a reader must do (JSONTestSuite's y_/n_/i_ as folders), as
the spec's words decide it (fxtlint/reader_suite/_reader_verdicts.py):

- ``valid``: must accept, and print exactly the ``.json`` beside the case;
- ``malformed``: one record is malformed but framed by its size, and the spec says
  "malformed trace records can be skipped": skip it (exit 0, printing exactly the
  ``.json`` beside the case: the records before and after it) or reject (exit 1; records
  printed must start with the ``prefix`` records before the fault). The result says
  which (``chose``); a reader that exits 0 having decoded the malformed record (more
  records than skipping it gives) is told it read through it (``chose``: ``read-through``);
- ``invalid`` and ``recover``, one rule: no reader can go on past the fault, and the spec
  asks that partial data be recovered "by reading everything up to the last well-formed
  record", not that a reader reject. Both are graded by the records the reader printed,
  against the ``.json`` beside the case (the records before the fault, none for some):
  exit 1 with records that start with them (more after are its own business, once it
  said the file is damaged), or exit 0 with exactly them; exit 0 passes with a
  ``warning`` (it did not say the file is damaged), recorded apart, not a failure. A case
  with no record before its fault has nothing to recover: there the reader must exit 1.
  The folders differ only in where their cases come from (``invalid``: the framing rules'
  failing examples and mutations; ``recover``: sound traces cut or broken at the end);
- ``impl``: either; anything but a crash. An accepting reader's decoding must equal the
  ``.json`` beside the case when there is one (the spec fixes the decoding, only not
  whether to accept).

Grades: ``pass`` (with a ``warning`` where the reader did something the spec does not
forbid but a user should know: an exit 0 on a damaged file); ``unreported`` (the
decoding matches but for fields the reader declared it cannot report: its output's
``"cannot_tell_apart"``, groups of argument types it returns alike, such as untyped
integers; counted apart, neither pass nor wrong); ``fail`` (the wrong decision:
rejected a file it must accept, accepted a file with nothing to recover, or rejected
without the records before the fault); ``wrong`` (the decoding differs, or stdout is
not the canonical JSON: the parse error is kept); ``crash``; ``skip``.

A run can be stopped: ``Readers.stop`` (a signal, or ``max_failures`` crashes and
timeouts in a row) kills every running reader's process group, grades no more cases
and leaves a partial results document that says why it stopped.
"""

from __future__ import annotations

import fnmatch
import json
import os
import signal
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path

CATEGORIES = ("valid", "malformed", "invalid", "recover", "impl")
# how summaries list them: first what a reader must read, then what it must refuse
SUMMARY_ORDER = ("valid", "recover", "malformed", "invalid", "impl")
EXPECT = {"valid": "accept", "malformed": "skip-or-reject", "invalid": "recover", "recover": "recover",
          "impl": "either"}
# the categories graded by the records before the fault (one rule: ``_grade_damaged``)
DAMAGED = ("invalid", "recover")
GRADES = ("pass", "unreported", "fail", "wrong", "crash", "skip")
# what a reader chose where the suite lets it choose (a result's ``chose``)
CHOICES = {"malformed": {0: "skip", 1: "reject"}, "impl": {0: "accept", 1: "reject"},
           "invalid": {0: "accept", 1: "reject"}, "recover": {0: "accept", 1: "reject"}}
# what a reader may be counted as having chosen, per category (the summary's ``chose``)
CHOSE = {"malformed": ("skip", "reject", "read-through"), "impl": ("accept", "reject"),
         "invalid": ("accept", "reject"), "recover": ("accept", "reject")}
# the output key where a reader names argument types it returns alike (grade "unreported")
CANNOT_TELL = "cannot_tell_apart"
RESULTS_FORMAT = "fxt-conformance-results/2"
# The suite's version: it moves when a case's verdict or the grading moves (the manifest's
# ``version``, written by corpus/conformance/generate.py; results record the one they ran).
# 3: invalid/ and recover/ graded by the records before the fault, exit 0 a warning apart.
SUITE_VERSION = 3
_DETAIL_MAX = 300


class ConformanceError(Exception):
    """A problem with the run itself (no suite, a reader that cannot start): exit 2."""


@dataclass(frozen=True)
class Case:
    category: str
    name: str
    path: Path
    expected: Path | None  # the .json beside it (valid, malformed, invalid, recover and most impl cases)
    spec: str = ""
    what: str = ""
    prefix: int | None = None  # malformed: the records before the malformed one

    @property
    def id(self) -> str:
        return f"{self.category}/{self.name}"


@dataclass
class Result:
    case: str
    category: str
    expect: str
    grade: str
    outcome: str  # accepted | rejected | crashed | timeout | skipped
    exit: int | None = None
    detail: str = ""
    spec: str = ""  # the spec section the case tests (from the suite's manifest)
    chose: str = ""  # malformed: skip | reject | read-through; others: accept | reject (what the reader did)
    warning: str = ""  # a pass the user should hear about (exit 0 on a damaged file): counted apart


def default_suite() -> Path:
    """The suite shipped with this fxtlint: inside the installed package, or the
    checkout's corpus/conformance for a source tree or an editable install."""
    packaged = resources.files("fxtlint") / "conformance-suite"
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[2] / "corpus" / "conformance"


def suite_version(suite: Path) -> int | None:
    """The version its manifest names (None: no manifest, or one without a version)."""
    try:
        v = json.loads((Path(suite) / "manifest.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError, AttributeError):
        return None
    return v if isinstance(v, int) else None


def load_suite(suite: Path) -> list[Case]:
    """The cases of a suite folder, in category then name order."""
    suite = Path(suite)
    if not suite.is_dir():
        raise ConformanceError(f"suite folder not found: {suite}")
    meta = {}
    manifest = suite / "manifest.json"
    if manifest.is_file():
        try:
            for m in json.loads(manifest.read_text(encoding="utf-8")).get("cases", []):
                meta[(m["category"], m["name"])] = m
        except (ValueError, KeyError, TypeError) as e:
            raise ConformanceError(f"{manifest}: not a suite manifest ({e})") from None
    cases = []
    for cat in CATEGORIES:
        d = suite / cat
        if not d.is_dir():
            continue
        for p in sorted(d.glob("*.fxt")):
            exp = p.with_suffix(".json")
            m = meta.get((cat, p.stem), {})
            cases.append(Case(cat, p.stem, p, exp if exp.is_file() else None, m.get("spec", ""), m.get("what", ""),
                              m.get("prefix")))
    if not cases:
        raise ConformanceError(f"no cases in {suite} (expected {', '.join(CATEGORIES)} folders of .fxt files)")
    return cases


# ------------------------------------------------------------------ running a reader
@dataclass
class Run:
    exit: int | None  # None: timed out; negative: killed by that signal
    stdout: bytes
    stderr: bytes


class Readers:
    """The reader processes running now, so that a stop can end them all.

    Each reader runs in a session of its own (``start_new_session``) and ``stop`` kills
    each one's whole process group, so nothing a reader started outlives the runner.
    A signal handler may call ``stop`` while the same thread is in ``start``: the lock
    is reentrant, and ``start`` kills what it started if a stop came meanwhile."""

    def __init__(self):
        self._lock = threading.RLock()
        self._procs: dict[subprocess.Popen, str] = {}  # each running reader and the case it reads
        self.stopped: str | None = None  # why, once stopped
        self.running_at_stop: list[str] = []  # the cases being read when the stop came

    def start(self, args: list[str], label: str = "", **kw) -> subprocess.Popen | None:
        """Popen in a new session (``label``: the case it reads), or None once stopped."""
        with self._lock:
            if self.stopped:
                return None
            proc = subprocess.Popen(args, start_new_session=True, **kw)
            self._procs[proc] = label
            if self.stopped:  # a signal arrived while it started
                _kill_group(proc)
            return proc

    def finished(self, proc: subprocess.Popen) -> None:
        with self._lock:
            self._procs.pop(proc, None)

    def stop(self, reason: str) -> None:
        """Grade no more cases; kill every running reader's process group."""
        with self._lock:
            if self.stopped is None:
                self.stopped = reason
                self.running_at_stop = sorted(label for label in self._procs.values() if label)
            procs = list(self._procs)
        for proc in procs:
            _kill_group(proc)


@contextmanager
def stop_on_signals(readers: Readers, signums=(signal.SIGINT, signal.SIGTERM)):
    """While inside (in the main thread), SIGINT and SIGTERM stop ``readers`` instead of
    raising; yields the list of signal numbers received."""
    received: list[int] = []

    def handler(signum, _frame):
        received.append(signum)
        readers.stop(f"interrupted by {signal.Signals(signum).name}")

    old = {s: signal.signal(s, handler) for s in signums}
    try:
        yield received
    finally:
        for s, h in old.items():
            signal.signal(s, h)


def run_reader(argv: list[str], path: Path, *, stdin: bool, timeout: float,
               readers: Readers | None = None, label: str = "") -> Run | None:
    """Run the reader once, without a shell; kill its whole process group on timeout.
    None when ``readers`` was stopped before or while it ran (no verdict)."""
    readers = readers or Readers()
    args = list(argv) if stdin else [*argv, str(path)]
    fh = open(path, "rb") if stdin else subprocess.DEVNULL  # noqa: SIM115 - closed in the finally below
    try:
        try:
            proc = readers.start(args, label, stdin=fh, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            raise ConformanceError(f"cannot start reader {args[0]!r}: {e.strerror or e}") from None
        if proc is None:
            return None
        try:
            out, err = proc.communicate(timeout=timeout)
            run = Run(proc.returncode, out, err)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            try:
                out, err = proc.communicate(timeout=5)
            except subprocess.TimeoutExpired:  # a descendant left the group and holds the pipes
                for pipe in (proc.stdout, proc.stderr):
                    if pipe is not None:
                        pipe.close()
                proc.wait()
                out, err = b"", b""
            run = Run(None, out, err)
        except BaseException:  # KeyboardInterrupt without stop_on_signals: the reader goes too
            _kill_group(proc)
            raise
        finally:
            readers.finished(proc)
        return None if readers.stopped else run
    finally:
        if not isinstance(fh, int):  # the file, not DEVNULL
            fh.close()


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()


# ------------------------------------------------------------------ grading
def grade(case: Case, run: Run, timeout: float) -> Result:
    expect = EXPECT[case.category]
    r = Result(case.id, case.category, expect, "pass", "", run.exit, spec=case.spec)
    if run.exit is None:
        r.grade, r.outcome, r.detail = "crash", "timeout", f"no answer within {timeout:g} s; killed"
        return r
    if run.exit < 0:
        try:
            name = signal.Signals(-run.exit).name
        except ValueError:
            name = f"signal {-run.exit}"
        r.grade, r.outcome, r.detail = "crash", "crashed", f"killed by {name}" + _stderr_tail(run)
        return r
    if run.exit not in (0, 1):
        r.grade, r.outcome, r.detail = "crash", "crashed", f"exit status {run.exit}" + _stderr_tail(run)
        return r
    r.outcome = "accepted" if run.exit == 0 else "rejected"
    r.chose = CHOICES.get(case.category, {}).get(run.exit, "")
    if case.category == "malformed":
        return _grade_malformed(case, run, r)
    if case.category in DAMAGED:
        return _grade_damaged(case, run, r)
    if case.category == "valid" and run.exit == 1:
        r.grade, r.detail = "fail", "rejected a file a reader must accept" + _stderr_tail(run)
        return r
    if case.category == "impl":
        if run.exit == 1:
            return r
        doc, err = parse_output(run.stdout)
        if doc is None:
            r.grade, r.detail = "wrong", err
        elif case.expected is not None:  # the spec fixes the decoding, if not the decision
            _compare(json.loads(case.expected.read_text(encoding="utf-8")), doc, r)
        return r
    doc, err = parse_output(run.stdout)
    if doc is None:
        r.grade, r.detail = "wrong", err
        return r
    _compare(_expected(case), doc, r)
    return r


def _expected(case: Case) -> dict:
    return json.loads(case.expected.read_text(encoding="utf-8")) if case.expected else {"records": []}


def _grade_damaged(case: Case, run: Run, r: Result) -> Result:
    """invalid/ and recover/, one rule: graded by the records before the fault (the
    ``.json``). Exit 1: records that start with them (or nothing, where there are none).
    Exit 0: exactly them ("reading everything up to the last well-formed record"), and a
    warning recorded apart; where there are none, nothing was recovered: a fail."""
    before = _expected(case)["records"]
    if run.exit == 0 and not before:
        r.grade, r.detail = "fail", "accepted a file with no record before its fault: nothing to recover, so a " \
                                    "reader must reject it"
        return r
    if run.exit == 1 and not run.stdout.strip():
        if before:
            r.grade = "fail"
            r.detail = f"rejected without returning {_the(before)} before the fault" + _stderr_tail(run)
        return r
    doc, err = parse_output(run.stdout)
    if doc is None:
        r.grade, r.detail = "wrong", err
        return r
    if run.exit == 1:
        _compare_prefix(before, doc, r, "rejected: ")
        return r
    _compare({"records": before}, doc, r, "exit 0: ")
    if r.grade == "wrong" and len(doc["records"]) > len(before) \
            and not first_difference(before, doc["records"][: len(before)]):
        r.detail = _clip(f"exit 0 with {_n(len(doc['records']) - len(before))} after the last well-formed one "
                         f"(a reader that does not report the fault stops there): {r.detail[len('exit 0: '):]}")
    if r.grade in ("pass", "unreported"):
        r.warning = (f"exit 0: returned {_the(before)} before the fault without saying the file is damaged (the "
                     "spec asks for the records, not for a rejection)")
    return r


def _n(count: int) -> str:
    return "1 record" if count == 1 else f"{count} records"


def _the(records: list) -> str:
    return "the record" if len(records) == 1 else f"the {len(records)} records"


def _grade_malformed(case: Case, run: Run, r: Result) -> Result:
    """Skipped (exit 0): the whole decoding must be the ``.json`` (the records after the
    malformed one included); a reader that printed more records than that decoded the
    malformed record: it read through it (``chose``: ``read-through``), which is wrong.
    Rejected (exit 1): nothing on stdout, or records that start with the ``prefix``
    records before the fault."""
    expected = _expected(case)
    if run.exit == 1 and not run.stdout.strip():
        return r
    doc, err = parse_output(run.stdout)
    if doc is None:
        r.grade, r.detail = "wrong", err
        return r
    if run.exit == 0:
        n, got, prefix = len(expected["records"]), len(doc["records"]), case.prefix or 0
        if got > n and not first_difference(expected["records"][:prefix], doc["records"][:prefix]):
            r.chose = "read-through"
            _compare(expected, doc, r, f"read through the malformed record (decoded it; the spec says it can be "
                                       f"skipped): {_n(got)} where skipping it gives {n}; ")
            if r.grade != "wrong":  # cannot be: more records than expected always differs
                r.grade = "wrong"
            return r
        _compare(expected, doc, r, "exit 0, but not the decoding with the malformed record skipped: ")
        return r
    _compare_prefix(expected["records"][: case.prefix or 0], doc, r, "rejected: ")
    return r


def _compare_prefix(before: list, doc: dict, r: Result, lead: str = "") -> None:
    """Grade ``r`` by a rejecting reader's records: they must start with ``before`` (more
    after them are fine)."""
    n = min(len(doc["records"]), len(before))
    _compare({"records": before[:n]}, {**doc, "records": doc["records"][:n]}, r, lead)
    if r.grade == "pass" and n < len(before):
        r.grade, r.detail = "wrong", f"{lead}records: {len(doc['records'])} of the {len(before)} before the fault"


def _compare(expected: dict, doc: dict, r: Result, lead: str = "") -> None:
    """Grade ``r`` by the decoding: ``wrong`` at the first difference; ``unreported``
    when the only differences are argument types the reader declared it cannot tell apart."""
    groups = [frozenset(g) for g in doc.get(CANNOT_TELL) or [] if isinstance(g, list)]
    doc = {k: v for k, v in doc.items() if k != CANNOT_TELL}
    unreported: list[str] = []
    diff = first_difference(expected, doc, groups=groups, unreported=unreported)
    if diff:
        r.grade, r.detail = "wrong", _clip(lead + diff)
    elif unreported:
        r.grade, r.detail = "unreported", _clip(lead + "not reported: " + "; ".join(dict.fromkeys(unreported)))


def parse_output(stdout: bytes) -> tuple[dict | None, str]:
    """The reader's canonical JSON, or the reason it is not one."""
    try:
        doc = json.loads(stdout.decode("utf-8"))
    except UnicodeDecodeError as e:
        return None, f"stdout is not UTF-8: {e}"
    except json.JSONDecodeError as e:
        return None, _clip(f"stdout is not JSON: {e}")
    if not isinstance(doc, dict) or not isinstance(doc.get("records"), list):
        return None, 'stdout is JSON but not a canonical decoding (an object with a "records" list)'
    return doc, ""


def first_difference(expected, got, path: str = "", *, groups=(), unreported: list | None = None) -> str | None:
    """The first place two JSON values differ, as ``path: expected X, got Y``; else None.

    Numbers compare by value (JSON has one number type); a bool is not a number. An
    argument whose type is in one of ``groups`` with the expected type (types the reader
    cannot tell apart) matches on its integer value; the type it could not report is
    added to ``unreported``."""
    def num(v):
        return isinstance(v, (int, float)) and not isinstance(v, bool)

    if groups and isinstance(expected, dict) and isinstance(got, dict) and set(expected) == {"name", "type", "value"} \
            and set(got) == set(expected) and expected["type"] != got["type"] \
            and any(expected["type"] in g and got["type"] in g for g in groups):
        same = expected["name"] == got["name"] and _integer(expected["value"]) is not None \
            and _integer(expected["value"]) == _integer(got["value"])
        if same:
            if unreported is not None:
                unreported.append(f"{expected['type']} (read as {got['type']})")
            return None

    if num(expected) and num(got):
        return None if expected == got else f"{path or '.'}: expected {_show(expected)}, got {_show(got)}"
    if type(expected) is not type(got):
        return f"{path or '.'}: expected {_show(expected)}, got {_show(got)}"
    if isinstance(expected, dict):
        for k in expected:
            if k not in got:
                return f"{path}.{k}: missing (expected {_show(expected[k])})"
            d = first_difference(expected[k], got[k], f"{path}.{k}", groups=groups, unreported=unreported)
            if d:
                return d
        for k in got:
            if k not in expected:
                return f"{path}.{k}: unexpected (got {_show(got[k])})"
        return None
    if isinstance(expected, list):
        for i, (a, b) in enumerate(zip(expected, got)):
            d = first_difference(a, b, f"{path}[{i}]", groups=groups, unreported=unreported)
            if d:
                return d
        if len(expected) != len(got):
            return f"{path}: expected {len(expected)} items, got {len(got)}"
        return None
    return None if expected == got else f"{path or '.'}: expected {_show(expected)}, got {_show(got)}"


def _integer(v) -> int | None:
    """An integer argument value (a number, or a decimal string for 64-bit ones)."""
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        try:
            return int(v, 10)
        except ValueError:
            return None
    return None


def _show(v) -> str:
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 60 else text[:57] + "..."


def _clip(text: str) -> str:
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 3] + "..."


def _stderr_tail(run: Run) -> str:
    lines = [ln for ln in run.stderr.decode("utf-8", "replace").splitlines() if ln.strip()]
    return f": {_clip(lines[-1].strip())}" if lines else ""


# ------------------------------------------------------------------ a whole run
def run_suite(argv: list[str], suite: Path, *, stdin: bool = True, timeout: float = 10.0, skip=(),
              name: str | None = None, jobs: int = 1, progress=None, max_failures: int | None = None,
              readers: Readers | None = None) -> dict:
    """Grade the reader ``argv`` on every case of ``suite``; returns the results document.

    ``skip`` holds glob patterns matched against ``category/name`` and ``name``;
    ``jobs`` runs that many readers at once (results keep the suite's order);
    ``progress(result, done, total)`` is called after each case; ``max_failures`` stops
    the run after that many crashes or timeouts in a row; ``readers`` lets the caller
    stop the run (``stop_on_signals``). A stopped run's document holds the cases graded
    before the stop and says why in ``stopped``."""
    if not argv:
        raise ConformanceError("empty reader command")
    cases = load_suite(suite)
    readers = readers or Readers()
    lock = threading.Lock()
    tally = {"done": 0, "streak": 0}

    def one(case: Case) -> Result | None:
        if any(fnmatch.fnmatchcase(case.id, g) or fnmatch.fnmatchcase(case.name, g) for g in skip):
            r = Result(case.id, case.category, EXPECT[case.category], "skip", "skipped", spec=case.spec)
        else:
            run = run_reader(argv, case.path, stdin=stdin, timeout=timeout, readers=readers, label=case.id)
            if run is None:
                return None  # stopped before or while it ran: no verdict
            r = grade(case, run, timeout)
        with lock:
            tally["done"] += 1
            if r.grade != "skip":
                tally["streak"] = tally["streak"] + 1 if r.grade == "crash" else 0
            if max_failures and tally["streak"] >= max_failures:
                readers.stop(f"stopped after {max_failures} crashes or timeouts in a row")
            done = tally["done"]
        if progress is not None:
            progress(r, done, len(cases))
        return r

    if jobs <= 1:
        results = [one(c) for c in cases]
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(one, cases))
    graded = [r for r in results if r is not None]
    doc = {
        "format": RESULTS_FORMAT,
        "reader": {"name": name or reader_name(argv), "command": list(argv), "input": "stdin" if stdin else "path"},
        "timeout": timeout,
        "suite": {"version": suite_version(suite)},
        "summary": summarise(graded),
        "cases": [asdict(r) for r in graded],
    }
    if readers.stopped:
        during = f" while reading {', '.join(readers.running_at_stop)}" if readers.running_at_stop else ""
        doc["stopped"] = f"{readers.stopped}{during}: {len(graded)} of {len(cases)} cases graded"
    return doc


def reader_name(argv: list[str]) -> str:
    """A short label for a command: its script's or program's file name."""
    for a in reversed(argv):
        if not a.startswith("-") and ("/" in a or a.endswith(".py")):
            return Path(a).stem
    return Path(argv[0]).name


def summarise(results) -> dict:
    out: dict[str, dict] = {}
    for cat in CATEGORIES:
        rs = [r for r in results if (r.category if isinstance(r, Result) else r["category"]) == cat]
        counts = {g: 0 for g in GRADES}
        for r in rs:
            counts[r.grade if isinstance(r, Result) else r["grade"]] += 1
        out[cat] = {"cases": len(rs), **counts}
        if cat in CHOSE:  # what the reader chose where it may choose
            chose = [r.chose if isinstance(r, Result) else r.get("chose", "") for r in rs]
            out[cat]["chose"] = {c: chose.count(c) for c in CHOSE[cat]}
        out[cat]["warned"] = sum(bool(r.warning if isinstance(r, Result) else r.get("warning")) for r in rs)
    return out


def passed(results: dict) -> bool:
    """Every case ran (the run was not stopped) and passed."""
    return "stopped" not in results and all(c["grade"] in ("pass", "skip") for c in results["cases"])


def score(results: dict, category: str) -> tuple[int, int]:
    """(passed, graded) in a category: skipped cases are not run, and cases whose only
    differences are what the reader declared it cannot report (``unreported``) are
    counted apart, not graded."""
    s = results["summary"].get(category, {})
    return s.get("pass", 0), s.get("cases", 0) - s.get("skip", 0) - s.get("unreported", 0)


def _did(results: dict) -> str:
    """What a reader did with the files it was given: 'it rejected every one of the 277
    files' or 'it refused none of the 277 files: it accepted 250, crashed on 27'."""
    cases = [c for c in results["cases"] if c["grade"] != "skip"]
    n = {o: sum(c["outcome"] == o for c in cases) for o in ("accepted", "rejected", "crashed", "timeout")}
    if n["rejected"] == len(cases):
        return f"it rejected every one of the {len(cases)} files, so its other scores only count files it refused"
    what = ", ".join(f"{label} {n[o]}" for o, label in (("accepted", "accepted"), ("rejected", "rejected"),
                                                         ("crashed", "crashed on"), ("timeout", "timed out on"))
                     if n[o])
    if not n["rejected"]:
        return f"it refused none of the {len(cases)} files: {what}"
    return f"of the {len(cases)} files it {what}"


def warnings(results: dict) -> list[str]:
    """What the scores hide: a reader that passes no must-accept case reads nothing,
    whatever it scores by rejecting invalid/ and impl/ cases; the warning says what it did."""
    out = []
    ok, ran = score(results, "valid")
    if ran and not ok:
        out.append(f"{results['reader']['name']} passes none of the {ran} valid/ cases (files a reader must "
                   f"accept): {_did(results)}")
    if "stopped" in results:
        out.append(f"the run was {results['stopped']}; the scores cover those cases only")
    version = (results.get("suite") or {}).get("version")
    if results.get("format") != RESULTS_FORMAT or (version is not None and version != SUITE_VERSION):
        out.append(f"{results['reader']['name']} was graded by suite version {version or '2 or older'}, this "
                   f"fxtlint's is {SUITE_VERSION}: verdicts have moved since (corpus/conformance/README.md)")
    return out


def write_results(results: dict, path: Path) -> None:
    Path(path).write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def load_results(path: Path) -> dict:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ConformanceError(f"cannot read results {path}: {e}") from None
    if not isinstance(doc, dict) or doc.get("format") not in (RESULTS_FORMAT, "fxt-conformance-results/1"):
        raise ConformanceError(f"{path}: not a results file of {RESULTS_FORMAT}")
    return doc
