"""The command line's argparse parser: ``fxtlint``'s, with the subparsers of the verbs a
run asks for (each verb's module adds its own: ``register``).

Imported only where argparse parses: ``fxtlint FILE`` with options of the plain kinds
(``check.parsed_simply``) needs neither argparse, nor gettext and locale, which argparse
calls for every message it makes (about 7 ms of a small lint's start, bench/startup.py).
"""

from __future__ import annotations

import argparse
import os
import sys

from ..engine import _native
from . import VERBS, _common, command


class _Version(argparse.Action):
    """``--version``: the version and which engine lints, on one line (argparse's own
    version action would wrap it)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and the engine that lints, and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_common.version()} ({_native.describe()})")
        parser.exit()


def _columns() -> int:
    """``shutil.get_terminal_size().columns``, which argparse's help formatter asks for
    each time one is made (every ``add_argument``), without importing shutil (and with it
    the compressors' modules, 2-3 ms of a small lint's start, bench/startup.py)."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    """argparse's parser (every verb's subparser is one too: ``add_subparsers`` makes its
    own class), its formatters given the width argparse would read from shutil."""

    def _get_formatter(self):
        # (every formatter class here is a HelpFormatter, which takes a width)
        return self.formatter_class(prog=self.prog, width=_columns() - 2)  # type: ignore[call-arg]


def build_parser(verbs: tuple[str, ...] = VERBS) -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    """The parser, with the subparsers of ``verbs`` (a run builds only its own verb's: each
    subparser says the same whichever others are built beside it)."""
    parser = Parser(
        prog="fxtlint",
        description="Strict validator, recovering reader and fuzzing toolkit for the "
        "Fuchsia Trace Format (FXT).",
        epilog="`fxtlint PATH...` is `fxtlint check PATH...`. "
        "`fxtlint COMMAND --help` describes each command.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action=_Version)
    subparsers = parser.add_subparsers(title="commands", dest="command", metavar="COMMAND")
    for verb in verbs:
        command(verb).register(subparsers)
    return parser, subparsers


def parse(subparser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Options may follow paths, except under a verb with verbs of its own."""
    nested = any(isinstance(a, argparse._SubParsersAction) for a in subparser._actions)
    return subparser.parse_args(argv) if nested else subparser.parse_intermixed_args(argv)


def parse_verb(verb: str, argv: list[str]) -> argparse.Namespace:
    """``argv`` (what follows the verb) parsed by ``verb``'s subparser."""
    _, subparsers = build_parser((verb,))
    return parse(subparsers.choices[verb], argv)
