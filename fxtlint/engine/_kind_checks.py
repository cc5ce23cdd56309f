"""Per-kind semantic predicates on a record's own fields, each written once.

Both engines evaluate the same ``KindCheck`` values: the reference (``_semantic``)
reports ``check.rule`` for a record whose fields make ``check.holds`` true; the screen's
compiler (``_kernel_program``) writes the same comparison into the native walk's program,
whose screen writes a row where it holds, rendered with the same check. A check is data:
``("less", a, b)`` holds when field a < field b, ``("equal", f, v)`` when field f == v.
"""

from __future__ import annotations

from collections import namedtuple

from .. import rules as R
from ..spec._roles import BUFFER_FULL, RUNNING, TIMESTAMPS
from ..spec._tables import tables

_T = tables()
# the record that says a provider dropped records (EV003): the one with a provider-event field
PROVIDER_EVENT, EVENT_ID = next((leaf.name, f.name) for leaf in _T.record_leaves() for f in leaf.full_fields
                                if f.enum == "provider_event")
# EV002: its outgoing thread must not stay running
LEGACY_SWITCH = _T.leaf("scheduling.legacy_context_switch").name


# (collections' namedtuple, not typing's NamedTuple: a small lint imports no typing)
class KindCheck(namedtuple("KindCheck", ("op", "a", "b", "rule", "params"))):
    """``op``: "less" or "equal"; ``a``: a field name; ``b``: a field name ("less") or a
    value ("equal"); ``rule``: what the reference reports when it holds (a ``Rule``);
    ``params``: the rule's message parameters, from the record's fields (a function of
    them)."""

    __slots__ = ()

    def holds(self, fields: dict) -> bool:
        if self.op == "less":
            return fields[self.a] < fields[self.b]
        return fields.get(self.a) == self.b


def _kind_checks(name: str) -> tuple[KindCheck, ...]:
    out = []
    stamps = TIMESTAMPS.get(name, ())
    if len(stamps) == 2:  # an end before its start (TM002)
        start, end = stamps
        out.append(KindCheck("less", end, start, R.complete_ends_before_start,
                             lambda f: {"end": f[end], "start": f[start]}))
    if name == LEGACY_SWITCH:
        out.append(KindCheck("equal", "outgoing_state", RUNNING, R.context_switch_outgoing_running, lambda f: {}))
    elif name == PROVIDER_EVENT:  # records dropped
        out.append(KindCheck("equal", EVENT_ID, BUFFER_FULL, R.records_dropped,
                             lambda f: {"provider": f["provider_id"]}))
    return tuple(out)


KIND_CHECKS = {leaf.name: c for leaf in _T.record_leaves() if (c := _kind_checks(leaf.name))}
