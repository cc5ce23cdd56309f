"""The command line: the only place that touches paths, stdout and the terminal.

    fxtlint [check] [options] PATH...   lint files and directories (the default verb)
    fxtlint rules                       list the rule registry
    fxtlint explain CODE                print one rule's docs
    fxtlint report PATH...              conformance report (html, json, markdown)
    fxtlint export PATH                 Trace Event Format JSON
    fxtlint repair IN -o OUT            the most of a trace that can be made conforming
    fxtlint slice IN -o OUT --from T    pieces of a trace that each open on their own

One module per subcommand (ruff's ``ruff check``, ``ruff rule``): each has
``register(subparsers)``, which adds its parser and sets ``run``, and
``run(args) -> int``, the exit status. A first argument that is not a verb is a
path or an option of ``check``, so ``fxtlint file.fxt`` keeps working; a file named
like a verb is linted with ``fxtlint check NAME``.
"""

from __future__ import annotations

import argparse
import gc
import os
import sys

from ..engine import _native
from . import _common
from ._common import EXIT_OK, EXIT_USAGE, UsageError

# the verbs, each a module of this package of the same name, in the order of --help; a
# run imports the one it runs (``fxtlint FILE``: check), ``--help`` all of them
VERBS = ("check", "rules", "explain", "report", "export", "decode", "conformance", "repair", "slice")
DEFAULT_COMMAND = "check"


def command(verb: str):
    """The module of ``verb`` (imported as an import statement does, so that ``python -X
    importtime`` lists it, which ``importlib.import_module`` does not)."""
    name = f"{__name__}.{verb}"
    __import__(name)
    return sys.modules[name]


def __getattr__(name: str):
    """``COMMANDS``: every verb's module, in the order of ``VERBS`` (imported on first use)."""
    if name == "COMMANDS":
        return tuple(command(verb) for verb in VERBS)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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


def _parse(subparser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """Options may follow paths, except under a verb with verbs of its own."""
    nested = any(isinstance(a, argparse._SubParsersAction) for a in subparser._actions)
    return subparser.parse_args(argv) if nested else subparser.parse_intermixed_args(argv)


def _main(argv: list[str]) -> int:
    if not argv:
        build_parser()[0].print_usage(sys.stderr)
        _common.error("no command or path given (try `fxtlint --help`)")
        return EXIT_USAGE
    if argv[0] in ("-h", "--help", "--version"):
        build_parser()[0].parse_args(argv[:1])  # prints and exits
    verb, rest = (argv[0], argv[1:]) if argv[0] in VERBS else (DEFAULT_COMMAND, argv)
    _, subparsers = build_parser((verb,))
    args = _parse(subparsers.choices[verb], rest)
    try:
        return args.run(args)
    except UsageError as e:
        _common.error(str(e))
        return EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Run fxtlint on ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except SystemExit as e:  # argparse: --help/--version (0), usage errors (2)
        return e.code if isinstance(e.code, int) else EXIT_OK if e.code is None else EXIT_USAGE
    except BrokenPipeError:  # `fxtlint big.fxt | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return _common.EXIT_ERRORS


def console() -> int:
    """The ``fxtlint`` command (and ``python -m fxtlint``): ``main``, then every object
    left frozen (``gc.freeze``), so that the interpreter's collections at exit do not walk
    them (about 8 ms of a small lint, bench/startup.py). Only at the end of a process: a
    library caller of ``main`` keeps its collector as it was."""
    status = main()
    gc.freeze()
    return status
