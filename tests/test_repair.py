"""``repair``: what it mends, drops and adds, each change in the linter's terms; its
output lints with no error, is the input when nothing needs mending, and repairs to
itself (properties over the strategies' mutations, the golden and the real corpora)."""

from __future__ import annotations

import io
import json
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import external_tools
import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.engine import _native
from fxtlint.reader_suite._canonical import decode
from fxtlint.rewrite._repair import MARK_NAME, repair
from fxtlint.strategies import archives, mutated_archives, mutated_log_streams

GOLDEN = sorted((REPO / "corpus" / "golden").glob("*.fxt"))
REAL = sorted(CORPUS_REAL.glob("*.fxt"))


def repaired(data: bytes, **options) -> tuple[bytes, list]:
    out: list = []
    log = repair(data, out.append, **options)
    return b"".join(out), log.changes


def errors(data: bytes) -> list:
    return [(d.code, d.message) for d in fxtlint.lint_bytes(data, input_format="trace").diagnostics
            if d.severity == fxtlint.Severity.ERROR]


def golden(code: str, name: str = "") -> bytes:
    (path,) = [p for p in GOLDEN if p.name.startswith(f"{code}-{name}")]
    return path.read_bytes()


def assert_repairs(data: bytes, **options) -> bytes:
    """The three properties: no error in the output, and repair of it is itself (also
    record by record, without the native walk that copies the records it proves clean)."""
    out, _ = repaired(data, **options)
    assert errors(out) == []
    assert repaired(out, **options)[0] == out
    assert repaired(out, **options, shortcut=False)[0] == out
    return out


# -- what each finding becomes: (golden case, the change expected) ----------------------------
CASES = [
    ("RB001-", ("RB001", "mended")),
    ("RB002-", ("RB002", "mended")),
    ("RB003-", ("RB003", "mended")),
    ("ST002-", ("ST002", "mended")),
    ("ST008-", ("ST008", "mended")),
    ("ST005-", ("ST005", "mended")),
    ("FR004-record-size-too-large", ("FR004", "mended")),
    ("FR004-size-one-word-too-large", ("FR004", "mended")),
    ("ST001-size-one-word-too-small", ("ST001", "mended")),
    ("MG001-magic-missing", ("MG001", "added")),
    ("MG001-magic-record-not-first", ("MG001", "added")),
    ("RF001-", ("RF001", "added")),
    ("RF002-", ("RF002", "added")),
    ("FR001-", ("FR001", "dropped")),
    ("FR002-", ("FR002", "dropped")),
    ("FR003-", ("FR003", "dropped")),
    ("ST001-content-overruns-record", ("ST001", "dropped")),
    ("ST003-", ("ST003", "dropped")),
    ("ST004-", ("ST004", "dropped")),
    ("ST006-", ("ST006", "dropped")),
    ("ST007-", ("ST007", "dropped")),
    ("MG002-", ("MG002", "dropped")),
    ("MG004-", ("MG004", "dropped")),
    ("TM001-", ("TM001", "dropped")),
]


@pytest.mark.parametrize(("case", "change"), CASES, ids=[c for c, _ in CASES])
def test_each_finding_is_mended_or_dropped_and_said(case, change):
    (path,) = [p for p in GOLDEN if p.name.startswith(case)]
    data = path.read_bytes()
    assert change[0] in fxtlint.lint_bytes(data).counts  # the input has it
    out, changes = repaired(data)
    assert change in [(c.code, c.action) for c in changes]
    assert all(c.rule and c.detail for c in changes)
    assert errors(out) == [] and change[0] not in fxtlint.lint_bytes(out).counts


# the golden cases of findings repair leaves alone (warnings and notes a reader copes with)
UNTOUCHED = [p for p in GOLDEN if p.name[:5] not in {c[:5] for c, _ in CASES} | {"MG005"}]


@pytest.mark.parametrize("path", UNTOUCHED, ids=lambda p: p.name)
def test_what_needs_no_mending_is_written_byte_for_byte(path):
    data = path.read_bytes()
    assert errors(data) == []
    assert repaired(data) == (data, [])
    assert repaired(data, shortcut=False) == (data, [])  # the record-by-record pass agrees


def test_a_size_that_swallows_the_next_record_keeps_that_record():
    data = golden("FR004", "record-size-too-large")
    before, _ = fxtlint.read_records(data)
    out, _ = repaired(data)
    after, diags = fxtlint.read_records(out)
    assert diags == [] and [r.kind for r in after] == [r.kind for r in before]


def test_the_counted_terminator_is_dropped_from_the_text():
    out, _ = repaired(golden("ST008"))
    texts = [v for r in fxtlint.read_records(out)[0] for v in r.strings.values() if isinstance(v, str)]
    assert texts and not any(t.endswith("\0") for t in texts)


def test_an_unregistered_string_gets_a_placeholder_that_says_so():
    data = B.archive(B.magic(), B.event("instant", 10, thread=(1, 2), category="c", name=7))
    assert "RF001" in fxtlint.lint_bytes(data).counts
    out, changes = repaired(data)
    strings = [r for r in fxtlint.read_records(out)[0] if r.kind == "string"]
    assert [(r.fields["index"], r.strings["value"]) for r in strings] == [(7, "<missing string 7>")]
    assert [(c.code, c.offset) for c in changes] == [("RF001", 8)]


def test_garbage_between_records_is_dropped_and_the_walk_resumes():
    good = [B.event("instant", t, thread=(1, 2), category="c", name="n") for t in (1, 2, 3)]
    data = B.archive(B.magic(), good[0]) + b"\0" * 24 + B.archive(*good[1:])
    out, changes = repaired(data)
    assert [(c.code, c.action, c.offset) for c in changes] == [("FR001", "dropped", 8 + len(B.archive(good[0])))]
    assert out == B.archive(B.magic(), *good)


def test_a_big_endian_archive_is_written_little_endian_when_asked():
    data = golden("EX002")
    out, changes = repaired(data, byte_order="little")
    assert [(c.code, c.action) for c in changes] == [("EX002", "converted")]
    assert fxtlint.lint_bytes(out).counts == {}
    assert repaired(out, byte_order="big")[0] == data
    assert repaired(data) == (data, [])  # the input's order by default


def test_close_open_ends_what_is_open_at_the_last_timestamp():
    data = B.archive(B.magic(), B.event("duration_begin", 5, thread=(1, 2), category="c", name="outer"),
                     B.event("async_begin", 6, thread=(1, 2), category="c", name="op", id=9),
                     B.event("instant", 40, thread=(1, 2), category="c", name="n"))
    assert fxtlint.lint_bytes(data).counts == {"PR004": 2}
    assert repaired(data)[0] == data  # only when asked
    out, changes = repaired(data, close_open=True)
    assert [(c.code, c.action) for c in changes] == [("PR004", "closed")] * 2
    assert fxtlint.lint_bytes(out).counts == {}
    ends = fxtlint.read_records(out)[0][-2:]
    assert [(r.kind, r.fields["timestamp"], r.args[0].name) for r in ends] == [
        ("event.duration_end", 40, MARK_NAME), ("event.async_end", 40, MARK_NAME)]
    assert repaired(out, close_open=True)[0] == out


# -- --close-open in the trace's own time: each provider's ticks through its rate -----------
GHZ, KHZ = 10**9, 1000


def _ends(out: bytes) -> list[tuple]:
    """(kind, provider id, timestamp) of what --close-open wrote."""
    return [(r["kind"], r["provider"]["id"], int(r["timestamp"])) for r in decode(out).records
            if any(a["name"] == MARK_NAME for a in r.get("arguments", ()))]


def _clean(data: bytes) -> bool:
    return not {k for k in fxtlint.lint_bytes(data).counts if k != "EX002"}


def _ev(kind, ts, name="d", **kw):
    return B.event(kind, ts, thread=kw.pop("thread", (1, 2)), category="c", name=name, **kw)


@pytest.mark.parametrize("order", ["little", "big"])
def test_close_open_ends_each_event_in_its_own_provider_at_its_rate(order):
    """A duration of provider 1 (1 GHz, begun at 5 ms) and an async operation of provider 2
    (1 kHz, begun at 6 ms), the last instant tick 40 of provider 2 (40 ms): each ends at
    40 ms in its own section and ticks (not at tick 40 of whichever provider is last)."""
    data = B.archive(B.magic(), B.provider_info(1, "fast"), B.initialization(GHZ), _ev("duration_begin", 5 * 10**6),
                     _ev("instant", 7 * 10**6), B.provider_info(2, "slow"), B.initialization(KHZ),
                     _ev("async_begin", 6, "op", thread=(1, 3), id=9), _ev("instant", 40, thread=(1, 3)),
                     byte_order=order)
    out, changes = repaired(data, close_open=True)
    assert [(c.code, c.action) for c in changes] == [("PR004", "closed")] * 2
    assert _ends(out) == [("event.duration_end", 1, 40 * 10**6), ("event.async_end", 2, 40)]
    assert "at tick 40,000,000 of 1 GHz (40 ms), the first tick of its provider at or after the trace's last " \
           "instant, tick 40 of 1 kHz (40 ms)" in changes[0].detail
    assert _clean(out) and repaired(out, close_open=True)[0] == out


@pytest.mark.parametrize("order", ["little", "big"])
def test_close_open_ends_after_a_rate_change_not_before_the_begin(order):
    """Begun at tick 5,000 of 1 kHz (5 s); the provider then ticks at 1 GHz and the last
    instant is its tick 6,000 (6 µs): the end is at 5 s or after, in the new rate's ticks."""
    data = B.archive(B.magic(), B.provider_info(1, "p"), B.initialization(KHZ), _ev("duration_begin", 5000),
                     B.initialization(GHZ), _ev("instant", 6000), byte_order=order)
    out, _ = repaired(data, close_open=True)
    assert _ends(out) == [("event.duration_end", 1, 5 * 10**9)]  # the last instant is the begin's, 5 s
    assert _clean(out)


@pytest.mark.parametrize("order", ["little", "big"])
def test_close_open_near_2_64_at_rates_that_do_not_divide_is_exact(order):
    """The last instant is tick 2^64 - 2 of 10^9+7 ticks/s; an async operation of a provider
    at 999,999,937 ticks/s ends at the first of its ticks at or after it, exactly."""
    a, b, big = 10**9 + 7, 999_999_937, (1 << 64) - 2
    data = B.archive(B.magic(), B.provider_info(1, "a"), B.initialization(a), _ev("instant", 5),
                     B.provider_info(2, "b"), B.initialization(b), _ev("async_begin", 7, "op", id=1),
                     B.provider_section(1), _ev("instant", big), byte_order=order)
    out, _ = repaired(data, close_open=True)
    ((kind, pid, ts),) = _ends(out)
    assert (kind, pid) == ("event.async_end", 2)
    assert Fraction(ts - 1, b) < Fraction(big, a) <= Fraction(ts, b)
    assert _clean(out)


# -- properties ----------------------------------------------------------------------------
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.booleans())
def test_repair_of_any_mutation_lints_with_no_error_and_is_idempotent(case, close_open):
    assert_repairs(case[0], close_open=close_open)


@given(st.one_of(st.binary(max_size=400), mutated_log_streams().map(lambda c: c[0])))
def test_repair_of_any_bytes_lints_with_no_error_and_is_idempotent(data):
    assert_repairs(data)


@given(archives(), st.booleans(), st.booleans())
def test_repair_of_a_clean_trace_is_the_same_bytes(data, close_open, shortcut):
    assert repaired(data, close_open=close_open, shortcut=shortcut) == (data, [])


@pytest.mark.parametrize("path", GOLDEN + REAL, ids=lambda p: p.name)
def test_repair_of_the_golden_and_real_corpora(path):
    data = path.read_bytes()
    out = assert_repairs(data)
    if not path.name.startswith("PR012"):  # 65,537 ends to write and read again: most of a minute
        assert_repairs(data, close_open=True)
    if not fxtlint.lint_bytes(data).diagnostics:
        assert out == data == repaired(data, shortcut=False)[0]


def _fxt_reads(data: bytes):
    """None when fxt 0.3.0 reads ``data``, else its error."""
    from fxt.reader import FxtParseError, parse_records

    try:
        parse_records(io.BytesIO(data))
    except FxtParseError as e:
        return str(e)
    return None


def test_fxt_reads_the_repaired_real_traces_it_could_not_read():
    """The second reader the tests use: a real trace without an Initialization record it
    refuses is read once repair spells out the implied tick rate; the one it reads is
    still read. (not-fxt-eztrace.fxt is not FXT: what the reader recovers from its bytes
    holds a kernel object of type 0, "none" in the spec's enumeration, which fxt refuses.)"""
    external_tools.module("fxt", "fxt", "readers")
    small = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes()
    assert _fxt_reads(small) == "ticks per second not initialized"
    assert _fxt_reads(repaired(small, spell_out_defaults=True)[0]) is None
    big = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    assert _fxt_reads(repaired(big, spell_out_defaults=True)[0]) is None
    other = (CORPUS_REAL / "not-fxt-eztrace.fxt").read_bytes()
    assert _fxt_reads(other) is not None
    assert _fxt_reads(repaired(other, spell_out_defaults=True)[0]) == "invalid kernel object type 0"


def test_spell_out_defaults_writes_a_provider_and_the_tick_rate_once():
    data = B.archive(B.magic(), B.event("instant", 3, thread=(1, 2), category="c", name="n"))
    out, changes = repaired(data, spell_out_defaults=True)
    assert [r.kind for r in fxtlint.read_records(out)[0]] == [
        "metadata.trace_info.magic", "metadata.provider_info", "initialization", "event.instant"]
    assert [(c.code, c.action) for c in changes] == [("", "added")] * 2
    assert fxtlint.lint_bytes(out).counts == {}
    assert repaired(out, spell_out_defaults=True) == (out, [])
    assert repaired(data) == (data, [])  # only when asked


# -- the verb ------------------------------------------------------------------------------
def test_verb_writes_out_prints_changes_and_exits_0_when_out_is_clean(tmp_path, capsys):
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(golden("ST002"))
    assert main(["repair", str(src), "-o", str(dst)]) == 0
    assert errors(dst.read_bytes()) == []
    text = capsys.readouterr().out
    assert f"{src}:0x" in text and "ST002 padding-not-zero: mended: padding cleared" in text


def test_verb_json_lists_every_change(tmp_path, capsys):
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(golden("FR001"))
    assert main(["repair", str(src), "-o", str(dst), "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(c["code"], c["rule"], c["action"]) for c in doc["changes"]] == [
        ("FR001", "record-size-zero", "dropped")]
    assert doc["output_lint"]["clean"] is True and doc["bytes_out"] == dst.stat().st_size


@pytest.mark.parametrize("code", ["FR001", "ST002", "RF001"])
def test_verb_on_the_reference_engine_is_the_default_engine_s(code, tmp_path, monkeypatch, capsys):
    """``FXTLINT_ENGINE=reference`` (what an install with no compiler runs): the same change
    log and the same OUT. (IN's lint then walks record by record: repair reads where that
    walk stopped as it reads the native walk's; it once asked it for a place it never kept.)"""
    src = tmp_path / "in.fxt"
    src.write_bytes(golden(code))
    docs, outs = [], []
    for engine in ("auto", "reference"):
        # (``FXTLINT_ENGINE`` as this process would have read it at its first lint)
        monkeypatch.setattr(_native, "default_engine", lambda engine=engine: engine)
        docs.append(_logged(src, capsys))
        outs.append(src.with_name("out.fxt").read_bytes())
    assert docs[0]["changes"] and docs[1] == docs[0] and outs[1] == outs[0]


def test_verb_exits_1_when_out_still_has_an_error(tmp_path, monkeypatch, capsys):
    from fxtlint.cli import repair as verb

    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(golden("ST002"))
    real, broken = verb.lint_output, str(REPO / "corpus" / "golden" / "ST002-padding-not-zero.fxt")
    monkeypatch.setattr(verb, "lint_output", lambda p: real(broken))
    assert main(["repair", str(src), "-o", str(dst)]) == 1
    assert "still has 1 error" in capsys.readouterr().out


def test_verb_refuses_to_write_over_its_input(tmp_path, capsys):
    src = tmp_path / "in.fxt"
    src.write_bytes(golden("ST002"))
    before = src.read_bytes()
    assert main(["repair", str(src), "-o", str(tmp_path / "." / "in.fxt")]) == 2
    assert "the output is the input" in capsys.readouterr().err
    assert src.read_bytes() == before


def test_verb_reads_stdin(tmp_path, monkeypatch):
    dst = tmp_path / "out.fxt"
    data = golden("RB001")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["repair", "-", "-o", str(dst)]) == 0
    assert dst.read_bytes() == repaired(data)[0]


def test_verb_says_an_unreadable_input_is_a_usage_error(tmp_path, capsys):
    assert main(["repair", str(tmp_path / "missing.fxt"), "-o", str(tmp_path / "out.fxt")]) == 2
    assert "missing.fxt" in capsys.readouterr().err
    assert not Path(tmp_path / "out.fxt").exists()


def test_the_fuzz_invariant_catches_a_repair_that_leaves_an_error(monkeypatch):
    """fuzz/fuzz_repair.py's check holds on a seed and fails on a repair that copies its input."""
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness

    mod = load_harness("repair")
    data = golden("ST002")
    mod.check(data)
    monkeypatch.setattr(mod, "repair", lambda buf, write, **kw: write(bytes(buf)))
    with pytest.raises(AssertionError, match="errors"):
        mod.check(data)


def test_a_file_read_in_chunks_by_the_lint_is_repaired_and_sliced_whole(tmp_path, capsys):
    """Above the size the lint reads whole (``_file.WHOLE``), a file is walked a chunk at a
    time; repair and slice read their own private copy of it, every byte of it."""
    from fxtlint.engine import _file

    block = B.archive(*[B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(1000)])
    data = B.archive(B.magic()) + block * (_file.WHOLE // len(block) + 2)
    assert len(data) > _file.WHOLE
    src = tmp_path / "big.fxt"
    src.write_bytes(data)
    out = tmp_path / "out.fxt"
    assert main(["repair", str(src), "-o", str(out)]) == 0
    assert out.read_bytes() == data
    assert main(["slice", str(src), "-o", str(tmp_path / "piece.fxt"), "--split-size", "512KiB"]) == 0
    pieces = sorted(tmp_path.glob("piece-*.fxt"))
    assert len(pieces) >= 2 and all(not fxtlint.lint_path(p).severity_counts.get("error") for p in pieces)
    capsys.readouterr()


# -- a trace the lint finds nothing in: linted once, copied ---------------------------------
@given(st.one_of(archives(), mutated_archives(codes=DRAWN_MUTATIONS).map(lambda c: c[0])), st.booleans())
def test_the_repair_pass_writes_in_s_bytes_wherever_the_lint_finds_nothing(data, close_open):
    """What lets the verb copy a trace the lint finds nothing in instead of repairing it
    (``cli/repair.py``): the repair pass writes the same bytes there and says no change;
    and what lets it reuse IN's lint as OUT's: no change means the same bytes."""
    out, changes = repaired(data, close_open=close_open)
    if not fxtlint.lint_bytes(data, input_format="trace").diagnostics:
        assert (out, changes) == (data, [])
    if not changes:
        assert out == data


def _verb_json(args, capsys) -> dict:
    assert main(["repair", *args, "--output-format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("size", ["small", "chunked"])
def test_a_trace_the_lint_finds_nothing_in_is_copied_not_repaired(size, tmp_path, monkeypatch, capsys):
    """The verb lints a regular file first; where it finds nothing OUT is IN's bytes, copied,
    and the change log is the repair pass's, the lint's counts included (the pass never
    runs); a file read a chunk at a time tells the bar every read."""
    from fxtlint.cli import _rewrite_io
    from fxtlint.cli import repair as verb
    from fxtlint.engine import _file

    data = (REPO / "corpus" / "samples" / "sample.fxt").read_bytes()
    if size == "chunked":
        block = B.archive(*[B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(1000)])
        data = B.archive(B.magic()) + block * (_file.WHOLE // len(block) + 2)
    assert not fxtlint.lint_bytes(data).diagnostics
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    through_the_pass = _verb_json([str(src), "-o", str(tmp_path / "pass.fxt")], capsys) if size == "small" else None
    told: list = []
    real = _rewrite_io.lint_regular_file
    monkeypatch.setattr(verb, "lint_regular_file", lambda path, progress=None, **kw: real(
        path, lambda d, t: told.append((d, t)), **kw))
    monkeypatch.setattr("fxtlint.rewrite._repair.repair", lambda *a, **k: pytest.fail("the repair pass ran"))
    doc = _verb_json([str(src), "-o", str(tmp_path / "out.fxt"), "--close-open"], capsys)
    assert (tmp_path / "out.fxt").read_bytes() == data
    assert doc["changes"] == [] and doc["output_lint"]["clean"] and doc["bytes_out"] == len(data)
    assert told[-1] == (len(data), len(data)) and (size == "small" or len(told) > 2)
    if through_the_pass is not None:  # the same document as the repair pass and OUT's lint give
        monkeypatch.undo()
        assert {**doc, "output": None} == {**through_the_pass, "output": None}


def test_a_file_that_changed_after_its_lint_is_not_copied(tmp_path):
    """The copy must be of the bytes the lint read: a length or a modification time that
    is not the lint's any more is ``FileChanged`` (exit 2)."""
    import os

    from fxtlint.cli._rewrite_io import copy_unchanged
    from fxtlint.engine._file import FileChanged

    src = tmp_path / "in.fxt"
    src.write_bytes((REPO / "corpus" / "samples" / "sample.fxt").read_bytes())
    st = os.stat(src)
    with open(tmp_path / "out.fxt", "wb") as out:
        copy_unchanged(str(src), st, out)
    assert (tmp_path / "out.fxt").read_bytes() == src.read_bytes()
    os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    with open(tmp_path / "out2.fxt", "wb") as out, pytest.raises(FileChanged):
        copy_unchanged(str(src), st, out)


# -- what a reader of OUT would misread ----------------------------------------------------
def _lost_provider_section() -> tuple[bytes, int]:
    """Two providers; a zeroed stretch where the switch to the second one was: the events
    after it read that provider's thread 4 as the first provider's, which has none."""
    head = B.archive(B.magic(), B.provider_info(1, "one"), B.thread(1, 10, 11), B.provider_info(2, "two"),
                     B.thread(4, 20, 21), B.provider_section(1),
                     B.event("instant", 5, thread=1, category="c", name="n"))
    assert len(B.archive(B.provider_section(2))) == 8
    lost = bytes(8)  # the Provider Section record switching to "two", zeroed: FR001, dropped
    tail = B.archive(*[B.event("instant", 10 + i, thread=4, category="c", name="n") for i in range(3)])
    return head + lost + tail, len(head)


def test_a_dropped_stretch_that_held_a_provider_switch_is_said_and_stop_at_loss_offered():
    data, cut = _lost_provider_section()
    out: list = []
    log = repair(data, out.append)
    assert errors(b"".join(out)) == []
    (note,) = log.notes
    assert note.code == "FR001" and note.action == "noted"
    assert "3 record(s) read thread(s) 4" in note.detail and "Provider Section" in note.detail
    assert "--stop-at-loss" in note.detail
    stopped: list = []
    log = repair(data, stopped.append, stop_at_loss=True)
    kept = b"".join(stopped)
    assert errors(kept) == [] and kept == data[:cut]
    assert [n.detail for n in log.notes][-1].startswith("--stop-at-loss")
    assert not any(c.code == "RF002" for c in log.changes)


def test_the_fr001_text_quoted_names_the_bytes_dropped_not_the_rest_of_the_file():
    data, _ = _lost_provider_section()
    log = repair(data, [].append)
    (drop,) = [c for c in log.changes if c.code == "FR001"]
    dropped = int(drop.detail.split()[0])
    assert f"the {dropped} bytes from here on cannot be framed" in drop.message
    assert "up to the next record" in drop.detail


def test_concatenated_archives_are_noted_and_split_archives_gives_each_back(tmp_path, capsys):
    one = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    two = (CORPUS_REAL / "jane-tracing-small.fxt").read_bytes()
    src = tmp_path / "two.fxt"
    src.write_bytes(one + two)
    for shortcut in (True, False):
        log = repair(one + two, [].append, shortcut=shortcut)
        assert log.changes == [] and [(n.code, n.offset) for n in log.notes] == [("MG003", len(one))]
        assert "--split-archives" in log.notes[0].detail
    assert main(["slice", str(src), "-o", str(tmp_path / "a.fxt"), "--split-archives"]) == 0
    assert (tmp_path / "a-0001.fxt").read_bytes() == one and (tmp_path / "a-0002.fxt").read_bytes() == two
    capsys.readouterr()


# -- the change log's counts: the lint's, on the same bytes -------------------------------
def _logged(path: Path, capsys) -> dict:
    """The JSON change log of repairing ``path`` (to a file beside it)."""
    main(["repair", str(path), "-o", str(path.with_name("out.fxt")), "--output-format", "json"])
    return json.loads(capsys.readouterr().out)


def assert_counts_are_the_lint_s(data: bytes, doc: dict) -> None:
    """The log's count of findings by rule is the lint's of IN (an independent lint here),
    and what repair did under each code sums to its changes."""
    assert {t["code"]: t["found"] for t in doc["input_lint"] if t["found"]} == fxtlint.lint_bytes(data).counts
    assert sum(sum(t["done"].values()) for t in doc["input_lint"]) == sum(1 for c in doc["changes"] if c["code"])


@pytest.mark.parametrize("code", ["FR001", "FR003", "ST002", "RF001", "MG001-magic-missing", "RF006", "EX002"])
def test_the_change_log_counts_the_lint_s_findings_of_in_by_rule(code, tmp_path, capsys):
    """FR001's golden case: the lint finds FR001 once (and what it read before), repair
    dropped one stretch: the log says both, per rule; a case with nothing to mend (RF006:
    a warning) is counted from OUT's lint, the same bytes."""
    src = tmp_path / "in.fxt"
    src.write_bytes(golden(*code.split("-", 1)))
    doc = _logged(src, capsys)
    assert_counts_are_the_lint_s(src.read_bytes(), doc)
    if code == "FR001":
        assert [(t["code"], t["found"], t["done"]) for t in doc["input_lint"] if t["code"] == "FR001"] == [
            ("FR001", 1, {"dropped": 1})]


def test_the_change_log_of_stdin_has_no_count_by_rule(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(golden("ST002"))))
    assert main(["repair", "-", "-o", str(tmp_path / "out.fxt")]) == 0
    assert "read from standard input: not linted again" in capsys.readouterr().out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(golden("ST002"))))
    assert main(["repair", "-", "-o", str(tmp_path / "out.fxt"), "--output-format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["input_lint"] is None


@settings(max_examples=5)  # (a repair and two lints through the CLI: about 80 ms an example)
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_the_change_log_counts_the_lint_s_findings_of_drawn_mutations(case):
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context():
        src = Path(tmp) / "in.fxt"
        src.write_bytes(case[0])
        out = io.StringIO()
        saved, sys.stdout = sys.stdout, out
        try:
            main(["repair", str(src), "-o", str(Path(tmp) / "out.fxt"), "--output-format", "json"])
        finally:
            sys.stdout = saved
        assert_counts_are_the_lint_s(case[0], json.loads(out.getvalue()))


def test_the_change_log_counts_the_lint_s_findings_of_a_real_trace_with_a_zeroed_page(tmp_path, capsys):
    """jane-tracing-richiesams.fxt with a zeroed 4 KiB page: the lint stops framing at the
    page (FR001) and counts what it read before; repair resumes past it and reads on (its
    RF001 placeholders are past where the lint stops: found 0, added): the log counts
    both, the lint's counts being the lint's."""
    data = bytearray((CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes())
    data[409600:413696] = bytes(4096)
    src = tmp_path / "in.fxt"
    src.write_bytes(bytes(data))
    doc = _logged(src, capsys)
    assert_counts_are_the_lint_s(bytes(data), doc)
    by = {t["code"]: t for t in doc["input_lint"]}
    assert by["FR001"]["found"] == 1 and by["FR001"]["done"] == {"dropped": 1}
    assert by["RF001"]["found"] == 0 and by["RF001"]["done"]["added"] >= 1
