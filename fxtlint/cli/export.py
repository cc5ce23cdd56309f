"""``fxtlint export PATH [-o OUT.json]``: a trace as Trace Event Format JSON.

The Object Format (``traceEvents``, ``displayTimeUnit``), loadable in Perfetto and
chrome://tracing. What the recovering reader could not read is said on stderr.

Exit status: 0 everything was exported, 1 something was skipped (or the file is not
an FXT trace, or it is a structured-log stream: it has no events for the Trace Event
Format, so every record is skipped and the document has none), 2 a usage error or an
unreadable path.
"""

from __future__ import annotations

import argparse
import sys

from . import _buffers, _common
from ._progress import counting, reading_bar


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "export",
        help="export a trace to Trace Event Format JSON (Perfetto, chrome://tracing)",
        description="Decode a trace into the Trace Event Format (the JSON Object Format): durations as B/E, "
        "complete events as X, instants as i, counters as C, async as b/n/e, flows as s/t/f, process and "
        "thread names as M. ts and dur are microseconds, converted with the tick rate.",
        epilog="Exit status: 0 all exported, 1 something skipped (said on stderr; a structured-log stream "
        "has no Trace Event Format events, so all of it is), 2 usage error or unreadable path.",
        allow_abbrev=False,
    )
    p.add_argument("path", metavar="PATH", help="the trace to export; - reads stdin as it arrives")
    p.add_argument("-o", "--output", metavar="OUT.json", help="write here instead of stdout")
    _common.input_format_option(p)
    _no_progress_option(p, "export")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..engine._feeder import begins
    from ..engine._file import FileSource
    from ..engine._lint import walk_for
    from ..engine._native import tune_allocator
    from ..export._export_tef import Export, export_stream, export_walk
    from ._stream import stdin_chunks

    tune_allocator()  # this process is ours: reuse the blocks of the walk's text, stop after stop
    export = Export()
    try:
        if args.path == "-":  # standard input, exported as it arrives (written as it is read)
            _to_output(args, lambda out: export_stream(stdin_chunks(), out, source="-", export=export,
                                                       input_format=args.input_format))
        else:
            with reading_bar("exporting", enabled=not args.no_progress) as advance, \
                    _buffers.opened(args.path) as buf:
                counting(buf, advance)
                if isinstance(buf, FileSource):  # a larger file: read and exported a chunk at a time
                    probe = Export()
                    if not begins(buf, lambda b, c: walk_for(b, c, input_format=args.input_format,
                                                             emit=probe.reader_diagnostic, resync=True)):
                        _common.error(f"{args.path}: {probe.not_fxt}; nothing exported")
                        return _common.EXIT_ERRORS
                    _to_output(args, lambda out: export_stream(buf, out, source=args.path, export=export,
                                                               input_format=args.input_format))
                else:
                    walk = walk_for(buf, (), input_format=args.input_format, emit=export.reader_diagnostic,
                                    resync=True)
                    if not walk.begin():
                        _common.error(f"{args.path}: {export.not_fxt}; nothing exported")
                        return _common.EXIT_ERRORS
                    _to_output(args, lambda out: export_walk(walk, out, source=args.path, export=export))
    except BrokenPipeError:
        raise  # stdout went away (`| head`): main() handles it
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    if export.not_fxt:  # a stream says so once its first bytes are in
        _common.error(f"{args.path}: {export.not_fxt}; nothing exported")
        return _common.EXIT_ERRORS
    lines = export.skipped_lines()
    for line in lines:
        print(f"fxtlint: {args.path}: {line}", file=sys.stderr)
    return _common.EXIT_ERRORS if lines else _common.EXIT_OK


def _to_output(args: argparse.Namespace, write) -> None:
    """``write(out)`` to ``-o``'s file, or to standard output."""
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            write(out)
    else:
        write(sys.stdout)


def _no_progress_option(p, verb: str) -> None:
    p.add_argument("--no-progress", action="store_true",
                   help=f"no progress bar (one is drawn on a terminal when the {verb} takes over a second)")
