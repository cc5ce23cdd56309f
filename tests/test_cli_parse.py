"""``check.parsed_simply``: an argv of paths and plain options read without argparse, to
the namespace argparse makes of it, or None where argparse must read it (bench/startup.py:
``fxtlint FILE`` builds no parser)."""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fxtlint.cli import check
from fxtlint.cli._parser import build_parser, parse


@pytest.fixture(scope="module")
def parser():
    return build_parser(("check",))[1].choices["check"]


def argparse_reads(parser, argv: list[str]) -> dict | None:
    """vars() of argparse's namespace of ``argv``, or None where it exits (an error)."""
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            return vars(parse(parser, argv))
    except SystemExit:
        return None


READ_SIMPLY = [
    ["t.fxt"],
    ["a.fxt", "b.fxt", "dir"],
    ["--output-format", "rich", "t.fxt"],
    ["t.fxt", "--output-format=json"],
    ["--output-format", "json", "--output-format", "sarif", "t.fxt"],  # the last one wins
    ["a.fxt", "-q", "b.fxt", "--no-hex", "--isolated", "--exit-zero", "--statistics", "--no-progress"],
    ["--select", "PR,RB", "--select=ST001", "--ignore", "PR004", "--severity", "PR=info", "t.fxt"],
    ["-j", "3", "--jobs=2", "--max-per-rule", "7", "t.fxt"],
    ["--exclude", "*.tmp", "--baseline", "base.json", "--write-baseline", "--allow-empty", "d"],
    ["--input-format", "log", "--fail-on", "warning", "--buffering-mode", "circular", "t.fxt"],
    ["--idle-timeout", "0.5", "--follow", "f.fxt", "t.fxt"],
    ["--baseline", "", "t.fxt"],  # an empty value is a value
]

READ_BY_ARGPARSE = [
    [],  # no path
    ["--output-format", "rich"],
    ["-"],  # standard input
    ["--", "t.fxt"],
    ["-q5", "t.fxt"],  # short options run together
    ["-jx", "t.fxt"],
    ["--bogus", "t.fxt"],
    ["--output", "json", "t.fxt"],  # no abbreviations (and argparse says so)
    ["--output-format", "yaml", "t.fxt"],
    ["--output-format", "t.fxt"],  # the value is missing: "t.fxt" is no format
    ["t.fxt", "--output-format"],
    ["--jobs", "0", "t.fxt"],
    ["--jobs", "-1", "t.fxt"],
    ["--idle-timeout", "nan", "t.fxt"],
    ["--select", " , ", "t.fxt"],
    ["--quiet=1", "t.fxt"],
    ["-j=2", "t.fxt"],
    ["-5", "t.fxt"],
    ["", "t.fxt"],
    ["--help"],
    ["t.fxt", "-h"],
]


@pytest.mark.parametrize("argv", READ_SIMPLY, ids=" ".join)
def test_plain_argvs_are_read_without_argparse_as_argparse_reads_them(parser, argv):
    simply = check.parsed_simply(argv)
    assert simply is not None  # the start-up's path is taken
    assert vars(simply) == argparse_reads(parser, argv)


@pytest.mark.parametrize("argv", READ_BY_ARGPARSE, ids=" ".join)
def test_the_rest_is_left_to_argparse(argv):
    assert check.parsed_simply(argv) is None


TOKENS = ["t.fxt", "d", "-", "--", "-q", "--quiet", "-j", "--jobs", "--jobs=2", "2", "0", "-1", "x", "",
          "--output-format", "--output-format=json", "json", "rich", "yaml", "--select", "PR", "PR,RB", " ,",
          "--exit-zero", "--exit-zero=1", "--idle-timeout", "1.5", "nan", "--buffering-mode", "circular",
          "--baseline", "--follow", "--exclude=*.tmp", "--bogus", "-h", "-qj2", "--output"]


@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_whatever_is_read_simply_is_what_argparse_reads(argv):
    """Any mix of options, values and paths: read as argparse reads it, or left to it."""
    parser = build_parser(("check",))[1].choices["check"]
    simply = check.parsed_simply(argv)
    if simply is not None:
        assert vars(simply) == argparse_reads(parser, argv)


def test_every_option_of_check_is_declared_for_both(parser):
    """The plain reading sees the options argparse is given (``add_arguments``, once),
    with the same dests and defaults (argparse's own: its -h aside)."""
    options, defaults, positional = check._plain_options()
    actions = [a for a in parser._actions if a.dest != "help"]
    assert {f for a in actions for f in a.option_strings} == set(options)
    assert {a.dest: a.default for a in actions if a.option_strings} == defaults
    assert [a.dest for a in actions if not a.option_strings] == [positional]


@pytest.mark.parametrize("empty", [[], None, "", {}])
def test_no_selector_resolves_as_the_registry_reads_none(empty):
    """``_resolve_codes`` without selectors (its short cut: no registry read) says what the
    selection of the whole registry says: nothing ignored, no severity changed."""
    from fxtlint.rules import _selection, all_rules

    known = [r.code for r in all_rules()]
    expected = (frozenset(known) - _selection.enabled_codes(known, [], []), _selection.severity_overrides([], known))
    assert check._resolve_codes({"select": empty, "ignore": empty, "severity": empty}) == expected == (frozenset(), {})
    # and a selector still goes through the registry
    ignored, overrides = check._resolve_codes({"select": ["PR"], "ignore": empty, "severity": empty})
    assert ignored == frozenset(c for c in known if not c.startswith("PR")) and overrides == {}
