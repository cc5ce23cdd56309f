"""``fxtlint explain CODE``: one rule's docs, with its failing and passing examples."""

from __future__ import annotations

import argparse
import sys

from . import _common


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "explain", help="print a rule's docs and examples",
        description="Print one rule's documentation, with a failing and a passing example.",
        allow_abbrev=False,
    )
    p.add_argument("code", metavar="CODE")
    p.set_defaults(run=run)


def find_rule(code: str, rules: list):
    for r in rules:
        if r.code.upper() == code.strip().upper():
            return r
    return None


def run(args: argparse.Namespace) -> int:
    from ..render._docs import rule_markdown

    rules = _common.load_registry()
    rule = find_rule(args.code, rules)
    old = _common.removed_rule(args.code)
    if rule is None and old is not None:
        print(f"{old.code} ({old.name}) was removed: it is reported as {old.replaced_by} now\n")
        rule = find_rule(old.replaced_by, rules)
    if rule is None:
        _common.error(f"unknown rule code {args.code!r} (see `fxtlint rules`)")
        return _common.EXIT_USAGE
    sys.stdout.write(rule_markdown(rule))
    return _common.EXIT_OK
