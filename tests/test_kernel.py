"""The native kernel frames and screens exactly as the column engine does.

Every input is walked twice by the walk every verb runs (``_walk.Walk``): with the
column engine's scan step (``_scan.scan_window``) and with the kernel's
(``_walk_batches.KernelWalk``), and the two must agree on every batch, reference row,
group, flag and clean row's columns (arguments included), on the diagnostics of the
decode step and on where and why framing stopped (``kernel_support.assert_same_walk``);
a record whose content settled its size restarts the framing of both at its end.
Inputs: every record kind, noisy, clean and mutated archives, log streams (clean,
mutated, damaged), random bytes, the rules' examples, the golden corpus, the real
traces, sizes a word off, and the issue's hostile inputs.
"""

from __future__ import annotations

import itertools
import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
import writer_traces
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine._columns import Screen
from fxtlint.engine._kernel_program import ARG_ROW_HEAD, H, compile_program
from fxtlint.engine._kernel_screen import FULL, PAST_END, WINDOW, ZERO, KernelScreen
from fxtlint.engine._lint import choose_format
from fxtlint.engine._reader import size_fields
from fxtlint.engine._scan import frame, screen_batch
from fxtlint.engine._walk import _TRACE_ROOTS
from fxtlint.spec._roles import STATE_KINDS
from fxtlint.strategies import archives, log_streams, mutated_archives, mutated_log_streams
from kernel_support import assert_same_group, assert_same_walk, kernel_walk, python_walk, require_kernel
from noisy_traces import noisy_archives, records, shared_fixture

GOLDEN = REPO / "corpus" / "golden"


def outputs(code, n: int, argcap: int = 64) -> list:
    """Output arrays of ``_kernel.scan`` for ``n`` records of program ``code``."""
    nvals, npos, nterm = (max(int(code[H[k]]), 1) for k in ("nvals", "npos", "nterminals"))
    columns = ARG_ROW_HEAD + int(code[H["narg_vals"]]) + int(code[H["narg_pos"]])
    return [np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int64), np.empty(n, np.int32),
            np.empty(n, np.int64), np.empty(nterm, np.int64), np.empty(n, np.uint8),
            np.empty((n, nvals), np.uint64), np.empty((n, npos), np.int64), np.empty((argcap, columns), np.int64)]


@pytest.fixture(scope="module")
def kernel():
    return require_kernel()


@pytest.fixture(params=[fxtlint.Limits(), fxtlint.Limits(window_words=16, pairing_window=5)],
                ids=["default-windows", "tiny-windows"])
def windows(request):
    return request.param


# -- drawn inputs --------------------------------------------------------------------------
@shared_fixture
@given(noisy_archives())
def test_kernel_equals_column_engine_on_noisy_archives(kernel, windows, data):
    assert_same_walk(kernel, data, limits=windows)


@shared_fixture
@given(st.lists(records(), min_size=1, max_size=30), st.sampled_from(["little", "big"]))
def test_kernel_equals_column_engine_on_every_record_kind(kernel, windows, recs, order):
    assert_same_walk(kernel, B.archive(B.magic(), *recs, byte_order=order), limits=windows)


@shared_fixture
@given(archives(max_size=12))
def test_kernel_equals_column_engine_on_clean_archives(kernel, windows, data):
    assert_same_walk(kernel, data, limits=windows)


@shared_fixture
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_kernel_equals_column_engine_on_mutated_archives(kernel, windows, mutated):
    assert_same_walk(kernel, mutated[0], limits=windows)


@shared_fixture
@given(log_streams())
def test_kernel_equals_column_engine_on_log_streams(kernel, windows, data):
    assert_same_walk(kernel, data, log=True, limits=windows)


@shared_fixture
@given(mutated_log_streams(), st.lists(st.tuples(st.integers(0, 200), st.integers(0, 7)), max_size=3))
def test_kernel_equals_column_engine_on_damaged_log_streams(kernel, windows, mutated, flips):
    damaged = bytearray(mutated[0])
    assert_same_walk(kernel, bytes(damaged), log=True, limits=windows)
    for pos, bit in flips:
        if pos < len(damaged):
            damaged[pos] ^= 1 << bit
    assert_same_walk(kernel, bytes(damaged), log=True, limits=windows)


@shared_fixture
@given(st.binary(max_size=400))
def test_kernel_equals_column_engine_on_random_bytes(kernel, windows, data):
    assert_same_walk(kernel, data, limits=windows)
    assert_same_walk(kernel, data, log=True, limits=windows)
    # behind a magic record, so the walk goes on past the first word
    assert_same_walk(kernel, B.archive(B.magic()) + data, limits=windows)


# -- corpora -------------------------------------------------------------------------------
# one case per rule: PR012's examples (65,537 nested begins, most of this test's time,
# more under ASan) run with the slow tests (tests/conftest.py), as its golden case does
@pytest.mark.parametrize("rule", fxtlint.rules.all_rules(), ids=lambda r: r.code)
def test_kernel_equals_column_engine_on_rule_examples(kernel, rule):
    for ex in (rule.bad, rule.good):
        assert_same_walk(kernel, ex.build(), log=ex.input_format == "log")


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.fxt")), ids=lambda p: p.name)
def test_kernel_equals_column_engine_on_golden_corpus(kernel, path):
    data = path.read_bytes()
    log = choose_format(data) == "log"
    assert_same_walk(kernel, data, log=log)
    assert_same_walk(kernel, data, log=log, limits=fxtlint.Limits(window_words=64, pairing_window=7))


def test_golden_corpus_is_there():
    assert len(list(GOLDEN.glob("*.fxt"))) > 40


@pytest.mark.parametrize("path", sorted(CORPUS_REAL.glob("*.fxt")), ids=lambda p: p.name)
def test_kernel_equals_column_engine_on_real_traces(kernel, path):
    data = path.read_bytes()
    rows = assert_same_walk(kernel, data)
    assert (rows > 0) is not path.name.startswith("not-fxt")
    assert_same_walk(kernel, data, limits=fxtlint.Limits(window_words=512, pairing_window=257))


# -- the hostile inputs ------------------------------------------------------------
def _event(i: int) -> bytes:
    return B.event("instant", i, thread=(1, 2), category="c", name="n", args=[B.arg("uint32", "a", i)])


HOSTILE = {
    "size past the end": B.archive(B.magic(), B.string(1, "c")) + struct.pack("<Q", 4 | (9 << 4) | (4 << 16)),
    "large size past the end": B.archive(B.magic()) + struct.pack("<Q", 15 | (0xFFFFFFFF << 4)) + b"\0" * 8,
    "size 0": B.archive(B.magic(), B.string(1, "c")) + struct.pack("<Q", 4) + b"\1" * 16,
    "size 0 at once": struct.pack("<Q", 4) * 4,
    "ends inside a header": B.archive(B.magic(), B.string(1, "c")) + b"\x24\0\0",
    "ends inside the magic": B.archive(B.magic())[:5],
    # 32,767 bytes: the longest a length field says; no record of 4,095 words holds them
    "a message of 32,767 bytes": B.archive(B.magic()) + struct.pack(
        "<QQ", 9 | (4095 << 4) | (32767 << 16) | (1 << 32), 1) + b"x" * (8 * 4093),
    "an inline name of 32,767 bytes": B.archive(B.magic()) + struct.pack(
        "<QQ", 4 | (4095 << 4) | (1 << 24) | (1 << 32) | ((0x8000 | 32767) << 48), 1) + b"y" * (8 * 4093),
    "a message of 32,001 bytes": B.archive(B.magic(), B.log(1, "x" * 32001)),
    "a message of 32,000 bytes": B.archive(B.magic(), B.log(1, "x" * 32000)),
    "an inline name of 32,001 bytes": B.archive(B.magic(), B.event("instant", 1, category="c", name="y" * 32001)),
    "a blob argument claiming 4 GiB": B.archive(B.magic(), B.event(
        "instant", 1, category="c", name="n", args=[B.arg("blob", "b", b"\1\2")])),
    # the buffer's last record, its content one word longer than the record: a kernel that
    # misjudged a bound by one word would read past the buffer (AddressSanitizer's catch)
    "the last message runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 9 | (3 << 4) | (16 << 16) | (1 << 32), 1, 0x6161616161616161),
    "the last inline name runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 24) | (1 << 32) | ((0x8000 | 9) << 48), 1, 0x6262626262626262),
    "the last argument runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 20) | (1 << 24) | (1 << 32) | (2 << 48), 1, 4 | (2 << 4) | (3 << 16)),
    "the last string argument runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 20) | (1 << 24) | (1 << 32) | (2 << 48), 1,
        6 | (1 << 4) | (3 << 16) | ((0x8000 | 5) << 32)),
    "the last blob runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQ", 5 | (2 << 4) | (3 << 16) | (16 << 32) | (1 << 48), 0x6363636363636363),
}


def _set_word(data: bytes, word: int, value: int) -> bytes:
    return data[: 8 * word] + struct.pack("<Q", value) + data[8 * word + 8 :]


def _argument_sizes_disagreeing_with_types():
    """An int64 argument (two words) declaring one, three, and the record's whole size;
    a string argument whose size covers only its header."""
    base = B.archive(B.magic(), B.event("instant", 1, category=1, name=2, args=[B.arg("int64", 3, -5),
                                                                               B.arg("string", 4, "abc")]))
    head = struct.unpack_from("<Q", base, 8 * 4)[0]  # magic, event header, timestamp, then the argument
    out = []
    for size in (1, 3, 15):
        out.append(_set_word(base, 4, (head & ~(0xFFF << 4)) | (size << 4)))
    s_head = struct.unpack_from("<Q", base, 8 * 6)[0]
    out.append(_set_word(base, 6, (s_head & ~(0xFFF << 4)) | (1 << 4)))
    return out


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_kernel_equals_column_engine_on_hostile_inputs(kernel, name):
    assert_same_walk(kernel, HOSTILE[name])


def test_kernel_equals_column_engine_on_argument_sizes_that_disagree_with_types(kernel):
    for data in _argument_sizes_disagreeing_with_types():
        assert_same_walk(kernel, data)


def test_blob_argument_claiming_4_gib_is_flagged(kernel):
    data = bytearray(HOSTILE["a blob argument claiming 4 GiB"])
    # the blob argument's header: its size field is bits 32..63 of the argument header
    at = bytes(data).index(b"\1\2") - 16
    (h,) = struct.unpack_from("<Q", data, at)
    struct.pack_into("<Q", data, at, (h & 0xFFFFFFFF) | (0xFFFFFFFF << 32))
    assert_same_walk(kernel, bytes(data))
    ks = KernelScreen(kernel, bytes(data), False, False)
    groups = ks.scan(0, len(data) // 8, 10).columns(0).groups
    assert [g.flag.tolist() for g in groups if g.layout.name == "event.instant"] == [[True]]


def test_kernel_equals_column_engine_on_a_million_records_of_8000_providers(kernel):
    """10^6 records: 8,000 Provider Info records (the reference takes them) among events."""
    body = bytearray(B.archive(B.magic(), *[B.provider_info(p, f"p{p}") for p in range(1, 8001)]))
    block = B.archive(*[B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(1000)])
    body += block * ((10**6 - 8001) // 1000)
    rows = assert_same_walk(kernel, bytes(body))
    assert rows >= 10**6 - 1000


# -- resynchronisation: framing restarts where a record's content ended --------------------
@pytest.mark.parametrize("deltas", [{writer_traces.FAULTY: 1}, {writer_traces.FAULTY: -1},
                                    {writer_traces.FAULTY: 2}, {9: 1, 13: -1, 17: 1}, {10: -1, 11: 1},
                                    {30: 1}, {31: -1}, {3: -1}], ids=str)
@pytest.mark.parametrize("limits", [fxtlint.Limits(), fxtlint.Limits(window_words=16, pairing_window=5),
                                    fxtlint.Limits(window_words=40, pairing_window=3)],
                         ids=["default-windows", "tiny-windows", "small-windows"])
def test_kernel_equals_column_engine_when_sizes_are_off(kernel, deltas, limits):
    """Sizes a word off (FR004, ST001): the decode step settles the record's size from its
    content, the walk drops the rows framed after it and frames anew from its end, on
    the kernel as on the column engine, across every window boundary."""
    data = writer_traces.with_sizes_off(deltas)
    assert assert_same_walk(kernel, data, limits=limits) > 0
    if limits == fxtlint.Limits() and deltas == {writer_traces.FAULTY: 1}:
        # the case resynchronises: a batch starts inside the rows its predecessor framed
        batches = kernel_walk(kernel, data, limits=limits).batches
        assert any(b.index0 < a.index0 + len(a) for a, b in itertools.pairwise(batches))
        assert batches[1].starts[0] == writer_traces.offset_of(writer_traces.FAULTY + 1) // 8


def test_kernel_scan_starts_at_any_word(kernel):
    """From every word of a trace (a record's start or not), the kernel frames and screens
    what the column engine's framing and screen give from there."""
    data = writer_traces.with_sizes_off({writer_traces.FAULTY: 1, 20: -1})
    W = np.frombuffer(data, "<u8")
    screen = Screen(W, False, False)
    ks = KernelScreen(kernel, data, False, False, STATE_KINDS)
    framed = 0
    for start in range(len(W)):
        starts, sizes, types, _, zero = frame(W, start, len(W), size_fields(False))
        keep = starts + start + sizes <= len(W)  # a last record past the end is a frame stop
        py = screen_batch(screen, 0, starts[keep] + start, sizes[keep], types[keep], _TRACE_ROOTS, STATE_KINDS)
        sc = ks.scan(start, len(W), len(W))
        kn = sc.columns(0)
        assert np.array_equal(py.starts, kn.starts) and np.array_equal(py.sizes, kn.sizes), start
        assert np.array_equal(py.reference, kn.reference), start
        assert [g.layout.name for g in py.groups] == [g.layout.name for g in kn.groups], start
        for a, b in zip(py.groups, kn.groups, strict=True):
            assert_same_group(a, b, f"from word {start}, {a.layout.name}")
        assert sc.stop == (ZERO if zero else PAST_END if not keep.all() else WINDOW), start
        framed += len(kn.starts)
    assert framed > len(W)  # the starts inside records framed something too


# -- framing stops, exactly -----------------------------------------------------------------
def test_scan_stops_and_says_why(kernel):
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 2, 3))
    ks = KernelScreen(kernel, data, False, False)
    nw = len(data) // 8
    sc = ks.scan(0, nw, 2)  # the magic record (1 word), the string record (2 words)
    assert (sc.n, sc.stop, sc.at) == (2, FULL, 3)
    sc = ks.scan(3, nw, 10)
    assert (sc.n, sc.stop, sc.at) == (1, WINDOW, nw)
    sc = ks.scan(0, 1, 10)  # the window ends after the first record
    assert (sc.n, sc.stop, sc.at) == (1, WINDOW, 1)
    zero = data + struct.pack("<Q", 2)
    sc = KernelScreen(kernel, zero, False, False).scan(0, nw + 1, 10)
    assert (sc.n, sc.stop, sc.at) == (3, ZERO, nw)
    past = data + struct.pack("<Q", 2 | (3 << 4))
    sc = KernelScreen(kernel, past, False, False).scan(0, nw + 1, 10)
    assert (sc.n, sc.stop, sc.at, sc.at_size) == (3, PAST_END, nw, 3)


def test_argument_table_grows_when_full(kernel):
    """Log records of 300 arguments: more argument rows than the first table holds."""
    recs = [B.log_record(0x30, 1, args=[B.arg("int64", f"a{i}", i) for i in range(300)]) for _ in range(3)]
    data = B.log_stream(*recs)
    ks = KernelScreen(kernel, data, False, True)
    sc = ks.scan(0, len(data) // 8, 3)
    assert (sc.nargs, len(sc.args)) == (900, 900) and len(ks.ws.args) >= 900
    (g,) = sc.columns(0).groups
    assert [a.k for a in g.args] == list(range(300)) and all(a.rows.tolist() == [0, 1, 2] for a in g.args)
    assert g.args[7].vals["value"].tolist() == [7, 7, 7]
    assert_same_walk(kernel, data, log=True)


# -- text: the column engine's ASCII test, or UTF-8 validation ----------------------------
TEXTS = [b"plain", "ünï".encode(), "€uro".encode(), "😀".encode(), "\U0010FFFF".encode(), b"a\0b",
         b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
         b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"ab\xc3",
         b"\xe2\x82", b"\xf0\x9f\x98", b"\xc3\xa9\xc3", b"abcdefgh\xe2\x82\xac", b"\xe2\x82\xacabcdefgh"]


def _with_text(text: bytes, log: bool) -> bytes:
    """A record whose text stream is ``text``: a trace's log message, or a log
    record's string argument."""
    marker = "Q" * len(text)
    if log:
        data = B.log_stream(B.log_record(0x30, 1, args=[B.arg("string", "k", marker)]))
    else:
        data = B.archive(B.magic(), B.log(1, marker, thread=(1, 2)))
    at = data.index(marker.encode())
    return data[:at] + text + data[at + len(text):]


def _utf8_flags(kernel, data: bytes, log: bool):
    ks = KernelScreen(kernel, data, False, log, frozenset() if log else STATE_KINDS, utf8=True)
    sc = ks.scan(0, len(data) // 8, 100)
    return {int(r): bool(f) for g in sc.columns(0).groups for r, f in zip(g.rows, g.flag, strict=True)}


@pytest.mark.parametrize("log", [False, True], ids=["trace", "log"])
@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.hex() or "empty")
def test_utf8_mode_flags_exactly_what_the_reference_reports(kernel, text, log):
    data = _with_text(text, log)
    assert_same_walk(kernel, data, log=log)  # the ASCII test: as the column engine
    flags = _utf8_flags(kernel, data, log)
    last = max(flags)
    report = fxtlint.lint_bytes(data, engine="reference", input_format="log" if log else "trace")
    codes = {d.code for d in report.diagnostics}
    try:
        text.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert ("ST003" in codes) is not valid
    ends_in_nul = text.endswith(b"\0")
    assert flags[last] is (not valid or ends_in_nul), (text, codes)


@shared_fixture
@given(st.binary(max_size=24), st.booleans())
def test_utf8_mode_agrees_with_pythons_decoder(kernel, text, log):
    data = _with_text(text, log)
    flags = _utf8_flags(kernel, data, log)
    try:
        text.decode("utf-8")
        valid = not text.endswith(b"\0")
    except UnicodeDecodeError:
        valid = False
    assert flags[max(flags)] is (not valid)


# -- the program is data: checked when loaded ------------------------------------------------
def _tables_with_argument_type_11():
    """The spec tables plus an argument type 11: a word that must be zero, then a
    counted UTF-8 stream."""
    from fxtlint.spec._tables import build_tables
    from test_tables import _files_with

    def add(files):
        files["arguments.toml"]["undefined"]["argument_types"].remove(11)
        files["arguments.toml"]["argument"].append({
            "type": 11, "name": "labelled", "spec": "a test layout",
            "fields": [{"name": "label_length", "bits": [32, 47]},
                       {"name": "reserved", "bits": [48, 63], "reserved": True, "rule": "RB002"}],
            "body": [{"word": "zeros", "fields": [{"name": "z", "bits": [0, 63], "zero": True, "rule": "RB003"}]},
                     {"stream": "label", "length": "label_length", "content": "utf8"}]})

    return build_tables(_files_with(add))


def _scan_flags(kernel, prog, data):
    """(flags, argument rows) of the records of ``data`` (one record: flags by position = by record)."""
    out = outputs(prog.code, 8, 16)
    got, nargs, _, _, _ = kernel.scan(kernel.load(prog.code), data, False, False, 0, len(data) // 8, *out)
    return out[6][:got].tolist(), out[9][:nargs].tolist()


def test_a_layout_added_to_the_tables_is_screened_with_no_change_to_the_c_code(kernel):
    tables = _tables_with_argument_type_11()
    new = compile_program(False, tables_=tables)
    old = compile_program(False)

    def record(zeros: int, label: bytes):
        """An instant event (indexed refs) holding one argument of type 11."""
        stream = label + b"\0" * (-len(label) % 8)
        asize = 2 + len(stream) // 8
        arg = 11 | (asize << 4) | (2 << 16) | (len(label) << 32)  # name: string ref 2
        head = 4 | ((2 + asize) << 4) | (1 << 20) | (1 << 24) | (1 << 32) | (2 << 48)
        return struct.pack("<QQQQ", head, 1, arg, zeros) + stream

    good = record(0, b"label")
    flags, (row,) = _scan_flags(kernel, new, good)
    assert flags == [0]
    # the argument's row: record position 0, argument 0, type 11, its header at word 2
    leaf = new.arg_leaves[11]
    assert row[:ARG_ROW_HEAD] == [0, 0, 11, 2]
    vals = {name: row[ARG_ROW_HEAD + slot] for name, slot in leaf.vals.items()}
    assert vals == {"type": 11, "size": 3, "name": 2, "label_length": 5, "reserved": 0, "z": 0}
    at = {name: row[ARG_ROW_HEAD + new.narg_vals + slot] for name, slot in leaf.pos.items()}
    assert at == {"name string": 3, "zeros": 3, "label": 4}
    assert _scan_flags(kernel, old, good)[0] == [1]  # an undefined argument type
    assert _scan_flags(kernel, new, record(1 << 40, b"label"))[0] == [1]  # a must-be-zero word
    assert _scan_flags(kernel, new, record(0, b"\xff"))[0] == [1]  # not text


@pytest.mark.parametrize("at,value", [(H["magic"], 0), (H["length"], 5), (H["nvals"], 1), (H["type_mask"], 4096),
                                      (H["nodes"], -1), (H["args"], 10**9), (H["inline_bit"], 3)])
def test_load_rejects_a_program_that_points_outside_itself(kernel, at, value):
    code = compile_program(False).code.copy()
    code[at] = value
    with pytest.raises(ValueError):
        kernel.load(code)


_DAMAGE = st.one_of(st.integers(-2, 40), st.integers(-(2**63), 2**63 - 1),
                    st.sampled_from([-(2**63), 2**63 - 1, 2**63 - 4, 2**62, 2**31, 4096]))


@settings(max_examples=300)
@given(st.lists(st.tuples(st.integers(0, 10**6), _DAMAGE), min_size=1, max_size=4), st.booleans())
def test_a_damaged_program_is_refused_or_stays_inside_the_buffer(at_values, log):
    """Whatever the damage, load() refuses it or the scan reads nothing outside its
    inputs (under AddressSanitizer this test is the proof; see fuzz/README.md)."""
    kernel = require_kernel()
    code = compile_program(log).code.copy()
    for at, value in at_values:
        code[at % len(code)] = value
    try:
        capsule = kernel.load(code)
    except ValueError:
        return
    data = B.archive(B.magic(), *[_event(i) for i in range(5)])
    if int(code[H["nterminals"]]) > 10**6:
        return  # a valid program may name that many terminals; its counts would need the room
    got, nargs, _, at, _ = kernel.scan(capsule, data, False, False, 0, len(data) // 8, *outputs(code, 16))
    assert 0 <= got <= 16 and 0 <= nargs and 0 <= at <= len(data) // 8


def test_scan_refuses_unaligned_outputs_and_other_capsules(kernel):
    prog = compile_program(False)
    capsule = kernel.load(prog.code)
    data = B.archive(B.magic())
    good = outputs(prog.code, 4)
    assert kernel.scan(capsule, data, False, False, 0, 1, *good)[0] == 1
    unaligned = np.empty(8 * 4 + 1, np.uint8)[1:].view(np.int64)
    with pytest.raises(ValueError):
        kernel.scan(capsule, data, False, False, 0, 1, unaligned, *good[1:])
    with pytest.raises(ValueError):
        kernel.scan(object(), data, False, False, 0, 1, *good)
    with pytest.raises(ValueError):
        kernel.scan(capsule, data, False, False, -1, 1, *good)
    with pytest.raises(ValueError):  # counts holds fewer than the program's terminals
        kernel.scan(capsule, data, False, False, 0, 1, *good[:5], np.empty(3, np.int64), *good[6:])
    with pytest.raises(TypeError):  # outputs must be writable
        kernel.scan(capsule, data, False, False, 0, 1, b"\0" * 32, *good[1:])


def test_scan_refuses_outputs_that_share_memory(kernel):
    """The kernel writes its outputs and reads them back (order indexes starts, sizes and
    terms): one array passed as both sizes and order made it read past the buffer under
    ASan (issue 32). Every pair of buffers must be apart, the trace's too."""
    prog = compile_program(False)
    capsule = kernel.load(prog.code)
    data = bytearray(B.archive(B.magic(), *[_event(i) for i in range(5)]))
    good = outputs(prog.code, 16)
    assert kernel.scan(capsule, bytes(data), False, False, 0, len(data) // 8, *good)[0] == 6
    for i, j in [(1, 4), (0, 1), (3, 4), (7, 8), (4, 9)]:  # sizes/order, starts/sizes, terms/order...
        out = list(good)
        out[j] = out[i] if out[i].nbytes <= out[j].nbytes else out[j]
        out[i] = out[j]
        with pytest.raises(ValueError, match="overlap"):
            kernel.scan(capsule, bytes(data), False, False, 0, len(data) // 8, *out)
    half = np.empty(32, np.int64)
    with pytest.raises(ValueError, match="overlap"):  # two views of one array that overlap
        kernel.scan(capsule, bytes(data), False, False, 0, len(data) // 8, half[:16], half[8:24], *good[2:])
    words = np.frombuffer(data, np.uint8)
    with pytest.raises(ValueError, match="overlap"):  # an output written over the trace itself
        kernel.scan(capsule, words, False, False, 0, len(data) // 8, *good[:6], words[:16], *good[7:])


def test_a_batch_read_after_the_next_scan_is_refused(kernel):
    """Groups are views of outputs the next scan overwrites: reading a stale batch raises."""
    data = B.archive(B.magic(), *[_event(i) for i in range(6)])
    ks = KernelScreen(kernel, data, False, False, STATE_KINDS)
    first = ks.scan(0, len(data) // 8, 3)
    assert len(first.args) == 2  # the two clean events among the first three records: one argument each
    second = ks.scan(first.at, len(data) // 8, 3)
    assert second.columns(3).groups
    with pytest.raises(RuntimeError, match="after its KernelScreen scanned the next one"):
        first.columns(0)
    with pytest.raises(RuntimeError):
        _ = first.args  # reading the property is what raises


def test_fuzz_harness_invariant_holds_on_every_seed(kernel):
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_kernel", REPO / "fuzz" / "fuzz_kernel.py")
    harness = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(harness)
    seeds = sorted((REPO / "corpus" / "seeds").glob("*.*"))
    assert len(seeds) > 40
    for seed in seeds:
        harness.check(seed.read_bytes())


def test_the_comparison_can_fail(kernel, monkeypatch):
    """A kernel that validates UTF-8 passes a record the column engine flags (non-ASCII
    text): the walks differ and the comparison says so; so it does for an argument's
    value or position changed."""
    data = _with_text("ünï".encode(), log=False)
    assert_same_walk(kernel, data)
    (py,) = python_walk(data).batches
    (kn,) = kernel_walk(kernel, data, utf8=True).batches
    assert [g.flag.tolist() for g in py.groups] != [g.flag.tolist() for g in kn.groups]
    import kernel_support

    # the arguments are compared too: a value or a position off by one is caught
    trace = writer_traces.trace()
    (py,) = python_walk(trace).batches
    (kn,) = kernel_walk(kernel, trace).batches
    g, h = (next(g for g in b.groups if g.layout.name == "event.duration_begin") for b in (py, kn))
    assert_same_group(g, h, "as walked")
    for column in (h.args[0].vals["value"], h.args[0].at["value"]):
        column[0] += 1
        with pytest.raises(AssertionError, match="args"):
            assert_same_group(g, h, "one changed")
        column[0] -= 1

    real = kernel_support.kernel_walk
    monkeypatch.setattr(kernel_support, "kernel_walk", lambda *a, **kw: real(*a, **kw, utf8=True))
    with pytest.raises(AssertionError):
        assert_same_walk(kernel, data)
