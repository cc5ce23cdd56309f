"""Conformance reports: coverage from the tables, rule results, verdicts, the JSON schema.

Every rule's own examples drive the per-rule results: its failing example must fail
it, its passing example must pass it (be exercised and not trip), so a scope too
narrow or too wide shows up here.
"""

from __future__ import annotations

import functools
import json
from fractions import Fraction
from pathlib import Path

import jsonschema
import pytest

import fxtlint
import writer_traces
from conftest import CORPUS_REAL, REPO
from fxtlint import build as B
from fxtlint import rules as R
from fxtlint.engine import _native
from fxtlint.engine._reader import iter_records
from fxtlint.render import _report_words as W
from fxtlint.rules._rule_scope import EXPANSIONS, SCOPES, features_of
from fxtlint.spec._tables import tables
from fxtlint.writer_report._conformance_report import combined_report, trace_report
from fxtlint.writer_report._coverage import LARGEST_KEPT, CoverageCollector

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
_T = tables()

# a passing example with nothing the rule looks at: the rule is "not exercised" there
GOOD_NOT_EXERCISED = {"EV003": "the only provider event is buffer-full, so a trace without one passes"}


# one validator for every report (``jsonschema.validate`` checks the schema against its
# metaschema on each call: nine tenths of a report test's time); the schema itself is
# checked once, by test_the_report_schema_is_valid
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _validate(doc: dict) -> None:
    VALIDATOR.validate(json.loads(json.dumps(doc)))


def test_the_report_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        _validate({"verdict": "not an object"})


def _result(report: dict, code: str) -> str:
    return next(r["result"] for r in report["rules"] if r["code"] == code)


def _coverage(data: bytes) -> CoverageCollector:
    cov = CoverageCollector()
    for rec in iter_records(data, lambda d: None):
        cov.feed(rec)
    return cov


ENGINES = ["reference"] + ([] if _native.native_missing() else ["native"])


# --------------------------------------------------------------------------- rule scopes
def test_every_registered_rule_has_a_scope():
    assert sorted(SCOPES) == [r.code for r in R.all_rules()]


def test_scopes_name_only_kinds_and_arguments_of_the_tables():
    kinds = {leaf.name for leaf in _T.record_leaves()}
    args = {a.name for a in _T.arguments.values()}
    for code in SCOPES:
        assert features_of(code), code
        for feat in features_of(code):
            if feat.startswith("kind:") and not feat.endswith(".unknown"):
                assert feat[5:] in kinds, (code, feat)
            if feat.startswith("arg:"):
                assert feat[4:] in args, (code, feat)


def test_layout_scopes_follow_the_tables():
    # the string record has always-zero bits, so RB003 looks at it; an instant event has none
    assert "kind:string" in EXPANSIONS["layout:zero"]
    assert "kind:event.instant" not in EXPANSIONS["layout:zero"]
    # UN004 checks the fields the tables give it (kernel object types), not the log severity
    assert "kind:kernel_object" in features_of("UN004")
    assert not any("log" in f for f in features_of("UN004"))
    assert "kind:initialization" not in EXPANSIONS["layout:selector"]


@pytest.mark.parametrize("rule", R.all_rules(), ids=lambda r: r.code)
def test_each_rule_fails_its_bad_example_and_passes_its_good_one(rule):
    bad = trace_report(rule.bad.build(), input_format=rule.bad.input_format)
    good = trace_report(rule.good.build(), input_format=rule.good.input_format)
    assert _result(bad, rule.code) == "failed"
    assert _result(good, rule.code) == ("not_exercised" if rule.code in GOOD_NOT_EXERCISED else "passed")


def test_a_trace_without_async_events_does_not_pass_the_async_rules():
    data = B.archive(B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2),
                     B.event("duration_begin", 1), B.event("duration_end", 2))
    rep = trace_report(data)
    assert rep["verdict"]["status"] == "conforming"
    for code in ("PR005", "PR006", "PR007", "PR008", "EV001", "TM002", "SL001"):
        assert _result(rep, code) == "not_exercised", code
    for code in ("PR001", "PR002", "PR003", "RF001", "RF002", "MG002"):
        assert _result(rep, code) == "passed", code


# --------------------------------------------------------------------------- coverage
def test_coverage_lists_come_from_the_tables():
    cov = _coverage(SAMPLE.read_bytes()).coverage()
    assert [r["kind"] for r in cov["record_kinds"]] == [leaf.name for leaf in _T.record_leaves()]
    assert [r["type"] for r in cov["argument_types"]] == sorted(_T.arguments)
    assert [r["value"] for r in cov["blob_types"]] == sorted(_T.enums["blob_type"])
    assert [r["type"] for r in cov["record_types"]] == sorted(_T.records)


def test_the_sample_uses_what_make_sample_wrote():
    cov = _coverage(SAMPLE.read_bytes()).coverage()
    unused = {r["kind"] for r in cov["record_kinds"] if not r["used"]}
    # the sample skips these five on purpose (make_sample.py): everything else is used
    assert unused == {"metadata.provider_event", "event.async_instant", "event.flow_step",
                      "scheduling.legacy_context_switch", "large.blob.no_metadata"}
    used_args = {r["kind"] for r in cov["argument_types"] if r["used"]}
    assert used_args == {"uint32", "int64", "double", "bool", "string", "koid", "int32"}
    assert [r["name"] for r in cov["blob_types"] if r["used"]] == ["data"]
    assert [r["name"] for r in cov["object_types"] if r["used"]] == ["process", "thread"]
    assert cov["providers"] == [{"id": 1, "name": "sample-provider", "strings": 4, "threads": 2,
                                 "ticks_per_second": 1_000_000_000}]
    assert cov["large_records"] == 1


def test_inline_and_indexed_refs_are_counted_apart():
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2),
                     B.event("instant", 1, category=1, name="inline"),        # indexed cat, inline name
                     B.event("instant", 2, thread=(1, 2), category=0, name=1))  # inline thread, empty cat
    cov = _coverage(data).coverage()
    assert cov["string_refs"] == {"inline": 1, "indexed": 2, "empty": 1}
    assert cov["thread_refs"] == {"inline": 1, "indexed": 1}


def test_statistics_time_span_uses_the_tick_rate():
    data = B.archive(B.magic(), B.initialization(1000), B.string(1, "c"), B.thread(1, 1, 2),
                     B.event("duration_complete", 500, end_timestamp=2500),
                     B.event("instant", 1500))
    st = _coverage(data).statistics()
    assert st["time"] == {"first_ticks": 500, "first_ticks_per_second": 1000, "last_ticks": 2500,
                          "last_ticks_per_second": 1000, "span_ticks": 2000, "ticks_per_second": [1000],
                          "span_seconds": 2.0}
    assert st["events"]["durations"]["duration_complete"] == 1
    assert st["events"]["instants"]["instant"] == 1


def _two_clocks(order: str = "little", fast: int = 10**9, slow: int = 1000, fast_ticks=(1_000_500, 3_000_000),
                slow_ticks=(2, 2)) -> bytes:
    """Provider 1 at ``fast`` ticks/s, provider 2 at ``slow``: raw ticks say nothing of
    which comes first."""
    ev = functools.partial(B.event, "instant", thread=(1, 2), category="c", name="n")
    return B.archive(B.magic(), B.provider_info(1, "fast"), B.initialization(fast), ev(fast_ticks[0]),
                     ev(fast_ticks[1]), B.provider_info(2, "slow"), B.initialization(slow), ev(slow_ticks[0]),
                     ev(slow_ticks[1]), byte_order=order)


@pytest.mark.parametrize("order", ["little", "big"])
def test_the_time_span_is_the_trace_s_across_providers_at_their_own_rates(order):
    """1.0005 ms and 3 ms at 1 GHz, 2 ms at 1 kHz: the first instant is tick 1,000,500 of
    1 GHz, the last tick 3,000,000 of 1 GHz (raw ticks would give 2 to 3,000,000)."""
    st = _coverage(_two_clocks(order)).statistics()["time"]
    assert (st["first_ticks"], st["first_ticks_per_second"], st["last_ticks"], st["last_ticks_per_second"]) == (
        1_000_500, 10**9, 3_000_000, 10**9)
    assert st["span_ticks"] == 1_999_500 and st["span_seconds"] == 0.0019995
    st = _coverage(_two_clocks(order, fast_ticks=(1_000_500, 1_500_000))).statistics()["time"]
    assert (st["first_ticks"], st["first_ticks_per_second"], st["last_ticks"], st["last_ticks_per_second"]) == (
        1_000_500, 10**9, 2, 1000)
    assert st["span_ticks"] is None and st["span_seconds"] == 0.0009995
    assert W.span_text(st) == "999.5 µs (tick 1,000,500 of 1 GHz (1.0005 ms) to tick 2 of 1 kHz (2 ms)) " \
                              "at 1000, 1000000000 ticks/s"


def test_the_time_span_near_2_64_at_rates_that_do_not_divide_is_exact():
    """Ticks near 2^64 at 10^9+7 and 999,999,937 ticks/s: the last instant is the one
    that is later exactly, and the span is the exact difference, rounded once."""
    a, b = 10**9 + 7, 999_999_937
    big = (1 << 64) - 1
    # the tick of b just after (big / a) seconds: later by less than a tick of b
    after = -(-big * b // a)
    data = _two_clocks(fast=a, slow=b, fast_ticks=(5, big), slow_ticks=(after, after))
    st = _coverage(data).statistics()["time"]
    assert (st["last_ticks"], st["last_ticks_per_second"]) == (after, b)
    exact = Fraction(after, b) - Fraction(5, a)
    assert st["span_seconds"] == float(exact)
    assert float(Fraction(after, b)) == float(Fraction(big, a))  # a float could not tell them apart


def test_largest_records_are_a_bounded_top_list():
    strings = [B.string(i, "x" * (8 * i)) for i in range(1, 40)]
    st = _coverage(B.archive(B.magic(), *strings)).statistics()
    sizes = [r["bytes"] for r in st["largest_records"]]
    assert len(sizes) == LARGEST_KEPT
    assert sizes == sorted(sizes, reverse=True) and sizes[0] == 8 + 8 * 39
    assert st["records"] == 40 and st["string_table"]["registered"] == 39


# --------------------------------------------------------------------------- verdicts
def test_not_fxt_is_one_problem_not_a_cascade():
    junk = bytes(8) + b"\x01" * 93  # a size-0 first header, and a length not a multiple of 8
    rep = trace_report(junk)
    assert rep["verdict"]["status"] == "not_fxt"
    assert [p["code"] for p in rep["problems"]] == ["MG005"]  # the linter's not-FXT verdict
    assert rep["coverage"] is None and rep["statistics"] is None
    assert [r["code"] for r in rep["rules"] if r["result"] != "not_exercised"] == ["MG005"]
    assert rep["verdict"]["note"] == rep["problems"][0]["shown"][0]["message"]  # the rule's own words
    assert fxtlint.lint_bytes(junk).counts == {"MG005": 1}


def test_a_trace_missing_its_magic_is_broken_not_another_format():
    data = B.archive(B.string(1, "c"), B.thread(1, 1, 2), B.event("instant", 1))
    rep = trace_report(data)
    assert rep["verdict"]["status"] == "not_conforming"
    assert _result(rep, "MG001") == "failed"


def test_a_trace_missing_its_magic_whose_first_record_overruns_is_what_check_says():
    """No magic record, and a first string record claiming 200 bytes: check says MG001 and
    ST001; the report used to call it "not an FXT file" under MG001 and drop ST001."""
    length = next(f for f in _T.records[2].full_fields if f.name == "length")
    data = B.patch_field(B.archive(B.string(1, "cat"), B.thread(1, 1, 2), B.event("instant", 1)), length, 200)
    check = fxtlint.lint_bytes(data)
    assert {"MG001", "ST001"} <= set(check.counts)
    rep = trace_report(data)
    assert rep["verdict"]["status"] == "not_conforming" and rep["verdict"]["note"] is None
    assert {p["code"]: p["count"] for p in rep["problems"]} == check.counts
    assert rep["problems"][0]["shown"][0]["message"] == check.diagnostics[0].message


def test_problems_fold_per_rule_with_exact_counts_and_first_offsets():
    bad = B.event("instant", 1, name=77)  # RF001: string 77 never registered
    data = B.archive(B.magic(), B.string(1, "c"), B.thread(1, 1, 2), *([bad] * 500))
    rep = trace_report(data)
    (p,) = [p for p in rep["problems"] if p["code"] == "RF001"]
    assert p["count"] == 500
    assert len(p["shown"]) == 3 and len(p["first_offsets"]) == 10
    assert p["first_offsets"] == sorted(p["first_offsets"])
    assert p["shown"][0]["hex"].startswith(f"{p['first_offsets'][0]:08x}")
    assert rep["verdict"]["errors"] == 500


def test_combined_report_has_a_matrix_column_per_writer():
    good = trace_report(SAMPLE.read_bytes(), path="a/sample.fxt", writer="a")
    bad = trace_report(R.get("RF001").bad.build(), path="b/rf001.fxt", writer="b")
    also_b = trace_report(R.get("PR001").bad.build(), path="b/pr001.fxt", writer="b")
    doc = combined_report([good, bad, also_b], failures=[("c/missing.fxt", "no such file")])
    m = doc["matrix"]
    assert m["writers"] == ["a", "b"]
    assert m["conforming"] == [True, False]
    row = {r["code"]: r["results"] for r in m["rules"]}
    assert row["RF001"] == ["passed", "failed"]
    assert row["PR001"] == ["passed", "failed"]
    assert row["EV001"] == ["passed", "not_exercised"]
    assert doc["verdict"] == {"conforming": False, "traces": 3, "conforming_traces": 2, "unreadable": 1,
                              "errors": 1, "warnings": 1, "infos": 0}
    _validate(doc)


# --------------------------------------------------------------------------- schema
@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_reports_validate_against_the_schema(path):
    fmt = "log" if path.suffix == ".log" else "trace"  # as tests/golden.py lints them
    doc = combined_report([trace_report(path.read_bytes(), path=path.name, input_format=fmt)])
    _validate(doc)
    code = path.name[:5]
    assert _result(doc["traces"][0], code) == "failed"


def test_the_schema_rejects_a_report_that_breaks_it():
    doc = combined_report([trace_report(SAMPLE.read_bytes())])
    _validate(doc)
    broken = json.loads(json.dumps(doc))
    broken["traces"][0]["rules"][0]["result"] = "ok"
    with pytest.raises(jsonschema.ValidationError):
        _validate(broken)
    del doc["traces"][0]["coverage"]["byte_order"]
    with pytest.raises(jsonschema.ValidationError):
        _validate(doc)


@pytest.mark.parametrize("name", ["jane-tracing-small.fxt", "jane-tracing-richiesams.fxt", "not-fxt-eztrace.fxt"])
def test_real_traces_get_the_verdicts_checked_by_hand(name):
    # by hand against the spec: the Jane Street traces conform (the richiesams one has a
    # 4-word initialization record, EX001, and one empty string record, RF006); the
    # EZTrace file is another format that shares the name
    expected = {"jane-tracing-small.fxt": ("conforming", set()),
                "jane-tracing-richiesams.fxt": ("conforming", {"EX001", "RF006"}),
                "not-fxt-eztrace.fxt": ("not_fxt", {"MG005"})}[name]
    rep = trace_report(Path(CORPUS_REAL, name).read_bytes(), path=name)
    assert (rep["verdict"]["status"], {p["code"] for p in rep["problems"]}) == expected
    _validate(combined_report([rep]))


def test_a_structured_log_stream_is_covered_by_its_own_layout():
    data = B.log_stream(B.log_record(0x30, 5, args=[B.arg("int64", "n", 1)]), B.log_record(0x25, 6))
    rep = trace_report(data, input_format="log")
    cov = rep["coverage"]
    assert [r["kind"] for r in cov["record_kinds"]] == [_T.log_record.name]
    assert {r["kind"] for r in cov["argument_types"]} == {
        _T.arguments[t].name for t in _T.log_allowed_argument_types}
    assert [(r["name"], r["records"]) for r in cov["log_severities"] if r["used"]] == [("INFO", 1), ("raw 0x25", 1)]
    assert _result(rep, "SL003") == "failed" and _result(rep, "SL002") == "passed"
    assert _result(rep, "MG001") == "not_exercised"
    _validate(combined_report([rep]))


# --------------------------------------------------------------------------- issue 25: cause first
def test_problems_are_in_file_order_cause_first():
    rep = trace_report(writer_traces.with_padding_left_out())
    # ST002 (the padding left out) comes before FR001 (the header 2 bytes early) and FR003
    assert [p["code"] for p in rep["problems"]] == ["ST002", "FR001", "FR003"]
    _validate(combined_report([rep]))


def test_rules_are_not_passed_when_reading_stopped_early():
    rep = trace_report(writer_traces.with_padding_left_out())
    assert rep["verdict"]["stopped"] == {"record_index": 7, "offset": 0x68}
    # records after 0x60 were never read: a rule that looks at records did not pass
    for code in ("RF001", "PR004", "ST003", "RB001"):
        assert _result(rep, code) == "not_checked", code
    assert _result(rep, "MG001") == "passed"  # the file's start was read: checked
    assert _result(rep, "SL001") == "not_exercised"  # a structured-log rule, on a trace
    assert _result(rep, "ST002") == "failed"
    _validate(combined_report([rep]))


def test_rules_pass_when_the_whole_trace_was_read():
    rep = trace_report(writer_traces.with_padding_left_out(pad=True))
    assert rep["verdict"]["stopped"] is None
    assert _result(rep, "RF001") == "passed" and _result(rep, "ST002") == "passed"
    assert not [r for r in rep["rules"] if r["result"] == "not_checked"]


@pytest.mark.parametrize("order", ["little", "big"])
def test_the_column_walk_gives_the_same_span_across_providers(order):
    """Above 14 KiB the report's statistics come from columns grouped by rate: the first and
    last instants across a 1 GHz and a 1 kHz provider and a rate change, every engine alike."""
    ev = functools.partial(B.event, "instant", thread=(1, 2), category="c", name="n")
    data = B.archive(B.magic(), B.provider_info(1, "fast"), B.initialization(10**9),
                     *(ev(10**6 + t) for t in range(600)),  # 1 ms ..
                     B.provider_info(2, "slow"), B.initialization(1000), *(ev(3 + t) for t in range(5)),  # .. 7 ms
                     B.initialization(10**6), *(ev(500 + t) for t in range(600)),  # 0.5 ms .. 1.099 ms
                     byte_order=order)
    assert len(data) > 14 * 1024
    want = {"first_ticks": 500, "first_ticks_per_second": 10**6, "last_ticks": 7,
            "last_ticks_per_second": 1000, "span_ticks": None, "ticks_per_second": [1000, 10**6, 10**9],
            "span_seconds": 0.0065}
    assert _coverage(data).statistics()["time"] == want
    for engine in ENGINES:
        assert trace_report(data, engine=engine)["statistics"]["time"] == want, engine


@pytest.mark.parametrize("order", ["little", "big"])
def test_equal_instants_at_different_rates_are_first_and_last_by_rate(order):
    """Tick 0 at 1 GHz and tick 0 after a rate of 0 (read as 1 GHz) are one instant: the
    report's first takes the lower rate and its last the higher, in whatever order an
    engine meets them (Hypothesis found the column walk and the reference parting here)."""
    ev = functools.partial(B.event, "instant", thread=(1, 2), category="c", name="n")
    small = B.archive(B.magic(), ev(0), B.initialization(0), ev(0), byte_order=order)
    large = small + B.archive(*(ev(0) for _ in range(600)), byte_order=order)  # past 14 KiB: the column walk
    assert len(large) > 14 * 1024
    for d in (small, large):
        want = {"first_ticks": 0, "first_ticks_per_second": 0, "last_ticks": 0,
                "last_ticks_per_second": 10**9, "span_ticks": None, "ticks_per_second": [0, 10**9],
                "span_seconds": 0.0}
        for engine in ENGINES:
            assert trace_report(d, engine=engine)["statistics"]["time"] == want, engine
