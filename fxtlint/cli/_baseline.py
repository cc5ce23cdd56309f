"""A baseline: the findings a writer already has, so CI gates only on new ones.

The file is JSON: ``{"fxtlint_baseline": 2, "files": {PATH: {CODE: {MESSAGE: COUNT}}}}``.
PATH is the linted file's path relative to the baseline file's folder, with ``/``
separators, however it was spelled on the command line; a file is matched by its
resolved path (symlinks and ``..`` followed), so ``traces/``, ``./traces/``,
``$PWD/traces/`` and ``../traces/`` from a subfolder all find the same entries.
(Version 1 files, which stored the path as given, are read the same way: relative
to their folder.) A finding is known when the baseline holds the same file, code
and message (without the positions of other records it names, which move as a
trace changes), as many times as it occurs: a file that gains a second identical
finding reports the second one. Findings a ``--max-per-rule`` cap dropped are not in
the stored list, so write and check a baseline with the same cap.

``Baseline.stale()`` counts the entries that matched nothing in a run: of the files
linted, and of files that no longer exist. It is how a user learns the baseline no
longer describes the traces ("rewrite it with --write-baseline").
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace

from ..rules._diagnostics import stable_message
from ..engine._result import FileReport

FORMAT_KEY = "fxtlint_baseline"
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)
STDIN = "-"


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
        per_code: dict = {}
        for d in r.diagnostics:
            per_code.setdefault(d.code, Counter())[stable_message(d.message)] += 1
        files[path_key(r.path, folder)] = {c: dict(sorted(m.items())) for c, m in sorted(per_code.items())}
    return {FORMAT_KEY: FORMAT_VERSION, "files": dict(sorted(files.items()))}


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
        self._left: dict[str, dict[str, Counter]] = {}
        for key, per_code in data["files"].items():
            if not isinstance(key, str) or not isinstance(per_code, dict):
                continue
            budget = self._left.setdefault(_resolved(key, self.folder), {})
            for code, msgs in per_code.items():
                if isinstance(msgs, dict):
                    budget.setdefault(code, Counter()).update(
                        {m: n for m, n in msgs.items() if isinstance(n, int) and n > 0})
        self._linted: set[str] = set()

    @classmethod
    def read(cls, path: str) -> "Baseline":
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
            key = stable_message(d.message)
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
