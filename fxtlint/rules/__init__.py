"""The rule registry: every rule, by code. Rule modules declare; this module collects.

``FAMILIES`` is the one sequence the registry is built from: every module-level
``Rule`` of each family module is registered, and exported here under the name it is
declared with (``rules.record_size_zero``, for the code that reports it). Adding a rule
is declaring it in its family module, nothing else. Retired codes stay in ``REGISTRY``
(status "removed", never reused); ``all_rules()`` is the rules in force.
"""

from __future__ import annotations

from . import layout, log, removed, semantic
from ._diagnostics import Diagnostic, Rule

# the family modules' rules, by their declared names (``__all__`` below lists them)
from .layout import *  # noqa: F403
from .log import *  # noqa: F403
from .removed import *  # noqa: F403
from .semantic import *  # noqa: F403

# (the star imports bring the family modules' builders too, each a ``_later.LaterModule``
# that binds the module in its own family's globals at its first use: a copy here would
# stay a proxy; ``fxtlint.spec._build`` and ``_mutate``, ``_ex`` are where they live)
for _name in ("B", "M", "X"):
    del globals()[_name]
del _name

FAMILIES = (layout, log, semantic, removed)


def _collect() -> dict[str, tuple[str, Rule]]:
    """code -> (declared name, rule), over every family; a code declared twice raises."""
    registry: dict[str, tuple[str, Rule]] = {}
    for mod in FAMILIES:
        for name, value in vars(mod).items():
            if isinstance(value, Rule) and not name.startswith("_"):
                if value.code in registry:
                    raise RuntimeError(f"duplicate rule code {value.code}: {registry[value.code][0]} and {name}")
                registry[value.code] = (name, value)
    return registry


_DECLARED = _collect()
REGISTRY: dict[str, Rule] = {code: rule for code, (_, rule) in _DECLARED.items()}


def all_rules() -> list[Rule]:
    """The rules in force, by code (the removed codes are left out)."""
    return [REGISTRY[c] for c in sorted(REGISTRY) if REGISTRY[c].status != "removed"]


def removed_rules() -> list[Rule]:
    """Retired codes, kept so that they are never reused; each names its replacement."""
    return [REGISTRY[c] for c in sorted(REGISTRY) if REGISTRY[c].status == "removed"]


def get(code: str) -> Rule | None:
    return REGISTRY.get(code.upper())


def identity(d: Diagnostic) -> dict | None:
    """What identifies a finding whatever else the trace holds: its code and its own
    fields (``details`` without the rule's ``positions``, which name other records'
    places and the file's length). None for a code not in the registry."""
    rule = REGISTRY.get(d.code)
    if rule is None:
        return None
    moving = {"found" if p == "value" else p for p in rule.positions}
    return {k: v for k, v in sorted(d.details.items()) if k not in moving}


__all__ = ["FAMILIES", "REGISTRY", "Rule", "all_rules", "get", "identity", "removed_rules"]
__all__.extend(sorted(name for name, _ in _DECLARED.values()))
