"""Decoded records and arguments: plain frozen values, named after the spec tables.

The ``kind`` decides the ``type``: a known kind with another type raises ``FxtError``
(an undefined type or subtype is kind "unknown" or "<variant>.unknown").

``fields`` holds every header field and body word by its table name, as raw integers
(string and thread refs stay refs); ``strings`` holds the inline streams by name (str
for valid UTF-8 text, bytes for binary payloads or text that is not UTF-8). Sizes,
stream lengths and inline ref lengths are recomputed by the encoder, so a record built
by hand may leave them out.
"""

from __future__ import annotations

import functools

from ._errors import FxtError
from ._frozen import F, Frozen


class FrozenMap(dict):
    """A read-only, hashable dict: what ``fields`` and ``strings`` hold, so records and
    arguments are values (usable as set members and dict keys) that nothing edits."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError("FrozenMap is read-only: build a new record with dataclasses.replace")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __hash__(self) -> int:  # type: ignore[override]  # dict's __hash__ is None; a frozen map hashes
        return hash(frozenset(self.items()))

    def __repr__(self) -> str:
        return f"FrozenMap({dict.__repr__(self)})"

    def __reduce__(self):
        return (FrozenMap, (dict(self),))


def _frozen(mapping) -> FrozenMap:
    return mapping if type(mapping) is FrozenMap else FrozenMap(mapping)


@functools.cache
def _types_by_kind() -> tuple[dict[str, int], dict[str, int]]:
    """Record type by leaf kind, and argument type by argument kind, from the tables."""
    from ._tables import tables

    t = tables()
    records = {leaf.name: leaf.type for leaf in t.record_leaves()}
    records.update({f"{root.name}.unknown": rtype for rtype, root in t.records.items()})
    for leaf in t.record_leaves():  # an undefined sub-variant below a defined variant
        parent = leaf.name.rpartition(".")[0]
        if parent:
            records.setdefault(f"{parent}.unknown", leaf.type)
    records[t.log_record.name] = t.log_record.type
    arguments = {a.name: atype for atype, a in t.arguments.items()}
    return records, arguments


def _check_type(what: str, kind: str, given: int, expected: dict[str, int]) -> None:
    """The kind decides the type: a record of kind "string" and type 7 is refused."""
    want = expected.get(kind)
    if want is None:
        if kind != "unknown":
            raise FxtError(f"{what} kind {kind!r} is not a table name or 'unknown'")
    elif given != want:
        raise FxtError(f"{what} of kind {kind!r} has type {want}, not {given}")


# the (kind, type) pairs ``_check_type`` accepted, of the tables' kinds (one type each: the
# sets stay as small as the tables; "unknown" takes any type and is asked every time):
# a record decoded on the hot path asks a set
_CHECKED_RECORDS: set[tuple[str, int]] = set()
_CHECKED_ARGUMENTS: set[tuple[str, int]] = set()


def _checked(pairs: set, kind: str, type: int) -> None:
    if kind != "unknown":
        pairs.add((kind, type))


class Argument(Frozen):
    """One argument of a record (frozen; ``dataclasses.replace`` makes a changed copy)."""

    type: int
    kind: str  # the table name ("int32", "string", ...) or "unknown"
    fields: FrozenMap
    strings: FrozenMap
    extra_words: tuple[int, ...]
    raw: bytes  # the undecoded body of an unknown argument type
    offset: int  # byte offset of its header, when read (not compared)
    complete: bool  # False when its content overran its size (not compared)
    _spec = (F("type"), F("kind"), F("fields", factory=dict), F("strings", factory=dict), F("extra_words", ()),
             F("raw", b""), F("offset", -1, compare=False), F("complete", True, compare=False))

    def __init__(self, type: int, kind: str, fields: dict | None = None, strings: dict | None = None,
                 extra_words: tuple[int, ...] = (), raw: bytes = b"", offset: int = -1, complete: bool = True):
        if (kind, type) not in _CHECKED_ARGUMENTS:
            _check_type("argument", kind, type, _types_by_kind()[1])
            _checked(_CHECKED_ARGUMENTS, kind, type)
        self.__dict__.update(type=type, kind=kind, fields=_frozen({} if fields is None else fields),
                             strings=_frozen({} if strings is None else strings), extra_words=extra_words, raw=raw,
                             offset=offset, complete=complete)

    @property
    def name(self) -> str | int:
        """The inline name, or the string index of an indexed name (0: empty)."""
        return self.strings.get("name", self.fields.get("name", 0))

    @property
    def value(self):
        if self.kind == "string":
            return self.strings.get("value", self.fields.get("value", 0))
        if self.kind == "blob":
            return self.strings.get("payload", b"")
        if self.kind == "bool":
            return bool(self.fields.get("value", 0))
        return self.fields.get("value")


class Record(Frozen):
    """One record (frozen; ``dataclasses.replace`` makes a changed copy)."""

    type: int
    kind: str  # dotted table name, e.g. "event.duration_begin"; "unknown" when undefined
    fields: FrozenMap
    strings: FrozenMap
    args: tuple[Argument, ...]
    extra_words: tuple[int, ...]
    raw: bytes  # the undecoded body of an undefined record type or subtype
    # (not compared:) where it was read, and how much of it
    offset: int
    index: int
    size_words: int
    complete: bool  # False when decoding stopped early
    _spec = (F("type"), F("kind"), F("fields", factory=dict), F("strings", factory=dict), F("args", ()),
             F("extra_words", ()), F("raw", b""), F("offset", -1, compare=False), F("index", -1, compare=False),
             F("size_words", 0, compare=False), F("complete", True, compare=False))

    def __init__(self, type: int, kind: str, fields: dict | None = None, strings: dict | None = None,
                 args: tuple[Argument, ...] = (), extra_words: tuple[int, ...] = (), raw: bytes = b"",
                 offset: int = -1, index: int = -1, size_words: int = 0, complete: bool = True):
        if (kind, type) not in _CHECKED_RECORDS:
            _check_type("record", kind, type, _types_by_kind()[0])
            _checked(_CHECKED_RECORDS, kind, type)
        self.__dict__.update(type=type, kind=kind, fields=_frozen({} if fields is None else fields),
                             strings=_frozen({} if strings is None else strings), args=args,
                             extra_words=extra_words, raw=raw, offset=offset, index=index, size_words=size_words,
                             complete=complete)

    @property
    def end(self) -> int:
        return self.offset + 8 * self.size_words
