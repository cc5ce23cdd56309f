"""Load spec-tables/*.toml into compiled layouts: the one source of every bit position.

A ``Layout`` is one node of the record tree (a record type, a variant, an argument
type). Leaves carry ``full_fields`` and ``full_body``: the header fields and body
items of the whole path from the record type down, with the variant placeholder
already spliced, so the reader and encoder walk a flat list.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from ._errors import FxtError


@dataclass(frozen=True)
class Field:
    name: str
    lo: int
    hi: int
    role: str | None = None
    reserved: bool = False
    zero: bool = False
    const: int | None = None
    enum: str | None = None
    signed: bool = False

    @property
    def width(self) -> int:
        return self.hi - self.lo + 1

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    @property
    def word_mask(self) -> int:
        """The field's bits in place within its 64-bit word."""
        return self.mask << self.lo

    @property
    def must_be_zero(self) -> bool:
        return self.reserved or self.zero

    def get(self, word: int) -> int:
        v = (word >> self.lo) & self.mask
        if self.signed and v >> (self.width - 1):
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


@dataclass(frozen=True)
class Item:
    """One body item; ``kind`` is word | words | string | stream | args | variant."""

    kind: str
    name: str = ""
    names: tuple[str, ...] = ()
    cond: str | None = None  # thread-ref field that makes `words` present when 0
    length: str | None = None  # field holding a stream's byte length
    content: str = "utf8"
    fields: tuple[Field, ...] = ()
    role: str | None = None
    signed: bool = False
    float: bool = False


@dataclass
class Layout:
    name: str  # dotted path, e.g. "event.duration_begin"
    title: str
    spec: str
    fields: tuple[Field, ...]
    body: tuple[Item, ...]
    selector: Field | None = None
    variants: dict[int, "Layout"] = field(default_factory=dict)
    extensible: bool = True
    type: int | None = None
    value: int | None = None  # this variant's selector value
    size_field: Field | None = None
    full_fields: tuple[Field, ...] = ()
    full_body: tuple[Item, ...] = ()
    zero_mask: int = 0  # header bits that must be zero (reserved and always-zero)

    @property
    def is_leaf(self) -> bool:
        return self.selector is None

    def leaves(self):
        if self.is_leaf:
            yield self
        for v in self.variants.values():
            yield from v.leaves()

    def field(self, name: str) -> Field | None:
        for f in self.full_fields:
            if f.name == name:
                return f
        for it in self.full_body:
            for f in it.fields:
                if f.name == name:
                    return f
        return None


@dataclass
class Tables:
    header: tuple[Field, ...]
    records: dict[int, Layout]
    arguments: dict[int, Layout]
    argument_header: tuple[Field, ...]
    enums: dict[str, dict[int, str]]
    enum_specs: dict[str, str]
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

    def record_leaves(self):
        for root in self.records.values():
            yield from root.leaves()


def _field(d: dict) -> Field:
    lo, hi = d["bits"]
    return Field(
        name=d["name"],
        lo=lo,
        hi=hi,
        role=d.get("role"),
        reserved=d.get("reserved", False),
        zero=d.get("zero", False),
        const=d.get("const"),
        enum=d.get("enum"),
        signed=d.get("signed", False),
    )


def _item(d: dict) -> Item:
    if "word" in d:
        return Item(
            "word",
            name=d["word"],
            fields=tuple(_field(f) for f in d.get("fields", ())),
            role=d.get("role"),
            signed=d.get("signed", False),
            float=d.get("float", False),
        )
    if "words" in d:
        return Item("words", names=tuple(d["words"]), cond=d["if_inline_thread"])
    if "string" in d:
        return Item("string", name=d["string"])
    if "stream" in d:
        return Item("stream", name=d["stream"], length=d["length"], content=d.get("content", "utf8"))
    if "args" in d:
        return Item("args", name=d["args"])
    if d.get("variant"):
        return Item("variant")
    raise ValueError(f"unknown body item in spec tables: {d!r}")


def _splice(body: tuple[Item, ...], inner: tuple[Item, ...]) -> tuple[Item, ...]:
    out: list[Item] = []
    for it in body:
        if it.kind == "variant":
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


def _layout(d: dict, prefix: str, parent_fields, parent_body, size_field, rtype) -> Layout:
    name = f"{prefix}.{d['name']}" if prefix else d["name"]
    fields = tuple(_field(f) for f in d.get("fields", ()))
    body = tuple(_item(i) for i in d.get("body", ()))
    full_fields = tuple(parent_fields) + fields
    full_body = _splice(parent_body, body) if parent_body is not None else body
    sel = None
    if "selector" in d:
        sel = next(f for f in full_fields if f.name == d["selector"])
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
    )
    for v in d.get("variant", ()):
        # a nested variant's body replaces the placeholder in the path so far
        child = _layout(v, name, full_fields, full_body, size_field, rtype)
        lay.variants[v["value"]] = child
    return lay


def _tables_dir() -> Path:
    packaged = resources.files("fxtlint") / "spec_tables"
    if packaged.is_dir():
        return Path(str(packaged))
    # a source checkout or editable install: the repository's top-level folder
    return Path(__file__).resolve().parent.parent / "spec-tables"


def _load(name: str) -> dict:
    with open(_tables_dir() / name, "rb") as fh:
        return tomllib.load(fh)


@functools.cache
def tables() -> Tables:
    rec = _load("records.toml")
    args = _load("arguments.toml")
    enums_raw = _load("enums.toml")
    slog = _load("structured-log.toml")

    header = tuple(_field(f) for f in rec["header"]["fields"])
    default_size = next(f for f in header if f.role == "size")
    type_field = next(f for f in header if f.role == "type")
    records: dict[int, Layout] = {}
    for r in rec["record"]:
        size = default_size
        if "size_bits" in r:
            lo, hi = r["size_bits"]
            size = Field("size", lo, hi, role="size")
        base = (type_field, size)
        records[r["type"]] = _layout(r, "", base, None, size, r["type"])

    arg_header = tuple(_field(f) for f in args["header"]["fields"])
    arg_body = tuple(_item(i) for i in args["header"]["body"])
    arg_size = next(f for f in arg_header if f.role == "size")
    arguments = {
        a["type"]: _layout(a, "", arg_header, arg_body, arg_size, a["type"]) for a in args["argument"]
    }

    enums = {k: {int(n, 0): s for n, s in v["values"].items()} for k, v in enums_raw.items()}
    enum_specs = {k: v.get("spec", "") for k, v in enums_raw.items()}

    lr = slog["record"]
    lsize = next(_field(f) for f in lr["fields"] if f.get("role") == "size")
    log_record = _layout(lr, "", (), None, lsize, lr["type"])

    return Tables(
        header=header,
        records=records,
        arguments=arguments,
        argument_header=arg_header,
        enums=enums,
        enum_specs=enum_specs,
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
    )
