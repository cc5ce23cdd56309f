"""For writer test suites: ``assert_conforms`` and a pytest fixture of the same name.

    from fxtlint.testing import assert_conforms

    def test_my_writer_output(tmp_path):
        path = my_writer.write(tmp_path / "t.fxt")
        assert_conforms(path, allow=("EX001",), expect="tests/expected_events.json")

A trace conforms when it has no error and no warning outside ``allow`` (infos are
notes, not failures). ``expect`` (a path, JSON text, or a list of events) also
requires the exported events to match, as ``fxtlint report --expect`` does: by
default the expected events must appear in order and the writer may write others
(``expect_mode="exact"`` also fails on events not listed). The failure message lists
the diagnostics as the terminal prints them; fxtlint's own frames stay out of the
traceback (``__tracebackhide__``).

Installed with fxtlint, the module is also a pytest plugin (entry point ``pytest11``)
that offers the ``fxt_conforms`` fixture: ``assert_conforms`` itself.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

__all__ = ["TraceDoesNotConform", "assert_conforms"]


class TraceDoesNotConform(AssertionError):
    """Raised by ``assert_conforms``; ``report`` is the lint's FileReport, ``expect`` the comparison."""

    def __init__(self, message: str, report=None, expect=None):
        super().__init__(message)
        self.report = report
        self.expect = expect


def _load(data_or_path) -> tuple[bytes, str]:
    if isinstance(data_or_path, (bytes, bytearray, memoryview)):
        return bytes(data_or_path), "<bytes>"
    path = os.fspath(data_or_path)
    return Path(path).read_bytes(), path


def _expected(expect):
    from .writer_report._expect import load_expected

    if isinstance(expect, list):
        return load_expected(json.dumps(expect), "expect")
    if isinstance(expect, dict):
        return load_expected(json.dumps(expect), "expect")
    text = str(expect)
    if text.lstrip().startswith(("[", "{")):
        return load_expected(text, "expect")
    return load_expected(Path(text).read_text(encoding="utf-8"), os.fspath(expect))


def _terminal(report, data, diagnostics) -> str:
    from rich.console import Console

    from .render._render_rich import diagnostic_text, render_hex

    buf = io.StringIO()
    console = Console(file=buf, color_system=None, highlight=False, markup=False, emoji=False,
                      soft_wrap=True, width=120)
    for d in diagnostics:
        console.print(diagnostic_text(d))
        render_hex(console, d, data)
    return buf.getvalue()


def _allowed(allow) -> tuple[list[str], set[str]]:
    """The codes ``allow`` stands for, read as the command line reads ``--ignore``: one
    string is one selector (or a comma list), a prefix is a family (``"PR"``), ``ALL``
    is every rule; one that names no rule raises ValueError (``SelectionError``), as the
    command line exits 2. Returns the selectors as given and the codes."""
    from .rules import all_rules
    from .rules._selection import check_selector, expand, split

    known = [r.code for r in all_rules()]
    given = split(allow)
    out: set[str] = set()
    for sel in given:
        check_selector(sel, "allow", known)
        out |= expand(sel, known)
    return given, out


def assert_conforms(data_or_path, *, allow=(), expect=None, expect_mode: str = "subset",
                    input_format: str = "auto", buffering_mode: str | None = None):
    """Fail (``TraceDoesNotConform``, an AssertionError) unless the trace conforms.

    ``allow``: the rules whose errors and warnings are accepted, as ``--ignore`` takes
    them: a code (``"PR001"``), a family or any prefix (``"PR"``), ``"ALL"``, a comma
    list or a sequence of them; a selector that matches no rule raises ValueError
    before anything is linted, as the command line's exit 2. ``buffering_mode``
    ("oneshot", "circular", "streaming"): how the trace was recorded, as
    ``--buffering-mode``. ``expect_mode``: "subset" (the expected events appear in
    order, others may too) or "exact". Returns the lint's FileReport so a test can
    look further.
    """
    __tracebackhide__ = True  # pytest shows the test's line and the findings, not this function
    from .engine._lint import lint_buffer
    from .rules._diagnostics import Severity

    given, allowed = _allowed(allow)
    data, name = _load(data_or_path)
    report = lint_buffer(data, input_format=input_format, path=name, buffering_mode=buffering_mode)
    bad_codes = {c for c, n in report.counts.items() if n and c not in allowed}
    shown = [d for d in report.diagnostics if d.code in bad_codes and d.severity >= Severity.WARNING]
    failing = {d.code for d in shown}
    parts = []
    if failing:
        from .render._report_words import plural

        total = sum(report.counts[c] for c in failing)
        parts.append(f"{name} does not conform: {plural(total, 'problem')} of {', '.join(sorted(failing))}"
                     + (f" (allowed: {', '.join(given)})" if given else "") + "\n"
                     + _terminal(report, data, shown))
    comparison = None
    if expect is not None:
        from .export._export_tef import iter_events
        from .render._report_words import expect_summary
        from .writer_report._expect import compare, fields_text

        events, unit = _expected(expect)
        comparison = compare(events, iter_events(data, input_format=input_format), unit, expect_mode)
        if not comparison["matches"]:
            lines = [f"{name}: the events differ from what was expected ({expect_summary(comparison)})"]
            lines += [f"  missing: {json.dumps(ev, ensure_ascii=False)}" for ev in comparison["missing"]]
            lines += [f"  extra:   {json.dumps(ev, ensure_ascii=False)}" for ev in comparison["extra"]]
            for d in comparison["differing"]:
                lines.append(f"  differs: {json.dumps(d['expected'], ensure_ascii=False)}: {fields_text(d['fields'])}")
            parts.append("\n".join(lines))
    if parts:
        raise TraceDoesNotConform("\n".join(parts), report, comparison)
    return report


try:  # the pytest plugin: only when pytest is there
    import pytest

    @pytest.fixture
    def fxt_conforms():
        """``assert_conforms``, as a fixture for writer test suites."""
        return assert_conforms
except ImportError:  # pragma: no cover - pytest is optional
    pass
