"""``fxtlint conformance run|matrix``: grade an FXT reader on the conformance suite.

    fxtlint conformance run --reader "CMD ARGS" [--suite DIR] [--timeout S] [--json OUT]
                            [--skip GLOB]... [--stdin | --path] [--name LABEL] [--jobs N]
                            [--max-failures N] [--no-progress]
    fxtlint conformance matrix [RESULTS...] [--shipped] [--format markdown|html] [--view VIEW] [-o OUT]
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from . import _common


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "conformance", help="grade an FXT reader on the conformance suite",
        description="Run a reader's command on every case of the conformance suite and grade it "
        "(run), or put several readers' results side by side (matrix).",
        allow_abbrev=False,
    )
    sub = p.add_subparsers(title="commands", dest="conformance_command", metavar="COMMAND", required=True)

    r = sub.add_parser(
        "run", help="run a reader on every case and grade it",
        description="Run CMD once per case without a shell. Exit 0 = accepted, with the canonical JSON "
        "(`fxtlint decode`) on stdout; exit 1 = rejected (stdout may hold the records before the "
        "fault); any other exit, a signal or the timeout = crash. Ctrl-C or SIGTERM kills the running "
        "reader (its whole process group) and writes the cases graded so far. Exit status: 0 every case "
        "passed, 1 some did not (or --max-failures stopped the run), 2 usage error, missing suite or a "
        "command that cannot start, 128+N when stopped by signal N.",
        allow_abbrev=False,
    )
    r.add_argument("--reader", required=True, metavar='"CMD ARGS"', help="the reader's command, split like a shell")
    r.add_argument("--suite", type=Path, metavar="DIR",
                   help="the suite folder (default: the suite shipped with fxtlint)")
    r.add_argument("--timeout", type=float, default=10.0, metavar="S", help="seconds per case (default: 10)")
    r.add_argument("--json", type=Path, metavar="OUT", help="write the results file here")
    r.add_argument("--skip", action="append", default=[], metavar="GLOB",
                   help="skip cases matching GLOB (category/name or name); repeatable")
    mode = r.add_mutually_exclusive_group()
    mode.add_argument("--stdin", dest="stdin", action="store_true", default=True,
                      help="give the file on stdin (the default)")
    mode.add_argument("--path", dest="stdin", action="store_false", help="append the file's path to CMD")
    r.add_argument("--name", metavar="LABEL", help="the reader's name in results and matrices")
    r.add_argument("--jobs", type=int, default=1, metavar="N", help="cases run at once (default: 1)")
    r.add_argument("--max-failures", type=int, metavar="N",
                   help="stop after N crashes or timeouts in a row (a reader that hangs on everything)")
    r.add_argument("--no-progress", action="store_true", help="no progress line on a terminal")
    r.set_defaults(run=run_cmd)

    m = sub.add_parser(
        "matrix", help="several readers' results side by side",
        description="Render results files of `conformance run --json` as one matrix.",
        allow_abbrev=False,
    )
    m.add_argument("results", nargs="*", type=Path, metavar="RESULTS")
    m.add_argument("--shipped", action="store_true",
                   help="add the results that ship with the suite (fxtlint's own reader and fxt 0.3.0, graded by "
                   "this version of the suite), from any folder")
    m.add_argument("--format", choices=("markdown", "html"), default="markdown")
    m.add_argument("--view", choices=("full", "differences", "sections"), default="full",
                   help="markdown: every view (full), only the cases where the readers differ, or only the "
                   "scores per spec section (after the summary)")
    m.add_argument("-o", "--output", type=Path, metavar="OUT", help="write here instead of stdout")
    m.set_defaults(run=matrix_cmd)


def run_cmd(args: argparse.Namespace) -> int:
    from rich.console import Console

    from ..reader_suite._runner import (
        ConformanceError,
        Readers,
        default_suite,
        passed,
        run_suite,
        stop_on_signals,
        warnings,
        write_results,
    )
    from ..render._reader_matrix import choices, failures, headline, summary_table, unreported, warned

    try:
        argv = shlex.split(args.reader)
    except ValueError as e:
        _common.error(f"--reader: {e}")
        return _common.EXIT_USAGE
    if args.timeout <= 0 or args.jobs < 1 or (args.max_failures is not None and args.max_failures < 1):
        _common.error("--timeout must be positive, and --jobs and --max-failures at least 1")
        return _common.EXIT_USAGE
    readers = Readers()
    err_console = Console(stderr=True)
    try:
        with _progress(err_console, enabled=not args.no_progress) as progress, \
                stop_on_signals(readers) as received:
            results = run_suite(argv, args.suite or default_suite(), stdin=args.stdin, timeout=args.timeout,
                                skip=args.skip, name=args.name, jobs=args.jobs, progress=progress,
                                max_failures=args.max_failures, readers=readers)
        if args.json is not None:
            write_results(results, args.json)
    except ConformanceError as e:
        _common.error(str(e))
        return _common.EXIT_USAGE
    except OSError as e:
        _common.error(f"cannot write {args.json}: {e.strerror or e}")
        return _common.EXIT_USAGE
    # piped or redirected, rich would wrap lines and squeeze the table into 80 columns:
    # there a line is as long as it is, and the table as wide as its cells
    console = Console(soft_wrap=True)
    if not console.is_terminal:
        console.width = _UNWRAPPED
    console.print(summary_table(results))
    console.print(headline(results), markup=False, highlight=False)
    if choices(results):
        console.print(choices(results), markup=False, highlight=False)
    if warned(results):
        console.print(warned(results), markup=False, highlight=False)
    if unreported(results):
        console.print(f"not reported (counted apart, not graded): {len(unreported(results))} cases whose only "
                      "differences are argument types the reader declared it cannot tell apart",
                      markup=False, highlight=False)
    # beside the scores it qualifies, not under a list of hundreds of failures
    console.file.flush()
    for w in warnings(results):
        err_console.print(f"warning: {w}", markup=False, highlight=False, soft_wrap=True)
    for c in failures(results):
        console.print(f"{c['grade']:5}  {c['case']}: {c['detail']}", markup=False, highlight=False)
    if received:
        return 128 + received[0]
    return _common.EXIT_OK if passed(results) else _common.EXIT_ERRORS


_UNWRAPPED = 10_000  # columns: wider than any line the run prints


def _progress(console, *, enabled: bool):
    """A progress line on a terminal: cases graded, grades so far, the last case."""
    from contextlib import contextmanager

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    @contextmanager
    def bar():
        if not enabled or not console.is_terminal:
            yield None
            return
        counts = {"pass": 0, "fail": 0, "wrong": 0, "crash": 0}
        progress = Progress(TextColumn("grading"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            TextColumn("{task.description}"), console=console, transient=True)
        task = progress.add_task("", total=None)

        def advance(result, done, total):
            if result.grade in counts:
                counts[result.grade] += 1
            tally = " ".join(f"{g} {n}" for g, n in counts.items() if n)
            progress.update(task, completed=done, total=total, description=f"{tally}  last: {result.case}")

        with progress:
            yield advance

    return bar()


def matrix_cmd(args: argparse.Namespace) -> int:
    from ..reader_suite._runner import ConformanceError, default_suite, load_results
    from ..render._reader_matrix import matrix_html, matrix_markdown

    paths = list(args.results)
    if args.shipped:
        paths += shipped_results(default_suite())
    if not paths:
        _common.error("matrix: give results files, --shipped, or both")
        return _common.EXIT_USAGE
    try:
        docs = [load_results(p) for p in paths]
    except ConformanceError as e:
        _common.error(str(e))
        return _common.EXIT_USAGE
    text = matrix_html(docs) if args.format == "html" else matrix_markdown(docs, args.view)
    if args.output is None:
        sys.stdout.write(text)
        return _common.EXIT_OK
    try:
        args.output.write_text(text, encoding="utf-8")
    except OSError as e:
        _common.error(f"cannot write {args.output}: {e.strerror or e}")
        return _common.EXIT_USAGE
    return _common.EXIT_OK


def shipped_results(suite: Path) -> list[Path]:
    """The results files shipped beside the suite (its ``results/`` folder): fxtlint's
    own reader first, then the others by name."""
    found = sorted((suite / "results").glob("*.json"))
    return sorted(found, key=lambda p: (p.stem != "fxtlint", p.stem))
