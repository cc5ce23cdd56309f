"""The native walk's rows mode (``_nwalk_rows.pxi``, ``engine/_walk_rows``), ``export`` and
``decode`` on the walk. ``export``'s whole document and ``decode``'s lines, errors and notes
on the native walk are the reference per-record path's, byte for byte. The walk's side: each
event record the lint's walk walks clean is a row whose kind, size, tick rate, string texts
and thread koids are the reference's for that record (every record read by the reference
reader, ``engine="reference"``), and a trace's records are each exactly one of a row, a
noted record (decoded by the reference decoder) and a record the walk hands back; on the
golden and real corpora, their big-endian twins, drawn archives (clean, noisy, mutated,
concatenated), structured-log streams, random bytes, and a file read a chunk at a time.
"""

from __future__ import annotations

import io
import math
import os
import random
import struct
import tempfile
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine import _file, _native, _walk_rows
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._walk import Consumer
from fxtlint.export._export_tef import _OBJ as OBJ
from fxtlint.export._export_tef import Export, export_stream, write_document
from fxtlint.reader_suite._canonical import decode_to
from fxtlint.spec._limits import DEFAULT_LIMITS, Limits
from fxtlint.spec._roles import STRING_REFS, THREAD_REFS
from fxtlint.strategies import archives, log_streams, mutated_archives
from noisy_traces import damaged_log_streams, noisy_archives
from test_nwalk import big_endian

if _native.nwalk() is None:  # pragma: no cover - an install where the walk did not compile
    pytest.skip("the native walk is not built", allow_module_level=True)

GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
REAL = sorted(CORPUS_REAL.glob("*.fxt")) + sorted((REPO / "corpus" / "samples").glob("*.fxt"))
BIG = 1 << 18  # a file larger than this is checked in the slow run only
U64 = (1 << 64) - 1


class Reference(Consumer):
    """Per event record: (kind, size, rate, string texts, koids), as the reference reads it."""

    def __init__(self):
        self.seen: dict[int, tuple] = {}

    def start(self, walk):
        self.walk = walk

    def record(self, rec, change):
        st = self.walk.state
        if rec.complete:
            texts = tuple(st.string(rec.fields, rec.strings, n) for n in STRING_REFS.get(rec.kind, ()))
            koids = next((k for n in THREAD_REFS.get(rec.kind, ()) if (k := st.thread(rec, n)) is not None), None)
            self.seen[rec.index] = (rec.kind, rec.size_words, st.current.rate, texts, koids)


class Rows(Consumer):
    """The rows mode's rows (by record index), noted and handed-back records."""

    rides_native = True

    def __init__(self):
        self.rows: dict[int, tuple] = {}
        self.noted: list[int] = []
        self.handed: list[int] = []
        self.offsets: dict[int, int] = {}  # record index -> byte offset, of the rows and noted records
        self.rode = False

    def start(self, walk):
        self.walk = walk

    def record(self, rec, change):
        self.handed.append(rec.index)

    def ride(self, walk, nw, module):
        self.rode = True
        self.kinds = _walk_rows._names(walk.log)[0]
        return _walk_rows.RowsRider(walk, nw, module, self._rows, self._noted)

    def _noted(self, rec, rate):
        self.noted.append(rec.index)
        self.offsets[rec.index] = rec.offset

    def _rows(self, words: array, n: int):
        st, w = self.walk.state, len(words) // n
        for r in range(n):
            row = words[r * w:(r + 1) * w]
            index, offset, size, term, _slot, rate, flags, pk, tk = row[:9]
            self.offsets[index] = offset
            kind = self.kinds[term]
            texts = []
            for k in range(len(STRING_REFS.get(kind, ()))):
                gid = row[9 + k]
                assert gid != -1, "an unregistered ref in a row"
                texts.append("" if gid == 0 else "<inline>" if gid == _walk_rows_inline() else st.text(gid))
            koids = (pk & U64, tk & U64) if flags & 1 else None
            assert index not in self.rows
            self.rows[index] = (kind, size, rate & U64, tuple(texts), koids)


def _walk_rows_inline() -> int:
    return _native.nwalk().ROW_INLINE


def check(data: bytes, fmt: str = "auto") -> int:
    """The rows are the reference's records; every record is one of row, note, handed back.
    Returns the number of rows."""
    ref = Reference()
    _, rw = lint_walk(data, consumers=[ref], input_format=fmt, engine="reference")
    got = Rows()
    _, ww = lint_walk(data, consumers=[got], input_format=fmt, engine="walk")
    total = sum(ww.kinds.values())
    assert sum(rw.kinds.values()) == total
    if not got.rode:  # (a walk the native walk did not take: every record handed back)
        assert not got.rows
        return 0
    indexes = list(got.rows) + got.noted + got.handed
    assert len(indexes) == len(set(indexes)) == total, "a record twice, or none of row, note, handed back"
    for index, (kind, size, rate, texts, koids) in got.rows.items():
        rkind, rsize, rrate, rtexts, rkoids = ref.seen[index]
        assert (kind, size, rate, koids) == (rkind, rsize, rrate, rkoids), index
        assert all(t == "<inline>" or t == r for t, r in zip(texts, rtexts, strict=True)), index
    return len(got.rows)


def _fmt(path) -> str:
    return "log" if path.suffix == ".log" else "auto"


def _on_the_corpora(check_one) -> int:
    """The sum of ``check_one(data, fmt)`` over the golden and real files up to ``BIG``, a
    trace in both byte orders."""
    total = 0
    for path in [p for p in GOLDEN + REAL if p.stat().st_size <= BIG]:
        data = path.read_bytes()
        total += check_one(data, _fmt(path))
        if _fmt(path) == "auto":
            total += check_one(big_endian(data), "auto")
    return total


def test_rows_on_golden_and_real_files():
    # (the small files are mostly one bad record each, noted; their events are rows)
    assert _on_the_corpora(check) > 150


def test_rows_of_a_file_read_in_chunks_are_the_whole_file_rows(tmp_path, monkeypatch):
    """``FileSource`` (read and walked a chunk at a time, the noted records decoded at each
    stop while their bytes are held): the same rows, offsets and notes as the file whole,
    in chunks of a word and of five, both byte orders."""
    data = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes()
    for body in (data, big_endian(data)):
        whole = Rows()
        lint_walk(body, consumers=[whole], engine="walk")
        assert whole.rows and whole.noted
        file = tmp_path / "t.fxt"
        file.write_bytes(body)
        for chunk in (8, 40):
            monkeypatch.setattr(_file, "CHUNK", chunk)
            got = Rows()
            with open(file, "rb") as fh:
                lint_walk(_file.FileSource(fh, "-", len(body)), consumers=[got], engine="walk")
            assert (got.rows, got.offsets, got.noted) == (whole.rows, whole.offsets, whole.noted), chunk


@pytest.mark.slow
def test_rows_on_large_golden_and_real_files():
    for path in [p for p in GOLDEN + REAL if p.stat().st_size > BIG]:
        events = check(path.read_bytes(), _fmt(path))
        assert events or path.name.startswith("not-fxt"), path.name


@settings(max_examples=10, deadline=None)  # (an example: two lints, about 40 ms)
@given(st.one_of(archives(), noisy_archives(), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda t: t[0])))
def test_rows_on_drawn_archives(data):
    check(data + data)  # concatenated: the archive, then its records again after a repeated magic record


@settings(deadline=None)
@given(st.one_of(log_streams(), damaged_log_streams()))
def test_rows_on_structured_log_streams(data):
    check(data, "log")


@settings(deadline=None)
@given(st.binary(max_size=512))
def test_rows_on_random_bytes(data):
    check(data)


# -- export on the rows: the whole document, byte for byte the reference's ---------------
def export_check(data: bytes, fmt: str = "auto") -> int:
    """``export``'s document and what it did (``Export``), on the native walk (``engine="walk"``:
    its rows formatted natively) and on the reference per-record path, are the same bytes and
    counts. Returns the events the native formatter wrote."""
    want, got = io.StringIO(), io.StringIO()
    ref = write_document(data, want, input_format=fmt, engine="reference")
    new = write_document(data, got, input_format=fmt, engine="walk")
    assert got.getvalue() == want.getvalue()
    assert ref.formatted == 0
    n, new.formatted = new.formatted, 0
    assert new == ref
    return n


def decode_check(data: bytes) -> None:
    """``decode``'s lines, errors and notes on the native walk and on the reference path are
    the same (a structured-log stream is no trace to decode: its walk's records are handed
    back, as every record of a kind the rows mode does not write)."""
    want = io.StringIO()
    ref = decode_to(data, want, engine="reference")
    # (stops every 3 records too: the lines the walk writes as it walks, ``direct_lines``,
    # between the rows and noted records of each stretch)
    for limits in (DEFAULT_LIMITS, Limits(pairing_window=3)):
        got = io.StringIO()
        new = decode_to(data, got, engine="walk", limits=limits)
        assert got.getvalue() == want.getvalue()
        assert (new.errors, new.notes, new.faults) == (ref.errors, ref.notes, ref.faults)


def both_check(data: bytes, fmt: str = "auto") -> int:
    """``export_check`` and, for a trace, ``decode_check``."""
    if fmt != "log":
        decode_check(data)
    return export_check(data, fmt)


def test_export_of_golden_and_real_files_is_the_reference_s():
    """Both byte orders; the documents' events are mostly the native formatter's."""
    assert _on_the_corpora(both_check) > 150


@pytest.mark.slow
def test_export_of_large_golden_and_real_files_is_the_reference_s():
    for path in [p for p in GOLDEN + REAL if p.stat().st_size > BIG]:
        data = path.read_bytes()
        assert both_check(data, _fmt(path)) or path.name.startswith("not-fxt"), path.name


def test_export_of_clocks_arguments_and_names_is_the_reference_s():
    """Tick rates (1 GHz, 1 kHz, a rate change, rates that divide no power of ten: the
    formatter's exact decimals and the floats it leaves to Python), every argument type
    (signed and unsigned extremes, doubles finite and not, inline and indexed names, a name
    given twice, unregistered refs), every phase, inline thread refs and texts that need
    escaping, kernel objects naming processes and threads, and a string re-registered
    between two events of one stretch."""
    recs = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.initialization(10**9 + 7),
            B.string(1, "cat"), B.string(2, 'na"me\\\n\x01é'), B.thread(1, 10, 11),
            B.kernel_object(10, OBJ["process"], "proc"),
            B.kernel_object(11, OBJ["thread"], 2, args=[B.arg("koid", "process", 10)])]
    args = [B.arg("int32", "i", -(2**31)), B.arg("uint32", "u", 2**32 - 1), B.arg("int64", "l", -(2**63)),
            B.arg("uint64", "q", 2**64 - 1), B.arg("double", "d", 0.1), B.arg("double", "n", float("nan")),
            B.arg("double", "inf", float("-inf")), B.arg("string", "s", "t\tab"), B.arg("pointer", "p", 0xBEEF),
            B.arg("koid", "k", 7), B.arg("bool", "b", True), B.arg("null", "z", None), B.arg("int32", "i", 5),
            B.arg("blob", 2, b"xyz"), B.arg("string", 9, 2)]
    for ticks in (0, 1, 999, 10**9 + 7, 2**63, 2**64 - 1):
        for kind in ("instant", "duration_begin", "duration_end", "counter", "async_begin", "async_instant",
                     "async_end", "flow_begin", "flow_step", "flow_end"):
            recs.append(B.event(kind, ticks, name="e" if ticks % 2 else 2, args=args[:8] if ticks % 2 else args[8:],
                                    id=ticks))
        recs.append(B.event("duration_complete", ticks, name="x", end_timestamp=min(ticks + 5, 2**64 - 1),
                            thread=(3, 4)))
    recs += [B.initialization(1000), B.event("instant", 3, name="k"), B.event("counter", 4, name="c", id=0),
             B.string(2, "again"), B.event("instant", 5, name=2), B.event("instant", 6, name=9),
             B.event("instant", 7, args=[B.raw_arg(14, "raw", b"\0" * 8), B.arg("int32", "i", 1)]),
             B.event("instant", 8, name="twice", args=[  # (names given twice, thrice: last value, first place)
                 B.arg("int32", "a", 1), B.arg("string", "b", "t"), B.arg("int32", "a", -123456),
                 B.arg("uint32", "b", 7), B.arg("bool", "c", False), B.arg("string", 2, "long text"),
                 B.arg("int32", "a", 2), B.arg("double", "again", 0.5)])]  # (inline, as ref 2's text)
    data = B.archive(*recs)
    assert both_check(data) >= 60  # (a counter with an argument that is no number: the reference's)
    assert both_check(B.archive(*recs, byte_order="big")) >= 60
    _export_streamed(data)



# the doubles whose text ``repr`` must give (the rows mode's ``fxt_repr_double``): the
# notation's edges (a decimal point at -4/-3 and 16/17 digits), 17-digit values, the
# subnormals and the extremes, powers of two past 2**53, negative zero
DOUBLE_EDGES = [0.0, -0.0, 1.0, -1.0, 0.1, 0.3, 2 / 3, 1e-4, 1e-5, 0.00012345, 1.5e-05, 9.999e-05, 1e15, 1e16,
                9.999999999999999e15, 1234567890123456.7, 123456789012345678.0, 2.0 ** 53, 2.0 ** 53 + 2,
                2.0 ** 64, 5e-324, -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308,
                1.7976931348623157e308, -1.7976931348623157e308, 1e100, 1e-100, 1e22, 1e23, 0.7298317482601286]


def _double_texts_differ(xs) -> list:
    """The finite doubles of ``xs`` whose text (``_pdouble``'s) is not ``repr``'s."""
    text = _native.nwalk()._repr_double
    return [x for x in xs if math.isfinite(x) and text(x) != repr(x).encode()]


def test_double_text_is_repr_at_the_edges_and_on_random_bit_patterns():
    r = random.Random(33)
    drawn = [struct.unpack("<d", r.getrandbits(64).to_bytes(8, "little"))[0] for _ in range(20000)]
    drawn += [r.random() * 10.0 ** r.randint(-8, 20) for _ in range(20000)]
    xs = DOUBLE_EDGES + [-x for x in DOUBLE_EDGES] + drawn
    assert len([x for x in xs if math.isfinite(x)]) > 39000
    assert _double_texts_differ(xs) == []


def test_decimal_text_is_str_at_every_length_and_on_random_values():
    """``_pu64`` (every number the rows mode writes): its length from the bit length, so
    each power of ten and its neighbours, the extremes, and drawn values of each bit length."""
    r = random.Random(33)
    xs = [0, 1, U64, 2**63] + [10**k + d for k in range(20) for d in (-1, 0, 1) if 0 <= 10**k + d <= U64]
    xs += [r.getrandbits(r.randint(1, 64)) for _ in range(20000)]
    text = _native.nwalk()._decimal
    assert len(xs) > 20000 and [x for x in xs if text(x) != str(x).encode()] == []


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_double_text_is_repr(x):
    assert _double_texts_differ([x]) == []


def _export_streamed(data: bytes) -> None:
    """``export_stream`` of ``data`` in chunks of a word, of five and of 4 KiB, and read as a
    file a chunk at a time (``FileSource``, 40-byte chunks): the reference's document."""
    want = io.StringIO()
    write_document(data, want, engine="reference")
    for step in (8, 40, 4096):
        got = io.StringIO()
        export_stream([data[i:i + step] for i in range(0, len(data), step)], got, source="<bytes>", export=Export())
        assert got.getvalue() == want.getvalue(), step
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "t.fxt")
        with open(path, "wb") as fh:
            fh.write(data)
        old, _file.CHUNK = _file.CHUNK, 40
        try:
            with open(path, "rb") as fh:
                got = io.StringIO()
                export = export_stream(_file.FileSource(fh, path, len(data)), got, source="<bytes>", export=Export())
        finally:
            _file.CHUNK = old
        assert got.getvalue() == want.getvalue() and export.formatted
    want = io.StringIO()
    ref = decode_to(data, want, engine="reference")
    for step in (8, 4096):
        got = io.StringIO()
        new = decode_to(None, got, stream=[data[i:i + step] for i in range(0, len(data), step)])
        assert got.getvalue() == want.getvalue() and new.errors == ref.errors, step


@settings(max_examples=5, deadline=None)  # (an example: four exports, about 70 ms)
@given(st.one_of(archives(), noisy_archives(), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda t: t[0])))
def test_export_of_drawn_archives_is_the_reference_s(data):
    """Concatenated (a repeated magic record, the tables again) and big-endian."""
    both_check(data + data)
    both_check(big_endian(data))


@settings(max_examples=10, deadline=None)
@given(st.one_of(log_streams(), damaged_log_streams()))
def test_export_of_structured_log_streams_is_the_reference_s(data):
    export_check(data, "log")
    export_check(data)
