"""One walk, many consumers: every verb's whole output is the same on the column path
and on the per-record reference path, and a report says exactly what check says (the
lint itself never takes the column path: ``tests/test_nwalk.py`` holds the native walk
to the reference).

The reference is the walk without columns (``engine="reference"``): the per-record
reader alone, every record decoded and handed to each consumer one by one. The column
path (``engine="fast"``) screens clean rows and hands them over as batch columns; the
report JSON, the Trace Event export (every byte of it, and what it says it skipped)
and the canonical decoding (every byte, and its errors) must not differ. Windows are
shrunk on drawn inputs so batch edges, provider switches and table changes fall
inside and between batches.
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
from fxtlint.engine import _walk
from fxtlint.engine._lint import walk_for
from fxtlint.export._export_tef import document, write_document
from fxtlint.reader_suite._canonical import decode, decode_to, dumps
from fxtlint.strategies import archives, log_streams, mutated_archives
from fxtlint.writer_report._conformance_report import trace_report
from noisy_traces import noisy_archives

# every test runs with the native kernel and with the pure column engine as the scan step
pytestmark = pytest.mark.usefixtures("scan_engine")

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
    """Report, export and decoding: the column path (``engine``) equals the per-record
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
def test_golden_corpus_outputs_are_the_same_on_both_paths(scan_engine, path):
    same_outputs(scan_engine, path.read_bytes(), _fmt(path))


# the real traces and the large golden files: tests/test_walk_real.py (both engines against
# one reference reading)


def test_conformance_suite_outputs_are_the_same_on_both_paths(scan_engine):
    assert len(SUITE) > 200
    for path in SUITE:
        same_outputs(scan_engine, path.read_bytes(), limits=TINY)


def test_strict_decodings_of_the_conformance_suite_are_the_same_on_both_paths(scan_engine):
    """--strict: every error rejects, on the columns as on the per-record path."""
    differ = 0
    for path in SUITE:
        data = path.read_bytes()
        strict = _decoding(data, scan_engine, TINY, strict=True)
        assert strict == _decoding(data, "reference", TINY, strict=True)
        ref = decode(data, strict=True)
        assert strict == (dumps(ref.document()), ref.errors, ref.notes) and not ref.notes
        differ += strict != _decoding(data, scan_engine, TINY)
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
def test_noisy_archive_outputs_are_the_same_on_both_paths(scan_engine, data, limits):
    same_outputs(scan_engine, data, limits=limits)


@drawn
@given(archives(max_size=12))
def test_clean_archive_outputs_are_the_same_on_both_paths(scan_engine, data):
    same_outputs(scan_engine, data, limits=TINY)


@drawn
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_mutated_archive_outputs_are_the_same_on_both_paths(scan_engine, mutated):
    same_outputs(scan_engine, mutated[0], limits=TINY)


@drawn
@given(st.binary(max_size=300))
def test_random_bytes_outputs_are_the_same_on_both_paths(scan_engine, data):
    same_outputs(scan_engine, data, limits=TINY)
    same_outputs(scan_engine, data, "log", limits=TINY)


@drawn
@given(log_streams())
def test_log_stream_outputs_are_the_same_on_both_paths(scan_engine, data):
    same_outputs(scan_engine, data, "log", limits=TINY)


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
def test_small_buffers_take_the_per_record_path_and_large_ones_the_columns():
    small = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2), B.event("instant", 1, category=1, name=1))
    walk = walk_for(small, ())
    assert len(small) < _walk.COLUMNS_FROM and walk.columns is False
    large = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2),
                      *[B.event("instant", i, category=1, name=1) for i in range(_walk.COLUMNS_FROM // 16)])
    assert walk_for(large, ()).columns is True


def test_report_never_scans_the_file_its_coverage_rides_the_lints_walk(scan_engine, monkeypatch):
    """report is the lint's walk (the native walk or the reference path: no scan step), the
    coverage beside the linter: the column path's scan step never runs."""
    calls = []
    real = _walk.Walk.scanner

    def counted(self, *args):
        window, close = real(self, *args)
        return (lambda *a: calls.append(1) or window(*a)), close

    monkeypatch.setattr(_walk.Walk, "scanner", counted)
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    rep = trace_report(data, engine=scan_engine)
    assert calls == [] and rep["statistics"]["records"] == rep["records"] > 0


def test_the_column_path_screens_clean_records_of_every_kind_without_decoding_them(scan_engine, monkeypatch):
    """The point of the column path (export, decode): clean records of
    any layout never reach the per-record decoder; only the records that change the
    provider tables do."""
    class Rows(_walk.Consumer):  # the clean rows the column path hands over
        n = 0

        def rows(self, batch):
            self.n += sum(rows.n for rows in batch.clean)

    def walked(data, fmt="auto"):
        rows = Rows()
        walk_for(data, [rows], input_format=fmt, engine=scan_engine).run()
        return rows.n

    calls = []
    real = _walk.decode_record

    def counting(*a, **kw):
        calls.append(1)
        return real(*a, **kw)

    monkeypatch.setattr(_walk, "decode_record", counting)
    pre = [B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2)]
    evs = [B.event("duration_begin", i, args=[B.arg("int64", "a", i), B.arg("string", 1, "v")]) for i in range(50)]
    evs += [B.event("duration_end", 100 + i) for i in range(50)]
    others = [B.kernel_object(5, 2, "k", args=[B.arg("koid", 1, 7)]), B.userspace_object(9, 1, 2),
              B.context_switch(200, 1, 3, 4, 5, args=[B.arg("uint32", "p", 1)]), B.thread_wakeup(201, 1, 4),
              B.legacy_context_switch(202, 1, 3, outgoing_thread=1, incoming_thread=(1, 3)),
              B.blob("b", b"payload", 1), B.log(203, "hello", thread=1),
              B.large_blob(1, 2, b"x" * 9, timestamp=204, args=[B.arg("double", 2, 0.5)]), B.large_blob(1, 2, b"y")]
    assert walked(B.archive(*pre, *evs, *others))
    assert len(calls) == len(pre)
    calls.clear()
    log = B.log_stream(*[B.log_record(0x30, i, [B.arg("string", "message", "m"), B.arg("int64", "n", i)])
                         for i in range(20)])
    assert walked(log, "log") and calls == []


def test_export_streams_batches_as_it_goes(scan_engine):
    """The exporter writes each batch's events when the batch ends, not at the end."""
    recs = [B.magic(), B.string(1, "c"), B.thread(1, 1, 2)]
    recs += [B.event("instant", i, category=1, name=1) for i in range(40)]
    data = B.archive(*recs)

    class Out(io.StringIO):
        writes = 0

        def write(self, s):
            Out.writes += 1
            return super().write(s)

    out = Out()
    write_document(data, out, engine=scan_engine, limits=fxtlint.Limits(pairing_window=8))
    assert Out.writes >= 40 // 8
    doc, _ = document(data)
    assert json.loads(out.getvalue())["traceEvents"] == doc["traceEvents"]


@pytest.mark.usefixtures("scan_engine")
def test_last_kernel_object_names_a_thread_when_some_are_decoded_and_some_are_columns(scan_engine):
    """Three kernel objects name thread 2001 (and its process) in turn; the last but one has
    a reserved bit set (RB001), so the walk decodes it record by record while the others
    come as columns of the same batch: the export applies all of them in file order."""
    from fxtlint.spec._tables import tables

    reserved = next(f for f in tables().leaf("kernel_object").fields if f.name == "reserved")

    def thread(name, process):
        return B.archive(B.kernel_object(2001, 2, name, args=[B.arg("koid", "process", process)]))

    processes = B.archive(B.magic(), *(B.kernel_object(k, 1, f"p{k}") for k in (10, 11, 12)))
    last = B.patch_field(thread("third", 12), reserved, 1)
    for order in ([thread("first", 10), thread("second", 11), last], [thread("first", 10), last, thread("second", 11)]):
        data = processes + b"".join(order)
        fast = _export(data, scan_engine)
        assert fast == _export(data, "reference")
        meta = [e for e in json.loads(fast[0])["traceEvents"] if e["name"] == "thread_name"]
        pid, name = (12, "third") if order[-1] is last else (11, "second")
        assert meta == [{"name": "thread_name", "ph": "M", "pid": pid, "tid": 2001, "args": {"name": name}}]
