"""Mutations of valid archives: each rule's declaration names the one that trips it
(``Rule.mutation``), built from the helpers here.

A mutation takes a valid record list (index 0 the magic record; string index 1 and
thread index 1 registered; empty for a structured-log rule, whose mutation builds a
whole stream) and a ``pick`` (``pick.integers(lo, hi)``, ``pick.sampled_from(values)``:
Hypothesis's draws, through ``fxtlint.rules._mutations``, so the rules need no Hypothesis),
and returns bytes. Most append one record or patch one field found through the spec
tables, so that exactly the intended defect is added.
"""

from __future__ import annotations

import functools

from ..spec import _build as B
from ..spec._limits import Limits
from ..spec._model import Record
from ..spec._roles import RUNNING  # noqa: F401 - the mutations name it M.RUNNING
from ..spec._tables import tables

TABLES = tables()
WORD_MAX = (1 << 64) - 1  # the largest 64-bit word: an id or a timestamp no archive reaches
PROVIDER_ID_MAX = TABLES.leaf("metadata.provider_section").named("provider_id").mask
STRING_INDEX_MAX = TABLES.leaf("string").field(role="string_index").mask
_SIZE = TABLES.field(role="size")


def _leaf(kind: str):
    return TABLES.leaf(kind)


def _patch_header(rec_bytes: bytes, field, value: int) -> bytes:
    return B.patch_field(rec_bytes, field, value)


def _zero_field(kind: str, pick, zero: bool):
    """A reserved (or always-zero) header field of ``kind``, drawn."""
    fields = [f for f in _leaf(kind).full_fields if (f.zero if zero else f.reserved)]
    return pick.sampled_from(fields)


def event(kind, ts, **kw):
    """An event naming only string index 1 and thread index 1, which every archive registers."""
    kw.setdefault("category", 1)
    kw.setdefault("name", 1)
    return B.event(kind, ts, **kw)


def arg_sized(words: int) -> bytes:
    """An instant event naming only index 1 whose int32 argument's size field says ``words``:
    the argument size is its only defect."""
    rec = B.archive(event("instant", 1, args=[B.arg("int32", 1, 5)]))
    size_f = TABLES.field(role="size", of="argument")
    return B.patch_field(rec, size_f, words, word=2)


def int64_arg_sized(words: int) -> bytes:
    """An instant event naming only index 1 whose int64 argument declares ``words`` words
    (the record padded to hold them)."""
    rec = B.archive(event("instant", 1, args=[B.arg("int64", 1, 7)]))
    size_f = TABLES.field(role="size", of="argument")
    out = B.patch_field(rec, size_f, words, word=2) + bytes(8 * (words - 2))
    return _patch_header(out, _SIZE, len(out) // 8)


def append(*extra):
    return lambda recs, pick: B.archive(*recs, *extra)


def unannounced_section(recs, pick):
    """A Provider Section for a provider no Provider Info record of ``recs`` announced (the
    highest such id: a drawn archive may already announce PROVIDER_ID_MAX)."""
    announced = {r.fields.get("provider_id") for r in recs if r.kind == "metadata.provider_info"}
    pid = next(p for p in range(PROVIDER_ID_MAX, 0, -1) if p not in announced)
    return B.archive(*recs, B.provider_section(pid))


def size_zero(recs, pick):
    return B.archive(*recs) + B.words(0)


def truncated(recs, pick):
    return B.archive(*recs, B.string(1, _registered_text(recs)))[:-8]


def _registered_text(recs) -> str:
    return next(r.strings["value"] for r in recs if r.kind == "string" and r.fields["index"] == 1)


def _other_text(recs) -> str:
    """An inline string that differs from string index 1's text."""
    return _registered_text(recs) + "~"


def re_registered(recs, pick):
    return B.archive(*recs, B.string(1, _other_text(recs)))


# After every timestamp record_lists draws, so pairing sees these last; small enough that
# even a tick rate of 1 keeps it under 2^64 ns (TM003).
LATE = 1 << 24


def end_mismatch(recs, pick):
    return B.archive(*recs, event("duration_begin", LATE), event("duration_end", LATE + 1, name=_other_text(recs)))


def inner_never_ended(recs, pick):
    return B.archive(*recs, event("duration_begin", LATE), event("duration_begin", LATE + 1, name=_other_text(recs)),
                     event("duration_end", LATE + 2))


def id_reused(recs, pick):
    kind = pick.sampled_from(["async", "flow"])
    live = WORD_MAX  # record_lists counts ids up from 1
    if kind == "async":
        return B.archive(*recs, event("async_begin", LATE, id=live), event("async_begin", LATE + 1, id=live),
                         event("async_end", LATE + 2, id=live))
    return B.archive(*recs, event("duration_begin", LATE), event("flow_begin", LATE + 1, id=live),
                     event("flow_begin", LATE + 2, id=live), event("flow_end", LATE + 3, id=live),
                     event("duration_end", LATE + 4))


_OVERFLOW_DEPTH = Limits().max_stack + 1  # one more open duration than a thread's tracked stack holds


def pairing_overflow(recs, pick):
    return B.archive(*recs) + _begins_tail()


@functools.cache
def _begins_tail() -> bytes:
    # the same bytes every time (about 1 MiB): build them once
    return B.archive(*[event("duration_begin", LATE + i) for i in range(_OVERFLOW_DEPTH)])


def unaligned(recs, pick):
    return B.archive(*recs) + bytes(pick.integers(1, 7))


def reserved(recs, pick):
    f = _zero_field("thread", pick, zero=False)
    bit = pick.integers(f.lo, f.hi)
    return B.archive(*recs) + _patch_header(B.archive(B.thread(1, *_thread1(recs))), f, 1 << (bit - f.lo))


def _thread1(recs):
    r = next(r for r in recs if r.kind == "thread" and r.fields["index"] == 1)
    return r.fields["process_koid"], r.fields["thread_koid"]


def arg_reserved(recs, pick):
    ev = B.archive(event("instant", 1, args=[B.arg("int64", "n", 5)]))
    lay = TABLES.argument("int64")
    f = next(f for f in lay.full_fields if f.reserved)
    bits = B.read_field(ev, f, word=2) | pick.integers(1, f.mask)
    return B.archive(*recs) + B.patch_field(ev, f, bits, word=2)


def always_zero(recs, pick):
    f = _zero_field("string", pick, zero=True)
    return B.archive(*recs) + _patch_header(B.archive(B.string(1, _registered_text(recs))), f, 1)


def short_record(recs, pick):
    ev = B.archive(B.event("instant", 1, category=1, name=1))
    return B.archive(*recs) + _patch_header(ev, _SIZE, 1)[:8]


def dirty_padding(recs, pick):
    text = pick.sampled_from(["a", "abc", "abcdefg"])  # never a whole word: there is padding
    n = len(text)
    b = bytearray(B.archive(B.string(fresh_index(recs), text)))
    b[8 + n + pick.integers(0, (-n % 8) - 1)] = pick.integers(1, 255)
    return B.archive(*recs) + bytes(b)


def fresh_index(recs) -> int:
    """A string index no record registers, so that registering it changes nothing (RF007)."""
    used = {r.fields["index"] for r in recs if r.kind == "string"}
    return next(i for i in range(2, 1 << 15) if i not in used)


def unregistered(recs, kind: str) -> int:
    """The largest index no ``kind`` record of ``recs`` registers (archives may register the
    largest, so a fixed one is not always unregistered)."""
    used = {r.fields["index"] for r in recs if r.kind == kind}
    top = _leaf(kind).field(role=f"{kind}_index").mask
    return next(i for i in range(top, 0, -1) if i not in used)


def bad_utf8(recs, pick):
    b = bytearray(B.archive(B.string(fresh_index(recs), "ab")))
    b[8] = pick.sampled_from([0x80, 0xC0, 0xFF, 0xFE])
    b[9] = 0xFF
    return B.archive(*recs) + bytes(b)


def magic_dropped(recs, pick):
    return B.archive(*recs[1:])


def magic_value(recs, pick):
    f = _leaf("metadata.trace_info.magic").field("magic")
    data = bytearray(B.archive(*recs))
    data[:8] = _patch_header(bytes(data[:8]), f, f.const ^ (1 << pick.integers(0, f.width - 1)))
    return bytes(data)


def magic_extended(recs, pick):
    return _patch_header(B.archive(recs[0]), _SIZE, 2) + B.words(0) + B.archive(*recs[1:])


def unknown_type(recs, pick):
    return B.archive(*recs, B.unknown(pick.sampled_from(TABLES.undefined_record_types), bytes(8)))


def unknown_event_type(recs, pick):
    sel = _leaf("event.instant").field("event_type")
    undefined = [v for v in range(1 << sel.width) if v not in TABLES.root("event").variants]
    return B.archive(*recs) + _patch_header(B.archive(event("instant", 1)), sel, pick.sampled_from(undefined))


def unknown_arg_type(recs, pick):
    return B.archive(*recs, event("instant", 1, args=[B.raw_arg(pick.sampled_from(
        TABLES.undefined_argument_types), "x", bytes(8))]))


def undefined_blob_type(recs, pick):
    undefined = TABLES.undefined_values(_leaf("blob").named("blob_type"))
    return B.archive(*recs, B.blob(1, b"x", blob_type=pick.sampled_from(undefined)))


_SIZE = TABLES.field(role="size")


def trailing(recs, pick):
    """An Initialization record with an extension word (EX001): any word but one that reads
    as a record header, whose size field is cleared (a word that is a well-formed header
    after the content is FR004's, the size that may swallow the next record: the fuzzed
    strategies drew 0x00000000d1d10010, a provider info header)."""
    word = _SIZE.set(pick.integers(0, 1 << 63), 0)
    return B.archive(*recs, Record(_leaf("initialization").type, "initialization", {"ticks_per_second": 1000},
                                   extra_words=(word,)))


_SEVERITY = TABLES.log_record.named("severity")
_NAMED = TABLES.values(_SEVERITY)
_INFO = TABLES.value_of(_SEVERITY.enum or "", "INFO")
# undefined severities outside the named ones (SL002) and between two of them (SL003)
OUTSIDE = tuple(v for v in TABLES.undefined_values(_SEVERITY) if not _NAMED[0] < v < _NAMED[-1])
BETWEEN = tuple(v for v in TABLES.undefined_values(_SEVERITY) if _NAMED[0] < v < _NAMED[-1])
NOT_LOG_ARGS = tuple(a.name for t, a in TABLES.arguments.items() if t not in TABLES.log_allowed_argument_types)


def log(pick, args=None, severity=_INFO):
    return B.log_record(severity, pick.integers(0, 1 << 40),
                        args if args is not None else [B.arg("string", "message", "m")])


def log_wrong_type(recs, pick):
    t = TABLES.log_record.field(role="type")
    data = B.patch_field(B.log_stream(log(pick)), t, pick.sampled_from([v for v in TABLES.undefined_values(t)]))
    return B.log_stream(log(pick)) + data
