"""The diagnostic sink: exact counts, a capped list, and ``skips`` (counting a diagnostic
the cap would drop without building it) leaving everything as ``add`` would."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxtlint import rules as R
from fxtlint.engine._result import DiagnosticSink, FileReport, skipper
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


# -- diagnostics rendered when read: a lint's caller that reads counts builds no sentence ---------
def test_a_diagnostic_builds_its_message_when_first_read_and_equals_one_built_at_once():
    import pickle

    from fxtlint.rules._diagnostics import Diagnostic

    d = _diag(R.string_ref_unregistered, 16, 2, variant=5)
    assert "message" not in d.__dict__ and "details" not in d.__dict__  # nothing built yet
    message, details = R.string_ref_unregistered.render(
        {"where": "event", "ref": 5, "field": "name", "provider": None})
    eager = Diagnostic(16, 2, d.code, message, d.severity, None, 8, details)
    assert d == eager and hash(d) == hash(eager) and d.to_json() == eager.to_json()
    assert d.__dict__["message"] == message and "_lazy" not in d.__dict__  # built once, kept
    lazy = _diag(R.string_ref_unregistered, 16, 2, variant=5)
    assert pickle.loads(pickle.dumps(lazy)) == eager  # pickled with its message built
    # equality, hash and repr read every field: each builds the message first
    for use in (lambda x: x == eager, lambda x: hash(x) == hash(eager), lambda x: repr(x) == repr(eager)):
        assert use(_diag(R.string_ref_unregistered, 16, 2, variant=5))
    # a parameter that could change meanwhile (a list) is rendered at once
    mutable = R.unterminated_at_end.at(0, 0, what="flow", detail="id 1", cut_short=False)
    assert "message" not in mutable.__dict__
    with_list = R.string_ref_unregistered.at(0, 0, where="event", ref=[1], field="name", provider=None)
    assert "message" in with_list.__dict__


@settings(max_examples=200, deadline=None)  # cheap: no trace
@given(st.lists(st.tuples(st.sampled_from(range(len(RULES))), st.integers(0, 3), st.integers(1, 3)), max_size=40))
def test_sorting_reads_messages_only_to_break_ties_and_orders_as_sort_key_does(seq):
    from fxtlint.rules._diagnostics import Diagnostic, sort_diagnostics

    diags = [_diag(RULES[r], 8 * pos, pos, variant) for r, pos, variant in seq]
    expected = sorted(diags, key=Diagnostic.sort_key)
    fresh = [_diag(RULES[r], 8 * pos, pos, variant) for r, pos, variant in seq]
    sort_diagnostics(fresh)
    assert [d.to_json() for d in fresh] == [d.to_json() for d in expected]
    # a second draw, sorted and not read: only those sharing a position had their message built
    positions = [(d.offset, d.record_index, d.code) for d in diags]
    again = [_diag(RULES[r], 8 * pos, pos, variant) for r, pos, variant in seq]
    sort_diagnostics(again)
    for d in again:
        shared = positions.count((d.offset, d.record_index, d.code)) > 1
        assert ("message" in d.__dict__) == shared


def test_a_severity_override_keeps_the_sentence_unbuilt_and_equals_replace():
    import dataclasses

    sink = DiagnosticSink(severity_overrides={R.string_ref_unregistered.code: Severity.INFO})
    d = _diag(R.string_ref_unregistered, 16, 2, variant=7)
    sink.add(d)
    (kept,) = sink.kept
    assert kept.severity is Severity.INFO and "message" not in kept.__dict__
    assert kept == dataclasses.replace(_diag(R.string_ref_unregistered, 16, 2, variant=7), severity=Severity.INFO)
    assert d.severity is not Severity.INFO  # the reported one is not changed


# -- diagnostics kept as rows: ``add_moved`` and a report that builds its list when read ---------
@settings(max_examples=300, deadline=None)  # cheap: a sink, no trace
@given(events, st.integers(1, 4), st.booleans(), st.booleans(), st.booleans(),
       st.lists(st.tuples(st.sampled_from(range(len(RULES))), st.integers(1, 3)), min_size=1, max_size=4))
def test_a_copy_said_as_rows_leaves_the_sink_as_skipping_and_adding_each(seq, cap, override, ignore, listen, record):
    """``add_moved`` (a record's copy said from the diagnostics noted of another copy): the
    counts, severities, bounds and kept diagnostics are those ``skips`` then ``add`` of each,
    moved to the copy's position, leave (an override, a listener: each built and added)."""
    options = {"per_rule_cap": cap,
               "severity_overrides": {RULES[0].code: Severity.INFO} if override else {},
               "ignored": frozenset({RULES[1].code}) if ignore else frozenset()}
    every = DiagnosticSink(**options, listener=[].append if listen else None)
    rows = DiagnosticSink(**options, listener=[].append if listen else None)
    # the copy noted at record 2 (offset 16), with a span from the record's start
    noted = []
    for r, variant in record:
        d = RULES[r].at(16, 2, span=(18, 20), record_size=8, **_diag(RULES[r], 16, 2, variant).__dict__["_lazy"][1])
        noted.append((RULES[r], (2, 4), dict(d.__dict__)))
    for r, pos, variant in seq:
        for sink in (every, rows):
            sink.add(_diag(RULES[r], 8 * pos, pos, variant))
        if pos % 3 == 0:  # a copy of the noted record at this position
            rows.add_moved(noted, 8 * pos, pos)
            for (r2, variant2), (rule, _, _) in zip(record, noted):
                if not every.skips(rule, 8 * pos, pos):
                    params = _diag(RULES[r2], 0, 0, variant2).__dict__["_lazy"][1]
                    every.add(rule.at(8 * pos, pos, span=(8 * pos + 2, 8 * pos + 4), record_size=8, **params))
    assert _state(rows) == _state(every) and rows._bound == every._bound
    from fxtlint.engine._result import FileReport

    for sink in (rows, every):  # a report of rows says it is capped as one of its diagnostics would
        report = FileReport.from_sink(path="p", format="trace", records=1, size=8, byte_order="little", sink=sink)
        assert report.capped == (sum(sink.counts.values()) > len(sink.kept))
        assert report.capped == (sum(report.counts.values()) > len(report.diagnostics))


# -- a block of places (``add_moved_block``: the walk's copies said natively) -----------------
def _noted(record, at: int = 16, index: int = 2) -> tuple:
    """Diagnostics noted of a copy at ``at`` (record ``index``) as ``add_moved`` takes them: (rule,
    span from the record's start, fields), for each (rule ordinal, parameter) of ``record``."""
    noted = []
    for r, variant in record:
        d = RULES[r].at(at, index, span=(at + 2, at + 4), record_size=8,
                        **_diag(RULES[r], at, index, variant).__dict__["_lazy"][1])
        noted.append((RULES[r], (2, 4), dict(d.__dict__)))
    return tuple(noted)


def _block(places) -> tuple[bytes, dict]:
    """``take_moved``'s block of places ((slot, record index) each, at offset 8 * index) and its
    count per slot."""
    import array

    per: dict = {}
    for slot, _ in places:
        per[slot] = per.get(slot, 0) + 1
    return array.array("q", [v for slot, i in places for v in (slot, 8 * i, i)]).tobytes(), per


def _each(sink, noted, places) -> None:
    """What a block says, one copy at a time: each diagnostic asked of the cap, then added."""
    for slot, i in places:
        for rule, span, fields in noted[slot]:
            if not sink.skips(rule, 8 * i, i):
                d = object.__new__(type(_diag(rule, 0, 0)))
                d.__dict__.update(fields, offset=8 * i, record_index=i, span=(8 * i + span[0], 8 * i + span[1]))
                sink.add(d)


def _report(sink):
    from fxtlint.engine._result import FileReport

    return FileReport.from_sink("p", "trace", 1, 8, "little", sink)


record_st = st.lists(st.tuples(st.sampled_from(range(len(RULES))), st.integers(1, 3)), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None)  # cheap: a sink, no trace
@given(st.lists(st.tuples(events, st.lists(st.tuples(st.integers(0, 1), st.integers(0, 30)), max_size=40)),
                max_size=5),
       st.integers(1, 6), st.booleans(), st.booleans(), st.booleans(), record_st, record_st)
def test_a_block_of_places_leaves_the_sink_as_adding_each_copy(takes, cap, override, ignore, listen, one, two):
    """``add_moved_block`` (the walk's copies of two noted records, a take's places in file
    order, after the take's other diagnostics): the counts, severities, bounds, kept
    diagnostics and report are those of asking the cap of each copy's diagnostics and adding
    it (held as the block where no rule reaches its cap; counted where every bound is before
    the block; else each copy added as ``add_moved`` adds it; with an override, an ignored
    code or a listener, each too, the listener told each in order)."""
    options = {"per_rule_cap": cap,
               "severity_overrides": {RULES[0].code: Severity.INFO} if override else {},
               "ignored": frozenset({RULES[1].code}) if ignore else frozenset()}
    heard: tuple[list, list] = ([], [])
    every = DiagnosticSink(**options, listener=heard[0].append if listen else None)
    blocks = DiagnosticSink(**options, listener=heard[1].append if listen else None)
    noted = [_noted(one), _noted(two)]
    for seq, places in takes:
        for r, pos, variant in seq:
            for sink in (every, blocks):
                sink.add(_diag(RULES[r], 8 * pos, pos, variant))
        places = sorted(places, key=lambda p: p[1])
        if places:
            blocks.add_moved_block(noted, *_block(places))
            _each(every, noted, places)
    assert _state(blocks) == _state(every) and blocks._bound == every._bound
    assert [d.to_json() for d in heard[1]] == [d.to_json() for d in heard[0]]
    _bounds_read_as_each_row_says(blocks, every)
    assert _report(blocks).to_json() == _report(every).to_json()


def _bounds_read_as_each_row_says(*sinks) -> None:
    """The greatest position of each rule's rows, as the cap reads it (``_bound_of``: blocks
    asked once, tuple rows at C speed), is each row's (``_position``)."""
    from fxtlint.engine._result import _bound_of, _position

    for sink in sinks:
        for lst in sink._kept.values():
            if lst:
                assert _bound_of(lst) == max(map(_position, lst))


def test_the_bound_of_rows_of_every_kind_is_their_greatest_position():
    """Rows kept as tuples (``add_at``, ``add_moved``), as diagnostics (``add``) and as blocks
    (``add_moved_block``), alone and mixed, in and out of file order: ``_bound_of`` reads the
    position each says, and the greatest."""
    from fxtlint.engine._result import _bound_of

    noted = [_noted([(0, 1)])]
    rows = DiagnosticSink(per_rule_cap=100)
    for i in (5, 3, 9, 1):
        rows.add_at(RULES[0], 8 * i, i, 8, _diag(RULES[0], 8 * i, i, 1).__dict__["_lazy"][1])
    assert _bound_of(rows._kept[RULES[0].code]) == (72, 9)
    mixed = DiagnosticSink(per_rule_cap=100)
    mixed.add_moved_block(noted, *_block([(0, 4), (0, 11)]))
    mixed.add(_diag(RULES[0], 8 * 7, 7))
    mixed.add_moved(noted[0], 8 * 2, 2)
    assert _bound_of(mixed._kept[RULES[0].code]) == (88, 11)
    mixed.add(_diag(RULES[0], 8 * 12, 12))
    assert _bound_of(mixed._kept[RULES[0].code]) == (96, 12)
    _bounds_read_as_each_row_says(rows, mixed)


def test_a_block_under_the_cap_is_held_as_it_is_until_read():
    """A block whose rules stay under the cap is kept as the block (no row per copy), counted
    exactly; a report made then lists its copies' diagnostics, built when read; a rule reaching
    its cap later has its bound where adding each copy would have put it."""
    from fxtlint.engine._result import _Held

    noted = [_noted([(0, 1), (2, 1)])]
    blocks, every = DiagnosticSink(per_rule_cap=5), DiagnosticSink(per_rule_cap=5)
    places = [(0, 3), (0, 7), (0, 9)]
    blocks.add_moved_block(noted, *_block(places))
    _each(every, noted, places)
    assert all(type(x) is _Held for lst in blocks._kept.values() for x in lst)
    assert sum(map(len, blocks._kept.values())) == 6 and dict(blocks.counts) == dict(every.counts)
    report = _report(blocks)
    assert report.counts == {RULES[0].code: 3, RULES[2].code: 3} and not report.capped
    assert report.to_json() == _report(every).to_json()
    for sink in (blocks, every):  # two more of rule 0, the later first: the cap reached at the second
        sink.add(_diag(RULES[0], 8 * 8, 8))
        sink.add(_diag(RULES[0], 8 * 2, 2))
    assert blocks._bound == every._bound == {RULES[0].code: (8 * 9, 9)}  # (the block's last place, unbuilt)
    assert _state(blocks) == _state(every) and any(type(x) is _Held for x in blocks._kept[RULES[0].code])


@pytest.mark.parametrize(("cap", "before", "first", "held", "added", "counted"), [
    (4, 2, 20, 1, 1, 0),  # the block reaches the cap: one held, the next added (the bound set there)
    (1, 0, 20, 0, 1, 1),  # cap 1: the first added (it reaches the cap), the second counted
    (3, 5, 20, 0, 0, 2),  # every rule's bound before the block: counted, nothing kept
    (3, 5, 2, 0, 1, 1),   # ... its first copy at the bound (record 2): added (kept), the second counted
    (9, 2, 20, 2, 0, 0)])  # under the cap: held
def test_a_block_at_the_cap_edges(monkeypatch, cap, before, first, held, added, counted):
    """A block of two copies (records ``first`` and 21) of a record with one diagnostic, after
    ``before`` diagnostics of its rule at records 0, 1, ...: held, added copy by copy
    (``add_moved``) or counted as dropped, and the sink left as adding each copy leaves it."""
    from fxtlint.engine._result import _Held

    calls: list = []
    real = DiagnosticSink.add_moved
    monkeypatch.setattr(DiagnosticSink, "add_moved", lambda self, *a: (calls.append(a[2]), real(self, *a))[1])
    noted = [_noted([(2, 1)])]
    blocks, every = DiagnosticSink(per_rule_cap=cap), DiagnosticSink(per_rule_cap=cap)
    for i in range(before):
        for sink in (blocks, every):
            sink.add(_diag(RULES[2], 8 * i, i, variant=i + 1))
    places = [(0, first), (0, 21)]
    blocks.add_moved_block(noted, *_block(places))
    _each(every, noted, places)
    assert _state(blocks) == _state(every) and blocks._bound == every._bound
    lst = blocks._kept[RULES[2].code]
    if first < 20:  # (a copy at the bound is kept)
        assert first in {d.record_index for d in blocks.kept}
    assert (sum(type(x) is _Held for x in lst), len(calls)) == (held, added)
    assert blocks.counts[RULES[2].code] == before + 2 and counted == 2 - held - added


@pytest.mark.parametrize("override", [False, True])
def test_a_flood_in_a_block_adds_copies_until_the_cap_is_reached_and_counts_the_rest(monkeypatch, override):
    """A block of 50 copies of a record with one diagnostic, the cap at 3: the first two held
    (with an override, each added), the third added (it sets the bound), the 47 after it
    counted in one step."""
    calls: list = []
    real = DiagnosticSink.add_moved
    monkeypatch.setattr(DiagnosticSink, "add_moved", lambda self, *a: (calls.append(a[2]), real(self, *a))[1])
    options = {"per_rule_cap": 3, "severity_overrides": {RULES[2].code: Severity.INFO} if override else {}}
    noted = [_noted([(2, 1)])]
    blocks, every = DiagnosticSink(**options), DiagnosticSink(**options)
    places = [(0, i) for i in range(50)]
    blocks.add_moved_block(noted, *_block(places))
    _each(every, noted, places)
    assert _state(blocks) == _state(every) and blocks._bound == every._bound == {RULES[2].code: (16, 2)}
    assert calls == ([0, 1, 2] if override else [2]) and blocks.counts[RULES[2].code] == 50


@pytest.mark.parametrize("option", ["listener", "override", "ignored"])
def test_a_block_with_a_listener_an_override_or_an_ignored_code(option):
    """With a listener (told each diagnostic, in file order) or a severity override, a block's
    copies are added one by one, as ``add_moved`` adds them; an ignored code is not counted
    (the block is held for the others)."""
    from fxtlint.engine._result import _Held

    heard: tuple[list, list] = ([], [])
    options = [{"listener": heard[k].append} if option == "listener" else
               {"severity_overrides": {RULES[2].code: Severity.INFO}} if option == "override" else
               {"ignored": frozenset({RULES[0].code})} for k in (0, 1)]
    noted = [_noted([(0, 1), (2, 2)]), _noted([(2, 3)])]
    blocks, every = DiagnosticSink(**options[0]), DiagnosticSink(**options[1])
    places = [(0, 3), (1, 4), (0, 5)]
    blocks.add_moved_block(noted, *_block(places))
    _each(every, noted, places)
    assert _state(blocks) == _state(every)
    assert any(type(x) is _Held for lst in blocks._kept.values() for x in lst) == (option == "ignored")
    assert [(d.record_index, d.code) for d in heard[0]] == [(d.record_index, d.code) for d in heard[1]]
    if option == "listener":
        assert [d.record_index for d in heard[0]] == [3, 3, 4, 5, 5]
    if option == "override":
        assert {d.severity for d in blocks.kept if d.code == RULES[2].code} == {Severity.INFO}
    if option == "ignored":
        assert RULES[0].code not in blocks.counts and blocks.counts[RULES[2].code] == 3


def test_a_report_builds_its_diagnostics_when_first_read():
    import copy
    import pickle

    from fxtlint.engine._result import FileReport

    sink = DiagnosticSink(per_rule_cap=2)
    for i in (5, 3, 4, 1):
        sink.add(_diag(R.string_ref_unregistered, 8 * i, i, variant=i))
    report = FileReport.from_sink(path="p", format="trace", records=6, size=48, byte_order="little", sink=sink)
    assert "diagnostics" not in report.__dict__ and "_rows" in report.__dict__  # rows until read
    assert report.capped and report.has_errors and report.counts == {R.string_ref_unregistered.code: 4}
    assert "diagnostics" not in report.__dict__  # the counts and exit status read no diagnostic
    sink.add(_diag(R.string_ref_unregistered, 0, 0))  # (the sink goes on: the report is as it was made)
    again = FileReport.from_sink(path="p", format="trace", records=6, size=48, byte_order="little", sink=sink)
    assert pickle.loads(pickle.dumps(again)) == again and copy.deepcopy(again) == again
    assert [d.record_index for d in report.diagnostics] == [1, 3] and report.diagnostics is report.diagnostics
    assert report == FileReport("p", "trace", 6, 48, "little", [_diag(R.string_ref_unregistered, 8 * i, i, variant=i)
                                                               for i in (1, 3)], report.counts,
                                report.severity_counts)
    assert [d.record_index for d in again.diagnostics] == [0, 1] and report != again


def test_what_is_built_when_read_is_built_once_by_threads_reading_at_once():
    """A report's diagnostics and a diagnostic's message read by several threads at once:
    each gets the same values, none an error (whichever thread builds them keeps them)."""
    import sys
    import threading

    from fxtlint.engine._result import FileReport

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # (threads switch within the building)
    try:
        for _ in range(60):
            sink = DiagnosticSink()
            for i in range(50):
                sink.add(_diag(R.string_ref_unregistered, 8 * i, i, variant=i))
            report = FileReport.from_sink(path="p", format="trace", records=50, size=400, byte_order="little",
                                          sink=sink)
            d = _diag(R.unterminated_at_end, 0, 0, variant=3)
            got, errors = [], []

            def read(report=report, d=d, got=got, errors=errors):
                try:
                    got.append(([x.to_json() for x in report.diagnostics], d.message, d.details))
                except Exception as e:  # (what the test looks for)
                    errors.append(e)

            threads = [threading.Thread(target=read) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            assert not errors and len(got) == 4 and all(g == got[0] for g in got)
            assert "_rows" not in report.__dict__ and "_lazy" not in d.__dict__
    finally:
        sys.setswitchinterval(switch)


@pytest.mark.parametrize("kept", [False, True])
def test_from_sink_sets_every_field_the_constructor_sets(kept):
    """``from_sink`` makes the report without ``__init__``'s call: the report equals one made by
    the constructor from the same values (a field the constructor gains and ``from_sink`` does
    not set fails here)."""
    sink = DiagnosticSink()
    if kept:
        sink.add(R.record_size_zero.at(8, 1, record_size=0, remaining=8))
    made = FileReport.from_sink("p", "trace", 2, 16, "little", sink, {"record_kinds": {}})
    by_init = FileReport("p", "trace", 2, 16, "little", list(made.diagnostics), dict(made.counts),
                         dict(made.severity_counts), {"record_kinds": {}})
    assert made == by_init
    assert set(vars(by_init)) <= set(vars(made))
