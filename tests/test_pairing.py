"""The pairing engine's loop (``_pairing.PairingEngine``, the specification): what it says
of well-formed and renumbered windows, that a window's verdicts do not depend on the order
its rows were added in (the engine sorts by time), and the rows the feeders give it.
``tests/test_npairing.py`` holds the compiled engine to this loop.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from fxtlint import Diagnostic
from fxtlint.engine import _pairing
from fxtlint.engine._pairing import Batch, PairingEngine

STRINGS = ["", "a", "b", "c"]

events = st.tuples(
    st.sampled_from(range(9)),  # the engine's event kinds
    st.integers(0, 2),  # thread
    st.integers(0, 1),  # process
    st.integers(0, 2),  # category
    st.integers(1, 3),  # name
    st.integers(0, 30),  # timestamp
    st.integers(0, 3),  # id (a complete event's end)
    st.sampled_from((10**9, 10**9, 1000, 7)),  # the tick rate its provider had (read through it)
)


def run(batches, shuffle: int | None = None):
    """Every batch through the loop: (its diagnostics, sorted; its state after each batch).
    ``shuffle``: a seed to add each batch's rows in another order."""
    out = []
    eng = PairingEngine(out.append, STRINGS)
    states = []
    index = 0
    for batch in batches:
        b = Batch()
        rows = []
        for k, t, p, c, n, ts, i, *rate in batch:
            # the drawn word is a complete event's end, any other kind's id
            rows.append((k, t, p, c, n, ts, 0 if k == _pairing.COMPLETE else i,
                         i if k == _pairing.COMPLETE else 0, 8 * index, index, 16, *(rate or [10**9])))
            index += 1
        if shuffle is not None:
            random.Random(shuffle).shuffle(rows)
        for r in rows:
            b.add(*r)
        eng.feed(b)
        states.append(({t: list(s) for t, s in eng.stacks.items() if s}, dict(eng.complete_end),
                       list(eng.asyncs.items()), list(eng.flows.items())))
    eng.finish()
    return sorted(out, key=Diagnostic.sort_key), states


@given(st.lists(st.lists(events, max_size=25), max_size=4), st.integers(0, 3))
def test_the_order_rows_are_added_in_does_not_matter(batches, seed):
    """The loop orders a window by (time, record index) itself."""
    assert run(batches, shuffle=seed) == run(batches)


def well_formed(n_threads=3, depth=4):
    """A clean batch: every duration closed, a flow and an async operation per thread open."""
    rows = []
    ts = 0
    for t in range(n_threads):
        for d in range(depth):
            rows.append((_pairing.BEGIN, t, 0, 1, d + 1, ts, 0))
            ts += 1
        rows.append((_pairing.FLOW_BEGIN, t, 0, 1, 1, ts, t))
        rows.append((_pairing.ASYNC_BEGIN, t, 0, 1, 2, ts, t))
        for d in reversed(range(depth)):
            rows.append((_pairing.END, t, 0, 1, d + 1, ts, 0))
            ts += 1
    return rows


def test_a_clean_batch_leaves_only_what_is_still_open():
    diags, states = run([well_formed(), [(_pairing.FLOW_END, 0, 0, 1, 1, 0, 0)]])
    assert states[0][0] == {} and len(states[0][2]) == 3 and len(states[0][3]) == 3
    # 2 flows and 3 async operations stay open; the flow end closes flow 0 outside a duration
    assert sorted(d.code for d in diags) == ["PR004"] * 5 + ["PR008"]


@st.composite
def mostly_clean(draw):
    """Well-formed event streams (nesting, flows inside durations, async ids), cut into
    batches at drawn points so that state carries over, sometimes with one event dropped
    or its timestamp moved."""
    rows = []
    ts = 0
    for _ in range(draw(st.integers(1, 6))):
        t = draw(st.integers(0, 2))
        names = draw(st.lists(st.integers(1, 3), min_size=1, max_size=4))
        for n in names:
            rows.append((_pairing.BEGIN, t, 0, 1, n, ts, 0))
            ts += 1
        if draw(st.booleans()):
            fid = draw(st.integers(0, 3))
            rows.append((_pairing.FLOW_BEGIN, t, 0, 1, 1, ts, fid))
            rows.append((_pairing.FLOW_END, t, 0, 1, 1, ts, fid))
        aid = draw(st.integers(0, 3))
        rows.append((_pairing.ASYNC_BEGIN, t, t % 2, 1, 2, ts, aid))
        if draw(st.booleans()):
            rows.append((_pairing.ASYNC_END, t, t % 2, 1, 2, ts, aid))
        rows.append((_pairing.COMPLETE, t, 0, 1, 1, ts, ts + draw(st.integers(0, 5))))
        for n in reversed(names):
            rows.append((_pairing.END, t, 0, 1, n, ts, 0))
            ts += 1
    if rows and draw(st.booleans()):
        i = draw(st.integers(0, len(rows) - 1))
        if draw(st.booleans()):
            del rows[i]
        else:
            r = list(rows[i])
            r[5] = draw(st.integers(0, ts))
            rows[i] = tuple(r)
    if draw(st.booleans()):
        # each thread's provider on its own clock (1, 2 and 3 GHz), its ticks scaled to
        # it: the same times, so the same verdicts, through the rates (the mixed-rate order)
        rows = [(*r[:5], r[5] * (t + 1), *r[6:], (t + 1) * 10**9) for r in rows for t in [r[1]]]
    cuts = sorted(draw(st.lists(st.integers(0, len(rows)), max_size=3)))
    return [rows[a:b] for a, b in zip([0] + cuts, cuts + [len(rows)])]


@given(mostly_clean(), st.integers(0, 3))
def test_mostly_clean_streams_in_any_row_order(batches, seed):
    assert run(batches, shuffle=seed) == run(batches)


def test_each_table_pairing_role_feeds_the_engine_its_own_kind_and_family():
    """The feeders translate the tables' pairing roles to the engine's kinds: one kind per
    role, and the async and flow families the engine asks by name are the roles so named."""
    from fxtlint.engine._pairing import ASYNC_KINDS, FLOW_KINDS, PairKind
    from fxtlint.engine._semantic import PAIR_KIND
    from fxtlint.spec._tables import tables

    roles = {leaf.name: leaf.pairing for leaf in tables().record_leaves() if leaf.pairing}
    assert set(PAIR_KIND) == set(roles) and sorted(PAIR_KIND.values()) == sorted(PairKind)
    assert {PAIR_KIND[n] for n, r in roles.items() if r.startswith("async_")} == ASYNC_KINDS
    assert {PAIR_KIND[n] for n, r in roles.items() if r.startswith("flow_")} == FLOW_KINDS


def test_the_loop_asks_a_kind_its_family_not_its_number(monkeypatch):
    """Renumbered kinds (async and flow interleaved, so no family is a range of numbers)
    give the same verdicts and state."""
    batches = [well_formed(), [(_pairing.FLOW_END, 0, 0, 1, 1, 0, 0), (_pairing.ASYNC_END, 0, 0, 1, 2, 9, 0)]]
    want = run(batches)
    renumber = {_pairing.ASYNC_BEGIN: 10, _pairing.FLOW_BEGIN: 11, _pairing.ASYNC_INSTANT: 12,
                _pairing.FLOW_STEP: 13, _pairing.ASYNC_END: 14, _pairing.FLOW_END: 15}
    for name, old in [(k.name, k) for k in renumber]:
        monkeypatch.setattr(_pairing, name, renumber[old])
    monkeypatch.setattr(_pairing, "ASYNC_KINDS", frozenset(renumber[k] for k in (_pairing.PairKind.ASYNC_BEGIN,
                        _pairing.PairKind.ASYNC_INSTANT, _pairing.PairKind.ASYNC_END)))
    monkeypatch.setattr(_pairing, "FLOW_KINDS", frozenset(renumber[k] for k in (_pairing.PairKind.FLOW_BEGIN,
                        _pairing.PairKind.FLOW_STEP, _pairing.PairKind.FLOW_END)))
    renumbered = [[(renumber.get(r[0], r[0]), *r[1:]) for r in b] for b in batches]
    assert run(renumbered) == want and want[0]


def test_a_complete_event_carries_its_end_in_the_end_column_not_the_id():
    import fxtlint
    from fxtlint import build as B
    from fxtlint.engine._semantic import LintState, RecordChecker
    from fxtlint.rules import _ex as X

    data = X.preamble(B.event("duration_complete", 5, end_timestamp=9), B.event("async_begin", 6, id=4))
    state = LintState(lambda d: None)
    check = RecordChecker(state).check
    for rec in fxtlint.read_records(data)[0]:
        check(rec, state.tables.apply(rec))
    rows = [dict(zip(_pairing.COLUMNS, r)) for r in state.batch._rows]
    assert [r["kind"] for r in rows] == [_pairing.COMPLETE, _pairing.ASYNC_BEGIN]
    assert [r["id"] for r in rows] == [0, 4] and [r["end"] for r in rows] == [9, 0]
