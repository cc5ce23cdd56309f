"""The one model of a reader's state: each provider's string and thread tables and its
tick rate, and which provider is current.

What a record does to that state is data: the tables' ``effect`` of each record kind
(``spec-tables/records.toml``: names a provider, switches provider, sets the tick rate,
registers a string, registers a thread, sets the byte order). ``ProviderState.apply``
carries the effect of one decoded record out and returns the ``Change`` it made; the
walk (``_walk``) calls it for every such record in file order, and every consumer
reads the same state: the linter (which reports on the changes: index 0, a changed
registration, an unannounced provider, a tick rate of 0), the coverage, the Trace Event
export and the canonical decoding.

Strings are interned: a table maps an index to a small id, and ``strings.values[id]``
is the value as read (a ``str``, or the raw bytes of text that is not UTF-8). Memory
grows with the tables (at most 32,767 strings and 255 threads per provider), never with
the file.
"""

from __future__ import annotations

from collections import namedtuple

from ..spec._model import Record
from ..spec._roles import EFFECT_OF, INLINE_KOIDS, field_of_role
from ..spec._tables import EFFECTS, TableError, tables
from ..spec._time import DEFAULT_RATE, U64, max_ticks
from ..spec._time import NS_PER_S as NS_PER_S  # re-exported for the consumers that import it here

_T = tables()
_new = object.__new__
INLINE_BIT = _T.string_inline_bit
_STRING_INDEX = field_of_role("string", "string_index")
_THREAD_INDEX = field_of_role("thread", "thread_index")


class Interner:
    """Gives each distinct value a small int id; ``values[id]`` gives it back."""

    __slots__ = ("ids", "values")

    def __init__(self):
        self.ids: dict = {}
        self.values: list = []

    def __call__(self, value) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i


class Provider:
    """A provider's tables: its name, string table (index -> interned string id), thread
    table (index -> (process koid, thread koid)), tick rate (without an Initialization record
    one tick is one nanosecond) and largest timestamp that converts (1 tick = 1 ns: none
    overflows). Made by ``__new__`` alone (no ``__init__`` to call: one Python call a
    provider, ``ProviderState``'s, a small lint's fixed cost)."""

    __slots__ = ("id", "name", "strings", "threads", "rate", "max_ticks")
    id: int | None
    name: str | None
    strings: dict[int, int]
    threads: dict[int, tuple[int, int]]
    rate: int
    max_ticks: int

    def __new__(cls, pid=None):  # (None: what a copy makes before it sets the fields)
        p = _new(cls)
        p.id, p.name, p.strings, p.threads, p.rate, p.max_ticks = pid, None, {}, {}, DEFAULT_RATE, U64 - 1
        return p


# (collections' namedtuple, not typing's NamedTuple: a small lint imports no typing)
class Change(namedtuple("Change", ("effect", "provider", "key", "old", "new"), defaults=(None, None, None))):
    """What one record did: its ``effect`` (str), the ``provider`` it acted on, the string
    or thread index it registered (``key``, int or None; 0: refused, index 0 is reserved),
    the entry it replaced (``old``; None: none) and the ``new`` one (by effect: an
    interned string id, a (process, thread) koid pair, a tick rate)."""

    __slots__ = ()


class ProviderState:
    """Every provider's tables, and the current provider. ``apply(record)`` for each
    record with an effect, in file order; then resolve refs against ``current``."""

    def __init__(self):
        # (each object made with its fields set here, without its ``__init__``'s call: a small
        # lint's fixed cost)
        self.strings = s = _new(Interner)
        s.ids, s.values = {"": 0}, [""]  # id 0 is the empty string
        self._threads: Interner | None = None  # (``threads``: made at the first pair interned)
        # (``Provider(None)``: its fields set here, without its ``__new__``'s call)
        self.current = p = _new(Provider)
        p.id, p.name, p.strings, p.threads, p.rate, p.max_ticks = None, None, {}, {}, DEFAULT_RATE, U64 - 1
        self.providers: dict = {None: p}
        self.announced: set = set()  # providers named by a Provider Info record

    @property
    def threads(self) -> Interner:
        """The interned (process koid, thread koid) pairs (made at the first: a lint with
        nothing to pair interns none)."""
        t = self._threads
        if t is None:
            t = self._threads = Interner()
        return t

    def provider(self, pid) -> Provider:
        p = self.providers.get(pid)
        if p is None:
            # (``Provider(pid)``: its fields set here, without its ``__new__``'s call)
            p = self.providers[pid] = _new(Provider)
            p.id, p.name, p.strings, p.threads, p.rate, p.max_ticks = pid, None, {}, {}, DEFAULT_RATE, U64 - 1
        return p

    # -- effects ----------------------------------------------------------------------
    def apply(self, rec: Record) -> Change | None:
        """Carry out the effect of ``rec`` (None for a record without one, or one that did
        not decode: a string, thread or initialization record cut short registers nothing;
        the metadata records act on header fields alone)."""
        effect = EFFECT_OF.get(rec.kind)
        if effect is None:
            return None
        return _APPLY[effect](self, rec)

    def _byte_order(self, rec: Record) -> None:
        return None  # read before the walk starts (``_reader.detect_byte_order``)

    def _names_provider(self, rec: Record) -> Change:
        pid = rec.fields.get("provider_id")
        self.announced.add(pid)
        p = self.current = self.provider(pid)
        name = rec.strings.get("provider_name")
        if isinstance(name, str):
            p.name = name
        return Change("names_provider", p)

    def _switches_provider(self, rec: Record) -> Change:
        p = self.current = self.provider(rec.fields.get("provider_id"))
        return Change("switches_provider", p)

    def _sets_tick_rate(self, rec: Record) -> Change | None:
        if not rec.complete:
            return None
        rate = rec.fields.get("ticks_per_second", 0)
        p = self.current
        old = (p.max_ticks, p.rate)
        # a rate of 0 converts nothing: no timestamp is said to overflow
        p.rate, p.max_ticks = rate, (max_ticks(rate) if rate else U64 - 1)
        return Change("sets_tick_rate", p, old=old, new=rate)

    def _registers_string(self, rec: Record) -> Change | None:
        if not rec.complete:
            return None
        p = self.current
        idx = rec.fields.get(_STRING_INDEX, 0)
        if idx == 0:  # index 0 is always the empty string: nothing is registered
            return Change("registers_string", p, key=0)
        gid = self.strings(rec.strings.get("value", ""))
        old = p.strings.get(idx)
        p.strings[idx] = gid
        return Change("registers_string", p, key=idx, old=old, new=gid)

    def _registers_thread(self, rec: Record) -> Change | None:
        if not rec.complete:
            return None
        p = self.current
        idx = rec.fields.get(_THREAD_INDEX, 0)
        if idx == 0:  # thread ref 0 means an inline thread: nothing is registered
            return Change("registers_thread", p, key=0)
        koids = (rec.fields.get("process_koid", 0), rec.fields.get("thread_koid", 0))
        old = p.threads.get(idx)
        p.threads[idx] = koids
        return Change("registers_thread", p, key=idx, old=old, new=koids)

    # -- reading refs against the current provider -------------------------------------
    def text(self, gid: int) -> str:
        """An interned string as text (text that is not UTF-8 with replacement characters)."""
        v = self.strings.values[gid]
        return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")

    def string(self, fields: dict, strings: dict, name: str) -> str | None:
        """The text of string ref ``name``; None for an index never registered."""
        ref = fields.get(name, 0)
        if ref == 0:
            return ""
        if ref & INLINE_BIT:
            v = strings.get(name, "")
            return v if isinstance(v, str) else bytes(v).decode("utf-8", "replace")
        gid = self.current.strings.get(ref)
        return None if gid is None else self.text(gid)

    def thread(self, rec: Record, name: str) -> tuple[int, int] | None:
        """(process koid, thread koid) of thread ref ``name``; None when unknown."""
        ref = rec.fields.get(name, 0)
        if ref == 0:
            names = INLINE_KOIDS.get((rec.kind, name))
            if not names or names[0] not in rec.fields:
                return None
            return tuple(rec.fields.get(n, 0) for n in names)
        return self.current.threads.get(ref)


_APPLY = {
    "sets_byte_order": ProviderState._byte_order,
    "names_provider": ProviderState._names_provider,
    "switches_provider": ProviderState._switches_provider,
    "sets_tick_rate": ProviderState._sets_tick_rate,
    "registers_string": ProviderState._registers_string,
    "registers_thread": ProviderState._registers_thread,
}
if set(_APPLY) != set(EFFECTS):  # pragma: no cover - a new effect in the language needs its handler
    raise TableError(f"effects without a handler: {set(EFFECTS) ^ set(_APPLY)}")
