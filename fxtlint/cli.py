"""The command line: the only place that touches paths, stdout and the terminal.

    fxtlint [options] PATH...        lint files, and directories (their *.fxt, recursively)
    fxtlint rules [--output-format]  list the rule registry
    fxtlint explain CODE             print one rule's docs

A first positional argument of exactly ``rules`` or ``explain`` is the subcommand
unless a file or directory of that name exists in the current directory, in which
case it is linted like any other path (run from another directory to reach the
subcommand; ``./rules`` is always a path).

Exit status: 0 when no file has an error-severity diagnostic, 1 when one does,
2 for a usage error or when a path could not be read (the other paths are still
linted and reported).
"""

from __future__ import annotations

import argparse
import mmap
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from ._diagnostics import Severity
from ._report import DEFAULT_PER_RULE_CAP, DiagnosticSink, FileReport

EXIT_OK, EXIT_ERRORS, EXIT_USAGE = 0, 1, 2
SUBCOMMANDS = ("rules", "explain")
OUTPUT_FORMATS = ("rich", "json")
INPUT_FORMATS = ("auto", "trace", "log")

EPILOG = """\
subcommands:
  fxtlint rules [--output-format rich|json]   list every rule: code, name, severity, status
  fxtlint explain CODE                        print a rule's docs and examples

A first argument of exactly "rules" or "explain" is a subcommand unless a file or
directory of that name exists in the current directory; then it is linted like any
other path (to reach the subcommand, run fxtlint from another directory).

exit status: 0 no errors, 1 an error-severity diagnostic in some file,
2 usage error or a path that could not be read.
Colour only on a terminal; NO_COLOR and FORCE_COLOR are honoured.
"""


# --- the rule registry and the linter, imported late so this module always imports


def _load_registry() -> list:
    from .rules import all_rules

    return list(all_rules())


def _lint_path():
    import fxtlint

    return fxtlint.lint_path


def _known_codes() -> dict[str, str] | None:
    """Upper-cased code -> code, or None while the registry is unavailable or empty."""
    try:
        rules = _load_registry()
    except ImportError:
        return None
    return {r.code.upper(): r.code for r in rules} or None


# --- argument parsing


def _codes(text: str) -> list[str]:
    codes = [c.strip() for c in text.split(",") if c.strip()]
    if not codes:
        raise argparse.ArgumentTypeError(f"no rule code in {text!r}")
    return codes


def _severity_override(text: str) -> tuple[str, Severity]:
    code, sep, level = text.partition("=")
    try:
        if not sep or not code.strip():
            raise KeyError
        return code.strip(), Severity.parse(level)
    except KeyError:
        raise argparse.ArgumentTypeError(
            f"expected CODE=error|warning|info, got {text!r}"
        ) from None


def _cap(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _output_format_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="rich",
        help="rich: for people (plain text when not a terminal); json: one object on stdout",
    )


def lint_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fxtlint",
        allow_abbrev=False,
        usage="%(prog)s [options] PATH...\n       %(prog)s rules | explain CODE",
        description="Strict validator for Fuchsia Trace Format (FXT) files.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or directories to search for *.fxt")
    _output_format_option(p)
    p.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
        default="auto",
        help="trace (FXT), log (structured log), or auto (default) to tell by the bytes",
    )
    p.add_argument(
        "--ignore",
        type=_codes,
        action="append",
        default=[],
        metavar="CODE[,CODE]",
        help="do not report these rules (repeatable)",
    )
    p.add_argument(
        "--severity",
        type=_severity_override,
        action="append",
        default=[],
        metavar="CODE=LEVEL",
        help="report CODE as error, warning or info (repeatable)",
    )
    p.add_argument(
        "--max-per-rule",
        type=_cap,
        default=DEFAULT_PER_RULE_CAP,
        metavar="N",
        help="keep at most N diagnostics per rule per file; counts stay exact (default %(default)s)",
    )
    p.add_argument("--no-hex", action="store_true", help="omit the hex views")
    p.add_argument("--quiet", action="store_true", help="print the per-file summaries only")
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return p


def rules_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fxtlint rules", description="List every rule.", allow_abbrev=False
    )
    _output_format_option(p)
    return p


def explain_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="fxtlint explain", description="Print a rule's docs.", allow_abbrev=False
    )
    p.add_argument("code", metavar="CODE")
    return p


def _version() -> str:
    from ._render_json import tool_version

    return tool_version()


def _first_positional(argv: list[str], parser: argparse.ArgumentParser) -> int | None:
    """Index in ``argv`` of the first positional argument before any ``--``,
    skipping option values."""
    takes_value = {
        s
        for a in parser._actions  # argparse keeps no public list of options
        if a.option_strings and a.nargs != 0
        for s in a.option_strings
    }
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":  # what follows is paths only
            return None
        if tok.startswith("-") and tok != "-":
            if tok in takes_value:
                i += 1
        else:
            return i
        i += 1
    return None


def _subcommand(argv: list[str], parser: argparse.ArgumentParser):
    """(name, argv without it) when argv names a subcommand, else None."""
    i = _first_positional(argv, parser)
    if i is None or argv[i] not in SUBCOMMANDS or os.path.exists(argv[i]):
        return None
    return argv[i], argv[:i] + argv[i + 1 :]


# --- running


def _error(message: str) -> None:
    print(f"fxtlint: error: {message}", file=sys.stderr)


def expand_paths(paths: list[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """Files to lint, in order, and (path, message) for paths that give none."""
    files: list[str] = []
    failures: list[tuple[str, str]] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob("*.fxt") if f.is_file())
            if found:
                files += found
            else:
                failures.append((p, "directory contains no .fxt files"))
        elif os.path.exists(p):
            files.append(p)
        else:
            failures.append((p, "no such file or directory"))
    return files, failures


@contextmanager
def _file_bytes(path: str):
    """The file's bytes for hex views, mapped rather than read; None if unreadable."""
    try:
        f = open(path, "rb")
    except OSError:
        yield None
        return
    with f:
        try:
            m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except (OSError, ValueError):  # empty file, pipe, special file
            yield f.read()
            return
        with m:
            yield m


def _resolve_codes(
    args: argparse.Namespace, parser: argparse.ArgumentParser
) -> tuple[frozenset[str], dict[str, Severity]]:
    known = _known_codes()

    def resolve(code: str, option: str) -> str:
        if known is None:
            return code
        try:
            return known[code.upper()]
        except KeyError:
            parser.error(f"unknown rule code {code!r} in {option} (see `fxtlint rules`)")

    ignored = frozenset(resolve(c, "--ignore") for group in args.ignore for c in group)
    overrides = {resolve(c, "--severity"): s for c, s in args.severity}
    return ignored, overrides


def run_lint(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from . import _render_json, _render_rich

    ignored, overrides = _resolve_codes(args, parser)
    lint_path = _lint_path()
    files, failures = expand_paths(args.paths)
    for path, message in failures:
        _error(f"{path}: {message}")

    rich = args.output_format == "rich"
    console = _render_rich.make_console() if rich else None
    reports: list[FileReport] = []
    for path in files:
        sink = DiagnosticSink(
            per_rule_cap=args.max_per_rule, severity_overrides=overrides, ignored=ignored
        )
        try:
            report = lint_path(path, input_format=args.input_format, sink=sink)
        except OSError as e:
            message = e.strerror or str(e)
            _error(f"{path}: {message}")
            failures.append((path, message))
            continue
        reports.append(report)
        if rich:
            want_hex = not (args.no_hex or args.quiet) and report.diagnostics
            if want_hex:
                with _file_bytes(path) as data:
                    _render_rich.render_report(console, report, data=data)
            else:
                _render_rich.render_report(
                    console, report, show_hex=False, quiet=args.quiet
                )

    if rich:
        if len(reports) + len(failures) > 1:
            console.print(_render_rich.total_line(reports, len(failures)))
    else:
        sys.stdout.write(_render_json.dumps(_render_json.render(reports, failures=failures)))

    if failures:
        return EXIT_USAGE
    return EXIT_ERRORS if any(r.has_errors for r in reports) else EXIT_OK


def run_rules(argv: list[str]) -> int:
    from . import _render_json, _render_rich

    args = rules_parser().parse_args(argv)
    rules = _load_registry()
    if args.output_format == "json":
        sys.stdout.write(_render_json.dumps(_render_json.render_rules(rules)))
    else:
        _render_rich.render_rules(_render_rich.make_console(), rules)
    return EXIT_OK


def find_rule(code: str, rules: list):
    for r in rules:
        if r.code.upper() == code.strip().upper():
            return r
    return None


def run_explain(argv: list[str]) -> int:
    from ._docs import rule_markdown

    args = explain_parser().parse_args(argv)
    rule = find_rule(args.code, _load_registry())
    if rule is None:
        _error(f"unknown rule code {args.code!r} (see `fxtlint rules`)")
        return EXIT_USAGE
    sys.stdout.write(rule_markdown(rule))
    return EXIT_OK


def _main(argv: list[str]) -> int:
    parser = lint_parser()
    sub = _subcommand(argv, parser)
    if sub is not None:
        name, rest = sub
        return run_rules(rest) if name == "rules" else run_explain(rest)
    args = parser.parse_intermixed_args(argv)
    return run_lint(args, parser)


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
        return EXIT_ERRORS
