"""``fxtlint repair IN -o OUT``: the most of a trace that can be made conforming.

What was changed is printed record by record in the linter's terms (rule code, offset
in IN, what was done), as text or one JSON object; then OUT is linted.

Exit status: 0 OUT lints with no error, 1 it does not (or IN is not readable as
anything), 2 a usage error (OUT is IN, an unreadable path).
"""

from __future__ import annotations

import argparse
import json
import mmap
import os
import stat
import sys
from contextlib import contextmanager

from ..engine._file import FileChanged
from . import _common


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "repair",
        help="write the most of a trace that can be made conforming, and say what was changed",
        description="Keep every record a reader reads correctly (byte for byte where nothing is wrong with it), "
        "mend what can be mended without guessing (reserved bits and padding cleared, sizes set to the "
        "content, counted C terminators dropped, the magic record put first, unregistered string and thread "
        "refs given a placeholder registration), and drop what cannot be mended (records cut off, garbage "
        "between records, records whose arguments cannot be read), resuming at the next record found.",
        epilog="Exit status: 0 OUT lints with no error, 1 it does not, 2 usage error (OUT is IN, an "
        "unreadable path).",
        allow_abbrev=False,
    )
    p.add_argument("path", metavar="IN", help="the trace to repair; - reads stdin")
    p.add_argument("-o", "--output", metavar="OUT", required=True, help="where to write the repaired trace")
    p.add_argument("--byte-order", choices=("little", "big"), default=None,
                   help="write OUT in this byte order (default: IN's; a big-endian archive is read as one)")
    p.add_argument("--close-open", action="store_true",
                   help="end durations and async operations still open at the end at the last timestamp")
    p.add_argument("--spell-out-defaults", action="store_true",
                   help="before the first event, write what the spec implies and some readers need written: a "
                   "provider when none is named, and an Initialization record of one tick per nanosecond")
    _common.output_format_option(p)
    p.set_defaults(run=run)


def same_file(a: str, b: str) -> bool:
    """Whether paths ``a`` and ``b`` name one file (``b`` may not exist yet)."""
    if a == "-":
        return False
    try:
        if os.path.exists(b):
            return os.path.samefile(a, b)
    except OSError:
        return False
    return os.path.realpath(a) == os.path.realpath(b)


@contextmanager
def input_buffer(path: str, near: str):
    """IN's bytes, mapped read-only from a private copy: IN (or standard input, ``-``) is
    first copied with ordinary reads to a temporary file beside ``near``, so memory stays
    flat and a file another process truncates meanwhile cannot fault the walk (SIGBUS):
    a length that changed while it was copied is ``FileChanged`` (exit 2), as for every verb."""
    import shutil
    import tempfile  # (with shutil: imported by the verbs that write, not by every start-up)

    with tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(near))) as fh:
        if path == "-":
            shutil.copyfileobj(sys.stdin.buffer, fh, 1 << 20)
        else:
            with open(path, "rb") as src:
                size = os.fstat(src.fileno()).st_size
                shutil.copyfileobj(src, fh, 1 << 20)
            if stat.S_ISREG(os.stat(path).st_mode) and fh.tell() != size:
                raise FileChanged.length(path, size, fh.tell())
        fh.flush()
        if fh.tell() == 0:
            yield b""
            return
        m = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
        try:
            yield m
        finally:
            try:
                m.close()
            except BufferError:
                pass  # a view outlived the walk (an error being raised): the error is the news


def written_atomically(out: str, write_to) -> None:
    """``write_to(fh)`` into a temporary file beside ``out``, renamed to ``out`` when it
    went through (a failure leaves no half-written OUT)."""
    import tempfile

    folder = os.path.dirname(os.path.abspath(out))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".fxtlint-", suffix=".part")
    try:
        with os.fdopen(fd, "wb", buffering=1 << 20) as fh:
            write_to(fh)
        os.replace(tmp, out)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def lint_output(path: str):
    """The lint of the written ``path`` (a ``FileReport``)."""
    from ..engine._lint import lint_path

    return lint_path(path, input_format="trace")


def run(args: argparse.Namespace) -> int:
    from ..rewrite._repair import repair

    if same_file(args.path, args.output):
        _common.error(f"{args.output}: the output is the input; write the repair to another path")
        return _common.EXIT_USAGE
    try:
        with input_buffer(args.path, args.output) as buf:
            holder: list = []
            written_atomically(args.output, lambda fh: holder.append(
                repair(buf, fh.write, byte_order=args.byte_order, close_open=args.close_open,
                       spell_out_defaults=args.spell_out_defaults)))
            log = holder[0]
        report = lint_output(args.output)
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    clean = not report.has_errors
    if args.output_format == "json":
        json.dump(_document(args, log, report), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_rich(args, log, report)
    return _common.EXIT_OK if clean else _common.EXIT_ERRORS


def _counts(report) -> dict:
    out = {"error": 0, "warning": 0, "info": 0}
    for d in report.diagnostics:
        out[d.severity.label] = out.get(d.severity.label, 0) + 1
    return out


def _document(args, log, report) -> dict:
    return {
        "input": args.path,
        "output": args.output,
        "byte_order": log.byte_order,
        "records_in": log.records_in,
        "records_out": log.records_out,
        "bytes_in": log.bytes_in,
        "bytes_out": log.bytes_out,
        "changes": [c.to_json() for c in log.changes],
        "output_lint": {"clean": not report.has_errors, **_counts(report)},
    }


def _print_rich(args, log, report) -> None:
    for c in log.changes:
        finding = f" {c.code} {c.rule}:" if c.code else ""
        line = f"{args.path}:{c.offset:#x}:{finding} {c.action}: {c.detail}"
        if c.message:
            line += f" ({c.message})"
        print(line)
    counts = _counts(report)
    verdict = "lints with no error" if not report.has_errors else f"still has {counts['error']} error(s)"
    print(f"{args.output}: {log.records_out} records, {log.bytes_out} bytes written from {log.records_in} "
          f"records, {log.bytes_in} bytes; {len(log.changes)} change(s); it {verdict} "
          f"({counts['warning']} warning(s), {counts['info']} info)")
