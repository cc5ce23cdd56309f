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
from fxtlint.rules import all_rules

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


def rewrite() -> None:
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for rule in all_rules():
        p = case_path(rule)
        p.write_bytes(rule.bad.build())
        report_path(p).write_text(json.dumps(report_for(p), indent=1, sort_keys=True) + "\n")
    print(f"rewrote {GOLDEN}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--rewrite"]:
        sys.exit(__doc__)
    rewrite()
