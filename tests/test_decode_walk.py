"""``decode`` on the native walk's rows mode (``_canonical._row_plan``, ``RowSink.format_decode``):
every record kind the canonical decoding prints is a row written natively, and the whole
output (lines, errors, notes, faults) is the reference engine's, byte for byte: on records
of every kind (refs indexed, inline and to nothing, inline threads, every argument type,
texts that need escaping, binary payloads), the conformance suite's cases, the golden and
real corpora in both byte orders, drawn archives (clean, noisy, mutated) and their
big-endian twins, structured-log streams, and a file read a chunk at a time. A clean
trace leaves compiled code only for its magic and provider info records.
"""

from __future__ import annotations

import io
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine import _file, _native
from fxtlint.export._export_tef import _OBJ as OBJ
from fxtlint.reader_suite import _canonical
from fxtlint.reader_suite._canonical import SHAPES, decode_to
from fxtlint.spec._limits import Limits
from fxtlint.strategies import archives, log_streams, mutated_archives
from noisy_traces import damaged_log_streams, noisy_archives
from test_export_walk import GOLDEN, REAL, _on_the_corpora, decode_check
from test_nwalk import big_endian

if _native.nwalk() is None:  # pragma: no cover - an install where the walk did not compile
    pytest.skip("the native walk is not built", allow_module_level=True)

SUITE = REPO / "corpus" / "conformance"
CASES = sorted(p for d in ("valid", "invalid", "malformed", "recover") for p in (SUITE / d).glob("*.fxt"))
# the records a clean trace still has decoded one by one: they set what the rows say
# (the magic record its byte order, the provider info the provider's name), and a provider
# event (its one defined event, the buffer full, is a finding the reference says: EV003)
ONE_BY_ONE = {"metadata.trace_info.magic", "metadata.provider_info", "metadata.provider_event"}

PREFIX = [B.magic(), B.provider_info(1, "p\u00e9"), B.provider_section(1), B.initialization(10**9),
          B.string(1, "cat"), B.string(2, 'na"me\\\n\x01\u00e9'), B.thread(1, 10, 11), B.thread(2, 20, 21)]
ARGS = [B.arg("int32", "i", -(2**31)), B.arg("uint32", "u", 2**32 - 1), B.arg("int64", "l", -(2**63)),
        B.arg("uint64", "q", 2**64 - 1), B.arg("double", "d", 0.1), B.arg("double", "n", float("nan")),
        B.arg("double", "inf", float("-inf")), B.arg("string", "s", "t\tab"), B.arg("pointer", "p", 0xBEEF),
        B.arg("koid", 2, 7), B.arg("bool", "b", True), B.arg("null", "z", None), B.arg("blob", 1, b"\x00\xffz"),
        B.arg("string", 2, 1)]


def every_kind(thread=1, name=2, args=ARGS) -> list:
    """A record of each kind the decoding prints (``thread``, ``name``: the refs they use)."""
    return [
        B.event("instant", 5, thread=thread, name=name, args=args[:7]),
        B.event("counter", 6, thread=thread, name=name, args=ARGS[:2], id=2**64 - 1),  # (numbers: EV001)
        B.event("duration_complete", 7, thread=thread, name=name, end_timestamp=9, args=args[7:]),
        B.event("duration_begin", 7, thread=thread, name=name, args=args[-3:]),
        B.event("async_begin", 8, thread=thread, name=name, id=3),
        B.event("async_instant", 8, thread=thread, name=name, id=3),
        B.event("async_end", 8, thread=thread, name=name, id=3),
        B.event("flow_begin", 9, thread=thread, name=name, id=4),
        B.event("flow_step", 9, thread=thread, name=name, id=4),
        B.event("flow_end", 9, thread=thread, name=name, id=4),
        B.blob(name, b"\x00\x01\xfe\xff" * 5, blob_type=2),
        B.blob("inline \"blob\"", b"", blob_type=1),
        B.userspace_object(0xFFFF_0000_1234, thread, name, args=args),
        B.userspace_object(1, (99,), "obj", args=()),
        B.kernel_object(10, OBJ["process"], name, args=args[:3]),
        B.kernel_object(11, OBJ["thread"], "t", args=[B.arg("koid", "process", 10)]),
        B.legacy_context_switch(10, 3, 2, outgoing_thread=thread, incoming_thread=(5, 6), outgoing_priority=7,
                                incoming_priority=255),
        B.legacy_context_switch(11, 0, 0, outgoing_thread=2, incoming_thread=thread),
        B.context_switch(12, 1, 3, 100, 2**64 - 2, args=args[8:12]),
        B.context_switch(13, 2, 0, 0, 1),
        B.thread_wakeup(14, 3, 101, args=args[:1]),
        B.thread_wakeup(15, 3, 102),
        B.log(16, "a log line \"quoted\"\n\u00e9", thread=thread),
        B.log(17, "", thread=(1, 2)),
        B.large_blob(1, name, b"large" * 11, timestamp=18, thread=thread, args=args[:4]),
        B.large_blob("c", "n", b"\x00" * 3),
        B.provider_event(1, 0),  # (the buffer filled: EV003)
        B.provider_event(1, 7),  # (an undefined event: UN004)
        B.event("duration_end", 19, thread=thread, name=name),
    ]


class OneByOne:
    """The kinds ``Canonical.record`` decoded one by one while patched in."""

    def __init__(self, monkeypatch):
        self.kinds: Counter = Counter()
        record = _canonical.Canonical.record

        def counted(canon, rec, change=None):
            self.kinds[rec.kind] += 1
            return record(canon, rec, change)

        monkeypatch.setattr(_canonical.Canonical, "record", counted)


def test_every_kind_is_written_natively(monkeypatch):
    """Records of every kind (texts indexed and inline, threads indexed and inline, every
    argument type): the reference's lines, and none decoded one by one but the magic and
    provider info records; every kind the decoding prints is among them."""
    recs = PREFIX + every_kind() + every_kind(thread=(3, 4), name="inline", args=ARGS[::-1]) + every_kind()
    assert {r.kind for r in recs} >= set(SHAPES)
    seen = OneByOne(monkeypatch)
    for order in ("little", "big"):
        data = B.archive(*recs, byte_order=order)
        decode_check(data)
        want, got = io.StringIO(), io.StringIO()
        ref = decode_to(data, want, engine="reference")
        assert not ref.errors and not ref.notes
        assert want.getvalue().count("\n") == len(recs) - len(PREFIX) + 2  # (the tables: no line; brackets: two)
        seen.kinds.clear()
        decode_to(data, got, engine="walk")
        assert got.getvalue() == want.getvalue()
        assert set(seen.kinds) <= ONE_BY_ONE and sum(seen.kinds.values()) == 2 + 6, seen.kinds


def test_lines_written_as_the_walk_walks(monkeypatch):
    """Stops every few records: most lines are written as the walk walks them (the texts and
    providers known at the last stop), the rest (a string registered since, a provider renamed
    by a provider info record, a ref to nothing) kept as rows and put in their places; the
    reference's lines and errors; fewer written so where the walk stops only at the end (its
    first stop a provider info record's)."""
    sinks = []
    init = _canonical._NativeRecords.__init__

    def kept(rider, *a):
        init(rider, *a)
        sinks.append(rider.sink)

    monkeypatch.setattr(_canonical._NativeRecords, "__init__", kept)
    late = [r for i in range(3) for r in (B.string(7 + i, f"late {i}"), B.event("instant", 30, thread=1, name=7 + i))]
    renamed = [B.provider_info(1, "renamed \"p\""), B.provider_section(1), *late, *every_kind(name=7)]
    for tail in ([], [B.event("instant", 31, thread=1, name=12), *every_kind()]):
        data = B.archive(*PREFIX, *every_kind(), *every_kind(thread=(3, 4), name="inline"), *renamed, *tail)
        want = io.StringIO()
        ref = decode_to(data, want, engine="reference")
        assert bool(ref.errors) == bool(tail)
        direct = []
        for window in (3, 1 << 16):
            sinks.clear()
            got = io.StringIO()
            new = decode_to(data, got, engine="walk", limits=Limits(pairing_window=window))
            assert got.getvalue() == want.getvalue()
            assert (new.errors, new.notes, new.faults) == (ref.errors, ref.notes, ref.faults)
            (sink,) = sinks
            direct.append((sink.ndirect, sink.nrows))
        lines = want.getvalue().count("\n") - 2
        (small, rows), (whole, _) = direct
        assert lines / 2 < small < rows and whole < small, (direct, lines)


def test_the_walk_stops_when_its_lines_fill_their_buffer(monkeypatch):
    """About a megabyte of direct lines (``WB_TAKE``) stops the walk before its window's end,
    as do 4,096 rows waiting (``ROWS_TAKE``: here the texts of the strings registered after
    the provider info record, the walk's first stop): the reference's lines, in more stops
    than the window's, most of them written as the walk walks."""
    takes = []
    take = _canonical._NativeRecords.take

    def counted(rider):
        takes.append(rider.sink.ndirect)
        take(rider)

    monkeypatch.setattr(_canonical._NativeRecords, "take", counted)
    name = "n" * 2000
    inline = [B.event("instant", t, thread=(3, 4), category="c", name=f"{t:05} {name}") for t in range(1500)]
    indexed = [B.event("instant", t, args=ARGS[:2]) for t in range(6000)]
    for recs, stops, direct in ((inline, 4, 1400), (indexed, 3, 1500)):
        data = B.archive(*PREFIX, *recs)
        want, got = io.StringIO(), io.StringIO()
        decode_to(data, want, engine="reference")
        takes.clear()
        decode_to(data, got, engine="walk")
        assert got.getvalue() == want.getvalue() and len(want.getvalue()) > 1 << 20
        assert len(takes) >= stops and takes[-1] >= direct, takes


@pytest.mark.parametrize("where", range(len(every_kind())))
def test_a_ref_to_nothing_in_each_kind(where):
    """An unregistered string ref, an unregistered thread ref: the decoding stops at the
    first one with the reference's message, in every kind that has either."""
    for bad in (dict(name=9), dict(thread=9)):
        recs = every_kind(**bad)
        data = B.archive(*PREFIX, *every_kind(), recs[where], *every_kind())
        decode_check(data)
        decode_check(big_endian(data))


def test_argument_refs_to_nothing():
    for a in (B.arg("string", 9, "v"), B.arg("string", "n", 9)):
        for recs in (every_kind(args=[a]), every_kind(args=[ARGS[0], a, ARGS[1]])):
            for r in recs:
                decode_check(B.archive(*PREFIX, r, *every_kind()))


def test_a_file_read_in_chunks(tmp_path, monkeypatch):
    """``FileSource`` in chunks of a word and of five: the reference's lines."""
    data = B.archive(*PREFIX, *every_kind(), B.string(2, "again"), *every_kind(thread=2))
    want = io.StringIO()
    decode_to(data, want, engine="reference")
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    for chunk in (8, 40):
        monkeypatch.setattr(_file, "CHUNK", chunk)
        got = io.StringIO()
        with open(path, "rb") as fh:
            decode_to(_file.FileSource(fh, str(path), len(data)), got, engine="walk")
        assert got.getvalue() == want.getvalue(), chunk


def test_conformance_cases():
    """Every case of the suite (valid, invalid, malformed, recovering), a few records each."""
    assert len(CASES) > 200
    for path in CASES:
        decode_check(path.read_bytes())


def test_golden_and_real_files_leave_only_their_findings_to_the_reference(monkeypatch):
    """On the corpora whose records are clean, no record but the magic and provider info
    records is decoded one by one."""
    seen = OneByOne(monkeypatch)
    clean = 0
    for path in [p for p in REAL if p.stat().st_size <= 1 << 18]:
        seen.kinds.clear()
        decode_to(path.read_bytes(), io.StringIO(), engine="walk")
        clean += set(seen.kinds) <= ONE_BY_ONE
    assert clean >= 2


@settings(max_examples=10, deadline=None)
@given(st.one_of(archives(), noisy_archives(), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda t: t[0])))
def test_drawn_archives(data):
    """Concatenated (a repeated magic record, the tables again) and the big-endian twin."""
    decode_check(data + data)
    decode_check(big_endian(data))


@settings(max_examples=10, deadline=None)
@given(st.one_of(log_streams(), damaged_log_streams()))
def test_structured_log_streams(data):
    """No trace to decode: the same refusal on both."""
    decode_check(data)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)  # (200 cost CI's slow step about 20 s more)
@given(st.one_of(archives(), noisy_archives(), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda t: t[0])))
def test_many_drawn_archives(data):
    decode_check(data + data)
    decode_check(big_endian(data))


@pytest.mark.slow
def test_every_golden_and_real_file():
    """Every file of the corpora, large ones too, in both byte orders."""
    n = _on_the_corpora(lambda data, fmt: decode_check(data) or 1 if fmt != "log" else 0)
    big = [p for p in GOLDEN + REAL if p.stat().st_size > 1 << 18 and p.suffix == ".fxt"]
    for path in big:
        data = path.read_bytes()
        decode_check(data)
        decode_check(big_endian(data))
    assert n + len(big) > 100
