"""``fxtlint decode FILE``: the canonical JSON decoding of a trace (the conformance suite's form)."""

from __future__ import annotations

import argparse
import sys

from . import _buffers, _common
from ._progress import counting, reading_bar


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "decode", help="print a trace's canonical JSON decoding",
        description="Print the canonical JSON decoding of a trace: its records with fields by the spec "
        "tables' names, strings and threads resolved, 64-bit integers as strings. Exit 0: the file "
        "reads (writer errors a reader may read through, such as set reserved bits, go to stderr as "
        "notes). Exit 1: it has a fault a reader must reject; the records before it are printed and the "
        "errors go to stderr. This is the conformance suite's reader protocol.",
        allow_abbrev=False,
    )
    p.add_argument("file", metavar="FILE", help="a trace archive; - reads stdin as it arrives")
    p.add_argument("--strict", action="store_true",
                   help="reject every error the linter reports, not only the faults a reader must reject")
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (one is drawn on a terminal when the decoding takes over a second)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..engine._native import tune_allocator
    from ..reader_suite._canonical import decode_to
    from ._stream import stdin_chunks

    tune_allocator()  # this process is ours: reuse the blocks of the walk's text, stop after stop

    try:
        if args.file == "-":
            result = decode_to(None, sys.stdout, strict=args.strict, stream=stdin_chunks())
        else:
            with reading_bar("decoding", enabled=not args.no_progress) as advance, \
                    _buffers.opened(args.file) as data:
                counting(data, advance)
                result = decode_to(data, sys.stdout, strict=args.strict)
    except BrokenPipeError:
        raise  # stdout went away (`| head`): main() handles it
    except OSError as e:
        _common.error(f"cannot read {args.file}: {e.strerror or e}")
        return _common.EXIT_USAGE
    for message in result.errors:
        print(f"{args.file}: {message}", file=sys.stderr)
    for message in result.notes:
        print(f"{args.file}: note: {message}", file=sys.stderr)
    return _common.EXIT_OK if result.accepted else _common.EXIT_ERRORS
