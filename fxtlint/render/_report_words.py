"""The words both report renderers (Markdown and HTML) put on the report document's
values: verdicts, a rule's result as shown, counts, providers, table sizes, time spans.

One place, so that no renderer prints a Python value as Python prints it ("None",
"1 entries", "True"), and a rule that failed with warnings only reads as a warning
everywhere, not as a red "failed" under a green "conforming".
"""

from __future__ import annotations

from ..spec._time import duration_text, instant_text, seconds


def plural(n: int, word: str, words: str | None = None) -> str:
    """'1 entry', '2 entries', '0 errors'."""
    return f"{n} {word}" if n == 1 else f"{n} {words or word + 's'}"


# a trace's standing, most urgent first: the order files and sections are listed in
STANDINGS = ("not_fxt", "not_conforming", "events_differ", "warnings", "infos", "conforming")
STANDING_LABEL = {
    "not_fxt": "not an FXT file",
    "not_conforming": "not conforming",
    "events_differ": "conforming; events differ from EVENTS.json",
    "warnings": "conforming, with warnings",
    "infos": "conforming",
    "conforming": "conforming",
}
STANDING_CLASS = {"not_fxt": "bad", "not_conforming": "bad", "events_differ": "bad", "warnings": "warn",
                  "infos": "ok", "conforming": "ok"}


def standing(t: dict) -> str:
    """Where a trace stands: its errors first, then expected events, warnings, infos."""
    v = t["verdict"]
    if v["status"] != "conforming":
        return v["status"]
    if t.get("expect") is not None and not t["expect"]["matches"]:
        return "events_differ"
    if v["warnings"]:
        return "warnings"
    return "infos" if v["infos"] else "conforming"


def overall(doc: dict) -> str:
    """Where the whole report stands, in the words of ``standing``: not conforming when a
    trace is not, else its most pressing standing (events that differ, then warnings), so
    the headline never says plain "conforming" above a trace shown with warnings."""
    if not doc["verdict"]["conforming"]:
        # conforming traces whose events differ are not "not conforming" (nor is the run)
        if doc["verdict"]["unreadable"] or not doc["traces"] or any(
                t["verdict"]["status"] != "conforming" for t in doc["traces"]):
            return "not_conforming"
        return "events_differ"
    pressing = [s for s in ("events_differ", "warnings") if any(standing(t) == s for t in doc["traces"])]
    if pressing:
        return pressing[0]
    return "warnings" if doc["verdict"]["warnings"] else "conforming"


def needs_attention(t: dict) -> bool:
    """Errors, warnings, or events that differ: what a report leads with (infos are notes)."""
    return STANDING_CLASS[standing(t)] != "ok"


# a rule's result as shown: "failed" only for errors; a rule that tripped with warnings
# (or infos) only is a warning (a note), as its severity says
SHOWN = ("failed", "warning", "note", "passed", "not_checked", "not_exercised")
SHOWN_LABEL = {"failed": "failed", "warning": "warning", "note": "note", "passed": "passed",
               "not_checked": "not checked", "not_exercised": "not exercised"}
_BY_SEVERITY = {"error": "failed", "warning": "warning", "info": "note"}


def shown_result(rule_row: dict) -> str:
    if rule_row["result"] == "failed":
        return _BY_SEVERITY.get(rule_row["severity"], "failed")
    return rule_row["result"]


def rules_summary(rows: list[dict]) -> str:
    """'1 warning, 26 passed, 24 not exercised of 51 rules' (the tripped kinds only when any)."""
    counts = {k: 0 for k in SHOWN}
    for r in rows:
        counts[shown_result(r)] += 1
    parts = [plural(counts["failed"], "failed", "failed")] if counts["failed"] else []
    parts += [plural(counts[k], k) for k in ("warning", "note") if counts[k]]
    parts.append(f"{counts['passed']} passed")
    if counts["not_checked"]:
        parts.append(f"{counts['not_checked']} not checked")
    parts.append(f"{counts['not_exercised']} not exercised")
    return f"{', '.join(parts)} of {plural(len(rows), 'rule')}"


def stopped_text(t: dict) -> str:
    """'Reading stopped at record 6 (0x60): the rest of the file was never read', or ""
    when the whole trace was read."""
    s = t["verdict"].get("stopped")
    if not s:
        return ""
    return (f"Reading stopped at record {s['record_index']} ({s['offset']:#x}): the rest of the file was "
            "never read, so the rules that look at records are not checked")


def counts_line(v: dict) -> str:
    return f"{plural(v['errors'], 'error')}, {plural(v['warnings'], 'warning')}, {plural(v['infos'], 'info')}"


def provider_label(p: dict) -> str:
    """'provider 1 "example"', 'provider 7 (no name)', or the records before any provider."""
    if p["id"] is None:
        return "no provider (the records before any Provider Info or Section)"
    return f'provider {p["id"]} "{p["name"]}"' if p.get("name") else f"provider {p['id']} (no name)"


def providers_text(providers: list[dict]) -> str:
    return ", ".join(provider_label(p) for p in providers) or "none"


def table_text(what: str, table: dict) -> str:
    """'string table: 2 entries'."""
    return f"{what}: {plural(table['registered'], 'entry', 'entries')}"


def span_text(t: dict) -> str:
    """'200 ticks (5 to 205) = 2e-07 s at 1000000000 ticks/s' ('1 tick/s'); where the first
    and last instants have different rates (two providers, a rate change), each instant
    in its own ticks and rate: '1.999995 ms (tick 5 of 1 GHz (5 ns) to tick 2 of 1 kHz
    (2 ms)) at 1000, 1000000000 ticks/s'; or 'no timestamps'."""
    if t["first_ticks"] is None:
        return "no timestamps"
    rates = t["ticks_per_second"]
    unit = "tick/s" if list(rates) == [1] else "ticks/s"
    at = f" at {', '.join(str(r) for r in rates)} {unit}" if rates else ""
    if t["span_ticks"] is None:  # the first and last instants tick at different rates
        first = (t["first_ticks"], t["first_ticks_per_second"])
        last = (t["last_ticks"], t["last_ticks_per_second"])
        return f"{duration_text(seconds(*last) - seconds(*first))} ({instant_text(*first)} to " \
               f"{instant_text(*last)}){at}"
    out = f"{plural(t['span_ticks'], 'tick')} ({t['first_ticks']} to {t['last_ticks']})"
    if t["span_seconds"] is not None:
        out += f" = {t['span_seconds']:.9g} s"
    return out + at


def expect_summary(e: dict) -> str:
    """'subset match, ts in us: 2 expected, 40 written; 1 missing, 0 differing'."""
    extra = f"{e['extra_count']} extra, " if e["mode"] == "exact" else ""
    return (f"{e['mode']} match, ts in {e['ts_unit']}: {e['expected_events']} expected, {e['actual_events']} "
            f"written; {e['missing_count']} missing, {extra}{e['differing_count']} differing")


def first_problem(t: dict) -> tuple[str, str] | None:
    """(code, message) of a trace's first shown problem; for a trace whose only problem
    is events that differ from EVENTS.json, ("EVENTS.json", what differs)."""
    for p in t["problems"]:
        if p["shown"]:
            return p["code"], p["shown"][0]["message"]
    e = t.get("expect")
    if e is not None and not e["matches"]:
        return "EVENTS.json", expect_summary(e)
    return None
