"""One walk, many consumers: every verb's whole output is the same on the native walk and
on the per-record reference path, and a report says exactly what check says
(``tests/test_nwalk.py`` holds the lint's report to the reference on more inputs).

The reference is ``engine="reference"``: the per-record reader alone, every record decoded
and handed to each consumer one by one. On ``engine="auto"`` every verb rides the native
walk where it is built (report's coverage beside the linter; export and decode behind a
linter whose findings nothing reads, their event records formatted by the walk's rows
mode); the report JSON, the Trace Event export (every byte of it, and what it says it
skipped) and the canonical decoding (every byte, and its errors) must not differ. Windows
are shrunk on drawn inputs so the walk's stops, provider switches and table changes fall
inside and between pairing windows.
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.engine import _native, _walk
from fxtlint.export._export_tef import document, write_document
from fxtlint.reader_suite._canonical import decode, decode_to, dumps
from fxtlint.strategies import archives, log_streams, mutated_archives
from fxtlint.writer_report._conformance_report import trace_report
from noisy_traces import noisy_archives

WALK = "auto"  # the native walk where it is built (the reference path where it is not)

GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
REAL = sorted(CORPUS_REAL.glob("*.fxt"))
SUITE = sorted((REPO / "corpus" / "conformance").glob("*/*.fxt"))
TINY = fxtlint.Limits(window_words=16, pairing_window=5)
SMALL = fxtlint.Limits(window_words=512, pairing_window=257)


def _fmt(path) -> str:
    return "log" if path.suffix == ".log" else "auto"


def _report(data, engine, fmt="auto", limits=fxtlint.Limits()) -> str:
    return json.dumps(trace_report(data, input_format=fmt, engine=engine, limits=limits), indent=1)


def _export(data, engine, fmt="auto", limits=fxtlint.Limits()):
    out = io.StringIO()
    export = write_document(data, out, input_format=fmt, engine=engine, limits=limits)
    return out.getvalue(), export.skipped_lines(), dict(export.phases)


def _decoding(data, engine, limits=fxtlint.Limits(), strict=False):
    out = io.StringIO()
    got = decode_to(data, out, engine=engine, limits=limits, strict=strict)
    return out.getvalue(), got.errors, got.notes


def reference_outputs(data: bytes, fmt: str = "auto", limits: fxtlint.Limits = fxtlint.Limits()) -> tuple:
    """Report, export and decoding on the per-record reference (the decoding checked
    against the in-memory one, the same text)."""
    want = _report(data, "reference", fmt, limits), _export(data, "reference", fmt, limits), None
    if fmt != "log":
        want = (*want[:2], _decoding(data, "reference", limits))
        ref = decode(data)
        assert want[2] == (dumps(ref.document()), ref.errors, ref.notes)
    return want


def same_outputs(engine: str, data: bytes, fmt: str = "auto", limits: fxtlint.Limits = fxtlint.Limits(),
                 want: tuple | None = None) -> None:
    """Report, export and decoding: the native walk (``engine``) equals the per-record
    reference (``want``: ``reference_outputs``, read here when not given), whole."""
    report, export, decoding = want or reference_outputs(data, fmt, limits)
    assert _report(data, engine, fmt, limits) == report
    assert _export(data, engine, fmt, limits) == export
    if fmt != "log":
        assert _decoding(data, engine, limits) == decoding


# -- the corpora ------------------------------------------------------------------------
# (the golden files of 64 KiB and more, PR012's 1 MB: with the real traces, in test_walk_real)
GOLDEN_LARGE = [p for p in GOLDEN if p.stat().st_size >= 1 << 16]


@pytest.mark.parametrize("path", [p for p in GOLDEN if p not in GOLDEN_LARGE], ids=lambda p: p.name)
def test_golden_corpus_outputs_are_the_same_on_both_paths(path):
    same_outputs(WALK, path.read_bytes(), _fmt(path))


# the real traces and the large golden files: tests/test_walk_real.py (both engines against
# one reference reading)


def test_conformance_suite_outputs_are_the_same_on_both_paths():
    assert len(SUITE) > 200
    for path in SUITE:
        same_outputs(WALK, path.read_bytes(), limits=TINY)


def test_strict_decodings_of_the_conformance_suite_are_the_same_on_both_paths():
    """--strict: every error rejects, on the columns as on the per-record path."""
    differ = 0
    for path in SUITE:
        data = path.read_bytes()
        strict = _decoding(data, WALK, TINY, strict=True)
        assert strict == _decoding(data, "reference", TINY, strict=True)
        ref = decode(data, strict=True)
        assert strict == (dumps(ref.document()), ref.errors, ref.notes) and not ref.notes
        differ += strict != _decoding(data, WALK, TINY)
    assert differ > 10  # the cases a reader may read through (reserved bits, padding) are rejected


# -- drawn traces ---------------------------------------------------------------------------
drawn = settings(suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@drawn
@given(noisy_archives(), st.sampled_from([fxtlint.Limits(), TINY]))
# a record whose first argument's value and second argument's name are both unregistered:
# the first failure in record order (the value's) is the one decode reports
@example(b"\x10\x00\x04FxT\x16\x00W\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"
         b"\x00\x00\x00\x00\x00\x00\x00\x16\x00\x00\x00\x01\x00\x00\x00\x10\x00\x01\x00\x00\x00\x00\x00",
         fxtlint.Limits())
def test_noisy_archive_outputs_are_the_same_on_both_paths(data, limits):
    same_outputs(WALK, data, limits=limits)


@drawn
@given(archives(max_size=12))
def test_clean_archive_outputs_are_the_same_on_both_paths(data):
    same_outputs(WALK, data, limits=TINY)


@drawn
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_mutated_archive_outputs_are_the_same_on_both_paths(mutated):
    same_outputs(WALK, mutated[0], limits=TINY)


@drawn
@given(st.binary(max_size=300))
def test_random_bytes_outputs_are_the_same_on_both_paths(data):
    same_outputs(WALK, data, limits=TINY)
    same_outputs(WALK, data, "log", limits=TINY)


@drawn
@given(log_streams())
def test_log_stream_outputs_are_the_same_on_both_paths(data):
    same_outputs(WALK, data, "log", limits=TINY)


# -- one verdict -----------------------------------------------------------------------------
def _cli_json(capsys, *argv):
    main(list(argv))
    return json.loads(capsys.readouterr().out)


def _verdicts_agree(path, capsys, fmt="auto"):
    """A report's failed rules and their counts are check's JSON counts, file by file."""
    check = _cli_json(capsys, "check", "--isolated", "--output-format", "json", "--input-format", fmt, str(path))
    report = _cli_json(capsys, "report", "--format", "json", "--input-format", fmt, str(path))
    (checked,), (reported,) = check["files"], report["traces"]
    failed = {r["code"]: r["count"] for r in reported["rules"] if r["result"] == "failed"}
    assert failed == checked["counts"]
    assert {p["code"]: p["count"] for p in reported["problems"]} == checked["counts"]
    errors = checked["severity_counts"]["error"]
    assert reported["verdict"]["errors"] == errors and reported["verdict"]["conforming"] == (errors == 0)


@pytest.mark.parametrize("path", GOLDEN + REAL, ids=lambda p: p.name)
def test_report_says_what_check_says_on_the_corpora(path, capsys):
    _verdicts_agree(path, capsys, "log" if path.suffix == ".log" else "auto")


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(mutated_archives(codes=DRAWN_MUTATIONS).map(lambda m: m[0]), st.binary(max_size=300),
                 noisy_archives()))
def test_report_says_what_check_says_on_mutated_and_random_bytes(tmp_path, capsys, data):
    path = tmp_path / "drawn.fxt"
    path.write_bytes(data)
    _verdicts_agree(path, capsys)


# -- the engine ------------------------------------------------------------------------------
@pytest.mark.parametrize("size", [1, 2000], ids=["small", "large"])
def test_every_verb_rides_the_native_walk_at_every_size(size, monkeypatch):
    """report, export and decode (``decode_to``) of a trace small or large take the native
    walk where it is built: the reference path's record loop never runs."""
    if _native.nwalk() is None:
        pytest.skip(_native.native_missing())
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2),
                     *[B.event("instant", i, category=1, name=1) for i in range(size)])
    monkeypatch.setattr(_walk.Walk, "one_by_one", lambda self: pytest.fail("the reference path's walk"))
    monkeypatch.setattr(_walk.Walk, "_advance_records", lambda self: pytest.fail("the reference path's steps"))
    assert _report(data, WALK)
    assert _export(data, WALK)[2] == {"i": size}
    assert _decoding(data, WALK)[0].count('"kind": "event.instant"') == size


def test_export_streams_batches_as_it_goes():
    """The exporter writes the events of each stretch of the walk (a pairing window) when
    the stretch ends, not at the end."""
    recs = [B.magic(), B.string(1, "c"), B.thread(1, 1, 2)]
    recs += [B.event("instant", i, category=1, name=1) for i in range(40)]
    data = B.archive(*recs)

    class Out(io.StringIO):
        writes = 0

        def write(self, s):
            Out.writes += 1
            return super().write(s)

    out = Out()
    write_document(data, out, engine=WALK, limits=fxtlint.Limits(pairing_window=8))
    assert Out.writes >= 40 // 8
    doc, _ = document(data)
    assert json.loads(out.getvalue())["traceEvents"] == doc["traceEvents"]


def test_last_kernel_object_names_a_thread_when_some_are_handed_back_for_their_faults():
    """Three kernel objects name thread 2001 (and its process) in turn; the last but one has
    a reserved bit set (RB001), so the walk hands it back for the reference to report while
    the others are walked clean: the export applies all of them in file order."""
    from fxtlint.spec._tables import tables

    reserved = next(f for f in tables().leaf("kernel_object").fields if f.name == "reserved")

    def thread(name, process):
        return B.archive(B.kernel_object(2001, 2, name, args=[B.arg("koid", "process", process)]))

    processes = B.archive(B.magic(), *(B.kernel_object(k, 1, f"p{k}") for k in (10, 11, 12)))
    last = B.patch_field(thread("third", 12), reserved, 1)
    for order in ([thread("first", 10), thread("second", 11), last], [thread("first", 10), last, thread("second", 11)]):
        data = processes + b"".join(order)
        fast = _export(data, WALK)
        assert fast == _export(data, "reference")
        meta = [e for e in json.loads(fast[0])["traceEvents"] if e["name"] == "thread_name"]
        pid, name = (12, "third") if order[-1] is last else (11, "second")
        assert meta == [{"name": "thread_name", "ph": "M", "pid": pid, "tid": 2001, "args": {"name": name}}]
