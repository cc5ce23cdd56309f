"""Which rules a run reports, and at which severity: ruff's --select / --ignore.

A selector is a rule code (``PR004``), a prefix of codes (``PR`` for the pairing
family, ``PR00`` for PR001 to PR009) or ``ALL``; lists are comma-separated and
options repeat. Matching is case-insensitive. A selector that matches no rule is an
error, so a typo never silently selects nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from ._diagnostics import Severity


class SelectionError(ValueError):
    """A selector or severity that names no rule, or a malformed entry."""


def split(values: Iterable[str] | str | None) -> list[str]:
    """``["PR,RB", "ST001"]`` (or one string) -> ``["PR", "RB", "ST001"]``."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    return [v.strip() for item in values for v in str(item).split(",") if v.strip()]


def expand(selector: str, codes: Iterable[str]) -> set[str]:
    """The codes ``selector`` stands for."""
    s = selector.strip().upper()
    codes = list(codes)
    if not s:
        raise SelectionError("an empty rule selector")
    if s == "ALL":
        return set(codes)
    hit = {c for c in codes if c.upper().startswith(s)}
    if not hit:
        raise SelectionError(f"{selector!r} matches no rule code (see `fxtlint rules`)")
    return hit


def check_selector(selector: str, where: str, codes: Iterable[str]) -> None:
    """SelectionError, in the command line's words, when ``selector`` names no rule of
    ``codes``; a retired code names the one that replaced it. ``where`` is the option or
    argument it came from (``--select``, ``allow``)."""
    try:
        expand(selector, codes)
    except SelectionError:
        from . import get

        old = get(selector.strip())
        if old is not None and old.status == "removed":
            raise SelectionError(f"rule code {old.code} in {where} was removed: use {old.replaced_by} "
                                 f"({old.name})") from None
        raise SelectionError(f"unknown rule code {selector.strip()!r} in {where} (see `fxtlint rules`)") from None


def enabled_codes(codes: Iterable[str], select=None, ignore=None) -> frozenset[str]:
    """The codes a run reports: those selected (all when nothing is), minus those ignored.

    As in ruff, the more specific selector wins when a code is both selected and
    ignored: ``--select PR004 --ignore PR`` keeps PR004, ``--select PR --ignore PR004``
    drops it; on a tie, ignore wins.
    """
    codes = list(codes)
    chosen = split(select) or ["ALL"]
    dropped = split(ignore)
    # per code: the length of the most specific selector of each kind
    best_sel: dict[str, int] = {}
    for s in chosen:
        weight = 0 if s.strip().upper() == "ALL" else len(s.strip())
        for c in expand(s, codes):
            best_sel[c] = max(best_sel.get(c, -1), weight)
    best_ign: dict[str, int] = {}
    for s in dropped:
        weight = 0 if s.strip().upper() == "ALL" else len(s.strip())
        for c in expand(s, codes):
            best_ign[c] = max(best_ign.get(c, -1), weight)
    return frozenset(c for c, w in best_sel.items() if best_ign.get(c, -1) < w)


def severity_overrides(entries, codes: Iterable[str]) -> dict[str, Severity]:
    """``["PR=info", "ST001=warning,RB=error"]`` (or a mapping) -> code -> Severity.

    Later and more specific entries win over earlier and broader ones.
    """
    codes = list(codes)
    if isinstance(entries, dict):
        pairs = list(entries.items())
    else:
        pairs = []
        for e in split(entries):
            sel, sep, level = e.partition("=")
            if not sep or not sel.strip():
                raise SelectionError(f"expected CODE=error|warning|info, got {e!r}")
            pairs.append((sel, level))
    ranked = []
    for i, (sel, level) in enumerate(pairs):
        try:
            sev = level if isinstance(level, Severity) else Severity.parse(str(level))
        except KeyError:
            raise SelectionError(f"{level!r} is not a severity (error, warning or info)") from None
        weight = 0 if sel.strip().upper() == "ALL" else len(sel.strip())
        ranked.append((weight, i, sel, sev))
    out: dict[str, Severity] = {}
    for _, _, sel, sev in sorted(ranked, key=lambda r: (r[0], r[1])):
        for c in expand(sel, codes):
            out[c] = sev
    return out
