"""``_provider_state``: what each record's effect does to the provider tables, and how
refs read against them; every consumer (linter, coverage, export, canonical decoding)
reads this one state."""

from __future__ import annotations

from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from fxtlint.engine._provider_state import INLINE_BIT, NS_PER_S, U64, ProviderState, max_ticks


def record(kind: str, strings=None, complete=True, **fields):
    """What ``apply`` reads of a decoded record."""
    return SimpleNamespace(kind=kind, index=0, fields=fields, strings=strings or {}, complete=complete)


def string(idx: int, value, complete=True):
    return record("string", {"value": value}, complete, index=idx)


def test_string_index_0_registers_nothing_and_its_twin_registers():
    state = ProviderState()
    change = state.apply(string(0, "zero"))
    assert (change.effect, change.key) == ("registers_string", 0) and state.current.strings == {}
    change = state.apply(string(1, "one"))
    assert change.key == 1 and state.string({"s": 1}, {}, "s") == "one"


def test_thread_index_0_registers_nothing_and_its_twin_registers():
    state = ProviderState()
    assert state.apply(record("thread", index=0, process_koid=1, thread_koid=2)).key == 0
    assert state.current.threads == {}
    assert state.apply(record("thread", index=3, process_koid=1, thread_koid=2)).new == (1, 2)
    assert state.thread(record("event.instant", thread=3), "thread") == (1, 2)


def test_a_record_cut_short_registers_nothing():
    state = ProviderState()
    assert state.apply(string(1, "cut", complete=False)) is None
    assert state.apply(record("thread", complete=False, index=1, process_koid=1, thread_koid=2)) is None
    assert state.apply(record("initialization", complete=False, ticks_per_second=5)) is None
    assert state.current.strings == {} and state.current.threads == {} and state.current.rate == NS_PER_S


def test_a_registration_again_names_the_entry_it_replaced():
    state = ProviderState()
    state.apply(string(1, "old"))
    change = state.apply(string(1, "new"))
    assert state.strings.values[change.old] == "old" and state.strings.values[change.new] == "new"
    assert state.string({"s": 1}, {}, "s") == "new"


def test_each_provider_has_its_own_tables():
    state = ProviderState()
    state.apply(record("metadata.provider_info", {"provider_name": "one"}, provider_id=1))
    state.apply(string(1, "of one"))
    state.apply(record("metadata.provider_section", provider_id=2))
    assert state.string({"s": 1}, {}, "s") is None  # provider 2 never registered index 1
    assert state.current.name is None and state.announced == {1}  # a section does not announce
    state.apply(record("metadata.provider_section", provider_id=1))
    assert state.string({"s": 1}, {}, "s") == "of one" and state.current.name == "one"


def test_refs_read_inline_values_and_ref_0():
    state = ProviderState()
    assert state.string({"s": 0}, {}, "s") == ""
    assert state.string({"s": INLINE_BIT | 3}, {"s": "abc"}, "s") == "abc"
    assert state.string({"s": INLINE_BIT | 2}, {"s": b"\xff\xfe"}, "s") == "\ufffd\ufffd"  # not UTF-8
    inline = record("event.instant", thread=0, process_koid=4, thread_koid=5)
    assert state.thread(inline, "thread") == (4, 5)
    assert state.thread(record("event.instant", thread=0), "thread") is None  # no inline koids read


def test_a_record_without_an_effect_changes_nothing():
    state = ProviderState()
    assert state.apply(record("event.instant", thread=1)) is None
    assert list(state.providers) == [None]


def test_a_tick_rate_sets_the_largest_timestamp_that_converts():
    state = ProviderState()
    assert state.current.max_ticks == U64 - 1  # 1 tick = 1 ns until said otherwise
    change = state.apply(record("initialization", ticks_per_second=2 * NS_PER_S))
    assert change.old == (U64 - 1, NS_PER_S) and state.current.rate == 2 * NS_PER_S
    assert state.current.max_ticks == U64 - 1
    state.apply(record("initialization", ticks_per_second=1))
    assert state.current.max_ticks == -(-U64 // NS_PER_S) - 1
    state.apply(record("initialization", ticks_per_second=0))  # converts nothing: nothing overflows
    assert (state.current.rate, state.current.max_ticks) == (0, U64 - 1)


@given(st.integers(1, 4 * NS_PER_S))
def test_max_ticks_is_the_last_tick_count_whose_nanoseconds_fit(rate):
    m = max_ticks(rate)
    assert m * NS_PER_S // rate < U64
    assert m == U64 - 1 or (m + 1) * NS_PER_S // rate >= U64


def test_a_fresh_state_and_its_copies():
    """A new state: the empty string is id 0, no provider named, the provider before any
    provider record current with the default rate; koid pairs interned from 0 (the thread
    interner is made at the first), kept by a deep copy (``rewrite/_continue`` copies a
    walk's state) and independent of it."""
    import copy

    state = ProviderState()
    assert state.strings.values == [""] and state.strings("") == 0 and state.strings("a") == 1
    assert state.current is state.providers[None] and state.current.id is None and not state.announced
    assert (state.current.rate, state.current.max_ticks, state.current.strings) == (NS_PER_S, U64 - 1, {})
    assert state.threads((1, 2)) == 0 and state.threads((3, 4)) == 1 and state.threads((1, 2)) == 0
    twin = copy.deepcopy(state)
    assert twin.threads.values == [(1, 2), (3, 4)] and twin.strings.values == ["", "a"]
    assert twin.threads((5, 6)) == 2 and state.threads.values == [(1, 2), (3, 4)]
    assert copy.deepcopy(ProviderState()).threads((7, 8)) == 0


def test_a_fresh_state_is_made_as_its_classes_make_their_objects():
    """``ProviderState.__init__`` makes its interner and first provider without their
    ``__init__`` calls (a small lint's fixed cost): what it sets must stay what those
    ``__init__``s set, field for field, so a field added to either is added there too."""
    from fxtlint.engine._provider_state import Interner, Provider

    def fields(obj) -> dict:  # (both classes have slots: every one must be set)
        return {name: getattr(obj, name) for name in type(obj).__slots__}

    state = ProviderState()
    assert fields(state.current) == fields(Provider(None))
    fresh = Interner()
    fresh("")
    assert fields(state.strings) == fields(fresh)
