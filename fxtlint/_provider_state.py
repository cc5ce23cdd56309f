"""What a reader needs to give records meaning: each provider's string and thread tables
and tick rate, switched by Provider Info and Provider Section records.

Memory grows with the tables (at most 32,767 strings and 255 threads per provider),
never with the file. Used by the coverage collector, the Trace Event exporter and the canonical decoding;
the linter keeps its own state (``_semantic``) because it also reports problems.
"""

from __future__ import annotations

from ._model import Record
from ._tables import tables

_T = tables()
INLINE_BIT = _T.string_inline_bit
NS_PER_S = 10**9


def _roles(layout, role) -> tuple[str, ...]:
    names = [f.name for f in layout.full_fields if f.role == role]
    for it in layout.full_body:
        names += [f.name for f in it.fields if f.role == role]
        if it.kind == "word" and it.role == role:
            names.append(it.name)
    return tuple(names)


# per record kind, from the tables: its string-ref, thread-ref and timestamp fields
STRING_REFS = {leaf.name: _roles(leaf, "string_ref") for leaf in _T.record_leaves()}
THREAD_REFS = {leaf.name: _roles(leaf, "thread_ref") for leaf in _T.record_leaves()}
TIMESTAMPS = {leaf.name: _roles(leaf, "timestamp") for leaf in _T.record_leaves()}
ARG_STRING_REFS = {a.name: _roles(a, "string_ref") for a in _T.arguments.values()}
_STRING_INDEX = next(f.name for leaf in _T.record_leaves() for f in leaf.full_fields if f.role == "string_index")
_THREAD_INDEX = next(f.name for leaf in _T.record_leaves() for f in leaf.full_fields if f.role == "thread_index")
# the koid words an inline thread ref stands for, per (kind, thread-ref field)
INLINE_KOIDS = {
    (leaf.name, it.cond): it.names for leaf in _T.record_leaves() for it in leaf.full_body if it.kind == "words"
}


class Provider:
    __slots__ = ("id", "name", "strings", "threads", "rate")

    def __init__(self, pid):
        self.id = pid
        self.name: str | None = None
        self.strings: dict[int, str] = {}
        self.threads: dict[int, tuple[int, int]] = {}
        self.rate = NS_PER_S  # without an Initialization record one tick is one nanosecond


class ProviderState:
    """Feed every record to ``observe`` in file order; then resolve refs of the current one."""

    def __init__(self):
        self.providers: dict = {}
        self.current = self._provider(None)

    def _provider(self, pid) -> Provider:
        p = self.providers.get(pid)
        if p is None:
            p = self.providers[pid] = Provider(pid)
        return p

    def observe(self, rec: Record) -> None:
        k = rec.kind
        f = rec.fields
        if k == "metadata.provider_info":
            self.current = self._provider(f.get("provider_id"))
            name = rec.strings.get("provider_name")
            if isinstance(name, str):
                self.current.name = name
        elif k == "metadata.provider_section":
            self.current = self._provider(f.get("provider_id"))
        elif not rec.complete:
            return  # a table record that did not decode registers nothing
        elif k == "initialization":
            self.current.rate = f.get("ticks_per_second", 0)
        elif k == "string" and f.get(_STRING_INDEX, 0) != 0:  # index 0 is always ""
            v = rec.strings.get("value", "")
            self.current.strings[f[_STRING_INDEX]] = v if isinstance(v, str) else v.decode("utf-8", "replace")
        elif k == "thread" and f.get(_THREAD_INDEX, 0) != 0:  # thread ref 0 means inline
            self.current.threads[f[_THREAD_INDEX]] = (f.get("process_koid", 0), f.get("thread_koid", 0))

    def string(self, fields: dict, strings: dict, name: str) -> str | None:
        """The text of string ref ``name``; None for an index never registered."""
        ref = fields.get(name, 0)
        if ref == 0:
            return ""
        if ref & INLINE_BIT:
            v = strings.get(name, "")
            return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")
        return self.current.strings.get(ref)

    def thread(self, rec: Record, name: str) -> tuple[int, int] | None:
        """(process koid, thread koid) of thread ref ``name``; None when unknown."""
        ref = rec.fields.get(name, 0)
        if ref == 0:
            names = INLINE_KOIDS.get((rec.kind, name))
            if not names or names[0] not in rec.fields:
                return None
            return tuple(rec.fields.get(n, 0) for n in names)
        return self.current.threads.get(ref)

    def ticks_to_ns(self, ticks: int) -> int | None:
        rate = self.current.rate
        return None if rate == 0 else ticks * NS_PER_S // rate
