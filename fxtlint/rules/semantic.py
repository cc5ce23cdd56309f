"""Semantic rules: tables and refs per provider (RF), time (TM), pairing (PR), event
content that consumers cannot use or that says records are missing (EV)."""

from __future__ import annotations

from ..spec._time import instant_text
from ._diagnostics import Example, Rule, Severity
from ._later import Later, LaterModule

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from ..spec import _build as B
    from . import _ex as X
    from . import _mutate as M
else:  # the builders and the mutations' helpers, imported at their first use (``_later``)
    B = LaterModule("fxtlint.spec._build", globals(), "B")
    X = LaterModule("fxtlint.rules._ex", globals(), "X")
    M = LaterModule("fxtlint.rules._mutate", globals(), "M")

E, W, I = Severity.ERROR, Severity.WARNING, Severity.INFO  # noqa: E741 - the severities' letters

# what every pairing rule's docs say of time (issue 31): the spec's words on per-provider
# initialization data, and how a timestamp is read
_IN_TIME = (" Pairing follows time, not raw ticks: each timestamp is read through the tick rate in "
            "effect for its provider at its record. The spec: a reader \"must maintain state separately "
            "for each provider's traces (such as the initialization data, string table, thread table, ...)\"; "
            "the Initialization Record \"provides parameters needed to interpret the records which follow\" "
            "(the \"number of ticks per second\"; \"in absence of this record, the reader may assume that "
            "1 tick is 1 nanosecond\"); and the current revision: programs that process trace data sort "
            "events by timestamp first, and some record types (flow events) must be processed in "
            "timestamp order. So events of providers on different clocks, or of one provider across a "
            "rate change, pair in the order of their times, compared exactly (no float rounding).")
_TIME_SPEC = "; Initialization Record: number of ticks per second; per-provider state"

# what the pairing rules look at: the events that open a pairing, and every flow event
_PAIR_BEGINS = ("kind:event.duration_begin", "kind:event.async_begin", "kind:event.flow_begin")
_FLOWS = ("kind:event.flow_begin", "kind:event.flow_step", "kind:event.flow_end")


def _n(count: int, unit: str) -> str:
    """"1 tick", "1000 ticks"."""
    return f"{count} {unit}" if count == 1 else f"{count} {unit}s"


def _when(p: dict, ticks: str, rate: str) -> str:
    """A timestamp of a finding that compares two: its ticks alone where both share one
    tick rate (today's form), else ticks, rate and time ('tick 2 of 1 kHz (2 ms)')."""
    if p.get("rate") == p.get("begin_rate"):
        return str(p[ticks])
    return instant_text(p[ticks], p[rate])


def _dur(kind, ts, **kw):
    return B.event(kind, ts, **kw)


def _provider(p: dict) -> dict:
    """The table a ref is looked up in: its provider's, or (id None) the one that holds
    for the records before any Provider Info or Provider Section record."""
    pid = p["provider"]
    return {"in_provider": "that applies before any Provider Info or Provider Section record"
            if pid is None else f"of provider {pid}"}


# ---------------------------------------------------------------- tables and refs
string_ref_unregistered = Rule(
    code="RF001",
    name="string-ref-unregistered",
    severity=E,
    scope=("indexed_string_ref",),
    reader_reason="unregistered",
    mutation=lambda recs, pick: B.archive(*recs, M.event("instant", 1, name=M.unregistered(recs, "string"))),
    message="{where}: string ref {ref} ({field}) was never registered in the string table {in_provider}",
    params=('field', 'provider', 'ref', 'where'),
    derived=('in_provider',),
    what="An indexed string ref (top bit clear, not 0) to an index that no String Record of "
    "the current provider registered before it.",
    why="The reader has no text for it: the event's name or category shows as empty or as "
    "a number, or the reader drops the record. Tables are per provider, so a string "
    "registered in another provider's section does not count. An event is paired "
    "(PR rules) only when the refs that identify it resolve: a duration's or async "
    "event's category and name; a flow pairs by its id, so its name does not matter "
    "there, and an unregistered flow name is this one finding.",
    bad=Example("an instant event named by string index 7, never registered",
                lambda: X.preamble(B.event("instant", 5, name=7))),
    good=Example("the same event after a String Record for index 7",
                 lambda: X.preamble(B.string(7, "seven"), B.event("instant", 5, name=7))),
    spec="String Record; Provider Section Metadata: the reader must maintain state separately for each provider",
    derive=_provider,
)

thread_ref_unregistered = Rule(
    code="RF002",
    name="thread-ref-unregistered",
    severity=E,
    scope=("indexed_thread_ref",),
    reader_reason="unregistered",
    mutation=lambda recs, pick: B.archive(*recs, M.event("instant", 1, thread=M.unregistered(recs, "thread"))),
    message="{where}: thread ref {ref} ({field}) was never registered in the thread table {in_provider}",
    params=('field', 'provider', 'ref', 'where'),
    derived=('in_provider',),
    what="An indexed thread ref (not 0) to an index that no Thread Record of the current "
    "provider registered before it.",
    why="The event cannot be put on a thread or process: readers drop it or invent a "
    "thread. Real writers have used thread refs without any thread record.",
    bad=Example("an instant event on thread index 4, never registered",
                lambda: X.preamble(B.event("instant", 5, thread=4))),
    good=Example("the same event after a Thread Record for index 4",
                 lambda: X.preamble(B.thread(4, 10, 14), B.event("instant", 5, thread=4))),
    spec="Thread Record; Thread References",
    derive=_provider,
)

string_index_zero = Rule(
    code="RF003",
    name="string-index-zero",
    severity=W,
    scope=("kind:string",),
    reader_reason="index-zero",
    mutation=Later(lambda: M.append(B.string(0, "zero"))),
    message="a String Record for index 0 must be ignored: index 0 is the empty string",
    params=(),
    what="A String Record that registers string index 0.",
    why="Index 0 is reserved for the empty string and readers must ignore the record, so "
    "whatever the writer meant to register is lost.",
    bad=Example("a String Record for index 0", lambda: X.preamble(B.string(0, "zero"))),
    good=Example("a String Record for index 3", lambda: X.preamble(B.string(3, "three"))),
    spec="String Record: records which attempt to set a value for string index 0x0000 must be ignored",
)

thread_index_zero = Rule(
    code="RF004",
    name="thread-index-zero",
    severity=W,
    scope=("kind:thread",),
    reader_reason="index-zero",
    mutation=Later(lambda: M.append(B.thread(0, 1, 2))),
    message="a Thread Record for index 0 must be ignored: thread ref 0 means an inline thread",
    params=(),
    what="A Thread Record that registers thread index 0.",
    why="Index 0 is reserved to mean an inline thread; readers must ignore the record.",
    bad=Example("a Thread Record for index 0", lambda: X.preamble(B.thread(0, 10, 12))),
    good=Example("a Thread Record for index 2", lambda: X.preamble(B.thread(2, 10, 12))),
    spec="Thread Record: thread records which attempt to set a value for this value must be ignored",
)

provider_section_unannounced = Rule(
    code="RF005",
    name="provider-section-unannounced",
    severity=I,
    scope=("kind:metadata.provider_section",),
    reader_reason="provider-sections",
    mutation=Later(lambda: M.unannounced_section),
    message="Provider Section for provider {provider}, which no Provider Info record announced: its name is unknown",
    params=('provider',),
    what="A Provider Section record naming a provider id that no earlier Provider Info record "
    "introduced.",
    why="A note, not a defect: the spec requires no Provider Info before a section. The "
    "section delimits the records that follow (\"This metadata delimits sections of the trace "
    "which have been obtained from different providers\"), and a Provider Info only "
    "\"identifies a trace provider which has contributed information to the trace\"; "
    "neither sentence, in v1 or the current revision, makes the info record a "
    "precondition of the section. What is lost is the provider's name, and a reader that "
    "insists on one (fxt 0.3.0 rejects the trace) fails on a valid file.",
    bad=Example("a section for provider 9 with no info record for it",
                lambda: X.preamble(B.provider_section(9))),
    good=Example("a section for provider 9 after its info record",
                 lambda: X.preamble(B.provider_info(9, "nine"), B.provider_section(9))),
    spec="Provider Info Metadata (metadata type = 1): \"This metadata identifies a trace provider "
    "which has contributed information to the trace\"; Provider Section Metadata (metadata type = 2): "
    "\"This metadata delimits sections of the trace which have been obtained from different providers\"",
)

string_record_empty = Rule(
    code="RF006",
    name="string-record-empty",
    severity=I,
    scope=("kind:string",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(B.string(M.STRING_INDEX_MAX - 1, ""))),
    message="String Record for index {index} holds the empty string",
    params=('index',),
    what="A String Record whose string is empty.",
    why="It must be tolerated but is pointless: the empty string is string ref 0.",
    bad=Example("a String Record of \"\"", lambda: X.preamble(B.string(3, ""))),
    good=Example("a String Record of \"x\"", lambda: X.preamble(B.string(3, "x"))),
    spec="String Record: string records which contain empty strings must be tolerated",
)

registration_changes_value = Rule(
    code="RF007",
    name="registration-changes-value",
    severity=I,
    scope=("kind:string", "kind:thread"),
    reader_reason="well-formed",
    mutation=Later(lambda: M.re_registered),
    message="{what} index {index} is registered again with a different value ({old} -> {new})",
    params=('index', 'new', 'old', 'what'),
    what="A String or Thread Record that replaces an earlier registration of the same index "
    "with a different value.",
    why="Legal (the table is finite and writers recycle entries), but a reader that caches "
    "the first registration shows later records under the wrong name.",
    bad=Example("string index 1 re-registered from \"cat\" to \"dog\"", lambda: X.preamble(B.string(1, "dog"))),
    good=Example("string index 1 registered once", lambda: X.preamble()),
    spec="String Record: the registration replaces any prior registration for the given string index",
)

# ---------------------------------------------------------------- time
tick_rate_zero = Rule(
    code="TM001",
    name="tick-rate-zero",
    severity=E,
    scope=("kind:initialization",),
    reader_reason="tick-rate-zero",
    mutation=Later(lambda: M.append(B.initialization(0))),
    message="the Initialization Record sets 0 ticks per second: timestamps cannot be converted",
    params=(),
    what="An Initialization Record whose tick rate is 0.",
    why="Every timestamp is divided by the tick rate to get seconds; 0 makes every "
    "timestamp of the provider meaningless. To pair and order its events all the same, the "
    "lint reads that provider's ticks at the spec's default (\"in absence of this record, the "
    "reader may assume that 1 tick is 1 nanosecond\"); `export` leaves them out.",
    bad=Example("an Initialization Record of 0 ticks/s", lambda: X.preamble(B.initialization(0))),
    good=Example("an Initialization Record of 1e9 ticks/s", lambda: X.preamble(B.initialization(10**9))),
    spec="Initialization Record: number of ticks per second",
)

complete_ends_before_start = Rule(
    code="TM002",
    name="complete-ends-before-start",
    severity=W,
    scope=("kind:event.duration_complete",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("duration_complete", 10, end_timestamp=5))),
    message="complete event ends at {end} ticks, before it starts at {start}",
    params=('end', 'start'),
    what="A Duration Complete event whose end time is earlier than its timestamp.",
    why="A negative duration: viewers draw nothing or a huge bar, and statistics go wrong.",
    bad=Example("a complete event from 100 to 50", lambda: X.preamble(
        B.event("duration_complete", 100, end_timestamp=50))),
    good=Example("a complete event from 100 to 150", lambda: X.preamble(
        B.event("duration_complete", 100, end_timestamp=150))),
    spec="Duration Complete Event: end time in ticks",
)

timestamp_overflows_ns = Rule(
    code="TM003",
    name="timestamp-overflows-ns",
    severity=W,
    scope=("timestamps",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(B.initialization(1), M.event("instant", M.WORD_MAX))),
    message="{field} {ticks_n} at {rate_n} is past 2^64 nanoseconds",
    params=('field', 'rate', 'ticks'),
    derived=('ticks_n', 'rate_n'),
    what="A timestamp whose conversion to nanoseconds (ticks * 1e9 / ticks per second) does "
    "not fit in 64 bits.",
    why="Readers convert to 64-bit nanoseconds; the value wraps and the event lands at a "
    "random time.",
    bad=Example("an event at 2^63 ticks with 1000 ticks/s", lambda: X.preamble(
        B.initialization(1000), B.event("instant", 1 << 63))),
    good=Example("an event at 2^40 ticks with 1000 ticks/s", lambda: X.preamble(
        B.initialization(1000), B.event("instant", 1 << 40))),
    spec="Timestamps: 64-bit ticks; Initialization Record",
    derive=lambda p: {"ticks_n": _n(p["ticks"], "tick"), "rate_n": _n(p["rate"], "tick") + "/s"},
)

# ---------------------------------------------------------------- pairing
duration_end_without_begin = Rule(
    code="PR001",
    name="duration-end-without-begin",
    severity=W,
    scope=("kind:event.duration_end",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("duration_end", M.LATE))),
    message="duration end {cat}/{name} has no open duration begin on its thread{circular_text}",
    params=('cat', 'name', 'before_first_begin', 'mode_given'),
    derived=('circular_text',),
    what="A Duration End event on a thread with no open Duration Begin.",
    why="The begin was lost (a dropped record, a trace started mid-operation) or written "
    "on another thread; viewers show nothing or a slice from the trace start. A circular "
    "trace starts that way by design (the tracing-system design, Buffering Modes: \"Once one "
    "rolling buffer fills tracing continues by writing to the other one\", over the oldest "
    "records): with `--buffering-mode circular` an end before the first begin of its thread "
    "is not reported (nor an async end or instant before the first async begin of its process, "
    "category and name, nor a flow step or end before the first flow begin), and without the "
    "option such an end's message says the trace may be circular and names the option. "
    "`details.before_first_begin` tells that pattern apart." + _IN_TIME,
    bad=Example("an end with no begin", lambda: X.preamble(_dur("duration_end", 10))),
    good=Example("a begin and its end", lambda: X.preamble(_dur("duration_begin", 5), _dur("duration_end", 10))),
    spec="Duration Begin Event: must be matched by a duration end event; tracing-system design, "
    "Buffering Modes (Circular)" + _TIME_SPEC,
    derive=lambda p: {"circular_text": " (none before it on this thread either: if the trace is circular, its "
                      "start was overwritten; say so with --buffering-mode circular)"
                      if p.get("before_first_begin") and not p.get("mode_given") else ""},
)

duration_end_mismatch = Rule(
    code="PR002",
    name="duration-end-mismatch",
    severity=W,
    scope=("kind:event.duration_end",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.end_mismatch),
    message="duration end {cat}/{name} {problem}",
    params=('bcat', 'begin_offset', 'bname', 'cat', 'name', 'ts?', 'begin_ts?', 'rate?', 'begin_rate?'),
    positions=('begin_offset',),
    derived=('problem',),
    what="A Duration End whose category or name differs from the innermost open Duration "
    "Begin on its thread (and from every begin a few levels down); or one whose own begin "
    "(same thread, category and name, written before it) has a later timestamp.",
    why="Readers pair by nesting, not by name, so the slice gets the begin's name and "
    "the end's arguments: the writer's begin/end calls are out of step. Pairing follows "
    "timestamps, so an end stamped before its begin closes whatever was open before it: "
    "the message then gives both timestamps, and the end and its begin are paired with "
    "each other, not with the durations around them." + _IN_TIME,
    bad=Example("begin \"name\", end \"cat\"", lambda: X.preamble(
        _dur("duration_begin", 5), _dur("duration_end", 10, name=1))),
    good=Example("begin \"name\", end \"name\"", lambda: X.preamble(
        _dur("duration_begin", 5), _dur("duration_end", 10))),
    spec="Duration Begin Event: must be matched by a duration end event; may be nested" + _TIME_SPEC,
    derive=lambda p: {"problem": f"closes the begin {p['bcat']}/{p['bname']} at {p['begin_offset']:#x}"
                      if "ts" not in p else
                      f"at {_when(p, 'ts', 'rate')} is before its begin at {_when(p, 'begin_ts', 'begin_rate')} "
                      f"({p['begin_offset']:#x}): pairing follows timestamps, so a duration must not end before "
                      "it begins"},
)

duration_never_ended = Rule(
    code="PR003",
    name="duration-never-ended",
    severity=W,
    scope=("kind:event.duration_begin",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.inner_never_ended),
    message="duration begin {cat}/{name} is never ended: an outer end at {end_offset:#x} closed it",
    params=('cat', 'end_offset', 'name'),
    positions=('end_offset',),
    what="A Duration Begin still open when an end for an enclosing begin arrives.",
    why="The inner end was lost or never written (an early return past the end call); "
    "viewers stretch the inner slice to its parent's end." + _IN_TIME,
    bad=Example("begin A, begin B, end A", lambda: X.preamble(
        _dur("duration_begin", 5), _dur("duration_begin", 6, name=1), _dur("duration_end", 10))),
    good=Example("begin A, begin B, end B, end A", lambda: X.preamble(
        _dur("duration_begin", 5), _dur("duration_begin", 6, name=1), _dur("duration_end", 8, name=1),
        _dur("duration_end", 10))),
    spec="Duration Begin Event: must be matched by a duration end event" + _TIME_SPEC,
)

unterminated_at_end = Rule(
    code="PR004",
    name="unterminated-at-end",
    severity=W,
    scope=_PAIR_BEGINS,
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("duration_begin", M.LATE))),
    message="{what} {detail} is still open {when}",
    params=('cut_short', 'detail', 'what'),
    derived=('when',),
    what="A duration, async operation or flow begun but not ended by the end of the trace.",
    why="Usually the trace was stopped (or cut off) while work was in flight, which is "
    "common and harmless; it is its own rule so that it can be silenced without hiding "
    "real pairing errors. When framing stopped early (FR001, FR002) the message says the "
    "operation is open where the readable part of the file ends: its end may be in the "
    "unreadable rest. With `--buffering-mode` (any of oneshot, circular, streaming) what "
    "was still open at the last buffer-full record (EV003) is not reported: that record says "
    "the provider dropped records, and in oneshot mode \"If the buffer becomes full then that "
    "trace provider will stop recording events\" (tracing-system design, Buffering Modes), so "
    "its ends were never written." + _IN_TIME,
    bad=Example("a begin with no end", lambda: X.preamble(_dur("duration_begin", 5))),
    good=Example("a begin and its end", lambda: X.preamble(_dur("duration_begin", 5), _dur("duration_end", 9))),
    spec="Duration Begin Event; Async Begin Event; Flow Begin Event: must be matched; tracing-system "
    "design, Buffering Modes (Oneshot)" + _TIME_SPEC,
    derive=lambda p: {"when": "where the readable part of the file ends (framing stopped there)"
                      if p.get("cut_short") else "when the trace ends"},
)

async_without_begin = Rule(
    code="PR005",
    name="async-without-begin",
    severity=W,
    scope=("kind:event.async_instant", "kind:event.async_end"),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("async_end", M.LATE, id=M.WORD_MAX))),
    message="async {what} {cat}/{name} id {id:#x} has no live async begin",
    params=('cat', 'id', 'name', 'what'),
    what="An Async Instant or Async End with no earlier Async Begin of the same process, "
    "category, name and correlation id still live.",
    why="Readers scope async ids by process, category and name; the event is dropped or "
    "shown as a separate track. Scoping: the spec matches an async end \"using the same "
    "async correlation id\"; fxtlint also keys by process (async ids are conventionally "
    "scoped to their process: spec/README.md) and by category and name (as Perfetto and "
    "Fuchsia's trace viewers do), so an end with the same id but another name is reported." + _IN_TIME,
    bad=Example("an async end with no begin", lambda: X.preamble(B.event("async_end", 10, id=3))),
    good=Example("an async begin and end", lambda: X.preamble(
        B.event("async_begin", 5, id=3), B.event("async_end", 10, id=3))),
    spec="Async Begin Event: must be matched by an async end event with the same correlation id" + _TIME_SPEC,
)

id_begin_reused = Rule(
    code="PR006",
    name="id-begin-reused",
    severity=W,
    scope=("kind:event.async_begin", "kind:event.flow_begin"),
    reader_reason="well-formed",
    mutation=Later(lambda: M.id_reused),
    message="{what} begin for id {id:#x} ({name}) while the begin at {first:#x} is still live",
    params=('first', 'id', 'name', 'what'),
    positions=('first',),
    what="A second Async Begin (same process, category, name, id) or Flow Begin (same "
    "flow id, in any process) while the first is not yet ended.",
    why="The first operation is never ended and the ids collide: readers merge the two "
    "or drop one." + _IN_TIME,
    bad=Example("two async begins with id 3", lambda: X.preamble(
        B.event("async_begin", 5, id=3), B.event("async_begin", 6, id=3), B.event("async_end", 9, id=3))),
    good=Example("async begins with ids 3 and 4", lambda: X.preamble(
        B.event("async_begin", 5, id=3), B.event("async_begin", 6, id=4), B.event("async_end", 8, id=4),
        B.event("async_end", 9, id=3))),
    spec="Async Begin Event; Flow Begin Event" + _TIME_SPEC,
)

flow_without_begin = Rule(
    code="PR007",
    name="flow-without-begin",
    severity=W,
    scope=("kind:event.flow_step", "kind:event.flow_end"),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("duration_begin", M.LATE), M.event("flow_end", M.LATE, id=M.WORD_MAX), M.event("duration_end", M.LATE))),
    message="flow {what} for id {id:#x} has no live flow begin with that id (never begun, or already ended)",
    params=('id', 'what'),
    what="A Flow Step or Flow End with no earlier Flow Begin of the same flow id still live: "
    "never begun, or already ended (a stray second end).",
    why="The arrow has no tail: viewers drop it. Scoping: flows are keyed by their id "
    "alone, in whatever process or thread they occur. The spec says a flow \"may span "
    "multiple threads or abstraction layers\" and is matched by \"a Flow End Event using "
    "the same flow correlation id\"; nothing scopes it by process, and flows are how an "
    "IPC from one process to another is drawn. (Fuchsia's writers also give both ends the "
    "same category and name; fxtlint does not require it, as the spec does not.)" + _IN_TIME,
    bad=Example("a flow end with no begin", lambda: X.preamble(
        _dur("duration_begin", 5), B.event("flow_end", 6, id=8), _dur("duration_end", 9))),
    good=Example("a flow begin and end", lambda: X.preamble(
        _dur("duration_begin", 5), B.event("flow_begin", 6, id=8), B.event("flow_end", 7, id=8),
        _dur("duration_end", 9))),
    spec="Flow Begin Event: must be matched by a flow end event with the same flow correlation id" + _TIME_SPEC,
)

flow_outside_duration = Rule(
    code="PR008",
    name="flow-outside-duration",
    severity=W,
    scope=_FLOWS,
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("flow_begin", M.LATE, id=M.WORD_MAX), M.event("flow_end", M.LATE, id=M.WORD_MAX))),
    message="flow event for id {id:#x} has no enclosing duration on its thread",
    params=('id',),
    what="A Flow Begin, Step or End outside any open duration (begin/end or complete) on its "
    "thread.",
    why="A flow binds to its enclosing duration; without one, viewers have nothing to "
    "draw the arrow from or to." + _IN_TIME,
    bad=Example("a flow begin/end on a thread with no duration", lambda: X.preamble(
        B.event("flow_begin", 6, id=8), B.event("flow_end", 7, id=8))),
    good=Example("the same flow inside a duration", lambda: X.preamble(
        _dur("duration_begin", 5), B.event("flow_begin", 6, id=8), B.event("flow_end", 7, id=8),
        _dur("duration_end", 9))),
    spec="Flow Begin Event: associated with the enclosing duration event for this thread" + _TIME_SPEC,
)

pairing_state_overflow = Rule(
    code="PR012",
    name="pairing-state-overflow",
    severity=W,
    scope=_PAIR_BEGINS,
    reader_reason="well-formed",
    mutation=Later(lambda: M.pairing_overflow),
    also_trips=("PR004",),  # the begins past the stack cap are still open at the end of the file
    message="more than {limit} open {what} entries: the oldest are no longer tracked",
    params=('limit', 'what'),
    what="More open durations on one thread, or more live async or flow ids, than fxtlint "
    "tracks (65,536 per thread stack, 65,536 live async ids, 65,536 live flow ids).",
    why="No sane trace holds that many open operations; it is a writer that never ends "
    "them. fxtlint bounds its memory and stops tracking the oldest, so pairing verdicts "
    "about them are incomplete.",
    bad=Example("65,537 nested begins", lambda: X.preamble(*[_dur("duration_begin", i) for i in range(65537)])),
    good=Example("one begin and its end", lambda: X.preamble(_dur("duration_begin", 5), _dur("duration_end", 9))),
    spec="(fxtlint's own limit)",
)


# ---------------------------------------------------------------- event content
counter_argument_not_numeric = Rule(
    code="EV001",
    name="counter-argument-not-numeric",
    severity=W,
    scope=("kind:event.counter",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(M.event("counter", M.LATE, args=[B.arg("string", "s", "v")]))),
    message="counter {arg} is a {kind}, not a number",
    params=('arg', 'i', 'kind'),
    what="A Counter event argument that is not an integer or a double.",
    why="Counters are plotted as time series of their argument values; a string or "
    "pointer cannot be plotted and is dropped.",
    bad=Example("a counter with a string argument", lambda: X.preamble(
        B.event("counter", 5, id=1, args=[B.arg("string", 1, "high")]))),
    good=Example("a counter with an int64 argument", lambda: X.preamble(
        B.event("counter", 5, id=1, args=[B.arg("int64", 1, 42)]))),
    spec="Counter Event: records each argument as a sample value of a time series",
)

context_switch_outgoing_running = Rule(
    code="EV002",
    name="context-switch-outgoing-running",
    severity=W,
    scope=("kind:scheduling.legacy_context_switch",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(B.legacy_context_switch(M.LATE, 0, M.RUNNING, outgoing_thread=1, incoming_thread=1))),
    message="legacy context switch leaves its outgoing thread in state \"running\"",
    params=(),
    what="A legacy context switch record whose outgoing thread state is 1 (running).",
    why="The outgoing thread has just been switched out; \"running\" is the incoming "
    "thread's state by definition, so the fields are probably swapped or shifted.",
    bad=Example("outgoing state running", lambda: X.preamble(B.legacy_context_switch(5, 0, 1, incoming_thread=(10, 12)))),
    good=Example("outgoing state blocked", lambda: X.preamble(B.legacy_context_switch(5, 0, 3, incoming_thread=(10, 12)))),
    spec="Legacy Context Switch Record: outgoing thread state (any of the values below except \"running\")",
)

records_dropped = Rule(
    code="EV003",
    name="records-dropped",
    severity=W,
    scope=("kind:metadata.provider_event",),
    reader_reason="well-formed",
    mutation=Later(lambda: M.append(B.provider_event(0, 0))),
    message="provider {provider}{unannounced} reports its buffer full: records were likely dropped, and later "
    "pairing warnings may be caused by it",
    params=('provider', 'announced?'),
    derived=('unannounced',),
    what="A Provider Event record with event id 0 (buffer full).",
    why="A buffer filled up, so \"records were likely dropped\" (the spec's words). Every missing "
    "begin, end or string registration after this point may be a consequence rather than a writer bug. "
    "The message says when no Provider Info record announced the provider (see RF005). In a streaming trace "
    "(`--buffering-mode streaming`) the event is the protocol, not a finding: \"Once one rolling "
    "buffer fills tracing continues by writing to the other one, if it is available, and "
    "notifying the trace manager that the buffer is full\" (tracing-system design, Buffering "
    "Modes, Streaming); it still counts for PR004 and the report's `buffer_full_at`.",
    bad=Example("a buffer-full provider event", lambda: X.preamble(B.provider_event(1, 0))),
    good=Example("no provider event", lambda: X.preamble()),
    spec="Provider Event Metadata: 0: a buffer filled up, records were likely dropped; tracing-system "
    "design, Buffering Modes (Streaming)",
    derive=lambda p: {"unannounced": "" if p.get("announced", True) else ", which no Provider Info record announced,"},
)
