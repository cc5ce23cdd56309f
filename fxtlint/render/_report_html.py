"""The conformance report as one self-contained HTML page: no network, no external
script, style or font; readable offline and with scripts off.

The page leads with what failed, as glTF-Validator's report does: the verdict and its
counts, a table of the files that need attention (verdict, errors, warnings, first
problem; the clean ones folded away), then each trace, most urgent first, opening with
its problems (message and hex view). Rules that passed or were not exercised, the
spec coverage, the statistics and the compatibility matrix come after, folded. A rule
that tripped with warnings only is shown as a warning. The page is complete without
JavaScript; the inline script adds sortable tables (click a header) and the per-trace
counts it computes from the tables themselves ("12 of 27 record kinds used"), which
the Chromium test reads back from the rendered page.
"""

from __future__ import annotations

import html
import json

from ..rules._diagnostics import visible
from ..writer_report._expect import fields_text
from . import _report_words as W

RESULT_RANK = {r: i for i, r in enumerate(W.SHOWN)}  # the rules table opens failed first

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 72em;
       padding: 0 1em; color: #1b1f23; }
h1 { margin-bottom: .2em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; } h3 { margin-top: 1.4em; }
h2 code { font-size: .85em; }
code, pre { font: 12px/1.35 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
pre { background: #f6f8fa; padding: .6em; overflow-x: auto; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #d0d7de; padding: .2em .6em; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } table.sortable th { cursor: pointer; user-select: none; }
th[aria-sort=ascending]::after { content: " \\25B2"; } th[aria-sort=descending]::after { content: " \\25BC"; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.verdict { font-size: 1.25em; font-weight: 600; padding: .4em .8em; display: inline-block; border-radius: 4px; }
.ok { background: #dafbe1; color: #116329; } .bad { background: #ffebe9; color: #a40e26; }
.warn { background: #fff8c5; color: #7d4e00; }
.failed, .error { color: #a40e26; font-weight: 600; } .warning { color: #9a6700; font-weight: 600; }
.note, .info { color: #0969da; } .passed { color: #116329; } .not_exercised, .not_checked { color: #6e7781; }
tr.unused td { color: #6e7781; }
table.matrix td + td { white-space: nowrap; }
details { margin: .4em 0; } summary { cursor: pointer; }
.muted { color: #6e7781; }
"""

# Sorting keeps numbers numeric (data-value), and text as text.
SCRIPT = """
(function () {
  function key(td) { var v = td.getAttribute('data-value'); return v === null ? td.textContent : v; }
  function sortBy(table, col, dir) {
    var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
    var numeric = rows.every(function (r) { return r.cells[col] && !isNaN(parseFloat(key(r.cells[col]))); });
    rows.sort(function (a, b) {
      var x = key(a.cells[col]), y = key(b.cells[col]);
      var c = numeric ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
      return dir * c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (i === col) th.setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');
      else th.removeAttribute('aria-sort');
    });
  }
  document.querySelectorAll('table.sortable').forEach(function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      th.addEventListener('click', function () {
        sortBy(table, i, th.getAttribute('aria-sort') === 'descending' ? 1 : -1);
      });
    });
    var init = table.getAttribute('data-sort');
    if (init) sortBy(table, parseInt(init, 10), table.getAttribute('data-sort-dir') === 'asc' ? 1 : -1);
  });
  document.querySelectorAll('section.trace').forEach(function (sec) {
    var kinds = sec.querySelectorAll('table.coverage tbody tr');
    var used = sec.querySelectorAll('table.coverage tbody tr.used');
    var out = sec.querySelector('.coverage-summary');
    if (out) out.textContent = used.length + ' of ' + kinds.length + ' record kinds used';
    var rules = sec.querySelectorAll('table.rules tbody tr');
    var counts = { failed: 0, warning: 0, note: 0, passed: 0, not_checked: 0, not_exercised: 0 };
    rules.forEach(function (r) { counts[r.getAttribute('data-result')] += 1; });
    var parts = [];
    if (counts.failed) parts.push(counts.failed + ' failed');
    if (counts.warning) parts.push(counts.warning + (counts.warning === 1 ? ' warning' : ' warnings'));
    if (counts.note) parts.push(counts.note + (counts.note === 1 ? ' note' : ' notes'));
    parts.push(counts.passed + ' passed');
    if (counts.not_checked) parts.push(counts.not_checked + ' not checked');
    parts.push(counts.not_exercised + ' not exercised');
    var rs = sec.querySelector('.rules-summary');
    if (rs) rs.textContent = parts.join(', ') + ' of ' + rules.length + (rules.length === 1 ? ' rule' : ' rules');
  });
  document.body.setAttribute('data-rendered', 'yes');
})();
"""


def _e(x) -> str:
    """Any text on the page, escaped, its unprintable characters (newlines, NUL, right-to-left
    marks a trace's strings may hold) made visible, so the text reads in the order it is stored."""
    return html.escape(visible(str(x)), quote=True)


def _pre(block: str) -> str:
    """A block of lines (a hex view): each line as ``_e`` escapes it."""
    return "\n".join(_e(line) for line in block.split("\n"))


def _num(n) -> str:
    return f'<td class="num" data-value="{_e(n)}">{_e(n)}</td>'


def _table(cls: str, head: list[str], rows: list[str], sort: tuple[int, str] | None = None) -> str:
    attrs = f' class="sortable {cls}"'
    if sort:
        attrs += f' data-sort="{sort[0]}" data-sort-dir="{sort[1]}"'
    ths = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table{attrs}><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _json(ev: dict) -> str:
    return json.dumps(ev, ensure_ascii=False)


def _order(traces: list[dict]) -> list[tuple[int, dict]]:
    """(index, trace), most urgent first; the index keeps each section's anchor stable."""
    return sorted(enumerate(traces), key=lambda it: (W.STANDINGS.index(W.standing(it[1])), it[0]))


# ---------------------------------------------------------------- what failed, first


def _first_problem(t: dict) -> str:
    first = W.first_problem(t)
    return f"<code>{_e(first[0])}</code> {_e(first[1])}" if first else ""


def _file_row(i: int, t: dict) -> str:
    v, st = t["verdict"], W.standing(t)
    return (f'<tr><td><a href="#trace-{i}"><code>{_e(t["path"])}</code></a></td>'
            f'<td class="{W.STANDING_CLASS[st]}" data-value="{W.STANDINGS.index(st)}">{_e(W.STANDING_LABEL[st])}</td>'
            f"{_num(v['errors'])}{_num(v['warnings'])}{_num(v['infos'])}<td>{_first_problem(t)}</td></tr>")


def _files(traces: list[dict]) -> str:
    """The files that need attention, then the others folded away."""
    head = ["file", "verdict", "errors", "warnings", "infos", "first problem"]
    ordered = _order(traces)
    urgent = [_file_row(i, t) for i, t in ordered if W.needs_attention(t)]
    calm = [_file_row(i, t) for i, t in ordered if not W.needs_attention(t)]
    out = ['<section id="files"><h2>Files</h2>']
    if urgent:
        out.append(_table("files", head, urgent))
    else:
        out.append("<p>No file has an error or a warning.</p>")
    if calm:
        out.append(f"<details><summary>{W.plural(len(calm), 'file')} conforming without warnings</summary>"
                   + _table("files", head, calm) + "</details>")
    return "".join(out) + "</section>"


def _problems(problems: list[dict]) -> str:
    if not problems:
        return ""
    out = ["<h3>Problems</h3>"]
    for n, p in enumerate(problems):
        offs = ", ".join(f"{o:#x}" for o in p["first_offsets"])
        items = []
        for d in p["shown"]:
            rec = f" (record {d['record_index']})" if d["record_index"] >= 0 else ""
            hexv = f"<pre>{_pre(d['hex'])}</pre>" if d.get("hex") else ""
            items.append(f'<li class="message">at <code>{d["offset"]:#x}</code>{rec}: {_e(d["message"])}{hexv}</li>')
        if p["count"] > len(p["shown"]):
            items.append(f"<li class=\"muted\">… {p['count'] - len(p['shown'])} more</li>")
        opened = " open" if n == 0 else ""  # the first problem shows its message and hex view at once
        out.append(f'<details class="problem"{opened}><summary><code class="{_e(p["severity"])}">{_e(p["code"])}'
                   f"</code> {_e(p['name'])} ({_e(p['severity'])}): {W.plural(p['count'], 'time')}, first at {offs}"
                   f"</summary><ul>{''.join(items)}</ul></details>")
    return "".join(out)


def _expect(e: dict | None) -> str:
    if e is None:
        return ""
    word = "as expected" if e["matches"] else "differs from EVENTS.json"
    items = [f"<li>missing: <code>{_e(_json(ev))}</code></li>" for ev in e["missing"]]
    items += [f"<li>extra: <code>{_e(_json(ev))}</code></li>" for ev in e["extra"]]
    for d in e["differing"]:
        items.append(f"<li>differs: <code>{_e(_json(d['expected']))}</code>: {_e(fields_text(d['fields']))}</li>")
    return (f'<h3>Expected events</h3><p class="{"passed" if e["matches"] else "failed"}">{word} '
            f"({_e(W.expect_summary(e))})</p><ul>{''.join(items)}</ul>")


# ---------------------------------------------------------------- rules, coverage, statistics: after


def _rule_row(r: dict) -> str:
    shown = W.shown_result(r)
    first = "" if r["first_offset"] is None else f"{r['first_offset']:#x}"
    return (f'<tr data-result="{shown}"><td><code>{_e(r["code"])}</code></td><td>{_e(r["name"])}</td>'
            f'<td>{_e(r["severity"])}</td><td class="{shown}" data-value="{RESULT_RANK[shown]}">'
            f'{W.SHOWN_LABEL[shown]}</td>{_num(r["count"])}<td>{first}</td></tr>')


def _rules(rows: list[dict]) -> str:
    head = ["code", "name", "severity", "result", "count", "first offset"]
    tripped = [r for r in rows if r["result"] == "failed"]
    out = ['<h3>Rules</h3><p class="rules-summary muted"></p>']
    if tripped:
        out.append(_table("rules", head, [_rule_row(r) for r in tripped], (3, "asc")))
    for result, title in (("passed", "passed"), ("not_checked", "not checked"), ("not_exercised", "not exercised")):
        group = [r for r in rows if r["result"] == result]
        if group:
            out.append(f"<details><summary>{len(group)} {title}</summary>"
                       + _table("rules", head, [_rule_row(r) for r in group]) + "</details>")
    return "".join(out)


def _coverage(c: dict) -> str:
    rows = []
    for r in c["record_kinds"]:
        cls = "used" if r["used"] else "unused"
        rows.append(f'<tr class="{cls}"><td>{_e(r["kind"])}</td>{_num(r["records"])}'
                    f'<td>{"yes" if r["used"] else "no"}</td></tr>')
    args = [f'<tr class="{"used" if r["used"] else "unused"}"><td>{_e(r["kind"])}</td>{_num(r["count"])}</tr>'
            for r in c["argument_types"]]
    enums = []
    for title, key in (("blob type", "blob_types"), ("kernel object type", "object_types"),
                       ("log severity", "log_severities")):
        for r in c.get(key, ()):
            enums.append(f'<tr class="{"used" if r["used"] else "unused"}"><td>{title}</td>'
                         f'<td>{_e(r["name"])} ({_e(r["value"])})</td>{_num(r["records"])}</tr>')
    s, t = c["string_refs"], c["thread_refs"]
    return (
        '<details class="coverage"><summary>Coverage of the spec: <span class="coverage-summary"></span></summary>'
        + _table("coverage", ["record kind", "records", "used"], rows, (1, "desc"))
        + "<details open><summary>Argument types</summary>"
        + _table("args", ["argument type", "count"], args, (1, "desc")) + "</details>"
        + "<details><summary>Blob and object types</summary>"
        + _table("enums", ["enumeration", "value", "records"], enums, (2, "desc")) + "</details>"
        + f"<ul><li>string refs: {s['indexed']} indexed, {s['inline']} inline, {s['empty']} empty</li>"
        f"<li>thread refs: {t['indexed']} indexed, {t['inline']} inline</li>"
        f"<li>providers: {_e(W.providers_text(c['providers']))}</li>"
        f"<li>large records: {c['large_records']}; byte order: {_e(c['byte_order'])};"
        f" undefined records: {c['undefined_records']}; userspace objects: {c['userspace_objects']}</li></ul>"
        "</details>"
    )


def _statistics(s: dict) -> str:
    kinds = [f"<tr><td>{_e(r['kind'])}</td>{_num(r['records'])}{_num(r['bytes'])}</tr>" for r in s["by_kind"]]
    events = [f"<tr><td>{_e(g)}</td><td>{_e(k)}</td>{_num(n)}</tr>"
              for g, ks in s["events"].items() for k, n in ks.items()]
    largest = [f"<tr><td>{_e(r['kind'])}</td>{_num(r['bytes'])}<td>{r['offset']:#x}</td>{_num(r['record_index'])}</tr>"
               for r in s["largest_records"]]
    return (
        '<details class="statistics"><summary>Statistics</summary>'
        f"<p>{W.plural(s['records'], 'record')}, {W.plural(s['bytes'], 'byte')}; "
        f"{W.table_text('string table', s['string_table'])}; {W.table_text('thread table', s['thread_table'])}; "
        f"time span {_e(W.span_text(s['time']))}.</p>"
        + _table("kinds", ["record kind", "records", "bytes"], kinds, (2, "desc"))
        + "<details><summary>Events</summary>" + _table("events", ["group", "event", "count"], events) + "</details>"
        + "<details><summary>Largest records</summary>"
        + _table("largest", ["kind", "bytes", "offset", "record"], largest, (1, "desc")) + "</details>"
        + "</details>"
    )


def _matrix(m: dict, severity: dict[str, str]) -> str:
    head = "".join(f"<th>{_e(w)}</th>" for w in m["writers"])
    rows = ['<tr><td><b>verdict</b></td>' + "".join(
        f'<td class="{"passed" if ok else "failed"}">{"conforming" if ok else "not conforming"}</td>'
        for ok in m["conforming"]) + "</tr>"]
    for r in m["rules"]:
        shown = [W.shown_result({"result": x, "severity": severity.get(r["code"], "error")}) for x in r["results"]]
        cells = "".join(f'<td class="{x}">{W.SHOWN_LABEL[x]}</td>' for x in shown)
        rows.append(f"<tr><td><code>{_e(r['code'])}</code> {_e(r['name'])}</td>{cells}</tr>")
    kinds = "".join(
        f"<tr><td>{_e(k['kind'])}</td>" + "".join(_num(n) for n in k["records"]) + "</tr>"
        for k in m["record_kinds"])
    return (f'<details id="matrix"><summary><h2>Compatibility matrix</h2></summary>'
            f'<table class="matrix"><thead><tr><th>rule</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<details><summary>Record kinds per writer</summary>'
            f'<table class="sortable"><thead><tr><th>record kind</th>{head}</tr></thead><tbody>{kinds}</tbody></table>'
            f"</details></details>")


def _trace(i: int, t: dict) -> str:
    v, st = t["verdict"], W.standing(t)
    head = (f'<section class="trace" data-standing="{st}" id="trace-{i}"><h2><code>{_e(t["path"])}</code></h2>'
            f'<p><span class="verdict {W.STANDING_CLASS[st]}">{_e(W.STANDING_LABEL[st])}</span></p>')
    if v["status"] == "not_fxt":
        return head + f"<p>{_e(v['note'])}.</p>" + _problems(t["problems"]) + "</section>"
    return (
        head
        + f"<p>{_e(t['format'])}, {W.plural(t['bytes'], 'byte')}, {W.plural(t['records'], 'record')}, "
        f"{_e(t['byte_order'])}-endian; {W.counts_line(v)}"
        f"{' (messages capped; counts exact)' if v['capped'] else ''}</p>"
        + (f'<p class="stopped failed">{_e(W.stopped_text(t))}.</p>' if W.stopped_text(t) else "")
        + _problems(t["problems"]) + _expect(t["expect"]) + _rules(t["rules"])
        + _coverage(t["coverage"]) + _statistics(t["statistics"])
        + "</section>"
    )


def title(doc: dict) -> str:
    v = doc["verdict"]
    what = doc["traces"][0]["path"] if len(doc["traces"]) == 1 else f"{v['traces']} traces"
    return f"fxtlint report: {what}: {W.STANDING_LABEL[W.overall(doc)]}"


def render(doc: dict) -> str:
    v = doc["verdict"]
    standing = W.overall(doc)
    unreadable = f"; {v['unreadable']} could not be read" if v["unreadable"] else ""
    failures = "".join(f"<li class=\"failed\"><code>{_e(f['path'])}</code>: {_e(f['message'])}</li>"
                       for f in doc["failures"])
    severity = {r["code"]: r["severity"] for t in doc["traces"] for r in t["rules"]}
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        f"<title>{_e(title(doc))}</title><style>{CSS}</style></head><body>"
        "<h1>fxtlint conformance report</h1>"
        f'<p id="verdict" class="verdict {W.STANDING_CLASS[standing]}">{W.STANDING_LABEL[standing]}</p>'
        f"<p>{v['conforming_traces']} of {W.plural(v['traces'], 'trace')} conforming; {W.counts_line(v)}"
        f"{unreadable}.</p>"
        f"<p class=\"muted\">Checked against the {_e(doc['spec']['revision'])} (spec tables "
        f"{_e(doc['spec']['tables_sha256'])}) by {_e(doc['tool']['name'])} {_e(doc['tool']['version'])}.</p>"
        + (f"<ul>{failures}</ul>" if failures else "")
        + (_files(doc["traces"]) if doc["traces"] else "")
        + "".join(_trace(i, t) for i, t in _order(doc["traces"]))
        + (_matrix(doc["matrix"], severity) if doc["matrix"] else "")
        + f"<script>{SCRIPT}</script></body></html>\n"
    )
