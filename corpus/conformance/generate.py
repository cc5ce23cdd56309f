"""Writes the FXT reader conformance suite (python corpus/conformance/generate.py [OUT]).

Deterministic: the same fxtlint gives the same bytes. Cases come from fxtlint.build and
from every reader-detectable rule's failing example and the mutation catalogue replayed
with fixed choices (named after the rule), so the suite grows with the rules.

Every case is filed by one question, "must a reader reject this to read the trace
correctly?", answered from the spec's words (fxtlint/reader_suite/_reader_verdicts.py): the verdict
of a case is the strictest verdict of what fxtlint finds in it, and its folder must say
the same (valid/: must accept; malformed/: skip the malformed record or reject; invalid/
and recover/: no reader can go on, graded by the records before the fault; impl/:
either), so
the same fault gets the same verdict wherever it appears. Each case is checked against
fxtlint before it is written. A test regenerates into a temporary folder and fails on
any difference.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parent.parent))  # the checkout's fxtlint, installed or not

from fxtlint import build as B  # noqa: E402
from fxtlint import lint_bytes, read_records  # noqa: E402
from fxtlint.reader_suite._canonical import decode  # noqa: E402
from fxtlint.reader_suite._reader_verdicts import (  # noqa: E402
    ACCEPT,
    EITHER,
    REASONS,
    REJECT,
    RULES,
    SKIP,
    reason_for,
    strictest,
)
from fxtlint.reader_suite._runner import SUITE_VERSION  # noqa: E402
from fxtlint.rules import all_rules  # noqa: E402
from fxtlint.rules._diagnostics import Severity  # noqa: E402
from fxtlint.rules._mutations import MUTATIONS  # noqa: E402
from fxtlint.spec._model import Record  # noqa: E402
from fxtlint.spec._tables import tables  # noqa: E402

_T = tables()
CATEGORIES = ("valid", "malformed", "invalid", "recover", "impl")
# what each folder asks of a reader, and where a rule's case goes by its verdict
VERDICT_OF = {"valid": ACCEPT, "malformed": SKIP, "invalid": REJECT, "recover": REJECT, "impl": EITHER}
FOLDER_OF = {ACCEPT: "valid", SKIP: "malformed", REJECT: "invalid", EITHER: "impl"}
# reasons whose decoding the spec does not fix: an accepting reader's output is not compared
NO_DECODING = frozenset({"enum-value"})

# Rule families whose faults a reader meets while framing and decoding; plus the two
# refs a reader must resolve. Pairing, timing and registration rules (PR, TM, RF003-7)
# are about what a trace means, not whether it can be read; structured-log rules (SL)
# belong to the second format.
READER_FAMILIES = ("FR", "RB", "ST", "MG")
READER_REFS = ("RF001", "RF002")


@dataclass
class Case:
    category: str
    name: str
    data: bytes
    spec: str
    what: str
    rule: str | None = None
    reasons: tuple[str, ...] = ()  # fxtlint.reader_suite._reader_verdicts keys: why its folder (set by check)
    expected: dict | None = field(default=None, repr=False)
    prefix: int | None = None  # malformed/: the records before the first malformed one (set by check)


# ------------------------------------------------------------------ building blocks
PROVIDER = 1
TICKS = 1_000_000_000  # one tick per nanosecond, so readers that convert agree


def head(*, provider=True, init=True):
    out = [B.magic()]
    if provider:
        out.append(B.provider_info(PROVIDER, "conformance"))
    if init:
        out.append(B.initialization(TICKS))
    return out


def tables_1():
    """String 1 "cat", string 2 "name", thread 1 (pid 10, tid 11), thread 2 (10, 12)."""
    return [B.string(1, "cat"), B.string(2, "name"), B.thread(1, 10, 11), B.thread(2, 10, 12)]


def trace(*records, byte_order="little", **kw) -> bytes:
    return B.archive(*head(**kw), *tables_1(), *records, byte_order=byte_order)


def ev(kind, ts=100, **kw):
    kw.setdefault("category", 1)
    kw.setdefault("name", 2)
    return B.event(kind, ts, **kw)


def set_header_bits(rec: bytes, mask: int, *, clear: int = 0) -> bytes:
    return B.patch_field(rec, B.WORD, B.read_field(rec, B.WORD) & ~clear | mask)


def field_of(kind: str, name: str):
    return next(leaf for leaf in _T.record_leaves() if leaf.name == kind).field(name)


# ------------------------------------------------------------------ valid
_EVENT_SPEC = {leaf.name: leaf.spec for leaf in _T.record_leaves()}
_ARG_SPEC = {a.name: a.spec for a in _T.arguments.values()}


def valid_cases():
    V = []

    def add(name, data, spec, what):
        V.append(Case("valid", name, data, spec, what))

    # every record kind and subtype
    for leaf in _T.records[4].leaves():
        kind = leaf.name.split(".", 1)[1]
        add(f"event-{kind.replace('_', '-')}", trace(ev(kind, 100, id=7, end_timestamp=150)), leaf.spec,
            f"one {leaf.title.lower()} with indexed category, name and thread")
    for value, bname in sorted(_T.enums["blob_type"].items()):
        add(f"blob-{bname.replace('_', '-')}", trace(B.blob(1, b"\x01\x02\x03\xfe\xff", blob_type=value)),
            _EVENT_SPEC["blob"], f"a blob record of blob type {value} ({bname}) with a 5-byte payload")
    add("blob-empty", trace(B.blob("inline", b"", blob_type=1)), _EVENT_SPEC["blob"], "a blob record with no payload")
    add("userspace-object", trace(B.userspace_object(0x7F0000001000, 1, "obj", args=[B.arg("string", "k", "v")])),
        _EVENT_SPEC["userspace_object"], "a userspace object on indexed process 1 with one argument")
    add("userspace-object-inline-process", trace(B.userspace_object(0x1000, (77,), 2)),
        _EVENT_SPEC["userspace_object"], "a userspace object whose process koid is inline")
    for value in (1, 2, 4):
        tname = _T.enums["kernel_object_type"][value]
        add(f"kernel-object-{tname}", trace(B.kernel_object(1000 + value, value, f"a {tname}")),
            _EVENT_SPEC["kernel_object"], f"a kernel object of type {value} ({tname})")
    add("kernel-object-with-args", trace(B.kernel_object(1001, 2, 2, args=[B.arg("koid", "process", 1000)])),
        _EVENT_SPEC["kernel_object"], "a thread kernel object with a koid argument")
    add("scheduling-legacy-context-switch", trace(B.legacy_context_switch(100, 3, 3, 1, 2, 20, 21)),
        _EVENT_SPEC["scheduling.legacy_context_switch"], "a legacy context switch between indexed threads")
    add("scheduling-legacy-context-switch-inline", trace(B.legacy_context_switch(
        100, 255, 2, outgoing_thread=(30, 31), incoming_thread=(40, 41), outgoing_priority=255)),
        _EVENT_SPEC["scheduling.legacy_context_switch"], "a legacy context switch between inline threads")
    add("scheduling-context-switch", trace(B.context_switch(100, 65535, 3, 11, 12)),
        _EVENT_SPEC["scheduling.context_switch"], "a context switch (subtype 1) on cpu 65535")
    add("scheduling-context-switch-weights", trace(B.context_switch(
        100, 1, 3, 11, 12, args=[B.arg("int32", "incoming_weight", 5), B.arg("int32", "outgoing_weight", -5)])),
        _EVENT_SPEC["scheduling.context_switch"], "a context switch with its conventional weight arguments")
    add("scheduling-thread-wakeup", trace(B.thread_wakeup(100, 2, 12)),
        _EVENT_SPEC["scheduling.thread_wakeup"], "a thread wakeup (subtype 2)")
    add("scheduling-thread-wakeup-weight", trace(B.thread_wakeup(100, 2, 12, args=[B.arg("int32", "weight", 3)])),
        _EVENT_SPEC["scheduling.thread_wakeup"], "a thread wakeup with its conventional weight argument")
    add("log", trace(B.log(100, "hello, log")), _EVENT_SPEC["log"], "a log record on indexed thread 1")
    add("log-inline-thread", trace(B.log(100, "inline", thread=(50, 51))), _EVENT_SPEC["log"],
        "a log record with an inline thread")
    add("log-empty-message", trace(B.log(100, "")), _EVENT_SPEC["log"], "a log record with an empty message")
    add("large-blob-with-metadata", trace(B.large_blob(1, 2, bytes(range(20)), timestamp=100)),
        _EVENT_SPEC["large.blob.with_metadata"], "a large blob with metadata (blob format 0)")
    add("large-blob-with-metadata-args", trace(B.large_blob("c", "n", b"xyz", timestamp=5, thread=(1, 2),
                                                            args=[B.arg("uint64", "u", 1 << 63)])),
        _EVENT_SPEC["large.blob.with_metadata"], "a large blob with metadata, inline refs and an argument")
    add("large-blob-no-metadata", trace(B.large_blob(1, 2, b"payload!!")),
        _EVENT_SPEC["large.blob.no_metadata"], "a large blob without metadata (blob format 1)")
    add("large-blob-empty", trace(B.large_blob(1, 2, b"")), _EVENT_SPEC["large.blob.no_metadata"],
        "a large blob with a 0-byte payload")
    add("large-blob-over-4095-words", trace(B.large_blob(1, 2, bytes(i % 251 for i in range(40000)))),
        "Large Record Header: [4 .. 35] record size (32 bits)",
        "a large blob of 5004 words: its size needs more than the 12-bit field")
    for name, data, spec, what in large_followed_cases():
        add(name, data, spec, what)
    add("provider-event-buffer-full", trace(ev("instant"), B.provider_event(PROVIDER, 0)),
        _EVENT_SPEC["metadata.provider_event"], "a buffer-full provider event after an event")

    # every argument type, and their bounds
    arg_values = {
        "null": [None], "int32": [0, -(1 << 31), (1 << 31) - 1], "uint32": [(1 << 32) - 1],
        "int64": [-(1 << 63), (1 << 63) - 1], "uint64": [(1 << 64) - 1, 1 << 53 | 1],
        "double": [1.5, -0.25, 1e308, 5e-324, float("inf"), float("-inf")], "string": ["value", 1, 0],
        "pointer": [0xFFFF_8000_0000_1000], "koid": [(1 << 64) - 2], "bool": [True, False],
        "blob": [b"", b"\x00\x01\x02\x03\x04\x05\x06\x07\x08"],
    }
    for kind, values in arg_values.items():
        for i, v in enumerate(values):
            suffix = "" if len(values) == 1 else f"-{i + 1}"
            add(f"argument-{kind}{suffix}", trace(ev("instant", args=[B.arg(kind, "arg", v)])), _ARG_SPEC[kind],
                f"an instant event with one {kind} argument ({_describe(v)})")
    add("argument-name-indexed", trace(ev("instant", args=[B.arg("string", 2, "v")])), "Argument Header: name",
        "an argument named by string index 2")
    add("argument-name-empty", trace(ev("instant", args=[B.arg("string", 0, "v")])), "Argument Header: name",
        "an argument whose name is the empty string (ref 0)")
    add("argument-string-long", trace(ev("instant", args=[B.arg("string", "s", "é" * 1000)])),
        _ARG_SPEC["string"], "a 2000-byte inline UTF-8 string argument")
    add("arguments-15", trace(ev("instant", args=[B.arg("string", f"a{i}", f"v{i}") for i in range(15)])),
        "Event Record: [20 .. 23] number of arguments", "an event with the maximum of 15 arguments")
    kinds = list(arg_values)
    add("arguments-15-mixed", trace(ev("instant", args=[B.arg(kinds[i % len(kinds)], f"m{i}", arg_values[
        kinds[i % len(kinds)]][0]) for i in range(15)])),
        "Event Record: [20 .. 23] number of arguments", "15 arguments of every type in turn")
    add("arguments-same-name", trace(ev("instant", args=[B.arg("string", "x", "1"), B.arg("string", "x", "2")])),
        "Arguments", "two arguments with the same name, both kept in order")
    add("arguments-counter", trace(ev("counter", id=3, args=[B.arg("int64", "a", -1), B.arg("double", "b", 2.5)])),
        _EVENT_SPEC["event.counter"], "a counter event with its values as arguments")
    add("arguments-on-every-event", trace(*[ev(leaf.name.split(".", 1)[1], 100 + i, id=i, end_timestamp=200,
                                               args=[B.arg("string", "i", str(i))])
                                            for i, leaf in enumerate(_T.records[4].leaves())]),
        "Event Record", "every event type, each with an argument")

    # refs
    add("ref-inline-category-name", trace(ev("instant", category="inline cat", name="inline name")),
        "String References: inline", "an event whose category and name are inline strings")
    add("ref-empty-strings", trace(ev("instant", category=0, name=0)), "String References: 0 is the empty string",
        "an event whose category and name are ref 0, the empty string")
    add("ref-inline-thread", trace(ev("instant", thread=(99, 100))), "Thread References: inline",
        "an event whose thread is inline")
    add("ref-string-index-max", B.archive(*head(), B.string(0x7FFF, "last"), B.thread(1, 1, 2),
                                          ev("instant", category=0x7FFF, name=0x7FFF)),
        "String Record: [16 .. 30] string index", "a string registered at index 32767, the highest")
    add("ref-thread-index-max", B.archive(*head(), *tables_1()[:2], B.thread(255, 5, 6), ev("instant", thread=255)),
        "Thread Record: [16 .. 23] thread index", "a thread registered at index 255, the highest")
    add("ref-string-reregistered", trace(ev("instant"), B.string(2, "renamed"), ev("instant", 200)),
        "String Record", "string index 2 registered again: later events see the new text")
    add("ref-thread-reregistered", trace(ev("instant"), B.thread(1, 70, 71), ev("instant", 200)),
        "Thread Record", "thread index 1 registered again: later events see the new koids")
    add("ref-string-record-empty", trace(B.string(3, ""), ev("instant", name=3)), "String Record",
        "a string record of length 0 and an event named by it")

    # strings
    add("string-32000-bytes", trace(B.string(3, "s" * 32000), ev("instant", name=3)),
        "String References: a conservative maximum string length limit of 32000 bytes",
        "a 32000-byte string record, the limit, used as a name")
    add("string-inline-32000-bytes", trace(ev("instant", name="i" * 32000)),
        "String References: a conservative maximum string length limit of 32000 bytes",
        "a 32000-byte inline name")
    add("string-utf8-multibyte", trace(B.string(3, "naïve 日本語 🙂"), ev("instant", name=3)),
        "String References: UTF-8", "a string of 1- to 4-byte UTF-8 characters")
    add("string-word-aligned", trace(B.string(3, "eightchr"), ev("instant", name=3)), "Atoms: Stream",
        "a string of exactly 8 bytes: no padding")
    add("record-4095-words", trace(ev("instant", category="c" * 32000, name="n" * 744)),
        "Record Header: [4 .. 15] record size", "an event of 4095 words, the most a 12-bit size holds")
    add("string-seven-bytes", trace(B.string(3, "sevench"), ev("instant", name=3)), "Atoms: Stream",
        "a string of 7 bytes: one byte of padding")

    # byte order
    add("big-endian-event", trace(ev("instant", args=[B.arg("int64", "v", -2)]), byte_order="big"),
        "Magic Number Record: big endian", "a big-endian archive with an event and an argument")
    add("big-endian-every-argument", trace(ev("instant", args=[B.arg(k, k, v[-1]) for k, v in arg_values.items()]),
                                           byte_order="big"),
        "Magic Number Record: big endian", "a big-endian archive with one argument of every type")
    add("big-endian-records", trace(B.blob(1, b"abc"), B.kernel_object(5, 1, "p"), B.log(5, "x"),
                                    B.context_switch(5, 1, 3, 1, 2), B.legacy_context_switch(5, 1, 3),
                                    B.userspace_object(9, 1, "u"), byte_order="big"),
        "Magic Number Record: big endian", "a big-endian archive with one record of several kinds")
    add("big-endian-large-blob", trace(B.large_blob(1, 2, b"0123456789", timestamp=7), byte_order="big"),
        "Large Record Header; big endian", "a big-endian large blob with metadata")

    # providers
    add("provider-none", B.archive(B.magic(), B.initialization(TICKS), *tables_1(), ev("instant")),
        "Provider Info Metadata", "an archive with no provider records: records belong to no provider")
    add("provider-two-sections", B.archive(
        *head(), B.provider_info(2, "second"), B.initialization(TICKS), B.string(1, "two-cat"),
        B.string(2, "two-name"), B.thread(1, 20, 21),
        ev("instant"),
        B.provider_section(PROVIDER), *tables_1(), ev("instant", 200), B.provider_section(2), ev("instant", 300)),
        "Provider Section Metadata", "two providers interleaved by sections, each with its own tables")
    add("provider-tables-separate", B.archive(
        *head(), *tables_1(), B.provider_info(2, "other"), B.initialization(TICKS), B.string(1, "other-cat"),
        B.string(2, "other-name"),
        B.thread(1, 30, 31), ev("instant"), B.provider_section(PROVIDER), ev("instant", 200)),
        "Provider Section Metadata: the reader must maintain state separately for each provider",
        "the same indexes registered by two providers resolve per provider")
    add("provider-three", B.archive(B.magic(), *[
        r for p in (7, 8, 9) for r in (B.provider_info(p, f"p{p}"), B.initialization(TICKS), *tables_1(),
                                       ev("instant", p))]),
        "Provider Info Metadata", "three providers one after the other")
    add("provider-id-max", B.archive(B.magic(), B.provider_info((1 << 32) - 1, "max"), B.initialization(TICKS),
                                     *tables_1(), ev("instant")),
        "Provider Info Metadata: [20 .. 51] provider id", "a provider id of 2^32-1")
    add("provider-name-empty", B.archive(B.magic(), B.provider_info(3, ""), B.initialization(TICKS), *tables_1(),
                                         ev("instant")),
        "Provider Info Metadata", "a provider with an empty name")

    # initialization and time
    add("initialization-none", trace(ev("instant"), init=False), "Initialization Record",
        "no initialization record: one tick is one nanosecond")
    add("initialization-1000-ticks", B.archive(*head(init=False), B.initialization(1000), *tables_1(),
                                               ev("instant", 5)),
        "Initialization Record", "1000 ticks per second; timestamps stay in ticks")
    add("initialization-twice", trace(ev("instant"), B.initialization(2000), ev("instant", 200)),
        "Initialization Record", "a second initialization record part-way through")
    add("timestamp-zero-and-max", trace(ev("instant", 0), ev("instant", (1 << 64) - 1)), "Event Record: timestamp",
        "timestamps 0 and 2^64-1 ticks")
    add("timestamps-out-of-order", trace(ev("instant", 300), ev("instant", 100), ev("instant", 200)),
        "Archives: records need not be in timestamp order", "three events not in timestamp order")
    add("magic-only", B.archive(B.magic()), "Magic Number Record", "an archive of the magic record alone")

    # extensions the spec allows
    add("trailing-words-initialization", trace(ev("instant"),
                                               Record(1, "initialization", {"ticks_per_second": TICKS},
                                                      extra_words=(1, 2))),
        "Extending the Format", "an initialization record with two extra words, as real writers emit")
    add("trailing-words-instant-scope", trace(Record(4, "event.instant", {"timestamp": 100, "thread": 1,
                                                                          "category": 1, "name": 2},
                                                     extra_words=(3,))),
        "Extending the Format", "an instant event with one extra word (a writer's scope word)")
    add("trailing-words-after-arguments", trace(Record(4, "event.counter", {
        "timestamp": 100, "thread": 1, "category": 1, "name": 2, "counter_id": 1},
        args=(B.arg("double", "v", 1.0),), extra_words=(0, 0, 0))),
        "Extending the Format", "a counter event with three extra words after its counter id")
    add("trailing-words-string-record", trace(Record(2, "string", {"index": 3}, {"value": "x"}, extra_words=(9,)),
                                              ev("instant", name=3)),
        "Extending the Format", "a string record with one extra word")
    add("trailing-words-thread-record", B.archive(*head(), *tables_1()[:2], Record(
        3, "thread", {"index": 1, "process_koid": 4, "thread_koid": 5}, extra_words=(6,)), ev("instant")),
        "Extending the Format", "a thread record with one extra word")
    for t in _T.undefined_record_types:
        add(f"unknown-record-type-{t}", trace(ev("instant"), B.unknown(t, bytes(range(16)), bits=0xABC),
                                              ev("instant", 200)),
            "Extending the Format; Record Types", f"a record of undefined type {t} between two events: skipped by size")
    add("unknown-record-type-large-body", trace(B.unknown(13, bytes(4000)), ev("instant")),
        "Extending the Format; Record Types", "a 501-word record of undefined type 13 before an event")
    add("unknown-record-type-header-only", trace(B.unknown(10), ev("instant")),
        "Extending the Format; Record Types", "a 1-word record of undefined type 10 before an event")
    return V


# size classes of a large record over 4,095 words, by what a reader that frames it with
# the 12-bit field [4 .. 15] sees: 0 words (4,096), a few words (4,097), a whole
# second wrap (8,195 words: 3)
LARGE_WORDS = (4096, 4097, 8195)


def _large_of(kind: str, words: int) -> bytes:
    """A large record of ``kind`` exactly ``words`` long: a blob (with or without
    metadata) whose payload fills it, or one of an undefined large type or blob format
    (skipped by its size)."""
    def blob(payload_len: int) -> bytes:
        if kind == "with-metadata":
            return B.archive(B.large_blob(1, 2, bytes(i % 251 for i in range(payload_len)), timestamp=300))
        return B.archive(B.large_blob(1, 2, bytes(i % 251 for i in range(payload_len))))

    rec = blob(0)
    rec = blob(8 * (words - len(rec) // 8))
    assert len(rec) == 8 * words, (kind, words, len(rec))
    if kind == "unknown-type":
        rec = set_header_bits(rec, 1 << field_of("large.blob.no_metadata", "large_type").lo)
    elif kind == "unknown-format":
        bf = field_of("large.blob.no_metadata", "blob_format")
        rec = set_header_bits(rec, 2 << bf.lo, clear=bf.word_mask)
    return rec


def large_followed_cases():
    """Records after a large record of every kind and size class over 4,095 words: a
    reader that frames type 15 with the 12-bit size (the spec notes' known bug) misreads
    what follows, where the only such record before was the last of its file."""
    kinds = {"with-metadata": "large.blob.with_metadata", "no-metadata": "large.blob.no_metadata",
             "unknown-type": "large", "unknown-format": "large.blob.no_metadata"}
    titles = {"with-metadata": "a large blob with metadata", "no-metadata": "a large blob without metadata",
              "unknown-type": "a large record of undefined type 1", "unknown-format":
              "a large blob of undefined format 2"}
    for kind, leaf in kinds.items():
        for words in LARGE_WORDS:
            data = trace(ev("instant", 100)) + _large_of(kind, words) + B.archive(
                ev("counter", 400, id=9, args=[B.arg("int64", "n", -3)]), B.string(3, "after"),
                ev("instant", 500, name=3))
            yield (f"large-{kind}-{words}-words-then-records", data,
                   f"Large Record Header: [4 .. 35] record size (32 bits); {_EVENT_SPEC.get(leaf, 'large type')}",
                   f"{titles[kind]} of {words} words ({words % 4096} in the 12-bit field), then a counter, a "
                   "string record and an instant event named by it")


def _describe(v) -> str:
    if isinstance(v, bytes):
        return f"{len(v)} bytes"
    if v is None:
        return "no value"
    if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 1 << 20:
        return hex(v)
    return repr(v)


# ------------------------------------------------------------------ invalid
class Replay:
    """A stand-in for Hypothesis's ``draw`` that replays fixed choices: variant 0 takes
    each strategy's first value, 1 its last, 2 its middle. Only the two strategy kinds
    the mutation catalogue draws from are understood."""

    def __init__(self, variant: int):
        self.variant = variant

    def __call__(self, strategy):
        s = getattr(strategy, "wrapped_strategy", strategy)
        if hasattr(s, "elements"):
            items = list(s.elements)
        elif hasattr(s, "start") and hasattr(s, "end"):
            lo, hi = s.start, s.end
            return (lo, hi, (lo + hi) // 2)[self.variant]
        else:
            raise TypeError(f"cannot replay a draw from {strategy!r}")
        return items[(0, -1, len(items) // 2)[self.variant]]


def mutation_bases():
    """Valid record lists the mutations expect: magic first, string 1 and thread 1."""
    return {
        "minimal": [B.magic(), B.string(1, "x"), B.thread(1, 1, 2)],
        "provider": [*head(), *tables_1(), ev("instant")],
        "mixed": [*head(), *tables_1(), ev("counter", id=1, args=[B.arg("int64", "n", 4)]),
                  B.log(200, "log"), B.kernel_object(5, 1, "proc"), ev("duration_complete", 300, end_timestamp=400)],
    }


def reader_rules():
    return [r for r in all_rules() if r.status == "stable" and r.severity == Severity.ERROR
            and (r.code[:2] in READER_FAMILIES or r.code in READER_REFS) and r.bad.input_format == "trace"]


def _errors(data: bytes) -> set[str]:
    return {d.code for d in lint_bytes(data, input_format="trace").diagnostics if d.severity == Severity.ERROR}


def _only(code: str, errors: set[str]) -> bool:
    """The case trips ``code`` and no error of another family (a wrong magic value is
    also a missing magic record: both MG)."""
    return code in errors and all(e[:2] == code[:2] for e in errors)


def verdict_of(data: bytes) -> tuple[str, tuple[str, ...]]:
    """The strictest reader verdict of everything fxtlint finds in ``data``, with the
    reasons that give it (for ``accept``, the extensions and ignored records only)."""
    found = [reason_for(d.code, d.details) for d in lint_bytes(data, input_format="trace").diagnostics]
    v = strictest(r.verdict for r in found)
    keys = [r.key for r in found if r.verdict == v and r.key != "well-formed"]
    return v, tuple(dict.fromkeys(keys))


def rule_cases():
    """Each reader rule's failing example and its mutations, filed by their verdict: a
    reserved bit goes to valid/, non-zero padding to impl/, a record past the end to
    invalid/."""
    out = []
    seen: set[bytes] = set()
    for rule in reader_rules():
        candidates = [(f"{rule.code}-{rule.name}", rule.bad.build(), f"the rule's failing example: {rule.bad.caption}")]
        for code, mutate in MUTATIONS:
            if code != rule.code:
                continue
            for base_name, base in mutation_bases().items():
                for variant in range(3):
                    data = mutate(list(base), Replay(variant))
                    candidates.append((f"{rule.code}-{rule.name}-{base_name}-{variant + 1}", data,
                                       f"a mutation of the {base_name} archive (choice {variant + 1})"))
        for name, data, what in candidates:
            if data in seen or not _only(rule.code, _errors(data)):
                continue  # a duplicate, or a mutation that trips more than its rule here
            seen.add(data)
            out.append(Case(FOLDER_OF[verdict_of(data)[0]], name, data, rule.spec, what, rule=rule.code))
    out.append(Case(FOLDER_OF[verdict_of(_arg_short())[0]], "ST005-argument-size-mismatch-content-longer", _arg_short(),
                    "Argument Header: [4 .. 15] argument size (inclusive of this word)",
                    "a string argument declaring 2 words where its 20-byte inline value needs 4: the value "
                    "overruns the argument", rule="ST005"))
    return out


def _arg_short() -> bytes:
    """An instant event whose string argument declares fewer words than its value takes,
    the record's size still holding all of it."""
    rec = B.archive(ev("instant", args=[B.arg("string", 1, "v" * 20)]))
    size = next(f for f in _T.argument_header if f.role == "size")
    return trace() + B.patch_field(rec, size, 2, word=2)


# ------------------------------------------------------------------ recover
def _recover_base():
    return [*head(), *tables_1(), ev("duration_begin", 100, args=[B.arg("string", "s", "five")]),
            B.log(110, "a log message"), ev("duration_end", 120)]


def recover_cases():
    out = []
    base = B.archive(*_recover_base())
    tails = {
        "event-args": ev("instant", 200, args=[B.arg("string", "s", "value"), B.arg("uint64", "u", 1)]),
        "string-record": B.string(3, "a string of some length"),
        "thread-record": B.thread(3, 7, 8),
        "log": B.log(200, "message cut off"),
        "large-blob": B.large_blob(1, 2, bytes(64), timestamp=200),
        "blob": B.blob(1, bytes(range(30))),
        "kernel-object": B.kernel_object(1, 1, "process name", args=[B.arg("koid", "k", 3)]),
        "context-switch": B.context_switch(200, 1, 3, 11, 12),
    }
    spec = "Records: a reader returns every record up to the last well-formed one"
    for name, rec in tails.items():
        tail = B.archive(rec)
        for cut, label in ((8, "after-header"), (len(tail) - 8, "last-word-missing")):
            if cut <= 0 or cut >= len(tail):
                continue
            out.append(Case("recover", f"truncated-{name}-{label}", base + tail[:cut], spec,
                            f"the final {name.replace('-', ' ')} record cut after {cut} of its {len(tail)} bytes"))
    out.append(Case("recover", "truncated-partial-header", base + b"\x04\x00\x13", spec,
                    "three bytes of a header after the last record"))
    out.append(Case("recover", "truncated-mid-argument", base + B.archive(ev("instant", 200, args=[
        B.arg("string", "name", "x" * 40)]))[:40], spec, "an event cut inside its string argument"))
    out.append(Case("recover", "size-zero-header", base + B.words(0x0004) + B.archive(ev("instant", 300)),
                    "Record Header: a header of size 0 cannot be skipped",
                    "a header of size 0 followed by a good event: the walk stops at it"))
    out.append(Case("recover", "size-past-end", base + set_header_bits(B.archive(B.thread(3, 7, 8)), 0xFFF << 4,
                                                                          clear=0xFFF << 4),
                    spec, "a thread record that declares 4095 words"))
    cut = B.archive(*_recover_base(), ev("instant", 200, args=[B.arg("string", "s", "z" * 100)]))
    for n in (1, 5):
        out.append(Case("recover", f"truncated-{n}-bytes-short", cut[:-n], spec,
                        f"a file missing its last {n} bytes (an event with a long string argument)"))
    mid = set_header_bits(B.archive(ev("instant", 200, args=[B.arg("int64", "v", 1)])), 0, clear=0xFFF << 4)
    mid = set_header_bits(mid, 2 << 4)  # 2 words: the argument no longer fits
    # one malformed record in the middle: "can be skipped", so a reader may skip it or reject
    out.append(Case("malformed", "corrupt-middle-record-size", base + mid + B.archive(ev("instant", 300)),
                    "Records: unrecognized or malformed trace records can be skipped",
                    "an event whose size cuts its argument off, followed by a good event: skipped, the good "
                    "event is read; rejected, the prefix comes back"))
    bad_utf8 = bytearray(B.archive(B.string(3, "ab")))
    bad_utf8[8] = 0xFF
    out.append(Case("malformed", "corrupt-middle-invalid-utf8", base + bytes(bad_utf8) + B.archive(ev("instant", 300)),
                    "Records: unrecognized or malformed trace records can be skipped",
                    "a string record of invalid UTF-8 in the middle, followed by a good event"))
    out.append(Case("malformed", "corrupt-middle-unregistered-thread", base + B.archive(ev("instant", 200, thread=9),
                                                                                       ev("instant", 300)),
                    "Thread References; Records: unrecognized or malformed trace records can be skipped",
                    "an event on an unregistered thread in the middle, then a good event"))
    return out


# ------------------------------------------------------------------ extensions and open questions
def edge_cases():
    """Unknown types, index-0 registrations, provider oddities and values outside an
    enumeration: each in the folder its verdict says (valid/: the spec tells a reader what
    to do; impl/: it does not)."""
    out = []

    def add(category, name, data, spec, what, rule=None):
        out.append(Case(category, name, data, spec, what, rule=rule))

    ev_type = field_of("event.instant", "event_type")
    add("valid", "unknown-event-type", trace() + set_header_bits(B.archive(ev("instant")), 11 << ev_type.lo)
        + B.archive(ev("instant", 200)), "Event Record: event type",
        "an event of undefined event type 11 before a good event: skipped by size", "UN002")
    md = field_of("metadata.provider_info", "metadata_type")
    add("valid", "unknown-metadata-type", trace() + set_header_bits(B.archive(B.provider_section(1)), 9 << md.lo,
                                                                    clear=md.word_mask) + B.archive(ev("instant")),
        "Metadata Record: metadata type", "a metadata record of undefined type 9: skipped by size", "UN002")
    sched = field_of("scheduling.context_switch", "scheduling_type")
    add("valid", "unknown-scheduling-type", trace() + set_header_bits(B.archive(B.context_switch(1, 1, 3, 1, 2)),
                                                                      3 << sched.lo, clear=sched.word_mask)
        + B.archive(ev("instant")), "Scheduling Record: subtype",
        "a scheduling record of undefined subtype 3: skipped by size", "UN002")
    lt = field_of("large.blob.no_metadata", "large_type")
    add("valid", "unknown-large-type", trace() + set_header_bits(B.archive(B.large_blob(1, 2, b"x")), 1 << lt.lo)
        + B.archive(ev("instant")), "Large Record Header: large record type",
        "a large record of undefined type 1: skipped by its 32-bit size", "UN002")
    bf = field_of("large.blob.no_metadata", "blob_format")
    add("valid", "unknown-large-blob-format", trace() + set_header_bits(B.archive(B.large_blob(1, 2, b"x")),
                                                                        2 << bf.lo, clear=bf.word_mask)
        + B.archive(ev("instant")), "Large BLOB Record: blob format",
        "a large blob of undefined format 2: skipped by its size", "UN002")
    add("valid", "unknown-argument-type", trace(ev("instant", args=[B.raw_arg(12, "x", bytes(8)),
                                                                    B.arg("int32", "y", 1)])),
        "Arguments: size-prefixed", "an event whose first argument has undefined type 12: skipped by its size, "
        "the second argument kept", "UN003")
    add("impl", "undefined-blob-type", trace(B.blob(1, b"x", blob_type=9)), "Blob Record: blob type",
        "a blob of type 9", "UN004")
    add("impl", "undefined-kernel-object-type", trace(B.kernel_object(5, 200, "k")),
        "Kernel Object Record: object type", "a kernel object of type 200", "UN004")
    add("impl", "undefined-thread-state", trace(B.context_switch(1, 1, 9, 1, 2)),
        "Context Switch Record: thread state", "a context switch with outgoing state 9", "UN004")
    add("impl", "undefined-provider-event", trace(B.provider_event(PROVIDER, 5)), "Provider Event Metadata: event id",
        "a provider event of id 5", "UN004")
    add("valid", "magic-repeated", trace(ev("instant")) + trace(ev("instant", 200)), "Magic Number Record",
        "two archives concatenated: the second magic record carries nothing (each half registers the same "
        "tables, so fresh tables read the same)", "MG003")
    add("valid", "string-index-zero", trace(B.string(0, "zero"), ev("instant", name=0)), "String Record",
        "a string record for index 0 (ignored), then an event named by ref 0: the empty string", "RF003")
    add("valid", "thread-index-zero", trace(B.thread(0, 1, 2), ev("instant")), "Thread Record",
        "a thread record for index 0 (ignored)", "RF004")
    add("valid", "provider-section-unannounced", trace(B.provider_section(9), *tables_1(), ev("instant")),
        "Provider Section Metadata", "a section for provider 9 with no provider info record: its records belong "
        "to provider 9, whose name is unknown (null)", "RF005")
    add("impl", "tick-rate-zero", trace(B.initialization(0), ev("instant")), "Initialization Record",
        "an initialization record of 0 ticks per second", "TM001")
    add("valid", "records-before-provider", B.archive(B.magic(), *tables_1(), ev("instant"),
                                                      B.provider_info(1, "late"), *tables_1(), ev("instant", 200)),
        "Provider Info Metadata", "records before the first provider info record (no provider), then more after "
        "it")
    add("impl", "trailing-words-argument", trace(ev("instant", args=[_arg_extra()])),
        "Arguments: argument size", "an int32 argument with an inline name declaring 3 words, one more than its "
        "content (the shape of the ST005 cases)", "ST005")
    return out


def _arg_extra():
    a = B.arg("int32", "a", 1)
    return type(a)(a.type, a.kind, a.fields, a.strings, extra_words=(0,))


# ------------------------------------------------------------------ checks and output
def check(case: Case) -> None:
    """Refuse to write a case whose folder disagrees with its verdict, or whose expectation
    fxtlint itself does not hold; record its reasons and expected decoding."""
    v, case.reasons = verdict_of(case.data)
    assert v == VERDICT_OF[case.category], (case.name, case.category, v, case.reasons)
    dec = decode(case.data)
    if case.category == "valid":
        assert dec.accepted, (case.name, dec.errors)
        case.expected = dec.document()
    elif case.category == "impl":
        assert dec.accepted, (case.name, dec.errors)  # fxtlint reads through what a reader may accept
        if not NO_DECODING & set(case.reasons):
            case.expected = dec.document()
    elif case.category == "malformed":
        assert not dec.accepted, (case.name, "a malformed case fxtlint accepts")
        case.expected, case.prefix = skipped(case.data)
    else:  # invalid/ and recover/, one rule: graded by the records before the fault
        assert not dec.accepted, (case.name, f"a {case.category} case fxtlint accepts")
        case.expected = dec.document()


def skipped(data: bytes) -> tuple[dict, int]:
    """What a reader that skips each malformed record reads, and how many records come
    before the first one it skips. A skipped record is as if it were not there: the
    decoding of the file without its bytes (a later ref to what it registered is then a
    ref to nothing, that record skipped in turn)."""
    prefix = len(decode(data).records)
    for _ in range(64):
        dec = decode(data)
        if dec.accepted:
            return dec.document(), prefix
        at, how = dec.faults[0]
        assert how == SKIP, ("a fault no reader can go on from", dec.errors[0])
        rec = next(r for r in read_records(data)[0] if r.index == at)
        data = data[:rec.offset] + data[rec.offset + 8 * rec.size_words:]
    raise AssertionError("more than 64 records skipped")


def all_cases() -> list[Case]:
    cases = valid_cases() + edge_cases() + rule_cases() + recover_cases()
    cases.sort(key=lambda c: CATEGORIES.index(c.category))  # stable: each group keeps its order
    names = [(c.category, c.name) for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    assert len({c.data for c in cases}) == len(cases), "two cases with the same bytes"
    for c in cases:
        check(c)
    return cases


def manifest(cases) -> dict:
    return {"format": "fxt-conformance/2", "version": SUITE_VERSION, "cases": [
        {k: v for k, v in (("category", c.category), ("name", c.name), ("expect", VERDICT_OF[c.category]),
                           ("spec", c.spec), ("what", c.what), ("rule", c.rule), ("reasons", list(c.reasons)),
                           ("prefix", c.prefix))
         if v or (k == "prefix" and v is not None)} for c in cases]}


_HEADINGS = {"valid": "must accept, with the decoding beside it",
             "malformed": "skip the malformed record and read on (the decoding beside it), or reject "
                          "(after the records before it, if any are printed)",
             "invalid": "no reader can go on: the records before the fault (the .json), then stop; "
                        "exit 0 is a warning apart, and with no record before the fault a reader must reject",
             "recover": "a trace cut after sound records: graded as invalid/, by the records before the fault",
             "impl": "either, never a crash; an accepting reader's decoding is compared when the .json is there"}


def _why(keys) -> str:
    if not keys:
        return "defined by the spec"
    return "<br>".join(f'[{k}](#why-{k}): "{_md(REASONS[k].words)}"' for k in keys)


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def reasons_table(cases) -> str:
    """The verdicts, one row per reason: the spec's words in English and in the current text."""

    used = {k for c in cases for k in c.reasons}
    lines = ["| reason | verdict | rules | section | the spec's words | current text | so |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in REASONS.values():
        codes = ", ".join(sorted(code for code, key in RULES.items() if key == r.key)) or "-"
        if r.key == "overrun":  # reason_for's one rule whose verdict depends on its details
            codes += ", ST005 (content longer than the size)"
        cases_note = "" if r.key in used or r.verdict == ACCEPT else " (no case yet)"
        lines.append(f'| <a id="why-{r.key}"></a>`{r.key}` | {r.verdict}{cases_note} | {codes} | {r.section} | '
                     f'"{_md(r.words)}" | {_md(r.zh)} | {_md(r.so)} |')
    return "\n".join(lines) + "\n"


def table(cases) -> str:
    """The Markdown for the README: the verdicts, then every case with the spec's words
    that decide its folder."""
    lines = ["### Verdicts\n", reasons_table(cases)]
    for cat in CATEGORIES:
        group = [c for c in cases if c.category == cat]
        lines.append(f"\n### {cat}/: {_HEADINGS[cat]} ({len(group)} cases)\n")
        lines += ["| case | spec section | what | why this folder: the spec's words |", "| --- | --- | --- | --- |"]
        lines += [f"| `{c.name}` | {c.spec} | {c.what} | {_why(c.reasons)} |" for c in group]
    return "\n".join(lines).strip() + "\n"


BEGIN, END = "<!-- cases:begin (generated by generate.py) -->", "<!-- cases:end -->"


def write(out: Path, cases=None) -> list[Case]:
    from fxtlint.reader_suite._canonical import dumps, json_schema

    cases = cases if cases is not None else all_cases()
    for cat in CATEGORIES:
        d = out / cat
        d.mkdir(parents=True, exist_ok=True)
        for old in list(d.glob("*.fxt")) + list(d.glob("*.json")):
            old.unlink()
    for c in cases:
        (out / c.category / f"{c.name}.fxt").write_bytes(c.data)
        if c.expected is not None:
            (out / c.category / f"{c.name}.json").write_text(dumps(c.expected), encoding="utf-8")
    (out / "canonical.schema.json").write_text(json.dumps(json_schema(), indent=1) + "\n", encoding="utf-8")
    (out / "manifest.json").write_text(json.dumps(manifest(cases), indent=1, ensure_ascii=False) + "\n",
                                       encoding="utf-8")
    readme = out / "README.md"
    if readme.exists():
        text = readme.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            pre, rest = text.split(BEGIN, 1)
            _, post = rest.split(END, 1)
            readme.write_text(pre + BEGIN + "\n" + table(cases) + END + post, encoding="utf-8")
    return cases


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else HERE
    cases = write(out)
    counts = {cat: sum(c.category == cat for c in cases) for cat in CATEGORIES}
    print(f"wrote {len(cases)} cases to {out}: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
