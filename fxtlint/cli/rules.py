"""``fxtlint rules``: list the rule registry."""

from __future__ import annotations

import argparse
import sys

from . import _common


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "rules", help="list every rule: code, name, severity, status (removed codes too)",
        description="List every rule of the registry, with the removed codes (never reused) "
                    "and the code that reports their defect now.", allow_abbrev=False,
    )
    _common.output_format_option(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..render import _render_json, _render_rich

    rules = sorted(_common.load_registry() + _common.load_removed(), key=lambda r: r.code)
    if args.output_format == "json":
        sys.stdout.write(_render_json.dumps(_render_json.render_rules(rules)))
    else:
        _render_rich.render_rules(_render_rich.make_console(), rules)
    return _common.EXIT_OK
