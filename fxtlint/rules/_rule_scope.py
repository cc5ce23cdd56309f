"""What each rule looks at, so a report can tell "passed" from "not exercised".

A rule passes a trace only when the trace contains something the rule examines and
the rule never tripped; a trace with no async events does not pass the async rules.
Scopes are data: each rule names features (``CoverageCollector.features``); a
``layout:`` scope is expanded from the spec tables into the record kinds whose
layouts have such a field, so it follows the tables. A rule is exercised when any
of its features is present. ``tests/test_conformance_report.py`` checks that every
registered rule has a scope.
"""

from __future__ import annotations

from ..spec._tables import tables

_T = tables()

_PAIR_BEGINS = ("kind:event.duration_begin", "kind:event.async_begin", "kind:event.flow_begin")
_FLOWS = ("kind:event.flow_begin", "kind:event.flow_step", "kind:event.flow_end")

SCOPES: dict[str, tuple[str, ...]] = {
    "EX001": ("records:trace",),
    "EX002": ("format:trace",),
    "FR001": ("file",),
    "FR002": ("file",),
    "FR003": ("file",),
    "FR004": ("records:trace",),
    "MG001": ("format:trace",),
    "MG002": ("kind:metadata.trace_info.magic",),
    "MG003": ("kind:metadata.trace_info.magic",),
    "MG004": ("kind:metadata.trace_info.magic",),
    "MG005": ("file",),
    "PR001": ("kind:event.duration_end",),
    "PR002": ("kind:event.duration_end",),
    "PR003": ("kind:event.duration_begin",),
    "PR004": _PAIR_BEGINS,
    "PR005": ("kind:event.async_instant", "kind:event.async_end"),
    "PR006": ("kind:event.async_begin", "kind:event.flow_begin"),
    "PR007": ("kind:event.flow_step", "kind:event.flow_end"),
    "PR008": _FLOWS,
    "EV001": ("kind:event.counter",),
    "EV002": ("kind:scheduling.legacy_context_switch",),
    "EV003": ("kind:metadata.provider_event",),
    "PR012": _PAIR_BEGINS,
    "RB001": ("layout:reserved",),
    "RB002": ("arg_layout:reserved",),
    "RB003": ("layout:zero",),
    "RF001": ("indexed_string_ref",),
    "RF002": ("indexed_thread_ref",),
    "RF003": ("kind:string",),
    "RF004": ("kind:thread",),
    "RF005": ("kind:metadata.provider_section",),
    "RF006": ("kind:string",),
    "RF007": ("kind:string", "kind:thread"),
    "SL001": ("records:log",),
    "SL002": ("records:log",),
    "SL003": ("records:log",),
    "SL004": ("args:log",),
    "SL005": ("args:log",),
    "SL006": ("args:log",),
    "ST001": ("records",),
    "ST002": ("text", "kind:blob", "kind:large.blob.with_metadata", "kind:large.blob.no_metadata", "arg:blob"),
    "ST003": ("text",),
    "ST004": ("text",),
    "ST005": ("args",),
    "ST006": ("args",),
    "ST007": ("args",),
    "ST008": ("text",),
    "TM001": ("kind:initialization",),
    "TM002": ("kind:event.duration_complete",),
    "TM003": ("timestamps",),
    "UN001": ("records:trace",),
    "UN002": ("layout:selector",),
    "UN003": ("args",),
    "UN004": ("layout:enum",),
}


def _all_fields(layout):
    yield from layout.full_fields
    for it in layout.full_body:
        yield from it.fields


def _nodes():
    stack = list(_T.records.values())
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node.variants.values())


def _layout_features() -> dict[str, tuple[str, ...]]:
    """``layout:X`` -> the record kinds (and ``arg_layout:X`` the argument kinds) with X."""
    leaves = list(_T.record_leaves())
    selected = {lay.name for root in _T.records.values() if not root.is_leaf for lay in root.leaves()}
    out = {
        "layout:reserved": [f"kind:{lf.name}" for lf in leaves if any(f.reserved for f in _all_fields(lf))],
        "layout:zero": [f"kind:{lf.name}" for lf in leaves if any(f.zero for f in _all_fields(lf))],
        "layout:enum": [f"kind:{lf.name}" for lf in leaves
                        if any(f.enum and f.enum != "severity" for f in _all_fields(lf))],
        "layout:selector": [f"kind:{name}" for name in sorted(selected)],
        "arg_layout:reserved": [f"arg:{a.name}" for a in _T.arguments.values()
                                if any(f.reserved for f in _all_fields(a))],
    }
    # a record of a selected type whose subtype is undefined still had its selector read
    out["layout:selector"] += [f"kind:{node.name}.unknown" for node in _nodes() if not node.is_leaf]
    return {k: tuple(v) for k, v in out.items()}


EXPANSIONS = _layout_features()


def features_of(code: str) -> tuple[str, ...]:
    """The concrete features rule ``code`` looks at (empty for a rule with no scope)."""
    out: list[str] = []
    for feat in SCOPES.get(code, ()):
        out.extend(EXPANSIONS.get(feat, (feat,)))
    return tuple(out)


def exercised(code: str, features: set[str]) -> bool:
    return any(f in features for f in features_of(code))
