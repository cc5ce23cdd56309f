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

argparse parses in ``_parser``, imported when a run needs it: a verb whose module has
``parsed_simply(argv)`` (check) reads an argv of paths and plain options itself, the
namespace argparse would make, or None where argparse must decide (anything else,
errors included), so ``fxtlint FILE`` builds no parser (bench/startup.py).

``console`` is the ``fxtlint`` command (``[project.scripts]``, and ``python -m fxtlint``):
importing this package imports nothing else of fxtlint (``_common``, and with it the
engine, the rules and the tables, is imported by ``main``), so that the command's entry,
which pip's script imports with the collector on, takes the imports under its own rules.
"""

from __future__ import annotations

import gc
import os
import sys

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
    """``COMMANDS``: every verb's module, in the order of ``VERBS`` (imported on first use);
    ``build_parser``, ``Parser``: ``_parser``'s (argparse imported on first use)."""
    if name == "COMMANDS":
        return tuple(command(verb) for verb in VERBS)
    if name in ("build_parser", "Parser"):
        from . import _parser

        return getattr(_parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _main(argv: list[str]) -> int:
    from . import _common

    if not argv:
        from ._parser import build_parser

        build_parser()[0].print_usage(sys.stderr)
        _common.error("no command or path given (try `fxtlint --help`)")
        return _common.EXIT_USAGE
    if argv[0] in ("-h", "--help", "--version"):
        from ._parser import build_parser

        build_parser()[0].parse_args(argv[:1])  # prints and exits
    verb, rest = (argv[0], argv[1:]) if argv[0] in VERBS else (DEFAULT_COMMAND, argv)
    simply = getattr(command(verb), "parsed_simply", None)
    args = None if simply is None else simply(rest)
    if args is None:
        from ._parser import parse_verb

        args = parse_verb(verb, rest)
    try:
        return args.run(args)
    except _common.UsageError as e:
        _common.error(str(e))
        return _common.EXIT_USAGE


def main(argv: list[str] | None = None) -> int:
    """Run fxtlint on ``argv`` (default ``sys.argv[1:]``) and return the exit status."""
    from . import _common

    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except SystemExit as e:  # argparse: --help/--version (0), usage errors (2)
        return e.code if isinstance(e.code, int) else _common.EXIT_OK if e.code is None else _common.EXIT_USAGE
    except BrokenPipeError:  # `fxtlint big.fxt | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return _common.EXIT_ERRORS


def console() -> int:
    """The ``fxtlint`` command: pip's console script (``from fxtlint.cli import console``)
    and ``python -m fxtlint`` both call this, at the start of a process.

    The command line's modules (``_common``: the engine, the rules, the tables) are
    imported with the collector off and what they made is then frozen (``gc.freeze``: kept
    out of every later collection, as a module's objects live as long as the process): a
    small lint's imports make tens of thousands of objects and nothing that needs
    collecting (about 3 ms of a 60 ms start, bench/startup.py). Then ``main``, and every
    object left frozen, so that the interpreter's collections at exit do not walk them
    (about 8 ms of a small lint). Done here, not at import: ``import fxtlint.cli`` (a
    library caller of ``main``) leaves its collector as it was."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        from . import _common  # noqa: F401  (imported here, collecting nothing)
    finally:
        gc.freeze()
        if enabled:
            gc.enable()
    status = main()
    gc.freeze()
    return status
