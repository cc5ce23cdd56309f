"""The terminal renderer: diagnostics, hex views of the offending records, summaries.

Takes reports and the file's bytes, knows nothing of records. On a terminal it
colours; anywhere else (CI, pipes, files) it emits plain text and the marked
bytes get a ``^^^`` line underneath instead of a colour.

Where the output is not a terminal (and no environment variable makes rich call it one)
``make_console`` returns a ``PlainConsole``, which writes the lines rich would write
there without importing rich (a fifth of a small lint's start-up): lines with a tab or
a control character, which rich expands or strips, still go through rich. Lines are
built as ``Styled`` values, rich's ``Text`` only when a rich console prints them.
"""

from __future__ import annotations

import functools
import os
import sys
from collections import Counter
from collections.abc import Sequence

from ..engine._result import FileReport
from ..rules import not_fxt_file
from ..rules._diagnostics import Diagnostic, Severity

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from typing import IO

    from rich.console import Console
    from rich.text import Text


def __getattr__(name: str):
    """``Console`` and ``Text``, rich's, imported on first use."""
    if name == "Console":
        from rich.console import Console

        return Console
    if name == "Text":
        from rich.text import Text

        return Text
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Styled:
    """A line of text and its styles (rich's style names), for any console: a rich console
    prints it as rich's ``Text`` (``__rich__``), a ``PlainConsole`` as its plain text."""

    def __init__(self, text: str = "", style: str = ""):
        self.plain = text
        self.style = style
        self.spans: list[tuple[int, int, str]] = []  # (start, end, style), in the order rich applies them

    def append(self, text: str, style: str = "") -> Styled:
        if style:
            self.spans.append((len(self.plain), len(self.plain) + len(text), style))
        self.plain += text
        return self

    def stylize(self, style: str, start: int, end: int) -> None:
        if style:
            self.spans.append((start, end, style))

    def __str__(self) -> str:
        return self.plain

    def __rich__(self) -> Text:
        from rich.text import Text

        text = Text(self.plain, self.style)
        for start, end, style in self.spans:
            text.stylize(style, start, end)
        return text


@functools.cache
def _rich_rewrites():
    """What rich changes in a line it prints (expands tabs, strips some control codes): a
    superset, every control character but the newline (compiled where a line is not
    printable ASCII: a lint whose lines are imports no ``re``, bench/startup.py)."""
    import re

    return re.compile(r"[\x00-\x09\x0b-\x1f\x7f]")


def _rewritten(text: str) -> bool:
    """Whether rich would change ``text`` (``_rich_rewrites``): never for printable ASCII."""
    return not (text.isascii() and text.isprintable()) and _rich_rewrites().search(text) is not None
# environment variables with which rich may call a file that is not a tty a terminal
_TERMINAL_ENV = ("FORCE_COLOR", "TTY_COMPATIBLE", "FORCE_TERMINAL", "TTY_INTERACTIVE")


class PlainConsole:
    """What ``make_console``'s rich console does where it is not a terminal: each printed
    line (a str, a ``Styled`` or rich's ``Text``) and a newline, flushed, no style. A line
    rich would rewrite goes through a rich console of the same options."""

    color_system = None
    is_terminal = False

    def __init__(self, file: IO[str] | None = None):
        self._file = file
        self._rich: Console | None = None

    @property
    def file(self) -> IO[str]:
        return self._file if self._file is not None else sys.stdout

    def print(self, line="") -> None:
        text = line if isinstance(line, str) else line.plain
        if _rewritten(text):
            if self._rich is None:
                self._rich = _rich_console(self._file)
            self._rich.print(line)
            return
        self.file.write(text + "\n")
        self.file.flush()


if TYPE_CHECKING:
    ConsoleLike = Console | PlainConsole  # (never evaluated: an annotation only)


def _rich_console(file: IO[str] | None) -> Console:
    from rich.console import Console

    return Console(file=file, highlight=False, markup=False, emoji=False, soft_wrap=True)


def _may_be_terminal(file: IO[str] | None) -> bool:
    """False only where rich would certainly not call ``file`` (None: standard output) a
    terminal: not a tty, no environment variable that overrides that, not in IPython."""
    if any(k in os.environ for k in _TERMINAL_ENV) or "IPython" in sys.modules:
        return True
    out = file if file is not None else sys.stdout
    try:
        return out is None or bool(out.isatty())
    except (AttributeError, OSError, ValueError):
        return True


SEVERITY_STYLE = {
    Severity.ERROR: "bold red",
    Severity.WARNING: "bold yellow",
    Severity.INFO: "bold cyan",
}
SPAN_STYLE = "bold reverse red"
HEX_INDENT = "    "


def make_console(file: IO[str] | None = None) -> ConsoleLike:
    """A console that never wraps or interprets markup; colour only on a terminal
    (rich also honours ``NO_COLOR`` and ``FORCE_COLOR``). Not a terminal: a
    ``PlainConsole``, which prints the same lines without importing rich."""
    if not _may_be_terminal(file):
        return PlainConsole(file)
    return _rich_console(file)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _plain(console: ConsoleLike) -> bool:
    return console.color_system is None


def read_as(report: FileReport) -> str:
    """How the file was read: "trace, little-endian", "not an FXT file", or "empty"
    (no bytes: no format, no byte order)."""
    if report.counts.get(not_fxt_file.code):  # the walk never started: nothing was read
        return "not an FXT file"
    if report.size == 0:
        return "empty"
    return f"{report.format}, {report.byte_order}-endian"


STDIN_NAME = "<stdin>"  # how the terminal names ``-``


def shown_path(path: str) -> str:
    """A report's path as the terminal shows it: standard input as ``<stdin>``."""
    return STDIN_NAME if path == "-" else path


def header_line(report: FileReport) -> str:
    return f"{shown_path(report.path)} ({read_as(report)}, {_plural(report.size, 'byte')})"


def stream_header_line(path: str, fmt: str | None, byte_order: str | None) -> str:
    """The header of a stream's findings, printed before the first: its size is known
    only at its end (the summary line says it)."""
    how = "not yet known" if fmt is None else f"{fmt}, {byte_order}-endian" if fmt == "trace" else fmt
    return f"{shown_path(path)} ({how}, read as it arrives)"


def summary_line(report: FileReport) -> str:
    sev = report.severity_counts
    return (
        f"{shown_path(report.path)}: {_plural(report.records, 'record')}, "
        f"{_plural(sev.get('error', 0), 'error')}, "
        f"{_plural(sev.get('warning', 0), 'warning')}, "
        f"{_plural(sev.get('info', 0), 'info')} "
        f"({read_as(report)})"
    )


def diagnostic_text(diag: Diagnostic) -> Styled:
    text = Styled("  ")
    text.append(diag.severity.label, SEVERITY_STYLE[diag.severity])
    text.append(f"[{diag.code}]", "bold")
    where = f" at 0x{diag.offset:x}"
    if diag.record_index >= 0:  # file-level findings carry no record
        where += f" (record {diag.record_index})"
    text.append(f"{where}: {diag.message}")
    return text


def hidden_counts(report: FileReport) -> dict[str, int]:
    """Per code, how many diagnostics the cap dropped (exact, from the counts)."""
    kept = Counter(d.code for d in report.diagnostics)
    return {
        code: n - kept.get(code, 0)
        for code, n in sorted(report.counts.items())
        if n > kept.get(code, 0)
    }


def capped_line(report: FileReport) -> str | None:
    hidden = hidden_counts(report)
    if not hidden:
        return None
    per_code = ", ".join(f"{code}: {n}" for code, n in hidden.items())
    return f"  {sum(hidden.values())} more not shown ({per_code})"


def render_hex(console: ConsoleLike, diag: Diagnostic, data) -> None:
    from ..engine._hexview import hex_rows, marker_line, record_window  # (a report with findings only)

    start, end = record_window(diag.offset, diag.record_size, diag.span, len(data))
    if start >= end:
        console.print(f"{HEX_INDENT}(no bytes at 0x{diag.offset:x}: past the end of the file)")
        return
    plain = _plain(console)
    for row in hex_rows(data, start, end, diag.span):
        text = Styled(HEX_INDENT + row.text)
        for s, e in row.marks:
            text.stylize(SPAN_STYLE, len(HEX_INDENT) + s, len(HEX_INDENT) + e)
        console.print(text)
        mark = marker_line(row)
        if plain and mark is not None:
            console.print(HEX_INDENT + mark)


def buffer_full_line(report: FileReport) -> str | None:
    """The banner for a trace whose provider dropped records (a buffer-full event)."""
    at = report.summary.get("buffer_full_at") or []
    if not at:
        return None
    where = ", ".join(f"{o:#x}" for o in at[:5]) + (" …" if len(at) > 5 else "")
    return (f"!! {report.path}: records were likely dropped (buffer full at {where}); "
            "pairing and ref warnings after that point may be caused by it")


def render_report(
    console: ConsoleLike,
    report: FileReport,
    *,
    data=None,
    show_hex: bool = True,
    quiet: bool = False,
) -> None:
    """One file: header, diagnostics (each with its hex view), capped counts, summary.

    ``data`` is the file's bytes (or an mmap); without it no hex view is drawn.
    Files without diagnostics get the summary only. ``quiet`` (ruff's meaning) keeps
    the findings and drops the rest: no summary line, nothing for a clean file.
    """
    dropped = buffer_full_line(report)
    if dropped is not None:
        # before everything else: later pairing warnings may all be its consequence
        console.print(Styled(dropped, "bold yellow reverse"))
    if report.counts:
        console.print(Styled(header_line(report), "bold"))
        for diag in report.diagnostics:
            console.print(diagnostic_text(diag))
            if show_hex and data is not None:
                render_hex(console, diag, data)
        line = capped_line(report)
        if line is not None:
            console.print(line)
    if not quiet:
        console.print(summary_line(report))


def total_line(reports: Sequence[FileReport], failures: int = 0) -> str:
    e = sum(r.severity_counts.get("error", 0) for r in reports)
    w = sum(r.severity_counts.get("warning", 0) for r in reports)
    i = sum(r.severity_counts.get("info", 0) for r in reports)
    line = (
        f"{_plural(len(reports), 'file')}: {_plural(e, 'error')}, "
        f"{_plural(w, 'warning')}, {_plural(i, 'info')}"
    )
    if failures:
        line += f"; {failures} could not be read"
    return line


def rules_table(rules) -> list[str]:
    """Aligned plain columns (no box drawing, no wrapping): code, name, severity, status
    (a removed code's names the code that reports its defect now)."""
    rows = [("CODE", "NAME", "SEVERITY", "STATUS")] + [
        (r.code, r.name, r.severity.label, f"removed: now {r.replaced_by}" if r.replaced_by else r.status)
        for r in rules
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths)) + "  " + row[3]
        for row in rows
    ]


def render_rules(console: ConsoleLike, rules) -> None:
    for i, line in enumerate(rules_table(rules)):
        console.print(Styled(line, "bold" if i == 0 else ""))
