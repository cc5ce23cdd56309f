"""What each rule looks at, so a report can tell "passed" from "not exercised".

A rule passes a trace only when the trace contains something the rule examines and
the rule never tripped; a trace with no async events does not pass the async rules.
Scopes are data: each rule's declaration names features (``Rule.scope``, from
``CoverageCollector.features``; a rule in force without one does not load). A
``layout:`` scope is expanded from the spec tables into the record kinds whose layouts
have such a field, and ``checks`` into the record kinds with a field the tables give
the rule to check, so both follow the tables. A rule is exercised when any of its
features is present.
"""

from __future__ import annotations

from ..spec._tables import tables
from . import all_rules

_T = tables()

# each rule's scope, from its declaration (``Rule.scope``)
SCOPES: dict[str, tuple[str, ...]] = {r.code: r.scope for r in all_rules()}


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
        "layout:selector": [f"kind:{name}" for name in sorted(selected)],
        "arg_layout:reserved": [f"arg:{a.name}" for a in _T.arguments.values()
                                if any(f.reserved for f in _all_fields(a))],
    }
    # a record of a selected type whose subtype is undefined still had its selector read
    out["layout:selector"] += [f"kind:{node.name}.unknown" for node in _nodes() if not node.is_leaf]
    return {k: tuple(v) for k, v in out.items()}


EXPANSIONS = _layout_features()


def _checked_by(code: str) -> tuple[str, ...]:
    """``checks``: the record kinds with a field whose check the tables give to ``code``."""
    return tuple(f"kind:{lf.name}" for lf in _T.record_leaves()
                 if any(code in (f.rule, f.rule_between) for f in _all_fields(lf)))


def features_of(code: str) -> tuple[str, ...]:
    """The concrete features rule ``code`` looks at (empty for a rule with no scope)."""
    out: list[str] = []
    for feat in SCOPES.get(code, ()):
        out.extend(_checked_by(code) if feat == "checks" else EXPANSIONS.get(feat, (feat,)))
    return tuple(out)


def exercised(code: str, features: set[str]) -> bool:
    return any(f in features for f in features_of(code))
