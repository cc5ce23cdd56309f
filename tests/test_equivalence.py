"""The lint's two engines give the same report: the native walk (the default where it is
built) and the reference engine, compared whole, in JSON form (spans, record sizes,
severities and details included), as glTF-Validator compares golden reports
(``tests/test_nwalk.py`` has the hostile inputs, big-endian traces, log streams and
streams). And the reader's prefix property at every 8-byte cut."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from hypothesis import given, settings

import fxtlint
import writer_traces
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, SLOW_CASES
from fxtlint import strategies as fst
from fxtlint.engine import _native
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._reader import declared_size, detect_byte_order
from fxtlint.rules import all_rules

# the lint's engine under test: the native walk where it is built (the reference otherwise,
# which CI, where it is built, does not allow: FXTLINT_EXPECT_NATIVE)
ENGINE = "walk"

REPO = Path(__file__).resolve().parent.parent
INPUTS = sorted((REPO / "corpus" / "golden").glob("*.fxt")) + sorted(CORPUS_REAL.glob("*.fxt"))


def assert_same_report(fast: fxtlint.FileReport, ref: fxtlint.FileReport) -> None:
    assert fast.to_json() == ref.to_json()
    assert fast.diagnostics == ref.diagnostics  # Diagnostic equality compares every field


def test_the_engine_under_test_is_the_native_walk_where_it_is_built():
    import os

    _, walk = lint_walk(fxtlint.build.archive(fxtlint.build.magic()), engine=ENGINE)
    if _native.nwalk() is None and os.environ.get("FXTLINT_EXPECT_NATIVE") != "1":
        pytest.skip("the native walk is not built: the lint runs on the reference engine")
    assert walk._native is not None


@pytest.mark.parametrize("path", INPUTS, ids=lambda p: p.name)
def test_engines_agree_on_whole_reports(path):
    data = path.read_bytes()
    assert_same_report(fxtlint.lint_bytes(data, engine=ENGINE), fxtlint.lint_bytes(data, engine="reference"))


@pytest.mark.parametrize("delta", [1, -1, 2], ids=lambda d: f"size{d:+d}")
def test_engines_agree_on_whole_reports_when_a_size_is_off(delta):
    data = writer_traces.with_size_off_by(delta)
    fast = fxtlint.lint_bytes(data, engine=ENGINE)
    assert_same_report(fast, fxtlint.lint_bytes(data, engine="reference"))
    # the lint reads by the declared sizes: +1 and +2 skip the swallowed duration end (+1
    # then frames inside it); -1 is ST001, whose content settles the record's size
    assert (fast.records, set(fast.counts)) == {
        1: (30, {"FR004", "PR004", "UN001"}), 2: (31, {"FR004", "PR004"}), -1: (32, {"ST001"})}[delta]


@settings(max_examples=40, deadline=None)
@given(fst.archives())
def test_engines_agree_on_whole_reports_of_drawn_traces(data):
    assert_same_report(fxtlint.lint_bytes(data, engine=ENGINE), fxtlint.lint_bytes(data, engine="reference"))


@settings(max_examples=40, deadline=None)
@given(fst.mutated_archives(codes=DRAWN_MUTATIONS))
def test_engines_agree_on_whole_reports_of_drawn_defects(case):
    data, _ = case
    assert_same_report(fxtlint.lint_bytes(data, engine=ENGINE), fxtlint.lint_bytes(data, engine="reference"))


@pytest.mark.parametrize("change", [
    {"span": (0, 1)}, {"record_size": 4096}, {"severity": fxtlint.Severity.INFO}, {"details": {"x": 1}},
])
def test_a_difference_outside_code_offset_and_message_fails_the_comparison(change):
    report = fxtlint.lint_bytes(all_rules()[0].bad.build())
    d = report.diagnostics[0]
    other = dataclasses.replace(d, **change)
    assert other != d
    changed = dataclasses.replace(report, diagnostics=[other, *report.diagnostics[1:]])
    with pytest.raises(AssertionError):
        assert_same_report(changed, report)


def test_diagnostics_sort_by_their_sort_key_not_by_comparison():
    report = fxtlint.lint_bytes(all_rules()[0].bad.build())
    d = report.diagnostics[0]
    later = dataclasses.replace(d, offset=d.offset + 8)
    assert sorted([later, d], key=fxtlint.Diagnostic.sort_key) == [d, later]
    with pytest.raises(TypeError):
        sorted([later, d])  # no ordering that ignores fields pretends to be equality
    assert hash(d) == hash(dataclasses.replace(d))


def _declared(data: bytes, r) -> int:
    order = detect_byte_order(data) or "little"
    return declared_size(int.from_bytes(data[r.offset : r.offset + 8], order))


def _prefix_cases():
    # (not the slow cases' examples: PR012's is 1 MB, 2.5 s of encoding in every pytest
    # process's collection only to be left out by its size)
    rules = [r for r in all_rules() if r.code not in SLOW_CASES]
    out = [(r.code + "-bad", r.bad.build()) for r in rules if r.bad.input_format == "trace"]
    out += [(r.code + "-good", r.good.build()) for r in rules if r.good.input_format == "trace"]
    out += [(f"writer-size{d:+d}", writer_traces.with_size_off_by(d)) for d in (1, -1)]
    return [(name, data) for name, data in out if len(data) <= 2048]


PREFIX_CASES = _prefix_cases()


@pytest.mark.parametrize("name, data", PREFIX_CASES, ids=[n for n, _ in PREFIX_CASES])
def test_every_8_byte_prefix_reads_as_the_whole_input_up_to_the_cut(name, data):
    """Cut at every record-aligned point: what the prefix holds whole is read exactly as
    in the whole input, the rest is one truncated record at the most. Up to the first
    record whose content settled its size (FR004 and ST001 resynchronisation): that framing
    looks at the records after it, so a prefix that cuts them may frame differently."""
    whole, _ = fxtlint.read_records(data)
    settled = [i for i, r in enumerate(whole) if r.size_words != _declared(data, r)]
    assert bool(settled) == (name.startswith("writer-size") or name == "FR004-bad"), settled  # the reader resyncs
    sure = whole[: settled[0]] if settled else whole
    for cut in range(0, len(data) + 1, 8):
        recs, diags = fxtlint.read_records(data[:cut])
        inside = [r for r in sure if r.end <= cut]
        assert recs[: len(inside)] == inside, cut
        assert [(r.offset, r.size_words) for r in recs[: len(inside)]] == [(r.offset, r.size_words) for r in inside]
        if len(inside) == len(sure) and settled:
            continue
        assert len(recs) - len(inside) <= 1, cut
        for d in diags:
            assert 0 <= d.offset <= cut and (d.span is None or 0 <= d.span[0] <= d.span[1] <= cut), (cut, d)
