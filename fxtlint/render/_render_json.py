"""The JSON renderer: one object for the whole run, deterministic (no timestamps).

``{"files": [FileReport.to_json()...], "summary": {...}, "tool": {...}}``, plus
``"failures"`` listing the paths that could not be read (also reported on stderr).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..engine._result import FileReport
from ..spec._version import TOOL_NAME, tool_version


def summary(reports: Sequence[FileReport]) -> dict[str, int]:
    return {
        "files": len(reports),
        "errors": sum(r.severity_counts.get("error", 0) for r in reports),
        "warnings": sum(r.severity_counts.get("warning", 0) for r in reports),
        "infos": sum(r.severity_counts.get("info", 0) for r in reports),
    }


def render(
    reports: Sequence[FileReport],
    *,
    failures: Sequence[tuple[str, str]] = (),
    version: str | None = None,
) -> dict:
    """The run as a JSON-ready dict; ``failures`` are (path, message) pairs."""
    return {
        "files": [r.to_json() for r in reports],
        "failures": [{"path": p, "message": m} for p, m in failures],
        "summary": summary(reports),
        "tool": {"name": TOOL_NAME, "version": version or tool_version()},
    }


def dumps(run: dict | list) -> str:
    return json.dumps(run, indent=2, ensure_ascii=False) + "\n"


def render_rules(rules) -> list[dict]:
    """The registry as JSON, for ``fxtlint rules --output-format json``."""
    return [
        {
            "code": r.code,
            "name": r.name,
            "severity": r.severity.label,
            "status": r.status,
            "message": r.message,
            **({"replaced_by": r.replaced_by} if r.replaced_by else {}),
        }
        for r in rules
    ]
