"""``_lookups``: the provider tables as each row of a batch sees them, looked up as
arrays, against the tables replayed record by record (the reference path's answer).

A drawn stream of records registers strings and threads, switches provider and sets
tick rates; rows between them look refs up. The stream is cut into batches (the walk's
``state.recording()`` and ``TableCache.changed`` after each), and every row's array
lookup must equal what ``ProviderState`` held when the row was read.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fxtlint.engine._lookups import Lookups, TableCache, latest
from fxtlint.engine._provider_state import ProviderState
from fxtlint.engine._walk import _SBITS, _TBITS


def record(kind: str, at: int, strings=None, **fields):
    """What ``ProviderState.apply`` reads of a decoded record (``at``: its record index)."""
    return SimpleNamespace(kind=kind, index=at, fields=fields, strings=strings or {}, complete=True)


ops = st.one_of(
    st.tuples(st.just("string"), st.integers(0, 4), st.sampled_from(["a", "b", "c"])),
    st.tuples(st.just("thread"), st.integers(0, 3), st.tuples(st.integers(1, 2), st.integers(1, 3))),
    st.tuples(st.just("switch"), st.integers(1, 3)),
    st.tuples(st.just("rate"), st.sampled_from([0, 1, 1000, 10**9])),
    st.tuples(st.just("row"), st.integers(1, 4), st.integers(1, 3)),  # a string ref, a thread ref
)


def _apply(state: ProviderState, op, index: int) -> None:
    if op[0] == "string":
        state.apply(record("string", index, {"value": op[2]}, index=op[1]))
    elif op[0] == "thread":
        state.apply(record("thread", index, index=op[1], process_koid=op[2][0], thread_koid=op[2][1]))
    elif op[0] == "switch":
        state.apply(record("metadata.provider_section", index, provider_id=op[1]))
    elif op[0] == "rate":
        state.apply(record("initialization", index, ticks_per_second=op[1]))


def _seen(state: ProviderState, string_ref: int, thread_ref: int) -> tuple:
    """What the reference path reads for one row: ids as the lookups give them (-1: none)."""
    p = state.current
    koids = p.threads.get(thread_ref)
    return (p.strings.get(string_ref, -1), -1 if koids is None else state.threads(koids), p.max_ticks, p.rate)


@given(st.lists(st.lists(ops, max_size=30), min_size=1, max_size=4))
# a row before a key's first change in its batch, the key changed twice after it: the
# row reads the value the first change replaced
@example([[("string", 1, "a"), ("thread", 1, (1, 1)), ("rate", 1000)],
          [("row", 1, 1), ("string", 1, "b"), ("string", 1, "c"), ("thread", 1, (2, 2)), ("thread", 1, (1, 3)),
           ("rate", 1), ("rate", 0), ("row", 1, 1)]])
def test_each_row_sees_the_tables_as_the_records_before_it_left_them(batches):
    state = ProviderState()
    cache = TableCache(state)
    index = 0
    for batch in batches:
        index0, start = index, state.current
        rows, want = [], []
        with state.recording() as hist:
            for op in batch:
                if op[0] == "row":
                    rows.append((index - index0, op[1], op[2]))
                    want.append(_seen(state, op[1], op[2]))
                else:
                    _apply(state, op, index)
                index += 1
        look = Lookups(state, cache, start, hist, index0)
        rel, sref, tref = (np.asarray(c, np.int64) for c in zip(*rows)) if rows else [np.zeros(0, np.int64)] * 3
        slot = look.slots(rel)
        def where(slot=slot, rel=rel):
            return slot, rel

        strings = look.lookup("strings", _SBITS, sref, where)
        threads = look.lookup("threads", _TBITS, tref, where)
        limit, pos, rates = look.limits(slot, rel)
        got = [(s, t, m, rates[p]) for s, t, m, p in zip(strings.tolist(), threads.tolist(), limit.tolist(),
                                                          pos.tolist())]
        assert got == want
        cache.changed(hist)


def test_a_table_changed_in_a_batch_is_read_anew_in_the_next():
    """A batch without changes reads the cached table; ``changed`` drops what a batch changed."""
    state = ProviderState()
    cache = TableCache(state)
    zero, one = np.zeros(1, np.int64), np.ones(1, np.int64)

    def string_ref_1(index0: int) -> int:
        with state.recording() as hist:
            pass
        look = Lookups(state, cache, state.current, hist, index0)
        return look.lookup("strings", _SBITS, one, lambda: (zero, zero))[0]

    with state.recording() as hist:
        _apply(state, ("string", 1, "a"), 0)
    cache.changed(hist)
    assert string_ref_1(1) == state.strings.ids["a"]
    with state.recording() as hist:
        _apply(state, ("string", 1, "b"), 1)
    assert string_ref_1(2) == state.strings.ids["a"]  # the cache, until told
    cache.changed(hist)
    assert string_ref_1(2) == state.strings.ids["b"]


def test_latest_finds_the_last_key_below_with_the_same_prefix():
    keys = np.asarray([(1 << 4) | 3, (1 << 4) | 9, (2 << 4) | 1], np.int64)
    order = np.argsort(keys)
    queries = np.asarray([(1 << 4) | 2, (1 << 4) | 4, (1 << 4) | 15, (2 << 4) | 0, (3 << 4) | 5], np.int64)
    # before the first key of prefix 1; after it; after both; before prefix 2's; prefix 3 has none
    assert latest(keys, order, queries, 4).tolist() == [-1, 0, 1, -1, -1]
    assert latest(keys[:0], order[:0], queries, 4).tolist() == [-1] * 5


@pytest.mark.parametrize("indexes", [[1, 2, 3, 7], [5, 100_000], []], ids=["dense", "sparse", "empty"])
def test_table_lookups_dense_or_sorted_agree(indexes):
    """A table kept as a dense array (indexes numbered from 1 up) and one kept only
    sorted (sparse indexes) answer every query as a dictionary would."""
    from fxtlint.engine._lookups import _find

    state = ProviderState()
    p = state.current
    for i, k in enumerate(indexes):
        p.strings[k] = 10 + i
    keys, vals, dense = TableCache(state).get(p, "strings")
    assert (dense is not None) == (indexes == [1, 2, 3, 7])
    q = np.asarray([0, 1, 2, 3, 4, 7, 8, 5, 100_000, 32_767], np.uint64)
    want = [p.strings.get(int(k), -1) for k in q]
    assert _find(keys, vals, q, dense).tolist() == want
    assert _find(keys, vals, q).tolist() == want
