"""``--expect EVENTS.json``: did the writer write these events?

EVENTS.json holds expected events in the Trace Event Format subset the exporter
writes (``name``, ``cat``, ``ph``, ``ts``, ``pid``, ``tid``, ``args``, ``id``; also
``dur``, ``s``): either a JSON list of events, or an object
``{"traceEvents": [...], "tsUnit": "us" | "ticks"}``. ``ts`` (and ``dur``) are in
microseconds by default, as the exporter writes them (within 1 ns); with
``"tsUnit": "ticks"`` they are the raw tick counts of the trace, compared exactly.
Only the fields an expected event gives are compared, and ``args`` key by key (only
the keys it gives); ids compare as numbers (``42`` equals ``"0x2a"``).

Matching is by order within a thread: expected and exported events are grouped by
(pid, tid) (one group in file order when no expected event names a thread). Each
expected event is matched to the first exported event after the previous match that
equals it in every field it gives. An expected event left over is *differing* when an
unmatched exported event of the same ``ph`` and ``name`` lies between its matched
neighbours (compared field by field), else *missing*: never compared with an
unrelated event. Two modes:

- ``subset`` (the default): the expected events must appear, in order; the writer may
  write others too. A real writer emits metadata, nested spans and events a test does
  not care about, so a short list of the events that matter is what a test can state.
- ``exact``: every exported event must be expected; the others are *extra*.

Metadata (M) events take part only when EVENTS.json lists some.
"""

from __future__ import annotations

import bisect
import json

FIELDS = ("ph", "name", "cat", "ts", "dur", "pid", "tid", "id", "s", "bp", "args")
TS_UNITS = ("us", "ticks")
MODES = ("subset", "exact")
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
        unknown = sorted(k for k in ev if k not in FIELDS)
        if unknown:
            raise ExpectError(f"{name}: event {i} has {_unknown_text(unknown)}: an expected event gives only "
                              f"fields the exporter writes ({', '.join(FIELDS)})")
        if "ph" not in ev:
            raise ExpectError(f"{name}: event {i} has no ph")
    threaded = ["pid" in ev and "tid" in ev for ev in doc if ev["ph"] != "M"]
    if any(threaded) and not all(threaded):
        raise ExpectError(f"{name}: either every event names its pid and tid, or none does")
    return doc, unit


def _unknown_text(keys: list[str]) -> str:
    """'field "nme" (did you mean "name"?)', or the list of several."""
    import difflib

    parts = []
    for k in keys:
        near = difflib.get_close_matches(k, FIELDS, n=1)
        parts.append(f'"{k}"' + (f' (did you mean "{near[0]}"?)' if near else ""))
    return ("field " if len(parts) == 1 else "fields ") + ", ".join(parts)


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


_MISSING = object()


def _field(name: str, expected, actual) -> dict:
    """One differing field; an exported event without it says ``"absent": true``."""
    out = {"field": name, "expected": expected}
    if actual is _MISSING:
        out["absent"] = True
    else:
        out["actual"] = actual
    return out


def _diff(want: dict, got: dict, unit: str) -> list[dict]:
    """The fields ``want`` gives that ``got`` does not hold; ``args`` key by key."""
    out = []
    for f in FIELDS:
        if f not in want:
            continue
        if f == "args" and isinstance(want[f], dict):
            have = got.get(f)
            have = have if isinstance(have, dict) else {}
            for k in sorted(want[f]):
                if have.get(k, _MISSING) != want[f][k]:
                    out.append(_field(f"args.{k}", want[f][k], have.get(k, _MISSING)))
            continue
        if f not in got or not _same(f, want[f], got[f], unit):
            out.append(_field(f, want[f], got.get(f, _MISSING)))
    return out


def _actual_view(ev: dict, raw, unit: str) -> dict:
    return dict(ev, **raw) if unit == "ticks" and raw else ev


def _key(ev: dict) -> tuple:
    return (ev["ph"], ev.get("name"))


def _align(want: list[dict], got: list[dict], unit: str) -> tuple[list[int | None], list[int | None]]:
    """Per expected event, the exported event it matches (every given field equal) and
    the one it is compared with when none does (same ph and name, unmatched, between its
    matched neighbours); None where there is none."""
    by_key: dict[tuple, list[int]] = {}
    for j, ev in enumerate(got):
        by_key.setdefault(_key(ev), []).append(j)
    matched: list[int | None] = []
    cursor = 0
    for ev in want:
        cands = by_key.get(_key(ev), [])
        hit = next((j for j in cands[bisect.bisect_left(cands, cursor):] if not _diff(ev, got[j], unit)), None)
        matched.append(hit)
        if hit is not None:
            cursor = hit + 1
    used = {j for j in matched if j is not None}
    near: list[int | None] = [None] * len(want)
    lo = 0
    for i, ev in enumerate(want):
        m = matched[i]
        if m is not None:
            lo = m + 1
            continue
        hi = next((m for m in matched[i + 1:] if m is not None), len(got))
        cands = by_key.get(_key(ev), [])
        close = next((j for j in cands[bisect.bisect_left(cands, lo):] if j < hi and j not in used), None)
        if close is not None:
            near[i] = close
            used.add(close)
            lo = close + 1
    return matched, near


def compare(expected: list[dict], actual, unit: str = "us", mode: str = "subset") -> dict:
    """``actual`` is what ``_export_tef.iter_events`` yields: (event, raw ticks) pairs."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
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
        matched, near = _align(want, got, unit)
        for i, ev in enumerate(want):
            if matched[i] is not None:
                continue
            if near[i] is None:
                missing.append(ev)
            else:
                differing.append({"thread": list(gkey) if gkey else None, "position": i, "expected": ev,
                                  "actual": got[near[i]], "fields": _diff(ev, got[near[i]], unit)})
        if mode == "exact":
            seen = {j for j in matched + near if j is not None}
            extra += [ev for j, ev in enumerate(got) if j not in seen]
    return {
        "ts_unit": unit,
        "mode": mode,
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


def fields_text(fields: list[dict]) -> str:
    """'ts: expected 3500, got 3000; args.big: expected 1, not in the event', values as JSON."""
    def got(f):
        return "not in the event" if f.get("absent") else f"got {json.dumps(f['actual'], ensure_ascii=False)}"

    return "; ".join(f"{f['field']}: expected {json.dumps(f['expected'], ensure_ascii=False)}, {got(f)}"
                     for f in fields)
