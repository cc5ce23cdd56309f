"""The pairing engine's array proof (``_pairing.feed_clean``) and its loop agree exactly.

Drawn batches of duration, async, flow and complete events, fed in several batches so
that state carries over, go through one engine that may use the array proof and one
that only loops; their diagnostics, and their state after every batch, must match.
"""

from __future__ import annotations

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
)


def run(batches, vectorize: bool):
    out = []
    eng = PairingEngine(out.append, STRINGS, vectorize=vectorize)
    states = []
    index = 0
    for batch in batches:
        b = Batch()
        rows = []
        for k, t, p, c, n, ts, i in batch:
            # the drawn word is a complete event's end, any other kind's id
            rows.append((k, t, p, c, n, ts, 0 if k == _pairing.COMPLETE else i,
                         i if k == _pairing.COMPLETE else 0, 8 * index, index, 16))
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
    diags, states = run([well_formed(), [(_pairing.FLOW_END, 0, 0, 1, 1, 0, 0)]], True)
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
    cuts = sorted(draw(st.lists(st.integers(0, len(rows)), max_size=3)))
    return [rows[a:b] for a, b in zip([0] + cuts, cuts + [len(rows)])]


@given(mostly_clean())
def test_array_proof_and_loop_agree_on_mostly_clean_streams(batches):
    assert run(batches, True) == run(batches, False)


def test_pair_kinds_are_named_families_that_follow_the_event_names():
    from fxtlint.engine._pairing import ASYNC_KINDS, DURATION_KINDS, FLOW_KINDS, KIND_BY_EVENT, PairKind

    assert DURATION_KINDS | ASYNC_KINDS | FLOW_KINDS == set(PairKind)
    assert not (DURATION_KINDS & ASYNC_KINDS or DURATION_KINDS & FLOW_KINDS or ASYNC_KINDS & FLOW_KINDS)
    family = {"duration": DURATION_KINDS, "async": ASYNC_KINDS, "flow": FLOW_KINDS}
    for name, kind in KIND_BY_EVENT.items():
        assert isinstance(kind, PairKind) and kind in family[name.split(".")[1].split("_")[0]], name


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
