"""Retired codes. They stay in the registry with status "removed" so that no new rule
ever takes them (a baseline or a ``--ignore`` written for an old release keeps its
meaning); ``replaced_by`` names the code that reports the same defect now.

PR held rules that are not about pairing: they moved to EV (event content), under
names that say the defect rather than the event.
"""

from __future__ import annotations

from . import semantic as _semantic
from ._diagnostics import Rule


def _moved(code: str, name: str, now: Rule) -> Rule:
    # (``dataclasses.replace``'s copy, without importing dataclasses at start-up)
    fields = {n: getattr(now, n) for n in Rule.__match_args__}
    return Rule(**{
        **fields, "code": code, "name": name, "status": "removed", "replaced_by": now.code, "scope": (),
        "mutation": None, "no_mutation": None, "also_trips": (), "reader_reason": None,
        "what": f"Removed: reported as {now.code} {now.name}. {now.what}",
    })


counter_argument_not_numeric_pr009 = _moved("PR009", "counter-argument-not-numeric",
                                            _semantic.counter_argument_not_numeric)
context_switch_outgoing_running_pr010 = _moved("PR010", "context-switch-outgoing-running",
                                               _semantic.context_switch_outgoing_running)
buffer_full_pr011 = _moved("PR011", "buffer-full", _semantic.records_dropped)
