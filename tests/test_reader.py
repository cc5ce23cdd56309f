"""The recovering reader: every record type decodes, round-trips, and nothing raises."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL
from fxtlint import build as B
from fxtlint.rules import all_rules

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # fuzz/ is not installed; appended, so an installed fxtlint still wins
    sys.path.append(str(REPO))
from fuzz.slow_inputs import BUILDERS as SLOW_INPUTS  # noqa: E402

PRE = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "cat"), B.string(2, "name"),
       B.thread(1, 10, 11)]

ALL_ARGS = [
    B.arg("null", 1),
    B.arg("int32", 1, -5),
    B.arg("uint32", 2, 0xFFFFFFFF),
    B.arg("int64", "i64", -(1 << 62)),
    B.arg("uint64", "u64", (1 << 64) - 1),
    B.arg("double", "d", 2.5),
    B.arg("string", "s", "inline value"),
    B.arg("string", 1, 2),
    B.arg("pointer", "p", 0xDEADBEEF),
    B.arg("koid", "k", 42),
    B.arg("bool", "b", True),
    B.arg("blob", "blob", b"\x00\x01\x02"),
]

# one record of every kind the tables define (the table test proves that is every kind)
EVERY_KIND = {
    "metadata.provider_info": B.provider_info(2, "second"),
    "metadata.provider_section": B.provider_section(1),
    "metadata.provider_event": B.provider_event(1, 0),
    "metadata.trace_info.magic": B.magic(),
    "initialization": B.initialization(10**9),
    "string": B.string(3, "three"),
    "thread": B.thread(2, 10, 12),
    "event.instant": B.event("instant", 1, args=ALL_ARGS),
    "event.counter": B.event("counter", 2, id=9, args=[B.arg("int64", 1, 3)]),
    "event.duration_begin": B.event("duration_begin", 3, thread=(10, 11)),
    "event.duration_end": B.event("duration_end", 4, category="c", name="n"),
    "event.duration_complete": B.event("duration_complete", 5, end_timestamp=9),
    "event.async_begin": B.event("async_begin", 6, id=1),
    "event.async_instant": B.event("async_instant", 7, id=1),
    "event.async_end": B.event("async_end", 8, id=1),
    "event.flow_begin": B.event("flow_begin", 6, id=2),
    "event.flow_step": B.event("flow_step", 7, id=2),
    "event.flow_end": B.event("flow_end", 8, id=2),
    "blob": B.blob("blobname", b"payload!!", blob_type=3),
    "userspace_object": B.userspace_object(0x1000, (10,), "obj", args=[B.arg("int32", 1, 1)]),
    "kernel_object": B.kernel_object(10, 1, "proc", args=[B.arg("koid", "process", 10)]),
    "scheduling.legacy_context_switch": B.legacy_context_switch(9, 1, 3, outgoing_thread=(10, 11),
                                                                incoming_thread=1),
    "scheduling.context_switch": B.context_switch(10, 3, 2, 11, 12, args=[B.arg("int32", "incoming_weight", 1)]),
    "scheduling.thread_wakeup": B.thread_wakeup(11, 3, 12, args=[B.arg("int32", "weight", 2)]),
    "log": B.log(12, "a log message", thread=(10, 11)),
    "large.blob.with_metadata": B.large_blob(1, "big", b"x" * 100, timestamp=13, args=[B.arg("bool", "b", 1)]),
    "large.blob.no_metadata": B.large_blob("c", 2, b"y" * 7),
}


def test_every_kind_has_a_case():
    assert set(EVERY_KIND) == {leaf.name for leaf in fxtlint.tables().record_leaves()}


@pytest.mark.parametrize("kind", sorted(EVERY_KIND))
@pytest.mark.parametrize("byte_order", ["little", "big"])
def test_every_kind_decodes_and_round_trips(kind, byte_order):
    data = B.archive(*PRE, EVERY_KIND[kind], byte_order=byte_order)
    recs, diags = fxtlint.read_records(data)
    expected = {"EX002"} if byte_order == "big" else set()
    if kind == "metadata.trace_info.magic":
        expected.add("MG003")  # a second magic record, after the preamble's
    assert {d.code for d in diags} == expected
    assert recs[-1].kind == kind
    assert fxtlint.encode_records(recs, byte_order) == data


def test_argument_values_decode():
    data = B.archive(*PRE, EVERY_KIND["event.instant"])
    recs, _ = fxtlint.read_records(data)
    got = [(a.kind, a.name, a.value) for a in recs[-1].args]
    assert got == [
        ("null", 1, None), ("int32", 1, -5), ("uint32", 2, 0xFFFFFFFF), ("int64", "i64", -(1 << 62)),
        ("uint64", "u64", (1 << 64) - 1), ("double", "d", 2.5), ("string", "s", "inline value"),
        ("string", 1, 2), ("pointer", "p", 0xDEADBEEF), ("koid", "k", 42), ("bool", "b", True),
        ("blob", "blob", b"\x00\x01\x02"),
    ]


def test_big_endian_archive_reads_the_same_values():
    le, _ = fxtlint.read_records(B.archive(*PRE, *EVERY_KIND.values()))
    be, diags = fxtlint.read_records(B.archive(*PRE, *EVERY_KIND.values(), byte_order="big"))
    assert [(r.kind, r.fields, r.strings, r.args) for r in le] == [(r.kind, r.fields, r.strings, r.args) for r in be]
    assert sorted(d.code for d in diags) == ["EX002", "MG003"]


def test_large_record_of_4096_words_and_more_is_legal():
    rec = B.large_blob(1, 2, b"z" * (8 * 5000))
    data = B.archive(*PRE, rec, B.string(3, "after"))
    recs, diags = fxtlint.read_records(data)
    assert diags == []
    assert recs[-2].size_words > 4096 and recs[-1].strings["value"] == "after"


def test_unknown_record_type_is_skipped_by_its_size():
    data = B.archive(*PRE, B.unknown(11, b"\xff" * 24), B.string(3, "after"))
    recs, diags = fxtlint.read_records(data)
    assert [d.code for d in diags] == ["UN001"]
    assert recs[-2].kind == "unknown" and recs[-1].strings["value"] == "after"


def test_unknown_argument_type_is_skipped_by_its_size():
    ev = B.event("instant", 1, args=[B.raw_arg(13, 1, b"\x01" * 16), B.arg("int32", 2, 9)])
    recs, diags = fxtlint.read_records(B.archive(*PRE, ev))
    assert [d.code for d in diags] == ["UN003"]
    assert recs[-1].args[1].value == 9


@pytest.mark.parametrize("cut", [1, 7, 8, 9, 15])
def test_truncated_tail_keeps_every_record_before_it(cut):
    data = B.archive(*PRE, B.string(3, "a longer string to cut"))
    recs, diags = fxtlint.read_records(data[:-cut])
    assert len(recs) == len(PRE)
    assert {"FR002", "FR003"} & {d.code for d in diags}


def test_size_zero_header_stops_the_walk_with_everything_before_it_read():
    data = B.archive(*PRE) + B.words(0) + B.archive(B.string(3, "never read"))
    recs, diags = fxtlint.read_records(data)
    assert len(recs) == len(PRE)
    assert [d.code for d in diags] == ["FR001"]
    assert diags[0].offset == len(B.archive(*PRE))


def real_traces():
    return sorted(CORPUS_REAL.glob("jane-*.fxt"))


@pytest.mark.parametrize("path", real_traces(), ids=lambda p: p.name)
def test_real_traces_round_trip(path):
    data = path.read_bytes()
    recs, _ = fxtlint.read_records(data)
    assert fxtlint.encode_records(recs) == data


def test_good_examples_of_every_rule_round_trip():
    for rule in all_rules():
        if rule.good.input_format != "trace":
            continue
        data = rule.good.build()
        recs, _ = fxtlint.read_records(data)
        assert fxtlint.encode_records(recs) == data, rule.code


def _check_tiling(data: bytes):
    """Records lie inside the buffer, in order, and never overlap."""
    recs, diags = fxtlint.read_records(data)
    pos = 0
    for r in recs:
        assert r.offset == pos and r.end <= len(data)
        pos = r.end
    for d in diags:
        assert 0 <= d.offset <= len(data)
        if d.span is not None:
            assert 0 <= d.span[0] <= d.span[1] <= len(data)
    return recs


@given(st.binary(max_size=512))
def test_never_raises_on_random_bytes(data):
    _check_tiling(data)
    fxtlint.lint_bytes(data)
    fxtlint.lint_bytes(data, engine="reference")
    fxtlint.lint_bytes(data, input_format="log")


_SAMPLE = B.archive(*PRE, *EVERY_KIND.values())


@given(st.integers(0, len(_SAMPLE)))
def test_never_raises_on_truncation(cut):
    _check_tiling(_SAMPLE[:cut])
    fxtlint.lint_bytes(_SAMPLE[:cut])


@given(st.lists(st.tuples(st.integers(0, len(_SAMPLE) - 1), st.integers(0, 7)), max_size=6))
def test_never_raises_on_bit_flips(flips):
    b = bytearray(_SAMPLE)
    for pos, bit in flips:
        b[pos] ^= 1 << bit
    _check_tiling(bytes(b))
    fxtlint.lint_bytes(bytes(b))


def test_reads_only_inside_its_record():
    """A record whose inline string claims more bytes than the record holds reads nothing past it."""
    ev = B.archive(B.event("instant", 1, name="abcdefgh"))
    size = next(f for f in fxtlint.tables().header if f.role == "size")
    short = B.patch_field(ev, size, 2)[:16]  # the name stream is cut off
    data = B.archive(*PRE) + short + B.archive(B.string(3, "next record"))
    recs, diags = fxtlint.read_records(data)
    assert "ST001" in {d.code for d in diags}
    assert recs[-1].strings["value"] == "next record"
    assert "name" not in recs[-2].strings


@pytest.mark.parametrize("rtype, bits", [(12, 0x123), (0, 0xF), (15, 0x5)])
def test_undefined_types_and_subtypes_round_trip(rtype, bits):
    """Header bits above the size field survive, whatever the record's size field width."""
    rec = B.unknown(rtype, b"\x07" * 16, bits=bits)
    data = B.archive(B.magic(), rec)
    recs, diags = fxtlint.read_records(data)
    assert recs[-1].kind.endswith("unknown") and {d.code for d in diags} <= {"UN001", "UN002"}
    assert fxtlint.encode_records(recs) == data



@pytest.mark.parametrize("engine", ["reference", "fast"])
@pytest.mark.parametrize("hostile", sorted(SLOW_INPUTS))
def test_hostile_inputs_are_read_in_linear_work(hostile, engine, monkeypatch):
    """Words the reader reads per word of the file stay bounded as the file grows
    (``fuzz/slow_inputs.py``: every record a resynchronisation). They grew with it on
    ``swallowers``: each record whose size swallowed its neighbours read the words it then
    dropped, and 16 KB read a million words."""
    from fxtlint.engine import _reader

    reads = {"words": 0}

    def counted(unpack):
        def read(buf, off=0):
            reads["words"] += 1
            return unpack(buf, off)
        return read

    monkeypatch.setattr(_reader, "_UNPACK", {big: counted(u) for big, u in _reader._UNPACK.items()})
    from fxtlint.engine._lint import walk_for

    for resync in (True, False):  # recovery's reading (decode, export), and the lint's by declared sizes
        per_word = {}
        for size in (4096, 16384):
            data = SLOW_INPUTS[hostile](size)
            reads["words"] = 0
            records = walk_for(data, (), engine=engine, resync=resync).run()
            fxtlint.lint_bytes(data, engine=engine)
            if resync:
                assert records > len(data) // 1024, records  # the recovery read on to the end
            per_word[size] = reads["words"] / (len(data) // 8)
        assert per_word[16384] <= 12 and per_word[16384] <= 1.1 * per_word[4096], (resync, per_word)


@pytest.mark.parametrize("hostile", sorted(SLOW_INPUTS))
def test_remembered_chains_are_the_framed_ones(hostile):
    """``_chain`` on bytes remembers each offset's chain (``_chain_memo``), filled back from
    the offsets framed after it: asked in any order, at every word (and past the end), it
    answers what framing record by record from there answers (``_chain_walk``, as for a
    bytearray, which is never remembered)."""
    import random

    from fxtlint.engine import _reader

    ev = B.event("instant", 1, thread=1, category=1, name=2)
    clean = B.archive(B.magic(), *[ev] * 150)  # chains of RESYNC_DEPTH, and ones that reach the end
    for data in (SLOW_INPUTS[hostile](4096), SLOW_INPUTS[hostile](4096)[:-13], SLOW_INPUTS[hostile](2048) + clean,
                 clean + SLOW_INPUTS[hostile](2048)[8:] + clean[:-21]):
        offsets = list(range(0, len(data) + 16, 8))
        random.Random(len(data)).shuffle(offsets)
        for big in (False, True):
            got = {at: _reader._chain(data, at, big) for at in offsets}
            assert _reader._CHAINS[0] is data
            assert _reader._CHAINS[2] or not any(starts for starts, _ in got.values())  # remembered
            for at in offsets:
                assert got[at] == _reader._chain_walk(data, at, big) == _reader._chain(bytearray(data), at, big), at


def test_the_first_chains_of_a_buffer_are_framed_record_by_record():
    """A buffer's first ``_CHAIN_WALK_FIRST`` chains are framed record by record, not through
    the memo (a small lint's one bad record asks two: framing ``_CHAIN_AHEAD`` ahead and
    filling the memo would cost it more); later ones fill the memo. Both answer alike."""
    from fxtlint.engine import _reader

    ev = B.event("instant", 1, thread=1, category=1, name=2)
    data = B.archive(B.magic(), *[ev] * 60)
    _reader.forget_chains()
    try:
        offsets = list(range(8, 8 * (_reader._CHAIN_WALK_FIRST + 4), 8))
        got = []
        for i, at in enumerate(offsets):
            got.append(_reader._chain(data, at, False))
            assert bool(_reader._CHAINS[2]) == (i >= _reader._CHAIN_WALK_FIRST), i  # the memo from the fifth
        assert got == [_reader._chain_walk(data, at, False) for at in offsets]
    finally:
        _reader.forget_chains()


def test_the_look_ahead_memo_does_not_hold_a_buffer_past_its_lint():
    """``_reader._chain``'s memo holds the bytes it chained: a lint (either engine) and a
    walk (export) let go of them when they end, so a caller's buffer is not kept alive."""
    import io

    from fxtlint.engine import _reader
    from fxtlint.export._export_tef import write_document

    data = SLOW_INPUTS["swallowers"](2048)
    for engine in ("auto", "reference"):
        assert fxtlint.lint_bytes(data, engine=engine).counts.get("FR004")
        assert _reader._CHAINS[0] is None
    _reader._chain(data, 8, False)
    assert _reader._CHAINS[0] is data  # (the memo was taken: the test can fail)
    write_document(data, io.StringIO())
    assert _reader._CHAINS[0] is None


@pytest.mark.parametrize("big", [False, True])
def test_the_magic_search_frames_each_record_by_its_declared_size(big):
    """MG001's search (``first_magic``) steps from record to record by the size each header
    declares: an undefined record type's too (a reader skips it by that size), then a defined
    one's, and finds the magic record after them; a header of size 0 ends the search."""
    import struct

    from fxtlint.engine._reader import _HEADER_SIZE, _HEADER_TYPE, MAGIC_BE, MAGIC_LE, first_magic
    from fxtlint.spec._tables import tables

    records = tables().records
    undefined = next(t for t in range(1 << (_HEADER_TYPE.hi - _HEADER_TYPE.lo + 1)) if t not in records)
    defined = next(t for t in sorted(records) if t != 0)
    fmt, magic = (">Q", MAGIC_BE) if big else ("<Q", MAGIC_LE)

    def record(kind: int, words: int) -> bytes:
        return struct.pack(fmt, _HEADER_TYPE.put(kind) | _HEADER_SIZE.put(words)) + bytes(8 * (words - 1))

    buf = record(undefined, 3) + record(defined, 2) + magic
    assert first_magic(buf, big) == 8 * 5
    assert first_magic(record(undefined, 3)[:8] + bytes(16) + magic, big) == 24
    assert first_magic(struct.pack(fmt, _HEADER_TYPE.put(undefined)) + magic, big) is None  # size 0: no framing on


@pytest.mark.parametrize("big", [False, True])
def test_the_magic_search_of_bytes_with_no_aligned_magic_word_frames_nothing(big, monkeypatch):
    """Whole bytes in which no magic word stands at a multiple of 8 (none at all, or one
    across two words) have no magic record the search could find: it says so without
    framing (``_word_aligned``), as the framed search of the same bytes in a bytearray
    (which may still change: framed record by record) says; bytes holding one at a multiple
    of 8 are framed."""
    import struct

    from fxtlint.engine import _reader
    from fxtlint.engine._reader import _HEADER_SIZE, _HEADER_TYPE, MAGIC_BE, MAGIC_LE, MagicSearch
    from fxtlint.spec._tables import tables

    defined = next(t for t in sorted(tables().records) if t != 0)
    fmt, magic = (">Q", MAGIC_BE) if big else ("<Q", MAGIC_LE)
    filler = struct.pack(fmt, _HEADER_TYPE.put(defined) | _HEADER_SIZE.put(1))
    framed = []
    real = _reader._header_leaf

    def counting(header):
        framed.append(header)
        return real(header)

    monkeypatch.setattr(_reader, "_HEADERS", {})
    monkeypatch.setattr(_reader, "_header_leaf", counting)
    across = filler * 10 + magic[3:] + magic[:3] + filler * 10
    for buf in (filler * 50, across, filler * 10 + b"abc" + magic + b"defgh"):
        del framed[:]
        assert MagicSearch(big).find(buf) is None and not framed
        assert MagicSearch(big).find(bytearray(buf)) is None and framed
    buf = filler * 10 + magic + filler
    assert MagicSearch(big).find(buf) == 80 and framed


@pytest.mark.parametrize("big", [False, True])
def test_the_early_question_is_the_chains_answer_at_any_byte_offset(big):
    """``_early`` (ST002's question of what follows a record whose padding is missing: the
    kind of the header at a byte offset, where the records framed from there reach further
    than those framed from the padding's end) says what two chains framed record by record
    (``_chain_walk``) say, at offsets of every remainder mod 8, whether a well-formed header
    stands there or not."""
    import struct

    from fxtlint import build as B
    from fxtlint.engine._reader import _UNPACK, _chain_walk, _early, forget_chains, header_kind

    order = "big" if big else "little"
    recs = [B.magic(), B.string(1, "abc"), B.thread(1, 7, 8), B.event("instant", 5, thread=1, category=1, name=1)]
    data = B.archive(*recs, byte_order=order)
    data = data[:24] + bytes(3) + data[24:] + struct.pack(">Q" if big else "<Q", 0xAAAA)
    seen = set()
    for at in range(0, len(data) - 8):
        for pad_end in (at - at % 8 + 8, len(data) - len(data) % 8):
            forget_chains()
            starts, reach = _chain_walk(data, at, big)
            want = None if not starts or reach <= _chain_walk(data, pad_end, big)[1] else \
                header_kind(_UNPACK[big](data, at)[0], data, at, big)
            got = _early(data, big, at, pad_end)
            assert got == want, (at, pad_end)
            seen.add(got is None)
    assert seen == {True, False}  # (both answers met: the test can fail)
