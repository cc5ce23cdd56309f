"""The native walk's rows mode (``_nwalk_rows.pxi``, ``engine/_walk_rows``), the walk's side
of ``export`` and ``decode`` on the walk: each event record the lint's walk walks clean is
a row whose kind, size, tick rate, string texts and thread koids are the reference's for
that record (every record read by the reference reader, ``engine="reference"``), and a
trace's records are each exactly one of a row, a noted record (decoded by the reference
decoder) and a record the walk hands back; on the golden and real corpora, their
big-endian twins, drawn archives (clean, noisy, mutated, concatenated), structured-log
streams, random bytes, and a file read a chunk at a time.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint.engine import _file, _native, _walk_rows
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._walk import Consumer
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


def test_rows_on_golden_and_real_files():
    rows = 0
    for path in [p for p in GOLDEN + REAL if p.stat().st_size <= BIG]:
        data = path.read_bytes()
        rows += check(data, _fmt(path))
        if _fmt(path) == "auto":
            rows += check(big_endian(data))
    assert rows > 150  # (the small files are mostly one bad record each, noted; their events are rows)


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
