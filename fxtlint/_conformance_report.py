"""A writer's conformance report: verdict, per-rule results, spec coverage, statistics
and problems folded per rule, as one JSON-ready dict (``docs/report.schema.json``).

Sans-IO: takes a buffer; the renderers (``_report_markdown``, ``_report_html``) and
the CLI take the dict. Two passes over the buffer: the linter (the fast engine) and
the recovering reader for coverage; both stream, so memory follows the tables.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from importlib import resources
from pathlib import Path

from . import rules as R
from ._coverage import CoverageCollector
from ._diagnostics import Diagnostic
from ._hexview import dump, record_window
from ._lint import lint_buffer
from ._reader import detect_byte_order, iter_records
from ._render_json import tool_version
from ._report import FileReport
from ._rule_scope import exercised

SCHEMA_ID = "fxtlint-report/1"
SPEC_REVISION = "Fuchsia Trace Format, current revision (with the v1 text where they agree)"
SHOWN_PER_RULE = 3  # problems shown with a hex view per rule
OFFSETS_PER_RULE = 10  # first offsets listed per rule
RESULTS = ("failed", "passed", "not_exercised")


def spec_digest() -> str:
    """A short digest of the spec tables the report was checked against."""
    h = hashlib.sha256()
    d = Path(str(resources.files("fxtlint") / "spec_tables"))
    if not d.is_dir():  # a source checkout: the repository's top-level folder
        d = Path(__file__).resolve().parent.parent / "spec-tables"
    for p in sorted(d.glob("*.toml")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _not_fxt(buf, fmt: str, first) -> str | None:
    """Why ``buf`` is not a Fuchsia trace at all, or None. A trace that lost its magic
    record but frames a known first record is a broken trace, not another format."""
    if fmt != "trace" or detect_byte_order(buf) is not None:
        return None
    if len(buf) < 8:
        return f"not a Fuchsia trace: {len(buf)} bytes, shorter than one record"
    if first is None:
        return "not a Fuchsia trace: no magic record, and its first header cannot be framed"
    if first.kind == "unknown" or first.kind.endswith(".unknown") or not first.complete:
        return f"not a Fuchsia trace: no magic record, and its first record ({first.kind}) does not decode"
    return None


def not_fxt_reason(buf, input_format: str = "auto") -> str | None:
    """Why ``buf`` is not a Fuchsia trace (or structured-log stream) at all, or None."""
    from ._lint import choose_format

    fmt = choose_format(buf, input_format)
    if fmt != "trace":
        return None
    first = next(iter(iter_records(buf, lambda d: None, byte_order="little")), None)
    return _not_fxt(buf, fmt, first)


def _problem(rule_code: str, count: int, diags: list[Diagnostic], buf) -> dict:
    rule = R.get(rule_code)
    shown = []
    for d in diags[:SHOWN_PER_RULE]:
        start, end = record_window(d.offset, d.record_size, d.span, len(buf))
        shown.append({**d.to_json(), "hex": dump(buf, start, end, d.span) if start < end else ""})
    return {
        "code": rule_code,
        "name": rule.name if rule else rule_code,
        "severity": diags[0].severity.label if diags else (rule.severity.label if rule else "error"),
        "count": count,
        "first_offsets": [d.offset for d in diags[:OFFSETS_PER_RULE]],
        "shown": shown,
    }


def _rule_results(lint: FileReport, features: set[str] | None) -> list[dict]:
    first: dict[str, Diagnostic] = {}
    for d in lint.diagnostics:
        first.setdefault(d.code, d)
    out = []
    for rule in R.all_rules():
        n = lint.counts.get(rule.code, 0)
        if n:
            result = "failed"
        elif features is not None and exercised(rule.code, features):
            result = "passed"
        else:
            result = "not_exercised"
        d = first.get(rule.code)
        out.append({
            "code": rule.code, "name": rule.name, "severity": rule.severity.label, "result": result,
            "count": n, "first_offset": d.offset if d else None,
        })
    return out


def trace_report(buf, *, path: str = "<bytes>", input_format: str = "auto", writer: str | None = None) -> dict:
    """The report of one trace (or structured-log stream) held in ``buf``."""
    lint = lint_buffer(buf, input_format=input_format, path=path)
    log = lint.format == "log"
    cov = CoverageCollector(byte_order=lint.byte_order, fmt=lint.format)
    first = None
    for rec in iter_records(buf, lambda d: None, byte_order=lint.byte_order, log=log):
        if first is None:
            first = rec
        cov.feed(rec)
    sev = lint.severity_counts
    by_code: dict[str, list[Diagnostic]] = {}
    for d in lint.diagnostics:
        by_code.setdefault(d.code, []).append(d)
    note = _not_fxt(buf, lint.format, first)
    base = {
        "path": path,
        "writer": writer,
        "format": lint.format,
        "bytes": len(buf),
        "records": lint.records,
        "byte_order": lint.byte_order,
        "expect": None,
    }
    if note is not None:
        # one problem, not a cascade: nothing after the first header means anything
        said = next((d for d in lint.diagnostics if d.code == R.not_fxt_file.code), None)
        if said is not None:  # the linter's own verdict (MG005), with what the file looks like
            code, diag = said.code, said
        else:
            code = R.magic_missing.code
            head = min(len(buf), 8)
            diag = Diagnostic(offset=0, record_index=0, code=code, message=note,
                              severity=R.magic_missing.severity, span=(0, head), record_size=head)
        base.update(
            verdict={"status": "not_fxt", "conforming": False, "errors": 1, "warnings": 0, "infos": 0,
                     "capped": False, "note": note},
            rules=[{**r, "result": "failed", "count": 1, "first_offset": 0} if r["code"] == code else
                   {**r, "result": "not_exercised", "count": 0, "first_offset": None}
                   for r in _rule_results(lint, None)],
            coverage=None, statistics=None,
            problems=[_problem(code, 1, [diag], buf)],
        )
        return base
    base.update(
        verdict={
            "status": "not_conforming" if lint.has_errors else "conforming",
            "conforming": not lint.has_errors,
            "errors": sev.get("error", 0),
            "warnings": sev.get("warning", 0),
            "infos": sev.get("info", 0),
            "capped": lint.capped,
            "note": None,
        },
        rules=_rule_results(lint, cov.features()),
        coverage=cov.coverage(),
        statistics=cov.statistics(),
        problems=[_problem(code, n, by_code.get(code, []), buf) for code, n in sorted(lint.counts.items())],
    )
    return base


def _column_result(results: list[str]) -> str:
    if "failed" in results:
        return "failed"
    if "passed" in results:
        return "passed"
    return "not_exercised"


def _matrix(traces: list[dict]) -> dict:
    """One column per writer (a directory given on the command line; else each trace)."""
    columns: dict[str, list[dict]] = {}
    for t in traces:
        columns.setdefault(t["writer"] or t["path"], []).append(t)
    names = list(columns)
    rules = []
    for rule in R.all_rules():
        rules.append({
            "code": rule.code, "name": rule.name,
            "results": [_column_result([r["result"] for t in columns[n] for r in t["rules"]
                                        if r["code"] == rule.code]) for n in names],
        })
    kinds = []
    used: dict[str, Counter] = {n: Counter() for n in names}
    for n in names:
        for t in columns[n]:
            for row in (t["coverage"] or {}).get("record_kinds", []):
                used[n][row["kind"]] += row["records"]
    from ._tables import tables

    for leaf in tables().record_leaves():
        kinds.append({"kind": leaf.name, "records": [used[n].get(leaf.name, 0) for n in names]})
    conforming = [all(t["verdict"]["conforming"] for t in columns[n]) for n in names]
    return {"writers": names, "conforming": conforming, "rules": rules, "record_kinds": kinds}


def combined_report(traces: list[dict], *, failures=()) -> dict:
    """The document for one or more traces; ``failures`` are (path, message) pairs."""
    totals = Counter()
    for t in traces:
        for k in ("errors", "warnings", "infos"):
            totals[k] += t["verdict"][k]
    expect_ok = all(t["expect"] is None or t["expect"]["matches"] for t in traces)
    ok = bool(traces) and all(t["verdict"]["conforming"] for t in traces) and not failures and expect_ok
    return {
        "schema": SCHEMA_ID,
        "tool": {"name": "fxtlint", "version": tool_version()},
        "spec": {"revision": SPEC_REVISION, "tables_sha256": spec_digest()},
        "verdict": {
            "conforming": ok,
            "traces": len(traces),
            "conforming_traces": sum(1 for t in traces if t["verdict"]["conforming"]),
            "unreadable": len(failures),
            "errors": totals["errors"],
            "warnings": totals["warnings"],
            "infos": totals["infos"],
        },
        "traces": traces,
        "failures": [{"path": p, "message": m} for p, m in failures],
        "matrix": _matrix(traces) if len(traces) > 1 else None,
    }
