"""``_selection``: which rules a run reports and at which severity (ruff's --select,
--ignore and per-rule severities), each with the input it refuses and its twin."""

from __future__ import annotations

import pytest

from fxtlint import Severity
from fxtlint.rules._selection import SelectionError, enabled_codes, expand, severity_overrides, split

CODES = ["PR001", "PR004", "PR012", "RB002", "ST001", "ST008"]


def test_split_takes_commas_repeats_and_blanks():
    assert split(None) == [] and split("") == []
    assert split(["PR, RB", "ST001,"]) == ["PR", "RB", "ST001"]
    assert split("pr004") == ["pr004"]


def test_a_selector_is_a_code_a_prefix_or_all_in_any_case():
    assert expand("PR004", CODES) == {"PR004"}
    assert expand("pr0", CODES) == {"PR001", "PR004", "PR012"}
    assert expand("PR00", CODES) == {"PR001", "PR004"}
    assert expand("all", CODES) == set(CODES)


@pytest.mark.parametrize("selector,match", [("PX", "'PX' matches no rule code"), (" ", "an empty rule selector"),
                                            ("PR0045", "matches no rule code")])
def test_a_selector_matching_nothing_is_an_error(selector, match):
    with pytest.raises(SelectionError, match=match):
        expand(selector, CODES)


def test_everything_is_enabled_by_default():
    assert enabled_codes(CODES) == frozenset(CODES)
    assert enabled_codes(CODES, ignore="ST") == frozenset(CODES[:4])


@pytest.mark.parametrize("select,ignore,on", [
    ("PR004", "PR", True),  # the code is more specific than the family
    ("PR", "PR004", False),
    ("PR", "PR", False),  # a tie: ignore wins
    ("ALL", "ALL", False),
    ("PR00", "PR", True),
    ("ALL", None, True),
])
def test_the_more_specific_of_select_and_ignore_wins(select, ignore, on):
    assert ("PR004" in enabled_codes(CODES, select, ignore)) is on


def test_select_reports_only_what_it_names():
    assert enabled_codes(CODES, select=["RB", "st001"]) == {"RB002", "ST001"}


def test_severities_later_and_more_specific_entries_win():
    got = severity_overrides(["PR=info", "PR004=error,PR=warning", "all=info"], CODES)
    assert got["PR004"] == Severity.ERROR  # more specific than PR and ALL
    assert got["PR001"] == Severity.WARNING  # the later of the two PR entries
    assert got["ST001"] == Severity.INFO
    assert severity_overrides({"RB002": Severity.INFO}, CODES) == {"RB002": Severity.INFO}
    assert severity_overrides(None, CODES) == {}


@pytest.mark.parametrize("entry,match", [("PR", "expected CODE=error|warning|info, got 'PR'"),
                                         ("=error", "expected CODE="),
                                         ("PR=loud", "'loud' is not a severity"),
                                         ("PX=info", "'PX' matches no rule code")])
def test_a_malformed_severity_entry_is_an_error(entry, match):
    with pytest.raises(SelectionError, match=match):
        severity_overrides([entry], CODES)
