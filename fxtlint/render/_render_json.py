"""The JSON renderer: one object for the whole run, deterministic (no timestamps).

``{"files": [FileReport.to_json()...], "summary": {...}, "tool": {...}}``, plus
``"failures"`` listing the paths that could not be read (also reported on stderr).
"""

from __future__ import annotations

from collections.abc import Sequence

try:
    from _json import encode_basestring as _text  # json's own string encoder (C), without ``import json``
except ImportError:  # pragma: no cover - an interpreter without the accelerator
    from json.encoder import py_encode_basestring as _text

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
    """``json.dumps(run, indent=2, ensure_ascii=False) + "\\n"``, byte for byte, written here:
    ``import json`` compiles its decoder's and encoder's patterns at import (about 1.5 ms
    of ``fxtlint --output-format json FILE``'s start, bench/startup.py). Values as
    ``json.dumps`` takes them (str, int, float, bool, None, lists, tuples and dicts, keys
    str, int, float, bool or None); anything else is a TypeError, as there."""
    out: list[str] = []
    _write(run, "\n", out)
    out.append("\n")
    return "".join(out)


def _write(o, newline: str, out: list[str]) -> None:
    """``o`` as ``json.encoder``'s indented writer writes it at the indentation ``newline``
    ends with (its checks in its order: a bool before an int, an int before a float)."""
    if isinstance(o, str):
        out.append(_text(o))
    elif o is None:
        out.append("null")
    elif o is True:
        out.append("true")
    elif o is False:
        out.append("false")
    elif isinstance(o, int):
        out.append(int.__repr__(o))
    elif isinstance(o, float):
        out.append(_float(o))
    elif isinstance(o, (list, tuple)):
        if not o:
            out.append("[]")
            return
        inner = newline + "  "
        out.append("[")
        for i, v in enumerate(o):
            out.append(inner if i == 0 else "," + inner)
            _write(v, inner, out)
        out.append(newline + "]")
    elif isinstance(o, dict):
        if not o:
            out.append("{}")
            return
        inner = newline + "  "
        out.append("{")
        first = True
        for k, v in o.items():
            out.append(inner if first else "," + inner)
            first = False
            out.append(_key(k))
            out.append(": ")
            _write(v, inner, out)
        out.append(newline + "}")
    else:
        raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def _float(x: float) -> str:
    if x != x:
        return "NaN"
    if x == float("inf"):
        return "Infinity"
    if x == -float("inf"):
        return "-Infinity"
    return float.__repr__(x)


def _key(k) -> str:
    """An object key as ``json.dumps`` writes it (a key that is not a str as its text)."""
    if isinstance(k, str):
        return _text(k)
    if isinstance(k, float):
        return _text(_float(k))
    if k is True:
        return '"true"'
    if k is False:
        return '"false"'
    if k is None:
        return '"null"'
    if isinstance(k, int):
        return _text(int.__repr__(k))
    raise TypeError(f"keys must be str, int, float, bool or None, not {k.__class__.__name__}")


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
