"""The diagnostic sink: exact counts, a capped list, and ``skips`` (counting a diagnostic
the cap would drop without building it) leaving everything as ``add`` would."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fxtlint import rules as R
from fxtlint.engine._result import DiagnosticSink, skipper
from fxtlint.rules._diagnostics import Severity

RULES = [R.unterminated_at_end, R.duration_end_without_begin, R.string_ref_unregistered]


def _diag(rule, offset, index, variant=1):
    params = {R.unterminated_at_end.code: {"what": "flow", "detail": f"id {variant:#x}", "cut_short": False},
              R.duration_end_without_begin.code: {"cat": "c", "name": "n", "before_first_begin": False,
                                                "mode_given": False},
              R.string_ref_unregistered.code: {"where": "event", "ref": variant, "field": "name", "provider": None}}
    return rule.at(offset, index, record_size=8, **params[rule.code])


def _state(sink: DiagnosticSink):
    return [d.to_json() for d in sink.kept], dict(sink.counts), dict(sink.severity_of)


# (rule, position, a parameter: two diagnostics at one position may differ in their message)
events = st.lists(st.tuples(st.sampled_from(range(len(RULES))), st.integers(0, 20), st.integers(1, 3)), max_size=300)


@settings(max_examples=400, deadline=None)  # cheap: a sink, no trace
@given(events, st.integers(1, 4), st.booleans(), st.booleans())
def test_skipping_what_the_cap_drops_leaves_the_sink_as_adding_it_would(seq, cap, override, ignore):
    options = {"per_rule_cap": cap,
               "severity_overrides": {RULES[0].code: Severity.INFO} if override else {},
               "ignored": frozenset({RULES[1].code}) if ignore else frozenset()}
    every, asked = DiagnosticSink(**options), DiagnosticSink(**options)
    skips = skipper(asked.add)
    for r, pos, variant in seq:
        rule = RULES[r]
        every.add(_diag(rule, 8 * pos, pos, variant))
        if not skips(rule, 8 * pos, pos):
            asked.add(_diag(rule, 8 * pos, pos, variant))
    assert _state(asked) == _state(every)


def test_many_of_one_defect_are_counted_not_built():
    """65,537 durations never ended (the PR012 golden file): the lint builds the first 200 of
    them (found in file order, the cap's), counts them all, and keeps those."""
    sink = DiagnosticSink()
    skips = skipper(sink.add)
    built = 0
    for i in range(5000):
        if not skips(R.unterminated_at_end, 8 * i, i):
            sink.add(_diag(R.unterminated_at_end, 8 * i, i))
            built += 1
    assert sink.counts[R.unterminated_at_end.code] == 5000
    assert built == 200 and [d.record_index for d in sink.kept] == list(range(200))


def test_a_listener_or_another_callable_is_never_skipped():
    seen = []
    sink = DiagnosticSink(per_rule_cap=1, listener=seen.append)
    for i in range(10):
        sink.add(_diag(RULES[0], 8 * i, i))
    assert not sink.skips(RULES[0], 800, 100)
    assert skipper(print) is None and skipper(seen.append) is None


@settings(max_examples=300, deadline=None)  # cheap: a sink, no trace
@given(events, st.integers(1, 4), st.booleans(), st.lists(st.sampled_from(range(len(RULES))), min_size=1, max_size=4))
def test_skipping_a_whole_record_counts_as_adding_each_would(seq, cap, ignore, record):
    """``skips_all``: every rule of a record dropped by the cap (counted) or none counted."""
    options = {"per_rule_cap": cap, "ignored": frozenset({RULES[1].code}) if ignore else frozenset()}
    every, asked = DiagnosticSink(**options), DiagnosticSink(**options)
    for r, pos, variant in seq:
        every.add(_diag(RULES[r], 8 * pos, pos, variant))
        asked.add(_diag(RULES[r], 8 * pos, pos, variant))
    rules = [RULES[r] for r in record]
    before = dict(asked.counts)
    if asked.skips_all(rules, 8 * 21, 21):
        assert all(asked.skips(rule, 8 * 21, 21) for rule in rules)  # (each would be dropped again)
        for rule in rules:
            every.add(_diag(rule, 8 * 21, 21))
            every.add(_diag(rule, 8 * 21, 21))
    else:
        assert dict(asked.counts) == before
    assert _state(asked) == _state(every)
