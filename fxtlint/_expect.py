"""``--expect EVENTS.json``: did the writer write exactly these events?

EVENTS.json holds expected events in the Trace Event Format subset the exporter
writes (``name``, ``cat``, ``ph``, ``ts``, ``pid``, ``tid``, ``args``, ``id``; also
``dur``, ``s``): either a JSON list of events, or an object
``{"traceEvents": [...], "tsUnit": "us" | "ticks"}``. ``ts`` (and ``dur``) are in
microseconds by default, as the exporter writes them (within 1 ns); with
``"tsUnit": "ticks"`` they are the raw tick counts of the trace, compared exactly.
Only the fields an expected event gives are compared; ids compare as numbers
(``42`` equals ``"0x2a"``).

Matching is by order within a thread: expected and exported events are grouped by
(pid, tid) (one group in file order when no expected event names a thread) and
aligned on (ph, name); an expected event with no partner is missing, an exported one
is extra, a matched pair with any field unequal differs, field by field. Metadata (M)
events take part only when EVENTS.json lists some.
"""

from __future__ import annotations

import difflib
import json

FIELDS = ("ph", "name", "cat", "ts", "dur", "pid", "tid", "id", "s", "args")
TS_UNITS = ("us", "ticks")
LISTED = 50  # missing/extra/differing events listed per kind; counts stay exact
US_TOLERANCE = 1e-3  # one nanosecond


class ExpectError(ValueError):
    """EVENTS.json is not usable; the message names the line and column when it can."""


def load_expected(text: str, name: str = "EVENTS.json") -> tuple[list[dict], str]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ExpectError(f"{name}:{e.lineno}:{e.colno}: malformed JSON: {e.msg}") from None
    unit = "us"
    if isinstance(doc, dict):
        unit = doc.get("tsUnit", "us")
        if unit not in TS_UNITS:
            raise ExpectError(f"{name}: tsUnit must be one of {', '.join(TS_UNITS)}, not {unit!r}")
        doc = doc.get("traceEvents")
    if not isinstance(doc, list):
        raise ExpectError(f"{name}: expected a list of events or an object with traceEvents")
    for i, ev in enumerate(doc):
        if not isinstance(ev, dict):
            raise ExpectError(f"{name}: event {i} is not an object")
        if "ph" not in ev:
            raise ExpectError(f"{name}: event {i} has no ph")
    threaded = ["pid" in ev and "tid" in ev for ev in doc if ev["ph"] != "M"]
    if any(threaded) and not all(threaded):
        raise ExpectError(f"{name}: either every event names its pid and tid, or none does")
    return doc, unit


def _id(v):
    if isinstance(v, str):
        try:
            return int(v, 0)
        except ValueError:
            return v
    return v


def _same(field: str, want, got, unit: str) -> bool:
    if field in ("ts", "dur") and unit == "us":
        return isinstance(want, (int, float)) and isinstance(got, (int, float)) and abs(want - got) <= US_TOLERANCE
    if field == "id":
        return _id(want) == _id(got)
    return want == got


def _diff(want: dict, got: dict, unit: str) -> list[dict]:
    out = []
    for f in FIELDS:
        if f not in want:
            continue
        if f == "args" and isinstance(want[f], dict) and isinstance(got.get(f, {}), dict):
            have = got.get(f, {})
            for k in sorted(set(want[f]) | set(have)):
                if want[f].get(k, ...) != have.get(k, ...):
                    out.append({"field": f"args.{k}", "expected": want[f].get(k), "actual": have.get(k)})
            continue
        if not _same(f, want[f], got.get(f), unit):
            out.append({"field": f, "expected": want[f], "actual": got.get(f)})
    return out


def _actual_view(ev: dict, raw, unit: str) -> dict:
    return dict(ev, **raw) if unit == "ticks" and raw else ev


def compare(expected: list[dict], actual, unit: str = "us") -> dict:
    """``actual`` is what ``_export_tef.iter_events`` yields: (event, raw ticks) pairs."""
    with_meta = any(ev["ph"] == "M" for ev in expected)
    threaded = any("pid" in ev for ev in expected if ev["ph"] != "M")
    acts = []
    for ev, raw in actual:
        if ev["ph"] == "M" and not with_meta:
            continue
        acts.append(_actual_view(ev, raw, unit))

    def key(ev):
        return (ev.get("pid"), ev.get("tid")) if threaded else None

    groups: dict = {}
    for ev in expected:
        groups.setdefault(key(ev), ([], []))[0].append(ev)
    for ev in acts:
        groups.setdefault(key(ev), ([], []))[1].append(ev)
    missing, extra, differing = [], [], []
    for gkey, (want, got) in groups.items():
        sm = difflib.SequenceMatcher(None, [(e["ph"], e.get("name")) for e in want],
                                     [(e["ph"], e.get("name")) for e in got], autojunk=False)
        for op, i1, i2, j1, j2 in sm.get_opcodes():
            pairs = []
            if op == "equal":
                pairs = list(zip(range(i1, i2), range(j1, j2)))
            elif op == "replace":
                n = min(i2 - i1, j2 - j1)
                pairs = list(zip(range(i1, i1 + n), range(j1, j1 + n)))
                missing += [want[i] for i in range(i1 + n, i2)]
                extra += [got[j] for j in range(j1 + n, j2)]
            elif op == "delete":
                missing += want[i1:i2]
            elif op == "insert":
                extra += got[j1:j2]
            for i, j in pairs:
                d = _diff(want[i], got[j], unit)
                if d:
                    differing.append({"thread": list(gkey) if gkey else None, "position": i,
                                      "expected": want[i], "actual": got[j], "fields": d})
    return {
        "ts_unit": unit,
        "matches": not (missing or extra or differing),
        "expected_events": len(expected),
        "actual_events": len(acts),
        "missing_count": len(missing),
        "extra_count": len(extra),
        "differing_count": len(differing),
        "missing": missing[:LISTED],
        "extra": extra[:LISTED],
        "differing": differing[:LISTED],
    }
