"""``fxtlint report PATH... [-o DIR] [--format html|json|markdown] [--expect EVENTS.json [--expect-mode exact]]``.

A conformance report per trace, combined into one document when several traces are
given; each directory given is one writer, a column of the compatibility matrix.
Without ``-o`` one format goes to stdout (markdown by default); with ``-o DIR`` each
format requested (all three by default) is written to ``DIR/report.{html,json,md}``.

Exit status: 0 every trace conforms (and matches EVENTS.json), 1 one does not,
2 a usage error or a path that could not be read (the others are still reported).
"""

from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from pathlib import Path

from . import _buffers, _common
from ._buffers import STDIN, expand_paths
from ._progress import counting, reading_bar

FORMATS = {"markdown": "md", "json": "json", "html": "html"}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="conformance report of traces: verdict, rules, spec coverage, statistics",
        description="Write a conformance report for each trace (one combined report for several; "
        "each directory is one writer, a column of the compatibility matrix).",
        epilog="With -o DIR every format asked for (default: all three) is written to DIR/report.<ext>; "
        "without it one format (default markdown) goes to stdout. EVENTS.json lists expected events in "
        "the Trace Event Format subset that `fxtlint export` writes; ts in microseconds, or in ticks "
        'with {"tsUnit": "ticks", "traceEvents": [...]}. Exit status: 0 conforming, 1 not, '
        "2 usage error or unreadable path.",
        allow_abbrev=False,
    )
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="trace files, directories (one writer each: every *.fxt inside, in any case, hidden "
                   "folders skipped), or - for standard input")
    p.add_argument("-o", "--output-dir", metavar="DIR", help="write report.<ext> files into DIR")
    p.add_argument("--format", action="append", choices=tuple(FORMATS), default=[], dest="formats",
                   help="html, json or markdown (repeatable)")
    p.add_argument("--expect", metavar="EVENTS.json", help="the events each trace must hold")
    p.add_argument("--expect-mode", choices=("subset", "exact"), default="subset",
                   help="subset (default): the expected events appear in order, others may too; "
                   "exact: every written event must be expected")
    _common.input_format_option(p)
    _common.exclude_option(p, default=None)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (one is drawn on a terminal when a trace takes over a second)")
    p.set_defaults(run=run)


def render(doc: dict, fmt: str) -> str:
    if fmt == "json":
        import json

        return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
    if fmt == "html":
        from ..render._report_html import render as html

        return html(doc)
    from ..render._report_markdown import render as markdown

    return markdown(doc)


@contextmanager
def _input(path: str, progress):
    if path == STDIN:
        yield sys.stdin.buffer.read()
    else:
        with reading_bar(f"reporting {os.path.basename(path)}", enabled=progress) as advance, \
                _buffers.opened(path) as buf:
            yield counting(buf, advance)


def run(args: argparse.Namespace) -> int:
    from ..writer_report._conformance_report import combined_report, trace_report

    formats = list(dict.fromkeys(args.formats)) or (list(FORMATS) if args.output_dir else ["markdown"])
    if not args.output_dir and len(formats) > 1:
        raise _common.UsageError("several --format values need -o DIR")
    expected = None
    if args.expect:
        from ..writer_report._expect import ExpectError, load_expected

        try:
            text = Path(args.expect).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise _common.UsageError(f"{args.expect}: {getattr(e, 'strerror', None) or e}") from None
        try:
            expected = load_expected(text, args.expect)
        except ExpectError as e:
            raise _common.UsageError(str(e)) from None

    from ..rules._selection import split

    files, failures = expand_paths(args.paths, split(args.exclude or []))
    for path, message in failures:
        _common.error(f"{path}: {message}")
    traces = []
    for path, writer in files:
        try:
            with _input(path, not args.no_progress) as buf:
                t = trace_report(buf, path=path, input_format=args.input_format, writer=writer)
                if expected is not None and t["verdict"]["status"] != "not_fxt":
                    from ..export._export_tef import iter_events
                    from ..writer_report._expect import compare

                    t["expect"] = compare(expected[0], iter_events(buf, input_format=args.input_format),
                                          expected[1], args.expect_mode)
        except OSError as e:
            message = e.strerror or str(e)
            _common.error(f"{path}: {message}")
            failures.append((path, message))
            continue
        if t["verdict"]["status"] == "not_fxt":
            print(f"fxtlint: {path}: {t['verdict']['note']}", file=sys.stderr)
        traces.append(t)

    doc = combined_report(traces, failures=failures)
    if args.output_dir:
        try:
            os.makedirs(args.output_dir, exist_ok=True)
            for fmt in formats:
                out = Path(args.output_dir) / f"report.{FORMATS[fmt]}"
                out.write_text(render(doc, fmt), encoding="utf-8")
                print(f"wrote {out}", file=sys.stderr)
        except OSError as e:
            _common.error(f"{args.output_dir}: {e.strerror or e}")
            return _common.EXIT_USAGE
    else:
        sys.stdout.write(render(doc, formats[0]))
    if failures:
        return _common.EXIT_USAGE
    return _common.EXIT_OK if doc["verdict"]["conforming"] else _common.EXIT_ERRORS
