"""The compiled pairing engine (``_npairing``) and the reference loop (``_pairing``) agree exactly.

Drawn windows of duration, async, flow and complete events (mixed tick rates, ticks near
2^64 at coprime rates, unresolved names), fed in several windows so that state carries
over, under small limits and every buffering mode, go through ``_pairing.PairingEngine``'s
loop (the specification) and ``_npairing.PairingEngine``: the diagnostics (each one's whole
JSON, in the order made) and the state after every window must be the same. Whole lints by
every engine (which pair natively where it is built) must equal the reference's.
"""

from __future__ import annotations

import time
from array import array
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import DRAWN_MUTATIONS
from fxtlint import Limits
from fxtlint.engine import _native, _pairing
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._pairing import COLUMNS, Batch, PairKind
from fxtlint.engine._pairing_choice import native_pairing, pairing_engine
from fxtlint.engine._result import DiagnosticSink
from fxtlint.strategies import mutated_archives
from test_pairing import mostly_clean

NATIVE, WHY = native_pairing()
pytestmark = pytest.mark.skipif(NATIVE is None, reason=f"the native pairing engine is not built: {WHY}")

STRINGS = ["", "a", "b", "c"]
GOLDEN = sorted((Path(__file__).resolve().parent.parent / "corpus" / "golden").glob("*.fxt"))
MODES = (None, "oneshot", "circular", "streaming")
RATES = (10**9, 10**9, 1000, 7, 0, 10**9 + 7, 999_999_937)
NEAR = 2**64

events = st.tuples(
    st.sampled_from(range(9)),  # kind
    st.integers(0, 2),  # thread
    st.integers(0, 1),  # process
    st.integers(-1, 4),  # category (-1: unresolved, 4: past the strings: both "?")
    st.integers(-1, 4),  # name
    st.one_of(st.integers(0, 30), st.integers(NEAR - 40, NEAR - 1)),  # ticks, some near 2^64
    st.integers(0, 12),  # id (a complete event's end: the same ranges as ticks below)
    st.sampled_from(RATES),  # the tick rate its provider had
    st.one_of(st.integers(0, 30), st.integers(NEAR - 40, NEAR - 1)),  # a complete event's end
)
limits = st.builds(Limits, max_stack=st.integers(1, 5), max_live=st.integers(8, 11), max_scan=st.integers(1, 4))
# how a window reaches the engine: rows one by one, or (the compiled engine) columns directly
FEEDS = ("rows", "columns")
# each column's array type (the array module's: int64 "q", uint64 "Q"; the engine takes any buffer)
_TYPES = dict(zip(COLUMNS, "qqQqqQQQqqqQ"))


def window(rows):
    b = Batch()
    for r in rows:
        b.add(*r)
    return b


def feed(eng, rows, how: str) -> None:
    if how == "columns" and isinstance(eng, NATIVE.PairingEngine):
        eng.feed_columns(*(array(_TYPES[c], [r[j] for r in rows]) for j, c in enumerate(COLUMNS)))
    else:
        eng.feed(window(rows))


def state(eng) -> tuple:
    return ([(t, list(s)) for t, s in eng.stacks.items()], dict(eng.complete_end), list(eng.asyncs.items()),
            list(eng.flows.items()), set(eng.began), set(eng.began_async), eng.flow_began, set(eng.overflowed))


def run(make, windows, how="half", lim=Limits(), mode=None, dropped_at=None, cut_short=False, indexes=None):
    """Every window through one engine: (its diagnostics' JSON in the order made, its
    state after each window). ``indexes``: the rows' record indexes (default 0, 1, 2...)."""
    out: list = []
    eng = make(out.append, STRINGS, lim, buffering_mode=mode)
    states = []
    index = 0
    for w in windows:
        rows = []
        for k, t, p, c, n, ts, i, *more in w:
            rate = more[0] if more else 10**9
            end_ticks = more[1] if len(more) > 1 else i
            rows.append((k, t, p, c, n, ts, 0 if k == PairKind.COMPLETE else i,
                         end_ticks if k == PairKind.COMPLETE else 0, 8 * index,
                         index if indexes is None else indexes[index % len(indexes)], 16, rate))
            index += 1
        feed(eng, rows, how)
        states.append(state(eng))
    eng.finish(cut_short, dropped_at)
    return [d.to_json() for d in out], states


def reference(emit, strings, lim, *, buffering_mode=None):
    return _pairing.PairingEngine(emit, strings, lim, buffering_mode=buffering_mode)


def agree(windows, **kw) -> None:
    want = run(reference, windows, **kw)
    assert run(NATIVE.PairingEngine, windows, **kw) == want


# record indexes far apart (the compiled sort then merges runs without first scattering
# the rows into index order)
SPARSE = list(range(0, 10 * 200, 10))


@given(st.lists(st.lists(events, max_size=30), max_size=4), st.sampled_from(FEEDS), st.sampled_from((None, SPARSE)))
def test_drawn_windows_agree(windows, how, indexes):
    agree(windows, how=how, indexes=indexes)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(events, max_size=40), max_size=4), limits, st.sampled_from(MODES),
       st.one_of(st.none(), st.integers(0, 120)), st.booleans(), st.sampled_from(FEEDS))
def test_drawn_windows_agree_at_every_limit_and_buffering_mode(windows, lim, mode, dropped_at, cut_short, how):
    agree(windows, how=how, lim=lim, mode=mode, dropped_at=dropped_at, cut_short=cut_short)


@given(st.lists(st.lists(events, max_size=30), max_size=3), st.lists(st.integers(0, 6), min_size=1, max_size=30))
def test_repeated_record_indexes_keep_the_order_rows_came_in(windows, indexes):
    """Rows added one by one that share a record index (and a time) stay in the order
    they came in (the reference's stable sort): the compiled sort's stable fallback."""
    agree(windows, how="rows", indexes=indexes)


@given(mostly_clean(), st.sampled_from(MODES), st.sampled_from(FEEDS))
def test_mostly_clean_streams_agree(windows, mode, how):
    """Well-formed streams (the clean path: long runs with nothing to report)."""
    agree(windows, how=how, mode=mode)


def nested(n: int, kind=PairKind.BEGIN, distinct_ids=False) -> dict:
    """The columns of ``n`` rows of ``kind`` on one thread, one tick apart (ids 0, 1, 2...
    when ``distinct_ids``)."""
    rows = range(n)
    values = dict(kind=[int(kind)] * n, thread=[0] * n, process=[0] * n, cat=[0] * n, name=[1] * n, ts=rows,
                  id=rows if distinct_ids else [0] * n, end=[0] * n, offset=range(0, 8 * n, 8), index=rows,
                  size=[16] * n, rate=[10**9] * n)
    return {c: array(_TYPES[c], values[c]) for c in COLUMNS}


@pytest.mark.parametrize("kind, lim", [
    (PairKind.BEGIN, Limits(max_stack=100)),  # past the stack cap: reported once, the oldest dropped
    (PairKind.ASYNC_BEGIN, Limits(max_live=100)),  # past the live cap: the oldest eighth dropped each time
    (PairKind.FLOW_BEGIN, Limits(max_live=100)),
    (PairKind.END, Limits(max_scan=3)),  # ends without begins: the circular-start check
])
@pytest.mark.parametrize("mode", MODES)
def test_each_cap_agrees_over_many_windows(kind, lim, mode):
    cols = nested(3000, kind, distinct_ids=True)
    windows = [[tuple(int(cols[c][i]) for c in ("kind", "thread", "process", "cat", "name", "ts", "id", "rate"))
                for i in range(a, a + 500)] for a in range(0, 3000, 500)]
    agree(windows, lim=lim, mode=mode, dropped_at=1500)


@pytest.mark.parametrize("what", ["unclosed begins", "live async ids", "live flow ids"])
def test_open_entries_past_the_caps_stay_linear(what):
    """2 x 10^5 unclosed begins on one thread, or live ids, past caps of 4,096 (the stack's,
    the live ids'), in windows of 65,536 rows: a tenth of them costs about a tenth of the
    time (generous: under 3x of linear). (The whole walk's 10^6 unclosed begins at the
    default caps: tests/test_nwalk.py.)"""
    n, cap = 2 * 10**5, 1 << 12
    kind = {"unclosed begins": PairKind.BEGIN, "live async ids": PairKind.ASYNC_BEGIN,
            "live flow ids": PairKind.FLOW_BEGIN}[what]
    cols = nested(n, kind, distinct_ids=True)
    if kind == PairKind.FLOW_BEGIN:
        cols["kind"][0] = PairKind.COMPLETE  # one complete event enclosing every flow
        cols["end"][0] = n

    def lint(m: int) -> float:
        out: list = []
        eng = NATIVE.PairingEngine(out.append, STRINGS, Limits(max_stack=cap, max_live=cap))
        t = time.process_time()  # CPU time: other processes' work on a loaded machine does not count
        for a in range(0, m, 1 << 16):
            eng.feed_columns(*(cols[c][a:min(m, a + (1 << 16))] for c in COLUMNS))
        eng.finish()
        dt = time.process_time() - t
        assert [d.code for d in out[:1]] == ["PR012"] and len(out) > cap // 8
        return dt

    small = min(lint(n // 10) for _ in range(3))
    big = lint(n)
    assert big < 30 * max(small, 1e-3), (small, big)  # 10x the rows; quadratic would be 100x


def test_the_native_kinds_are_the_references():
    assert NATIVE.KINDS == {k.name: int(k) for k in PairKind}


def test_the_reference_path_keeps_the_python_loop_the_native_walk_pairs_natively():
    assert isinstance(pairing_engine(lambda d: None, STRINGS, Limits()), _pairing.PairingEngine)
    assert isinstance(pairing_engine(lambda d: None, STRINGS, Limits(), native=True), NATIVE.PairingEngine)
    for engine, native in (("reference", False), ("python", False), ("auto", True), ("fast", True)):
        _, walk = lint_walk(b"", engine=engine)
        got = type(walk.lint.state.pairing) if walk.lint.state is not None else None
        assert got is (NATIVE.PairingEngine if native and _native.nwalk() else _pairing.PairingEngine), engine


def test_columns_of_different_lengths_are_refused():
    eng = NATIVE.PairingEngine(lambda d: None, STRINGS)
    cols = nested(4)
    cols["ts"] = cols["ts"][:3]
    with pytest.raises(ValueError):
        eng.feed_columns(*(cols[c] for c in COLUMNS))


# -- whole lints: every engine (pairing natively) reports what the reference reports ---------
ENGINES = ["auto"] + ([] if _native.native_missing() else ["native"])


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_golden_files_lint_alike(path):
    data = path.read_bytes()
    for mode in MODES:
        want = fxtlint.lint_bytes(data, engine="reference", buffering_mode=mode).to_json()
        for engine in ENGINES:
            assert fxtlint.lint_bytes(data, engine=engine, buffering_mode=mode).to_json() == want, (engine, mode)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.sampled_from(MODES))  # PR012's own cases: slow run
def test_mutated_archives_lint_alike(case, mode):
    data, _ = case
    want = fxtlint.lint_bytes(data, engine="reference", buffering_mode=mode).to_json()
    for engine in ENGINES:
        assert fxtlint.lint_bytes(data, engine=engine, buffering_mode=mode).to_json() == want, engine


def test_the_time_cases_lint_alike(monkeypatch):
    """tests/test_time.py's cases, each linted by every engine (its ``lint`` compares them)."""
    import test_time

    monkeypatch.setattr(test_time, "ENGINES", ["reference", *ENGINES])
    ran = 0
    for name in dir(test_time):
        fn = getattr(test_time, name)
        if not name.startswith("test_") or not callable(fn) or hasattr(fn, "hypothesis"):
            continue
        params = getattr(fn, "pytestmark", [])
        orders = next((m.args[1] for m in params if m.name == "parametrize" and m.args[0] == "order"), None)
        for arg in ([{}] if orders is None else [{"order": o} for o in orders]):
            fn(**arg)
            ran += 1
    assert ran >= 10


@pytest.mark.parametrize("seed", range(3))
def test_large_random_windows_agree(seed):
    """Windows of thousands of rows over thousands of ids (drawn ones are small): the
    compiled engine's live-id index grows, deletes by backward shift and sweeps its dead
    slots, and its stacks drop their fronts, as the reference's dicts and deques do."""
    import random

    rnd = random.Random(seed)
    for _ in range(8):
        nid = rnd.choice((4, 40, 400, 4000))
        kinds = rnd.choice((range(9), (3, 4, 5), (6, 7, 8, 0, 1, 2), (0, 1)))
        windows = [[(rnd.choice(kinds), rnd.randrange(5), rnd.randrange(2), rnd.randrange(-1, 4), rnd.randrange(-1, 4),
                     rnd.randrange(1000) if rnd.random() < 0.8 else NEAR - 1 - rnd.randrange(1000), rnd.randrange(nid),
                     rnd.choice(RATES), rnd.randrange(1000)) for _ in range(rnd.randrange(3000))]
                   for _ in range(rnd.randrange(1, 5))]
        lim = Limits(max_stack=rnd.choice((1, 3, 50, 65536)), max_live=rnd.choice((8, 9, 100, 65536)),
                     max_scan=rnd.choice((1, 4, 64)))
        agree(windows, how=rnd.choice(FEEDS), lim=lim, mode=rnd.choice(MODES), dropped_at=rnd.choice((None, 500, 5000)),
              cut_short=rnd.random() < 0.5)


def run_sink(make, windows, cap: int, ignored: frozenset, lim=Limits(), mode=None) -> tuple:
    """Every window through one engine emitting to a sink (the compiled engine hands its
    findings there as a block, ``add_found``): the sink's kept diagnostics, counts and severities."""
    sink = DiagnosticSink(per_rule_cap=cap, ignored=ignored)
    eng = make(sink.add, STRINGS, lim, buffering_mode=mode)
    index = 0
    for w in windows:
        rows = []
        for k, t, p, c, n, ts, i, *_ in w:
            rows.append((k, t, p, c, n, ts, 0 if k == PairKind.COMPLETE else i, i if k == PairKind.COMPLETE else 0,
                         8 * index, index, 16, 10**9))
            index += 1
        feed(eng, rows, "half")  # (the sink's bounds read by the compiled engine as they move)
    eng.finish(False, None)
    # (not its bounds: an engine that asks the cap before it builds adds fewer, trims less often)
    return [d.to_json() for d in sink.kept], dict(sink.counts), dict(sink.severity_of)


@given(st.lists(st.lists(events, max_size=40), max_size=4), st.integers(1, 3), st.booleans(), limits,
       st.sampled_from(MODES))
def test_findings_kept_as_rows_by_a_sink_agree_under_its_cap(windows, cap, ignore, lim, mode):
    """The compiled engine's findings handed to a sink as blocks (asked of its cap natively,
    ``_note``; built when read) leave the sink as the reference's diagnostics added do."""
    ignored = frozenset({"PR002"}) if ignore else frozenset()
    want = run_sink(reference, windows, cap, ignored, lim, mode)
    assert run_sink(NATIVE.PairingEngine, windows, cap, ignored, lim, mode) == want


# -- the findings handed to the sink as one block (``add_found``) -----------------------------------
def ends(n: int, first: int = 0) -> list:
    """``n`` duration ends on a thread with no begin (PR001 each, ``duration_end_without_begin``)."""
    return [(PairKind.END, 0, 0, 1, 2, first + j, 0) for j in range(n)]


def sink_after(make, windows, *, finish=True, lim=Limits(), **options) -> DiagnosticSink:
    """A sink (``options``) after every window through one engine emitting to it, then ``finish``."""
    sink = DiagnosticSink(**options)
    eng = make(sink.add, STRINGS, lim)
    index = 0
    for w in windows:
        rows = []
        for k, t, p, c, n, ts, i in w:
            rows.append((k, t, p, c, n, ts, i, 0, 8 * index, index, 16, 10**9))
            index += 1
        feed(eng, rows, "rows")
    if finish:
        eng.finish(False, None)
    return sink


def said(sink: DiagnosticSink) -> tuple:
    return [d.to_json() for d in sink.kept], dict(sink.counts), dict(sink.severity_of)


class Calls:
    """How often the sink's per-finding path (``add_at``), ``add_found`` and ``dropped`` are called."""

    def __init__(self, monkeypatch):
        self.n: dict = {}
        self.codes: list = []  # the rule of each ``add_at``
        for name in ("add_at", "add_found", "dropped"):
            real = getattr(DiagnosticSink, name)

            def counted(*a, _real=real, _name=name, **k):
                self.n[_name] = self.n.get(_name, 0) + 1
                if _name == "add_at":
                    self.codes.append(a[1].code)
                return _real(*a, **k)

            monkeypatch.setattr(DiagnosticSink, name, counted)


def test_a_window_under_the_cap_is_handed_over_once_and_held_until_read(monkeypatch):
    calls = Calls(monkeypatch)
    sink = sink_after(NATIVE.PairingEngine, [ends(5)], finish=False, per_rule_cap=6)
    assert calls.n == {"add_found": 1}
    held = sink._kept["PR001"]
    assert len(held) == 5 and len({id(h) for h in held}) == 1 and type(held[0]).__name__ == "_Found"
    assert sink.counts == {"PR001": 5} and not sink._bound
    want = sink_after(reference, [ends(5)], finish=False, per_rule_cap=6)
    assert said(sink) == said(want)


@pytest.mark.parametrize("before", [0, 1, 3])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 8, 9, 40])
def test_the_cap_edges_of_a_block_of_findings(monkeypatch, before, n):
    """``before`` findings of the rule kept, then ``n`` in one window, cap 4: the sink as the
    reference's findings added one by one leave it; the block held up to one short of the cap,
    the finding that reaches it said alone (its bound set there), the rest counted at once."""
    windows = [ends(before), ends(n, first=100)]
    want = sink_after(reference, windows, per_rule_cap=4)
    calls = Calls(monkeypatch)
    got = sink_after(NATIVE.PairingEngine, windows, per_rule_cap=4)
    assert said(got) == said(want)
    assert got.counts["PR001"] == before + n
    reaches = before + n >= 4
    assert calls.n.get("add_at", 0) == (1 if reaches and before < 4 else 0)
    assert calls.n.get("dropped", 0) == (1 if before + n > 4 else 0)
    if not reaches:
        assert "PR001" not in got._bound


def test_a_flood_of_open_durations_at_the_end_builds_and_calls_no_more_than_the_cap(monkeypatch):
    windows = [[(PairKind.BEGIN, 0, 0, 1, 2, j, 0) for j in range(20000)]]
    want = sink_after(reference, windows, per_rule_cap=3)
    calls = Calls(monkeypatch)
    got = sink_after(NATIVE.PairingEngine, windows, per_rule_cap=3)
    assert said(got) == said(want)
    assert got.counts["PR004"] == 20000
    # (the first two held, the third said alone: the cap reached, its bound set; the rest counted)
    assert calls.n == {"add_found": 2, "add_at": 1, "dropped": 1}


@pytest.mark.parametrize("option", ["listener", "override", "ignored"])
def test_findings_with_a_listener_an_override_or_an_ignored_code_are_said_as_before(monkeypatch, option):
    """Each finding said one by one (``add_at``: a listener told each in order, an override
    re-grading it) or, of an ignored code, never handed over."""
    from fxtlint.rules._diagnostics import Severity

    windows = [ends(7) + [(PairKind.FLOW_END, 0, 0, 1, 2, 50, 9)] * 3, ends(2, first=60)]

    def run_with(make):
        seen: list = []
        options = dict(per_rule_cap=3)
        if option == "listener":
            options["listener"] = seen.append
        elif option == "override":
            options["severity_overrides"] = {"PR001": Severity.INFO}
        else:
            options["ignored"] = frozenset({"PR001"})
        sink = sink_after(make, windows, **options)
        return said(sink), [d.to_json() for d in seen]

    want = run_with(reference)
    calls = Calls(monkeypatch)
    assert run_with(NATIVE.PairingEngine) == want
    if option == "ignored":
        assert "PR001" not in want[0][1] and "PR001" not in calls.codes
    else:
        assert calls.codes.count("PR001") == (9 if option == "listener" else 3)  # (an override: past the cap, skipped)
