"""A writer's conformance report: verdict, per-rule results, spec coverage, statistics
and problems folded per rule, as one JSON-ready dict (``docs/report.schema.json``).

Sans-IO: takes a buffer; the renderers (``_report_markdown``, ``_report_html``) and
the CLI take the dict. One walk over the buffer (``_walk``): the lint's, the one
``check`` runs, with the coverage (``CoverageCollector``) beside the linter: on the
native walk where it is built (its coverage mode counts the records it walks clean, and
the coverage counts the others as decoded records), on the reference path otherwise
(every record decoded and counted). Every diagnostic, the verdict and the rule results
are the lint's, so a report and ``check`` never disagree. The walk streams, so memory
follows the tables.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from importlib import resources
from pathlib import Path

from .. import rules as R
from ..engine._hexview import dump, record_window
from ..engine._lint import lint_walk
from ..engine._result import FileReport
from ..rules._diagnostics import Diagnostic
from ..rules._rule_scope import exercised, features_of
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._version import tool_version
from ._coverage import CoverageCollector

SCHEMA_ID = "fxtlint-report/1"
SPEC_REVISION = "Fuchsia Trace Format, current revision (with the v1 text where they agree)"
SHOWN_PER_RULE = 3  # problems shown with a hex view per rule
OFFSETS_PER_RULE = 10  # first offsets listed per rule
RESULTS = ("failed", "passed", "not_checked", "not_exercised")
# rules that look at the file as a whole (its length, its start, its format): checked
# even when reading stopped early; every other rule looks at records
FILE_FEATURES = frozenset({"file", "format:trace", "format:log"})
# framing errors that end the walk: the records after them are never read
STOPS_READING = ("FR001", "FR002")


def spec_digest() -> str:
    """A short digest of the spec tables the report was checked against."""
    h = hashlib.sha256()
    d = Path(str(resources.files("fxtlint") / "spec_tables"))
    if not d.is_dir():  # a source checkout: the repository's top-level folder
        d = Path(__file__).resolve().parents[2] / "spec-tables"
    for p in sorted(d.glob("*.toml")):
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


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


def _stopped(lint: FileReport) -> dict | None:
    """Where reading stopped for good (a header it could not frame), if it did: the
    records from there on were never read, so no rule that looks at records passed."""
    d = next((d for d in lint.diagnostics if d.code in STOPS_READING), None)
    return None if d is None else {"record_index": d.record_index, "offset": d.offset}


def _file_level(code: str) -> bool:
    return set(features_of(code)) <= FILE_FEATURES


def _other_format(code: str, fmt: str) -> bool:
    """A rule of the other format (``records:log`` on a trace): never exercised here."""
    other = ":log" if fmt == "trace" else ":trace"
    feats = features_of(code)
    return bool(feats) and all(f.endswith(other) for f in feats)


def _rule_results(lint: FileReport, features: set[str] | None, stopped: dict | None = None) -> list[dict]:
    """Each rule's result: failed; passed (it looked at something and never tripped);
    not checked (reading stopped early, and what it looks at may be in the part never
    read); not exercised (the trace holds nothing it looks at)."""
    first: dict[str, Diagnostic] = {}
    for diag in lint.diagnostics:
        first.setdefault(diag.code, diag)
    out = []
    for rule in R.all_rules():
        n = lint.counts.get(rule.code, 0)
        if n:
            result = "failed"
        elif features is not None and stopped is not None and not _file_level(rule.code) \
                and not _other_format(rule.code, lint.format):
            result = "not_checked"  # the records it looks at may be in what was never read
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


def trace_report(buf, *, path: str = "<bytes>", input_format: str = "auto", writer: str | None = None,
                 engine: str | None = None, limits: Limits = DEFAULT_LIMITS) -> dict:
    """The report of one trace (or structured-log stream) held in ``buf`` (or ``open_buffer``'s
    ``FileSource``, read once): the lint's walk with the coverage beside the linter, every
    diagnostic the lint's (``engine`` and ``limits`` as in ``lint_buffer``)."""
    cov = CoverageCollector()
    lint, walk = lint_walk(buf, consumers=[cov], input_format=input_format, path=path, engine=engine,
                           limits=limits)
    sev = lint.severity_counts
    by_code: dict[str, list[Diagnostic]] = {}
    for d in lint.diagnostics:
        by_code.setdefault(d.code, []).append(d)
    stopped = _stopped(lint)
    verdict = {
        "status": "not_conforming" if lint.has_errors else "conforming",
        "conforming": not lint.has_errors,
        "errors": sev.get("error", 0),
        "warnings": sev.get("warning", 0),
        "infos": sev.get("info", 0),
        "capped": lint.capped,
        "note": None,
        "stopped": stopped,
    }
    fxt = not walk.not_fxt
    if not fxt:  # the lint said it once (MG005) and read nothing: one problem, not a cascade
        verdict.update(status="not_fxt", note=by_code[R.not_fxt_file.code][0].message)
    return {
        "path": path,
        "writer": writer,
        "format": lint.format,
        "bytes": len(buf),
        "records": lint.records,
        "byte_order": lint.byte_order,
        "expect": None,
        "verdict": verdict,
        "rules": _rule_results(lint, cov.features() if fxt else None, stopped),
        "coverage": cov.coverage() if fxt else None,
        "statistics": cov.statistics() if fxt else None,
        "problems": _problems(lint, by_code, buf),
    }


def _problems(lint: FileReport, by_code: dict[str, list[Diagnostic]], buf) -> list[dict]:
    """The problems folded per rule, in the order of their first offset in the file
    (the cause before the symptoms it leads to); a rule with none listed, last."""
    problems = [_problem(code, n, by_code.get(code, []), buf) for code, n in lint.counts.items()]
    return sorted(problems, key=lambda p: (not p["first_offsets"], p["first_offsets"][:1], p["code"]))


def _column_result(results: list[str]) -> str:
    for result in RESULTS:
        if result in results:
            return result
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
    from ..spec._tables import tables

    for leaf in tables().record_leaves():
        kinds.append({"kind": leaf.name, "records": [used[n].get(leaf.name, 0) for n in names]})
    conforming = [all(t["verdict"]["conforming"] for t in columns[n]) for n in names]
    return {"writers": names, "conforming": conforming, "rules": rules, "record_kinds": kinds}


def combined_report(traces: list[dict], *, failures=()) -> dict:
    """The document for one or more traces; ``failures`` are (path, message) pairs."""
    totals: Counter[str] = Counter()
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
