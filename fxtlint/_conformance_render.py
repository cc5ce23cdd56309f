"""Conformance results for people: a summary table (rich) and the matrix of several
readers side by side (Markdown and self-contained HTML). Deterministic: no dates."""

from __future__ import annotations

import html

from ._conformance import CATEGORIES, GRADES

_SYMBOL = {"pass": "pass", "fail": "FAIL", "wrong": "WRONG", "crash": "CRASH", "skip": "skip"}
_COLOUR = {"pass": "green", "fail": "red", "wrong": "magenta", "crash": "bold red", "skip": "dim"}


def cell(case: dict) -> str:
    """One matrix cell: the grade; for an impl case that passed, what the reader did."""
    if case["category"] == "impl" and case["grade"] == "pass":
        return case["outcome"]
    return _SYMBOL[case["grade"]]


def summary_table(results: dict):
    """A rich Table: cases and grades per category."""
    from rich.table import Table

    t = Table(title=f"{results['reader']['name']}: conformance", title_justify="left")
    t.add_column("category")
    t.add_column("cases", justify="right")
    for g in GRADES:
        t.add_column(g, justify="right", style=_COLOUR[g])
    total = {g: 0 for g in ("cases", *GRADES)}
    for cat in CATEGORIES:
        s = results["summary"].get(cat, {})
        if not s.get("cases"):
            continue
        t.add_row(cat, str(s["cases"]), *(str(s[g]) for g in GRADES))
        for k in total:
            total[k] += s[k]
    t.add_row("all", str(total["cases"]), *(str(total[g]) for g in GRADES), style="bold")
    return t


def failures(results: dict) -> list[dict]:
    return [c for c in results["cases"] if c["grade"] not in ("pass", "skip")]


def _rows(all_results):
    """(case id, category, expect, spec, [case or None per reader]) in category, name order."""
    by_reader = [{c["case"]: c for c in r["cases"]} for r in all_results]
    ids = {cid: c for r in all_results for cid, c in ((c["case"], c) for c in r["cases"])}
    order = sorted(ids, key=lambda i: (CATEGORIES.index(ids[i]["category"]), i))
    return [(i, ids[i]["category"], ids[i]["expect"], ids[i].get("spec", ""), [m.get(i) for m in by_reader])
            for i in order]


def _score(results: dict, cat: str) -> str:
    s = results["summary"].get(cat, {})
    ran = s.get("cases", 0) - s.get("skip", 0)
    return f"{s.get('pass', 0)}/{ran}" if s.get("cases") else "-"


def matrix_markdown(all_results: list[dict]) -> str:
    names = [r["reader"]["name"] for r in all_results]
    out = ["# FXT reader conformance matrix", "",
           "Cells: `pass`; `FAIL` (wrong decision); `WRONG` (wrong decoding or output); `CRASH` "
           "(exit status other than 0 or 1, a signal, or the timeout); for `impl/` cases, what the reader did.", "",
           "## Summary (passed / run)", "",
           "| category | " + " | ".join(names) + " |", "| --- |" + " ---: |" * len(names)]
    for cat in CATEGORIES:
        out.append(f"| {cat} | " + " | ".join(_score(r, cat) for r in all_results) + " |")
    out += ["", "Commands:", ""]
    out += [f"- {r['reader']['name']}: `{' '.join(r['reader']['command'])}` (file on {r['reader']['input']}, "
            f"timeout {r['timeout']:g} s)" for r in all_results]
    out += ["", "## Cases", "", "| case | expect | " + " | ".join(names) + " | spec section |",
            "| --- | --- |" + " --- |" * len(names) + " --- |"]
    for cid, _cat, expect, spec, cells in _rows(all_results):
        out.append(f"| `{cid}` | {expect} | " + " | ".join(cell(c) if c else "-" for c in cells)
                   + f" | {_md(spec)} |")
    out += ["", "## Details of what did not pass", ""]
    for r in all_results:
        bad = failures(r)
        out.append(f"### {r['reader']['name']} ({len(bad)})")
        out.append("")
        out += [f"- `{c['case']}`: {_SYMBOL[c['grade']]}: {_md(c['detail'])}" for c in bad] or ["(none)"]
        out.append("")
    return "\n".join(out)


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px}th{background:#f4f4f4;position:sticky;top:0}
td.pass{background:#dff5df}td.fail{background:#f8c9c9}td.wrong{background:#f3d0f3}
td.crash{background:#e05050;color:#fff}
td.skip{color:#999}td.impl{background:#eef}code{font-size:12px}.num{text-align:right}"""


def matrix_html(all_results: list[dict]) -> str:
    e = html.escape
    names = [r["reader"]["name"] for r in all_results]
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         "<title>FXT reader conformance matrix</title>", f"<style>{_CSS}</style></head><body>",
         "<h1>FXT reader conformance matrix</h1>",
         "<p>Hover a cell for the detail. pass; FAIL: wrong decision; WRONG: wrong decoding or output; "
         "CRASH: exit status other than 0 or 1, a signal, or the timeout; impl cases: what the reader did.</p>",
         "<h2>Summary (passed / run)</h2><table><tr><th>category</th>"
         + "".join(f"<th>{e(n)}</th>" for n in names) + "</tr>"]
    for cat in CATEGORIES:
        h.append(f"<tr><td>{cat}</td>" + "".join(f'<td class="num">{_score(r, cat)}</td>' for r in all_results)
                 + "</tr>")
    h.append("</table><ul>")
    h += [f"<li>{e(r['reader']['name'])}: <code>{e(' '.join(r['reader']['command']))}</code> "
          f"(file on {e(r['reader']['input'])}, timeout {r['timeout']:g} s)</li>" for r in all_results]
    h.append("</ul><h2>Cases</h2><table><tr><th>case</th><th>expect</th>"
             + "".join(f"<th>{e(n)}</th>" for n in names) + "<th>spec section</th></tr>")
    for cid, cat, expect, spec, cells in _rows(all_results):
        tds = []
        for c in cells:
            if c is None:
                tds.append('<td class="skip">-</td>')
                continue
            cls = "impl" if cat == "impl" and c["grade"] == "pass" else c["grade"]
            tds.append(f'<td class="{cls}" title="{e(c["detail"])}">{e(cell(c))}</td>')
        h.append(f"<tr><td><code>{e(cid)}</code></td><td>{e(expect)}</td>{''.join(tds)}<td>{e(spec)}</td></tr>")
    h.append("</table>")
    for r in all_results:
        bad = failures(r)
        h.append(f"<h3>{e(r['reader']['name'])}: {len(bad)} not passed</h3><ul>")
        h += [f"<li><code>{e(c['case'])}</code>: {_SYMBOL[c['grade']]}: {e(c['detail'])}</li>" for c in bad]
        h.append("</ul>")
    h.append("</body></html>")
    return "\n".join(h) + "\n"
