"""Generate ``docs/rules.md`` from the rule registry; ``fxtlint explain`` prints the same text.

    python -m fxtlint._docs --check   # exit 1 if docs/rules.md differs from the registry
    python -m fxtlint._docs --write   # rewrite docs/rules.md

The docs are never edited by hand: the registry is the one source (ruff's generated
rule pages, glTF-Validator's ISSUES.md).
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from ._diagnostics import Example, Rule
from ._hexview import dump

DEFAULT_PATH = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
GENERATED_NOTE = (
    "<!-- Generated from the rule registry by `python -m fxtlint._docs --write`; "
    "do not edit by hand. -->"
)


def registry() -> list[Rule]:
    from .rules import all_rules

    return list(all_rules())


def anchor(rule: Rule) -> str:
    """The GitHub anchor of a rule's heading."""
    text = f"{rule.code} {rule.name}".lower()
    return "".join(c if c.isalnum() or c in "-_" else "-" if c == " " else "" for c in text)


def example_markdown(title: str, example: Example) -> str:
    data = example.build()
    hexdump = dump(data, head=None) if data else "(empty)"
    return (
        f"### {title}\n\n"
        f"{example.caption.strip()} (input format: {example.input_format}, "
        f"{len(data)} bytes)\n\n"
        f"```text\n{hexdump}\n```\n"
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
            example_markdown("Failing example", rule.bad),
            example_markdown("Passing example", rule.good),
            f"### Spec reference\n\n{rule.spec.strip()}\n",
        ]
    )


def generate(rules: list[Rule] | None = None) -> str:
    rules = registry() if rules is None else rules
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
    out += [rule_markdown(r) for r in rules]
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m fxtlint._docs", description="Generate docs/rules.md."
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
    print(f"{args.path} is stale: run `python -m fxtlint._docs --write`", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
