"""The incremental reader and linter: for every input and every way of cutting it into
chunks, the final report is the whole-buffer report, spans and details included.

The cuts drawn: one byte at a time, random sizes, at every record boundary, inside
every record header, inside a large record's 32-bit size field and inside a UTF-8
sequence. The walk advances after every chunk (``step=1``) so each cut is a point where
the walk stops and resumes; the windows are shrunk on some draws so window, batch and
pairing-window edges fall between chunks too.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fxtlint
from conftest import DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.engine._stream_lint import lint_chunks
from fxtlint.strategies import archives, log_streams, mutated_archives
from noisy_traces import noisy_archives

TINY = fxtlint.Limits(window_words=16, pairing_window=5)
GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))


def whole(data: bytes, fmt="auto", limits=fxtlint.Limits()) -> str:
    j = fxtlint.lint_bytes(data, input_format=fmt, limits=limits).to_json()
    j["path"] = "-"
    return json.dumps(j, indent=1, sort_keys=True)


def chunks_at(data: bytes, cuts) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(data)})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)]) if b > a]


def streamed(chunks, fmt="auto", limits=fxtlint.Limits(), step=1, engine=None) -> tuple[str, list]:
    report, found = lint_chunks(chunks, input_format=fmt, limits=limits, step=step, engine=engine)
    j = report.to_json()
    j["path"] = "-"
    return json.dumps(j, indent=1, sort_keys=True), found


def same(data: bytes, cuts, fmt="auto", limits=fxtlint.Limits(), step=1, engine=None) -> None:
    """``engine``: the stream's (None: the default, the native walk where it is built;
    "reference": the per-record reader taking each record as it arrives)."""
    got, found = streamed(chunks_at(data, cuts), fmt, limits, step, engine)
    assert got == whole(data, fmt, limits)
    # what feed and close returned is every diagnostic counted, each once
    report = json.loads(got)
    assert len(found) == sum(report["counts"].values())


def record_offsets(data: bytes) -> list[int]:
    recs, _ = fxtlint.read_records(data)
    return [r.offset for r in recs]


def cuts_for(data: bytes, how: str, draw) -> list[int]:
    if how == "bytes":
        return list(range(1, len(data)))
    if how == "records":
        return record_offsets(data)
    if how == "headers":
        return [o + k for o in record_offsets(data) for k in (1, 3, 7)]
    return draw(st.lists(st.integers(1, max(1, len(data) - 1)), max_size=40))


# the drawn mutations leave out PR012's (a 1 MB archive cut at every byte: seconds a draw)
traces = st.one_of(archives(max_size=20), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda x: x[0]),
                   noisy_archives(), st.binary(max_size=200))


@given(traces, st.sampled_from(["bytes", "random", "records", "headers"]), st.booleans(), st.data())
def test_chunked_report_equals_whole(data, how, tiny, draw):
    same(data, cuts_for(data, how, draw.draw), limits=TINY if tiny else fxtlint.Limits())


@given(log_streams(max_size=8), st.sampled_from(["bytes", "random"]), st.data())
def test_chunked_log_stream_equals_whole(data, how, draw):
    same(data, cuts_for(data, how, draw.draw), fmt="log")


# -- the reference engine lints a stream too: the per-record reader, a record as it arrives --
@given(traces, st.sampled_from(["bytes", "random", "records", "headers"]), st.booleans(), st.data())
def test_chunked_report_equals_whole_on_the_reference_engine(data, how, tiny, draw):
    same(data, cuts_for(data, how, draw.draw), limits=TINY if tiny else fxtlint.Limits(), engine="reference")


@given(log_streams(max_size=8), st.sampled_from(["bytes", "random"]), st.data())
def test_chunked_log_stream_equals_whole_on_the_reference_engine(data, how, draw):
    same(data, cuts_for(data, how, draw.draw), fmt="log", engine="reference")


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_in_chunks_on_the_reference_engine(path):
    data = path.read_bytes()
    fmt = "log" if path.suffix == ".log" else "auto"
    small = len(data) < 16 << 10
    same(data, range(1, len(data), 1 if small else 4093), fmt=fmt, step=1 if small else 4096, engine="reference")


def test_a_stream_on_the_reference_engine_reads_each_record_once_as_it_arrives(monkeypatch):
    """The reference engine's stream is decoded record by record, each record once, and
    none before it has wholly arrived."""
    from fxtlint.engine import _walk

    data = _big_trace(200)
    seen = []
    real = _walk.decode_record

    def spy(buf, off, idx, size, *a, **k):
        assert off + 8 * size <= len(buf)
        seen.append(idx)
        return real(buf, off, idx, size, *a, **k)

    monkeypatch.setattr(_walk, "decode_record", spy)
    same(data, range(0, len(data), 77), engine="reference")
    assert seen == list(range(len(seen))) and len(seen) == fxtlint.lint_bytes(data).records


@given(traces, st.lists(st.integers(1, 97), min_size=1, max_size=8), st.integers(1, 300),
       st.lists(st.booleans(), min_size=1, max_size=5))
def test_any_step_and_flushes_equal_whole(data, sizes, step, flushes):
    """Any step between advances, and a flush (the source pausing) after any chunk."""
    lint = fxtlint.StreamLinter(step=step, path="-")
    at = k = 0
    while at < len(data):
        lint.feed(data[at:at + sizes[k % len(sizes)]])
        at += sizes[k % len(sizes)]
        if flushes[k % len(flushes)]:
            lint.flush()
        k += 1
    lint.close()
    assert json.dumps(lint.report.to_json(), indent=1, sort_keys=True) == whole(data)


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_byte_by_byte(path):
    """Fed one byte at a time; the walk advances after every byte below 16 KiB (a
    megabyte file: every 4 KiB, or the test takes a minute)."""
    data = path.read_bytes()
    same(data, range(1, len(data)), fmt="log" if path.suffix == ".log" else "auto",
         step=1 if len(data) < 16 << 10 else 4096)


def _big_trace(n=800) -> bytes:
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    for i in range(n):
        recs.append(B.event("duration_begin", 10 * i, category=1, name=2, thread=1))
        if i % 7:
            recs.append(B.event("duration_end", 10 * i + 5, category=1, name=2, thread=1))
    return B.archive(*recs)


def test_large_record_size_field_cut():
    """A cut inside a large record's 32-bit size field, the record framed after it."""
    data = B.archive(B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2),
                     B.large_blob(1, 2, b"x" * 3000, timestamp=5), B.event("instant", 6, category=1, name=2))
    large = [r.offset for r in fxtlint.read_records(data)[0] if r.kind.startswith("large")]
    assert large
    for k in range(1, 8):
        same(data, [large[0] + k])
        same(data, [large[0] + k, large[0] + k + 1, large[0] + 100])


def test_utf8_sequence_cut():
    """A cut inside a multi-byte UTF-8 character of a string record, and of an inline name."""
    data = B.archive(B.magic(), B.string(1, "caté"), B.string(2, "日本語"), B.thread(1, 1, 2),
                     B.event("instant", 5, category=1, name="naïve", thread=1))
    inside = [i for i, b in enumerate(data) if b >= 0x80 and data[i - 1] >= 0x80]
    assert len(inside) >= 3
    for at in inside:
        same(data, [at])


@pytest.mark.parametrize("engine", [None, "reference"], ids=["default", "reference"])
def test_stream_cut_mid_record(engine):
    data = _big_trace()
    assert len(data) > 14 << 10
    for cut in (len(data) - 3, len(data) - 8, len(data) - 16):
        same(data[:cut], range(0, cut, 1000), engine=engine)
    same(data, range(0, len(data), 333), limits=TINY, engine=engine)
    same(data, range(0, len(data), 4096), step=1 << 16, engine=engine)


def test_findings_arrive_before_the_end():
    """A finding is returned by the feed that completes its record, not at close."""
    bad = B.event("instant", 5, category=7, name=2, thread=1)  # string 7 never registered
    data = _big_trace(50) + B.archive(bad) + _big_trace(200)[8:]
    lint = fxtlint.StreamLinter(step=1)
    early = lint.feed(data[: len(data) // 2])
    assert [d.code for d in early if d.code.startswith("RF")] == ["RF001"]
    lint.feed(data[len(data) // 2:])
    lint.close()
    assert lint.report.counts.get("RF001") == 1


def test_not_fxt_said_once_early_then_drained():
    lint = fxtlint.StreamLinter(step=1)
    first = lint.feed(b"%PDF-1.7\n" + b"x" * 100)
    assert [d.code for d in first] == ["MG005"]
    for _ in range(100):
        assert lint.feed(b"more bytes that are not a trace " * 100) == []
    assert lint.close() == []
    assert lint.report.counts == {"MG005": 1}
    assert lint.report.size == 109 + 100 * 3200
    data = b"%PDF-1.7\n" + b"x" * 100 + b"more bytes that are not a trace " * 3200
    assert whole(data) == streamed([data[:109], data[109:]])[0]


def test_stream_reader_equals_read_records():
    data = _big_trace(100)[:-5]
    records, diags = fxtlint.read_records(data)
    reader = fxtlint.StreamReader(step=1)
    got = []
    for i in range(0, len(data), 7):
        got += reader.feed(data[i:i + 7])
    got += reader.close()
    recs = [x for x in got if isinstance(x, fxtlint.Record)]
    assert recs == records
    assert sorted((x for x in got if isinstance(x, fxtlint.Diagnostic)), key=fxtlint.Diagnostic.sort_key) == \
        sorted(diags, key=fxtlint.Diagnostic.sort_key)


def test_feed_after_close_is_refused():
    lint = fxtlint.StreamLinter()
    lint.close()
    with pytest.raises(ValueError):
        lint.feed(b"x")


def test_fuzz_harness_can_fail(monkeypatch):
    """The stream harness's invariant trips on a walk that loses bytes at a chunk edge."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness

    mod = load_harness("stream")
    data = _big_trace(30)
    mod.check(data)
    real = fxtlint.StreamLinter.feed
    monkeypatch.setattr(fxtlint.StreamLinter, "feed", lambda self, d: real(self, d[1:]))
    with pytest.raises(AssertionError):
        mod.check(data)


def test_memory_behind_the_walk_is_given_back():
    """The walk holds the unread tail only: by the last feed, everything but the last
    step or so has been given back (the bench measures the process: bench/stream_rss.py)."""
    recs = [B.magic(), B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    body = B.archive(*[B.event("instant", i, category=1, name=2, thread=1) for i in range(2000)])
    data = B.archive(*recs) + body * 100  # about 4.6 MB of clean records
    lint = fxtlint.StreamLinter(step=1 << 16)
    held = []
    for i in range(0, len(data), 1 << 15):
        lint.feed(data[i:i + (1 << 15)])
        stream = lint.feeder.stream
        held.append(stream.size - stream.released)
    lint.close()
    assert lint.report.counts == {} and lint.report.records == 5 + 200_000
    assert max(held) < 256 << 10  # a step, a chunk and a page or two, never the stream


def test_interrupt_ends_the_stream_with_a_summary(capsys):
    from fxtlint.cli import _stream
    from fxtlint.engine._result import DiagnosticSink

    data = _big_trace(800)

    def chunks():
        yield data[:5000]
        raise KeyboardInterrupt

    report, _ = _stream.lint_stream(chunks(), "-", input_format="auto", sink=DiagnosticSink(), printer=None)
    assert report.size == 5000 and report.records > 0
    assert "interrupted after 5000 bytes" in capsys.readouterr().err


def test_not_fxt_said_from_the_first_64_bytes_at_the_default_step():
    lint = fxtlint.StreamLinter()  # a megabyte between advances, but the first bytes are looked at once in
    assert lint.feed(b"\x89PNG" + bytes(59)) == []
    assert [d.code for d in lint.feed(b"\0")] == ["MG005"]
    assert lint.feed(bytes(1 << 20)) == [] and lint.close() == []


def test_after_a_size_zero_header_the_rest_is_counted_not_kept():
    """Framing stops at a header of size 0 (FR001, whose message names the bytes left):
    the rest of the stream is counted, not held, and the report is the whole buffer's."""
    head = _big_trace(50) + bytes(8)  # a zero word: a header of size 0
    tail = _big_trace(500)[8:] * 200
    data = head + tail + b"\x01\x02\x03"  # and a length that is not whole words
    lint = fxtlint.StreamLinter(step=4096)
    for i in range(0, len(data), 1 << 12):
        lint.feed(data[i:i + (1 << 12)])
    kept = lint.feeder.stream.map.capacity  # the map grows only to hold what is kept
    lint.close()
    j = lint.report.to_json()
    j["path"] = "-"
    assert json.dumps(j, indent=1, sort_keys=True) == whole(data)
    assert set(lint.report.counts) >= {"FR001", "FR003"}
    assert kept == 1 << 20 < len(tail)


def test_a_short_text_stream_is_said_as_the_whole_file_says_it():
    """What the first bytes look like is read from the bytes received, not from the
    stream's map beyond them (found by the fuzz_stream property: 8 bytes of text)."""
    data = b"\t       "
    same(data, [])
    assert "looks like text" in whole(data)


def _no_magic_records(n: int, magic_at: int | None = None) -> list[bytes]:
    """A stream without its magic record (a circular buffer's, or one joined mid-way),
    record by record; with ``magic_at``, a magic record at that index."""
    recs = [B.initialization(1000), B.string(1, "cat"), B.string(2, "span"), B.thread(1, 10, 11)]
    recs += [B.event("instant", i, category=1, name=2, thread=1) for i in range(n)]
    if magic_at is not None:
        recs.insert(magic_at, B.magic())
    return [B.archive(r) for r in recs]


def _magic_search_reads(monkeypatch, parts: list[bytes], *, step: int, flush: bool) -> int:
    """Headers the magic search framed while ``parts`` were fed one at a time (each
    record it passes costs one ``declared_size``)."""
    from fxtlint.engine import _reader

    calls = [0]
    real = _reader.declared_size

    def counted(header):
        calls[0] += 1
        return real(header)

    monkeypatch.setattr(_reader, "declared_size", counted)
    lint = fxtlint.StreamLinter(step=step)
    for p in parts:
        lint.feed(p)
        if flush:
            lint.flush()  # the CLI's pipe: the source pauses after each record
    lint.close()
    monkeypatch.setattr(_reader, "declared_size", real)
    assert lint.report.counts == {"MG001": 1}
    j = lint.report.to_json()
    j["path"] = "-"
    assert json.dumps(j, indent=1, sort_keys=True) == whole(b"".join(parts))
    return calls[0]


@pytest.mark.parametrize("step, flush", [(1, False), (fxtlint.StreamLinter().feeder.step, True)])
def test_a_stream_without_magic_fed_record_by_record_stays_linear(monkeypatch, step, flush):
    """The magic search goes on where it stopped: fed one record per read, a stream with
    no magic record has each header framed once by the search (it started again from
    offset 0 on every advance until 4,096 records were in: quadratic)."""
    small, large = 400, 1600  # both under the search's 4,096 records: every advance searches
    n_small = _magic_search_reads(monkeypatch, _no_magic_records(small), step=step, flush=flush)
    n_large = _magic_search_reads(monkeypatch, _no_magic_records(large), step=step, flush=flush)
    assert n_small <= 2 * (small + 4) and n_large <= 2 * (large + 4), (n_small, n_large)
    assert n_large <= 4 * n_small + 8  # work per record flat: 4 times the records, 4 times the headers


def test_a_late_magic_record_fed_record_by_record_is_found_where_the_whole_buffer_finds_it():
    """MG001 names the misplaced magic record's offset and index whatever the cuts."""
    parts = _no_magic_records(300, magic_at=250)
    data = b"".join(parts)
    cuts = list(itertools.accumulate(len(p) for p in parts))
    same(data, cuts)
    (d,) = [d for d in fxtlint.lint_bytes(data).diagnostics if d.code == "MG001"]
    assert "250" in d.message


def test_fuzz_harness_also_feeds_the_stream_without_its_magic(monkeypatch):
    """Half the traces the stream harness draws are checked again without their magic
    record, cut the same way; a magic search that loses its place trips it."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness
    from fxtlint.engine import _reader

    mod = load_harness("stream")
    data = _big_trace(30)[:-2] + b"\x01\x03"  # the plan byte before the last one is odd
    seen = []
    real_one = mod.one
    monkeypatch.setattr(mod, "one", lambda d: (seen.append(d), real_one(d)))
    mod.check(data)
    assert seen == [data, data[8:]]
    monkeypatch.setattr(mod, "one", real_one)
    # a search that skips a record each time it resumes finds the wrong magic record
    data = B.archive(B.magic()) + b"".join(_no_magic_records(60, magic_at=40))
    real_find = _reader.MagicSearch.find

    def skipping(self, buf):
        if self.off and not self.done:
            self.idx += 1
        return real_find(self, buf)

    monkeypatch.setattr(_reader.MagicSearch, "find", skipping)
    with pytest.raises(AssertionError):
        mod.one(data[8:])


def test_fuzz_harness_reads_the_input_as_a_file_too(monkeypatch):
    """The stream harness also lints its input as a file read in chunks, and as one that
    shrank while read: a length check that lets a shrunk file through trips it."""
    import sys

    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness
    from fxtlint.engine import _file

    mod = load_harness("stream")
    data = _big_trace(30)
    mod.as_file(data)
    assert _file.CHUNK == 8 << 20  # put back
    monkeypatch.setattr(_file.FileSource, "check", lambda self, read: None)
    with pytest.raises(AssertionError, match="shrank"):
        mod.as_file(data)
