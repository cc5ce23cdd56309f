"""What every subcommand shares: exit codes, the error line, the registry, the version.

The registry and the linter are looked up through this module at call time, so tests
can swap in fakes with one ``monkeypatch.setattr`` and every subcommand sees them.
"""

from __future__ import annotations

import sys

from ..engine._lint import INPUT_FORMATS  # the one list of input formats, the library's

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    import argparse

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
OUTPUT_FORMATS = ("rich", "json")



class UsageError(Exception):
    """A value that parsed but means nothing (an unknown rule code): exit 2, as argparse does."""


def error(message: str) -> None:
    print(f"fxtlint: error: {message}", file=sys.stderr)


def load_registry() -> list:
    from ..rules import all_rules

    return list(all_rules())


def load_removed() -> list:
    """The retired codes (status "removed", never reused), for ``fxtlint rules``."""
    from ..rules import removed_rules

    return list(removed_rules())


def removed_rule(code: str):
    """The retired rule of ``code`` (status "removed"), or None."""
    from ..rules import get

    rule = get(code.strip())
    return rule if rule is not None and rule.status == "removed" else None


def lint_buffer():
    import fxtlint

    return fxtlint.lint_buffer


def version() -> str:
    from ..spec._version import tool_version

    return tool_version()


def input_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--input-format", choices=INPUT_FORMATS, default="auto",
                        help="trace (FXT), log (structured log), or auto (default) to tell by the bytes")


def exclude_option(parser: argparse.ArgumentParser, default=()) -> None:
    parser.add_argument("--exclude", action="append", default=default, metavar="GLOB[,GLOB]",
                        help="skip files found in directories that match (name or path; repeatable)")


def output_format_option(parser: argparse.ArgumentParser, choices=OUTPUT_FORMATS) -> None:
    parser.add_argument(
        "--output-format",
        choices=choices,
        default="rich",
        help="rich: for people (plain text when not a terminal); json: one object on stdout",
    )
