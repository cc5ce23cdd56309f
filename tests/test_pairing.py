"""The pairing engine's array proof (``_pairing.feed_clean``) and its loop agree exactly.

Drawn batches of duration, async, flow and complete events, fed in several batches so
that state carries over, go through one engine that may use the array proof and one
that only loops; their diagnostics, and their state after every batch, must match.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fxtlint import Diagnostic
from fxtlint.engine import _pairing
from fxtlint.engine._pairing import Batch, PairingEngine
from fxtlint.spec._time import time_key

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


def run(batches, vectorize: bool):
    out = []
    # drawn batches are small: the array proof is tried on every one (vectorize_from=0)
    eng = PairingEngine(out.append, STRINGS, vectorize=vectorize, vectorize_from=0)
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
        half = len(rows) // 2
        for r in rows[:half]:  # rows added one by one and as arrays, as both paths do
            b.add(*r)
        if rows[half:]:
            b.extend(**{c: [r[j] for r in rows[half:]] for j, c in enumerate(_pairing.COLUMNS)})
        eng.feed(b)
        states.append(({t: list(s) for t, s in eng.stacks.items() if s}, dict(eng.complete_end),
                       list(eng.asyncs.items()), list(eng.flows.items())))
    eng.finish()
    return sorted(out, key=Diagnostic.sort_key), states


@given(st.lists(st.lists(events, max_size=25), max_size=4))
def test_array_proof_and_loop_agree(batches):
    assert run(batches, True) == run(batches, False)


def well_formed(n_threads=3, depth=4):
    """A clean batch, so that the array proof (not only its fallback) is exercised."""
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


def test_array_proof_accepts_a_clean_batch(monkeypatch):
    accepted = []
    real = _pairing.feed_clean
    monkeypatch.setattr(_pairing, "feed_clean", lambda e, c: accepted.append(real(e, c)) or accepted[-1])
    diags, _ = run([well_formed(), [(_pairing.FLOW_END, 0, 0, 1, 1, 0, 0)]], True)
    assert accepted[0] is True
    # the flow end is outside any duration: the proof declines and the loop reports it
    assert accepted[1] is False
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


@given(mostly_clean())
def test_array_proof_and_loop_agree_on_mostly_clean_streams(batches):
    assert run(batches, True) == run(batches, False)


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


def test_the_array_proof_asks_a_kind_its_family_not_its_number(monkeypatch):
    """Renumbered kinds (async and flow interleaved, so no family is a range of numbers)
    give the same verdicts and state, through the array proof and through the loop."""
    batches = [well_formed(), [(_pairing.FLOW_END, 0, 0, 1, 1, 0, 0), (_pairing.ASYNC_END, 0, 0, 1, 2, 9, 0)]]
    want = run(batches, False)
    renumber = {_pairing.ASYNC_BEGIN: 10, _pairing.FLOW_BEGIN: 11, _pairing.ASYNC_INSTANT: 12,
                _pairing.FLOW_STEP: 13, _pairing.ASYNC_END: 14, _pairing.FLOW_END: 15}
    for name, old in [(k.name, k) for k in renumber]:
        monkeypatch.setattr(_pairing, name, renumber[old])
    monkeypatch.setattr(_pairing, "ASYNC_KINDS", frozenset(renumber[k] for k in (_pairing.PairKind.ASYNC_BEGIN,
                        _pairing.PairKind.ASYNC_INSTANT, _pairing.PairKind.ASYNC_END)))
    monkeypatch.setattr(_pairing, "FLOW_KINDS", frozenset(renumber[k] for k in (_pairing.PairKind.FLOW_BEGIN,
                        _pairing.PairKind.FLOW_STEP, _pairing.PairKind.FLOW_END)))
    is_flow = np.zeros(max(_pairing.FLOW_KINDS) + 1, bool)  # the array proof's family lookup, renumbered
    is_flow[sorted(_pairing.FLOW_KINDS)] = True
    monkeypatch.setattr(_pairing, "_flow_table", lambda: is_flow)
    accepted = []
    real = _pairing.feed_clean
    monkeypatch.setattr(_pairing, "feed_clean", lambda e, c: accepted.append(real(e, c)) or accepted[-1])
    renumbered = [[(renumber.get(r[0], r[0]), *r[1:]) for r in b] for b in batches]
    assert run(renumbered, True) == want and accepted == [True, False]  # the clean batch by the proof
    assert run(renumbered, False) == want


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
    cols = state.batch.columns()
    assert cols["kind"].tolist() == [_pairing.COMPLETE, _pairing.ASYNC_BEGIN]
    assert cols["id"].tolist() == [0, 4] and cols["end"].tolist() == [9, 0]


def test_small_batches_skip_the_array_proof_large_ones_try_it(monkeypatch):
    """The array proof is the column path's: tried on a batch with columns of at least
    VECTORIZE_FROM rows; rows added one by one (the per-record path) go to the loop."""
    tried = []
    monkeypatch.setattr(_pairing, "feed_clean", lambda e, c: tried.append(len(c["kind"])) or False)
    for n, as_columns in ((_pairing.VECTORIZE_FROM - 1, True), (_pairing.VECTORIZE_FROM, True),
                          (_pairing.VECTORIZE_FROM, False)):
        eng = PairingEngine(lambda d: None, STRINGS)
        b = Batch()
        rows = [(_pairing.COMPLETE, 0, 0, 1, 1, i, 0, i + 1, 8 * i, i, 16, 10**9) for i in range(n)]
        if as_columns:
            b.extend(**{c: [r[j] for r in rows] for j, c in enumerate(_pairing.COLUMNS)})
        else:
            for r in rows:
                b.add(*r)
        eng.feed(b)
        assert eng.complete_end == {0: time_key(n, 10**9)}  # the loop ran either way
    assert tried == [_pairing.VECTORIZE_FROM]


keys = st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 2**64 - 1), st.integers(0, 5)), max_size=40)


@given(keys, st.booleans())
def test_lexorder_is_lexsort(rows, wide):
    """Packed into one key where the ranges fit, lexsort otherwise: the same order."""
    import numpy as np

    a = np.asarray([r[0] for r in rows], np.int64)
    b = np.asarray([r[1] if wide else r[1] % 1000 for r in rows], np.uint64)
    pos = np.arange(len(rows), dtype=np.int64)
    assert np.array_equal(_pairing.lexorder(a, b, pos), np.lexsort((pos, b, a)))
