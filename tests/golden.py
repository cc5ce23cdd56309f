"""The golden corpus: each rule's failing example beside its expected report.

    python tests/golden.py --rewrite    # after a deliberate change of messages or rules

corpus/golden/<CODE>-<name>.fxt (or .log) holds the input, <same>.report.json the
report fxtlint gives (file name only as its path; nothing time-dependent in it).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import fxtlint
from fxtlint import build as B
from fxtlint.rules import all_rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
import writer_traces  # tests/ is not a package

GOLDEN = Path(__file__).resolve().parent.parent / "corpus" / "golden"


def case_path(rule) -> Path:
    ext = "log" if rule.bad.input_format == "log" else "fxt"
    return GOLDEN / f"{rule.code}-{rule.name}.{ext}"


def report_for(path: Path) -> dict:
    fmt = "log" if path.suffix == ".log" else "trace"
    report = fxtlint.lint_bytes(path.read_bytes(), input_format=fmt).to_json()
    report["path"] = path.name
    return report


def report_path(path: Path) -> Path:
    return path.with_name(path.name + ".report.json")


def _flow_across_processes(*tail) -> bytes:
    """A flow begun in process 10 and ended in process 20: how IPC is drawn (clean)."""
    from fxtlint.rules import _ex as X

    ev = B.event
    return X.preamble(
        B.thread(2, 20, 21), B.thread(3, 30, 31),
        ev("duration_begin", 5), ev("flow_begin", 6, id=8), ev("duration_end", 7),
        ev("duration_begin", 10, thread=2), ev("flow_end", 11, thread=2, id=8), ev("duration_end", 12, thread=2),
        *tail)


def _flow_ended_twice() -> bytes:
    """The same flow, then a stray second end in a third process: PR007."""
    ev = B.event
    return _flow_across_processes(ev("duration_begin", 20, thread=3), ev("flow_end", 21, thread=3, id=8),
                                  ev("duration_end", 22, thread=3))


def _flow_begun_twice() -> bytes:
    """A flow id begun in process 10 and again in process 20 while live: PR006 (ids are
    not scoped by process, so this is a collision)."""
    from fxtlint.rules import _ex as X

    ev = B.event
    return X.preamble(
        B.thread(2, 20, 21),
        ev("duration_begin", 5), ev("flow_begin", 6, id=8), ev("duration_end", 7),
        ev("duration_begin", 10, thread=2), ev("flow_begin", 11, thread=2, id=8), ev("flow_end", 12, thread=2, id=8),
        ev("duration_end", 13, thread=2))


def _log(*args) -> bytes:
    return B.log_stream(B.log_record(0x30, 1000, list(args)))


# Cases beyond each rule's own example: verdicts fixed in issue 10 (name: (builder, format)).
# A file directly in corpus/golden trips the rule its name starts with; clean/ holds
# inputs that rule must NOT trip (named after it all the same).
EXTRA = {
    "PR006-flow-id-begun-in-two-processes.fxt": (_flow_begun_twice, "trace"),
    "PR007-flow-ended-twice.fxt": (_flow_ended_twice, "trace"),
    "SL004-log-argument-type-undefined.log": (lambda: _log(B.raw_arg(12, "n", b"\0" * 8)), "log"),
    # verdicts fixed in issue 17: a writer's size a word off is read on from its content
    "FR004-size-one-word-too-large-in-a-writer-trace.fxt": (lambda: writer_traces.with_size_off_by(+1), "trace"),
    "ST001-size-one-word-too-small-in-a-writer-trace.fxt": (lambda: writer_traces.with_size_off_by(-1), "trace"),
    "MG001-magic-record-not-first.fxt": (lambda: B.archive(B.provider_info(1, "p"), B.magic(), B.string(1, "x")),
                                         "trace"),
    "clean/PR007-flow-across-processes.fxt": (_flow_across_processes, "trace"),
    "clean/ST004-log-string-over-32000.log": (lambda: _log(B.arg("string", "message", "a" * 32001)), "log"),
}


def rewrite() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    cases = [(case_path(rule), rule.bad.build) for rule in all_rules()]
    cases += [(GOLDEN / name, build) for name, (build, _) in EXTRA.items()]
    for p, build in cases:
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(build())
        report_path(p).write_text(json.dumps(report_for(p), indent=1, sort_keys=True) + "\n")
    print(f"rewrote {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--rewrite"]:
        sys.exit(__doc__)
    rewrite()
