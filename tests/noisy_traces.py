"""Noisy drawn traces, shared by the tests that hold one engine to another (the native
walk to the reference, ``tests/test_nwalk.py``; the column path of export, decode and
the coverage to the reference, ``tests/test_walk.py``; streams, ``tests/test_stream.py``;
the kernel to the column engine, ``tests/test_kernel.py``).

Drawn to be noisy on purpose: every record kind of the tables, unregistered refs,
several providers, rate changes, out-of-order timestamps, inline and indexed
everything, either byte order, raw byte damage and cuts.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from fxtlint import build as B

refs = st.one_of(st.integers(0, 6), st.sampled_from(["", "x", "inline", "ünï", "exactly8"]))
threads = st.one_of(st.integers(0, 4), st.tuples(st.integers(1, 3), st.integers(1, 3)))
stamps = st.one_of(st.integers(0, 50), st.just((1 << 64) - 1), st.integers(1 << 60, 1 << 63))


@st.composite
def args(draw):
    kind = draw(st.sampled_from(["null", "int32", "uint32", "int64", "uint64", "double", "string",
                                 "pointer", "koid", "bool", "blob"]))
    value = {"double": 0.5, "string": draw(refs), "bool": True, "blob": b"\x00\xff",
             "int32": -3, "int64": -(1 << 40)}.get(kind, 5)
    return B.arg(kind, draw(refs), value)


inline_or_index = st.one_of(st.integers(0, 4), st.tuples(st.integers(1, 3), st.integers(1, 3)))


@st.composite
def other_records(draw):
    """Every record kind that is not an event, with drawn fields (valid or not)."""
    which = draw(st.integers(0, 9))
    arglist = st.lists(args(), max_size=3)
    if which == 0:
        return B.log(draw(stamps), draw(st.sampled_from(["", "m", "ünï", "exactly8"])), thread=draw(inline_or_index))
    if which == 1:
        return B.kernel_object(draw(st.integers(0, 9)), draw(st.integers(0, 40)), draw(refs), args=draw(arglist))
    if which == 2:
        return B.userspace_object(draw(st.integers(0, 9)), draw(st.one_of(st.integers(0, 4),
                                                                          st.tuples(st.integers(1, 3)))),
                                  draw(refs), args=draw(arglist))
    if which == 3:
        return B.context_switch(draw(stamps), draw(st.integers(0, 3)), draw(st.integers(0, 7)), 1, 2,
                                args=draw(arglist))
    if which == 4:
        return B.thread_wakeup(draw(stamps), draw(st.integers(0, 3)), 3, args=draw(arglist))
    if which == 5:
        return B.legacy_context_switch(draw(stamps), draw(st.integers(0, 3)), draw(st.integers(0, 7)),
                                       outgoing_thread=draw(inline_or_index), incoming_thread=draw(inline_or_index))
    if which == 6:
        return B.blob(draw(refs), draw(st.binary(max_size=20)), draw(st.integers(0, 4)))
    if which == 7:
        if draw(st.booleans()):
            return B.large_blob(draw(refs), draw(refs), draw(st.binary(max_size=20)), timestamp=draw(stamps),
                                thread=draw(inline_or_index), args=draw(arglist))
        return B.large_blob(draw(refs), draw(refs), draw(st.binary(max_size=20)))
    if which == 8:
        return B.unknown(draw(st.integers(10, 14)), draw(st.binary(max_size=16)))
    return B.provider_event(draw(st.integers(1, 2)), draw(st.integers(0, 2)))


@st.composite
def records(draw):
    which = draw(st.integers(0, 9))
    if which == 0:
        return B.string(draw(st.integers(0, 6)), draw(st.sampled_from(["", "a", "b", "cat", "name"])))
    if which == 1:
        return B.thread(draw(st.integers(0, 4)), draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    if which == 2:
        return draw(st.sampled_from([B.provider_info(1, "one"), B.provider_info(2, "two"), B.provider_section(1),
                                     B.provider_section(2), B.provider_section(3), B.provider_event(1, 0),
                                     B.initialization(0), B.initialization(1000), B.initialization(10**12)]))
    if which in (3, 4):
        return draw(other_records())
    kind = draw(st.sampled_from(["instant", "counter", "duration_begin", "duration_end", "duration_complete",
                                 "async_begin", "async_instant", "async_end", "flow_begin", "flow_step",
                                 "flow_end"]))
    return B.event(kind, draw(stamps), thread=draw(threads), category=draw(refs), name=draw(refs),
                   args=draw(st.lists(args(), max_size=3)), id=draw(st.integers(0, 2)),
                   end_timestamp=draw(stamps))


@st.composite
def noisy_archives(draw):
    recs = [B.magic()] + draw(st.lists(records(), max_size=40))
    data = bytearray(B.archive(*recs, byte_order=draw(st.sampled_from(["little", "little", "big"]))))
    for pos, bit in draw(st.lists(st.tuples(st.integers(0, max(0, len(data) - 1)), st.integers(0, 7)),
                                  max_size=2)):
        if data:
            data[pos] ^= 1 << bit
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return bytes(data if cut is None else data[:cut])


shared_fixture = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def damaged_log_streams(draw):
    """A mutated structured-log stream (``fxtlint.strategies``) with up to two bits flipped
    in its first 200 bytes."""
    from fxtlint.strategies import mutated_log_streams

    data = bytearray(draw(mutated_log_streams())[0])
    for pos, bit in draw(st.lists(st.tuples(st.integers(0, 200), st.integers(0, 7)), max_size=2)):
        if pos < len(data):
            data[pos] ^= 1 << bit
    return bytes(data)
