"""Building blocks of the rules' failing and passing examples."""

from __future__ import annotations

from ..spec import _build as B
from ..spec._tables import tables

_T = tables()


def field(kind: str, name: str):
    """The table field ``name`` of record kind ``kind`` (for hand-set header bits)."""
    for leaf in _T.record_leaves():
        if leaf.name == kind:
            return leaf.field(name)
    raise KeyError(kind)


def preamble(*extra) -> bytes:
    """A clean start: magic, provider 1, strings 1 "cat" and 2 "name", thread 1."""
    return B.archive(
        B.magic(),
        B.provider_info(1, "example"),
        B.provider_section(1),
        B.string(1, "cat"),
        B.string(2, "name"),
        B.thread(1, 10, 11),
        *extra,
    )


def with_header_bits(record_bytes: bytes, set_mask: int) -> bytes:
    """The record with ``set_mask`` OR-ed into its (little-endian) header word."""
    return B.patch_field(record_bytes, B.WORD, B.read_field(record_bytes, B.WORD) | set_mask)


def with_word(record_bytes: bytes, index: int, value: int) -> bytes:
    """The record with its ``index``-th word replaced."""
    return B.patch_field(record_bytes, B.WORD, value & B.WORD.mask, word=index)


def with_byte(record_bytes: bytes, index: int, value: int) -> bytes:
    b = bytearray(record_bytes)
    b[index] = value
    return bytes(b)


def with_size(record_bytes: bytes, words: int) -> bytes:
    """The record with its 12-bit size field set to ``words`` (content unchanged)."""
    size = next(f for f in _T.header if f.role == "size")
    return B.patch_field(record_bytes, size, words)
