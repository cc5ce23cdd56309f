"""``_encoder``: records to bytes from the tables the reader walks. It computes what
writers get wrong (record and argument sizes, inline string ref lengths, stream length
fields, zero padding) and writes every other field as given, reserved ones included.
Field positions here come from the tables, as the encoder's do."""

from __future__ import annotations

import dataclasses
import struct

import pytest

import fxtlint
from fxtlint import EncodeError, encode_argument, encode_record
from fxtlint import build as B
from fxtlint.spec._tables import tables

T = tables()
LEAF = {leaf.name: leaf for leaf in T.record_leaves()}
ARG = {a.name: a for a in T.arguments.values()}


def _field(layout, name: str, word: int) -> int:
    f = next(f for f in layout.full_fields if f.name == name)
    return (word >> f.lo) & f.mask


def _words(data: bytes) -> list[int]:
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def test_a_string_record_gets_its_size_length_and_zero_padding():
    data = encode_record(B.string(1, "abcdefghi"))  # 9 bytes: two words of stream
    header = _words(data)[0]
    assert len(data) == 8 * 3 and _field(LEAF["string"], "size", header) == 3
    assert _field(LEAF["string"], "length", header) == 9
    assert data[8:17] == b"abcdefghi" and data[17:] == bytes(7)


def test_given_sizes_and_lengths_are_replaced_by_the_computed_ones():
    rec = B.string(1, "abc")
    lying = dataclasses.replace(rec, fields={**rec.fields, "length": 40, "size": 9})
    assert encode_record(lying) == encode_record(rec)


def test_an_inline_string_ref_gets_the_inline_bit_and_its_length():
    arg = B.arg("string", "key", "hello")  # both refs inline
    header = _words(encode_argument(arg))[0]
    assert _field(ARG["string"], "name", header) == T.string_inline_bit | 3
    assert _field(ARG["string"], "value", header) == T.string_inline_bit | 5
    assert _field(ARG["string"], "size", header) == 1 + 1 + 1  # header, "key", "hello"
    by_index = _words(encode_argument(B.arg("string", 7, 9)))[0]  # refs to the string table: as given
    assert (_field(ARG["string"], "name", by_index), _field(ARG["string"], "value", by_index)) == (7, 9)


def test_the_argument_count_and_event_size_follow_the_arguments():
    bare = _words(encode_record(B.event("instant", 1)))
    with_args = encode_record(B.event("instant", 1, args=[B.arg("int64", 1, 5), B.arg("int32", 2, 6)]))
    header = _words(with_args)[0]
    assert _field(LEAF["event.instant"], "size", header) == len(bare) + 2 + 1
    assert _field(LEAF["event.instant"], "argument_count", header) == 2


def test_reserved_bits_are_written_as_given():
    rec = B.string(1, "x")
    reserved = next(f for f in LEAF["string"].full_fields if f.name == "reserved")
    flagged = dataclasses.replace(rec, fields={**rec.fields, "reserved": reserved.mask})
    data = encode_record(flagged)
    assert _field(LEAF["string"], "reserved", _words(data)[0]) == reserved.mask
    archive = B.archive(B.magic(), flagged)
    assert fxtlint.encode_records(fxtlint.read_records(archive)[0]) == archive  # encode(read(x)) == x


def test_big_endian_is_the_same_words_byte_swapped():
    """(Text is a byte stream, the same in either order: here every ref is to the table.)"""
    rec = B.event("counter", 5, id=1, args=[B.arg("double", 1, 0.5), B.arg("string", 2, 3), B.arg("int64", 4, -7)])
    little, big = encode_record(rec), encode_record(rec, "big")
    assert _words(little) == list(struct.unpack(f">{len(big) // 8}Q", big))


@pytest.mark.parametrize("value,fits", [(-(1 << 63), True), ((1 << 64) - 1, True), (-(1 << 63) - 1, False),
                                        (1 << 64, False)])
def test_a_word_holds_int64_or_uint64(value, fits):
    rec = dataclasses.replace(B.string(1, "x"), extra_words=(value,))
    if fits:
        assert _words(encode_record(rec))[-1] == value & ((1 << 64) - 1)
    else:
        with pytest.raises(EncodeError, match=r"extra word = -?\d+ does not fit in a 64-bit word"):
            encode_record(rec)


def test_a_float_word_is_its_ieee_bits():
    (_, value), = [_words(encode_argument(B.arg("double", 1, -2.5)))]
    assert value == struct.unpack("<Q", struct.pack("<d", -2.5))[0]


def test_an_unknown_record_keeps_its_type_bits_and_padded_body():
    data = encode_record(B.unknown(12, body=b"abc", bits=5))
    header = _words(data)[0]
    size = next(f for f in T.header if f.role == "size")
    kind = next(f for f in T.header if f.role == "type")
    assert (header >> kind.lo) & kind.mask == 12 and (header >> size.lo) & size.mask == 2
    assert header >> (size.hi + 1) == 5 and data[8:] == b"abc" + bytes(5)
    room = 63 - size.hi
    assert encode_record(B.unknown(12, bits=(1 << room) - 1))  # the twin of the one below
    with pytest.raises(EncodeError, match=f"allowed 0 .. {(1 << room) - 1}"):
        encode_record(dataclasses.replace(B.unknown(12), fields={"bits": 1 << room}))
