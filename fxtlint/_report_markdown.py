"""The conformance report as Markdown: fits a pull-request comment or a CI step summary.

Takes the report document (``_conformance_report.combined_report``), knows nothing
of records. Problems fold into ``<details>`` blocks, which GitHub renders collapsed.
"""

from __future__ import annotations

from ._expect import fields_text

MARK = {"failed": "❌ failed", "passed": "✅ passed", "not_exercised": "· not exercised"}
CELL = {"failed": "❌", "passed": "✅", "not_exercised": "·"}
STATUS = {"conforming": "✅ conforming", "not_conforming": "❌ not conforming", "not_fxt": "❌ not an FXT file"}


def _esc(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _table(head: list[str], rows: list[list], align: str = "") -> list[str]:
    out = ["| " + " | ".join(head) + " |",
           "| " + " | ".join(("---:" if c == "r" else "---") for c in (align or "l" * len(head))) + " |"]
    out += ["| " + " | ".join(_esc(c) for c in row) + " |" for row in rows]
    return out


def _verdict_line(doc: dict) -> str:
    v = doc["verdict"]
    word = "✅ conforming" if v["conforming"] else "❌ not conforming"
    line = (f"**Verdict: {word}**: {v['conforming_traces']} of {_plural(v['traces'], 'trace')} conforming; "
            f"{_plural(v['errors'], 'error')}, {_plural(v['warnings'], 'warning')}, {_plural(v['infos'], 'info')}")
    if v["unreadable"]:
        line += f"; {v['unreadable']} could not be read"
    return line


def _matrix(m: dict) -> list[str]:
    head = ["rule"] + [f"`{_esc(w)}`" for w in m["writers"]]
    rows = [["**verdict**"] + ["✅" if ok else "❌" for ok in m["conforming"]]]
    rows += [[f"{r['code']} {r['name']}"] + [CELL[x] for x in r["results"]] for r in m["rules"]]
    out = ["## Compatibility matrix", "", "✅ passed · ❌ failed · `·` not exercised", ""]
    out += _table(head, rows)
    out += ["", "<details><summary>Record kinds per writer</summary>", ""]
    out += _table(["record kind"] + [f"`{_esc(w)}`" for w in m["writers"]],
                  [[k["kind"]] + [str(n) if n else "·" for n in k["records"]] for k in m["record_kinds"]])
    out += ["", "</details>", ""]
    return out


def _coverage(c: dict) -> list[str]:
    out = ["### Coverage of the spec", ""]

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
    provs = ", ".join(f"{p['id']} {p['name'] or ''}".strip() for p in c["providers"]) or "none"
    out.append(f"- **Providers**: {provs}; **large records**: {c['large_records']}; "
               f"**byte order**: {c['byte_order']}; undefined records: {c['undefined_records']}")
    out.append("")
    return out


def _statistics(s: dict) -> list[str]:
    t = s["time"]
    out = ["### Statistics", ""]
    span = "no timestamps" if t["span_ticks"] is None else (
        f"{t['span_ticks']} ticks ({t['first_ticks']} to {t['last_ticks']})"
        + (f" = {t['span_seconds']:.9g} s" if t["span_seconds"] is not None else "")
        + f" at {', '.join(str(r) for r in t['ticks_per_second'])} ticks/s")
    out.append(f"- {_plural(s['records'], 'record')}, {_plural(s['bytes'], 'byte')}; "
               f"string table {s['string_table']['registered']} entries, "
               f"thread table {s['thread_table']['registered']} entries; time span {span}")
    ev = s["events"]
    out.append("- events: " + "; ".join(
        f"{g} " + ", ".join(f"{k} {n}" for k, n in kinds.items()) for g, kinds in ev.items()))
    out.append("")
    out += _table(["record kind", "records", "bytes"],
                  [[r["kind"], r["records"], r["bytes"]] for r in s["by_kind"]], "lrr")
    out += ["", "Largest records: " + ", ".join(
        f"{r['kind']} {r['bytes']} B at {r['offset']:#x}" for r in s["largest_records"]), ""]
    return out


def _problems(problems: list[dict]) -> list[str]:
    if not problems:
        return []
    out = ["### Problems", ""]
    for p in problems:
        offs = ", ".join(f"{o:#x}" for o in p["first_offsets"])
        out.append(f"<details><summary><b>{p['code']}</b> {p['name']} ({p['severity']}): "
                   f"{_plural(p['count'], 'time')}, first at {offs}</summary>")
        out.append("")
        for d in p["shown"]:
            rec = f" (record {d['record_index']})" if d["record_index"] >= 0 else ""
            out.append(f"- at `{d['offset']:#x}`{rec}: {d['message']}")
            if d.get("hex"):
                out += ["", "```", d["hex"], "```", ""]
        if p["count"] > len(p["shown"]):
            out.append(f"- … {p['count'] - len(p['shown'])} more")
        out += ["", "</details>", ""]
    return out


def _expect(e: dict | None) -> list[str]:
    if e is None:
        return []
    word = "✅ as expected" if e["matches"] else "❌ differs from EVENTS.json"
    out = ["### Expected events", "",
           f"**{word}** ({expect_summary(e)})", ""]
    for ev in e["missing"]:
        out.append(f"- missing: `{_esc(_short(ev))}`")
    for ev in e["extra"]:
        out.append(f"- extra: `{_esc(_short(ev))}`")
    for d in e["differing"]:
        out.append(f"- differs: `{_esc(_short(d['expected']))}`: {_esc(fields_text(d['fields']))}")
    out.append("")
    return out


def expect_summary(e: dict) -> str:
    """'subset match, ts in us: 2 expected, 40 written; 1 missing, 0 differing'."""
    extra = f"{e['extra_count']} extra, " if e["mode"] == "exact" else ""
    return (f"{e['mode']} match, ts in {e['ts_unit']}: {e['expected_events']} expected, {e['actual_events']} "
            f"written; {e['missing_count']} missing, {extra}{e['differing_count']} differing")


def _short(ev: dict) -> str:
    keys = ("ph", "name", "ts", "pid", "tid", "id")
    return " ".join(f"{k}={ev[k]}" for k in keys if k in ev)


def trace_section(t: dict) -> list[str]:
    v = t["verdict"]
    out = [f"## `{_esc(t['path'])}`: {STATUS[v['status']]}", ""]
    if v["status"] == "not_fxt":
        return out + [f"{v['note']}.", ""] + _problems(t["problems"])
    out.append(f"{t['format']}, {_plural(t['bytes'], 'byte')}, {_plural(t['records'], 'record')}, "
               f"{t['byte_order']}-endian; {_plural(v['errors'], 'error')}, {_plural(v['warnings'], 'warning')}, "
               f"{_plural(v['infos'], 'info')}" + (" (messages capped; counts exact)" if v["capped"] else ""))
    out.append("")
    by = {"failed": [], "passed": [], "not_exercised": []}
    for r in t["rules"]:
        by[r["result"]].append(r)
    out += ["### Rules", "",
            f"{len(by['failed'])} failed, {len(by['passed'])} passed, {len(by['not_exercised'])} not exercised", ""]
    if by["failed"]:
        out += _table(["rule", "severity", "count", "first offset"],
                      [[f"{r['code']} {r['name']}", r["severity"], r["count"], f"{r['first_offset']:#x}"]
                       for r in by["failed"]], "llrr")
        out.append("")
    out.append("- passed: " + (", ".join(r["code"] for r in by["passed"]) or "none"))
    out.append("- not exercised: " + (", ".join(r["code"] for r in by["not_exercised"]) or "none"))
    out.append("")
    out += _coverage(t["coverage"]) + _statistics(t["statistics"]) + _problems(t["problems"]) + _expect(t["expect"])
    return out


def render(doc: dict) -> str:
    out = ["# fxtlint conformance report", "", _verdict_line(doc), "",
           f"Checked against the {doc['spec']['revision']} (spec tables {doc['spec']['tables_sha256']}) "
           f"by {doc['tool']['name']} {doc['tool']['version']}.", ""]
    for f in doc["failures"]:
        out.append(f"- ❌ `{_esc(f['path'])}`: {_esc(f['message'])}")
    if doc["failures"]:
        out.append("")
    if doc["matrix"]:
        out += _matrix(doc["matrix"])
    for t in doc["traces"]:
        out += trace_section(t)
    return "\n".join(out).rstrip() + "\n"
