"""The rule registry: every rule, by code. Rule modules declare; this module collects.

Rules are module-level ``Rule`` values in the family modules; they are also exposed
here by their Python name (``rules.record_size_zero``) for the code that reports them.
"""

from __future__ import annotations

from .._diagnostics import Rule
from . import layout as _layout
from . import log as _log
from . import semantic as _semantic

_FAMILIES = (_layout, _log, _semantic)

REGISTRY: dict[str, Rule] = {}
for _mod in _FAMILIES:
    for _name, _value in vars(_mod).items():
        if isinstance(_value, Rule):
            if _value.code in REGISTRY:
                raise RuntimeError(f"duplicate rule code {_value.code}")
            REGISTRY[_value.code] = _value
            globals()[_name] = _value
del _mod, _name, _value


def all_rules() -> list[Rule]:
    return [REGISTRY[c] for c in sorted(REGISTRY)]


def get(code: str) -> Rule | None:
    return REGISTRY.get(code.upper())
