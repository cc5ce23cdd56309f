"""Records to bytes, from the same tables the reader walks.

The encoder computes what a writer gets wrong: the record and argument sizes, the
inline string ref lengths, the stream length fields and the zero padding. Every other
field is written as given, reserved ones included, so encode(read(x)) == x holds for
any archive that frames, even one whose reserved bits are set.
"""

from __future__ import annotations

import struct

from ._errors import FxtError
from ._model import Argument, Record
from ._tables import ArgsItem, StreamItem, StringItem, VariantItem, WordItem, WordsItem, check_dispatch, tables

_T = tables()
_INLINE_BIT = _T.string_inline_bit


class EncodeError(FxtError):
    """A record that cannot be encoded as given (unknown kind, a value that does not fit)."""


def _leaf_by_name() -> dict[str, Layout]:
    return {leaf.name: leaf for leaf in _T.record_leaves()}


_LEAVES = _leaf_by_name()
_ARGS = {a.name: a for a in _T.arguments.values()}


def _stream(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 8)


def _as_bytes(value) -> bytes:
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


_WORD_MIN, _WORD_MAX = -(1 << 63), (1 << 64) - 1


def _word_value(v, name: str = "word") -> int:
    """A 64-bit word: a float's bits, or an integer that fits as int64 or uint64."""
    if isinstance(v, float):
        return struct.unpack("<Q", struct.pack("<d", v))[0]
    v = int(v)
    if not _WORD_MIN <= v <= _WORD_MAX:
        raise EncodeError(f"{name} = {v} does not fit in a 64-bit word: allowed {_WORD_MIN} .. {_WORD_MAX}")
    return v & _WORD_MAX


def _derive(items, fields: dict, strings: dict, args) -> None:
    """Set the length and ref fields that follow from the content."""
    for it in items:
        _DERIVE[type(it)](it, fields, strings, args)


def _derive_string(it, fields, strings, args):
    if it.name in strings:
        fields[it.name] = _INLINE_BIT | len(_as_bytes(strings[it.name]))


def _derive_stream(it, fields, strings, args):
    fields[it.length] = len(_as_bytes(strings.get(it.name, b"")))


def _derive_args(it, fields, strings, args):
    if it.name != "*":
        fields[it.name] = len(args)


def _nothing(*_):
    pass


def _variant(*_):  # pragma: no cover - the loader splices every placeholder
    raise EncodeError("a variant placeholder left in a leaf layout")


_DERIVE = check_dispatch({WordItem: _nothing, WordsItem: _nothing, StringItem: _derive_string,
                          StreamItem: _derive_stream, ArgsItem: _derive_args, VariantItem: _variant},
                         "the encoder (derived fields)")


def _body(items, fields: dict, strings: dict, args, word: struct.Struct, byte_order: str) -> bytes:
    out = bytearray()
    for it in items:
        out += _WRITE[type(it)](it, fields, strings, args, word, byte_order)
    return bytes(out)


def _write_word(it, fields, strings, args, word, byte_order):
    if it.fields:
        w = 0
        for f in it.fields:
            w |= f.put(fields.get(f.name, 0))
    else:
        w = _word_value(fields.get(it.name, 0), it.name)
    return word.pack(w)


def _write_words(it, fields, strings, args, word, byte_order):
    if fields.get(it.cond, 1) == 0:
        return b"".join(word.pack(_word_value(fields.get(n, 0), n)) for n in it.names)
    return b""


def _write_stream(it, fields, strings, args, word, byte_order):
    return _stream(_as_bytes(strings[it.name])) if it.name in strings else b""


def _write_args(it, fields, strings, args, word, byte_order):
    return b"".join(encode_argument(a, byte_order) for a in args)


_WRITE = check_dispatch({WordItem: _write_word, WordsItem: _write_words, StringItem: _write_stream,
                         StreamItem: _write_stream, ArgsItem: _write_args, VariantItem: _variant}, "the encoder")


def _header(flds, fields: dict, size_words: int, size_field) -> int:
    h = 0
    for f in flds:
        if f.role == "size":
            continue
        h |= f.put(fields.get(f.name, 0))
    return h | size_field.put(size_words)


def encode_argument(arg: Argument, byte_order: str = "little") -> bytes:
    word = struct.Struct(">Q" if byte_order == "big" else "<Q")
    if arg.kind == "unknown":
        body = _stream(arg.raw)
        size = 1 + len(body) // 8
        h = _header(_T.argument_header, {**arg.fields, "type": arg.type}, size,
                    next(f for f in _T.argument_header if f.role == "size"))
        return word.pack(h) + body
    lay = _ARGS.get(arg.kind)
    if lay is None:
        raise EncodeError(f"argument kind {arg.kind!r} is not one of {sorted(_ARGS)} or 'unknown'")
    fields = dict(arg.fields)
    fields["type"] = lay.type
    _derive(lay.full_body, fields, arg.strings, ())
    body = _body(lay.full_body, fields, arg.strings, (), word, byte_order)
    body += b"".join(word.pack(_word_value(w, "extra word")) for w in arg.extra_words)
    return word.pack(_header(lay.full_fields, fields, 1 + len(body) // 8, lay.size_field)) + body


def encode_record(rec: Record, byte_order: str = "little") -> bytes:
    word = struct.Struct(">Q" if byte_order == "big" else "<Q")
    if rec.kind == "unknown" or rec.kind.endswith(".unknown"):
        body = _stream(rec.raw)
        size = 1 + len(body) // 8
        root = _T.records.get(rec.type)
        size_field = root.size_field if root is not None else next(f for f in _T.header if f.role == "size")
        type_field = next(f for f in _T.header if f.role == "type")
        bits, room = rec.fields.get("bits", 0), 63 - size_field.hi
        if not 0 <= bits < 1 << room:
            raise EncodeError(f"field bits (header bits {size_field.hi + 1}..63) = {bits} does not fit: "
                              f"allowed 0 .. {(1 << room) - 1}")
        h = (bits << (size_field.hi + 1)) | type_field.put(rec.type) | size_field.put(size)
        return word.pack(h) + body
    lay = _LEAVES.get(rec.kind)
    if lay is None:
        raise EncodeError(f"record kind {rec.kind!r} is not a table name (see tables().record_leaves())")
    fields = dict(rec.fields)
    # the selector values of the path come from the kind itself
    node = _T.records[lay.type]
    fields["type"] = lay.type
    for part in lay.name.split(".")[1:]:
        child = next(c for c in node.variants.values() if c.name.endswith("." + part) or c.name == part)
        fields[node.selector.name] = child.value
        node = child
    _derive(lay.full_body, fields, rec.strings, rec.args)
    body = _body(lay.full_body, fields, rec.strings, rec.args, word, byte_order)
    body += b"".join(word.pack(_word_value(w, "extra word")) for w in rec.extra_words)
    size = 1 + len(body) // 8
    return word.pack(_header(lay.full_fields, fields, size, lay.size_field)) + body


def encode_records(records, byte_order: str = "little") -> bytes:
    return b"".join(encode_record(r, byte_order) for r in records)


def encode_log_record(rec: Record, byte_order: str = "little") -> bytes:
    """A structured-log record (the second format)."""
    word = struct.Struct(">Q" if byte_order == "big" else "<Q")
    lay = _T.log_record
    fields = dict(rec.fields)
    fields.setdefault("type", lay.type)
    body = _body(lay.full_body, fields, rec.strings, rec.args, word, byte_order)
    body += b"".join(word.pack(_word_value(w, "extra word")) for w in rec.extra_words)
    return word.pack(_header(lay.full_fields, fields, 1 + len(body) // 8, lay.size_field)) + body
