"""Load spec-tables/*.toml into compiled layouts: the one source of every bit position.

A ``Layout`` is one node of the record tree (a record type, a variant, an argument
type). Leaves carry ``full_fields`` and ``full_body``: the header fields and body
items of the whole path from the record type down, with the variant placeholder
already spliced, so the reader and encoder walk a flat list.

The parsed table files are cached (``parsed_tables``): a start-up reads the cache and
parses no TOML unless a table file changed since the cache was written.
"""

from __future__ import annotations

import functools
import marshal
import os
import sys
from collections.abc import Mapping, Sequence
from types import MappingProxyType

from ._errors import FxtError
from ._frozen import F, Frozen

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import overload

# The vocabulary of the layout language: anything else in a table file is a typo.
ROLES = frozenset(("type", "size", "selector", "string_ref", "thread_ref", "arg_count", "string_index",
                   "thread_index", "timestamp"))
# pairing roles of event variants, the names the pairing engine's codes are looked up by
PAIRING_ROLES = ("begin", "end", "complete", "async_begin", "async_instant", "async_end", "flow_begin",
                 "flow_step", "flow_end")
CONTENTS = frozenset(("utf8", "binary"))
# what reading a record does to a reader's state (``_provider_state`` carries each out)
EFFECTS = ("sets_byte_order", "names_provider", "switches_provider", "sets_tick_rate", "registers_string",
           "registers_thread")


def _frozen(mapping: dict) -> Mapping:
    return MappingProxyType(mapping)


class TableError(FxtError):
    """A spec table that does not follow the layout language (unknown key, kind or role)."""


class Field(Frozen):
    """A bit field of a 64-bit word; ``rule`` is the code reported when its check fails
    (must-be-zero, const or enum), ``rule_between`` the code for an enum value that lies
    between two defined ones."""

    _spec = (F("name"), F("lo"), F("hi"), F("role", None), F("reserved", False), F("zero", False), F("const", None),
             F("enum", None), F("signed", False), F("rule", None), F("rule_between", None),
             *(F(n, init=False, repr=False, compare=False) for n in ("width", "mask", "word_mask", "sign_bit")))
    name: str
    lo: int
    hi: int
    role: str | None
    reserved: bool
    zero: bool
    const: int | None
    enum: str | None
    signed: bool
    rule: str | None
    rule_between: str | None
    # precomputed once: the accessors are on every decoded record's path
    width: int
    mask: int
    word_mask: int
    sign_bit: int

    def __init__(self, name: str, lo: int, hi: int, role: str | None = None, reserved: bool = False,
                 zero: bool = False, const: int | None = None, enum: str | None = None, signed: bool = False,
                 rule: str | None = None, rule_between: str | None = None):
        width = hi - lo + 1
        self.__dict__.update(name=name, lo=lo, hi=hi, role=role, reserved=reserved, zero=zero, const=const,
                             enum=enum, signed=signed, rule=rule, rule_between=rule_between, width=width,
                             mask=(1 << width) - 1, word_mask=((1 << width) - 1) << lo,
                             sign_bit=1 << (width - 1) if signed else 0)

    @property
    def must_be_zero(self) -> bool:
        return self.reserved or self.zero

    @property
    def checked(self) -> bool:
        return self.must_be_zero or self.const is not None or self.enum is not None

    def get(self, word: int) -> int:
        v = (word >> self.lo) & self.mask
        if v & self.sign_bit:
            v -= 1 << self.width
        return v

    @property
    def allowed(self) -> tuple[int, int]:
        """The values ``put`` accepts: the raw bit patterns, and negatives when signed."""
        return (-(1 << (self.width - 1)) if self.signed else 0, self.mask)

    def put(self, value: int) -> int:
        """``value`` in place within its word; FxtError when it does not fit the field."""
        lo, hi = self.allowed
        if not lo <= value <= hi:
            raise FxtError(f"field {self.name} (bits {self.lo}..{self.hi}) = {value} does not fit: "
                           f"allowed {lo} .. {hi}")
        return (value & self.mask) << self.lo

    def set(self, word: int, value: int) -> int:
        """``word`` with this field replaced by ``value`` (the other bits kept)."""
        return (word & ~self.word_mask) | self.put(value)


# -- body items: one class per kind; readers dispatch on the class, exhaustively ---------
class Item(Frozen):
    """A body item. ``kind`` names the class in the layout language; only words carry
    ``fields`` or a ``role``."""

    kind = ""
    fields: tuple = ()
    role: str | None = None


class WordItem(Item):
    """One 64-bit word, possibly carrying its own bit ``fields``."""

    _spec = (F("name"), F("fields", ()), F("role", None), F("signed", False), F("float", False), F("pairing_id", False))
    name: str
    fields: tuple[Field, ...]
    role: str | None
    signed: bool
    float: bool
    pairing_id: bool  # the word the pairing engine keys begin/end on
    kind = "word"

    def __init__(self, name: str, fields: tuple[Field, ...] = (), role: str | None = None, signed: bool = False,
                 float: bool = False, pairing_id: bool = False):
        self.__dict__.update(name=name, fields=fields, role=role, signed=signed, float=float, pairing_id=pairing_id)


class WordsItem(Item):
    """Words present only when the thread-ref field ``cond`` is 0 (an inline thread)."""

    _spec = (F("names"), F("cond"))
    names: tuple[str, ...]
    cond: str
    kind = "words"

    def __init__(self, names: tuple[str, ...], cond: str):
        self.__dict__.update(names=names, cond=cond)

    @property
    def name(self) -> str:
        return self.cond


class StringItem(Item):
    """The inline UTF-8 stream of the string-ref field ``name`` (when its inline bit is set)."""

    _spec = (F("name"),)
    name: str
    kind = "string"

    def __init__(self, name: str):
        self.__dict__["name"] = name


class StreamItem(Item):
    """A stream whose byte length is the field ``length``."""

    _spec = (F("name"), F("length"), F("content", "utf8"))
    name: str
    length: str
    content: str
    kind = "stream"

    def __init__(self, name: str, length: str, content: str = "utf8"):
        self.__dict__.update(name=name, length=length, content=content)


class ArgsItem(Item):
    """``name`` arguments (the count field), or "*": arguments until the record ends."""

    _spec = (F("name"),)
    name: str
    kind = "args"

    def __init__(self, name: str):
        self.__dict__["name"] = name


class VariantItem(Item):
    """The place where the chosen variant's body is spliced."""

    kind = "variant"
    name = ""


ITEM_CLASSES = (WordItem, WordsItem, StringItem, StreamItem, ArgsItem, VariantItem)


def check_dispatch(handlers: dict, who: str) -> dict:
    """Raise unless ``handlers`` (item class -> handler) covers exactly every item class."""
    missing = [c.kind for c in ITEM_CLASSES if c not in handlers]
    if missing or len(handlers) != len(ITEM_CLASSES):
        raise TableError(f"{who} has no handler for body items {missing}")
    return handlers


class Layout(Frozen):
    _spec = (F("name"), F("title"), F("spec"), F("fields"), F("body"), F("size_field"), F("selector", None),
             F("variants", factory=lambda: _frozen({})), F("extensible", True), F("type", None), F("value", None),
             F("full_fields", ()), F("full_body", ()), F("zero_mask", 0), F("pairing", None), F("numeric_args", False),
             F("numeric", False), F("effect", None), F("group", None))
    name: str  # dotted path, e.g. "event.duration_begin"
    title: str
    spec: str
    fields: tuple[Field, ...]
    body: tuple[Item, ...]
    size_field: Field  # the header's size field: every record type, argument type and log record has one
    selector: Field | None
    variants: Mapping[int, Layout]
    extensible: bool
    type: int | None
    value: int | None  # this variant's selector value
    full_fields: tuple[Field, ...]
    full_body: tuple[Item, ...]
    zero_mask: int  # header bits that must be zero (reserved and always-zero)
    pairing: str | None  # an event's role for the pairing engine (PAIRING_ROLES)
    numeric_args: bool  # every argument must be of a numeric type (counters)
    numeric: bool  # an argument type that holds a number
    effect: str | None  # what reading the record does to a reader's state (EFFECTS)
    group: str | None  # an event's group in the statistics (records.toml event_groups)

    def __init__(self, name: str, title: str, spec: str, fields: tuple[Field, ...], body: tuple[Item, ...],
                 size_field: Field, selector: Field | None = None, variants: Mapping[int, Layout] | None = None,
                 extensible: bool = True, type: int | None = None, value: int | None = None,
                 full_fields: tuple[Field, ...] = (), full_body: tuple[Item, ...] = (), zero_mask: int = 0,
                 pairing: str | None = None, numeric_args: bool = False, numeric: bool = False,
                 effect: str | None = None, group: str | None = None):
        self.__dict__.update(name=name, title=title, spec=spec, fields=fields, body=body, size_field=size_field,
                             selector=selector, variants=_frozen({}) if variants is None else variants,
                             extensible=extensible, type=type, value=value, full_fields=full_fields,
                             full_body=full_body, zero_mask=zero_mask, pairing=pairing, numeric_args=numeric_args,
                             numeric=numeric, effect=effect, group=group)

    @property
    def is_leaf(self) -> bool:
        return self.selector is None

    def leaves(self):
        if self.is_leaf:
            yield self
        for v in self.variants.values():
            yield from v.leaves()

    def named(self, name: str) -> Field:
        """The field called ``name``; TableError when the layout has none (for code that
        reads a field the spec requires, where None would only defer the failure)."""
        f = self.field(name)
        if f is None:
            raise TableError(f"layout {self.name!r} has no field {name!r}")
        return f

    if TYPE_CHECKING:
        @overload
        def field(self, name: str) -> Field | None: ...
        @overload
        def field(self, *, role: str) -> Field: ...

    def field(self, name: str | None = None, *, role: str | None = None) -> Field | None:
        """The field called ``name`` (None when there is none), or the one field with
        ``role`` (TableError unless exactly one field has it)."""
        if role is not None:
            return by_role(tuple(self.all_fields()), role, f"layout {self.name!r}")
        for f in self.full_fields:
            if f.name == name:
                return f
        for it in self.full_body:
            if isinstance(it, WordItem):
                for f in it.fields:
                    if f.name == name:
                        return f
        return None

    def all_fields(self):
        """Header fields, then the fields of body words, in layout order."""
        yield from self.full_fields
        for it in self.full_body:
            if isinstance(it, WordItem):
                yield from it.fields

    @property
    def pairing_id(self) -> str | None:
        """The body word holding the id the pairing engine keys on, if any."""
        return next((it.name for it in self.full_body if isinstance(it, WordItem) and it.pairing_id), None)


class Tables(Frozen):
    """The compiled spec tables: frozen, their mappings read-only, so the one cached
    value that ``tables()`` hands to every module cannot be changed by any of them."""

    _spec = tuple(F(n) for n in ("header", "records", "arguments", "argument_header", "enums", "enum_specs",
                                 "log_record", "undefined_record_types", "undefined_argument_types",
                                 "max_string_length", "max_record_words", "max_arguments", "magic_word",
                                 "string_inline_bit", "log_max_record_bytes", "log_allowed_argument_types",
                                 "event_groups"))
    header: tuple[Field, ...]
    records: Mapping[int, Layout]
    arguments: Mapping[int, Layout]
    argument_header: tuple[Field, ...]
    enums: Mapping[str, Mapping[int, str]]
    enum_specs: Mapping[str, str]
    log_record: Layout
    undefined_record_types: tuple[int, ...]
    undefined_argument_types: tuple[int, ...]
    max_string_length: int
    max_record_words: int
    max_arguments: int
    magic_word: int
    string_inline_bit: int  # a string ref with this bit set is inline; the bits below are its length
    log_max_record_bytes: int
    log_allowed_argument_types: tuple[int, ...]
    # the event kinds of each statistics group, the groups in records.toml's order
    event_groups: Mapping[str, tuple[str, ...]]

    def __init__(self, **fields):
        """Every field of ``_spec`` by name (TypeError for a missing or unknown one)."""
        if fields.keys() != set(self.__match_args__):
            raise TypeError(f"Tables() takes exactly the fields {self.__match_args__}, not {sorted(fields)}")
        self.__dict__.update(fields)

    def record_leaves(self):
        for root in self.records.values():
            yield from root.leaves()

    def field(self, *, role: str, of: str = "record") -> Field:
        """The header field with ``role`` of a record (``of="record"``) or an argument
        (``of="argument"``); TableError unless exactly one has it."""
        headers = {"record": self.header, "argument": self.argument_header}
        if of not in headers:
            raise TableError(f"no {of!r} header: one of {sorted(headers)}")
        return by_role(headers[of], role, f"{of} header")

    @functools.cached_property
    def _leaves(self) -> Mapping[str, Layout]:
        return _frozen({lay.name: lay for lay in self.record_leaves()})

    def leaf(self, name: str) -> Layout:
        """The record layout called ``name`` (dotted, e.g. "event.instant"); TableError if none."""
        try:
            return self._leaves[name]
        except KeyError:
            raise TableError(f"no record layout {name!r}") from None

    def root(self, name: str) -> Layout:
        """The record type called ``name`` (e.g. "event"), variants and all; TableError if none."""
        for lay in self.records.values():
            if lay.name == name:
                return lay
        raise TableError(f"no record type {name!r}")

    def argument(self, name: str) -> Layout:
        """The argument layout called ``name`` (e.g. "int64"); TableError if none."""
        for lay in self.arguments.values():
            if lay.name == name:
                return lay
        raise TableError(f"no argument type {name!r}")

    def value_of(self, enum: str, name: str) -> int:
        """The value called ``name`` in enumeration ``enum``; TableError when there is none."""
        for v, n in self.enums.get(enum, {}).items():
            if n == name:
                return v
        raise TableError(f"enumeration {enum!r} has no value named {name!r}")

    def enum_of(self, f: Field) -> Mapping[int, str]:
        """The enumeration of field ``f`` (value -> name); TableError when it has none."""
        if f.enum is None:
            raise TableError(f"field {f.name!r} has no enumeration")
        return self.enums[f.enum]

    def values(self, f: Field) -> Sequence[int]:
        """The values field ``f`` may hold: its constant, its enumeration's values, or
        its whole range (``Field.allowed``)."""
        if f.const is not None:
            return (f.const,)
        if f.enum is not None:
            return tuple(sorted(self.enums[f.enum]))
        lo, hi = f.allowed
        return range(lo, hi + 1)

    def undefined_values(self, f: Field) -> tuple[int, ...]:
        """The bit patterns of field ``f`` that ``values`` leaves out (what its rule reports);
        TableError for a field too wide to list them (more than 16 bits)."""
        if f.width > 16:
            raise TableError(f"field {f.name!r} has {f.width} bits: too many values to list")
        allowed = set(self.values(f))
        return tuple(v for v in range(f.mask + 1) if v not in allowed)

    def numeric_argument_kinds(self) -> tuple[str, ...]:
        return tuple(a.name for a in self.arguments.values() if a.numeric)


# -- the strict loader ------------------------------------------------------------------
_FIELD_KEYS = frozenset(("name", "bits", "role", "reserved", "zero", "const", "enum", "signed", "rule",
                         "rule_between"))
_LAYOUT_KEYS = frozenset(("type", "value", "name", "title", "spec", "selector", "fields", "body", "variant",
                          "extensible", "size_bits", "pairing", "numeric_args", "numeric", "effect", "group"))
# each body item is named by its one kind key; these are the keys each kind allows
_ITEM_KEYS = {
    "word": frozenset(("word", "fields", "role", "signed", "float", "pairing_id")),
    "words": frozenset(("words", "if_inline_thread")),
    "string": frozenset(("string",)),
    "stream": frozenset(("stream", "length", "content")),
    "args": frozenset(("args",)),
    "variant": frozenset(("variant",)),
}


def by_role(fields: Sequence[Field], role: str, where: str) -> Field:
    """The one field of ``fields`` with ``role``; TableError when none or several have it."""
    found = [f for f in fields if f.role == role]
    if len(found) != 1:
        raise TableError(f"{where}: {len(found)} fields have role {role!r}, expected exactly one")
    return found[0]


def _keys(d: dict, allowed, where: str) -> dict:
    if type(d) is dict and type(allowed) is frozenset and allowed.issuperset(d):
        return d  # (the usual case, no set built: every start builds the tables, bench/startup.py)
    if not isinstance(d, dict):
        raise TableError(f"{where}: expected a table, found {d!r}")
    unknown = sorted(set(d) - set(allowed))
    if unknown:
        raise TableError(f"{where}: unknown key(s) {unknown} (allowed: {sorted(allowed)})")
    return d


def _field(d: dict, where: str = "field") -> Field:
    _keys(d, _FIELD_KEYS, f"{where} {d.get('name', '?')!r}")
    lo, hi = d["bits"]
    f = Field(
        name=d["name"],
        lo=lo,
        hi=hi,
        role=d.get("role"),
        reserved=d.get("reserved", False),
        zero=d.get("zero", False),
        const=d.get("const"),
        enum=d.get("enum"),
        signed=d.get("signed", False),
        rule=d.get("rule"),
        rule_between=d.get("rule_between"),
    )
    if f.role is not None and f.role not in ROLES:
        raise TableError(f"{where} {f.name!r}: unknown role {f.role!r}")
    if f.checked and f.rule is None:
        raise TableError(f"{where} {f.name!r}: a checked field must name its rule (rule = \"CODE\")")
    if f.rule is not None and not f.checked:
        raise TableError(f"{where} {f.name!r}: names rule {f.rule} but has nothing to check")
    if not (0 <= lo <= hi < 64):
        raise TableError(f"{where} {f.name!r}: bits {d['bits']} are not inside a 64-bit word")
    return f


def _item(d: dict, where: str = "body item") -> Item:
    kinds = [k for k in _ITEM_KEYS if k in d]
    if len(kinds) != 1:
        raise TableError(f"{where}: an item names exactly one kind of {sorted(_ITEM_KEYS)}, found {d!r}")
    kind = kinds[0]
    _keys(d, _ITEM_KEYS[kind], f"{where} {d[kind]!r}")
    if kind == "word":
        role = d.get("role")
        if role is not None and role not in ROLES:
            raise TableError(f"{where} {d['word']!r}: unknown role {role!r}")
        return WordItem(d["word"], fields=tuple(_field(f, where) for f in d.get("fields", ())), role=role,
                        signed=d.get("signed", False), float=d.get("float", False),
                        pairing_id=d.get("pairing_id", False))
    if kind == "words":
        return WordsItem(tuple(d["words"]), d["if_inline_thread"])
    if kind == "string":
        return StringItem(d["string"])
    if kind == "stream":
        content = d.get("content", "utf8")
        if content not in CONTENTS:
            raise TableError(f"{where} {d['stream']!r}: unknown content {content!r}")
        return StreamItem(d["stream"], d["length"], content)
    if kind == "args":
        return ArgsItem(d["args"])
    if d["variant"] is not True:
        raise TableError(f"{where}: variant must be true")
    return VariantItem()


def _splice(body: tuple[Item, ...], inner: tuple[Item, ...]) -> tuple[Item, ...]:
    out: list[Item] = []
    for it in body:
        if isinstance(it, VariantItem):
            out.extend(inner)
        else:
            out.append(it)
    return tuple(out)


def _zero_mask(fields) -> int:
    m = 0
    for f in fields:
        if f.must_be_zero:
            m |= f.word_mask
    return m


def _layout(d: dict, prefix: str, parent_fields, parent_body, size_field: Field, rtype) -> Layout:
    name = f"{prefix}.{d['name']}" if prefix else d["name"]
    _keys(d, _LAYOUT_KEYS, f"layout {name!r}")
    fields = tuple(_field(f, f"{name} field") for f in d.get("fields", ()))
    body = tuple(_item(i, f"{name} body item") for i in d.get("body", ()))
    full_fields = tuple(parent_fields) + fields
    full_body = _splice(parent_body, body) if parent_body is not None else body
    sel = None
    if "selector" in d:
        sel = next((f for f in full_fields if f.name == d["selector"]), None)
        if sel is None:
            raise TableError(f"layout {name!r}: selector {d['selector']!r} is not one of its fields")
    pairing = d.get("pairing")
    if pairing is not None and pairing not in PAIRING_ROLES:
        raise TableError(f"layout {name!r}: unknown pairing role {pairing!r} (one of {PAIRING_ROLES})")
    effect = d.get("effect")
    if effect is not None and effect not in EFFECTS:
        raise TableError(f"layout {name!r}: unknown effect {effect!r} (one of {EFFECTS})")
    if effect is not None and "selector" in d:
        raise TableError(f"layout {name!r}: an effect belongs to a leaf layout, not to one with variants")
    # variants first: a layout is frozen once built
    variants = {v["value"]: _layout(v, name, full_fields, full_body, size_field, rtype) for v in d.get("variant", ())}
    lay = Layout(
        name=name,
        title=d.get("title", d["name"]),
        spec=d.get("spec", ""),
        fields=fields,
        body=body,
        selector=sel,
        extensible=d.get("extensible", True),
        type=rtype,
        value=d.get("value", d.get("type")),
        size_field=size_field,
        full_fields=full_fields,
        full_body=full_body,
        zero_mask=_zero_mask(full_fields),
        pairing=pairing,
        group=d.get("group"),
        numeric_args=d.get("numeric_args", False),
        numeric=d.get("numeric", False),
        effect=effect,
        variants=_frozen(variants),
    )
    if lay.is_leaf and any(isinstance(it, VariantItem) for it in full_body):
        raise TableError(f"layout {name!r}: a variant placeholder but no selector")
    return lay


def _event_groups(names: list, records: dict[int, Layout]) -> Mapping[str, tuple[str, ...]]:
    """Each group of ``event_groups`` -> the leaves whose ``group`` names it; a leaf naming
    an unlisted group, or a listed group no leaf names, raises TableError."""
    groups: dict[str, list[str]] = {g: [] for g in names}
    for root in records.values():
        for leaf in root.leaves():
            if leaf.group is None:
                continue
            if leaf.group not in groups:
                raise TableError(f"layout {leaf.name!r}: group {leaf.group!r} is not in event_groups {names}")
            groups[leaf.group].append(leaf.name)
    empty = [g for g, kinds in groups.items() if not kinds]
    if empty:
        raise TableError(f"event_groups {empty} name no layout")
    return _frozen({g: tuple(kinds) for g, kinds in groups.items()})


def _tables_folder() -> str:
    # an installed wheel: the package's own folder (as importlib.resources finds it, without
    # importing it: importlib.resources brings tempfile, shutil and the compressors, a
    # fifth of a small lint's start-up); os.path, not pathlib, which a small lint need not import
    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    packaged = os.path.join(package, "spec_tables")
    if os.path.isdir(packaged):
        return packaged
    # a source checkout or editable install: the repository's top-level folder
    return os.path.join(os.path.dirname(package), "spec-tables")


def _tables_dir() -> Path:
    """The folder of the table files."""
    from pathlib import Path

    return Path(_tables_folder())


TABLE_FILES = ("records.toml", "arguments.toml", "enums.toml", "structured-log.toml")
# the parsed table files, cached beside the spec package's bytecode: parsing the TOML (and
# importing tomllib) was a fifth of a small lint's start-up. The cache holds the bytes it was
# parsed from and is used only when every table file still has exactly those bytes; the
# format number changes whenever what the cache holds changes
_CACHE_FORMAT = 1


def cache_path() -> str:
    """Where ``parsed_tables`` keeps the parsed table files (this interpreter's)."""
    return os.path.join(os.path.dirname(__file__), "__pycache__",
                        f"spec-tables.{sys.implementation.cache_tag}.marshal")


def parsed_tables(directory: str | os.PathLike | None = None, cache: str | None = None) -> dict[str, dict]:
    """The table files of ``directory`` (default: the package's) parsed (file name -> TOML
    document), read from ``cache`` (default ``cache_path()``) when it was written from the
    same bytes, else parsed and the cache written (atomically; where it cannot be, the
    files are parsed on every call)."""
    directory = _tables_folder() if directory is None else directory
    cache = cache_path() if cache is None else cache
    sources = {}
    for name in TABLE_FILES:
        with open(os.path.join(directory, name), "rb") as fh:
            sources[name] = fh.read()
    try:
        with open(cache, "rb") as fh:
            fmt, cached_sources, files = marshal.loads(fh.read())
        if fmt == _CACHE_FORMAT and cached_sources == sources and isinstance(files, dict):
            return files
    except (OSError, EOFError, ValueError, TypeError):  # none yet, or not one this code wrote
        pass
    import tomllib  # only when the cache misses

    files = {name: tomllib.loads(src.decode("utf-8")) for name, src in sources.items()}
    _write_cache(cache, (_CACHE_FORMAT, sources, files))
    return files


def _write_cache(cache: str, value) -> None:
    tmp = f"{cache}.{os.getpid()}.tmp"
    try:
        os.makedirs(os.path.dirname(cache), exist_ok=True)
        with open(tmp, "wb") as fh:
            fh.write(marshal.dumps(value))
        os.replace(tmp, cache)  # a reader sees the old cache or the new one, never half of one
    except (OSError, ValueError):  # a read-only install: parsed again next time
        try:
            os.unlink(tmp)
        except OSError:
            pass


_FILE_KEYS = {
    "records.toml": frozenset(("max_string_length", "max_record_words", "max_arguments", "magic_word", "string_ref",
                               "header", "record", "undefined", "event_groups")),
    "arguments.toml": frozenset(("header", "argument", "undefined")),
    "structured-log.toml": frozenset(("max_record_bytes", "allowed_argument_types", "record")),
}


@functools.cache
def tables() -> Tables:
    return build_tables(parsed_tables())


def build_tables(files: dict[str, dict]) -> Tables:
    """Compile parsed table files (file name -> TOML document); raises TableError."""
    for fname, allowed in _FILE_KEYS.items():
        _keys(files[fname], allowed, fname)
    rec = files["records.toml"]
    args = files["arguments.toml"]
    enums_raw = files["enums.toml"]
    slog = files["structured-log.toml"]
    for k, v in enums_raw.items():
        _keys(v, ("spec", "values"), f"enums.toml [{k}]")
    _keys(rec["string_ref"], ("spec", "inline_bit"), "records.toml [string_ref]")
    _keys(rec["header"], ("spec", "fields"), "records.toml [header]")
    _keys(rec["undefined"], ("record_types",), "records.toml [undefined]")
    _keys(args["header"], ("spec", "fields", "body"), "arguments.toml [header]")
    _keys(args["undefined"], ("argument_types",), "arguments.toml [undefined]")

    header = tuple(_field(f, "record header field") for f in rec["header"]["fields"])
    default_size = by_role(header, "size", "record header")
    type_field = by_role(header, "type", "record header")
    records: dict[int, Layout] = {}
    for r in rec["record"]:
        size = default_size
        if "size_bits" in r:
            lo, hi = r["size_bits"]
            size = Field("size", lo, hi, role="size")
        base = (type_field, size)
        records[r["type"]] = _layout(r, "", base, None, size, r["type"])

    arg_header = tuple(_field(f, "argument header field") for f in args["header"]["fields"])
    arg_body = tuple(_item(i, "argument header body item") for i in args["header"]["body"])
    arg_size = by_role(arg_header, "size", "argument header")
    arguments = {
        a["type"]: _layout(a, "", arg_header, arg_body, arg_size, a["type"]) for a in args["argument"]
    }

    enums = {k: {int(n, 0): s for n, s in v["values"].items()} for k, v in enums_raw.items()}
    enum_specs = {k: v.get("spec", "") for k, v in enums_raw.items()}

    lr = slog["record"]
    lsize = next(_field(f) for f in lr["fields"] if f.get("role") == "size")
    log_record = _layout(lr, "", (), None, lsize, lr["type"])

    t = Tables(
        header=header,
        records=_frozen(records),
        arguments=_frozen(arguments),
        argument_header=arg_header,
        enums=_frozen({k: _frozen(v) for k, v in enums.items()}),
        enum_specs=_frozen(enum_specs),
        log_record=log_record,
        undefined_record_types=tuple(rec["undefined"]["record_types"]),
        undefined_argument_types=tuple(args["undefined"]["argument_types"]),
        max_string_length=rec["max_string_length"],
        max_record_words=rec["max_record_words"],
        max_arguments=rec["max_arguments"],
        magic_word=rec["magic_word"],
        string_inline_bit=1 << rec["string_ref"]["inline_bit"],
        log_max_record_bytes=slog["max_record_bytes"],
        log_allowed_argument_types=tuple(slog["allowed_argument_types"]),
        event_groups=_event_groups(rec["event_groups"], records),
    )
    for lay in [*t.record_leaves(), *t.arguments.values(), t.log_record]:
        for f in lay.all_fields():
            if f.enum is not None and f.enum not in enums:
                raise TableError(f"layout {lay.name!r} field {f.name!r}: no enumeration {f.enum!r}")
    return t
