"""``fxtlint check PATH...`` (the default verb): lint files, and directories (their
``*.fxt``, recursively).

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

from .._diagnostics import Severity
from .._report import DEFAULT_PER_RULE_CAP, DiagnosticSink, FileReport
from . import _common
from ._common import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, UsageError, error as _error

INPUT_FORMATS = ("auto", "trace", "log")

EPILOG = """\
exit status: 0 no errors, 1 an error-severity diagnostic in some file,
2 usage error or a path that could not be read.
Colour only on a terminal; NO_COLOR and FORCE_COLOR are honoured.
"""


def _known_codes() -> dict[str, str]:
    """Upper-cased code -> code. A registry that fails to import is a bug and raises."""
    return {r.code.upper(): r.code for r in _common.load_registry()}


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


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "check",
        help="lint FXT files (the default: `fxtlint FILE` is `fxtlint check FILE`)",
        description="Strict validator for Fuchsia Trace Format (FXT) files.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        allow_abbrev=False,
    )
    add_arguments(p)
    p.set_defaults(run=run)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", metavar="PATH", help="files, or directories to search for *.fxt")
    _common.output_format_option(p)
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




# --- running


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


def _resolve_codes(args: argparse.Namespace) -> tuple[frozenset[str], dict[str, Severity]]:
    known = _known_codes()

    def resolve(code: str, option: str) -> str:
        try:
            return known[code.upper()]
        except KeyError:
            raise UsageError(f"unknown rule code {code!r} in {option} (see `fxtlint rules`)") from None

    ignored = frozenset(resolve(c, "--ignore") for group in args.ignore for c in group)
    overrides = {resolve(c, "--severity"): s for c, s in args.severity}
    return ignored, overrides


def run(args: argparse.Namespace) -> int:
    from .. import _render_json, _render_rich

    ignored, overrides = _resolve_codes(args)
    lint_path = _common.lint_path()
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
