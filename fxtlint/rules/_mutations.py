"""Mutations of valid archives, each paired with the rule code it must trip.

Each mutation takes a valid record list (index 0 the magic record; string index 1 and
thread index 1 registered) and a Hypothesis ``draw``, and returns bytes. Most append
one record or patch one field found through the spec tables, so that exactly the
intended defect is added.
"""

from __future__ import annotations

import functools

from hypothesis import strategies as st

from ..spec import _build as B
from ..spec._model import Record
from ..spec._tables import tables

_T = tables()
_SIZE = next(f for f in _T.header if f.role == "size")


def _leaf(kind: str):
    return next(lay for lay in _T.record_leaves() if lay.name == kind)


def _patch_header(rec_bytes: bytes, field, value: int) -> bytes:
    return B.patch_field(rec_bytes, field, value)


def _zero_field(kind: str, draw, zero: bool):
    """A reserved (or always-zero) header field of ``kind``, drawn."""
    fields = [f for f in _leaf(kind).full_fields if (f.zero if zero else f.reserved)]
    return draw(st.sampled_from(fields))


def _ev(kind, ts, **kw):
    """An event naming only string index 1 and thread index 1, which every archive registers."""
    kw.setdefault("category", 1)
    kw.setdefault("name", 1)
    return B.event(kind, ts, **kw)


def _arg_sized(words: int) -> bytes:
    """An instant event naming only index 1 whose int32 argument's size field says ``words``:
    the argument size is its only defect."""
    rec = B.archive(_ev("instant", 1, args=[B.arg("int32", 1, 5)]))
    size_f = next(f for f in _T.argument_header if f.role == "size")
    return B.patch_field(rec, size_f, words, word=2)


def _int64_arg_sized(words: int) -> bytes:
    """An instant event naming only index 1 whose int64 argument declares ``words`` words
    (the record padded to hold them)."""
    rec = B.archive(_ev("instant", 1, args=[B.arg("int64", 1, 7)]))
    size_f = next(f for f in _T.argument_header if f.role == "size")
    out = B.patch_field(rec, size_f, words, word=2) + bytes(8 * (words - 2))
    return _patch_header(out, _SIZE, len(out) // 8)


def _append(*extra):
    return lambda recs, draw: B.archive(*recs, *extra)


def _size_zero(recs, draw):
    return B.archive(*recs) + B.words(0)


def _truncated(recs, draw):
    return B.archive(*recs, B.string(1, _registered_text(recs)))[:-8]


def _registered_text(recs) -> str:
    return next(r.strings["value"] for r in recs if r.kind == "string" and r.fields["index"] == 1)


def _other_text(recs) -> str:
    """An inline string that differs from string index 1's text."""
    return _registered_text(recs) + "~"


def _re_registered(recs, draw):
    return B.archive(*recs, B.string(1, _other_text(recs)))


# After every timestamp record_lists draws, so pairing sees these last; small enough that
# even a tick rate of 1 keeps it under 2^64 ns (TM003).
_LATE = 1 << 24


def _end_mismatch(recs, draw):
    return B.archive(*recs, _ev("duration_begin", _LATE), _ev("duration_end", _LATE + 1, name=_other_text(recs)))


def _inner_never_ended(recs, draw):
    return B.archive(*recs, _ev("duration_begin", _LATE), _ev("duration_begin", _LATE + 1, name=_other_text(recs)),
                     _ev("duration_end", _LATE + 2))


def _id_reused(recs, draw):
    kind = draw(st.sampled_from(["async", "flow"]))
    live = (1 << 64) - 1  # record_lists counts ids up from 1
    if kind == "async":
        return B.archive(*recs, _ev("async_begin", _LATE, id=live), _ev("async_begin", _LATE + 1, id=live),
                         _ev("async_end", _LATE + 2, id=live))
    return B.archive(*recs, _ev("duration_begin", _LATE), _ev("flow_begin", _LATE + 1, id=live),
                     _ev("flow_begin", _LATE + 2, id=live), _ev("flow_end", _LATE + 3, id=live),
                     _ev("duration_end", _LATE + 4))


_OVERFLOW_DEPTH = 65537  # one more open duration than a thread's tracked stack holds


def _pairing_overflow(recs, draw):
    return B.archive(*recs) + _begins_tail()


@functools.cache
def _begins_tail() -> bytes:
    # the same bytes every time (about 1 MiB): build them once
    return B.archive(*[_ev("duration_begin", _LATE + i) for i in range(_OVERFLOW_DEPTH)])


def _unaligned(recs, draw):
    return B.archive(*recs) + bytes(draw(st.integers(1, 7)))


def _reserved(recs, draw):
    f = _zero_field("thread", draw, zero=False)
    bit = draw(st.integers(f.lo, f.hi))
    return B.archive(*recs) + _patch_header(B.archive(B.thread(1, *_thread1(recs))), f, 1 << (bit - f.lo))


def _thread1(recs):
    r = next(r for r in recs if r.kind == "thread" and r.fields["index"] == 1)
    return r.fields["process_koid"], r.fields["thread_koid"]


def _arg_reserved(recs, draw):
    ev = B.archive(_ev("instant", 1, args=[B.arg("int64", "n", 5)]))
    lay = next(a for a in _T.arguments.values() if a.name == "int64")
    f = next(f for f in lay.full_fields if f.reserved)
    bits = B.read_field(ev, f, word=2) | draw(st.integers(1, f.mask))
    return B.archive(*recs) + B.patch_field(ev, f, bits, word=2)


def _always_zero(recs, draw):
    f = _zero_field("string", draw, zero=True)
    return B.archive(*recs) + _patch_header(B.archive(B.string(1, _registered_text(recs))), f, 1)


def _short_record(recs, draw):
    ev = B.archive(B.event("instant", 1, category=1, name=1))
    return B.archive(*recs) + _patch_header(ev, _SIZE, 1)[:8]


def _dirty_padding(recs, draw):
    text = draw(st.sampled_from(["a", "abc", "abcdefg"]))  # never a whole word: there is padding
    n = len(text)
    b = bytearray(B.archive(B.string(_fresh_index(recs), text)))
    b[8 + n + draw(st.integers(0, (-n % 8) - 1))] = draw(st.integers(1, 255))
    return B.archive(*recs) + bytes(b)


def _fresh_index(recs) -> int:
    """A string index no record registers, so that registering it changes nothing (RF007)."""
    used = {r.fields["index"] for r in recs if r.kind == "string"}
    return next(i for i in range(2, 1 << 15) if i not in used)


def _unregistered(recs, kind: str) -> int:
    """The largest index no ``kind`` record of ``recs`` registers (archives may register the
    largest, so a fixed one is not always unregistered)."""
    used = {r.fields["index"] for r in recs if r.kind == kind}
    top = next(f for f in _leaf(kind).full_fields if f.name == "index").mask
    return next(i for i in range(top, 0, -1) if i not in used)


def _bad_utf8(recs, draw):
    b = bytearray(B.archive(B.string(_fresh_index(recs), "ab")))
    b[8] = draw(st.sampled_from([0x80, 0xC0, 0xFF, 0xFE]))
    b[9] = 0xFF
    return B.archive(*recs) + bytes(b)


def _magic_dropped(recs, draw):
    return B.archive(*recs[1:])


def _magic_value(recs, draw):
    f = _leaf("metadata.trace_info.magic").field("magic")
    data = bytearray(B.archive(*recs))
    data[:8] = _patch_header(bytes(data[:8]), f, f.const ^ (1 << draw(st.integers(0, f.width - 1))))
    return bytes(data)


def _magic_extended(recs, draw):
    return _patch_header(B.archive(recs[0]), _SIZE, 2) + B.words(0) + B.archive(*recs[1:])


def _unknown_type(recs, draw):
    return B.archive(*recs, B.unknown(draw(st.sampled_from(_T.undefined_record_types)), bytes(8)))


def _unknown_event_type(recs, draw):
    sel = _leaf("event.instant").field("event_type")
    undefined = [v for v in range(1 << sel.width) if v not in _T.records[4].variants]
    return B.archive(*recs) + _patch_header(B.archive(_ev("instant", 1)), sel, draw(st.sampled_from(undefined)))


def _unknown_arg_type(recs, draw):
    return B.archive(*recs, _ev("instant", 1, args=[B.raw_arg(draw(st.sampled_from(
        _T.undefined_argument_types)), "x", bytes(8))]))


def _undefined_blob_type(recs, draw):
    return B.archive(*recs, B.blob(1, b"x", blob_type=draw(st.integers(4, 255))))


def _trailing(recs, draw):
    return B.archive(*recs, Record(1, "initialization", {"ticks_per_second": 1000},
                                   extra_words=(draw(st.integers(0, 1 << 63)),)))


MUTATIONS = [
    ("FR001", _size_zero),
    ("FR002", _truncated),
    ("FR003", _unaligned),
    ("RB001", _reserved),
    ("RB002", _arg_reserved),
    ("RB003", _always_zero),
    ("ST001", _short_record),
    ("ST002", _dirty_padding),
    ("ST003", _bad_utf8),
    ("ST004", lambda recs, draw: B.archive(*recs, B.string(_fresh_index(recs), "x" * 32001))),
    ("ST005", lambda recs, draw: B.archive(*recs) + _int64_arg_sized(draw(st.integers(3, 6)))),
    ("ST006", lambda recs, draw: B.archive(*recs) + _arg_sized(0)),
    ("ST007", lambda recs, draw: B.archive(*recs) + _arg_sized(draw(st.integers(2, 40)))),
    ("MG001", _magic_dropped),
    ("MG002", _magic_value),
    ("MG003", _append(B.magic())),
    ("MG004", _magic_extended),
    ("UN001", _unknown_type),
    ("UN002", _unknown_event_type),
    ("UN003", _unknown_arg_type),
    ("UN004", _undefined_blob_type),
    ("EX001", _trailing),
    ("EX002", lambda recs, draw: B.archive(*recs, byte_order="big")),
    ("RF001", lambda recs, draw: B.archive(*recs, _ev("instant", 1, name=_unregistered(recs, "string")))),
    ("RF002", lambda recs, draw: B.archive(*recs, _ev("instant", 1, thread=_unregistered(recs, "thread")))),
    ("RF003", _append(B.string(0, "zero"))),
    ("RF004", _append(B.thread(0, 1, 2))),
    ("RF005", _append(B.provider_section((1 << 32) - 1))),
    ("RF006", _append(B.string(0x7FFE, ""))),
    ("RF007", _re_registered),
    ("TM001", _append(B.initialization(0))),
    ("TM002", _append(_ev("duration_complete", 10, end_timestamp=5))),
    ("TM003", _append(B.initialization(1), _ev("instant", (1 << 64) - 1))),
    ("PR001", _append(_ev("duration_end", _LATE))),
    ("PR002", _end_mismatch),
    ("PR003", _inner_never_ended),
    ("PR004", _append(_ev("duration_begin", _LATE))),
    ("PR005", _append(_ev("async_end", _LATE, id=(1 << 64) - 1))),
    ("PR006", _id_reused),
    ("PR007", _append(_ev("duration_begin", _LATE), _ev("flow_end", _LATE, id=(1 << 64) - 1),
                      _ev("duration_end", _LATE))),
    ("PR008", _append(_ev("flow_begin", _LATE, id=(1 << 64) - 1),
                      _ev("flow_end", _LATE, id=(1 << 64) - 1))),
    ("EV001", _append(_ev("counter", _LATE, args=[B.arg("string", "s", "v")]))),
    ("EV002", _append(B.legacy_context_switch(_LATE, 0, 1, outgoing_thread=1, incoming_thread=1))),
    ("EV003", _append(B.provider_event(0, 0))),
    ("PR012", _pairing_overflow),
]

# Rules no single small mutation trips, and why.
EXEMPT: dict[str, str] = {
    "FR004": "needs a size one too large that swallows a valid header: see the rule's own examples",
    "ST008": "needs a string ending in NUL: see the rule's own examples",
    "MG005": "a whole file that is not FXT: see the rule's own examples",
}

# The only other rules a mutation may trip besides its own, and why; every other
# mutation adds exactly one defect.
COMPANIONS = {
    "PR012": ({"PR004"}, "the 65,537 begins are still open at the end of the file"),
}


def _log(draw, args=None, severity=0x30):
    return B.log_record(severity, draw(st.integers(0, 1 << 40)),
                        args if args is not None else [B.arg("string", "message", "m")])


def _log_wrong_type(draw):
    t = next(f for f in _T.log_record.full_fields if f.role == "type")
    data = B.patch_field(B.log_stream(_log(draw)), t, draw(st.sampled_from([v for v in range(16) if v != t.const])))
    return B.log_stream(_log(draw)) + data


LOG_MUTATIONS = [
    ("SL001", _log_wrong_type),
    ("SL002", lambda draw: B.log_stream(_log(draw, severity=draw(st.sampled_from([0, 1, 0x0F, 0x61, 0xFF]))))),
    # between two named severities: a step of 0x10 plus 1..15
    ("SL003", lambda draw: B.log_stream(_log(draw, severity=0x10 * draw(st.integers(1, 5))
                                             + draw(st.integers(1, 15))))),
    ("SL004", lambda draw: B.log_stream(_log(draw, args=[B.arg(draw(st.sampled_from(["int32", "uint32", "pointer",
                                                                                    "koid", "null"])), "n", 1)]))),
    ("SL005", lambda draw: B.log_stream(_log(draw, args=[B.arg("string", "m", draw(st.integers(1, 0x7FFF)))]))),
    ("SL006", lambda draw: B.log_stream(_log(draw, args=[B.arg("int64", draw(st.sampled_from(["", 0])), 1)]))),
]
