"""The conformance report as Markdown: fits a pull-request comment or a CI step summary.

Takes the report document (``_conformance_report.combined_report``), knows nothing
of records. It leads with what failed: the verdict, the files that need attention,
then each trace (most urgent first) with its problems, the first one open; rules,
coverage, statistics and the compatibility matrix follow in ``<details>`` blocks,
which GitHub renders collapsed. Words come from ``_report_words``, as the HTML's do.

Every string a trace (or a file name, or EVENTS.json) supplies goes through ``_text`` (prose:
Markdown punctuation backslash-escaped, ``&``, ``<`` and ``>`` as entities) or ``_code`` (a
code span whose fence is longer than any run of backticks inside), both with unprintable
characters (newlines, NUL, right-to-left marks) made visible; in a table, ``|`` is escaped
too. So a string such as ``x`</details><script>`` reads as itself and can neither close a
section, open a tag, end a table cell nor forge the report's own lines.
"""

from __future__ import annotations

import json
import re

from ..rules._diagnostics import visible
from ..writer_report._expect import fields_text
from . import _report_words as W

CELL = {"failed": "❌", "warning": "⚠️", "note": "ℹ️", "passed": "✅", "not_checked": "?", "not_exercised": "·"}
MARK = {"bad": "❌", "warn": "⚠️", "ok": "✅"}


_PUNCT = re.compile(r"[\\`*_\[\]~|$]")  # what can start inline Markdown (``$``: GitHub's math)
_TICKS = re.compile(r"`+")


def _text(text) -> str:
    """Trace-supplied text as Markdown prose that renders as the text itself, in a table cell too:
    unprintables made visible, Markdown punctuation backslash-escaped, HTML's as entities."""
    out = _PUNCT.sub(lambda m: "\\" + m.group(), visible(str(text)))
    return out.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _code(text, *, cell: bool = False) -> str:
    """Trace-supplied text as a code span: its fence longer than any run of backticks inside,
    padded with a space (which CommonMark strips) when it starts or ends with a backtick or a
    space; unprintables made visible; ``|`` escaped in a table ``cell`` (GFM splits cells first)."""
    inner = visible(str(text))
    if cell:
        inner = inner.replace("|", "\\|")
    if not inner.strip(" "):
        return f"`{inner or ' '}`"  # spaces only: shown as they are, nothing to strip
    fence = "`" * (max((len(m) for m in _TICKS.findall(inner)), default=0) + 1)
    pad = " " if inner[0] in "` " or inner[-1] in "` " else ""
    return f"{fence}{pad}{inner}{pad}{fence}"


def _fenced(block: str) -> list[str]:
    """A code block whose fence is longer than any run of backticks in it."""
    fence = "`" * max(3, max((len(m) for m in _TICKS.findall(block)), default=0) + 1)
    return [fence, block, fence]


def _table(head: list[str], rows: list[list], align: str = "") -> list[str]:
    """Cells are Markdown already (``_text``, ``_code(cell=True)``, numbers, the registry's words)."""
    out = ["| " + " | ".join(head) + " |",
           "| " + " | ".join(("---:" if c == "r" else "---") for c in (align or "l" * len(head))) + " |"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return out


def _standing(t: dict) -> str:
    st = W.standing(t)
    return f"{MARK[W.STANDING_CLASS[st]]} {W.STANDING_LABEL[st]}"


def _verdict_line(doc: dict) -> str:
    v = doc["verdict"]
    standing = W.overall(doc)
    word = f"{MARK[W.STANDING_CLASS[standing]]} {W.STANDING_LABEL[standing]}"
    line = (f"**Verdict: {word}**: {v['conforming_traces']} of {W.plural(v['traces'], 'trace')} conforming; "
            f"{W.counts_line(v)}")
    if v["unreadable"]:
        line += f"; {v['unreadable']} could not be read"
    return line


def _order(traces: list[dict]) -> list[dict]:
    return [t for _, t in sorted(enumerate(traces), key=lambda it: (W.STANDINGS.index(W.standing(it[1])), it[0]))]


def _file_row(t: dict) -> list:
    v = t["verdict"]
    first = W.first_problem(t)
    return [_code(t["path"], cell=True), _standing(t), v["errors"], v["warnings"],
            f"{first[0]}: {_text(first[1])}" if first else ""]


def _files(traces: list[dict]) -> list[str]:
    """The files that need attention, then the others folded away."""
    head, align = ["file", "verdict", "errors", "warnings", "first problem"], "llrrl"
    ordered = _order(traces)
    urgent = [_file_row(t) for t in ordered if W.needs_attention(t)]
    calm = [_file_row(t) for t in ordered if not W.needs_attention(t)]
    out = ["## Files", ""]
    out += _table(head, urgent, align) if urgent else ["No file has an error or a warning."]
    out.append("")
    if calm:
        out += [f"<details><summary>{W.plural(len(calm), 'file')} conforming without warnings</summary>", ""]
        out += _table(head, calm, align) + ["", "</details>", ""]
    return out


def _matrix(m: dict, severity: dict[str, str]) -> list[str]:
    head = ["rule"] + [_code(w, cell=True) for w in m["writers"]]
    rows = [["**verdict**"] + ["✅" if ok else "❌" for ok in m["conforming"]]]
    rows += [[f"{r['code']} {r['name']}"]
             + [CELL[W.shown_result({"result": x, "severity": severity.get(r["code"], "error")})] for x in r["results"]]
             for r in m["rules"]]
    out = ["## Compatibility matrix", "",
           "✅ passed · ❌ failed · ⚠️ warning · ℹ️ note · ? not checked · `·` not exercised", "",
           "<details><summary>Rules per writer</summary>", ""]
    out += _table(head, rows)
    out += ["", "</details>", "", "<details><summary>Record kinds per writer</summary>", ""]
    out += _table(["record kind"] + [_code(w, cell=True) for w in m["writers"]],
                  [[k["kind"]] + [str(n) if n else "·" for n in k["records"]] for k in m["record_kinds"]])
    out += ["", "</details>", ""]
    return out


def _coverage(c: dict) -> list[str]:
    out = ["<details><summary>Coverage of the spec</summary>", ""]

    def used_unused(title, rows, key="kind"):
        if not rows:
            return []  # nothing of the kind in this format (a structured-log stream)
        used = [f"{r[key]} ({r.get('records', r.get('count'))})" for r in rows if r["used"]]
        unused = [str(r[key]) for r in rows if not r["used"]]
        return [f"- **{title}**: {len(used)} of {len(rows)} used: {', '.join(used) or 'none'}",
                f"  - never used: {', '.join(unused) or 'none'}"]

    out += used_unused("Record types", c["record_types"], "name")
    out += used_unused("Event types", c["event_types"])
    out += used_unused("Metadata kinds", c["metadata_kinds"])
    out += used_unused("Argument types", c["argument_types"])
    out += used_unused("Blob types", c["blob_types"], "name")
    out += used_unused("Large blob formats", c["large_blob_formats"])
    if "log_severities" in c:
        out += used_unused("Severities", c["log_severities"], "name")
    objs = [f"{r['name']} ({r['records']})" for r in c["object_types"] if r["used"]]
    if c["object_types"]:
        out.append(f"- **Kernel object types**: {', '.join(objs) or 'none'} "
                   f"({sum(1 for r in c['object_types'] if not r['used'])} never used); "
                   f"userspace objects: {c['userspace_objects']}")
    s, t = c["string_refs"], c["thread_refs"]
    out.append(f"- **String refs**: {s['indexed']} indexed, {s['inline']} inline, {s['empty']} empty; "
               f"**thread refs**: {t['indexed']} indexed, {t['inline']} inline")
    out.append(f"- **Providers**: {_text(W.providers_text(c['providers']))}; **large records**: {c['large_records']}; "
               f"**byte order**: {c['byte_order']}; undefined records: {c['undefined_records']}")
    out += ["", "</details>", ""]
    return out


def _statistics(s: dict) -> list[str]:
    out = ["<details><summary>Statistics</summary>", ""]
    out.append(f"- {W.plural(s['records'], 'record')}, {W.plural(s['bytes'], 'byte')}; "
               f"{W.table_text('string table', s['string_table'])}, {W.table_text('thread table', s['thread_table'])}; "
               f"time span {W.span_text(s['time'])}")
    ev = s["events"]
    out.append("- events: " + "; ".join(
        f"{g} " + ", ".join(f"{k} {n}" for k, n in kinds.items()) for g, kinds in ev.items()))
    out.append("")
    out += _table(["record kind", "records", "bytes"],
                  [[r["kind"], r["records"], r["bytes"]] for r in s["by_kind"]], "lrr")
    out += ["", "Largest records: " + ", ".join(
        f"{r['kind']} {W.plural(r['bytes'], 'byte')} at {r['offset']:#x}" for r in s["largest_records"]), "",
        "</details>", ""]
    return out


def _problems(problems: list[dict]) -> list[str]:
    if not problems:
        return []
    out = ["### Problems", ""]
    for n, p in enumerate(problems):
        offs = ", ".join(f"{o:#x}" for o in p["first_offsets"])
        opened = " open" if n == 0 else ""
        out.append(f"<details{opened}><summary><b>{p['code']}</b> {p['name']} ({p['severity']}): "
                   f"{W.plural(p['count'], 'time')}, first at {offs}</summary>")
        out.append("")
        for d in p["shown"]:
            rec = f" (record {d['record_index']})" if d["record_index"] >= 0 else ""
            out.append(f"- at `{d['offset']:#x}`{rec}: {_text(d['message'])}")
            if d.get("hex"):
                out += [""] + _fenced(d["hex"]) + [""]
        if p["count"] > len(p["shown"]):
            out.append(f"- … {p['count'] - len(p['shown'])} more")
        out += ["", "</details>", ""]
    return out


def _expect(e: dict | None) -> list[str]:
    if e is None:
        return []
    word = "✅ as expected" if e["matches"] else "❌ differs from EVENTS.json"
    out = ["### Expected events", "", f"**{word}** ({W.expect_summary(e)})", ""]
    for ev in e["missing"]:
        out.append(f"- missing: {_code(_short(ev))}")
    for ev in e["extra"]:
        out.append(f"- extra: {_code(_short(ev))}")
    for d in e["differing"]:
        out.append(f"- differs: {_code(_short(d['expected']))}: {_text(fields_text(d['fields']))}")
    out.append("")
    return out


def _short(ev: dict) -> str:
    keys = ("ph", "name", "ts", "pid", "tid", "id")
    return " ".join(f"{k}={ev[k] if isinstance(ev[k], str) else json.dumps(ev[k])}" for k in keys if k in ev)


def _rules(rows: list[dict]) -> list[str]:
    tripped = [r for r in rows if r["result"] == "failed"]
    out = ["### Rules", "", W.rules_summary(rows), ""]
    if tripped:
        out += _table(["rule", "result", "count", "first offset"],
                      [[f"{r['code']} {r['name']}", f"{CELL[W.shown_result(r)]} {W.SHOWN_LABEL[W.shown_result(r)]}",
                        r["count"], f"{r['first_offset']:#x}"] for r in tripped], "llrr")
        out.append("")
    for result, title in (("passed", "passed"), ("not_checked", "not checked"), ("not_exercised", "not exercised")):
        group = [r["code"] for r in rows if r["result"] == result]
        if result != "not_checked" or group:
            out.append(f"- {title}: " + (", ".join(group) or "none"))
    out.append("")
    return out


def trace_section(t: dict) -> list[str]:
    v = t["verdict"]
    out = [f"## {_code(t['path'])}: {_standing(t)}", ""]
    if v["status"] == "not_fxt":
        return out + [f"{_text(v['note'])}.", ""] + _problems(t["problems"])
    out.append(f"{t['format']}, {W.plural(t['bytes'], 'byte')}, {W.plural(t['records'], 'record')}, "
               f"{t['byte_order']}-endian; {W.counts_line(v)}"
               + (" (messages capped; counts exact)" if v["capped"] else ""))
    out.append("")
    if W.stopped_text(t):
        out += [f"**{W.stopped_text(t)}.**", ""]
    out += _problems(t["problems"]) + _expect(t["expect"]) + _rules(t["rules"])
    out += _coverage(t["coverage"]) + _statistics(t["statistics"])
    return out


def render(doc: dict) -> str:
    out = ["# fxtlint conformance report", "", _verdict_line(doc), "",
           f"Checked against the {doc['spec']['revision']} (spec tables {doc['spec']['tables_sha256']}) "
           f"by {doc['tool']['name']} {doc['tool']['version']}.", ""]
    for f in doc["failures"]:
        out.append(f"- ❌ {_code(f['path'])}: {_text(f['message'])}")
    if doc["failures"]:
        out.append("")
    if len(doc["traces"]) > 1:
        out += _files(doc["traces"])
    for t in _order(doc["traces"]):
        out += trace_section(t)
    if doc["matrix"]:
        out += _matrix(doc["matrix"], {r["code"]: r["severity"] for t in doc["traces"] for r in t["rules"]})
    return "\n".join(out).rstrip() + "\n"
