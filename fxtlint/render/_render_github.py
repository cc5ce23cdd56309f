"""The GitHub Actions renderer: one workflow command per diagnostic, then a summary.

``::error file=PATH,title=fxtlint CODE::MESSAGE`` (``warning`` and ``notice`` for the
other severities) become annotations on the run. GitHub shows only the first few
annotations of each kind per step, so at most ``cap`` are printed, most severe first,
and a summary notice says how many there are in all and how many were left out.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..rules._diagnostics import Severity
from ..engine._result import FileReport

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
DEFAULT_CAP = 50  # GitHub keeps 50 annotations per step


def _n(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(reports: Sequence[FileReport], *, failures: Sequence[tuple[str, str]] = (),
           cap: int = DEFAULT_CAP) -> str:
    entries = [(r.path, d) for r in reports for d in r.diagnostics]
    entries.sort(key=lambda e: (-int(e[1].severity), e[0], e[1].sort_key()))
    lines = []
    for path, message in failures:
        lines.append(f"::error file={escape_property(path)},title=fxtlint::{escape_data(message)}")
    for path, d in entries[:cap]:
        where = f"byte {d.offset:#x}" + (f", record {d.record_index}" if d.record_index >= 0 else "")
        lines.append(f"::{COMMAND[d.severity]} file={escape_property(path)},"
                     f"title={escape_property(f'fxtlint {d.code}')}::"
                     f"{escape_data(f'{d.code} {d.message} ({where})')}")
    total = {k: sum(r.severity_counts.get(k, 0) for r in reports) for k in ("error", "warning", "info")}
    found = sum(total.values())
    shown = min(len(entries), cap)
    summary = "fxtlint: " + ", ".join(
        _n(n, w) for n, w in ((len(reports), "file"), (total["error"], "error"),
                              (total["warning"], "warning"), (total["info"], "info")))
    if found > shown:
        summary += f"; {shown} annotated, {found - shown} not shown (see the log or --output-format json)"
    lines.append(f"::notice title=fxtlint summary::{escape_data(summary)}")
    return "\n".join(lines) + "\n"
