"""Generate ``docs/rules.md`` from the rule registry; ``fxtlint explain`` prints the same text.

    python -m fxtlint.render._docs --check   # exit 1 if docs/rules.md differs from the registry
    python -m fxtlint.render._docs --write   # rewrite docs/rules.md

The docs are never edited by hand: the registry is the one source (ruff's generated
rule pages, glTF-Validator's ISSUES.md).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from ..rules._diagnostics import Example, Rule
from ..engine._hexview import HEAD, dump

DEFAULT_PATH = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
FULL_DUMP_MAX = 256  # larger examples show their head and the marked rows only
GENERATED_NOTE = (
    "<!-- Generated from the rule registry by `python -m fxtlint.render._docs --write`; "
    "do not edit by hand. -->"
)


def registry() -> list[Rule]:
    from ..rules import all_rules

    return list(all_rules())


def anchor(rule: Rule) -> str:
    """The GitHub anchor of a rule's heading."""
    text = f"{rule.code} {rule.name}".lower()
    return "".join(c if c.isalnum() or c in "-_" else "-" if c == " " else "" for c in text)


def _finding(rule: Rule, data: bytes, input_format: str):
    """The first diagnostic ``rule`` reports on ``data``, or None."""
    from ..engine._lint import lint_bytes

    report = lint_bytes(data, input_format=input_format)
    return next((d for d in report.diagnostics if d.code == rule.code), None)


def example_markdown(title: str, rule: Rule, example: Example) -> str:
    """An example's caption and hex dump; the rule's finding in it, marked, if any."""
    data = example.build()
    diag = _finding(rule, data, example.input_format)
    span = diag.span if diag is not None else None
    head = None if len(data) <= FULL_DUMP_MAX else HEAD
    hexdump = dump(data, span=span, head=head) if data else "(empty)"
    if diag is None:
        verdict = f"fxtlint does not report {rule.code} here."
    else:
        where = f"at 0x{diag.offset:x}"
        if diag.record_index >= 0:
            where += f" (record {diag.record_index})"
        verdict = f"fxtlint reports, {where}:\n\n> {diag.severity.label}[{diag.code}]: {diag.message}"
    return (
        f"### {title}\n\n"
        f"{example.caption.strip()} (input format: {example.input_format}, "
        f"{len(data)} bytes)\n\n"
        f"```text\n{hexdump}\n```\n\n{verdict}\n"
    )


def rule_markdown(rule: Rule) -> str:
    """One rule's docs: heading, severity, status, what/why, both examples, spec."""
    return "\n".join(
        [
            f"## {rule.code} {rule.name}\n",
            f"- Severity: {rule.severity.label}",
            f"- Status: {rule.status}",
            f"- Message: {rule.message}\n",
            f"### What it checks\n\n{rule.what.strip()}\n",
            f"### Why it matters\n\n{rule.why.strip()}\n",
            example_markdown("Failing example", rule, rule.bad),
            example_markdown("Passing example", rule, rule.good),
            f"### Spec reference\n\n{rule.spec.strip()}\n",
        ]
    )


def removed() -> list[Rule]:
    from ..rules import removed_rules

    return list(removed_rules())


def generate(rules: list[Rule] | None = None, retired: list[Rule] | None = None) -> str:
    """The rules page; ``retired`` (default: the registry's removed codes) is listed
    after the table, each with the code that replaced it."""
    if rules is None:
        rules, retired = registry(), removed() if retired is None else retired
    out = [
        "# fxtlint rules\n",
        GENERATED_NOTE + "\n",
        f"{len(rules)} rule{'' if len(rules) == 1 else 's'}. "
        "`fxtlint explain CODE` prints one of them.\n",
        "| Code | Name | Severity | Status |",
        "| --- | --- | --- | --- |",
    ]
    out += [
        f"| [{r.code}](#{anchor(r)}) | {r.name} | {r.severity.label} | {r.status} |"
        for r in rules
    ]
    out.append("")
    if retired:
        out += ["Removed codes (never reused):\n", "| Code | Name | Now |", "| --- | --- | --- |"]
        out += [f"| {r.code} | {r.name} | [{r.replaced_by}](#{anchor(_replacement(r, rules))}) |"
                for r in retired]
        out.append("")
    out += [rule_markdown(r) for r in rules]
    return "\n".join(out).rstrip("\n") + "\n"


def _replacement(old: Rule, rules: list[Rule]) -> Rule:
    return next(r for r in rules if r.code == old.replaced_by)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fxtlint.render._docs", description="Generate docs/rules.md."
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    mode.add_argument("--write", action="store_true", help="rewrite the file")
    parser.add_argument("--path", type=Path, default=DEFAULT_PATH, help="default: %(default)s")
    args = parser.parse_args(argv)
    text = generate()
    if args.write:
        args.path.parent.mkdir(parents=True, exist_ok=True)
        args.path.write_text(text, encoding="utf-8")
        print(f"wrote {args.path}")
        return 0
    try:
        current = args.path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = ""
    if current == text:
        return 0
    sys.stdout.writelines(
        difflib.unified_diff(
            current.splitlines(keepends=True),
            text.splitlines(keepends=True),
            str(args.path),
            "generated",
        )
    )
    print(f"{args.path} is stale: run `python -m fxtlint.render._docs --write`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
