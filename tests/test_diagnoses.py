"""Diagnoses a writer author can act on: each case is a small hand-written faulty input
and what fxtlint must say about it (issue 10, group 2), checked on both engines.

Each test names the writer bug it stands for; assertions are on codes, structured
``details`` and the words of the message that point at the cause.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

import fxtlint
import writer_traces
from fxtlint import build as B
from fxtlint.engine._reader import field_span
from fxtlint.rules import _ex as X
from fxtlint.spec._tables import tables

T = tables()


def lint(data: bytes, **kw):
    """The default (fast) report, after checking the reference engine says the same,
    spans and details included."""
    fast = fxtlint.lint_bytes(data, engine="fast", **kw)
    ref = fxtlint.lint_bytes(data, engine="reference", **kw)
    assert [d.to_json() for d in fast.diagnostics] == [d.to_json() for d in ref.diagnostics]
    assert fast.counts == ref.counts
    return fast


def only(report, code):
    found = [d for d in report.diagnostics if d.code == code]
    assert len(found) == 1, (code, report.counts)
    return found[0]


def header(kind: str, name: str):
    return X.field(kind, name)


# ---------------------------------------------------------------- not FXT at all


@pytest.mark.parametrize("data, looks", [
    (b"\x89PNG\r\n\x1a\n" + bytes(range(200)), "a PNG image"),
    (b"Hello, this is a plain text file that someone named trace.fxt.\n" * 4, "text"),
    (b"\x1f\x8b\x08\x00" + bytes(60), "gzip data"),
])
def test_not_fxt_is_said_once_first_and_nothing_follows(data, looks):
    report = lint(data)
    assert report.counts == {"MG005": 1}
    (d,) = report.diagnostics
    assert d.offset == 0 and d.message.startswith("not an FXT file")
    assert f"it looks like {looks}" in d.message
    assert report.records == 0


def test_unknown_binary_that_does_not_frame_is_not_fxt():
    data = B.words(0xFFFF_FFFF_FFFF_FFF0, 7, 7)  # type 0 metadata of a size past the end
    report = lint(data)
    assert report.counts == {"MG005": 1}


def test_valid_records_without_magic_say_the_magic_is_missing():
    data = X.preamble()[8:]  # the writer forgot the magic record
    report = lint(data)
    d = only(report, "MG001")
    assert d.message.startswith("the magic record is missing: the file starts with a metadata.provider_info record")
    assert "not a Fuchsia trace" not in d.message
    assert set(report.counts) == {"MG001"}
    assert report.records == 5


# ---------------------------------------------------------------- framing causes


def test_size_one_too_large_says_the_next_word_is_a_header():
    data = X.preamble() + X.with_size(B.archive(B.string(3, "abc")), 3) + B.archive(
        B.thread(2, 10, 12), B.event("instant", 5))
    report = lint(data)
    d = only(report, "FR004")
    assert "the first is a valid thread header: the size may be 1 too large" in d.message
    assert d.details["kind"] == "thread" and d.details["n"] == 1
    assert "EX001" not in report.counts


def test_size_one_word_too_large_is_read_as_the_spec_reads_it_and_recovered_by_the_reader():
    """Issue 17: the walk went on from inside the next record and FR002 stopped it, far from
    the cause. Issue 24: the lint's verdict follows the declared size (a reader following it
    reads on from inside the next record), FR004 says so at the cause and that recovery reads
    on from the swallowed header; the recovering reader does, and reads every record."""
    report = lint(writer_traces.with_size_off_by(+1))
    clean = lint(writer_traces.trace())
    assert clean.counts == {} and clean.records == 32
    d = only(report, "FR004")
    assert d.record_index == writer_traces.FAULTY and d.offset == writer_traces.offset_of(writer_traces.FAULTY)
    assert d.message.endswith("the size may be 1 too large; a reader following the size reads on from inside "
                              f"the event.duration_end record at {d.offset + 32:#x} (recovery, as in decode and "
                              "export, reads on from that header)")
    assert report.records < 32  # the declared reading frames the swallowed record's words as headers
    records, diags = fxtlint.read_records(writer_traces.with_size_off_by(+1))
    assert [r.kind for r in records] == [r.kind for r in fxtlint.read_records(writer_traces.trace())[0]]
    assert next(d.message for d in diags if d.code == "FR004").endswith("reading resumes at that header")


def test_size_one_word_too_small_is_named_and_invents_no_record():
    """Issue 17: the record's last word was read as an initialization record (RB001 + ST001)."""
    report = lint(writer_traces.with_size_off_by(-1))
    assert report.counts == {"ST001": 1} and report.records == 32
    d = only(report, "ST001")
    assert d.message == ("event.duration_begin: its content needs 24 bytes but the record's size leaves 16: the "
                         "size is probably 1 word too small (a valid event.duration_end header follows it); "
                         "reading resumes after the content")
    assert d.details == {"where": "event.duration_begin", "part": "content", "need": 24, "have": 16, "words": 3,
                         "content_words": 4, "next_kind": "event.duration_end"}
    size = next(f for f in T.header if f.role == "size")
    assert d.span == field_span(d.offset, size, False) and d.record_size == 32
    from fxtlint.writer_report._conformance_report import trace_report

    coverage = trace_report(writer_traces.with_size_off_by(-1))["coverage"]
    kinds = {r["kind"]: r["records"] for r in coverage["record_kinds"]}
    assert kinds["initialization"] == 1 and kinds["event.duration_begin"] == 11


def test_a_short_size_at_the_end_of_the_file_says_the_file_ends_there():
    data = X.preamble() + X.with_size(B.archive(B.event("instant", 5, args=[B.arg("int64", 1, 7)])), 3)
    d = only(lint(data), "ST001")
    assert "the size is probably 1 word too small (the file ends right after it)" in d.message


def test_a_record_cut_short_by_the_end_of_the_file_stays_an_overrun():
    d = only(lint(X.preamble() + X.with_size(B.archive(B.event("instant", 5)), 1)[:8]), "ST001")
    assert d.message == "event.instant: its timestamp needs 8 bytes but the record's size leaves 0"


def test_size_two_words_too_large_swallowing_a_whole_record_resynchronises():
    """By the declared size the duration end is skipped (its begin stays open: PR004); the
    recovering reader reads on from the swallowed header and reads every record."""
    report = lint(writer_traces.with_size_off_by(+2))
    assert report.counts == {"FR004": 1, "PR004": 1} and report.records == 31
    assert "skips the event.duration_end record at 0x110" in only(report, "FR004").message
    assert len(fxtlint.read_records(writer_traces.with_size_off_by(+2))[0]) == 32


def test_a_header_like_word_that_frames_worse_keeps_the_declared_size():
    """The twin: the word after the content is a valid thread header, but framing from it
    runs into garbage while the declared size frames every record after it. FR004 still
    warns; the size stands."""
    lone_header = B.archive(B.thread(2, 10, 12))[:8]  # declares 3 words
    data = (X.preamble() + X.with_size(B.archive(B.string(3, "abc")), 3) + lone_header
            + B.archive(B.thread(3, 10, 13), B.event("instant", 5)))
    report = lint(data)
    d = only(report, "FR004")
    assert "the first is a valid thread header: the size may be 1 too large; a reader following the size reads on " \
        "from inside the thread record at" in d.message
    assert "recovery" not in d.message  # recovery keeps the declared size too
    assert set(report.counts) == {"FR004"}
    records, _ = fxtlint.read_records(data)
    assert [r.kind for r in records[-3:]] == ["string", "thread", "event.instant"]
    assert records[-3].extra_words and records[-3].size_words == 3


def test_trailing_zero_word_stays_an_allowed_extension():
    data = X.preamble(B.initialization(1000)) + B.archive(
        fxtlint.Record(1, "initialization", {"ticks_per_second": 1000}, extra_words=(0,)))
    d = only(lint(data), "EX001")
    assert d.message == "initialization has 1 word after its defined content (an extension the spec allows)"


def test_big_endian_magic_before_little_endian_records():
    data = B.archive(B.magic(), byte_order="big") + B.archive(B.string(1, "cat"), B.thread(1, 10, 11))
    report = lint(data)
    framing = [d for d in report.diagnostics if d.code in ("FR001", "FR002")]
    assert framing, report.counts
    assert "read little-endian it is a valid string header: the file mixes byte orders" in framing[0].message
    assert "final record" not in framing[0].message


def test_byte_order_switch_mid_file():
    data = X.preamble() + B.archive(B.thread(2, 10, 12), B.string(5, "swapped"), byte_order="big")
    report = lint(data)
    (d,) = [d for d in report.diagnostics if d.code in ("FR001", "FR002")]
    assert "read big-endian it is a valid thread header" in d.message
    assert d.offset == len(X.preamble())


def test_truncated_last_record_is_not_blamed_on_byte_order():
    d = only(lint(X.preamble(B.string(3, "truncated"))[:-8]), "FR002")
    assert d.message.endswith("the file ends inside this record, or its size is wrong")


# ---------------------------------------------------------------- strings


def test_length_counting_a_c_terminator_is_a_warning():
    report = lint(X.preamble(B.event("instant", 5, name="tick\0")))
    d = only(report, "ST008")
    assert d.severity == fxtlint.Severity.WARNING
    assert d.message == "event.instant: the name string ends in a NUL byte: its length probably counts a C terminator"
    assert d.details["length"] == 5


def test_string_record_with_terminator():
    d = only(lint(X.preamble(B.string(3, "abc\0"))), "ST008")
    assert d.message.startswith("string: the value ends in a NUL byte")


def test_length_one_short_suggests_the_length():
    rec = B.archive(B.string(3, "abcd"))
    data = X.preamble() + B.patch_field(rec, header("string", "length"), 3)
    d = only(lint(data), "ST002")
    assert d.message.endswith("the first non-zero byte directly follows the value: is its length 4, not 3?")
    assert (d.details["length"], d.details["suggested_length"]) == (3, 4)


def test_stray_padding_byte_is_not_called_a_short_length():
    rec = X.with_byte(B.archive(B.string(3, "abc")), 8 + 5, ord("x"))
    d = only(lint(X.preamble() + rec), "ST002")
    assert d.message == "string: the padding after the value is not zero"
    assert "suggested_length" not in d.details


def test_padding_of_an_argument_says_which_argument():
    rec = B.archive(B.event("instant", 5, args=[B.arg("string", "key", "abc")]))
    at = rec.index(b"abc\0") + 5
    d = only(lint(X.preamble() + X.with_byte(rec, at, ord("x"))), "ST002")
    assert d.message == 'event.instant argument 0 "key" (string): the padding after the value string is not zero'


# ---------------------------------------------------------------- arguments


def test_trailing_words_after_a_short_argument_are_not_an_extension():
    data = X.preamble() + _int64_arg_declaring_one_word()
    report = lint(data)
    st = only(report, "ST005")
    assert st.message == ("event.instant argument 0 (int64, name ref 1) declares 1 word "
                          "but its content takes at least 2 words")
    ex = only(report, "EX001")
    assert "extension the spec allows" not in ex.message
    assert "probably the rest of argument 0" in ex.message


def _int64_arg_declaring_one_word() -> bytes:
    rec = B.archive(B.event("instant", 100, args=[B.arg("int64", 1, 7)]))
    return B.patch_field(rec, next(f for f in T.argument_header if f.role == "size"), 1, word=2)


def test_argument_reserved_bits_name_the_argument_and_the_bit():
    rec = B.archive(B.event("instant", 5, args=[B.arg("double", "load", 1.5)]))
    rec = B.patch_field(rec, B.WORD, B.read_field(rec, B.WORD, word=2) | (1 << 40), word=2)
    d = only(lint(X.preamble() + rec), "RB002")
    assert d.message == ('event.instant argument 0 "load" (double): reserved bits 32..63 must be zero, '
                         "but bit 40 is set (the field holds 0x100)")
    assert d.details["field"] == "reserved" and d.details["bits"] == [32, 63] and d.details["found"] == 0x100


def test_reserved_bits_of_a_header_name_the_bit_set():
    data = X.preamble() + X.with_header_bits(B.archive(B.thread(2, 10, 12)), (1 << 40) | (1 << 41))
    d = only(lint(data), "RB001")
    assert d.message == ("thread header: reserved bits 24..63 must be zero, "
                         "but bits 40, 41 are set (the field holds 0x30000)")


# ---------------------------------------------------------------- refs and threads


def test_unregistered_ref_before_any_provider_names_the_table_it_was_looked_up_in():
    data = B.archive(B.magic(), B.thread(1, 10, 11), B.event("instant", 5, category="c", name=7))
    d = only(lint(data), "RF001")
    assert d.message == ("event.instant: string ref 7 (name) was never registered in the string table that "
                         "applies before any Provider Info or Provider Section record")
    assert d.details["provider"] is None


def test_unregistered_refs_mark_their_field():
    data = X.preamble(B.event("instant", 5, name=7, thread=4))
    report = lint(data)
    off = len(X.preamble())
    rf1 = only(report, "RF001")
    assert rf1.span == field_span(off, header("event.instant", "name"), False)
    rf2 = only(report, "RF002")
    assert rf2.span == field_span(off, header("event.instant", "thread"), False)


def test_unregistered_argument_name_ref_marks_the_argument_header():
    data = X.preamble(B.event("instant", 5, args=[B.arg("int32", 9, 1)]))
    d = only(lint(data), "RF001")
    arg_at = len(X.preamble()) + 16
    assert d.span == field_span(arg_at, next(f for f in T.argument_header if f.role == "string_ref"), False)


def test_inline_thread_overrun_says_thread_ref_0_means_inline():
    rec = B.archive(B.event("instant", 5, thread=(10, 11), category="c", name="n"))
    data = X.preamble() + X.with_size(rec, 2)[:16]
    d = only(lint(data), "ST001")
    assert "thread 0 means an inline thread" in d.message


# ---------------------------------------------------------------- pairing after a stop


def test_open_duration_after_a_framing_stop_says_the_readable_part_ends():
    data = X.preamble(B.event("duration_begin", 5)) + B.words(0)
    d = only(lint(data), "PR004")
    assert d.message == ("duration cat/name is still open where the readable part of the file ends "
                         "(framing stopped there)")


def test_open_duration_at_a_clean_end_says_the_trace_ends():
    d = only(lint(X.preamble(B.event("duration_begin", 5))), "PR004")
    assert d.message.endswith("is still open when the trace ends")


# ---------------------------------------------------------------- magic and log messages


def test_malformed_second_magic_is_only_a_wrong_value():
    bad_magic = X.with_header_bits(B.archive(B.magic()), 1 << 24)
    report = lint(X.preamble() + bad_magic)
    assert "MG002" in report.counts and "MG003" not in report.counts
    assert only(report, "MG002").details == {"field": "magic", "found": 0x16547847, "expected": 0x16547846}


def test_repeated_magic_names_its_record():
    d = only(lint(X.preamble() + X.preamble()), "MG003")
    assert d.message.startswith("a magic record at record 6, not at the start")


def test_repeated_magic_says_the_tables_carry_on():
    # the lint keeps every table across a later magic record (it "carries no other
    # information"): the message says so, not that a fresh archive starts there
    d = only(lint(X.preamble() + X.preamble()), "MG003")
    assert d.message == ("a magic record at record 6, not at the start: the lint reads on across it with every "
                         "table in force (the current provider and each provider's strings, threads and tick rate "
                         "carry on)")
    assert "concatenated" not in d.message


@pytest.mark.parametrize("severity, side", [(0, "below TRACE (0x10)"), (5, "below TRACE (0x10)"),
                                             (0x61, "above FATAL (0x60)"), (0xFF, "above FATAL (0x60)")])
def test_log_severity_says_below_or_above(severity, side):
    data = B.log_stream(B.log_record(severity, 1, [B.arg("string", "message", "m")]))
    d = only(fxtlint.lint_bytes(data, input_format="log"), "SL002")
    assert d.message == f"severity {severity:#x} is not a severity: it is {side}"


def test_every_diagnostic_of_the_golden_corpus_has_details_where_params_exist():
    from fxtlint.rules import all_rules

    for rule in all_rules():
        fmt = rule.bad.input_format
        for d in fxtlint.lint_bytes(rule.bad.build(), input_format=fmt).diagnostics:
            if "{" in rule.message and d.code == rule.code:
                assert d.details, rule.code
            assert all(k not in d.details for k in ("lo", "hi", "value")), d.details


# ---------------------------------------------------------------- issue 17: exact words


def test_padding_of_0xaa_filler_suggests_no_length():
    rec = bytearray(B.archive(B.string(3, "abc")))
    rec[8 + 3 : 16] = b"\xaa" * 5  # filler, not text: 0xAA alone is not even UTF-8
    d = only(lint(X.preamble() + bytes(rec)), "ST002")
    assert d.message == "string: the padding after the value is not zero"
    assert "suggested_length" not in d.details


def test_padding_that_continues_the_text_suggests_the_length():
    rec = B.patch_field(B.archive(B.string(3, "abcé")), header("string", "length"), 3)
    d = only(lint(X.preamble() + rec), "ST002")
    assert d.message.endswith("is its length 5, not 3?") and d.details["suggested_length"] == 5


def test_a_magic_record_that_is_not_first_says_where_it_is():
    data = B.archive(B.provider_info(1, "p"), B.magic(), B.string(1, "x"))
    report = lint(data)
    d = only(report, "MG001")
    assert d.message.startswith("the magic record is record 1, not the first: the file starts with a "
                                "metadata.provider_info record")
    assert (d.details["magic_index"], d.details["magic_offset"]) == (1, 16)
    assert "MG003" not in report.counts  # the first magic record is not "repeated"


def test_a_second_magic_after_a_misplaced_one_is_repeated():
    data = B.archive(B.provider_info(1, "p"), B.magic(), B.string(1, "x"), B.magic())
    report = lint(data)
    assert only(report, "MG003").record_index == 3
    assert only(report, "MG001").details["magic_index"] == 1


def test_a_missing_magic_takes_the_article_of_its_first_record():
    d = only(lint(B.archive(B.initialization(1000), B.string(1, "x"))), "MG001")
    assert d.message.startswith("the magic record is missing: the file starts with an initialization record")
    assert "magic_index" not in d.details


def test_names_of_nul_and_control_bytes_are_escaped_everywhere(tmp_path):
    rec = B.archive(B.event("instant", 5, args=[B.arg("double", "\0\0\x01\t", 1.5)]))
    rec = B.patch_field(rec, B.WORD, B.read_field(rec, B.WORD, word=2) | (1 << 40), word=2)
    d = only(lint(X.preamble() + rec), "RB002")
    assert d.message.startswith('event.instant argument 0 "\\x00\\x00\\x01\\t" (double): reserved bits')
    assert d.message.isprintable()
    path = tmp_path / "nul.fxt"
    path.write_bytes(X.preamble() + rec)
    out = subprocess.run([sys.executable, "-m", "fxtlint", str(path)], check=False, capture_output=True,
                         text=True).stdout
    assert 'argument 0 "\\x00\\x00\\x01\\t" (double)' in out and "\x00" not in out


def test_a_printable_name_is_left_as_it_is():
    rec = B.archive(B.event("instant", 5, args=[B.arg("double", "load é", 1.5)]))
    rec = B.patch_field(rec, B.WORD, B.read_field(rec, B.WORD, word=2) | (1 << 40), word=2)
    assert only(lint(X.preamble() + rec), "RB002").message.startswith('event.instant argument 0 "load é" (double)')


@pytest.mark.parametrize("data, read_as", [
    (b"\x89PNG\r\n\x1a\n" + bytes(200), "(not an FXT file)"),
    (X.preamble(), "(trace, little-endian)"),
])
def test_the_summary_line_says_how_the_file_was_read(data, read_as):
    from fxtlint.render._render_rich import header_line, summary_line

    report = lint(data)
    assert summary_line(report).endswith(read_as)
    assert header_line(report).startswith(f"<bytes> {read_as[:-1]}, ")



# ---------------------------------------------------------------- issue 25: the cause, in the trace's terms


def test_unpadded_string_says_the_padding_is_missing():
    report = lint(writer_traces.with_padding_left_out())
    d = only(report, "ST002")
    assert d.message.endswith("the padding is missing: the bytes right after the value are a string "
                              "record header, so the next record starts 2 bytes early")
    assert "is its length" not in d.message
    assert (d.details["next_kind"], d.details["missing"]) == ("string", 2)


def test_padded_string_twin_is_clean():
    assert lint(writer_traces.with_padding_left_out(pad=True)).diagnostics == []


def _frame_and_render(render_end: int) -> bytes:
    """Issue 25, item 4: B frame @1000, B render @1100, E render @``render_end``, E frame @2000."""
    def d(kind, ts, name):
        return B.event(kind, ts, category=1, name=name)

    return B.archive(B.magic(), B.string(1, "gfx"), B.string(2, "frame"), B.string(3, "render"),
                     B.thread(1, 10, 11), d("duration_begin", 1000, 2), d("duration_begin", 1100, 3),
                     d("duration_end", render_end, 3), d("duration_end", 2000, 2))


def test_an_end_stamped_before_its_begin_is_said_in_timestamps():
    report = lint(_frame_and_render(1050))
    d = only(report, "PR002")
    assert report.counts == {"PR002": 1}  # the frame pairs with its own end: one finding
    assert d.offset == 0x70 and d.message == (
        "duration end gfx/render at 1050 is before its begin at 1100 (0x60): pairing follows timestamps, "
        "so a duration must not end before it begins")
    assert (d.details["ts"], d.details["begin_ts"], d.details["begin_offset"]) == (1050, 1100, 0x60)


def test_an_end_stamped_after_its_begin_is_clean():
    assert lint(_frame_and_render(1150)).diagnostics == []


def test_a_lone_end_stamped_before_its_begin_is_one_finding():
    data = B.archive(B.magic(), B.string(1, "gfx"), B.string(3, "render"), B.thread(1, 10, 11),
                     B.event("duration_begin", 1100, category=1, name=3),
                     B.event("duration_end", 1050, category=1, name=3))
    report = lint(data)
    assert report.counts == {"PR002": 1}  # not PR001 for the end and PR004 for the begin
    assert "at 1050 is before its begin at 1100" in only(report, "PR002").message


def _flow_in_a_frame(end_name: int) -> bytes:
    """Issue 25, item 9: a flow begin and end inside a duration; the end's name is
    string ``end_name`` (9 was never registered)."""
    def d(kind, ts, name, **kw):
        return B.event(kind, ts, category=1, name=name, **kw)

    return B.archive(B.magic(), B.string(1, "gfx"), B.string(2, "frame"), B.thread(1, 10, 11),
                     d("duration_begin", 1000, 2), d("flow_begin", 1001, 2, id=7), d("flow_end", 1002, end_name, id=7),
                     d("duration_end", 2000, 2))


def test_a_flow_end_with_an_unregistered_name_is_one_finding():
    report = lint(_flow_in_a_frame(9))
    assert report.counts == {"RF001": 1}  # not also PR004 for the flow begin it ends
    assert only(report, "RF001").offset == 0x68


def test_a_flow_end_with_its_name_registered_is_clean():
    assert lint(_flow_in_a_frame(2)).diagnostics == []


def test_a_duration_end_with_an_unregistered_name_is_left_out_of_pairing():
    # its name identifies it (durations pair by name): it cannot close the begin, which stays open
    data = B.archive(B.magic(), B.string(1, "gfx"), B.string(2, "frame"), B.thread(1, 10, 11),
                     B.event("duration_begin", 1000, category=1, name=2),
                     B.event("duration_end", 2000, category=1, name=9))
    assert lint(data).counts == {"RF001": 1, "PR004": 1}


# ---------------------------------------------------------------- issue 25, item 8: one vocabulary


def test_flow_and_async_ids_are_hex_in_messages_as_export_writes_them():
    def ev(kind, ts, **kw):
        return B.event(kind, ts, category=1, name=2, **kw)

    data = B.archive(B.magic(), B.string(1, "gfx"), B.string(2, "frame"), B.thread(1, 10, 11),
                     ev("duration_begin", 1), ev("flow_end", 2, id=255), ev("async_begin", 3, id=255),
                     ev("duration_end", 4))
    report = lint(data)
    assert only(report, "PR007").message.startswith("flow end for id 0xff has no live flow begin")
    assert only(report, "PR004").message.startswith("async operation gfx/frame id 0xff is still open")


def test_counter_argument_names_are_resolved_as_event_names_are():
    def counter(name_ref):
        return B.event("counter", 5, category=1, name=2, id=1, args=[B.arg("string", name_ref, 2)])

    data = B.archive(B.magic(), B.string(1, "gfx"), B.string(2, "frame"), B.string(3, "count"), B.thread(1, 10, 11),
                     counter(3))
    assert only(lint(data), "EV001").message == 'counter argument 0 "count" is a string, not a number'
    unregistered = lint(data[:-len(B.archive(counter(3)))] + B.archive(counter(9)))
    assert only(unregistered, "EV001").message == "counter argument 0 (name ref 9) is a string, not a number"


def test_a_severity_prints_as_its_name():
    from fxtlint.rules._diagnostics import Severity

    assert (str(Severity.WARNING), f"{Severity.ERROR}", f"{Severity.INFO:>7}") == ("warning", "error", "   info")
    assert Severity.ERROR > Severity.WARNING and int(Severity.WARNING) == 1


# ---------------------------------------------------------------- issue 31, item 4: a length guessed from the bytes


def _name_length_too_small(name: str, length: int, *, extra_words=0, byte_order="little") -> bytes:
    """A provider-info record naming ``name`` whose name length says ``length``, its size
    grown by ``extra_words`` zero words."""
    rec = B.archive(B.provider_info(1, name), byte_order=byte_order)
    rec = B.patch_field(rec, header("metadata.provider_info", "name_length"), length, byte_order=byte_order)
    if extra_words:
        size = T.field(role="size")
        words = B.read_field(rec, size, byte_order=byte_order) + extra_words
        rec = B.patch_field(rec, size, words, byte_order=byte_order) + bytes(8 * extra_words)
    return B.archive(B.magic(), byte_order=byte_order) + rec


@pytest.mark.parametrize("byte_order", ["little", "big"])
def test_a_name_length_too_small_is_guessed_from_the_text_that_follows(byte_order):
    # "ocaml-trace" is 11 bytes; a length of 2 once guessed 8, the end of the first stream word
    d = only(lint(_name_length_too_small("ocaml-trace", 2, byte_order=byte_order)), "ST002")
    assert d.message == ("metadata.provider_info: the padding after the provider_name is not zero; the first "
                         "non-zero byte directly follows the provider_name: is its length 11, not 2?")
    assert (d.details["length"], d.details["suggested_length"]) == (2, 11)


@pytest.mark.parametrize("name, length, guess", [
    ("ocaml-trace", 10, 11),  # within the declared padding, as before
    ("ocaml-trace-long", 3, 16),  # the text fills its words: no zero byte before the record's end
    ("ocaml-trace-much-longer-still", 1, 29),  # three words on
])
def test_the_guess_is_the_text_up_to_its_first_zero_byte(name, length, guess):
    d = only(lint(_name_length_too_small(name, length)), "ST002")
    assert d.message.endswith(f"is its length {guess}, not {length}?") and d.details["suggested_length"] == guess


def test_text_that_does_not_end_where_the_record_does_gets_no_guess():
    # the name so padded ends a word before the record does: no length fits the record's size
    d = only(lint(_name_length_too_small("ocaml-trace", 2, extra_words=1)), "ST002")
    assert d.message == "metadata.provider_info: the padding after the provider_name is not zero"
    assert "suggested_length" not in d.details


def test_text_whose_padding_is_not_zero_gets_no_guess():
    data = bytearray(_name_length_too_small("ocaml-trace", 2))
    data[8 + 8 + 13] = ord("x")  # in the padding a length of 11 would have
    d = only(lint(bytes(data)), "ST002")
    assert "is its length" not in d.message and "suggested_length" not in d.details


def test_a_string_that_more_of_its_record_follows_is_guessed_only_within_its_padding():
    # an inline event name runs on past its padding: where the arguments would start is
    # unknown, so no guess (a guess within the padding keeps them where they are)
    rec = B.archive(B.event("instant", 5, name="ocaml-trace", args=[B.arg("int32", 1, 7)]))
    name = X.field("event.instant", "name")
    d = only(lint(X.preamble() + B.patch_field(rec, name, 0x8000 | 2)), "ST002")
    assert "is its length" not in d.message and "suggested_length" not in d.details
    d = only(lint(X.preamble() + B.patch_field(rec, name, 0x8000 | 9)), "ST002")
    assert d.message.endswith("is its length 11, not 9?")
    # text that fills its padding and stops at a byte that is not text: the arguments follow
    rec = B.archive(B.event("instant", 5, name="abcdefgh", args=[B.arg("int32", 1, 7)]))
    d = only(lint(X.preamble() + B.patch_field(rec, name, 0x8000 | 7)), "ST002")
    assert d.message.endswith("is its length 8, not 7?")


def test_a_string_argument_value_runs_on_to_its_argument_end():
    rec = B.archive(B.event("instant", 5, args=[B.arg("string", "key", "ocaml-trace")]))
    word = B.read_field(rec, B.WORD, word=2)
    rec = X.with_word(rec, 2, (word & ~(0xFFFF << 32)) | ((0x8000 | 2) << 32))  # the value's inline length
    d = only(lint(X.preamble() + rec), "ST002")
    assert d.message.endswith("the first non-zero byte directly follows the value string: is its length 11, not 2?")
