"""The canonical decoding: records as plain JSON values that any reader can print.

A decoding is ``{"records": [...]}``, one object per record a reader hands to its user,
in file order. Each object has the record's ``kind`` (the tables' dotted name), its
``provider`` (``{"id", "name"}`` of the provider section it is in, or null), and its
fields by the tables' names, walked from the record's layout:

- string refs are resolved to their text, thread refs to ``{"process_koid",
  "thread_koid"}`` (only ``process_koid`` for a userspace object's process);
- sizes, selectors, argument counts, stream lengths, inline-thread words and reserved
  or always-zero fields are left out: they are the encoding, not the content;
- a value read from a 64-bit word is a decimal string (no JSON reader rounds it); a
  narrower header field is a number; a UTF-8 stream is a string, a binary one hex;
- ``arguments`` is a list of ``{"name", "type", "value"}`` in order, ``type`` the
  tables' argument name; doubles are numbers ("NaN", "Infinity", "-Infinity" as strings).

Records that only set reader state do not appear; their effect does (see STATE_KINDS).
Timestamps stay in ticks, the tables' unit. Records of undefined types, subtypes and
arguments of undefined types are skipped, and words after a record's defined content
are ignored, as the spec tells readers to do.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

from ._diagnostics import Severity
from ._model import Argument, Record
from ._provider_state import INLINE_BIT, INLINE_KOIDS, ProviderState
from ._reader import read_records
from ._reader_verdicts import REJECT, verdict
from ._tables import Layout, tables

_T = tables()
_LEAVES = {leaf.name: leaf for leaf in _T.record_leaves()}
_ARGS = {a.type: a for a in _T.arguments.values()}

# Records whose only effect is on the reader's state: the magic record (byte order),
# provider info and section (the ``provider`` of later records), initialization (the
# tick rate; timestamps stay in ticks), string and thread records (resolved into refs).
STATE_KINDS = frozenset(("metadata.trace_info.magic", "metadata.provider_info", "metadata.provider_section",
                         "initialization", "string", "thread"))
if not STATE_KINDS <= set(_LEAVES):
    raise RuntimeError(f"STATE_KINDS names record kinds the tables do not define: {STATE_KINDS - set(_LEAVES)}")

_ENCODING_ROLES = frozenset(("type", "size", "selector", "arg_count"))


@dataclass
class Decoding:
    """The canonical records of a file: all of them, or those before the first error.

    ``errors`` lists what a reader must reject (fxtlint._reader_verdicts: framing,
    overruns, text that is not UTF-8, refs that resolve to nothing), first one first;
    ``notes`` the writer errors a reader may read through (reserved bits, padding...).
    """

    records: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return not self.errors

    def document(self) -> dict:
        return {"records": self.records}

    def to_json(self) -> str:
        return dumps(self.document())


def dumps(document: dict) -> str:
    """The canonical text of a decoding: stable key order, one record per line."""
    lines = [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in document["records"]]
    if not lines:
        return '{"records": []}\n'
    return '{"records": [\n' + ",\n".join(lines) + "\n]}\n"


class _Unresolved(Exception):
    """A ref to a table entry that was never registered (internal; never escapes)."""


def _word(value: int) -> str:
    return str(value)


def _double(value: float):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _stream_value(value):
    """A UTF-8 stream's text; a binary one (or text that is not UTF-8) as hex."""
    if isinstance(value, str):
        return value
    return bytes(value).hex()


class _Canonicaliser:
    """Resolves records against the provider tables kept by ``ProviderState``; a ref
    to nothing raises ``_Unresolved`` here, where the exporter would skip it."""

    def __init__(self):
        self.state = ProviderState()

    @property
    def current(self):
        return self.state.current

    # -- refs ----------------------------------------------------------------------
    def string(self, ref: int, strings: dict, name: str, label: str = "") -> str:
        label = label or name
        if name in strings:  # inline
            value = strings[name]
            if not isinstance(value, str):
                raise _Unresolved(f"inline string {label} is not UTF-8")
            return value
        if ref == 0:
            return ""
        if ref & INLINE_BIT:  # inline but not decoded: the reader reported why
            raise _Unresolved(f"inline string {label} could not be read")
        value = self.current.strings.get(ref)
        if value is None:
            raise _Unresolved(f"string ref {ref} ({label}) is not registered")
        return value

    def thread(self, ref: int, fields: dict, words: tuple[str, ...], name: str) -> dict:
        if ref == 0:
            koids = {_koid_key(w): fields.get(w, 0) for w in words}
        else:
            entry = self.current.threads.get(ref)
            if entry is None:
                raise _Unresolved(f"thread ref {ref} ({name}) is not registered")
            both = {"process_koid": entry[0], "thread_koid": entry[1]}
            koids = {_koid_key(w): both[_koid_key(w)] for w in words}
        return {k: _word(v) for k, v in koids.items()}

    # -- state records ---------------------------------------------------------------
    def update(self, rec: Record) -> None:
        # a string record that is not UTF-8 or a table record cut short is an error of
        # its own, so the decoding stops before any record that could use what it holds
        self.state.observe(rec)

    # -- records -------------------------------------------------------------------
    def record(self, rec: Record) -> dict:
        p = self.current
        out: dict = {"kind": rec.kind, "provider": None if p.id is None else {"id": p.id, "name": p.name}}
        f, s = rec.fields, rec.strings
        for name, how in SHAPES[rec.kind]:
            if how == "string":
                out[name] = self.string(f.get(name, 0), s, name)
            elif how == "thread":
                out[name] = self.thread(f.get(name, 0), f, _WORDS_BY_REF[(rec.kind, name)], name)
            elif how == "number":
                out[name] = f.get(name, 0)
            elif how == "word":
                out[name] = _word(f.get(name, 0))
            elif how == "double":
                out[name] = _double(f.get(name, 0.0))
            elif how in ("text", "hex"):
                out[name] = _stream_value(s.get(name, b""))
            else:  # arguments
                out[name] = [a for a in (self.argument(x) for x in rec.args) if a is not None]
        return out

    def argument(self, arg: Argument) -> dict | None:
        lay = _ARGS.get(arg.type)
        if lay is None or arg.kind == "unknown":
            return None  # an undefined argument type is skipped by its size
        name = self.string(arg.fields.get("name", 0), arg.strings, "name", "argument name")
        return {"name": name, "type": lay.name, "value": self.argument_value(lay, arg)}

    def argument_value(self, lay: Layout, arg: Argument):
        f = lay.field("value")
        if f is not None and f.role == "string_ref":
            return self.string(arg.fields.get("value", 0), arg.strings, "value", "argument value")
        if f is not None:  # a header field: a number, or a bool when one bit wide
            v = arg.fields.get("value", 0)
            return bool(v) if f.width == 1 else v
        for it in lay.full_body:
            if it.kind == "word" and it.name == "value":
                v = arg.fields.get("value", 0)
                return _double(v) if it.float else _word(v)
            if it.kind == "stream":
                return _stream_value(arg.strings.get(it.name, b""))
        return None  # the null argument


def _koid_key(word_name: str) -> str:
    return "process_koid" if word_name.endswith("process_koid") else "thread_koid"


_WORDS_BY_REF = INLINE_KOIDS  # per (record kind, thread-ref field): the koid words


def _shape(lay: Layout) -> tuple[tuple[str, str], ...]:
    """The canonical keys of a record kind, in order, each with how its value is made:
    string | thread | number | word | double | text | hex | arguments."""
    lengths = {it.length for it in lay.full_body if it.kind == "stream"}

    def header(flds):
        for f in flds:
            if f.role in _ENCODING_ROLES or f.must_be_zero or f.const is not None or f.name in lengths:
                continue
            yield f.name, {"string_ref": "string", "thread_ref": "thread"}.get(f.role, "number")

    out = list(header(lay.full_fields))
    for it in lay.full_body:
        if it.kind == "word" and it.fields:
            out += header(it.fields)
        elif it.kind == "word" and it.name not in lengths:
            out.append((it.name, "double" if it.float else "word"))
        elif it.kind == "stream":
            out.append((it.name, "text" if it.content == "utf8" else "hex"))
        elif it.kind == "args":
            out.append(("arguments", "arguments"))
    return tuple(out)


SHAPES = {leaf.name: _shape(leaf) for leaf in _T.record_leaves() if leaf.name not in STATE_KINDS}


def decode(data, *, byte_order: str | None = None, strict: bool = False) -> Decoding:
    """The canonical decoding of a trace archive. Never raises on input.

    A file with a fault a reader must reject (a reader diagnostic whose verdict is
    ``reject``, or a ref that resolves to nothing) keeps only the records before the
    first record in error: the prefix that the spec's recovery promise covers. Other
    error-severity diagnostics are ``notes``; ``strict`` makes them errors too.
    """
    records, diags = read_records(data, byte_order=byte_order)
    stop = len(records)
    errors: list[tuple[int, int, str]] = []
    notes: list[str] = []
    for d in diags:
        if d.severity >= Severity.ERROR:
            message = f"{d.code} at byte {d.offset}: {d.message}"
            if not strict and verdict(d) != REJECT:
                notes.append(message)
                continue
            at = d.record_index if d.record_index >= 0 else len(records)
            errors.append((at, d.offset, message))
    canon = _Canonicaliser()
    out = []
    for rec in records:
        if rec.kind == "unknown" or rec.kind.endswith(".unknown"):
            continue  # skipped by its size
        if rec.kind in STATE_KINDS:
            canon.update(rec)
            continue
        try:
            out.append((rec.index, canon.record(rec)))
        except _Unresolved as e:
            errors.append((rec.index, rec.offset, f"record {rec.index} at byte {rec.offset}: {e}"))
    if errors:
        errors.sort(key=lambda e: (e[0], e[1]))
        stop = errors[0][0]
    return Decoding([r for i, r in out if i < stop], [msg for _, _, msg in errors], notes)


# ------------------------------------------------------------------ the JSON Schema
_U64 = {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"}
_I64 = {"type": "string", "pattern": "^(0|-?[1-9][0-9]*)$"}
_HEX = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
_DOUBLE = {"anyOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}
_KOIDS = {"process_koid": _U64, "thread_koid": _U64}


def _value_schema(how: str, kind: str, name: str) -> dict:
    if how == "thread":
        keys = sorted({_koid_key(w) for w in _WORDS_BY_REF[(kind, name)]})
        return {"type": "object", "properties": {k: _KOIDS[k] for k in keys}, "required": keys,
                "additionalProperties": False}
    return {"string": {"type": "string"}, "number": {"type": "integer", "minimum": 0}, "word": _U64,
            "double": _DOUBLE, "text": {"type": "string"}, "hex": _HEX,
            "arguments": {"type": "array", "items": {"$ref": "#/$defs/argument"}}}[how]


def _argument_value_schema(lay: Layout) -> dict:
    f = lay.field("value")
    if f is not None and f.role == "string_ref":
        return {"type": "string"}
    if f is not None:
        if f.width == 1:
            return {"type": "boolean"}
        lo, hi = (-(1 << (f.width - 1)), (1 << (f.width - 1)) - 1) if f.signed else (0, (1 << f.width) - 1)
        return {"type": "integer", "minimum": lo, "maximum": hi}
    for it in lay.full_body:
        if it.kind == "word" and it.name == "value":
            return _DOUBLE if it.float else (_I64 if it.signed else _U64)
        if it.kind == "stream":
            return _HEX if it.content != "utf8" else {"type": "string"}
    return {"type": "null"}


def json_schema() -> dict:
    """The JSON Schema (2020-12) of a canonical decoding, derived from the spec tables."""
    records = []
    for kind, shape in SHAPES.items():
        props = {"kind": {"const": kind}, "provider": {"$ref": "#/$defs/provider"}}
        props.update({name: _value_schema(how, kind, name) for name, how in shape})
        records.append({"type": "object", "properties": props, "required": list(props),
                        "additionalProperties": False})
    arguments = [{"type": "object", "properties": {"name": {"type": "string"}, "type": {"const": lay.name},
                                                   "value": _argument_value_schema(lay)},
                  "required": ["name", "type", "value"], "additionalProperties": False}
                 for lay in _T.arguments.values()]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fxtlint.invalid/conformance/canonical.schema.json",
        "title": "Canonical decoding of an FXT trace (fxtlint decode; the conformance suite)",
        "description": "Generated from spec-tables/ by fxtlint._canonical.json_schema(); do not edit.",
        "type": "object",
        "properties": {"records": {"type": "array", "items": {"$ref": "#/$defs/record"}}},
        "required": ["records"],
        "additionalProperties": False,
        "$defs": {
            "provider": {"anyOf": [{"type": "null"}, {
                "type": "object", "properties": {"id": {"type": "integer", "minimum": 0},
                                                 "name": {"type": ["string", "null"]}},
                "required": ["id", "name"], "additionalProperties": False}]},
            "record": {"oneOf": records},
            "argument": {"oneOf": arguments},
        },
    }
