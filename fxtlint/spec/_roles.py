"""What each record kind's fields are for, read from the tables' roles, once.

Every engine and tool looks fields up by role here (the string refs of an event, the
koid words an inline thread ref stands for, the records that change a reader's
state), never by a list typed in code: a layout added to ``spec-tables/`` is covered.
"""

from __future__ import annotations

from types import MappingProxyType

from ._tables import EFFECTS, WordItem, WordsItem, tables

_T = tables()


def _roles(layout, role) -> tuple[str, ...]:
    names = [f.name for f in layout.full_fields if f.role == role]
    for it in layout.full_body:
        if isinstance(it, WordItem):
            names += [f.name for f in it.fields if f.role == role]
            if it.role == role:
                names.append(it.name)
    return tuple(names)


_LEAVES = tuple(_T.record_leaves())

# per record kind: its string-ref, thread-ref and timestamp fields (timestamps in layout order)
STRING_REFS = MappingProxyType({leaf.name: _roles(leaf, "string_ref") for leaf in _LEAVES})
THREAD_REFS = MappingProxyType({leaf.name: _roles(leaf, "thread_ref") for leaf in _LEAVES})
TIMESTAMPS = MappingProxyType({leaf.name: _roles(leaf, "timestamp") for leaf in _LEAVES})
# per argument kind: its string-ref fields (the name, and a string argument's value)
ARG_STRING_REFS = MappingProxyType({a.name: _roles(a, "string_ref") for a in _T.arguments.values()})
# header fields by name, to mark a field in a hex view
HEADER_FIELDS = MappingProxyType({leaf.name: {f.name: f for f in leaf.full_fields} for leaf in _LEAVES})
ARG_HEADER_FIELDS = MappingProxyType({a.name: {f.name: f for f in a.full_fields} for a in _T.arguments.values()})
# the koid words an inline thread ref stands for, per (kind, thread-ref field)
INLINE_KOIDS = MappingProxyType({
    (leaf.name, it.cond): it.names for leaf in _LEAVES for it in leaf.full_body if isinstance(it, WordsItem)
})
# the records that change a reader's state, and how (the tables' ``effect``)
EFFECT_OF = MappingProxyType({leaf.name: leaf.effect for leaf in _LEAVES if leaf.effect is not None})
STATE_KINDS = frozenset(EFFECT_OF)
KIND_OF_EFFECT = MappingProxyType({e: k for k, e in EFFECT_OF.items()})

if set(KIND_OF_EFFECT) != set(EFFECTS) or len(KIND_OF_EFFECT) != len(EFFECT_OF):  # pragma: no cover
    raise RuntimeError(f"each effect names exactly one record kind: {dict(EFFECT_OF)}")


def field_of_role(kind: str, role: str) -> str:
    """The one field of ``kind`` with ``role`` (a string or thread record's index)."""
    (name,) = _roles(_T.leaf(kind), role)
    return name


def is_undefined(kind: str) -> bool:
    """A record of an undefined type or subtype (the reader's "unknown" kinds)."""
    return kind == "unknown" or kind.endswith(".unknown")

# enumeration values the rules compare against (EV002: the outgoing thread's state;
# EV003: a provider event saying its buffer filled), for the checks, mutations and strategies
RUNNING = _T.value_of("thread_state", "running")
BUFFER_FULL = _T.value_of("provider_event", "buffer_full")
