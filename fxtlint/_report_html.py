"""The conformance report as one self-contained HTML page: no network, no external
script, style or font; readable offline and with scripts off.

The page is complete without JavaScript (tables in a useful order, problems in
``<details>``); the inline script adds what needs a browser: sortable tables (click a
header) and the per-trace counts it computes from the tables themselves ("12 of 27
record kinds used"), which the Chromium test reads back from the rendered page.
"""

from __future__ import annotations

import html
import json

from ._expect import fields_text
from ._report_markdown import STATUS, expect_summary

RESULT_LABEL = {"failed": "failed", "passed": "passed", "not_exercised": "not exercised"}
RESULT_RANK = {"failed": 0, "passed": 1, "not_exercised": 2}  # the rules table opens failed first

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
.failed { color: #a40e26; font-weight: 600; } .passed { color: #116329; } .not_exercised { color: #6e7781; }
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
    var counts = { failed: 0, passed: 0, not_exercised: 0 };
    rules.forEach(function (r) { counts[r.getAttribute('data-result')] += 1; });
    var rs = sec.querySelector('.rules-summary');
    if (rs) rs.textContent = counts.failed + ' failed, ' + counts.passed + ' passed, ' +
      counts.not_exercised + ' not exercised of ' + rules.length + ' rules';
  });
  document.body.setAttribute('data-rendered', 'yes');
})();
"""


def _e(x) -> str:
    return html.escape(str(x), quote=True)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _num(n) -> str:
    return f'<td class="num" data-value="{_e(n)}">{_e(n)}</td>'


def _table(cls: str, head: list[str], rows: list[str], sort: tuple[int, str] | None = None) -> str:
    attrs = f' class="sortable {cls}"'
    if sort:
        attrs += f' data-sort="{sort[0]}" data-sort-dir="{sort[1]}"'
    ths = "".join(f"<th>{_e(h)}</th>" for h in head)
    return f"<table{attrs}><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _matrix(m: dict) -> str:
    head = "".join(f"<th>{_e(w)}</th>" for w in m["writers"])
    rows = ['<tr><td><b>verdict</b></td>' + "".join(
        f'<td class="{"passed" if ok else "failed"}">{"conforming" if ok else "not conforming"}</td>'
        for ok in m["conforming"]) + "</tr>"]
    for r in m["rules"]:
        cells = "".join(f'<td class="{x}">{RESULT_LABEL[x]}</td>' for x in r["results"])
        rows.append(f"<tr><td><code>{_e(r['code'])}</code> {_e(r['name'])}</td>{cells}</tr>")
    kinds = "".join(
        f"<tr><td>{_e(k['kind'])}</td>" + "".join(_num(n) for n in k["records"]) + "</tr>"
        for k in m["record_kinds"])
    return (f'<section id="matrix"><h2>Compatibility matrix</h2>'
            f'<table class="matrix"><thead><tr><th>rule</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>'
            f'<details><summary>Record kinds per writer</summary>'
            f'<table class="sortable"><thead><tr><th>record kind</th>{head}</tr></thead><tbody>{kinds}</tbody></table>'
            f"</details></section>")


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
    provs = ", ".join(f"{_e(p['id'])} {_e(p['name'] or '')}" for p in c["providers"]) or "none"
    return (
        '<h3>Coverage of the spec</h3><p class="coverage-summary muted"></p>'
        + _table("coverage", ["record kind", "records", "used"], rows, (1, "desc"))
        + "<details open><summary>Argument types</summary>"
        + _table("args", ["argument type", "count"], args, (1, "desc")) + "</details>"
        + "<details><summary>Blob and object types</summary>"
        + _table("enums", ["enumeration", "value", "records"], enums, (2, "desc")) + "</details>"
        + f"<ul><li>string refs: {s['indexed']} indexed, {s['inline']} inline, {s['empty']} empty</li>"
        f"<li>thread refs: {t['indexed']} indexed, {t['inline']} inline</li>"
        f"<li>providers: {provs}</li><li>large records: {c['large_records']}; byte order: {_e(c['byte_order'])};"
        f" undefined records: {c['undefined_records']}; userspace objects: {c['userspace_objects']}</li></ul>"
    )


def _statistics(s: dict) -> str:
    t = s["time"]
    if t["span_ticks"] is None:
        span = "no timestamps"
    else:
        span = f"{t['span_ticks']} ticks ({t['first_ticks']} to {t['last_ticks']})"
        if t["span_seconds"] is not None:
            span += f" = {t['span_seconds']:.9g} s"
        span += f" at {', '.join(str(r) for r in t['ticks_per_second'])} ticks/s"
    kinds = [f"<tr><td>{_e(r['kind'])}</td>{_num(r['records'])}{_num(r['bytes'])}</tr>" for r in s["by_kind"]]
    events = [f"<tr><td>{_e(g)}</td><td>{_e(k)}</td>{_num(n)}</tr>"
              for g, ks in s["events"].items() for k, n in ks.items()]
    largest = [f"<tr><td>{_e(r['kind'])}</td>{_num(r['bytes'])}<td>{r['offset']:#x}</td>{_num(r['record_index'])}</tr>"
               for r in s["largest_records"]]
    return (
        "<h3>Statistics</h3>"
        f"<p>{_plural(s['records'], 'record')}, {_plural(s['bytes'], 'byte')}; string table "
        f"{s['string_table']['registered']} entries; thread table {s['thread_table']['registered']} entries; "
        f"time span {_e(span)}.</p>"
        + _table("kinds", ["record kind", "records", "bytes"], kinds, (2, "desc"))
        + "<details><summary>Events</summary>" + _table("events", ["group", "event", "count"], events) + "</details>"
        + "<details><summary>Largest records</summary>"
        + _table("largest", ["kind", "bytes", "offset", "record"], largest, (1, "desc")) + "</details>"
    )


def _problems(problems: list[dict]) -> str:
    if not problems:
        return ""
    out = ["<h3>Problems</h3>"]
    for p in problems:
        offs = ", ".join(f"{o:#x}" for o in p["first_offsets"])
        items = []
        for d in p["shown"]:
            rec = f" (record {d['record_index']})" if d["record_index"] >= 0 else ""
            hexv = f"<pre>{_e(d['hex'])}</pre>" if d.get("hex") else ""
            items.append(f"<li>at <code>{d['offset']:#x}</code>{rec}: {_e(d['message'])}{hexv}</li>")
        if p["count"] > len(p["shown"]):
            items.append(f"<li class=\"muted\">… {p['count'] - len(p['shown'])} more</li>")
        out.append(f'<details class="problem"><summary><code class="{_e(p["severity"])}">{_e(p["code"])}</code> '
                   f"{_e(p['name'])} ({_e(p['severity'])}): {_plural(p['count'], 'time')}, first at {offs}"
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
            f"({_e(expect_summary(e))})</p><ul>{''.join(items)}</ul>")


def _json(ev: dict) -> str:
    return json.dumps(ev, ensure_ascii=False)


def _trace(i: int, t: dict) -> str:
    v = t["verdict"]
    cls = "ok" if v["conforming"] else "bad"
    head = (f'<section class="trace" id="trace-{i}"><h2><code>{_e(t["path"])}</code></h2>'
            f'<p><span class="verdict {cls}">{_e(STATUS[v["status"]].split(" ", 1)[1])}</span></p>')
    if v["status"] == "not_fxt":
        return head + f"<p>{_e(v['note'])}.</p>" + _problems(t["problems"]) + "</section>"
    rules = []
    for r in t["rules"]:
        first = "" if r["first_offset"] is None else f"{r['first_offset']:#x}"
        rules.append(
            f'<tr data-result="{r["result"]}"><td><code>{_e(r["code"])}</code></td><td>{_e(r["name"])}</td>'
            f'<td>{_e(r["severity"])}</td><td class="{r["result"]}" data-value="{RESULT_RANK[r["result"]]}">'
            f'{RESULT_LABEL[r["result"]]}</td>{_num(r["count"])}<td>{first}</td></tr>')
    return (
        head
        + f"<p>{_e(t['format'])}, {_plural(t['bytes'], 'byte')}, {_plural(t['records'], 'record')}, "
        f"{_e(t['byte_order'])}-endian; {_plural(v['errors'], 'error')}, {_plural(v['warnings'], 'warning')}, "
        f"{_plural(v['infos'], 'info')}{' (messages capped; counts exact)' if v['capped'] else ''}</p>"
        + '<h3>Rules</h3><p class="rules-summary muted"></p>'
        + _table("rules", ["code", "name", "severity", "result", "count", "first offset"], rules, (3, "asc"))
        + _coverage(t["coverage"]) + _statistics(t["statistics"]) + _problems(t["problems"]) + _expect(t["expect"])
        + "</section>"
    )


def title(doc: dict) -> str:
    v = doc["verdict"]
    what = doc["traces"][0]["path"] if len(doc["traces"]) == 1 else f"{v['traces']} traces"
    return f"fxtlint report: {what}: {'conforming' if v['conforming'] else 'not conforming'}"


def render(doc: dict) -> str:
    v = doc["verdict"]
    cls = "ok" if v["conforming"] else "bad"
    unreadable = f"; {v['unreadable']} could not be read" if v["unreadable"] else ""
    failures = "".join(f"<li class=\"failed\"><code>{_e(f['path'])}</code>: {_e(f['message'])}</li>"
                       for f in doc["failures"])
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
        f"<title>{_e(title(doc))}</title><style>{CSS}</style></head><body>"
        "<h1>fxtlint conformance report</h1>"
        f'<p id="verdict" class="verdict {cls}">{"conforming" if v["conforming"] else "not conforming"}</p>'
        f"<p>{v['conforming_traces']} of {_plural(v['traces'], 'trace')} conforming; "
        f"{_plural(v['errors'], 'error')}, {_plural(v['warnings'], 'warning')}, {_plural(v['infos'], 'info')}"
        f"{unreadable}.</p>"
        f"<p class=\"muted\">Checked against the {_e(doc['spec']['revision'])} (spec tables "
        f"{_e(doc['spec']['tables_sha256'])}) by {_e(doc['tool']['name'])} {_e(doc['tool']['version'])}.</p>"
        + (f"<ul>{failures}</ul>" if failures else "")
        + (_matrix(doc["matrix"]) if doc["matrix"] else "")
        + "".join(_trace(i, t) for i, t in enumerate(doc["traces"]))
        + f"<script>{SCRIPT}</script></body></html>\n"
    )
