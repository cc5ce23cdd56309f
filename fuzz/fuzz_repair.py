# Invariant: repair never raises on any bytes; what it writes lints with no error; repair
# of its own output gives the same bytes (idempotent, with and without --close-open and
# --spell-out-defaults); and a trace the linter reports nothing on comes out of repair byte
# for byte; and on the native walk (where it is built) repair writes the bytes and says the
# changes the record-by-record pass does, and from the place IN's lint hands it
# (``rewrite._resume``, as ``fxtlint repair FILE`` does) as from IN's start; and where IN's
# lint, reading a file in chunks, pauses at a header of size 0 that repair starts at, OUT's
# lint continued from that pause (``rewrite._continue``) is the whole lint of OUT.
"""atheris harness for ``fxtlint repair``: python fuzz/fuzz_repair.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint
from fxtlint.engine._file import FileSource
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._reader import MAGIC_LE as MAGIC
from fxtlint.engine._reader import forget_chains
from fxtlint.rewrite._continue import lint_keeping
from fxtlint.rewrite._repair import repair
from fxtlint.rewrite._resume import resume_at


def repaired(data: bytes, **options) -> bytes:
    return logged(data, **options)[0]


def logged(data: bytes, **options):
    out: list = []
    log = repair(data, out.append, **options)
    return b"".join(out), log


def errors(data: bytes) -> list:
    return [d.code for d in fxtlint.lint_bytes(data, input_format="trace").diagnostics
            if d.severity == fxtlint.Severity.ERROR]


def check(data: bytes) -> None:
    for options in ({}, {"close_open": True, "spell_out_defaults": True}):
        out = repaired(data, **options)
        assert not errors(out), f"repair{options} wrote a trace with errors {errors(out)}"
        assert repaired(out, **options) == out, f"repair{options} is not idempotent"
        assert repaired(out, shortcut=False, **options) == out, f"repair{options} record by record is not idempotent"
    for head in (b"", MAGIC):  # (the walk reads a trace that starts with its magic record)
        assert logged(head + data) == logged(head + data, shortcut=False), \
            "repair on the native walk differs from the record-by-record pass"
    try:  # the repair `fxtlint repair FILE` makes: from the place IN's lint hands it, where there is one
        report, walk = lint_walk(data, input_format="trace")
    finally:
        forget_chains()
    at = resume_at(report, walk, lambda start, end: data[start:end])
    if at is not None:
        assert logged(data, resume=at) == logged(data), "repair from the lint's place differs from IN's start"
    if "FR001" in report.counts:
        continued(data)
    if not fxtlint.lint_bytes(data, input_format="trace").diagnostics:
        assert repaired(data, shortcut=False) == data, "repair changed a trace with nothing to mend"


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("fxt")
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    return fd


def continued(data: bytes) -> None:
    """IN's lint read as a file in chunks of 64 bytes (``lint_keeping``) is its lint; where it
    paused at the header repair starts at, OUT's lint continued from there is OUT's whole lint."""
    src = _memfd(data)
    try:
        with open(src, "rb", closefd=False) as fh:
            report, walk, paused = lint_keeping(FileSource(fh, "<bytes>", len(data)), "<bytes>", 64)
    finally:
        os.close(src)
    assert report.to_json() == fxtlint.lint_bytes(data, input_format="trace").to_json(), \
        "the lint that keeps its pause differs from the lint"
    at = resume_at(report, walk, lambda start, end: data[start:end])
    if paused is None or at is None or at.offset != paused.place:
        return
    out = repaired(data, resume=at)
    dst = _memfd(out)
    try:
        got = paused.lint_out(dst, len(out), "<bytes>", 64)
    finally:
        os.close(dst)
    assert got.to_json() == fxtlint.lint_bytes(out, input_format="trace").to_json(), \
        "OUT's lint continued from IN's pause differs from its whole lint"


if __name__ == "__main__":
    _harness.fuzz(check)
