"""``fxtlint slice IN -o OUT --from T --to T`` (or ``--split-size``, ``--split-time``):
pieces of a trace that each open on their own.

A time is a timestamp in the trace's ticks (``123456``) or a duration from the trace's
first timestamp in its own time (``1.5s``, ``200ms``, ``10us``, ``500ns``), converted
with its tick rate. Sizes take B, KB, MB, GB (powers of 1000) or KiB, MiB, GiB.

Exit status: 0 every piece lints with no error, 1 one does not (or nothing was in the
range), 2 a usage error (a time that does not parse, an inverted range or one outside
the trace: the message names the trace's time range; OUT is IN; an unreadable path).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from . import _common
from .repair import input_buffer, same_file

_TIME = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h)?\s*$")
_NS = {"ns": 1, "us": 10**3, "µs": 10**3, "ms": 10**6, "s": 10**9, "m": 60 * 10**9, "h": 3600 * 10**9}
_SIZE = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(b|kb|mb|gb|kib|mib|gib)?\s*$", re.I)
_BYTES = {"b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "slice",
        help="cut a trace by time range, size or duration into pieces that each open on their own",
        description="Write the records of a time range (--from/--to), or every piece of --split-size bytes or "
        "--split-time of trace time, each piece starting with the magic record and, per provider, the state "
        "its records need (provider, tick rate, the string and thread registrations they read, the kernel "
        "objects naming their processes and threads). Durations, async operations and flows cut by a "
        "boundary are begun or ended there, marked by an argument named fxtlint.",
        epilog="Times: a timestamp in ticks (123456) or a duration from the trace's start (1.5s, 200ms, 10us, "
        "500ns). Sizes: 200MB, 64MiB, 4096. Exit status: 0 every piece lints with no error, 1 one does not, "
        "2 usage error (the message names the trace's time range).",
        allow_abbrev=False,
    )
    p.add_argument("path", metavar="IN", help="the trace to slice; - reads stdin")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the slice; with --split-*, pieces are OUT-0001.fxt, OUT-0002.fxt, ...")
    p.add_argument("--from", dest="start", metavar="T", help="first time kept (default: the start)")
    p.add_argument("--to", dest="end", metavar="T", help="last time kept (default: the end)")
    p.add_argument("--split-size", metavar="SIZE", help="pieces of at most SIZE bytes of records each")
    p.add_argument("--split-time", metavar="DURATION", help="pieces of DURATION of trace time each")
    _common.output_format_option(p)
    p.set_defaults(run=run)


class _Usage(Exception):
    pass


def scratch_file(folder: str):
    """Where a piece's records wait until its prefix is known (deleted when closed)."""
    import tempfile

    return tempfile.TemporaryFile(dir=folder)  # the slicer closes it


def piece_path(out: str, i: int) -> str:
    stem, ext = os.path.splitext(out)
    return f"{stem}-{i:04d}{ext or '.fxt'}"


def parse_size(text: str) -> int:
    m = _SIZE.match(text)
    if not m or float(m[1]) * _BYTES[(m[2] or "b").lower()] < 8:
        raise _Usage(f"--split-size {text!r}: give a size of at least 8 bytes, as 4096, 64KiB, 200MB or 1GB")
    return int(float(m[1]) * _BYTES[(m[2] or "b").lower()])


def describe(span) -> str:
    """The trace's time range, for a usage error."""
    if span is None:
        return "the trace has no timestamps"
    lo, hi, rate = span
    seconds = (hi - lo) / rate
    return f"the trace's time range is {lo} .. {hi} ticks (0 .. {seconds:.9g} s from its start at {rate} ticks/s)"


def parse_time(text: str, option: str, span, *, duration: bool = False) -> int:
    """Ticks: a timestamp, or with ``duration`` a length of trace time; a number with a
    unit is a duration from the start converted with the tick rate."""
    m = _TIME.match(text)
    if not m or span is None:
        raise _Usage(f"{option} {text!r} does not parse as ticks (123456) or a duration (1.5s, 200ms, 10us, "
                     f"500ns); {describe(span)}")
    lo, _, rate = span
    if m[2] is None:
        if "." in m[1]:
            raise _Usage(f"{option} {text!r}: ticks are whole numbers; {describe(span)}")
        return int(m[1])
    ticks = round(float(m[1]) * _NS[m[2]] * rate / 10**9)
    return ticks if duration else lo + ticks


def _cutter(args, buf):
    from ..rewrite._slice import Cutter, time_range

    modes = [args.start is not None or args.end is not None, args.split_size is not None,
             args.split_time is not None]
    if sum(modes) != 1:
        raise _Usage("give one of --from/--to, --split-size, --split-time")
    if args.split_size is not None:
        return Cutter(size=parse_size(args.split_size))
    span = time_range(buf)
    if args.split_time is not None:
        ticks = parse_time(args.split_time, "--split-time", span, duration=True)
        if ticks <= 0:
            raise _Usage(f"--split-time {args.split_time!r} is no time at all; {describe(span)}")
        return Cutter(span=ticks)
    if span is None:
        raise _Usage(f"--from/--to: {describe(span)}")
    start = parse_time(args.start, "--from", span) if args.start is not None else None
    end = parse_time(args.end, "--to", span) if args.end is not None else None
    lo, hi, _ = span
    if start is not None and end is not None and start > end:
        raise _Usage(f"--from {args.start} is after --to {args.end}; {describe(span)}")
    if (start is not None and start > hi) or (end is not None and end < lo):
        which = f"--from {args.start}" if start is not None and start > hi else f"--to {args.end}"
        raise _Usage(f"{which} is outside the trace; {describe(span)}")
    return Cutter(start=start, end=end)


def run(args: argparse.Namespace) -> int:
    from ..engine._lint import lint_path
    from ..rewrite._slice import slice_trace

    split = args.split_size is not None or args.split_time is not None
    if same_file(args.path, args.output) or (split and same_file(args.path, piece_path(args.output, 1))):
        _common.error(f"{args.output}: the output is the input; write the slice to another path")
        return _common.EXIT_USAGE
    paths: list[str] = []

    def open_out(i: int):
        path = piece_path(args.output, i) if split else args.output
        paths.append(path)
        return open(path, "wb", buffering=1 << 20)  # the slicer closes it

    try:
        with input_buffer(args.path, args.output) as buf:
            try:
                cutter = _cutter(args, buf)
            except _Usage as e:
                _common.error(str(e))
                return _common.EXIT_USAGE
            folder = os.path.dirname(os.path.abspath(args.output))
            log = slice_trace(buf, open_out, cutter, scratch=lambda: scratch_file(folder))
        reports = [lint_path(p, input_format="trace") for p in paths]
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    pieces = [{"path": p, "records": info.records, "records_added": info.added, "bytes_of_records": info.bytes,
               "first_timestamp": info.first_ts, "last_timestamp": info.last_ts,
               "errors": sum(1 for d in r.diagnostics if d.severity.label == "error"),
               "warnings": sum(1 for d in r.diagnostics if d.severity.label == "warning")}
              for p, info, r in zip(paths, log.pieces, reports)]
    if args.output_format == "json":
        json.dump({"input": args.path, "records_in": log.records_in, "pieces": pieces}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for piece in pieces:
            print(f"{piece['path']}: {piece['records']} records ({piece['bytes_of_records']} bytes) from "
                  f"{piece['first_timestamp']} to {piece['last_timestamp']} ticks, {piece['records_added']} "
                  f"records written for it; {piece['errors']} error(s), {piece['warnings']} warning(s)")
        if not pieces:
            why = "it is not an FXT trace" if log.not_fxt else "no record in the range"
            print(f"{args.path}: {why}: nothing written")
    if not pieces or any(p["errors"] for p in pieces):
        return _common.EXIT_ERRORS
    return _common.EXIT_OK
