"""A baseline: the findings a writer already has, so CI gates only on new ones.

The file is JSON (version 3): ``{"fxtlint_baseline": 3, "files": {PATH: {CODE:
[{"finding": {...}, "count": N, "message": TEXT}, ...]}}}``. A finding is keyed on what
identifies it whatever else the trace holds (``rules.identity``): its file, its code and
its own fields (the record's fields, names and values it reports), not on numbers that
move when other records change (another record's offset, the bytes left in the file,
the file's length: each rule's ``positions``). So one more record elsewhere in the trace
(a log line) leaves every known finding known. ``message`` is for the people reading
the file; matching ignores it. A code that is not fxtlint's is keyed on its message.

PATH is the linted file's path relative to the baseline file's folder, with ``/``
separators, however it was spelled on the command line; a file is matched by its
resolved path (symlinks and ``..`` followed), so ``traces/``, ``./traces/``,
``$PWD/traces/`` and ``../traces/`` from a subfolder all find the same entries.
Versions 1 and 2 (``{PATH: {CODE: {MESSAGE: COUNT}}}``, keyed on the message without
the positions it names) are still read, and matched on the message as they were
(version 1 stored the path as given: it is read relative to its folder too); rewrite
one with ``--write-baseline`` to key it on the findings. A finding is known as many
times as the baseline counts it: a file that gains a second identical finding reports
the second one. Findings a ``--max-per-rule`` cap dropped are not in the stored list,
so write and check a baseline with the same cap.

``Baseline.stale()`` counts the entries that matched nothing in a run: of the files
linted, and of files that no longer exist. It is how a user learns the baseline no
longer describes the traces ("rewrite it with --write-baseline").
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace

from .. import rules as R
from ..engine._result import FileReport
from ..rules._diagnostics import Diagnostic, stable_message

FORMAT_KEY = "fxtlint_baseline"
FORMAT_VERSION = 3
READABLE_VERSIONS = (1, 2, 3)
MESSAGE_KEYED = (1, 2)  # the versions keyed on the message text
STDIN = "-"


def finding_key(d: Diagnostic) -> str:
    """A finding's key in a version 3 baseline: its own fields as compact JSON (its
    message without positions for a code that is not fxtlint's)."""
    ident = R.identity(d)
    if ident is None:
        return "message:" + stable_message(d.message)
    return json.dumps(ident, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def message_key(d: Diagnostic) -> str:
    """A finding's key in a version 1 or 2 baseline."""
    return stable_message(d.message)


class BaselineError(ValueError):
    """A baseline file that cannot be read or is not one."""


def path_key(path: str, folder: str) -> str:
    """How a linted file is named in a baseline kept in ``folder``: relative to it, with
    ``/`` separators (absolute when no relative path exists, another drive)."""
    if path == STDIN:
        return STDIN
    try:
        rel = os.path.relpath(os.path.abspath(path), os.path.abspath(folder))
    except ValueError:
        rel = os.path.abspath(path)
    return rel.replace(os.sep, "/")


def _resolved(path: str, folder: str) -> str:
    """The file a path names (a baseline key is relative to ``folder``)."""
    if path == STDIN:
        return STDIN
    return os.path.normcase(os.path.realpath(os.path.join(folder, path)))


def build(reports, baseline_path: str) -> dict:
    """The baseline of these reports, to be written at ``baseline_path``."""
    folder = os.path.dirname(os.path.abspath(baseline_path))
    files: dict = {}
    for r in reports:
        if not r.diagnostics:
            continue
        per_code: dict[str, dict[str, dict]] = {}
        for d in r.diagnostics:
            key = finding_key(d)
            entry = per_code.setdefault(d.code, {}).get(key)
            if entry is None:
                per_code[d.code][key] = entry = {"finding": _finding(key), "count": 0,
                                                 "message": stable_message(d.message)}
            entry["count"] += 1
        files[path_key(r.path, folder)] = {c: [e for _, e in sorted(m.items())] for c, m in sorted(per_code.items())}
    return {FORMAT_KEY: FORMAT_VERSION, "files": dict(sorted(files.items()))}


def _finding(key: str):
    """How a key is stored: the fields as an object, or the message of a foreign code."""
    return key if key.startswith("message:") else json.loads(key)


def _key_of(finding) -> str | None:
    """The key of a stored finding (None when it is not one)."""
    if isinstance(finding, str):
        return finding if finding.startswith("message:") else None
    if isinstance(finding, dict):
        return json.dumps(dict(sorted(finding.items())), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return None


def dumps(baseline: dict) -> str:
    return json.dumps(baseline, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def loads(text: str, where: str = "baseline") -> dict:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BaselineError(f"{where}: not JSON ({e})") from None
    if not isinstance(data, dict) or data.get(FORMAT_KEY) not in READABLE_VERSIONS \
            or not isinstance(data.get("files"), dict):
        raise BaselineError(f"{where}: not an fxtlint baseline (written by --write-baseline)")
    return data


class Baseline:
    """A loaded baseline, matched against a run's reports by resolved path. Each finding
    it lists is matched at most once (``apply`` spends it)."""

    def __init__(self, data: dict, baseline_path: str):
        self.folder = os.path.dirname(os.path.abspath(baseline_path))
        self.version = data[FORMAT_KEY]
        self._key = message_key if self.version in MESSAGE_KEYED else finding_key
        self._left: dict[str, dict[str, Counter]] = {}
        for key, per_code in data["files"].items():
            if not isinstance(key, str) or not isinstance(per_code, dict):
                continue
            budget = self._left.setdefault(_resolved(key, self.folder), {})
            for code, entries in per_code.items():
                budget.setdefault(code, Counter()).update(self._entries(entries))
        self._linted: set[str] = set()

    def _entries(self, entries) -> dict[str, int]:
        """A code's stored findings as {key: count}; malformed entries are skipped."""
        if self.version in MESSAGE_KEYED:
            if not isinstance(entries, dict):
                return {}
            return {m: n for m, n in entries.items() if isinstance(n, int) and n > 0}
        out: Counter = Counter()
        for e in entries if isinstance(entries, list) else ():
            key = _key_of(e.get("finding")) if isinstance(e, dict) else None
            n = e.get("count") if isinstance(e, dict) else None
            if key is not None and isinstance(n, int) and n > 0:
                out[key] += n
        return out

    @classmethod
    def read(cls, path: str) -> Baseline:
        """Raises OSError (cannot be read) or BaselineError (not a baseline)."""
        with open(path, encoding="utf-8") as fh:
            return cls(loads(fh.read(), path), path)

    def apply(self, report: FileReport) -> FileReport:
        """``report`` without the findings the baseline knows; counts stay exact for the rest."""
        where = _resolved(report.path, os.getcwd())
        self._linted.add(where)
        left = self._left.get(where)
        if not left:
            return report
        kept = []
        dropped: Counter = Counter()
        for d in report.diagnostics:
            budget = left.get(d.code)
            key = self._key(d)
            if budget is not None and budget[key] > 0:
                budget[key] -= 1
                dropped[d.code] += 1
            else:
                kept.append(d)
        if not dropped:
            return report
        counts = {c: n - dropped[c] for c, n in report.counts.items() if n - dropped[c] > 0}
        sev = dict(report.severity_counts)
        severity_of = {d.code: d.severity.label for d in report.diagnostics}
        for code, n in dropped.items():
            sev[severity_of[code]] -= n
        return replace(report, diagnostics=kept, counts=counts, severity_counts=sev)

    def stale(self) -> int:
        """Entries that matched no finding: of the files linted so far, and of files that
        no longer exist. A file that exists but was not linted says nothing."""
        n = 0
        for where, per_code in self._left.items():
            if where in self._linted or (where != STDIN and not os.path.exists(where)):
                n += sum(sum(c.values()) for c in per_code.values())
        return n


def stale_note(n: int, baseline_path: str) -> str | None:
    """What to tell the user about entries that matched nothing, or None."""
    if not n:
        return None
    what = "1 baseline entry no longer occurs" if n == 1 else f"{n} baseline entries no longer occur"
    return f"{what} in {baseline_path}: rewrite it with --write-baseline"
