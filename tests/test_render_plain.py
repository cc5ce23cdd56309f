"""``PlainConsole`` (``render/_render_rich.py``) writes what rich's console writes where the
output is not a terminal, byte for byte: on the golden corpus's reports with their hex
views, the rules table, and lines rich rewrites (tabs, control characters), which it
hands to rich. ``make_console`` gives one only where rich would not call the file a terminal.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

import fxtlint
from fxtlint.render import _render_rich

REPO = Path(__file__).resolve().parents[1]
GOLDEN = sorted((REPO / "corpus" / "golden").glob("*.fxt"))
SAMPLES = sorted((REPO / "corpus" / "samples").glob("*.fxt"))


def _rich_console(out) -> Console:
    """``make_console``'s rich console on a file that is not a terminal (as before ``PlainConsole``)."""
    return Console(file=out, highlight=False, markup=False, emoji=False, soft_wrap=True)


def _both(draw) -> tuple[str, str]:
    """What ``draw(console)`` writes through a ``PlainConsole`` and through rich's console."""
    plain, rich = io.StringIO(), io.StringIO()
    draw(_render_rich.PlainConsole(plain))
    draw(_rich_console(rich))
    return plain.getvalue(), rich.getvalue()


@pytest.mark.parametrize("path", GOLDEN + SAMPLES, ids=lambda p: p.name)
def test_a_report_is_printed_as_rich_prints_it(path):
    data = path.read_bytes()
    report = fxtlint.lint_bytes(data)
    plain, rich = _both(lambda c: _render_rich.render_report(c, report, data=data))
    assert plain == rich
    assert plain.endswith(_render_rich.summary_line(report) + "\n")


def test_the_rules_table_is_printed_as_rich_prints_it():
    from fxtlint.rules import all_rules

    plain, rich = _both(lambda c: _render_rich.render_rules(c, list(all_rules())))
    assert plain == rich
    assert plain.startswith("CODE")


LINES = [
    "",
    "plain ascii",
    "µs and … and 漢字 wide",
    "a\ttab\tor two",
    "bell\x07 backspace\x08 vt\x0b ff\x0c cr\x0d",
    "escape \x1b[31m not markup [bold]x[/bold] :smile:",
    "nul\x00 del\x7f",
    "two\nlines",
    "trailing spaces   ",
]


@pytest.mark.parametrize("line", LINES)
def test_a_line_is_printed_as_rich_prints_it(line):
    styled = _render_rich.Styled("  ").append(line, "bold").append(" end")
    for value in (line, styled, _render_rich.Styled(line, "bold red")):
        plain, rich = _both(lambda c, v=value: c.print(v))
        assert plain == rich, (value, plain, rich)


def test_styled_is_the_text_rich_would_have_built():
    from rich.text import Text

    styled = _render_rich.Styled("  ").append("error", "bold red").append("[X1]", "bold").append(" at 0x0")
    styled.stylize("reverse", 2, 4)
    text = Text("  ")
    text.append("error", "bold red")
    text.append("[X1]", "bold")
    text.append(" at 0x0")
    text.stylize("reverse", 2, 4)
    assert styled.__rich__() == text


class _Out(io.StringIO):
    def __init__(self, tty: bool):
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("env, tty, plain", [
    ({}, False, True),
    ({}, True, False),
    ({"FORCE_COLOR": "1"}, False, False),
    ({"TTY_COMPATIBLE": "1"}, False, False),
])
def test_make_console_is_plain_only_where_rich_would_not_colour(monkeypatch, env, tty, plain):
    for k in _render_rich._TERMINAL_ENV:
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    console = _render_rich.make_console(_Out(tty))
    assert isinstance(console, _render_rich.PlainConsole) == plain
    if not plain and not tty and env:
        assert console.is_terminal  # rich: a terminal after all
