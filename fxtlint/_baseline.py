"""A baseline: the findings a writer already has, so CI gates only on new ones.

The file is JSON: ``{"fxtlint_baseline": 1, "files": {PATH: {CODE: {MESSAGE: COUNT}}}}``.
A finding is known when the baseline holds the same file path (as given on the
command line, with ``/`` separators), code and message (without the positions of
other records it names, which move as a trace changes), as many times as it occurs:
a file that gains a second identical finding reports the second one. Findings a
``--max-per-rule`` cap dropped are not in the stored list, so write and check a
baseline with the same cap.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

from ._diagnostics import stable_message
from ._report import FileReport

FORMAT_KEY = "fxtlint_baseline"
FORMAT_VERSION = 1


class BaselineError(ValueError):
    """A baseline file that cannot be read or is not one."""


def path_key(path: str) -> str:
    return path.replace("\\", "/")


def build(reports) -> dict:
    """The baseline of these reports, ready for ``json.dump``."""
    files: dict = {}
    for r in reports:
        if not r.diagnostics:
            continue
        per_code: dict = {}
        for d in r.diagnostics:
            per_code.setdefault(d.code, Counter())[stable_message(d.message)] += 1
        files[path_key(r.path)] = {c: dict(sorted(m.items())) for c, m in sorted(per_code.items())}
    return {FORMAT_KEY: FORMAT_VERSION, "files": dict(sorted(files.items()))}


def dumps(baseline: dict) -> str:
    return json.dumps(baseline, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def loads(text: str, where: str = "baseline") -> dict:
    try:
        data = json.loads(text)
    except ValueError as e:
        raise BaselineError(f"{where}: not JSON ({e})") from None
    if not isinstance(data, dict) or data.get(FORMAT_KEY) != FORMAT_VERSION or not isinstance(data.get("files"), dict):
        raise BaselineError(f"{where}: not an fxtlint baseline (written by --write-baseline)")
    return data


def apply(report: FileReport, baseline: dict) -> FileReport:
    """``report`` without the findings the baseline knows; counts stay exact for the rest."""
    known = baseline["files"].get(path_key(report.path))
    if not known:
        return report
    left = {code: Counter(msgs) for code, msgs in known.items() if isinstance(msgs, dict)}
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
