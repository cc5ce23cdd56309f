"""``fxtlint repair IN -o OUT``: the most of a trace that can be made conforming.

What was changed is printed record by record in the linter's terms (rule code, offset
in IN, what was done), as text or one JSON object, with OUT's lint, and IN's findings
counted by rule as the lint counts them beside what repair did under each code
(``rewrite._repair.tally``).

A regular file IN is linted first (a chunk at a time, as ``check`` reads it). Where the
lint finds nothing, and no option asks OUT to differ from IN (``--byte-order``,
``--spell-out-defaults``), there is nothing to mend and nothing open to close: OUT is IN's
bytes, copied (``rewrite._repair_out.send``: by ``O_DIRECT``, past OUT's page cache), and
IN's lint is OUT's (``tests/test_repair.py`` holds the repair pass to the same bytes
wherever the lint finds nothing). So a clean trace costs a
lint and a copy. Otherwise the repair pass (``rewrite._repair.repair``) reads IN in place,
a chunk at a time (standard input for ``-``): no copy of it is made, memory stays flat; the
records it keeps as they are go from IN's file to OUT's so too (``out_file``). It
starts where IN's lint lets it (``rewrite._resume``: the first record of a finding repair
acts on, when the lint's tables there are known, as for a trace with a zeroed page near
where the lint stopped): the bytes before are sent whole and never read again. Then OUT
is linted, unless repair changed nothing (OUT is then IN's bytes, and IN's lint is OUT's);
where repair started at the header of size 0 a large IN's lint paused at (a zeroed page),
OUT's lint is that lint continued over OUT's bytes from there (``rewrite._continue``),
not a walk of OUT's prefix again; and that lint walks IN's rest for repair
(``_rest``, ``Paused.take_rest``): past the dropped stretch, where it finds nothing repair
acts on in the rest, the rest is sent as it is and its report is OUT's (the rest walked
once); else repair walks the rest itself and OUT is linted whole.
The counts by rule are IN's lint's (standard input is not read again: none); where the
lint stopped framing (FR001, FR002), what repair did past that point is counted apart.
OUT is written beside itself as a ``.part`` file renamed when whole; an interrupted run
(Ctrl-C, SIGTERM) removes it.

Exit status: 0 OUT lints with no error, 1 it does not (or IN is not readable as
anything), 2 a usage error (OUT is IN, an unreadable path, IN changed while read),
130/143 interrupted by SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import _common
from ._progress import reading_bar
from ._rewrite_io import (
    Outputs,
    copy_unchanged,
    interrupted_status,
    interruptible,
    lint_regular_file,
    opened_input,
    resumable,
    same_file,
)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "repair",
        help="write the most of a trace that can be made conforming, and say what was changed",
        description="Keep every record a reader reads correctly (byte for byte where nothing is wrong with it), "
        "mend what can be mended without guessing (reserved bits and padding cleared, sizes set to the "
        "content, counted C terminators dropped, the magic record put first, unregistered string and thread "
        "refs given a placeholder registration), and drop what cannot be mended (records cut off, garbage "
        "between records, records whose arguments cannot be read), resuming at the next record found.",
        epilog="IN is read in place (no copy); an interrupted run removes what it wrote. Exit status: 0 OUT "
        "lints with no error, 1 it does not, 2 usage error (OUT is IN, an unreadable path, IN changed while "
        "read), 130/143 interrupted (SIGINT/SIGTERM).",
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
    p.add_argument("--stop-at-loss", action="store_true",
                   help="write nothing after the first stretch that had to be dropped (the records after it may "
                   "be read as another provider's: the change log says when it sees the sign)")
    _common.output_format_option(p)
    p.add_argument("--no-progress", action="store_true",
                   help="no progress bar (one is drawn on a terminal when the repair takes over a second)")
    p.set_defaults(run=run)


def lint_output(path: str):
    """The lint of the written ``path`` (a ``FileReport``)."""
    from ..engine._lint import lint_path

    return lint_path(path, input_format="trace")


def run(args: argparse.Namespace) -> int:
    from ..rewrite._repair import RepairLog, repair, tally
    from ..rewrite._repair_out import send

    if same_file(args.path, args.output):
        _common.error(f"{args.output}: the output is the input; write the repair to another path")
        return _common.EXIT_USAGE
    outputs = Outputs()
    try:
        with interruptible(), reading_bar("repairing", enabled=not args.no_progress) as advance:
            try:
                linted = _lint_first(args, advance)
                if linted is not None and not linted[0].diagnostics:
                    # nothing to mend, nothing asked of OUT that IN lacks: OUT is IN's bytes
                    report, size, st, _ = linted
                    with outputs.open(args.output) as fh:
                        copy_unchanged(args.path, st, fh, send)
                    outputs.commit(args.output)
                    log = RepairLog(records_in=report.records, records_out=report.records, bytes_in=size,
                                    bytes_out=size, byte_order=report.byte_order)
                else:
                    resume = None if linted is None else linted[3].resume
                    continues = _continues(linted)  # (asked now: ``take_rest`` may move the pause on)
                    with opened_input(args.path, progress=advance) as inp:
                        if resume is not None:
                            resumable(inp, linted[2], args.path)
                        with outputs.open(args.output) as fh:
                            log = repair(inp, fh.write, byte_order=args.byte_order, close_open=args.close_open,
                                         spell_out_defaults=args.spell_out_defaults,
                                         stop_at_loss=args.stop_at_loss, out_file=fh,
                                         resume=resume, rest=_rest(linted, fh, outputs, args) if continues else None)
                        outputs.commit(args.output)
                    # with no change OUT is IN's bytes: IN's lint, where there is one, is OUT's; where
                    # repair started at the header IN's lint paused at, OUT's lint is that lint continued
                    if linted is not None and not log.changes:
                        report = linted[0]
                    elif continues and linted[3].paused.report is not None:
                        report = linted[3].paused.report  # (made as repair wrote IN's rest: ``_rest``)
                    elif continues and not linted[3].paused.used:
                        report = _lint_continued(linted[3].paused, args.output)
                    else:
                        report = lint_output(args.output)
                found: list | None
                stop = None if linted is None else linted[3].stop
                if linted is not None:
                    found = tally(log, linted[0].counts, stop)
                else:  # standard input is not read again: no count by rule
                    found = None if args.path == "-" else tally(log, _lint_again(args, log, report).counts)
            finally:
                outputs.discard()
    except KeyboardInterrupt as e:
        return interrupted_status(e, outputs.remove_all())
    except OSError as e:
        _common.error(f"{e.filename or args.path}: {e.strerror or e}")
        return _common.EXIT_USAGE
    clean = not report.has_errors
    if args.output_format == "json":
        json.dump(_document(args, log, report, found, stop), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_rich(args, log, report, found, stop)
    return _common.EXIT_OK if clean else _common.EXIT_ERRORS


def _lint_first(args, advance):
    """IN's lint, before any writing, as ``lint_regular_file`` gives it, where OUT is to be
    IN's bytes when the lint finds nothing (no byte order and no defaults asked for: a
    trace with no finding has nothing to mend and nothing open to close); None where IN
    is not a regular file (standard input) or an option asks OUT to differ from IN."""
    if args.byte_order is not None or args.spell_out_defaults:
        return None
    return lint_regular_file(args.path, progress=advance, resume=True)


def _continues(linted) -> bool:
    """Whether OUT's lint can be IN's lint continued (``rewrite._continue.Paused``): repair
    started at the header of size 0 IN's lint paused at, so OUT's bytes before it are IN's."""
    if linted is None or linted[3].paused is None or linted[3].resume is None:
        return False
    return linted[3].resume.offset == linted[3].paused.place


def _rest(linted, fh, outputs: Outputs, args):
    """Where OUT's lint is IN's continued (``_continues``): repair's question whether it writes
    the rest of IN as it is, answered by that lint walking it as OUT's
    (``rewrite._continue.Paused.take_rest``: the rest walked once)."""
    paused, st, part = linted[3].paused, linted[2], outputs.parts[args.output]
    return lambda r, at: paused.take_rest(r, at, fh, part, st, args.output)


def _lint_continued(paused, path: str):
    """OUT's lint (``path``, written whole) as IN's lint paused at the place repair started
    from, continued over OUT's bytes from there (``rewrite._continue.Paused``)."""
    with open(path, "rb", buffering=0) as fh:
        return paused.lint_out(fh.fileno(), os.fstat(fh.fileno()).st_size, path)


def _lint_again(args, log, report):
    """IN's lint where it was not linted first: with no change OUT (``report``) is IN's
    bytes; else IN is linted now."""
    return report if not log.changes else lint_output(args.path)


def _counts(report) -> dict:
    out = {"error": 0, "warning": 0, "info": 0}
    for d in report.diagnostics:
        out[d.severity.label] = out.get(d.severity.label, 0) + 1
    return out


def _document(args, log, report, found, stop) -> dict:
    return {
        "input": args.path,
        "output": args.output,
        "byte_order": log.byte_order,
        "records_in": log.records_in,
        "records_out": log.records_out,
        "bytes_in": log.bytes_in,
        "bytes_out": log.bytes_out,
        "changes": [c.to_json() for c in log.changes],
        "notes": [c.to_json() for c in log.notes],
        # per rule: the lint's count of IN's findings, beside what repair did (null: IN was stdin)
        "input_lint": None if found is None else [t.to_json() for t in found],
        # where IN's lint stopped framing (null: it read IN to its end, or IN was not linted)
        "input_lint_stop": stop,
        "output_lint": {"clean": not report.has_errors, **_counts(report)},
    }


def _print_rich(args, log, report, found, stop) -> None:
    for c in [*log.changes, *log.notes]:
        finding = f" {c.code} {c.rule}:" if c.code else ""
        line = f"{args.path}:{c.offset:#x}:{finding} {c.action}: {c.detail}"
        if c.message:
            line += f" ({c.message})"
        print(line)
    if found is None:
        print(f"{args.path}: read from standard input: not linted again, no count of its findings by rule")
    elif any(t.found or t.done for t in found):
        parts = []
        for t in found:
            if not (t.found or t.done):
                continue
            did = ", ".join(f"{action} {n}" for action, n in sorted(t.done.items())) or "nothing"
            if t.past:
                did += "; past the lint's stop: " + ", ".join(f"{action} {n}" for action, n in sorted(t.past.items()))
            parts.append(f"{t.code} {t.found} ({did})")
        print(f"{args.path}: the lint finds, by rule (repair did): {'; '.join(parts)}")
        if stop is not None:
            print(f"{args.path}:{stop:#x}: the lint stops framing here, so its counts are of IN up to here; "
                  f"repair read on, and what it did past here is counted apart (past the lint's stop)")
    counts = _counts(report)
    verdict = "lints with no error" if not report.has_errors else f"still has {counts['error']} error(s)"
    print(f"{args.output}: {log.records_out} records, {log.bytes_out} bytes written from {log.records_in} "
          f"records, {log.bytes_in} bytes; {len(log.changes)} change(s); it {verdict} "
          f"({counts['warning']} warning(s), {counts['info']} info)")
