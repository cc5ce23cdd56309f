"""An independent checker of Trace Event Format documents, written from the format's
document (../shared/spec/chrome-trace-event-format.excerpt.txt and the phases it
lists), not from the exporter: it returns a list of problems, empty when valid.

- Object Format: ``traceEvents`` (required, a list); ``displayTimeUnit`` "ms" or "ns".
- Every event: ``ph`` a known phase; ``name`` a string; ``pid`` and ``tid`` integers;
  ``cat`` a string when present; ``args`` an object when present; ``ts`` a number
  (all phases but M).
- X: ``dur`` a number >= 0. i: ``s`` one of g, p, t. C: ``args`` of numbers.
- b/n/e and s/t/f: an ``id`` (string or integer) and a ``cat`` (async events are keyed
  by category and id); ``bp`` when present is "e".
- M: ``name`` one of the metadata names and ``args.name`` a string.
- B/E nest per (pid, tid) in timestamp order: every E closes an open B, and at the end
  no B is open (``allow_open`` relaxes the last for traces cut short).
- Integers in ``args`` of 64-bit range are kept exact: checked by ``exact_ints``.
"""

from __future__ import annotations

import numbers

PHASES = set("BEXiICbneSTpFstfPNODMVvRc(),") - {","}
ASYNC = set("bne")
FLOW = set("stf")
METADATA_NAMES = {"process_name", "process_labels", "process_sort_index", "thread_name", "thread_sort_index"}


def _num(v) -> bool:
    return isinstance(v, numbers.Real) and not isinstance(v, bool)


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def validate(doc, *, allow_open: bool = False) -> list[str]:
    out: list[str] = []
    if not isinstance(doc, dict):
        return ["not the Object Format: the top level is not an object"]
    events = doc.get("traceEvents")
    if not isinstance(events, list):
        return ["traceEvents is missing or not a list"]
    if "displayTimeUnit" in doc and doc["displayTimeUnit"] not in ("ms", "ns"):
        out.append(f"displayTimeUnit {doc['displayTimeUnit']!r} is not ms or ns")
    stacks: dict = {}
    timed = []
    for i, ev in enumerate(events):
        where = f"event {i}"
        if not isinstance(ev, dict):
            out.append(f"{where}: not an object")
            continue
        ph = ev.get("ph")
        if ph not in PHASES:
            out.append(f"{where}: unknown phase {ph!r}")
            continue
        if not isinstance(ev.get("name"), str):
            out.append(f"{where}: name missing or not a string")
        if not _int(ev.get("pid")):
            out.append(f"{where}: pid missing or not an integer")
        if (ph != "M" or ev.get("name") == "thread_name") and not _int(ev.get("tid")):
            out.append(f"{where}: tid missing or not an integer")
        if "cat" in ev and not isinstance(ev["cat"], str):
            out.append(f"{where}: cat is not a string")
        if "args" in ev and not isinstance(ev["args"], dict):
            out.append(f"{where}: args is not an object")
        if ph != "M" and not _num(ev.get("ts")):
            out.append(f"{where}: ts missing or not a number")
        if ph == "X" and not (_num(ev.get("dur")) and ev["dur"] >= 0):
            out.append(f"{where}: complete event without a dur >= 0")
        if ph == "i" and ev.get("s", "t") not in ("g", "p", "t"):
            out.append(f"{where}: instant scope {ev.get('s')!r} is not g, p or t")
        if ph == "C" and not all(_num(v) for v in ev.get("args", {}).values()):
            out.append(f"{where}: counter args must be numbers")
        if ph in ASYNC or ph in FLOW:
            if not (isinstance(ev.get("id"), str) or _int(ev.get("id"))):
                out.append(f"{where}: {ph} event without an id")
            if not isinstance(ev.get("cat"), str):
                out.append(f"{where}: {ph} event without a cat")
            if "bp" in ev and ev["bp"] != "e":
                out.append(f"{where}: bp {ev['bp']!r} is not e")
        if ph == "M":
            if ev.get("name") not in METADATA_NAMES:
                out.append(f"{where}: metadata name {ev.get('name')!r} unknown")
            elif ev.get("name").endswith("_name") and not isinstance(ev.get("args", {}).get("name"), str):
                out.append(f"{where}: metadata without args.name")
        if ph in ("B", "E") and _num(ev.get("ts")):
            timed.append((ev["ts"], i, ev))
    # B/E nesting per thread in timestamp order (file order breaks ties)
    timed.sort(key=lambda t: (t[0], t[1]))
    for _, i, ev in timed:
        key = (ev.get("pid"), ev.get("tid"))
        st = stacks.setdefault(key, [])
        if ev["ph"] == "B":
            st.append(i)
        elif not st:
            out.append(f"event {i}: E on thread {key} with no open B")
        else:
            st.pop()
    if not allow_open:
        for key, st in stacks.items():
            if st:
                out.append(f"{len(st)} B events on thread {key} never ended")
    return out


def exact_ints(text: str) -> bool:
    """True when the JSON text writes no integer-valued float (``1.8446744073709552e+19``)."""
    import re

    return re.search(r"\d[eE]\+?\d", text) is None
