"""Hypothesis strategies: valid FXT archives, structured-log streams, and mutated archives
that know which rule they must trip. For fxtlint's tests and for writer authors.

    from fxtlint.strategies import archives, mutated_archives

    @given(archives())
    def test_my_reader_accepts(data): ...

Every archive from ``archives()`` is clean: fxtlint reports nothing on it, at any
severity. Values are built by construction (registered tables first, then events that
use them, begins closed by their ends), never by filtering.
"""

from __future__ import annotations

try:
    from hypothesis import strategies as st
    from hypothesis.errors import InvalidArgument
except ImportError as e:  # the base install has no Hypothesis: say which extra brings it
    raise ImportError("fxtlint.strategies needs Hypothesis: pip install 'fxtlint[strategies]'") from e

from . import build as B
from .rules._mutations import LOG_MUTATIONS, MUTATIONS
from .spec._model import Argument, Record
from .spec._roles import RUNNING
from .spec._tables import Field, WordItem, tables

__all__ = ["arguments", "record_lists", "archives", "log_streams", "mutated_archives", "mutated_log_streams"]

_T = tables()
_ARG_KINDS = tuple(a.name for a in _T.arguments.values())
_NUMERIC = _T.numeric_argument_kinds()
_LOG_ARG_KINDS = tuple(_T.arguments[t].name for t in _T.log_allowed_argument_types)
_STRING_INDEX = _T.leaf("string").field(role="string_index")
_THREAD_INDEX = _T.leaf("thread").field(role="thread_index")
_BLOB_TYPES = tuple(sorted(_T.enums["blob_type"]))
_OBJECT_TYPES = tuple(sorted(_T.enums["kernel_object_type"]))
_STATES = tuple(sorted(_T.enums["thread_state"]))
_SEVERITIES = _T.values(_T.log_record.named("severity"))


def _value_field(kind: str) -> Field:
    """The field holding argument ``kind``'s value: in its header, or a whole body word."""
    lay = _T.argument(kind)
    f = lay.field("value")
    if f is not None:
        return f
    word = next(it for it in lay.full_body if isinstance(it, WordItem) and it.name == "value")
    return Field("value", 0, 63, signed=word.signed)


# the integers each integer argument type holds, from its layout
_VALUES = {k: st.integers(*_value_field(k).allowed) for k in ("int32", "uint32", "int64", "uint64", "pointer", "koid")}

_texts = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x2FF, exclude_categories=["Cs"]), min_size=1,
                 max_size=20)


def _check_bounds(min_size: int, max_size: int) -> None:
    if min_size < 0 or max_size < min_size:
        raise InvalidArgument(f"need 0 <= min_size <= max_size, got min_size={min_size}, max_size={max_size}")


def arguments(*, names=(), kinds=None) -> st.SearchStrategy[Argument]:
    """Valid arguments of ``kinds`` (default: every type of the tables). Names and string
    values are inline, or indexes drawn from ``names`` (registered string indexes).

    Shrinks towards the first kind (null), inline names and small values."""
    kinds = tuple(kinds) if kinds is not None else _ARG_KINDS
    unknown = set(kinds) - set(_ARG_KINDS)
    if unknown:
        raise InvalidArgument(f"unknown argument kinds {sorted(unknown)}")
    name = _texts if not names else st.one_of(_texts, st.sampled_from(tuple(names)))
    values = {
        **{k: _VALUES[k] for k in ("int32", "uint32", "int64", "uint64", "pointer", "koid")},
        "double": st.floats(allow_nan=False),
        "string": name,
        "bool": st.booleans(),
        "blob": st.binary(max_size=40),
        "null": st.none(),
    }
    return st.sampled_from(kinds).flatmap(lambda k: st.builds(B.arg, st.just(k), name, values[k]))


@st.composite
def _body(draw, strings, threads, clock, ids):
    """One self-contained group of records that leaves no state open."""
    s = st.sampled_from(strings)
    ref = st.one_of(s, _texts)
    thread_ref = st.one_of(st.sampled_from(tuple(threads)), st.sampled_from(tuple(threads.values())))
    args = st.lists(arguments(names=strings), max_size=3)

    def ts():
        clock[0] += draw(st.integers(1, 1000))
        return clock[0]

    def new_id():
        ids[0] += 1
        return ids[0]

    group = draw(st.integers(0, 11))
    t = draw(thread_ref)
    if group == 0:
        return [B.event("instant", ts(), thread=t, category=draw(ref), name=draw(ref), args=draw(args))]
    if group == 1:
        nums = st.lists(arguments(names=strings, kinds=_NUMERIC), max_size=3)
        return [B.event("counter", ts(), thread=t, category=draw(ref), name=draw(ref), args=draw(nums),
                        id=new_id())]
    if group == 2:
        start = ts()
        return [B.event("duration_complete", start, thread=t, category=draw(ref), name=draw(ref),
                        args=draw(args), end_timestamp=start + draw(st.integers(0, 100)))]
    if group == 3:  # nested durations, with a flow inside the innermost
        names = draw(st.lists(st.tuples(ref, ref), min_size=1, max_size=3))
        out = [B.event("duration_begin", ts(), thread=t, category=c, name=n, args=draw(args)) for c, n in names]
        if draw(st.booleans()):
            fid = new_id()
            c, n = draw(ref), draw(ref)
            out.append(B.event("flow_begin", ts(), thread=t, category=c, name=n, id=fid))
            if draw(st.booleans()):
                out.append(B.event("flow_step", ts(), thread=t, category=c, name=n, id=fid))
            out.append(B.event("flow_end", ts(), thread=t, category=c, name=n, id=fid))
        out += [B.event("duration_end", ts(), thread=t, category=c, name=n) for c, n in reversed(names)]
        return out
    if group == 4:
        aid, c, n = new_id(), draw(ref), draw(ref)
        out = [B.event("async_begin", ts(), thread=t, category=c, name=n, id=aid, args=draw(args))]
        if draw(st.booleans()):
            out.append(B.event("async_instant", ts(), thread=t, category=c, name=n, id=aid))
        out.append(B.event("async_end", ts(), thread=t, category=c, name=n, id=aid))
        return out
    if group == 5:
        return [B.blob(draw(ref), draw(st.binary(max_size=40)), draw(st.sampled_from(_BLOB_TYPES)))]
    if group == 6:
        return [B.kernel_object(draw(st.integers(1, 1 << 40)), draw(st.sampled_from(_OBJECT_TYPES)), draw(ref),
                                args=draw(args))]
    if group == 7:
        proc = draw(st.sampled_from(tuple(threads)))
        return [B.userspace_object(draw(st.integers(0, 1 << 48)), proc, draw(ref), args=draw(args))]
    if group == 8:
        state = draw(st.sampled_from(tuple(x for x in _STATES if x != RUNNING)))
        return [draw(st.sampled_from([
            B.context_switch(ts(), draw(st.integers(0, 63)), draw(st.sampled_from(_STATES)), 1, 2,
                             args=draw(args)),
            B.thread_wakeup(ts(), draw(st.integers(0, 63)), 3, args=draw(args)),
            B.legacy_context_switch(ts(), draw(st.integers(0, 255)), state, outgoing_thread=t,
                                    incoming_thread=draw(thread_ref)),
        ]))]
    if group == 9:
        return [B.log(ts(), draw(_texts), thread=t)]
    if group == 10:
        if draw(st.booleans()):
            return [B.large_blob(draw(ref), draw(ref), draw(st.binary(max_size=64)), timestamp=ts(), thread=t,
                                 args=draw(args))]
        return [B.large_blob(draw(ref), draw(ref), draw(st.binary(max_size=64)))]
    # a new tick rate from here on, no faster than the last: the clock's tick count goes on
    # where it was, so its time (ticks / rate) never goes back and every group stays after
    # the ones before it in time, as the spec reads them (and so do the mutations' LATE ticks)
    clock[1] = draw(st.integers(1, clock[1]))
    return [B.initialization(clock[1])]


@st.composite
def record_lists(draw, *, min_size: int = 0, max_size: int = 30) -> list[Record]:
    """Valid, semantically clean record lists: magic, one provider, an initialization
    record, string and thread tables registered before use, then ``min_size`` to
    ``max_size`` groups of records of every kind, each group closing what it opens.

    Shrinks towards fewer groups, the first group kind (instant events), small tables,
    inline strings and small values."""
    _check_bounds(min_size, max_size)
    string_idx = draw(st.lists(st.integers(2, _STRING_INDEX.mask), max_size=6, unique=True))
    strings = (1,) + tuple(string_idx)
    thread_idx = draw(st.lists(st.integers(2, _THREAD_INDEX.mask), max_size=4, unique=True))
    threads = {i: (draw(st.integers(1, 1 << 40)), draw(st.integers(1, 1 << 40))) for i in (1, *thread_idx)}
    provider_ids = _T.leaf("metadata.provider_info").named("provider_id").allowed
    info = B.provider_info(draw(st.integers(*provider_ids)), draw(_texts))
    rate = draw(st.integers(10**6, 10**10))
    recs = [B.magic(), info, B.provider_section(info.fields["provider_id"]), B.initialization(rate)]
    recs += [B.string(i, draw(_texts)) for i in strings]
    recs += [B.thread(i, *k) for i, k in threads.items()]
    clock, ids = [0, rate], [0]  # the clock: its tick count, and its tick rate
    for _ in range(draw(st.integers(min_size, max_size))):
        recs += draw(_body(strings, threads, clock, ids))
    return recs


def archives(*, min_size: int = 0, max_size: int = 30, byte_order: str = "little") -> st.SearchStrategy[bytes]:
    """Bytes of valid archives (see ``record_lists``) in ``byte_order``.

    Shrinks as ``record_lists`` does."""
    if byte_order not in ("little", "big"):
        raise InvalidArgument(f"byte_order must be 'little' or 'big', not {byte_order!r}")
    return record_lists(min_size=min_size, max_size=max_size).map(lambda r: B.archive(*r, byte_order=byte_order))


def log_streams(*, min_size: int = 1, max_size: int = 10) -> st.SearchStrategy[bytes]:
    """Valid structured-log streams: named severities, the five allowed argument types,
    inline non-empty names.

    Shrinks towards fewer records, TRACE severity and fewer arguments."""
    _check_bounds(min_size, max_size)
    rec = st.builds(B.log_record, st.sampled_from(_SEVERITIES), st.integers(-(1 << 63), (1 << 63) - 1),
                    st.lists(arguments(kinds=_LOG_ARG_KINDS), max_size=4))
    return st.lists(rec, min_size=min_size, max_size=max_size).map(lambda r: B.log_stream(*r))


def _mutations_for(codes) -> list:
    from .rules import REGISTRY  # the rule registry imports the builders, not the strategies

    codes = [codes] if isinstance(codes, str) else list(codes)
    unknown = sorted(c for c in codes if c not in REGISTRY)
    if unknown:
        raise InvalidArgument(f"unknown rule code(s) {unknown}: `fxtlint rules` lists every code")
    table = [m for m in MUTATIONS if m[0] in set(codes)]
    if not table:
        logs = sorted(c for c in codes if c in {m[0] for m in LOG_MUTATIONS})
        hint = f"; {logs} are structured-log rules: use mutated_log_streams()" if logs else ""
        raise InvalidArgument(f"no archive mutation trips any of {sorted(codes)}{hint}")
    return table


@st.composite
def mutated_archives(draw, *, codes=None) -> tuple[bytes, str]:
    """A valid archive with one mutation applied, and the rule code it must trip.

    ``codes`` limits the mutations to those rules. Shrinks towards the first mutation
    in ``fxtlint.rules._mutations.MUTATIONS`` and a small archive."""
    table = MUTATIONS if codes is None else _mutations_for(codes)
    code, mutate = draw(st.sampled_from(table))
    recs = draw(record_lists(max_size=8))
    return mutate(recs, draw), code


@st.composite
def mutated_log_streams(draw) -> tuple[bytes, str]:
    """A valid structured-log stream with one mutation, and the rule code it must trip.

    Shrinks towards the first mutation of ``fxtlint.rules._mutations.LOG_MUTATIONS``."""
    code, mutate = draw(st.sampled_from(LOG_MUTATIONS))
    return mutate(draw), code
