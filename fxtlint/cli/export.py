"""``fxtlint export PATH [-o OUT.json]``: a trace as Trace Event Format JSON.

The Object Format (``traceEvents``, ``displayTimeUnit``), loadable in Perfetto and
chrome://tracing. What the recovering reader could not read is said on stderr.

Exit status: 0 everything was exported, 1 something was skipped (or the file is not
an FXT trace), 2 a usage error or an unreadable path.
"""

from __future__ import annotations

import argparse
import sys

from . import _common
from . import _buffers


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "export",
        help="export a trace to Trace Event Format JSON (Perfetto, chrome://tracing)",
        description="Decode a trace into the Trace Event Format (the JSON Object Format): durations as B/E, "
        "complete events as X, instants as i, counters as C, async as b/n/e, flows as s/t/f, process and "
        "thread names as M. ts and dur are microseconds, converted with the tick rate.",
        epilog="Exit status: 0 all exported, 1 something skipped (said on stderr), 2 usage error or "
        "unreadable path.",
        allow_abbrev=False,
    )
    p.add_argument("path", metavar="PATH", help="the trace to export")
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here instead of stdout")
    _common.input_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..export._export_tef import Export, export_walk
    from ..engine._lint import walk_for

    try:
        with _buffers.opened(args.path) as buf:
            export = Export()
            walk = walk_for(buf, (), input_format=args.input_format, emit=export.reader_diagnostic)
            if not walk.begin():
                _common.error(f"{args.path}: {export.not_fxt}; nothing exported")
                return _common.EXIT_ERRORS
            if args.output:
                with open(args.output, "w", encoding="utf-8") as out:
                    export_walk(walk, out, source=args.path, export=export)
            else:
                export_walk(walk, sys.stdout, source=args.path, export=export)
    except BrokenPipeError:
        raise  # stdout went away (`| head`): main() handles it
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    lines = export.skipped_lines()
    for line in lines:
        print(f"fxtlint: {args.path}: {line}", file=sys.stderr)
    return _common.EXIT_ERRORS if lines else _common.EXIT_OK
