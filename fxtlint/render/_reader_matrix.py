"""Conformance results for people: a summary table (rich) and the matrix of several
readers side by side (Markdown and self-contained HTML). Deterministic: no dates.

The matrix has four views of the same results: the summary per category with a total
row (what a reader must read first: valid, recover), the scores per spec section, the
cases where the readers differ, and every case."""

from __future__ import annotations

import html
import re

from ..reader_suite._runner import GRADES, SUMMARY_ORDER, score, warnings

_SYMBOL = {"pass": "pass", "unreported": "not reported", "fail": "FAIL", "wrong": "WRONG", "crash": "CRASH",
           "skip": "skip"}
_COLOUR = {"pass": "green", "unreported": "yellow", "fail": "red", "wrong": "magenta", "crash": "bold red",
           "skip": "dim"}
_MUST = {"valid": "must accept", "recover": "the records before the fault (exit 0: a warning)",
         "malformed": "skip the malformed record and read on, or reject",
         "invalid": "the records before the fault (exit 0: a warning; none: reject)", "impl": "either, never crash"}
_MUST_SHORT = {"valid": "accept", "recover": "records", "malformed": "skip or reject", "invalid": "records",
               "impl": "either"}
_CHOSE = {"skip": "skipped", "reject": "rejected", "accept": "accepted", "read-through": "read through"}
VIEWS = ("full", "differences", "sections")


def cell(case: dict) -> str:
    """One matrix cell: the grade; for an impl or malformed case that passed, what the
    reader chose (accepted, rejected; skipped the malformed record)."""
    if case["category"] in ("impl", "malformed") and case["grade"] == "pass":
        return _CHOSE.get(case.get("chose", ""), case["outcome"])
    if case.get("warning") and case["grade"] == "pass":
        return "pass, exit 0"
    return _SYMBOL.get(case["grade"], case["grade"])


def choices(results: dict) -> str:
    """What the reader chose where it may choose: 'malformed/: skipped 12, rejected 28; ...'."""
    parts = []
    for cat in SUMMARY_ORDER:
        chose = results["summary"].get(cat, {}).get("chose")
        if chose and any(chose.values()):
            parts.append(f"{cat}/: " + ", ".join(f"{_CHOSE.get(k, k)} {v}" for k, v in chose.items()))
    return f"{results['reader']['name']} chose: " + "; ".join(parts) if parts else ""


def warned(results: dict) -> str:
    """The passes with a warning, counted apart: 'recover/ 21, invalid/ 3: ...', or ''."""
    parts = [f"{cat}/ {results['summary'][cat]['warned']}" for cat in SUMMARY_ORDER
             if results["summary"].get(cat, {}).get("warned")]
    if not parts:
        return ""
    return (f"{results['reader']['name']} passed with a warning (counted apart, not failures): " + ", ".join(parts)
            + ": exit 0 on a damaged file, after the records before the fault")


def _pct(ok: int, ran: int) -> str:
    return f"{ok}/{ran} ({100 * ok // ran}%)" if ran else "-"


def headline(results: dict) -> str:
    """One line, what a reader must read first: 'name: valid 74/141, recover 21/25; ...'."""
    parts = [f"{cat} {'/'.join(map(str, score(results, cat)))}" for cat in SUMMARY_ORDER
             if results["summary"].get(cat, {}).get("cases")]
    return f"{results['reader']['name']}: " + ", ".join(parts)


def summary_table(results: dict):
    """A rich Table: per category (valid and recover first) what a reader must do, the
    score and the grades, then the total."""
    from rich.table import Table

    t = Table(title=f"{results['reader']['name']}: conformance", title_justify="left")
    t.add_column("category")
    t.add_column("must")
    t.add_column("passed", justify="right", style=_COLOUR["pass"])
    others = [g for g in GRADES if g != "pass"]
    for g in others:
        t.add_column(g, justify="right", style=_COLOUR[g])
    total = {g: 0 for g in ("cases", *GRADES)}
    for cat in SUMMARY_ORDER:
        s = results["summary"].get(cat, {})
        if not s.get("cases"):
            continue
        t.add_row(cat, _MUST_SHORT[cat], _pct(*score(results, cat)), *(str(s.get(g, 0)) for g in others))
        for k in total:
            total[k] += s.get(k, 0)
    t.add_row("all", "", _pct(total["pass"], total["cases"] - total["skip"] - total["unreported"]),
              *(str(total[g]) for g in others),
              style="bold")
    return t


def failures(results: dict) -> list[dict]:
    return [c for c in results["cases"] if c["grade"] not in ("pass", "skip", "unreported")]


def unreported(results: dict) -> list[dict]:
    return [c for c in results["cases"] if c["grade"] == "unreported"]


def _rows(all_results):
    """(case id, category, expect, spec, [case or None per reader]) in category, name order."""
    by_reader = [{c["case"]: c for c in r["cases"]} for r in all_results]
    ids = {cid: c for r in all_results for cid, c in ((c["case"], c) for c in r["cases"])}
    order = sorted(ids, key=lambda i: (SUMMARY_ORDER.index(ids[i]["category"]), i))
    return [(i, ids[i]["category"], ids[i]["expect"], ids[i].get("spec", ""), [m.get(i) for m in by_reader])
            for i in order]


def _differs(cells) -> bool:
    return len({cell(c) if c else "-" for c in cells}) > 1


def section_of(spec: str) -> str:
    """The spec section a case tests: its spec text up to the first colon, without a
    trailing '(record type = 5)'."""
    return re.sub(r"\s*\([^()]*=[^()]*\)$", "", spec.split(":", 1)[0].strip()) or "(none)"


def sections(all_results) -> list[tuple[str, list[tuple[int, int]]]]:
    """Per spec section, (passed, graded) for each reader, in section name order
    (skipped and not reported cases are not graded)."""
    table: dict[str, list[list[int]]] = {}
    for i, r in enumerate(all_results):
        for c in r["cases"]:
            if c["grade"] in ("skip", "unreported"):
                continue
            row = table.setdefault(section_of(c.get("spec", "")), [[0, 0] for _ in all_results])
            row[i][1] += 1
            row[i][0] += c["grade"] == "pass"
    return [(name, [(x[0], x[1]) for x in row]) for name, row in sorted(table.items())]


def _totals(r: dict) -> tuple[int, int]:
    ok = ran = 0
    for cat in SUMMARY_ORDER:
        a, b = score(r, cat)
        ok, ran = ok + a, ran + b
    return ok, ran


def matrix_markdown(all_results: list[dict], view: str = "full") -> str:
    """The matrix as Markdown: ``full`` (every view), ``differences`` (summary and the
    cases where readers differ) or ``sections`` (summary and the per-section scores)."""
    names = [r["reader"]["name"] for r in all_results]
    head = " | ".join(names)
    out = ["# FXT reader conformance matrix", "",
           "Cells: `pass`; `FAIL` (wrong decision); `WRONG` (wrong decoding or output); `CRASH` "
           "(exit status other than 0 or 1, a signal, or the timeout); `not reported` (right but for argument "
           "types the reader declared it cannot tell apart: counted apart, not in passed / graded); for `impl/` "
           "and `malformed/` cases that passed, what the reader chose; `pass, exit 0` (an `invalid/` or `recover/` "
           "case passed by its records with exit 0: a warning, counted apart).", "",
           "## Summary (passed / graded)", "",
           f"| category | a reader | {head} |", "| --- | --- |" + " ---: |" * len(names)]
    for cat in SUMMARY_ORDER:
        out.append(f"| {cat} | {_MUST[cat]} | " + " | ".join(_pct(*score(r, cat)) for r in all_results) + " |")
    out.append("| **total** | | " + " | ".join(f"**{_pct(*_totals(r))}**" for r in all_results) + " |")
    out.append("| not reported | counted apart | " + " | ".join(
        str(sum(s.get("unreported", 0) for s in r["summary"].values())) for r in all_results) + " |")
    out += [f"\n{_md(line)}" for line in (choices(r) for r in all_results) if line]
    out += [f"\n{_md(line)}" for line in (warned(r) for r in all_results) if line]
    out += ["", "Commands:", ""]
    out += [f"- {r['reader']['name']}: `{' '.join(r['reader']['command'])}` (file on {r['reader']['input']}, "
            f"timeout {r['timeout']:g} s)" for r in all_results]
    notes = [w for r in all_results for w in warnings(r)]
    if notes:
        out += ["", *[f"**Warning:** {_md(w)}" for w in notes]]
    if view in ("full", "sections"):
        out += ["", "## By spec section (passed / graded)", "", f"| spec section | {head} |",
                "| --- |" + " ---: |" * len(names)]
        out += [f"| {_md(name)} | " + " | ".join(_pct(*s) for s in scores) + " |"
                for name, scores in sections(all_results)]
    rows = _rows(all_results)
    if view in ("full", "differences"):
        diff = [row for row in rows if _differs(row[4])]
        out += ["", f"## Where the readers differ ({len(diff)} cases)", ""]
        out += _case_table(diff, names) if len(all_results) > 1 else ["(one reader: nothing to compare)"]
    if view == "full":
        out += ["", "## Cases", ""] + _case_table(rows, names)
        out += ["", "## Details of what did not pass", ""]
        for r in all_results:
            bad = failures(r)
            out.append(f"### {r['reader']['name']} ({len(bad)})")
            out.append("")
            out += [f"- `{c['case']}`: {_SYMBOL[c['grade']]}: {_md(c['detail'])}" for c in bad] or ["(none)"]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def _case_table(rows, names) -> list[str]:
    out = ["| case | expect | " + " | ".join(names) + " | spec section |",
           "| --- | --- |" + " --- |" * len(names) + " --- |"]
    for cid, _cat, expect, spec, cells in rows:
        out.append(f"| `{cid}` | {expect} | " + " | ".join(cell(c) if c else "-" for c in cells) + f" | {_md(spec)} |")
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("`", "'").replace("\n", " ")


_CSS = """body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:2px 8px;font-size:13px}th{background:#f4f4f4;position:sticky;top:0}
td.pass{background:#dff5df}td.fail{background:#f8c9c9}td.wrong{background:#f3d0f3}
td.crash{background:#e05050;color:#fff}tr.total td{font-weight:bold}.warn{color:#a00}
td.skip{color:#999}td.impl{background:#eef}td.unreported{background:#f6f0c8}code{font-size:12px}.num{text-align:right}
#differ:checked~table.cases tr.same{display:none}"""


def matrix_html(all_results: list[dict]) -> str:
    e = html.escape
    names = [r["reader"]["name"] for r in all_results]
    th = "".join(f"<th>{e(n)}</th>" for n in names)
    h = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
         "<title>FXT reader conformance matrix</title>", f"<style>{_CSS}</style></head><body>",
         "<h1>FXT reader conformance matrix</h1>",
         "<p>Hover a cell for the detail. pass; FAIL: wrong decision; WRONG: wrong decoding or output; "
         "CRASH: exit status other than 0 or 1, a signal, or the timeout; not reported: right but for argument "
         "types the reader declared it cannot tell apart (counted apart); impl and malformed cases that passed: "
         "what the reader chose; pass, exit 0: an invalid or recover case passed by its records with exit 0 (a "
         "warning, counted apart).</p>",
         f"<h2>Summary (passed / graded)</h2><table><tr><th>category</th><th>a reader</th>{th}</tr>"]
    for cat in SUMMARY_ORDER:
        h.append(f"<tr><td>{cat}</td><td>{_MUST[cat]}</td>"
                 + "".join(f'<td class="num">{_pct(*score(r, cat))}</td>' for r in all_results) + "</tr>")
    h.append('<tr class="total"><td>total</td><td></td>'
             + "".join(f'<td class="num">{_pct(*_totals(r))}</td>' for r in all_results) + "</tr>")
    h.append("</table><ul>")
    h += [f"<li>{e(r['reader']['name'])}: <code>{e(' '.join(r['reader']['command']))}</code> "
          f"(file on {e(r['reader']['input'])}, timeout {r['timeout']:g} s)</li>" for r in all_results]
    h.append("</ul>")
    h += [f"<p>{e(line)}</p>" for line in (warned(r) for r in all_results) if line]
    h += [f'<p class="warn">Warning: {e(w)}</p>' for r in all_results for w in warnings(r)]
    h.append(f"<h2>By spec section (passed / graded)</h2><table><tr><th>spec section</th>{th}</tr>")
    for name, scores in sections(all_results):
        h.append(f"<tr><td>{e(name)}</td>" + "".join(f'<td class="num">{_pct(*s)}</td>' for s in scores) + "</tr>")
    h.append("</table>")
    rows = _rows(all_results)
    diff = sum(_differs(row[4]) for row in rows)
    # one table; the checkbox hides the rows where every reader did the same (CSS only)
    h.append(f'<h2>Cases</h2><input type="checkbox" id="differ"><label for="differ"> only the {diff} cases where '
             "the readers differ</label>")
    h += _case_table_html(rows, th)
    for r in all_results:
        bad = failures(r)
        h.append(f"<h3>{e(r['reader']['name'])}: {len(bad)} not passed</h3><ul>")
        h += [f"<li><code>{e(c['case'])}</code>: {_SYMBOL[c['grade']]}: {e(c['detail'])}</li>" for c in bad]
        h.append("</ul>")
    h.append("</body></html>")
    return "\n".join(h) + "\n"


def _case_table_html(rows, th: str) -> list[str]:
    e = html.escape
    out = [f'<table class="cases"><tr><th>case</th><th>expect</th>{th}<th>spec section</th></tr>']
    for cid, cat, expect, spec, cells in rows:
        tds = []
        for c in cells:
            if c is None:
                tds.append('<td class="skip">-</td>')
                continue
            cls = "impl" if cat in ("impl", "malformed") and c["grade"] == "pass" else c["grade"]
            tds.append(f'<td class="{cls}" title="{e(c["detail"] or c.get("warning", ""))}">{e(cell(c))}</td>')
        same = "" if _differs(cells) else ' class="same"'
        out.append(f"<tr{same}><td><code>{e(cid)}</code></td><td>{e(expect)}</td>{''.join(tds)}<td>{e(spec)}</td></tr>")
    out.append("</table>")
    return out

