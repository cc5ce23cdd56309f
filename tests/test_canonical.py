"""The canonical decoding: values by table name, refs resolved, state records folded in,
the error prefix, and the JSON Schema derived from the same tables."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.reader_suite._canonical import SHAPES, STATE_KINDS, decode, dumps, json_schema
from fxtlint.spec._model import Record
from fxtlint.spec._tables import tables
from fxtlint.strategies import archives, mutated_archives

P1 = {"id": 1, "name": "p"}
T1 = {"process_koid": "10", "thread_koid": "11"}


def trace(*records, byte_order="little"):
    return B.archive(B.magic(), B.provider_info(1, "p"), B.string(1, "cat"), B.string(2, "name"),
                     B.thread(1, 10, 11), *records, byte_order=byte_order)


def one(*records, **kw) -> dict:
    d = decode(trace(*records, **kw))
    assert d.accepted, d.errors
    (rec,) = d.records
    return rec


CASES = [
    (B.event("instant", 5, category=1, name=2),
     {"kind": "event.instant", "provider": P1, "thread": T1, "category": "cat", "name": "name", "timestamp": "5",
      "arguments": []}),
    (B.event("counter", (1 << 64) - 1, thread=(3, 4), category="c", name=0, id=9),
     {"kind": "event.counter", "provider": P1, "thread": {"process_koid": "3", "thread_koid": "4"}, "category": "c",
      "name": "", "timestamp": "18446744073709551615", "arguments": [], "counter_id": "9"}),
    (B.event("duration_complete", 5, end_timestamp=8),
     {"kind": "event.duration_complete", "provider": P1, "thread": T1, "category": "cat", "name": "name",
      "timestamp": "5", "arguments": [], "end_timestamp": "8"}),
    (B.blob("b", b"\x00\xff", blob_type=3),
     {"kind": "blob", "provider": P1, "name": "b", "blob_type": 3, "payload": "00ff"}),
    (B.userspace_object(7, 1, 2),
     {"kind": "userspace_object", "provider": P1, "process": {"process_koid": "10"}, "name": "name", "pointer": "7",
      "arguments": []}),
    (B.legacy_context_switch(5, 2, 3, outgoing_thread=1, incoming_thread=(20, 21)),
     {"kind": "scheduling.legacy_context_switch", "provider": P1, "cpu": 2, "outgoing_state": 3,
      "outgoing_thread": T1, "incoming_thread": {"process_koid": "20", "thread_koid": "21"},
      "outgoing_priority": 0, "incoming_priority": 0, "timestamp": "5"}),
    (B.log(5, "m"), {"kind": "log", "provider": P1, "thread": T1, "timestamp": "5", "message": "m"}),
    (B.large_blob(1, "n", b"ab"),
     {"kind": "large.blob.no_metadata", "provider": P1, "category": "cat", "name": "n", "payload": "6162"}),
    (B.provider_event(1, 0), {"kind": "metadata.provider_event", "provider": P1, "provider_id": 1, "event_id": 0}),
]


@pytest.mark.parametrize("record, expected", CASES, ids=[c[1]["kind"] for c in CASES])
def test_record_fields_by_table_name(record, expected):
    assert one(record) == expected


ARGS = [
    ("null", None, None), ("int32", -5, -5), ("uint32", (1 << 32) - 1, (1 << 32) - 1),
    ("int64", -(1 << 63), str(-(1 << 63))), ("uint64", (1 << 64) - 1, str((1 << 64) - 1)),
    ("double", 0.5, 0.5), ("double", float("nan"), "NaN"), ("double", float("-inf"), "-Infinity"),
    ("string", "v", "v"), ("string", 2, "name"), ("string", 0, ""), ("pointer", 1 << 60, str(1 << 60)),
    ("koid", 3, "3"), ("bool", True, True), ("bool", False, False), ("blob", b"\x01\x02", "0102"),
]


@pytest.mark.parametrize("kind, value, expected", ARGS, ids=[f"{a[0]}-{i}" for i, a in enumerate(ARGS)])
def test_argument_values_are_typed(kind, value, expected):
    rec = one(B.event("instant", 1, args=[B.arg(kind, "a", value)]))
    assert rec["arguments"] == [{"name": "a", "type": kind, "value": expected}]


def test_64_bit_words_are_strings_and_header_fields_numbers():
    rec = one(B.context_switch((1 << 63) + 1, 65535, 3, 1 << 62, 5))
    assert rec["timestamp"] == str((1 << 63) + 1) and rec["outgoing_thread_koid"] == str(1 << 62)
    assert rec["cpu"] == 65535 and rec["outgoing_state"] == 3


def test_state_records_do_not_appear_but_their_effect_does():
    d = decode(B.archive(B.magic(), B.initialization(1000), B.string(1, "a"), B.thread(1, 1, 2),
                         B.event("instant", 1, category=1, name=1), B.string(1, "b"),
                         B.event("instant", 2, category=1, name=1)))
    assert [r["kind"] for r in d.records] == ["event.instant", "event.instant"]
    assert [r["name"] for r in d.records] == ["a", "b"]  # a re-registration replaces
    assert d.records[0]["provider"] is None


def test_tables_are_per_provider():
    d = decode(B.archive(B.magic(), B.provider_info(1, "one"), B.string(1, "first"), B.thread(1, 1, 2),
                         B.provider_info(2, "two"), B.string(1, "second"), B.thread(1, 3, 4),
                         B.event("instant", 1, category=1, name=1), B.provider_section(1),
                         B.event("instant", 2, category=1, name=1)))
    assert [(r["provider"]["name"], r["name"], r["thread"]["thread_koid"]) for r in d.records] == [
        ("two", "second", "4"), ("one", "first", "2")]


def test_skipped_and_ignored_content():
    with_extras = trace(B.unknown(12, b"\0" * 8), Record(4, "event.instant", {
        "timestamp": 1, "thread": 1, "category": 1, "name": 2}, args=(B.raw_arg(13, "x", b"\0" * 8),
                                                                      B.arg("int32", "k", 1)), extra_words=(7,)))
    plain = trace(B.event("instant", 1, args=[B.arg("int32", "k", 1)]))
    assert decode(with_extras).records == decode(plain).records
    assert decode(with_extras).accepted


def test_big_endian_decodes_the_same():
    recs = [B.event("instant", 1, args=[B.arg("int64", "k", -1)]), B.large_blob(1, 2, b"xyz", timestamp=4)]
    assert decode(trace(*recs, byte_order="big")).records == decode(trace(*recs)).records


def test_an_error_keeps_the_records_before_it():
    good = trace(B.event("instant", 1), B.log(2, "x"))
    d = decode(good + B.archive(B.string(3, "cut"))[:-8])
    assert not d.accepted and d.errors[0].startswith("FR002")
    assert d.records == decode(good).records


def test_an_unregistered_ref_is_an_error_and_ends_the_prefix():
    d = decode(trace(B.event("instant", 1), B.event("instant", 2, name=9), B.event("instant", 3)))
    assert not d.accepted and "string ref 9" in d.errors[0]
    assert [r["timestamp"] for r in d.records] == ["1"]


def test_dumps_is_one_record_per_line_and_parses_back():
    d = decode(trace(B.event("instant", 1), B.log(2, "x")))
    text = d.to_json()
    assert text.count("\n") == 4 and json.loads(text) == d.document()
    assert dumps({"records": []}) == '{"records": []}\n'


@given(st.binary(max_size=200), st.booleans())
def test_never_raises(data, with_magic):
    d = decode((B.archive(B.magic()) if with_magic else b"") + data)
    json.loads(d.to_json())


@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_never_raises_on_mutated_archives(case):
    data, _code = case
    json.loads(decode(data).to_json())


# ------------------------------------------------------------------ schema
VALIDATOR = jsonschema.Draft202012Validator(json_schema())


def test_schema_is_valid_and_committed():
    jsonschema.Draft202012Validator.check_schema(json_schema())
    committed = json.loads((REPO / "corpus" / "conformance" / "canonical.schema.json").read_text())
    assert committed == json_schema()


def test_a_readers_declaration_of_what_it_cannot_tell_apart_fits_the_schema():
    """fxt 0.3.0's adapter adds "cannot_tell_apart" beside the records (issue 27 item 5)."""
    group = ["int32", "uint32", "int64", "uint64", "pointer", "koid"]
    VALIDATOR.validate({"records": [], "cannot_tell_apart": [group]})
    assert not VALIDATOR.is_valid({"records": [], "cannot_tell_apart": [["int33"]]})
    assert not VALIDATOR.is_valid({"records": [], "something_else": []})


def test_every_record_kind_has_a_shape():
    kinds = {leaf.name for leaf in tables().record_leaves()}
    assert set(SHAPES) == kinds - STATE_KINDS


@given(archives(max_size=8))
def test_decodings_of_valid_archives_match_the_schema(data):
    d = decode(data)
    assert d.accepted, d.errors
    VALIDATOR.validate(json.loads(d.to_json()))


@pytest.mark.parametrize("bad", [
    {"records": [{**CASES[0][1], "timestamp": 5}]},  # a 64-bit value as a number
    {"records": [{**CASES[0][1], "size": 3}]},  # an encoding field
    {"records": [{**CASES[0][1], "arguments": [{"name": "a", "type": "int32", "value": "5"}]}]},
    {"records": [{k: v for k, v in CASES[0][1].items() if k != "thread"}]},
    {"records": [{**CASES[0][1], "kind": "string"}]},  # a state record
])
def test_schema_rejects_what_is_not_canonical(bad):
    assert not VALIDATOR.is_valid(bad)
