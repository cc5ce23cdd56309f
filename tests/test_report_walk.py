"""``report`` on the native walk: the coverage counted by the lint's walk in its coverage
mode (``_nwalk_coverage.pxi``, ``engine/_walk_coverage``) against the reference, the
coverage counted record by record (``CoverageCollector.record``, every record decoded:
``engine="reference"``). The whole report JSON must be the same on the golden and real
corpora, their big-endian twins, drawn archives (clean, noisy, mutated, concatenated),
structured-log streams, random bytes, and a file read a chunk at a time; clean records
are counted without decoding them, and a record with a layout finding is decoded once.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine import _file, _native, _walk_coverage
from fxtlint.engine._walk_native import plan
from fxtlint.spec._roles import STRING_REFS, THREAD_REFS, TIMESTAMPS
from fxtlint.strategies import archives, log_streams, mutated_archives
from fxtlint.writer_report._conformance_report import trace_report
from fxtlint.writer_report._coverage import CoverageCollector
from noisy_traces import damaged_log_streams, noisy_archives
from test_nwalk import big_endian

if _native.nwalk() is None:  # pragma: no cover - an install where the walk did not compile
    pytest.skip("the native walk is not built", allow_module_level=True)

GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
REAL = sorted(CORPUS_REAL.glob("*.fxt")) + sorted((REPO / "corpus" / "samples").glob("*.fxt"))
TINY = fxtlint.Limits(window_words=16, pairing_window=5)
WINDOWS = [fxtlint.Limits(), TINY]
BIG = 1 << 18  # a golden file larger than this is checked in the slow run only


def _json(data, engine: str, fmt: str = "auto", limits: fxtlint.Limits = fxtlint.Limits()) -> str:
    return json.dumps(trace_report(data, engine=engine, input_format=fmt, limits=limits), indent=1)


def same(data: bytes, fmt: str = "auto", limits: fxtlint.Limits = fxtlint.Limits()) -> dict:
    """The report on the native walk is the reference's, whole."""
    got = _json(data, "walk", fmt, limits)
    assert got == _json(data, "reference", fmt, limits)
    return json.loads(got)


def _fmt(path) -> str:
    return "log" if path.suffix == ".log" else "auto"


def _golden(slow: bool):
    return [p for p in GOLDEN if (p.stat().st_size > BIG) == slow]


@pytest.fixture
def noted(monkeypatch):
    """The records the coverage mode leaves to the reference decoder (their offsets)."""
    seen: list[int] = []
    real = _walk_coverage.decode_record

    def counting(buf, off, *a, **k):
        seen.append(off)
        return real(buf, off, *a, **k)

    monkeypatch.setattr(_walk_coverage, "decode_record", counting)
    return seen


@pytest.mark.parametrize("limits", WINDOWS, ids=["default-windows", "tiny-windows"])
@pytest.mark.parametrize("path", _golden(False), ids=lambda p: p.name)
def test_report_on_the_walk_equals_the_reference_on_golden_files(path, limits):
    data = path.read_bytes()
    same(data, _fmt(path), limits)
    if _fmt(path) == "auto":
        same(big_endian(data), limits=limits)


@pytest.mark.slow
@pytest.mark.parametrize("path", _golden(True), ids=lambda p: p.name)
def test_report_on_the_walk_equals_the_reference_on_large_golden_files(path):
    same(path.read_bytes(), _fmt(path))


@pytest.mark.parametrize("path", [p for p in REAL if p.stat().st_size <= BIG], ids=lambda p: p.name)
def test_report_on_the_walk_equals_the_reference_on_real_traces(path):
    data = path.read_bytes()
    same(data)
    same(big_endian(data), limits=TINY)


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in REAL if p.stat().st_size > BIG], ids=lambda p: p.name)
def test_report_on_the_walk_equals_the_reference_on_large_real_traces(path):
    same(path.read_bytes())  # (both byte orders: the small files' and the golden files' twins)


@settings(deadline=None)
@given(archives(max_size=12), st.sampled_from(WINDOWS), st.booleans())
def test_report_on_the_walk_equals_the_reference_on_clean_archives(data, limits, big):
    same(big_endian(data) if big else data, limits=limits)


@settings(deadline=None)
@given(noisy_archives(), st.booleans())
def test_report_on_the_walk_equals_the_reference_on_noisy_archives(data, big):
    same(big_endian(data) if big else data, limits=TINY)


@settings(deadline=None)
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.sampled_from(WINDOWS), st.booleans())
def test_report_on_the_walk_equals_the_reference_on_mutated_archives(mutated, limits, big):
    data = mutated[0] if isinstance(mutated, tuple) else mutated
    same(big_endian(data) if big else data, limits=limits)


@settings(deadline=None)
@given(st.lists(archives(max_size=4), min_size=2, max_size=2), st.booleans())
def test_report_on_the_walk_equals_the_reference_on_concatenated_archives(parts, big):
    data = b"".join(parts)
    same(big_endian(data) if big else data, limits=TINY)


@settings(deadline=None)
@given(log_streams(max_size=8), st.sampled_from(WINDOWS))
def test_report_on_the_walk_equals_the_reference_on_log_streams(data, limits):
    same(data, "log", limits)


@settings(deadline=None)
@given(damaged_log_streams())
def test_report_on_the_walk_equals_the_reference_on_damaged_log_streams(data):
    same(data, "log")


@settings(deadline=None)
@given(st.binary(max_size=300))
def test_report_on_the_walk_equals_the_reference_on_random_bytes(data):
    same(data)


@pytest.mark.parametrize("name", ["UN003-unknown-argument-type.fxt", "UN001-unknown-record-type.fxt",
                                  "ST001-size-one-word-too-small-in-a-writer-trace.fxt"])
def test_a_file_read_in_chunks_reports_on_the_walk_as_the_reference_reports_it_whole(name, tmp_path, monkeypatch):
    """``FileSource`` (a file over ``_file.WHOLE``, read and walked a chunk at a time, the
    noted records decoded at each stop while their bytes are held): chunks of a word and of
    five, both byte orders."""
    data = (REPO / "corpus" / "golden" / name).read_bytes()
    for body in (data, big_endian(data)):
        want = _json(body, "reference")
        file = tmp_path / "t.fxt"
        file.write_bytes(body)
        for chunk in (8, 40):
            monkeypatch.setattr(_file, "CHUNK", chunk)
            with open(file, "rb") as fh:
                assert _json(_file.FileSource(fh, "-", len(body)), "walk") == want, chunk


def _clean(n: int = 40) -> list:
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "name"), B.thread(1, 7, 8)]
    recs += [B.event("duration_begin", 10 + i, thread=1, category=1, name=2,
                     args=[B.arg("int64", "n", i), B.arg("string", 2, "v")]) for i in range(n)]
    recs += [B.event("instant", 500, thread=(3, 4), category="inline", name=2), B.blob("b", b"payload", 1),
             B.kernel_object(5, 2, "k", args=[B.arg("koid", 1, 7)])]
    return recs


def test_clean_records_are_counted_without_decoding_them(noted):
    rep = same(B.archive(*_clean()))
    assert noted == []
    st_ = rep["statistics"]
    assert st_["records"] == len(_clean()) and st_["time"]["ticks_per_second"] == [1000]
    assert rep["coverage"]["string_refs"]["inline"] >= 3  # a string argument, the inline category, the names


def test_a_record_with_a_layout_finding_is_decoded_once_by_the_reference(noted):
    """A reserved bit set in one event: the walk walks it (the lint's reading) and notes it
    for the coverage, which decodes it once; the others are counted natively."""
    from fxtlint.spec._tables import tables

    recs = _clean()
    reserved = next(f for f in tables().leaf("kernel_object").fields if f.name == "reserved")
    bad = B.patch_field(B.archive(recs[-1]), reserved, 1)
    data = B.archive(*recs[:-1]) + bad
    rep = same(data)
    assert noted == [len(data) - len(bad)]
    assert rep["verdict"]["errors"] >= 1


def test_the_coverage_counts_every_kind_with_refs_natively():
    """The plan comes from the tables' roles: every leaf of the trace's program is counted
    natively, its slots the ones its string refs, thread refs and timestamps have."""
    terms, argrefs = _walk_coverage.coverage_plan(False, tuple(_coverage_enums()))
    prog = plan(False)[0]
    for t, term in zip(prog.terminals, terms):
        if t.leaf is None:
            assert term["decode"] == 1
            continue
        kind = t.leaf.layout.name
        assert term["decode"] == 0, kind
        assert term["str_val"][:term["nstr"]] == [t.leaf.vals[n] for n in STRING_REFS.get(kind, ())]
        assert term["thr_val"][:term["nthr"]] == [t.leaf.vals[n] for n in THREAD_REFS.get(kind, ())]
        assert term["ts_val"][:term["nts"]] == [t.leaf.vals[n] for n in TIMESTAMPS.get(kind, ())]
        assert (term["enum_val"] >= 0) == (kind in dict(_coverage_enums())), kind
    assert set(argrefs) == set(prog.arg_leaves)


def _coverage_enums():
    from fxtlint.writer_report._coverage import ENUM_FIELDS

    return ENUM_FIELDS


def test_the_largest_records_and_first_instants_merge_the_walks_and_the_references_counts():
    """Records counted natively and decoded records (a flagged one, the largest) merge
    into one top five and one first and last instant, whatever counted each."""
    from fxtlint.spec._tables import tables

    recs = [B.magic(), B.string(1, "c"), B.thread(1, 7, 8)]
    recs += [B.event("instant", 100 + i, thread=1, category=1, name=1, args=[B.arg("int64", "a", i)] * (i % 4))
             for i in range(12)]
    reserved = next(f for f in tables().leaf("kernel_object").fields if f.name == "reserved")
    big = B.patch_field(B.archive(B.kernel_object(5, 2, "x" * 200)), reserved, 1)
    rep = same(B.archive(*recs) + big + B.archive(B.event("instant", 5, thread=1, category=1, name=1)))
    largest = rep["statistics"]["largest_records"]
    assert largest[0]["kind"] == "kernel_object" and len(largest) == 5
    assert rep["statistics"]["time"]["first_ticks"] == 5 and rep["statistics"]["time"]["last_ticks"] == 111


def test_the_reference_coverage_alone_counts_what_the_walk_counts():
    """``CoverageCollector.feed`` record by record (no walk) says what the report on the walk says."""
    data = B.archive(*_clean())
    cov = CoverageCollector()
    from fxtlint.engine._reader import walk_records

    for rec in walk_records(data, lambda d: None, big=False, resync=False):
        cov.feed(rec)
    rep = same(data)
    assert cov.coverage() == rep["coverage"] and cov.statistics() == rep["statistics"]


def test_report_imports_no_numpy():
    """The report of a trace of 28 KiB (which a numpy column engine once scanned) runs
    without numpy: its coverage is the lint's walk's."""
    import subprocess
    import sys

    code = ("import sys; from fxtlint import build as B\n"
            "from fxtlint.writer_report._conformance_report import trace_report\n"
            "data = B.archive(B.magic(), B.string(1, 'c'), B.thread(1, 1, 2), *[B.event('instant', i, category=1, "
            "name=1) for i in range((28 << 10) // 16)])\n"
            "assert len(data) > 28 << 10 and trace_report(data)['statistics']['records'] > 800\n"
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert out.stdout.strip() == "False"
