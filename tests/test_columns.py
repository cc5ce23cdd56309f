"""``_columns``: the column screen proves records clean, one numpy operation per layout
item for a whole group; anything the reference could report flags the row, which then
goes to the reference decoder. Each case is a minimal record the screen must flag and
its clean twin, one record per batch; and what a clean row's columns hold."""

from __future__ import annotations

import numpy as np
import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.engine._columns import Screen
from fxtlint.engine._scan import screen_batch
from fxtlint.rules import _ex as X
from fxtlint.spec._tables import tables

T = tables()
SIZE = next(f for f in T.header if f.role == "size")
TYPE = next(f for f in T.header if f.role == "type")


def _screen(data: bytes, reference_kinds=frozenset()):
    """Frame ``data`` (whole records, little-endian) and screen it as one batch."""
    W = np.frombuffer(data, "<u8")
    starts, at = [], 0
    while at < len(W):
        starts.append(at)
        size = (int(W[at]) >> SIZE.lo) & SIZE.mask
        assert size, f"a record of size 0 at word {at}: not a framed input"
        at += size
    starts = np.asarray(starts, np.int64)
    sizes = ((W[starts] >> np.uint64(SIZE.lo)) & np.uint64(SIZE.mask)).astype(np.int64)
    types = ((W[starts] >> np.uint64(TYPE.lo)) & np.uint64(TYPE.mask)).astype(np.int64)
    return screen_batch(Screen(W, False, False), 0, starts, sizes, types, T.records, reference_kinds)


def flagged(record: bytes) -> bool:
    (reference,) = _screen(record).reference.tolist()
    return reference


def rec(r) -> bytes:
    return fxtlint.encode_record(r)


ARG_AT = len(rec(B.event("instant", 1))) // 8  # the word of an instant's first argument header


def _arg_reserved(record: bytes) -> bytes:
    reserved = next(f for f in T.arguments[6].full_fields if f.reserved)
    return X.with_word(record, ARG_AT, int.from_bytes(record[8 * ARG_AT:8 * ARG_AT + 8], "little") | reserved.word_mask)


def _pad(record: bytes, index: int) -> bytes:
    return X.with_byte(record, index, 0x20)


def _trailing_word(record: bytes) -> bytes:
    return X.with_size(record + bytes(8), len(record) // 8 + 1)


def _overrun_arg(record: bytes) -> bytes:
    """The first argument's size one word past its record's end."""
    arg_size = next(f for f in T.argument_header if f.role == "size")
    header = int.from_bytes(record[8 * ARG_AT:8 * ARG_AT + 8], "little")
    words = (header >> arg_size.lo) & arg_size.mask
    return X.with_word(record, ARG_AT, header & ~(arg_size.mask << arg_size.lo) | (words + 1) << arg_size.lo)


STRING_ARG = B.event("instant", 1, args=[B.arg("string", 1, "abc")])
CASES = {
    # name: (the record the screen must flag, its clean twin)
    "reserved bits in an argument": (_arg_reserved(rec(STRING_ARG)), rec(STRING_ARG)),
    "non-zero stream padding": (_pad(rec(STRING_ARG), 8 * (ARG_AT + 1) + 3), rec(STRING_ARG)),
    "text that is not UTF-8": (X.with_byte(rec(STRING_ARG), 8 * (ARG_AT + 1) + 1, 0xFF), rec(STRING_ARG)),
    "text ending in a C terminator": (rec(B.event("instant", 1, args=[B.arg("string", 1, "ab\0")])),
                                      rec(B.event("instant", 1, args=[B.arg("string", 1, "ab")]))),
    "a word after the content": (_trailing_word(rec(STRING_ARG)), rec(STRING_ARG)),
    "an argument past its record": (_overrun_arg(rec(STRING_ARG)), rec(STRING_ARG)),
    "a counter's argument not a number": (rec(B.event("counter", 1, id=1, args=[B.arg("string", 1, "x")])),
                                          rec(B.event("counter", 1, id=1, args=[B.arg("int64", 1, 3)]))),
    "a complete event ending before it began": (rec(B.event("duration_complete", 5, end_timestamp=4)),
                                                rec(B.event("duration_complete", 5, end_timestamp=5))),
}


@pytest.mark.parametrize("case", CASES)
def test_the_screen_flags_what_the_reference_may_report_and_passes_the_twin(case):
    bad, good = CASES[case]
    assert flagged(bad) and not flagged(good)
    # the reference does report on the flagged one, and nothing on the twin
    assert fxtlint.lint_bytes(X.preamble() + bad, engine="reference").diagnostics
    assert not fxtlint.lint_bytes(X.preamble() + good, engine="reference").diagnostics


def test_undefined_types_and_named_kinds_go_to_the_reference_unscreened():
    data = rec(B.unknown(12, b"abc")) + rec(B.event("instant", 1)) + rec(B.event("counter", 1, id=1))
    cols = _screen(data, frozenset({"event.counter"}))
    assert cols.reference.tolist() == [True, False, True]
    assert [g.layout.name for g in cols.groups] == ["event.instant"]


def test_a_clean_rows_columns_hold_its_fields_and_arguments():
    event = B.event("instant", 7, args=[B.arg("int64", 1, -5), B.arg("double", 2, 0.25)])
    cols = _screen(rec(event) + rec(B.event("instant", 9, args=[B.arg("double", 3, 1.5)])))
    (g,) = cols.groups
    assert not g.flag.any() and g.vals["timestamp"].tolist() == [7, 9]
    by_position = {(a.k, a.layout.name): a for a in g.args}
    assert by_position[(0, "int64")].rows.tolist() == [0]
    assert by_position[(0, "int64")].vals["value"].view(np.int64).tolist() == [-5]
    doubles = by_position[(0, "double")]
    assert doubles.rows.tolist() == [1] and doubles.vals["value"].view(np.float64).tolist() == [1.5]
    assert by_position[(1, "double")].vals["value"].view(np.float64).tolist() == [0.25]
    # the argument's header word, in the buffer's words
    assert by_position[(1, "double")].pos.tolist() == [ARG_AT + 2]


def test_text_beyond_ascii_is_left_to_the_reference_even_when_it_is_valid():
    """The screen checks plain ASCII only: valid UTF-8 beyond it is flagged, and the
    reference, which decodes it, finds nothing."""
    accented = rec(B.event("instant", 1, args=[B.arg("string", 1, "ab\u00e9")]))
    assert flagged(accented)
    assert not fxtlint.lint_bytes(X.preamble() + accented, engine="reference").diagnostics
