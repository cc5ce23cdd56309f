"""``fxtlint slice IN -o OUT --from T --to T`` (or ``--split-size``, ``--split-time``,
``--split-archives``): pieces of a trace that each open on their own.

IN is read in place (``cli/_rewrite_io``); standard input is read once as it arrives,
or spooled to a temporary file first when the options are read against the trace's
time range (``--from``/``--to``, a ``--split-time`` in ticks). Each piece is written as a
``.part`` file renamed once whole; an interrupted run removes every piece it wrote.

Times are the trace's own time: each provider's timestamps read through its tick rate
(in effect at each record), so one time cuts every provider at the same instant. A time
is a duration from the trace's start, its first instant across every provider (``1.5s``,
``200ms``, ``10us``, ``500ns``), read exactly (no float); or a timestamp in ticks
(``123456``) of the clock of the trace's start (its provider's rate). A record is kept
when its own instant is in the range. Sizes take B, KB, MB, GB (powers of 1000) or KiB,
MiB, GiB.

Exit status: 0 every piece lints with no error, 1 one does not (or nothing was in the
range), 2 a usage error (a time that does not parse, an inverted range or one outside
the trace: the message names the trace's time range; OUT is IN; an unreadable path).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sys
from contextlib import contextmanager
from fractions import Fraction

from ..spec._time import duration_text, instant_text, rate_text, reading_rate, seconds
from . import _common
from ._progress import reading_bar
from ._rewrite_io import Outputs, interrupted_status, interruptible, opened_input, same_file

_TIME = re.compile(r"^\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|µs|ms|s|m|h)?\s*$")
_SECONDS = {"ns": Fraction(1, 10**9), "us": Fraction(1, 10**6), "µs": Fraction(1, 10**6), "ms": Fraction(1, 10**3),
            "s": Fraction(1), "m": Fraction(60), "h": Fraction(3600)}
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
        epilog="Times are the trace's own time (each provider's ticks through its tick rate): a duration from "
        "the trace's start, its first instant (1.5s, 200ms, 10us, 500ns), or a timestamp in ticks of the start's "
        "clock (123456). Sizes: 200MB, 64MiB, 4096. Exit status: 0 every piece lints with no error, 1 one does not, "
        "2 usage error (the message names the trace's time range; IN changed while read), 130/143 interrupted "
        "(SIGINT/SIGTERM: the pieces written are removed).",
        allow_abbrev=False,
    )
    p.add_argument("path", metavar="IN", help="the trace to slice; - reads stdin")
    p.add_argument("-o", "--output", metavar="OUT", required=True,
                   help="the slice; with --split-*, pieces are OUT-0001.fxt, OUT-0002.fxt, ...")
    p.add_argument("--from", dest="start", metavar="T", help="first time kept (default: the start)")
    p.add_argument("--to", dest="end", metavar="T", help="last time kept (default: the end)")
    p.add_argument("--split-size", metavar="SIZE",
                   help="pieces of at most SIZE bytes each (the written file, its prefix included)")
    p.add_argument("--split-time", metavar="DURATION", help="pieces of DURATION of trace time each")
    p.add_argument("--split-archives", action="store_true",
                   help="one piece per archive of a file that holds several concatenated (a new piece at each "
                   "magic record after the first)")
    _common.output_format_option(p)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (one is drawn on a terminal when the slice takes over a second)")
    p.set_defaults(run=run)


class _Usage(Exception):
    pass


@contextmanager
def _spooled_if(args, folder: str):
    """IN's path; standard input spooled to a temporary file (deleted when closed) when
    the options are read against the trace's time range, which takes a pass of its own
    (--from/--to, a --split-time in ticks). Otherwise standard input is read once, as it
    arrives."""
    if args.path != "-" or not _needs_range(args):
        yield args.path
        return
    import shutil
    import tempfile

    with tempfile.NamedTemporaryFile(dir=folder, prefix=".fxtlint-", suffix=".stdin") as fh:
        shutil.copyfileobj(sys.stdin.buffer, fh, 1 << 20)
        fh.flush()
        yield fh.name


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
    """The trace's time range (a ``TimeRange``, across its providers), for a usage error."""
    if span is None:
        return "the trace has no timestamps"
    (lo, lo_rate), (hi, hi_rate) = span.first, span.last
    length = duration_text(span.end - span.start)
    if len(span.rates) == 1:
        return f"the trace's time range is {lo} .. {hi} ticks (0 .. {length} from its start at {rate_text(lo_rate)})"
    return (f"the trace's time range is {instant_text(lo, lo_rate)} .. {instant_text(hi, hi_rate)} (0 .. {length} "
            f"from its start; its providers tick at {', '.join(rate_text(r) for r in span.rates)})")


def parse_time(text: str, option: str, span, *, duration: bool = False, needs_span: bool = True) -> Fraction:
    """Seconds of the trace's own time, exactly: with ``duration`` a length, else an
    instant (a duration from the trace's start, or ticks of the start's clock).
    ``needs_span`` False: a length with a unit is read without the trace's range."""
    m = _TIME.match(text)
    if m and duration and not needs_span and m[2] is not None:
        return Fraction(m[1]) * _SECONDS[m[2]]
    if not m or span is None:
        said = f"; {describe(span)}" if needs_span else ""
        raise _Usage(f"{option} {text!r} does not parse as ticks (123456) or a duration (1.5s, 200ms, 10us, "
                     f"500ns){said}")
    if m[2] is None:
        if "." in m[1]:
            raise _Usage(f"{option} {text!r}: ticks are whole numbers; {describe(span)}")
        ticks = int(m[1])
        return Fraction(ticks, reading_rate(span.first[1])) if duration else seconds(ticks, span.first[1])
    length = Fraction(m[1]) * _SECONDS[m[2]]
    return length if duration else span.start + length


def _cutter(args, inp):
    """The cutter the options ask for; a time read against the trace's range takes a
    first pass over IN (``time_range``), and IN is read again from its start after it."""
    from ..rewrite._input import Input
    from ..rewrite._slice import Cutter, time_range

    modes = [args.start is not None or args.end is not None, args.split_size is not None,
             args.split_time is not None, args.split_archives]
    if sum(modes) != 1:
        raise _Usage("give one of --from/--to, --split-size, --split-time, --split-archives")
    if args.split_archives:
        return Cutter(archives=True)
    if args.split_size is not None:
        return Cutter(size=parse_size(args.split_size))
    span = None
    if _needs_range(args):
        span = time_range(inp)
        if isinstance(inp, Input):
            inp.restart()
    if args.split_time is not None:
        try:
            length = parse_time(args.split_time, "--split-time", span, duration=True, needs_span=False)
        except _Usage:
            # a usage error names the trace's range: the pass it takes is made now, for the message
            span = span if span is not None else time_range(inp)
            parse_time(args.split_time, "--split-time", span, duration=True)
            raise
        if length <= 0:
            span = span if span is not None else time_range(inp)
            raise _Usage(f"--split-time {args.split_time!r} is no time at all; {describe(span)}")
        return Cutter(span=length)
    if span is None:
        raise _Usage(f"--from/--to: {describe(span)}")
    start = parse_time(args.start, "--from", span) if args.start is not None else None
    end = parse_time(args.end, "--to", span) if args.end is not None else None
    if start is not None and end is not None and start > end:
        raise _Usage(f"--from {args.start} is after --to {args.end}; {describe(span)}")
    if (start is not None and start > span.end) or (end is not None and end < span.start):
        which = f"--from {args.start}" if start is not None and start > span.end else f"--to {args.end}"
        raise _Usage(f"{which} is outside the trace; {describe(span)}")
    return Cutter(start=start, end=end)


class _PieceFile:
    """A piece being written: its ``.part`` file, renamed to the piece's path when the
    slicer closes it whole."""

    def __init__(self, outputs: Outputs, path: str):
        self.outputs, self.path = outputs, path
        self.fh = outputs.open(path)
        self.write = self.fh.write
        self.flush, self.fileno, self.seek = self.fh.flush, self.fh.fileno, self.fh.seek

    def close(self) -> None:
        self.fh.close()
        self.outputs.commit(self.path)


def _longer_than_the_trace(args, cutter, log) -> str | None:
    """What to say when ``--split-time`` is longer than the trace: it made one piece."""
    if cutter.span is None or len(log.pieces) != 1:
        return None
    info = log.pieces[0]
    if info.first is None or info.last is None:
        return None
    length = seconds(*info.last) - seconds(*info.first)
    if length >= cutter.span:
        return None
    return (f"--split-time {args.split_time} is longer than the trace ({duration_text(length)} from its first "
            f"instant to its last): it is one piece")


def _verdict(path: str) -> tuple[int, int]:
    """(errors, warnings) of the lint of the piece at ``path``: only these are kept, the
    lint's walk collected before the next piece is linted (it holds reference cycles: left
    to the collector's own time, the walks of a few pieces stood in memory at once)."""
    from ..engine._lint import lint_path

    report = lint_path(path, input_format="trace")
    verdict = (sum(1 for d in report.diagnostics if d.severity.label == "error"),
               sum(1 for d in report.diagnostics if d.severity.label == "warning"))
    del report
    gc.collect()
    return verdict


def _verdicts(paths: list[str], ridden: list | None) -> list[tuple[int, int]]:
    """Each piece's (errors, warnings): the cut's where its walk proved it
    (``SliceLog.verdicts``, ``rewrite/_slice_ride``), else its file's lint (``_verdict``)."""
    if ridden is None or len(ridden) != len(paths):
        return [_verdict(p) for p in paths]
    return [v if v is not None else _verdict(p) for p, v in zip(paths, ridden)]


def _needs_range(args) -> bool:
    """Whether the options are read against the trace's time range (a first pass)."""
    if args.start is not None or args.end is not None:
        return True
    m = _TIME.match(args.split_time) if args.split_time is not None else None
    return m is not None and m[2] is None  # ticks: of the start's clock


def run(args: argparse.Namespace) -> int:
    from ..rewrite._slice import slice_trace

    split = args.split_size is not None or args.split_time is not None or args.split_archives
    if same_file(args.path, args.output) or (split and same_file(args.path, piece_path(args.output, 1))):
        _common.error(f"{args.output}: the output is the input; write the slice to another path")
        return _common.EXIT_USAGE
    paths: list[str] = []
    outputs = Outputs()

    def open_out(i: int):
        path = piece_path(args.output, i) if split else args.output
        if path not in paths:  # (a trace whose instants go back is cut twice: the second pieces replace the first)
            paths.append(path)
        return _PieceFile(outputs, path)  # the slicer closes it

    folder = os.path.dirname(os.path.abspath(args.output))
    try:
        with interruptible(), reading_bar("slicing", enabled=not args.no_progress) as advance, \
                _spooled_if(args, folder) as path:
            try:
                with opened_input(path, progress=advance) as inp:
                    try:
                        cutter = _cutter(args, inp)
                    except _Usage as e:
                        _common.error(str(e))
                        return _common.EXIT_USAGE
                    log = slice_trace(inp, open_out, cutter, scratch=lambda: scratch_file(folder), ride=True)
                verdicts = _verdicts(paths, log.verdicts)
            finally:
                outputs.discard()
    except KeyboardInterrupt as e:
        return interrupted_status(e, outputs.remove_all())
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    pieces = [{"path": p, "records": info.records, "records_added": info.added, "bytes_of_records": info.bytes,
               "first_timestamp": None if info.first is None else info.first[0],
               "first_ticks_per_second": None if info.first is None else info.first[1],
               "last_timestamp": None if info.last is None else info.last[0],
               "last_ticks_per_second": None if info.last is None else info.last[1],
               "errors": errors, "warnings": warnings}
              for p, info, (errors, warnings) in zip(paths, log.pieces, verdicts)]
    longer = _longer_than_the_trace(args, cutter, log)
    if longer:
        print(f"fxtlint: note: {longer}", file=sys.stderr)
    if log.file_order:
        print("fxtlint: note: the trace's timestamps go back, and a pipe is read once: what a cut leaves open "
              "was followed in file order, not in time order as the lint pairs (give IN as a file)", file=sys.stderr)
    if args.output_format == "json":
        json.dump({"input": args.path, "records_in": log.records_in, "pieces": pieces}, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        for piece, info in zip(pieces, log.pieces):
            when = "no timestamps" if info.first is None or info.last is None else \
                f"from {instant_text(*info.first)} to {instant_text(*info.last)}"
            print(f"{piece['path']}: {piece['records']} records ({piece['bytes_of_records']} bytes), {when}, "
                  f"{piece['records_added']} records written for it; {piece['errors']} error(s), "
                  f"{piece['warnings']} warning(s)")
        if not pieces:
            why = "it is not an FXT trace" if log.not_fxt else "no record in the range"
            print(f"{args.path}: {why}: nothing written")
    if not pieces or any(p["errors"] for p in pieces):
        return _common.EXIT_ERRORS
    return _common.EXIT_OK
