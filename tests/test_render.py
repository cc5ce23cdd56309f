"""The renderers and the hex view, all on ONE shared list of diagnostics (ruff's habit).

The shared run: a 160-byte file whose byte i is i, linted into six findings of
four codes and three severities; E001 is capped at 2 so one is dropped.
"""

from __future__ import annotations

import io

import pytest

from fxtlint.engine._hexview import Row, dump, hex_rows, marker_line, record_window
from fxtlint.engine._result import DiagnosticSink, FileReport
from fxtlint.render import _render_json, _render_rich
from fxtlint.rules._diagnostics import Diagnostic, Severity

FILE = bytes(range(160))


def _d(code, severity, offset, record_index, message, span=None, record_size=None):
    return Diagnostic(
        offset=offset,
        record_index=record_index,
        code=code,
        severity=severity,
        message=message,
        span=span,
        record_size=record_size,
    )


E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 - the severities' letters

# In the order a reader would report them; the last E001 falls over the cap.
DIAGNOSTICS = [
    _d("E001", E, 0, 0, "header word is bad", span=(0, 8), record_size=16),
    _d("E001", E, 16, 1, "second bad header", span=(16, 17), record_size=32),
    _d("W010", W, 16, 1, "field crosses a row", span=(30, 34), record_size=32),
    _d("E002", E, 48, 2, "far field", span=(140, 144), record_size=104),
    _d("I100", I, 152, 3, "just so you know", record_size=8),
    _d("W010", W, 152, 3, "clamped at end of file", span=(156, 170), record_size=64),
    _d("E001", E, 152, 3, "dropped by the cap", span=(152, 160), record_size=8),
]


def shared_report(path="mem.fxt") -> FileReport:
    sink = DiagnosticSink(per_rule_cap=2)
    sink.extend(DIAGNOSTICS)
    return FileReport.from_sink(
        path=path, format="trace", records=4, size=len(FILE), byte_order="little", sink=sink
    )


def clean_report(path="clean.fxt") -> FileReport:
    return FileReport.from_sink(
        path=path, format="log", records=2, size=16, byte_order="little", sink=DiagnosticSink()
    )


def render_plain(report, **kw) -> str:
    out = io.StringIO()
    console = _render_rich.make_console(out)
    _render_rich.render_report(console, report, **kw)
    return out.getvalue()


# --- JSON: the exact object


def test_json_exact():
    run = _render_json.render([shared_report(), clean_report()], version="9.9.9")
    assert run == {
        "files": [
            {
                "path": "mem.fxt",
                "format": "trace",
                "records": 4,
                "bytes": 160,
                "byte_order": "little",
                "counts": {"E001": 3, "E002": 1, "I100": 1, "W010": 2},
                "severity_counts": {"error": 4, "warning": 2, "info": 1},
                "capped": True,
                "summary": {},
                "diagnostics": [
                    {"code": "E001", "severity": "error", "offset": 0, "record_index": 0,
                     "message": "header word is bad", "span": [0, 8], "record_size": 16},
                    {"code": "E001", "severity": "error", "offset": 16, "record_index": 1,
                     "message": "second bad header", "span": [16, 17], "record_size": 32},
                    {"code": "W010", "severity": "warning", "offset": 16, "record_index": 1,
                     "message": "field crosses a row", "span": [30, 34], "record_size": 32},
                    {"code": "E002", "severity": "error", "offset": 48, "record_index": 2,
                     "message": "far field", "span": [140, 144], "record_size": 104},
                    {"code": "I100", "severity": "info", "offset": 152, "record_index": 3,
                     "message": "just so you know", "record_size": 8},
                    {"code": "W010", "severity": "warning", "offset": 152, "record_index": 3,
                     "message": "clamped at end of file", "span": [156, 170], "record_size": 64},
                ],
            },
            {
                "path": "clean.fxt",
                "format": "log",
                "records": 2,
                "bytes": 16,
                "byte_order": "little",
                "counts": {},
                "severity_counts": {"error": 0, "warning": 0, "info": 0},
                "capped": False,
                "summary": {},
                "diagnostics": [],
            },
        ],
        "failures": [],
        "summary": {"files": 2, "errors": 4, "warnings": 2, "infos": 1},
        "tool": {"name": "fxtlint", "version": "9.9.9"},
    }


def test_json_is_deterministic_text():
    reports = [shared_report(), clean_report()]
    a = _render_json.dumps(_render_json.render(reports, failures=[("gone.fxt", "no such file")]))
    b = _render_json.dumps(_render_json.render(reports, failures=[("gone.fxt", "no such file")]))
    assert a == b and a.endswith("}\n")
    assert '"failures": [\n    {\n      "path": "gone.fxt"' in a


def test_json_tool_version_defaults_to_package():
    import fxtlint

    assert _render_json.render([])["tool"]["version"] in (fxtlint.__version__, _render_json.tool_version())


# --- rich, plain (not a terminal): the whole text


EXPECTED_PLAIN = """\
mem.fxt (trace, little-endian, 160 bytes)
  error[E001] at 0x0 (record 0): header word is bad
    00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|
              ^^^^^^^^^^^^^^^^^^^^^^^                            ^^^^^^^^
  error[E001] at 0x10 (record 1): second bad header
    00000010  10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |................|
              ^^                                                 ^
    00000020  20 21 22 23 24 25 26 27  28 29 2a 2b 2c 2d 2e 2f  | !"#$%&'()*+,-./|
  warning[W010] at 0x10 (record 1): field crosses a row
    00000010  10 11 12 13 14 15 16 17  18 19 1a 1b 1c 1d 1e 1f  |................|
                                                         ^^^^^                 ^^
    00000020  20 21 22 23 24 25 26 27  28 29 2a 2b 2c 2d 2e 2f  | !"#$%&'()*+,-./|
              ^^^^^                                              ^^
  error[E002] at 0x30 (record 2): far field
    00000030  30 31 32 33 34 35 36 37  38 39 3a 3b 3c 3d 3e 3f  |0123456789:;<=>?|
    00000040  40 41 42 43 44 45 46 47  48 49 4a 4b 4c 4d 4e 4f  |@ABCDEFGHIJKLMNO|
    00000050  50 51 52 53 54 55 56 57  58 59 5a 5b 5c 5d 5e 5f  |PQRSTUVWXYZ[\\]^_|
    00000060  60 61 62 63 64 65 66 67  68 69 6a 6b 6c 6d 6e 6f  |`abcdefghijklmno|
              \u2026 16 bytes
    00000080  80 81 82 83 84 85 86 87  88 89 8a 8b 8c 8d 8e 8f  |................|
                                                   ^^^^^^^^^^^               ^^^^
              \u2026 8 bytes
  info[I100] at 0x98 (record 3): just so you know
    00000098  98 99 9a 9b 9c 9d 9e 9f                           |........|
  warning[W010] at 0x98 (record 3): clamped at end of file
    00000098  98 99 9a 9b 9c 9d 9e 9f                           |........|
                          ^^^^^^^^^^^                                ^^^^
  1 more not shown (E001: 1)
mem.fxt: 4 records, 4 errors, 2 warnings, 1 info (trace, little-endian)
"""


def test_rich_plain_exact():
    assert render_plain(shared_report(), data=FILE) == EXPECTED_PLAIN


def test_rich_plain_has_no_ansi():
    assert "\x1b[" not in render_plain(shared_report(), data=FILE)


@pytest.mark.parametrize(
    "kw, present, absent",
    [
        ({"data": FILE, "show_hex": False}, ["  error[E001] at 0x0 (record 0): header word is bad"],
         ["00000000  ", "^"]),
        ({}, ["  info[I100] at 0x98 (record 3): just so you know"], ["00000000  "]),
        ({"data": FILE, "quiet": True}, ["  error[E001] at 0x0 (record 0): header word is bad", "mem.fxt (trace, "
                                         "little-endian, 160 bytes)", "  1 more not shown (E001: 1)"],
         ["mem.fxt: 4 records"]),
    ],
)
def test_rich_options(kw, present, absent):
    text = render_plain(shared_report(), **kw)
    for line in present:
        assert line in text.splitlines()
    for s in absent:
        assert s not in text


def test_rich_clean_file_is_one_summary_line():
    assert render_plain(clean_report(), data=b"") == (
        "clean.fxt: 2 records, 0 errors, 0 warnings, 0 infos (log, little-endian)\n"
    )


def test_rich_colour_on_a_terminal():
    out = io.StringIO()
    console = _render_rich.Console(
        file=out, force_terminal=True, color_system="standard", highlight=False, soft_wrap=True
    )
    _render_rich.render_report(console, shared_report(), data=FILE)
    text = out.getvalue()
    assert "\x1b[1;31merror\x1b[0m" in text  # severity coloured
    assert "\x1b[1;7;31m00 01 02 03 04 05 06 07\x1b[0m" in text  # span reversed
    assert "^^^" not in text  # the colour marks the span, no marker lines


def test_rich_file_level_diagnostic_has_no_record():
    report = FileReport.from_sink(
        path="f.fxt", format="trace", records=0, size=13, byte_order="little",
        sink=_sink(_d("F003", E, 8, -1, "length not a multiple of 8", span=(8, 13), record_size=5)),
    )
    text = render_plain(report, data=bytes(13))
    assert "  error[F003] at 0x8: length not a multiple of 8\n" in text


def test_rich_offset_past_end_of_file():
    report = FileReport.from_sink(
        path="f.fxt", format="trace", records=1, size=8, byte_order="little",
        sink=_sink(_d("F002", E, 8, 1, "record past end", record_size=16)),
    )
    assert "(no bytes at 0x8: past the end of the file)" in render_plain(report, data=bytes(8))


def test_capped_counts_are_exact_per_code():
    sink = DiagnosticSink(per_rule_cap=1)
    sink.extend([_d("A", E, i, i, "a") for i in range(5)] + [_d("B", W, i, i, "b") for i in range(3)])
    report = FileReport.from_sink(path="p", format="trace", records=5, size=0, byte_order="little", sink=sink)
    assert _render_rich.hidden_counts(report) == {"A": 4, "B": 2}
    assert _render_rich.capped_line(report) == "  6 more not shown (A: 4, B: 2)"
    assert _render_rich.capped_line(shared_report(path="x")) == "  1 more not shown (E001: 1)"
    assert _render_rich.capped_line(clean_report()) is None


def test_total_line():
    assert _render_rich.total_line([shared_report(), clean_report()], 1) == (
        "2 files: 4 errors, 2 warnings, 1 info; 1 could not be read"
    )
    assert _render_rich.total_line([clean_report()]) == "1 file: 0 errors, 0 warnings, 0 infos"


def _sink(*diags):
    sink = DiagnosticSink()
    sink.extend(diags)
    return sink


# --- the hex view, without rich


def _marked_text(row: Row) -> list[str]:
    return [row.text[s:e] for s, e in row.marks]


@pytest.mark.parametrize(
    "start, end, span, expected",
    [
        # span inside one row: hex cells and their ASCII
        (0, 16, (2, 4), [["02 03", ".."]]),
        # span across the 8-byte gap of a row
        (0, 16, (7, 9), [["07  08", ".."]]),
        # span across a row boundary: the end of one row, the start of the next
        (0, 32, (14, 18), [["0e 0f", ".."], ["10 11", ".."]]),
        # span ending exactly at a row boundary does not mark the next row
        (0, 32, (0, 16), [["00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f", "." * 16], []]),
        # rows are aligned to the window start, not to multiples of 16
        (8, 40, (23, 25), [["17", "."], ["18", "."]]),
        # span partly outside the window is clamped to it
        (0, 8, (6, 100), [["06 07", ".."]]),
        # no span, no marks
        (0, 16, None, [[]]),
    ],
)
def test_hex_marks(start, end, span, expected):
    rows = hex_rows(FILE, start, end, span)
    assert [_marked_text(r) for r in rows] == expected


def test_hex_row_layout():
    (row,) = hex_rows(b"AB\x00", 0, 3)
    assert row == Row(0, "00000000  41 42 00" + " " * 40 + "  |AB.|")
    assert row.text.index("|") == 10 + 48 + 2  # ASCII column fixed even on a short row


def test_marker_line_under_marks():
    (row,) = hex_rows(FILE, 0, 16, (1, 2))
    assert marker_line(row) == " " * 13 + "^^" + " " * 47 + "^"
    (plain,) = hex_rows(FILE, 0, 16)
    assert marker_line(plain) is None


@pytest.mark.parametrize(
    "offset, record_size, span, size, expected",
    [
        (16, 32, None, 160, (16, 48)),
        (150, 64, None, 160, (150, 160)),  # clamped at the end of the file
        (200, 8, None, 160, (160, 160)),  # past the end: empty
        (16, None, None, 160, (16, 32)),  # no size: one row
        (16, None, (20, 40), 160, (16, 40)),  # ... stretched over the span
        (16, None, (20, 400), 160, (16, 160)),
        (0, 0, None, 160, (0, 0)),
    ],
)
def test_record_window(offset, record_size, span, size, expected):
    assert record_window(offset, record_size, span, size) == expected


def test_elision_keeps_head_and_span_rows():
    rows = hex_rows(bytes(200), 0, 200, (150, 152))
    assert [r.offset for r in rows] == [0, 16, 32, 48, None, 144, None]
    assert rows[4].text.strip() == "\u2026 80 bytes"
    assert rows[6].text.strip() == "\u2026 40 bytes"


def test_elision_span_in_head_and_one_byte_tail():
    rows = hex_rows(bytes(65), 0, 65, (3, 4))
    assert [r.offset for r in rows] == [0, 16, 32, 48, None]
    assert rows[-1].text.strip() == "\u2026 1 byte"


def test_long_span_shows_its_first_and_last_rows():
    rows = hex_rows(bytes(400), 0, 400, (100, 390))
    assert [r.offset for r in rows] == [0, 16, 32, 48, None, 96, 112, None, 368, 384]
    assert rows[4].text.strip() == "\u2026 32 bytes"
    assert rows[7].text.strip() == "\u2026 240 bytes"


def test_head_none_shows_everything():
    assert [r.offset for r in hex_rows(bytes(200), 0, 200, head=None)] == list(range(0, 200, 16))


def test_empty_window():
    assert hex_rows(FILE, 5, 5) == []
    assert dump(b"") == ""


def test_offsets_widen_past_32_bits():
    class Huge:  # a 5 GiB "file" that is only sliced, never copied whole
        def __len__(self):
            return 5 << 30

        def __getitem__(self, s):
            return bytes(s.stop - s.start)

    start = (5 << 30) - 8
    (row,) = hex_rows(Huge(), start, start + 8)
    assert row.text.startswith("13ffffff8  00 00")


def test_dump_interleaves_marker_lines():
    assert dump(FILE, 0, 20, (17, 18)) == (
        "00000000  00 01 02 03 04 05 06 07  08 09 0a 0b 0c 0d 0e 0f  |................|\n"
        "00000010  10 11 12 13" + " " * 37 + "  |....|\n"
        + " " * 13 + "^^" + " " * 47 + "^"
    )


def test_buffer_full_banner_comes_first_and_names_the_offsets():
    import io

    from fxtlint import build as B
    from fxtlint import lint_bytes
    from fxtlint.render._render_rich import make_console, render_report

    data = B.archive(B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.provider_event(1, 0))
    report = lint_bytes(data)
    out = io.StringIO()
    render_report(make_console(out), report, data=data)
    first = out.getvalue().splitlines()[0]
    assert "records were likely dropped" in first and f"{len(data) - 8:#x}" in first


def test_no_banner_without_buffer_full():
    from fxtlint import build as B
    from fxtlint import lint_bytes
    from fxtlint.render._render_rich import buffer_full_line

    assert buffer_full_line(lint_bytes(B.archive(B.magic()))) is None
