"""The lint's walk on the native walk (``_nwalk.pyx``): its plan from the tables, the
mirror of its tables in the ``ProviderState``, and the Python half of each step.

``plan()`` turns the tables' roles into what the native walk runs after the screen, per
terminal of the program (``_kernel_program.compile_program(False)``, every leaf
screened): the value and position slots of its string refs, thread refs (and the koid
words an inline one stands for), timestamps, pairing row and effect. A layout added to
``spec-tables/`` gets its plan with no change here or in the walk. ``plan(True)`` is a
structured-log stream's: the log program (every record read as the log record), with
no semantic tail (the linter keeps no tables for a log).

``NativeLint`` drives one ``Walk`` whose only consumer is the linter, over a trace in
either byte order or a structured-log stream, whole or growing (a stream fed in chunks,
a file read a chunk at a time: the walk stops at the first record not wholly received,
and at a decision the reference needs more bytes for, ``NeedMore``, and takes it again
with them): the native walk runs from record to record and stops at each pairing
window's end (its pairing rows go to the linter's batch, and the window is fed to the
pairing engine as today) and at each record it cannot prove clean. At each stop its
diagnostics rows (what the linter says about clean records: unregistered string and
thread refs, timestamps past the tick limit, a table record's findings, a repeated
magic record; and what the screen found in a record's layout, which the walk reads on
from: ``F_LAYOUT``, ``F_UNDEFINED``) are rendered by the builders ``RecordChecker`` and
``after_record`` call (``_semantic``, ``_reader.repeated_magic``), the span the field's
byte range in the trace's byte order (``_render``), a record's layout rows by the
reference decoder's own steps (``_reader.report_layout``: a word's field checks, a
stream's, an argument decoded whole, the words after the content; ``report_undefined``;
a record whose rows are all a word's field checks by their builder alone, ``report_words``,
one whose one row is the words after its content, framed by the walk, by that step alone,
``report_after``)
and its kind checks that hold after its semantic rows, where ``RecordChecker`` says them.
Where a record's content runs past its size, the screen's last row says where
(``over``: rendered by the decoder's step for that item), and the walk frames the record
as the reader does (``resync_offset``'s decision, taken natively): anew at its content's
end (a ``short`` row: ST001 after its layout rows) or cut short at its declared size (it
means nothing). A counter's argument that is not numeric (EV001) is rendered after the
record's semantic rows with ``counter_argument_not_numeric``, the provider event's check
(EV003) by ``LintState.records_dropped``, a repeated magic record the screen found wrong
only when its constants hold (``well_formed_magic``). The per-rule cap is asked before
anything is built: a row whose rule is known from the row alone asks it before it is
unpacked (and once the sink has a bound for that rule, the walk is told it and counts
such rows past it itself, handing none over: ``_cap``; it stops for its rows once
``_TAKE_AT`` wait, so that a flood meets the bound early), the decoder asks it
(``skips``) before it works out a message's parameters, a record's kind-check rows ask it
(``skips_all``) before the record is decoded. A record met again in one walk with the
same bytes and layout rows, where that is all the decoder reads (``report_layout`` says
what its steps read past the record: questions of what follows it, a missing padding's
next header or a header's kind, whose answers are asked again of each copy, ``answers_hold``;
or a framing decision, the records after it, and such a record is decoded each time: the
walk takes FR004's itself, ``_framed``, and no copy is looked for among such records), is
decoded twice at most: its diagnostics are the second copy's
(noted until a rule reaches its cap; the first is decoded as any record, so a record met
once costs no noting), moved to its offset, each asked of the cap in the decoder's order
(``_replayed``). The walk recognises the copies itself (``_nwalk``'s ``_copied``): a copy
of a record it walked before is one F_COPY row, said from the noted diagnostics, or from
the first copy's rows moved to it where they are not noted (``_copy``), and ``_replayed``
keys such a record by the walk's id, not its bytes. A row the linter's builders make from
its values alone, met again with the same values, is said so too (``_render_one``). Once the
diagnostics of such a copy (one that asked nothing of what follows it), row or undefined
record are noted, the walk is told (``note_copy``, ``note_row``, ``note_undefined``: the
slot of ``places`` they are noted under) and says each later one as a place of a block, not
a row (``take_moved``), which the sink takes in one call a stop (``add_moved_block``); the
walk stops after a copy or row met again and not noted, so that the rest of a flood are
places, and where a rule of its rows reaches the sink's cap (``rule_cap``). Once a
rule has reached its cap, a record's layout rows are remembered with the rules the decoder
asked about (keyed by the record's bytes and rows where that is all the decoder reads:
``_memo_key``), so a copy whose every diagnostic the cap drops is counted without decoding
it.

A record it cannot read on from by itself (on a growing stream: a trace record whose
content runs past its size, a row whose message reads past its record) is the
reference's: ``decode_record`` reads it and reports, its effect is carried out on the
``ProviderState`` (``state.apply``), the linter checks it (``RecordChecker``, its
pairing row too), and the effect goes back to the native tables (``_sync``). The walk
then goes on after it. So every message is written by the reference engine's code.

``WholeLint`` is ``NativeLint`` for whole bytes with the linter alone (``_lint.lint_whole``):
one object is the walk, the linter and the driver, running the same steps (``_take`` and
the rendering of rows, ``advance``'s loop without what only a stream or a mapped file
needs: its runs and their takes one compiled call, ``_nwalk``'s ``drive``, which calls
``_take_rows`` only where a stop left something to take), with the linter's ``LintState``
made at the first pairing row, provider event or record handed back (a small lint's fixed
cost: no ``Walk``, ``Lint``, ``MagicSearch``).

Memory: the native tables grow with registrations (keyed by provider slot and index),
the pairing rows with one window.
"""

from __future__ import annotations

import functools

from .. import rules as R
from ..rules._diagnostics import Diagnostic
from ..spec._limits import Limits
from ..spec._roles import (
    ARG_HEADER_FIELDS,
    ARG_STRING_REFS,
    EFFECT_OF,
    HEADER_FIELDS,
    INLINE_KOIDS,
    STRING_REFS,
    THREAD_REFS,
    TIMESTAMPS,
)
from ..spec._tables import StreamItem, WordItem, tables
from ._kernel_program import compile_program
from ._kind_checks import KIND_CHECKS, PROVIDER_EVENT
from ._pairing import COLUMNS, COMPLETE, NAMED_KINDS
from ._provider_state import ProviderState
from ._reader import (
    ARG_NAME,
    RESYNC_DEPTH,
    MagicSearch,
    after_record,
    answers_hold,
    decode_record,
    field_span,
    frame_error,
    framed,
    record_of,
    repeated_magic,
    repeated_magic_row,
    report_after,
    report_layout,
    report_undefined,
    report_words,
    start_checks,
    well_formed_magic,
)
from ._result import FileReport, sink_of
from ._semantic import (
    PAIR_ID,
    PAIR_KIND,
    LintState,
    RecordChecker,
    built,
    counter_argument_not_numeric,
    counter_argument_not_numeric_row,
    index_zero_row,
    rate_zero_row,
    section_unannounced_row,
    string_changed_row,
    string_empty_row,
    thread_changed_row,
    timestamp_overflow_row,
    unregistered_string_row,
    unregistered_thread_row,
)
from ._stream_buffer import NeedMore

_T = tables()
NSTR, NTHR, NTS, NARGREF = 4, 2, 4, 2  # _nwalk.pyx's Term holds this many of each
# the effects the native walk carries out itself (the magic record's byte order is read
# before the walk: the walk says only whether a magic record is repeated, MG003)
_MODES = {"names_provider": 2, "switches_provider": 3, "sets_tick_rate": 4, "registers_string": 5,
          "registers_thread": 6, "sets_byte_order": 7}
M_REFERENCE, M_EVENT, M_UNDEFINED, M_PROVIDER_EVENT = 0, 1, 8, 9
# kinds left to the reference: any whose effect the walk does not carry out (none: a new
# effect in the tables starts here)
_REFERENCE_KINDS = frozenset(k for k, e in EFFECT_OF.items() if e not in _MODES)
# how a run stopped: _nwalk's DONE, HANDBACK, ZERO, PAST_END, END
DONE, HANDBACK, ZERO, PAST_END, END = range(5)
# what a diagnostics row of the walk says: _nwalk's Find
(F_STRING, F_THREAD, F_TICKS, F_MAGIC, F_UNANNOUNCED, F_RATE_ZERO, F_INDEX_ZERO, F_STRING_EMPTY, F_CHANGED,
 F_LAYOUT, F_UNDEFINED, F_DROPPED, F_COPY) = range(1, 14)
# an F_LAYOUT row's kind (``_screen.h``'s FOUND_*): what the reference's decoder looks at again
# (``over``: where the content ran past the record's size; ``short``: the walk framed the
# record anew at its content's end)
_FOUND = {1: "fields", 2: "stream", 3: "end", 4: "argument", 6: "over", 8: "short"}
# the layout rows whose decoder steps may read only the record (``report_layout`` says whether
# they did: a stream's missing padding, the words after a trace record's content, look past it)
_MEMO_ROWS = frozenset({1, 2, 3, 4, 6, 8})
_MEMO_RECORD, _MEMO_MAX = 1 << 12, 1 << 12  # the largest record remembered, and how many
_ONCE = object()  # ``_replayed``: a record met once (decoded as any record, its diagnostics not noted)
_PAST = object()  # ``_replayed``, ``memo``: a record whose decoder steps read past it (decoded each time)
_ASKED = {"kind": 0, "after": 1, "early": 2}  # ``_reader._QUESTIONS`` the walk asks itself (``_questions``)
_NOTE_FROM = 16  # rows taken in one walk before a record or row met is remembered (a small lint notes none)
# records of one terminal and row kinds whose decoding read past them, one after the other,
# after which the walk no longer looks for a copy among them (``_replayed``: a flood of FR004)
_PAST_RUN = 8
# FOUND_FIELDS: a word's field checks; FOUND_END: the words after the content; FOUND_KIND: a
# kind check that holds (``_kind_checks``); FOUND_NUMERIC: EV001
_FIELDS, _END, _KIND, _NUMERIC, _SHORT = 1, 3, 5, 7, 8

# each row's rule, by (its code, its field is not the first): the per-rule cap is asked first
_new = object.__new__
_RULES = {(F_STRING, False): R.string_ref_unregistered, (F_THREAD, False): R.thread_ref_unregistered,
          (F_TICKS, False): R.timestamp_overflows_ns, (F_MAGIC, False): R.magic_repeated,
          (F_UNANNOUNCED, False): R.provider_section_unannounced, (F_RATE_ZERO, False): R.tick_rate_zero,
          (F_INDEX_ZERO, False): R.string_index_zero, (F_INDEX_ZERO, True): R.thread_index_zero,
          (F_STRING_EMPTY, False): R.string_record_empty, (F_CHANGED, False): R.registration_changes_value,
          (F_DROPPED, False): R.records_dropped}
_RULES.update({(code, True): rule for (code, _), rule in list(_RULES.items()) if code != F_INDEX_ZERO})
# the rules of the rows the walk drops itself once the sink's cap bounds them (``_nwalk``'s
# ``set_bound``), by its cap key: ``2 * code + (field != 0)``, and a FOUND_SHORT layout row's (ST001)
_CAP_RULES = {2 * code + field: rule for (code, field), rule in _RULES.items() if code != F_DROPPED}
_CAP_RULES[2 * F_LAYOUT] = R.content_overruns_record
_CAP_KEYS: dict[str, list[int]] = {}  # a rule's code -> its cap keys
for _key, _rule in _CAP_RULES.items():
    _CAP_KEYS.setdefault(_rule.code, []).append(_key)
_MAGIC = _RULES[F_MAGIC, False]  # (MG003: a repeated magic record's rule, whatever its field)
_TAKE_AT = 256  # the walk stops for its rows to be taken (and the cap asked) once this many wait


class _Reads:
    """A record's fields as a kind check's ``params`` reads them (``_said_from_values``): the
    names it reads by ``[]`` or ``get``; any other use of the fields raises (then the record
    is decoded, ``_record``)."""

    __slots__ = ("names",)

    def __init__(self) -> None:
        self.names: list = []

    def __getitem__(self, name):
        self.names.append(name)
        return 0

    def get(self, name, default=None):
        self.names.append(name)
        return 0


def _said_from_values(leaf: str, check) -> bool:
    """Whether the walk's FOUND_KIND row of ``check`` (a kind check of ``leaf``) holds all its
    message reads: its ``params`` (the builder the reference calls with the decoded fields)
    read only the fields the check compares, each an unsigned integer, whose values the row
    carries as the screen compared them (``_screen.c``'s OP_LESS, OP_EQUAL: the value and the
    second value). EV003's names a field it does not compare: decoded (``_record``)."""
    reads = _Reads()
    try:
        check.params(reads)
    except Exception:  # (at import, on the tables: not on a trace's bytes)
        return False
    compared = {check.a, check.b} if check.op == "less" else {check.a}
    if not set(reads.names) <= compared:
        return False
    lay = _T.leaf(leaf)
    items = {f.name: f for f in lay.all_fields()}
    items.update((it.name, it) for it in lay.full_body if isinstance(it, WordItem))
    return all(name in items and not items[name].signed and not getattr(items[name], "float", False)
               for name in compared)


# a kind check's message said from the walk's row, no record decoded (``_kind_rows``), by leaf:
# for each of its checks, in ``KIND_CHECKS``' order, whether its row holds what it reads
_FROM_VALUES = {leaf: tuple(_said_from_values(leaf, c) for c in checks) for leaf, checks in KIND_CHECKS.items()}


def _noted(d, offset: int) -> tuple:
    """A diagnostic built of a record at ``offset``, as the walk's memos note it to say it again
    of a copy (the sink's ``add_moved``): its rule (the one it was built by, read from its
    lazy fields, else the registry's), its span from the record's start (None: none), a copy
    of its fields."""
    fields = d.__dict__
    lazy = fields.get("_lazy")
    span = fields["span"]
    return (lazy[0] if lazy is not None else R.REGISTRY[d.code],
            None if span is None else (span[0] - offset, span[1] - offset), dict(fields))


def _rows_key(rows, offset: int) -> tuple:
    """A record's layout rows as far as ``report_layout`` reads them (``_found``: the row's kind,
    argument, position from the record's start, value and site)."""
    if len(rows) == 1:
        r = rows[0]
        return r[2], r[3], r[8] - offset, r[9], r[10]
    return tuple((r[2], r[3], r[8] - offset, r[9], r[10]) for r in rows)


def _row_key(row) -> tuple:
    """A row the linter's builders make, as far as its diagnostic reads it (``_render_one``):
    all of it but its record's index and offset (an argument's offset from its record's)."""
    return (*row[:5], row[7], row[8] - row[6] if row[3] >= 0 else row[8], *row[9:])


def _kinds(rows) -> tuple:
    """A record's terminal and the kinds of its layout rows (``_PAST_RUN``)."""
    return (rows[0][1], rows[0][2]) if len(rows) == 1 else (rows[0][1], *(r[2] for r in rows))


def sync_change(nw, state: ProviderState, change) -> None:
    """The effect of a record the reference decoded (``change``, ``state.apply``'s), on
    the native walk ``nw``'s tables: the one copy for the lint and repair's walk."""
    effect = change.effect
    if effect == "names_provider":
        nw.announce(change.provider.id)
        nw.set_current(change.provider.id)
    elif effect == "switches_provider":
        nw.set_current(change.provider.id)
    elif effect == "sets_tick_rate":
        p = state.current
        nw.set_rate(p.rate, p.max_ticks)
    elif effect == "registers_string" and change.key:
        nw.set_string(change.key, change.new)
    elif effect == "registers_thread" and change.key:
        nw.set_thread(change.key, *change.new)


def _pad(xs, n, fill=-1) -> list:
    return list(xs) + [fill] * (n - len(xs))


def _term(leaf, log: bool = False) -> dict:
    """The plan of one terminal (``leaf``: a ``_kernel_program.Leaf``, or None) of a
    trace's program, or of a structured-log stream's (``log``: its one leaf, the log
    record, has no refs to the tables, no timestamp a rate bounds and no pairing row:
    the screen is all there is to it, as the linter has no table to check it against)."""
    d = {"mode": M_REFERENCE, "nstr": 0, "str_val": [-1] * NSTR, "str_pos": [-1] * NSTR, "str_role": [0] * NSTR,
         "nthr": 0, "thr_val": [-1] * NTHR, "thr_nkoid": [0] * NTHR, "thr_pk": [-1] * NTHR, "thr_tk": [-1] * NTHR,
         "nts": 0, "ts_val": [-1] * NTS, "pair_kind": -1, "pair_named": 0, "pair_complete": 0, "pair_id": -1,
         "pair_ts": -1, "f_pid": -1, "f_index": -1, "f_len": -1, "f_pos": -1, "f_pk": -1, "f_tk": -1, "f_rate": -1,
         "zero_mask": 0}
    if leaf is None:
        if not log:
            d["mode"] = M_UNDEFINED  # an undefined type or subtype: reported, skipped by its size
        return d
    d["zero_mask"] = leaf.layout.zero_mask  # (a well-formed header: where a short record is framed anew)
    if log:
        d["mode"] = M_EVENT
        return d
    kind = leaf.layout.name
    vals, pos = leaf.vals, leaf.pos
    if kind in _REFERENCE_KINDS:
        return d
    if kind == PROVIDER_EVENT:
        # nothing but its kind check (records dropped: EV003), which the screen finds holding
        if [c.rule for c in KIND_CHECKS.get(kind, ())] != [R.records_dropped]:
            return d  # another check on it: the reference's
        d["mode"] = M_PROVIDER_EVENT
        d["f_pid"] = vals["provider_id"]
        return d
    effect = EFFECT_OF.get(kind)
    if effect is not None:
        body = leaf.layout.full_body
        if effect == "names_provider" and body and not isinstance(body[-1], StreamItem):
            return d  # cut short, its name would not be all it leaves unread (``_cut_short``): the reference's
        d["mode"] = _MODES[effect]
        stream = next((it for it in body if isinstance(it, StreamItem)), None)
        if stream is not None:
            d["f_len"], d["f_pos"] = vals[stream.length], pos[stream.name]
        d["f_pid"] = vals.get("provider_id", -1)
        d["f_index"] = vals.get("index", -1)
        d["f_pk"], d["f_tk"] = vals.get("process_koid", -1), vals.get("thread_koid", -1)
        d["f_rate"] = vals.get("ticks_per_second", -1)
        return d
    strs, threads, stamps = STRING_REFS[kind], THREAD_REFS[kind], TIMESTAMPS[kind]
    if len(strs) > NSTR or len(threads) > NTHR or len(stamps) > NTS:
        return d  # more than the walk holds: the reference reads it
    d["mode"] = M_EVENT
    d["nstr"] = len(strs)
    d["str_val"] = _pad([vals[n] for n in strs], NSTR)
    d["str_pos"] = _pad([pos.get(f"{n} string", -1) for n in strs], NSTR)
    pair = PAIR_KIND.get(kind)
    d["str_role"] = _pad([{"category": 1, "name": 2}.get(n, 0) if pair is not None else 0 for n in strs], NSTR, 0)
    d["nthr"] = len(threads)
    d["thr_val"] = _pad([vals[n] for n in threads], NTHR)
    koids = [INLINE_KOIDS.get((kind, n), ()) for n in threads]
    d["thr_nkoid"] = _pad([len(k) for k in koids], NTHR, 0)
    d["thr_pk"] = _pad([pos[k[0]] if len(k) >= 2 else -1 for k in koids], NTHR)
    d["thr_tk"] = _pad([pos[k[1]] if len(k) >= 2 else -1 for k in koids], NTHR)
    d["nts"] = len(stamps)
    d["ts_val"] = _pad([vals[n] for n in stamps], NTS)
    if pair is not None:
        d["pair_kind"] = int(pair)
        d["pair_named"] = int(pair in NAMED_KINDS)
        d["pair_complete"] = int(pair == COMPLETE)
        d["pair_id"] = vals[PAIR_ID[kind]] if PAIR_ID[kind] else -1
        d["pair_ts"] = vals["timestamp"]
    return d


@functools.cache
def plan(log: bool = False):
    """(program, per-terminal plans, per argument type its string-ref value slots): what
    the native walk runs over a trace (``log``: a structured-log stream, whose argument
    strings are inline only: the screen's ``logref`` says so, nothing is looked up),
    derived from the tables (no numpy: a small lint imports none)."""
    prog = compile_program(log, frozenset())
    terms = [_term(t.leaf, log) for t in prog.terminals]
    argrefs = {} if log else {t: [a.vals[n] for n in ARG_STRING_REFS[a.layout.name]][:NARGREF]
                              for t, a in prog.arg_leaves.items()}
    return prog, terms, argrefs


@functools.cache
def _loaded(module, log: bool = False, pairing: bool = True):
    """``plan(log)`` validated and held by the native walk module (once per process);
    ``pairing=False``: without its pairing rows (repair reads none: the walk then interns
    no category, name or koid pair for them)."""
    modes = {"M_REFERENCE": M_REFERENCE, "M_EVENT": M_EVENT, **{f"M_{e.upper()}": v for e, v in _MODES.items()},
             "M_UNDEFINED": M_UNDEFINED}
    modes["M_PROVIDER_EVENT"] = M_PROVIDER_EVENT
    stops = {"DONE": DONE, "HANDBACK": HANDBACK, "ZERO": ZERO, "PAST_END": PAST_END, "END": END}
    finds = {"F_STRING": F_STRING, "F_THREAD": F_THREAD, "F_TICKS": F_TICKS, "F_MAGIC": F_MAGIC,
             "F_UNANNOUNCED": F_UNANNOUNCED, "F_RATE_ZERO": F_RATE_ZERO, "F_INDEX_ZERO": F_INDEX_ZERO,
             "F_STRING_EMPTY": F_STRING_EMPTY, "F_CHANGED": F_CHANGED, "F_LAYOUT": F_LAYOUT,
             "F_UNDEFINED": F_UNDEFINED, "F_DROPPED": F_DROPPED, "F_COPY": F_COPY}
    if {m.name: int(m) for m in module.Mode} != modes or \
            {x.name: int(x) for x in module.Stop if x.name in stops} != stops or \
            {f.name: int(f) for f in module.Find} != finds or getattr(module, "RESYNC", None) != RESYNC_DEPTH:
        raise RuntimeError("a stale build of the native walk (its modes, stops, findings or reach differ): rebuild it")
    prog, terms, argrefs = plan(log)
    if not pairing:
        terms = [{**t, "pair_kind": -1} for t in terms]
    return module.Plan(prog.code, terms, argrefs, (ARG_NAME.lo, ARG_NAME.mask), log)


@functools.cache
def _names(log: bool = False):
    """The kind of each terminal of ``plan(log)``'s program, and of each argument type."""
    prog = plan(log)[0]
    return ([t.leaf.layout.name if t.leaf is not None else None for t in prog.terminals],
            {t: a.layout.name for t, a in prog.arg_leaves.items()})


@functools.cache
def _layouts(log: bool = False) -> list:
    """The layout of each terminal of ``plan(log)``'s program (None: an undefined one), once
    per process (a lint's fixed cost otherwise)."""
    return [t.leaf.layout if t.leaf is not None else None for t in plan(log)[0].terminals]


@functools.cache
def _fixed(module, log: bool = False, pairing: bool = True):
    """What every ``NativeLint`` of ``module`` over a trace (``log``: a structured-log
    stream) reads, looked up once per process: the loaded plan (``pairing`` False: without
    its pairing rows, for a linter whose findings nothing reads), the terminals' kinds and
    the argument types', the screen's sites, the terminals' layouts, a pairing row's bytes
    (the walk's rows checked against ``_pairing.COLUMNS``: never a silent default)."""
    if tuple(module.ROWS) != COLUMNS:
        raise RuntimeError(f"the native walk writes pairing rows {module.ROWS}, not _pairing.COLUMNS {COLUMNS}")
    if max(_CAP_RULES) >= module.CAP_KEY_COUNT:
        raise RuntimeError(f"the native walk caps {module.CAP_KEY_COUNT} row rules, not {max(_CAP_RULES) + 1}")
    return _loaded(module, log, pairing), _names(log), plan(log)[0].sites, _layouts(log), module.ROW_BYTES


class Mirror:
    """The native walk's tables mirrored on a ``ProviderState`` (what the reference reader's
    records, the messages and the summary read). The walk carries every registration out on
    ``state`` itself, by the table steps of ``_nwalk`` (the one copy of them: the names,
    switches, tick rates, strings, threads and interned texts and koid pairs a record
    changes), with no Python call. A subclass that must be told of a step overrides its
    method (``told``: the names it overrides), calling ``super()``'s, which carries the step
    out by the same steps: the walk calls those methods, and only those, where the step
    happens (``rewrite/_slice_walk._Told``: each interned text and provider;
    ``rewrite/_repair_walk._OutMirror``: each thread registration). ``registers_text`` and
    ``registers_bytes`` are ``intern`` (``intern_bytes``) then ``registers_string``, called
    where a subclass overrides any of them."""

    __slots__ = ("state",)
    told: frozenset = frozenset()  # the methods below this class overrides (``__init_subclass__``)

    def __init__(self, state: ProviderState):
        self.state = state

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        told = {name for name in _TOLD if getattr(cls, name) is not getattr(Mirror, name)}
        if told & {"intern", "registers_string"}:
            told.add("registers_text")  # (its steps, each told)
        if told & {"intern_bytes", "registers_string"}:
            told.add("registers_bytes")
        cls.told = frozenset(told)

    def registers_text(self, idx: int, raw: bytes) -> int:
        """A string record's text (screened, not interned by the walk yet) interned and
        registered under ``idx`` in the current provider: ``intern`` then
        ``registers_string``. Returns its interned id."""
        gid = self.intern(raw)
        self.registers_string(idx, gid)
        return gid

    def registers_bytes(self, idx: int, raw: bytes) -> int:
        """``registers_text`` for text that is not UTF-8 (``intern_bytes``)."""
        gid = self.intern_bytes(raw)
        self.registers_string(idx, gid)
        return gid

    def intern_bytes(self, raw: bytes) -> int:
        """A string record's value that is not UTF-8, interned as the bytes it is (as the
        reference's ``ProviderState`` interns it)."""
        return _steps().intern_bytes(self.state, raw)

    def intern(self, raw: bytes) -> int:
        # screened text is valid UTF-8 ("replace" only where another thread rewrote the bytes
        # of a bytearray after the screen: never an exception out of the lint)
        return _steps().intern_text(self.state, raw)

    def thread(self, pk: int, tk: int) -> int:
        return _steps().intern_thread(self.state, pk, tk)

    def names_provider(self, pid: int, name: bytes | None) -> None:
        """A provider info record; ``name`` None: its name is not text (or was not read),
        and the name the provider has stays."""
        _steps().names_provider(self.state, pid, name)

    def switches_provider(self, pid: int) -> None:
        _steps().switches_provider(self.state, pid)

    def sets_tick_rate(self, rate: int, limit: int) -> None:
        _steps().sets_tick_rate(self.state, rate, limit)

    def registers_string(self, idx: int, gid: int) -> None:
        _steps().registers_string(self.state, idx, gid)

    def registers_thread(self, idx: int, pk: int, tk: int) -> None:
        _steps().registers_thread(self.state, idx, pk, tk)


# the methods of ``Mirror`` a subclass overrides to be told of a step (``_nwalk.HOOKS``)
_TOLD = ("intern", "intern_bytes", "thread", "names_provider", "switches_provider", "sets_tick_rate",
         "registers_string", "registers_thread", "registers_text", "registers_bytes")


def _steps():
    """The native walk's module, whose table steps ``Mirror``'s methods carry out (a mirror
    is only ever called by that walk: the module is built)."""
    from ._native import nwalk

    return nwalk()


class NativeLint:
    """``Walk.start_steps`` and ``advance`` for a walk whose only consumer is the linter
    (and riders beside it), on the native walk."""

    blocks: bool | None = None  # the pairing rows taken in blocks: known at the first rows (``_take``)
    # the diagnostics noted of a copy, row or undefined record the walk then says itself, by the
    # slot it was told (``note_copy``, ``note_row``, ``note_undefined``): its later copies are
    # places in a block, said by the sink in one call a take (``add_moved_block``); and the kind
    # of the undefined records placed under a slot. (Class defaults until the first is noted: a
    # lint's object keeps few enough attributes for CPython to hold them without a dict.)
    places: tuple | list = ()
    place_kinds: dict | None = None
    kindsaid: dict | None = None  # (``_kind_rows``: made at its first use)
    kind_ids: dict | None = None  # (``_questions``: each kind name's id, made at its first use)
    # the walk's memos (``_setup`` says what each holds), each made at its first use (a small
    # lint's fixed cost: a lint that meets nothing twice makes none)
    memo: dict = None  # type: ignore[assignment]
    said: dict = None  # type: ignore[assignment]
    first: dict = None  # type: ignore[assignment]
    copies: dict = None  # type: ignore[assignment]
    found: dict = None  # type: ignore[assignment]
    rowsaid: dict = None  # type: ignore[assignment]
    past_run: dict = None  # type: ignore[assignment]
    records: dict = None  # type: ignore[assignment]
    bounds: dict = None  # type: ignore[assignment]

    def __init__(self, walk, lint, module):
        self.walk = walk
        self.lint = lint
        # what the steps below read of the walk and the linter, held here (``WholeLint`` is
        # both itself)
        self.buf, self.big, self.log, self.tables, self.counts = walk.buf, walk.big, walk.log, walk.state, walk.kinds
        self.emit = lint.emit
        self._setup(module, self.sink_of(lint.emit), not walk.resync, not lint.silent)
        # the consumers riding beside the linter (``Consumer.rides_native``: report's coverage)
        self.others = walk.consumers[1:]
        self.riders = [c.ride(walk, self.nw, module) for c in self.others]

    sink_of = staticmethod(sink_of)

    def _setup(self, module, sink, layout: bool, pairing: bool = True) -> None:
        """The native walk and what its rows are rendered with (``sink``: the sink the
        linter's ``emit`` adds to, or None; ``pairing`` False: no pairing rows, for a linter
        whose findings nothing reads, ``Lint.silent``)."""
        loaded, (self.term_kinds, self.arg_kinds), self.sites, self.layouts, self.row_bytes = _fixed(
            module, self.log, pairing)
        mirror = _new(Mirror)  # (``Mirror(self.tables)``, without its ``__init__``'s call)
        mirror.state = self.tables
        self.nw = nw = module.NativeWalk(loaded, mirror, self.big)
        # the plain mirror's registrations written by the walk itself, no call each (``direct_tables``)
        nw.direct_tables(self.tables)
        # the layout checks are finding rows where the declared size stands (the lint's reading)
        nw.layout = layout
        nw.copying = layout  # a copy of a record walked before: one row (``_copy``)
        if sink is not None:
            nw.take_at = _TAKE_AT  # the rows taken early enough for the cap to drop a flood of them (``_cap``)
        self.sink = sink
        self.skips = None if sink is None else sink.skips  # (``skipper``'s, one lookup)
        # (the memos, each a dict made at its first use, a class default of None until then:)
        # ``memo``: a record's layout rows -> the rules the reference's decoder asked the cap
        # about, in order (``_memo_key``): a record met again whose every diagnostic the cap
        # drops is counted without decoding it (the copies of one bad record in a mutated input);
        # ``said``: a record's bytes and field-check rows -> the diagnostics its decoding said,
        # or _ONCE (``_replayed``);
        # ``first``, ``copies``: the walk's copies of a record (``_copy``), by its id + 1: the
        # layout rows of its first copy, and the diagnostics noted of a copy whose decoder read
        # nothing past it; ``found``: the first copy's findings as the decoder takes them (``_found``);
        # ``rowsaid``: a row that is not a layout row -> _ONCE, or (its undefined record's kind,
        # the diagnostics its second copy built) (``_render_one``);
        # ``past_run``: (terminal, row kinds) -> records read past one after the other (``_PAST_RUN``);
        # ``records``: (terminal, a record's bytes) -> the record (``_record``);
        # ``bounds``: cap key -> the bound the walk was last told (``_cap``)
        self.taken = 0  # diagnostics rows taken so far (``_NOTE_FROM``)
        # the walk says the copies and rows the linter noted as places (``places``), but where no
        # sink keeps rows or a listener reads each diagnostic in file order (F_COPY rows then)
        nw.placing = sink is not None and sink.listener is None
        if nw.placing:
            nw.rule_cap = sink.per_rule_cap  # (the walk stops where a rule of its rows reaches it: ``_cap``)

    def _pairs(self):
        """The linter's ``LintState`` (the pairing batch, the buffer-full bookkeeping; made at
        the linter's start, None on a structured-log stream)."""
        return self.lint.state

    def _take(self) -> None:
        """The native walk's counts, diagnostics rows and pairing rows since the last stop,
        to the walk and the linter."""
        nw, kinds = self.nw, self.counts
        for rider in self.riders:
            rider.take()
        for term, n in nw.take_counts().items():
            kind = self.term_kinds[term]
            kinds[kind] = kinds.get(kind, 0) + n
        self._take_rows()

    def _take_rows(self) -> None:
        """``_take`` after the counts: the diagnostics rows (the sink's cap told to the walk
        first), the places, the pairing rows (``_nwalk``'s ``drive`` calls it where a stop
        left any)."""
        nw, kinds = self.nw, self.counts
        sink = self.sink
        if sink is not None and sink._bound:  # (``sink.bounded``, without the property's call)
            self._cap(sink)
            found = nw.take_findings()
            for key, n in nw.take_capped():
                sink.dropped(_CAP_RULES[key], n)
        else:
            found = nw.take_findings()
        if nw.repeated:
            # the walk met a copy or row again that is not noted: noting pays from now on
            nw.repeated = False
            if self.taken < _NOTE_FROM:
                self.taken = _NOTE_FROM
        if found:
            self._render(found)
        if self.places:
            moved = nw.take_moved()
            if moved is not None:
                sink.add_moved_block(self.places, *moved)
                kinds_of = self.place_kinds
                if kinds_of:  # (undefined records placed: counted by their kind)
                    for slot, n in moved[1].items():
                        kind = kinds_of.get(slot)
                        if kind is not None:
                            kinds[kind] = kinds.get(kind, 0) + n
        n = nw.pending_rows()
        if not n:
            return  # (a structured-log stream's walk writes none: its linter pairs nothing)
        if self.blocks is None:
            # the compiled pairing engine copies the walk's rows in whole blocks (its row layout
            # is the walk's, _pairrow.h: checked by size); the Python loop takes them as tuples
            self.blocks = getattr(self._pairs().pairing, "ROW_BLOCK_BYTES", None) == self.row_bytes
        if self.blocks:
            self._pairs().batch.add_block(nw.take_row_block(), n)
        else:
            add = self._pairs().batch.add
            for row in nw.take_row_tuples():
                add(*row)

    def _cap(self, sink) -> None:
        """The sink's per-rule cap, told to the walk for the rows whose rule the row alone says
        (``_CAP_RULES``): ``take_findings`` counts those the cap drops (``take_capped``) and
        hands over none of them (a flood of one defect costs no Python per record past the
        cap's bound)."""
        if sink.listener is not None:
            return  # (``sink.bound`` says None for each: a listener wants every diagnostic)
        told = self.bounds
        if told is None:
            told = self.bounds = {}
        for code, bound in sink._bound.items():  # (the rules at their cap: ``sink.bound`` of each)
            for key in _CAP_KEYS.get(code, ()):
                if told.get(key) != bound:
                    self.nw.set_bound(key, *bound)
                    told[key] = bound

    def _render(self, found) -> None:
        """The walk's diagnostics rows (``take_findings``, in file order), each built by the
        function the reference builds it with (``_semantic``, ``_reader.repeated_magic``),
        its span the field's byte range in the trace's byte order; one the per-rule cap
        would drop is only counted. A record's layout rows (``F_LAYOUT``, written by its
        screen before its other rows) are said by the reference's decoder
        (``_reader.report_layout``) first, its arguments that are not numeric and its kind
        checks that hold last (``RecordChecker``'s place for them: after its refs and
        timestamps)."""
        layout: list = []  # the layout rows of one record
        kinds: list = []  # its arguments that are not numeric, and kind checks that hold
        at = -1  # that record's index
        skips, rules, sink = self.skips, _RULES, self.sink
        self.taken += len(found)
        note = self.taken >= _NOTE_FROM  # (``_render_one``'s question, the same for each row)
        if note and self.rowsaid is None:
            self.rowsaid = {}
        rowsaid = self.rowsaid
        for row in found:
            code = row[0]
            if row[5] != at:
                if layout:
                    self._layout(layout, kinds)
                    layout, kinds = [], []
                elif kinds:
                    self._kind_rows(kinds)  # (``_layout``'s, with no layout rows)
                    kinds = []
                at = row[5]
            if code == F_LAYOUT:
                if row[2] == _KIND or row[2] == _NUMERIC:
                    kinds.append(row)
                else:
                    layout.append(row)
                continue
            if layout:
                self._layout(layout, [])
                layout = []
            if code == F_COPY:
                self._copy(row)
                continue
            if skips is None:
                self._render_one(row)
                continue
            # the cap asked first, where the row's rule is known before anything is read
            # (not a repeated magic record found wrong: only its bytes say whether it reports;
            # not a provider event's: its bookkeeping is kept whether or not the cap keeps it)
            if code == F_MAGIC:
                if row[9]:
                    self._render_one(row)
                elif not skips(_MAGIC, row[6], row[5]):  # (``_render_one``'s, without its call)
                    sink.add_at(*repeated_magic_row(row[6], row[5], row[7]))  # (built when read)
                continue
            if code == F_DROPPED:  # (its bookkeeping kept whether or not the cap keeps its message)
                self._pairs().records_dropped(row[6], row[5], row[7], row[9], bool(row[2]), skips, sink.add_at)
                continue
            rule = rules.get((code, row[2] != 0))
            if rule is None:
                self._render_one(row)
                continue
            if note:
                said = rowsaid.get(_row_key(row))
                if said is not None and said is not _ONCE:
                    # met before: the noted diagnostic moved, the cap asked by the sink as
                    # ``skips`` asks it (``_render_one``'s, without asking twice)
                    sink.add_moved(said[1], row[6], row[5])
                    continue
            if not skips(rule, row[6], row[5]):
                self._render_one(row, False)
        if layout:
            self._layout(layout, kinds)
        elif kinds:
            self._kind_rows(kinds)

    def _layout(self, rows, kinds) -> None:
        """One record's layout rows, said by the reference's decoder, then its arguments that
        are not numeric and its kind checks that hold, their messages from the record the
        reference decoder reads (``_reader.record_of``: a check's message may name any field
        of the record; EV001 names the argument, by the text its name ref was registered as
        when the walk read it). A record whose words after its content start with a
        well-formed header (its last layout row, FOUND_END, holds the walk's framing answer:
        ``_framed``) names positions after it: it is never a copy of another nor remembered
        (no ``_replayed``, ``_memo_key``), and where that is its one layout row, the reader's
        step says it from the walk's answer alone (``_reader.report_after``: FR004, or what
        the words are where the record's layout has no room for them)."""
        key = None
        last = rows[-1] if rows else None
        if last is not None and last[2] == _END and last[12] and not self.log:
            term, index, offset, size = last[1], last[5], last[6], last[7]
            if len(rows) == 1:
                report_after(self.buf, offset, index, size // 8, self.emit, self.layouts[term], last[8],
                             self._framed(last[12], last[13], last[15]), big=self.big, skips=self.skips,
                             add_at=None if self.sink is None else self.sink.add_at)
                rows = []
        else:
            if rows and rows[0][14]:
                first = self.first
                if first is None:
                    first = self.first = {}
                if rows[0][14] not in first:
                    first[rows[0][14]] = rows  # a first copy (``_copy``)
            # (``_replayed`` and ``_memo_key`` asked only where they may answer: rows enough
            # taken to note, a rule at its cap; a small lint's record is decoded without them)
            if rows and self.taken >= _NOTE_FROM and self._replayed(rows):
                rows = []  # said again from a copy of the record met before
            if rows:
                term, index, offset, size = rows[0][1], rows[0][5], rows[0][6], rows[0][7]
                sink = self.sink
                if sink is not None and sink._bound:  # (``_memo_key``'s first question, ``bounded``)
                    key = self._memo_key(rows, term, offset, size)
                    if key is not None and self.memo is None:
                        self.memo = {}
            if key is not None:
                known = self.memo.get(key)
                if known is not None and known is not _PAST and self.sink is not None \
                        and self.sink.skips_all(known, offset, index):
                    rows = []  # every one the cap drops: counted, and the decoder not run
        if rows and key is None and all(r[2] == _FIELDS for r in rows):
            # words whose field checks fail, and nothing else: said from the words the rows name
            sites = self.sites
            report_words(self.buf, offset, index, size // 8, self.emit, self.layouts[term],
                         [(sites[r[10]][2], r[8]) for r in rows], big=self.big, skips=self.skips,
                         add_at=None if self.sink is None else self.sink.add_at)
            rows = []
        if rows:
            found = self._found(rows)
            if key is None or key in self.memo:
                report_layout(self.buf, offset, index, size // 8, self.emit, self.layouts[term], found,
                              big=self.big, log=self.log, skips=self.skips,
                              add_at=None if self.sink is None else self.sink.add_at)
            else:
                emit, skips, asked, built = self._recording(self.emit, self.skips)
                past = report_layout(self.buf, offset, index, size // 8, emit, self.layouts[term], found,
                                     big=self.big, log=self.log, skips=skips)
                if built[0] == built[1]:  # every diagnostic asked about before it was built
                    if len(self.memo) >= _MEMO_MAX:
                        self.memo.clear()
                    # (steps that read past the record may ask otherwise in another copy; a record
                    # framed anew at its content's end, and nothing else, asks about ST001 alone)
                    self.memo[key] = tuple(asked) if past is False or len(key) == 2 else _PAST
        if kinds:
            self._kind_rows(kinds)

    def _kind_rows(self, kinds) -> None:
        """A record's arguments that are not numeric and its kind checks that hold (``_layout``'s
        last rows). Kind checks whose messages read only the values they compare
        (``_FROM_VALUES``: TM002, EV002) are said from the rows, each asked of the cap and kept
        as a row of the sink (no record decoded, nothing noted). Else, in a record of at most
        ``_MEMO_RECORD`` bytes, with a sink: their diagnostics noted within the walk by the
        record's terminal and bytes and the rows (kind, check site, argument, and the text its
        name ref was registered as when the walk read it), as ``_note`` notes them (built by the check's rule, by
        ``counter_argument_not_numeric``: no span, parameters that name no position: a check's
        from the fields the reference decoder reads, ``_record``, a function of the record's
        bytes), and each said of this copy where the cap keeps it (the sink's ``add_moved``:
        counted where it drops it, as ``skips_all`` counts them): the copies of one record in a
        mutated input are decoded and their diagnostics built once."""
        k0 = kinds[0]
        term, index, offset, size = k0[1], k0[5], k0[6], k0[7]
        leaf = self.term_kinds[term]
        checks = KIND_CHECKS.get(leaf, ())
        sink = self.sink
        said_from = _FROM_VALUES.get(leaf)
        if said_from is not None:
            sites = self.sites
            if all(row[2] == _KIND and said_from[sites[row[10]][2]] for row in kinds):
                # what each message reads is the row's (``_FROM_VALUES``): its parameters built by
                # the check's ``params`` from the values the screen compared, no record decoded
                skips = self.skips
                for row in kinds:
                    check = checks[sites[row[10]][2]]
                    if skips is not None and skips(check.rule, offset, index):
                        continue
                    params = check.params({check.a: row[9], check.b: row[12]} if check.op == "less"
                                          else {check.a: row[9]})
                    if sink is not None:  # (built by its rule when read)
                        sink.add_at(check.rule, offset, index, size, params)
                    else:
                        self.emit(check.rule.at(offset, index, record_size=size, **params))
                return
        values = self.tables.strings.values
        if sink is not None and size <= _MEMO_RECORD and self.taken >= _NOTE_FROM:  # (a small lint notes none)
            said = self.kindsaid
            if said is None:  # (the first: the class's default until now)
                said = self.kindsaid = {}
            key = (term, bytes(self.buf[offset:offset + size]),
                   *[(row[2], row[10], row[3], values[row[13] - 1] if row[2] == _NUMERIC and row[13] else None)
                     for row in kinds])
            noted = said.get(key)
            if noted is None:
                if sink.skips_all(self._kind_rules(kinds, checks), offset, index):
                    return  # every one the cap drops: counted, the record not decoded
                rec = self._record(term, offset, index, size)
                built = []
                for row, text in zip(kinds, key[2:]):
                    if row[2] == _NUMERIC:
                        i = row[3]
                        d = counter_argument_not_numeric(offset, index, size, i, rec.args[i], text[3])
                    else:
                        check = checks[self.sites[row[10]][2]]
                        d = check.rule.at(offset, index, record_size=size, **check.params(rec.fields))
                    built.append(_noted(d, offset))  # (no span: None in its place)
                if len(said) >= _MEMO_MAX:
                    said.clear()
                noted = said[key] = tuple(built)
            sink.add_moved(noted, offset, index)  # (each asked of the cap, moved to this copy)
            return
        rules = self._kind_rules(kinds, checks)
        if sink is not None and sink.skips_all(rules, offset, index):
            return  # every one the cap drops: counted, the record not decoded
        rec = self._record(term, offset, index, size)
        for row, rule in zip(kinds, rules):
            if self.skips is not None and self.skips(rule, offset, index):
                continue
            if row[2] == _NUMERIC:
                i, named = row[3], row[13]
                if sink is not None:  # (a sink's row: built when read)
                    sink.add_at(*counter_argument_not_numeric_row(offset, index, size, i, rec.args[i],
                                                                  values[named - 1] if named else None))
                else:
                    self.emit(counter_argument_not_numeric(offset, index, size, i, rec.args[i],
                                                           values[named - 1] if named else None))
                continue
            check = checks[self.sites[row[10]][2]]
            if sink is not None:  # (built by its rule when read)
                sink.add_at(check.rule, offset, index, size, check.params(rec.fields))
            else:
                self.emit(check.rule.at(offset, index, record_size=size, **check.params(rec.fields)))

    def _kind_rules(self, kinds, checks) -> list:
        """The rule of each of a record's ``kinds`` rows (``_kind_rows``')."""
        sites = self.sites
        return [R.counter_argument_not_numeric if row[2] == _NUMERIC else checks[sites[row[10]][2]].rule
                for row in kinds]

    def _record(self, term, offset, index, size):
        """``record_of`` the record at ``offset`` (``size`` bytes standing), remembered within
        the walk by its bytes: what a kind check's and EV001's messages read of it (its
        fields, its arguments) is read from its bytes alone, never a position (the copies of
        a counter whose argument is not numeric, in a mutated input, decoded once)."""
        if size > _MEMO_RECORD:
            return record_of(self.buf, offset, index, size // 8, self.layouts[term], big=self.big)
        key = term, bytes(self.buf[offset:offset + size])
        records = self.records
        if records is None:
            records = self.records = {}
        rec = records.get(key)
        if rec is None:
            rec = record_of(self.buf, offset, index, size // 8, self.layouts[term], big=self.big)
            if len(records) >= _MEMO_MAX:
                records.clear()
            records[key] = rec
        return rec

    def _found(self, rows) -> list:
        """A record's layout rows as ``report_layout`` takes them: (what, item, position,
        value, argument); a trace record's words after its content (``end``) with the walk's
        framing answer as its value (``_reader.framed``: the header there, where recovery
        reads on, the records the declared size swallows, ``_nwalk``'s ``_frame_after``; None
        where no well-formed header follows)."""
        sites = self.sites
        found = []
        for _, _, kind, arg, _, _, _, _, at, value, pc, _, old0, old1, _, new1 in rows:
            what = _FOUND[kind]
            if what == "end":
                item = sites[pc][2]
                # (a log record's words after its content are never framed)
                value = self._framed(old0, old1, new1) if old0 and not self.log else None
            elif what == "argument" or what == "short":
                item = None
            elif what == "over":
                site = sites[pc]
                item = site[2]
                if site[0] == "words":
                    at -= 8 * site[3]  # an inline thread's koid words: from the first
                if value >> 63 and site[0] == "args":
                    value -= 1 << 64  # an argument list that runs to the record's end: -1
                # (a stream's length is the field's, unsigned: 2^63 bytes and more too)
            else:
                item = sites[pc][2]
            found.append((what, item, at, value, arg))
        return found

    def _framed(self, old0: int, old1: int, new1: int) -> tuple:
        """The walk's framing answer of a FOUND_END row followed by a well-formed header
        (``_nwalk``'s ``_frame_after``: ``old0`` its terminal + 1, ``old1`` its flags and count,
        ``new1`` where its swallowed records are), as ``_reader._after_content`` takes it."""
        return framed(self.term_kinds[old0 - 1], bool(old1 & 1), self.nw.swallowed_at(new1, old1 >> 2, self.term_kinds),
                      bool(old1 & 2))

    def _replayed(self, rows) -> bool:
        """Say a record's layout rows from the diagnostics its decoding says, noted once per
        walk for each copy of its bytes, where the decoder reads nothing but the record and
        its rows, and the answers to the questions it asked of what follows it
        (``report_layout``'s answer for the second copy, asked again of each copy:
        ``answers_hold``; a record whose steps took a framing decision is decoded each time,
        ``_PAST``): the same bytes, rows and answers (positions from the
        record's start) make the same decoder steps, whose diagnostics' parameters are
        names, values, sizes and counts within the record, never a position, and whose
        spans move with the record. The first copy is decoded as any record is (False), and
        its key remembered; the second is decoded (``report_layout``) building
        every diagnostic, no cap asked (a step asks the cap only before it builds, so what
        it finds does not depend on the answer); then, for each in order, the cap is asked
        as the decoder asks it and those it keeps are said (only until a rule reaches its
        cap: after that, a record not met before is decoded asking the cap first, as
        ``_layout`` decodes it, so that a diagnostic the cap drops is never built). A later
        copy is not decoded:
        each kept diagnostic is the second copy's, moved to its offset (its parameters were
        checked by ``rule.at`` then, and its message is built from them when first read:
        the copies of one bad record in a mutated input). False: not such a record."""
        term, index, offset, size = rows[0][1], rows[0][5], rows[0][6], rows[0][7]
        if size > _MEMO_RECORD or self.taken < _NOTE_FROM:
            return False
        if self.said is None:
            self._copy_memos()
        r = rows[0]
        if len(rows) == 1:  # (``_kinds``' and ``_rows_key``'s, without their calls)
            if r[2] not in _MEMO_ROWS:
                return False
            kinds = term, r[2]
        else:
            for row in rows:
                if row[2] not in _MEMO_ROWS:
                    return False
            kinds = _kinds(rows)
        run = self.past_run.get(kinds, 0)
        if run >= _PAST_RUN:
            return False  # (no copy looked for: the last such records all read past them)
        # (the walk's id of its bytes and rows where it knows them: ``_copy``)
        key = r[14] or (term, size, bytes(self.buf[offset:offset + size]),
                        (r[2], r[3], r[8] - offset, r[9], r[10]) if len(rows) == 1 else _rows_key(rows, offset))
        emit, skips = self.emit, self.skips
        said = self.said.get(key)
        if said is _PAST:
            self.past_run[kinds] = run + 1
            return False  # its decoder steps read past it: decoded as any record
        if said is None:
            # met for the first time: decoded as any record (``_layout``), and remembered as met
            # (a small input's one bad record costs no noting)
            if len(self.said) >= _MEMO_MAX:
                self.said.clear()
            self.said[key] = _ONCE
            return False
        if said is not _ONCE:
            questions, copy = said
            if questions and not answers_hold(self.buf, offset, self.big, questions):
                return False  # what follows it answers otherwise: decoded as any record
            if run:
                self.past_run[kinds] = 0
            # the noted copy's diagnostics moved: their fields (with the rule and parameters
            # the message is built from when first read, or the message built at once)
            if self.sink is not None:
                self.sink.add_moved(copy, offset, index)  # (``_moved``'s, one call)
            else:
                self._moved(copy, offset, index)
            return True
        if self.sink is not None and self.sink.bounded:
            return False  # a rule at its cap: decoded asking the cap first (``_memo_key``), nothing built it drops
        built: list = []
        found = self._found(rows)
        past = report_layout(self.buf, offset, index, size // 8, built.append, self.layouts[term], found,
                             big=self.big, log=self.log)
        noted: list | None = None if past is True else []
        for d in built:
            said_d = _noted(d, offset)
            rule = said_d[0]
            if noted is not None:
                fields = said_d[2]
                if fields["offset"] != offset or fields["record_index"] != index or fields["record_size"] != size:
                    noted = None  # (never: the decoder reports on the record it reads)
                else:
                    noted.append(said_d)
            if skips is None or not skips(rule, offset, index):
                emit(d)
        if len(self.said) >= _MEMO_MAX:
            self.said.clear()
        self.said[key] = _PAST if noted is None else (past or (), tuple(noted))
        self.past_run[kinds] = run + 1 if noted is None else 0
        if noted is not None and rows[0][14]:
            # no framing decision: the walk's later copies (F_COPY rows) are said from it (``_copy``),
            # or by the walk as places (``note_copy``) where it asked nothing of what follows, or
            # questions the walk asks again of each copy (``_questions``)
            self.copies[rows[0][14]] = self.said[key]
            if self.nw.placing:
                asked = self._questions(past) if past else ()
                if asked is not None:
                    self.nw.note_copy(rows[0][14] - 1, len(self.places), asked)
                    self._place(self.said[key][1])
        return True

    def _questions(self, past) -> list | None:
        """``report_layout``'s questions of the bytes after a record (``past``: (question,
        positions from the record's start, answer)) as the walk asks them again of each copy
        (``NativeWalk.note_copy``: four ints each, the answer's kind by its id, the walk told
        each terminal's once, ``set_kind_ids``). None: one it does not ask."""
        ids = self.kind_ids
        if ids is None:
            ids = self.kind_ids = {}
            for kind in self.term_kinds:
                ids.setdefault(kind, len(ids))
            self.nw.set_kind_ids([ids[kind] for kind in self.term_kinds])
        out: list = []
        for question, at, answer in past:
            what = _ASKED.get(question)
            kid = -1 if answer is None else ids.get(answer)
            if what is None or kid is None or len(at) != (2 if what == 2 else 1) \
                    or not all(0 <= a <= 2 * _MEMO_RECORD for a in at):  # (the walk's bound: ``note_copy``)
                return None
            out += (what, at[0], at[1] if what == 2 else 0, kid)
        return out

    def _copy(self, row) -> None:
        """An F_COPY row: the layout rows of a copy of a record the walk walked before in this
        walk (the same terminal, size, bytes and layout rows, positions from the record's
        start), said from the diagnostics noted of a copy whose decoder read nothing past it but
        questions this copy's answer alike (``_replayed``, ``answers_hold``), moved to this
        copy's offset (``_moved``); else the first copy's rows,
        moved to this copy, said as any record's (``_layout``: the decoder reads the rows'
        kinds, arguments, positions, values and sites, never their provider), and where
        its decoder steps read past it (``_PAST``) and no rule is at its cap, as ``_layout``
        says it then: decoded from the first copy's findings (``_found``'s) moved."""
        ident, index, offset = row[9] + 1, row[5], row[6]
        if self.said is None:
            self._copy_memos()
        said = self.copies.get(ident)
        if self.nw.placing and (said[0] if said is not None else self.said.get(ident) is _PAST):
            self.nw.refuse_copy(row[9])  # (never a place: the walk need not stop after its copies)
        if said is not None and (not said[0] or answers_hold(self.buf, offset, self.big, said[0])):
            noted = said[1]
            if self.sink is not None:
                self.sink.add_moved(noted, offset, index)  # (``_moved``'s, one call)
            else:
                self._moved(noted, offset, index)
            return
        rows = self.first[ident]
        delta = offset - rows[0][6]
        if said is None and self.said.get(ident) is _PAST and (self.sink is None or not self.sink.bounded):
            # its decoder steps read past it (FR004's framing decision): decoded, as ``_layout``
            # decodes it where no rule is at its cap, from the first copy's findings moved
            found = self.found.get(ident)
            if found is None:
                found = self.found[ident] = self._found(rows)
            term, size = rows[0][1], rows[0][7]
            report_layout(self.buf, offset, index, size // 8, self.emit, self.layouts[term],
                          [(what, item, at + delta, value, arg) for what, item, at, value, arg in found],
                          big=self.big, log=self.log, skips=self.skips,
                          add_at=None if self.sink is None else self.sink.add_at)
            return
        self._layout([(*r[:5], index, offset, r[7], r[8] + delta, *r[9:]) for r in rows], [])

    def _copy_memos(self) -> None:
        """``said``, ``past_run``, ``copies`` and ``found``, made (``_replayed``'s and ``_copy``'s
        first use)."""
        self.said, self.past_run, self.copies, self.found = {}, {}, {}, {}

    def _memo_key(self, rows, term, offset, size):
        """What the reference's decoder reads of a record with these layout rows, where that
        is all it reads (its bytes and the rows, positions taken from its start: what the
        decoder asked is remembered only where ``report_layout`` says it read nothing past
        the record, else ``_PAST``); for a record framed anew at its content's end with no
        other row, its rows alone. None: no key (no sink to count in, or a row whose step
        always reads past the record). (``_replayed`` takes the copies of such a record met
        before a rule reached its cap.)"""
        if self.sink is None or size > _MEMO_RECORD or not self.sink.bounded:
            return None  # (no rule at its cap yet: nothing to remember it for)
        if all(row[2] == _SHORT for row in rows):
            # framed anew at its content's end, and nothing else: the decoder asks about ST001
            # alone, whatever the bytes (its message reads past the record, its question not)
            return term, len(rows)
        for row in rows:
            if row[2] not in _MEMO_ROWS:
                return None
        if self.past_run is not None and self.past_run.get(_kinds(rows), 0) >= _PAST_RUN:
            return None  # (the last such records all read past them: ``_replayed``)
        return term, size, bytes(self.buf[offset:offset + size]), \
            _rows_key(rows, offset)

    @staticmethod
    def _recording(emit, skips):
        """``emit`` and ``skips`` that note the rules the decoder asks about (in order) and
        count what it builds: (emit, skips, the rules asked, [diagnostics built, those the
        cap kept])."""
        asked: list = []
        built = [0, 0]

        def noting_skips(rule, offset, index):
            asked.append(rule)
            skipped = skips(rule, offset, index)
            built[1] += not skipped
            return skipped

        def counting_emit(d):
            built[0] += 1
            emit(d)

        return counting_emit, noting_skips, asked, built

    def _render_one(self, row, ask: bool = True) -> None:
        """One row that is not a layout row; ``ask`` False: the cap was asked already. A row
        met again in the walk with the same values (its positions aside: record index,
        offset, an argument's offset from its record's) is said from the diagnostic its
        second copy built, moved to its offset (``_moved``): its builder's parameters are the
        row's values, never a position (a repeated magic record's, MG003, names its index:
        built each time), and its span moves with its record. The first copy is built as
        any row (a small lint's one bad record costs no noting)."""
        emit = self.emit
        rule, term, field, _, _, index, offset, size, _, value, *_ = row
        if rule == F_UNDEFINED:  # the reader's own message (and kind), as it skips the record
            note = self.taken >= _NOTE_FROM
            key = rule, term, size, bytes(self.buf[offset:offset + 8])  # (what the reader reads of it)
            said = self.rowsaid.get(key) if note else None
            if said is None or said is _ONCE:
                built: list = []
                kind = report_undefined(self.buf, offset, index, size // 8,
                                        emit if said is None else built.append, big=self.big,
                                        skips=self.skips if said is None else None,
                                        add_at=None if said is not None or self.sink is None else self.sink.add_at)
                if note:
                    self._note(key, said, offset, index, kind, built)
            else:
                kind, noted = said
                self._moved(noted, offset, index)
            self.counts[kind] = self.counts.get(kind, 0) + 1
            return
        if rule == F_DROPPED:  # (the bookkeeping is kept whether or not the cap keeps the message)
            self._pairs().records_dropped(offset, index, size, value, bool(field))
            return
        if rule == F_MAGIC:
            if value and not well_formed_magic(
                    record_of(self.buf, offset, index, size // 8, self.layouts[term], big=self.big).fields):
                return  # a repeated magic record the screen found wrong: repeated only when well-formed
            if not ask or self.skips is None or not self.skips(R.magic_repeated, offset, index):
                if self.sink is not None:
                    self.sink.add_at(*repeated_magic_row(offset, index, size))  # (built when read)
                else:
                    emit(repeated_magic(offset, index, size))
            return
        if ask and self.skips is not None and self.skips(_RULES[rule, bool(field)], offset, index):
            return
        if self.taken < _NOTE_FROM:
            if self.sink is not None:
                self.sink.add_at(*self._row_of(row))  # (a sink's row: built when read)
            else:
                emit(self._build_one(row))
            return
        key = _row_key(row)
        said = self.rowsaid.get(key)
        if said is None or said is _ONCE:
            d = self._build_one(row)
            self._note(key, said, offset, index, None, [d])
            emit(d)
        elif self.sink is not None:
            self.sink.add_moved(said[1], offset, index)  # (``_moved``'s, one call)
        else:
            self._moved(said[1], offset, index)

    def _note(self, key, said, offset: int, index: int, kind, built: list) -> None:
        """Remember a row met for the first time (``said`` None: its diagnostics were said as
        any row's), or the diagnostics its second copy built (``built``, with its spans from
        the record's start, and an undefined record's ``kind``; those of an undefined record,
        built without asking the cap, are said here)."""
        rowsaid = self.rowsaid
        if len(rowsaid) >= _MEMO_MAX:
            rowsaid.clear()
        if said is None:
            rowsaid[key] = _ONCE
            return
        said = rowsaid[key] = kind, tuple(_noted(d, offset) for d in built)
        if kind is not None:  # (an undefined record's, built without asking the cap)
            self._moved(said[1], offset, index)
            if self.nw.placing and self.nw.note_undefined(key[1], key[2], key[3], len(self.places)):
                self._place(said[1], kind)  # the walk's later such records: places, counted as ``kind``
        elif self.nw.placing and self.nw.note_row(key, len(self.places)):
            self._place(said[1])  # the walk's later such rows: places (``note_row``)

    def _place(self, noted, kind=None) -> None:
        """The diagnostics the walk was just told to say places of (``noted``, under the slot
        ``len(self.places)``; ``kind``: an undefined record's, counted per place by ``_take``)."""
        places, kinds = self.places, self.place_kinds
        if type(places) is not list or kinds is None:  # (the first: the class's defaults until now)
            places, kinds = self.places, self.place_kinds = [], {}
        if kind is not None:
            kinds[len(places)] = kind
        places.append(noted)

    def _moved(self, noted, offset: int, index: int) -> None:
        """The diagnostics ``noted`` (``_note``'s) said of the copy at ``offset``, record
        ``index``, each asked of the cap first (the sink's ``add_moved``: kept as rows, no
        ``Diagnostic`` built until the report's are read)."""
        if self.sink is not None:
            self.sink.add_moved(noted, offset, index)
            return
        emit, skips = self.emit, self.skips
        for rule, span, fields in noted:
            if skips is not None and skips(rule, offset, index):
                continue
            d = _new(Diagnostic)
            d.__dict__.update(fields, offset=offset, record_index=index,
                              span=None if span is None else (offset + span[0], offset + span[1]))
            emit(d)

    def _build_one(self, row) -> Diagnostic:
        """The diagnostic of a row the linter's builders make (``_semantic``), from the row."""
        return built(*self._row_of(row))

    def _row_of(self, row) -> tuple:
        """A row the linter's builders make (``_semantic``'s ``*_row``), as the sink's row
        (``DiagnosticSink.add_at``'s arguments: built when read)."""
        big = self.big
        rule, term, field, arg, arg_type, index, offset, size, at, value, rate, provider, *change = row
        if rule <= F_TICKS:
            kind = self.term_kinds[term]
            if rule == F_STRING:
                if arg < 0:
                    name, where, base = STRING_REFS[kind][field], kind, offset
                    f = HEADER_FIELDS.get(kind, {}).get(name)
                else:
                    akind = self.arg_kinds[arg_type]
                    name, where, base = ARG_STRING_REFS[akind][field], f"{kind} argument {arg}", at
                    f = ARG_HEADER_FIELDS.get(akind, {}).get(name)
                return unregistered_string_row(offset, index, size, None if f is None else field_span(base, f, big),
                                               where, value, name, provider)
            if rule == F_THREAD:
                name = THREAD_REFS[kind][field]
                f = HEADER_FIELDS.get(kind, {}).get(name)
                return unregistered_thread_row(offset, index, size, None if f is None else field_span(offset, f, big),
                                               kind, value, name, provider)
            return timestamp_overflow_row(offset, index, size, TIMESTAMPS[kind][field], value, rate)
        if rule == F_UNANNOUNCED:
            return section_unannounced_row(offset, index, size, value)
        if rule == F_RATE_ZERO:
            return rate_zero_row(offset, index, size)
        if rule == F_INDEX_ZERO:
            return index_zero_row(offset, index, size, "thread" if field else "string")
        if rule == F_STRING_EMPTY:
            return string_empty_row(offset, index, size, value)
        if field:  # F_CHANGED, a thread's koids
            return thread_changed_row(offset, index, size, value, change[:2], change[2:])
        values = self.tables.strings.values  # F_CHANGED, a string's interned ids
        return string_changed_row(offset, index, size, value, values[change[0]], values[change[2]])

    def _sync(self, change) -> None:
        """The effect of a record the reference decoded, on the native tables."""
        sync_change(self.nw, self.tables, change)

    def advance(self) -> bool:
        """``Walk.advance`` on the native walk: from ``walk.cur`` / ``walk.index`` to the
        end of what the buffer holds (a growing stream: up to the first record not wholly
        there, or a decision that needs bytes still to come). False when framing stopped
        for good."""
        w = self.walk
        buf, emit, state, lint = w.buf, w.emit, w.state, self.lint
        # (the buffer in force: a stream's, or a file's read in chunks, is a larger map after a
        # growth, the one before closed; the rows' records are read again from this one)
        self.buf = buf
        big, log = w.big, w.log
        pairs = lint.state  # None on a structured-log stream: nothing pairs there
        growing = getattr(buf, "growing", False)
        settled = w.settle_zero()
        if settled is not None:
            return settled
        pw = w.limits.pairing_window
        nw = self.nw
        nw.magic_at = -1 if w.magic_at is None else w.magic_at
        nw.lookahead = not growing  # a message that reads past its record: only on whole bytes
        cur, index, released, stop = w.cur, w.index, w._released, w.stopped
        view = memoryview(buf)[:len(buf)]  # a stream's map is longer than what it has received
        try:
            while not stop:
                if pairs is not None:
                    pairs.flush_to(index)  # a new pairing window: the last one is fed
                status = nw.run(view, cur, index, (index // pw + 1) * pw)
                cur, index = nw.cur, nw.index
                self._take()
                if status == DONE:
                    released = w._release(released, 8 * cur)
                    continue
                if status == END:
                    break
                if status == HANDBACK:
                    try:
                        rec = decode_record(buf, 8 * cur, index, nw.size, emit, big=big, log=log,
                                            resync=w.resync)
                    except NeedMore:
                        break  # a stream: taken again with more bytes
                    if not log:
                        after_record(rec, emit, w.magic_at)
                    w.kinds[rec.kind] += 1
                    change = state.apply(rec)
                    lint.record(rec, change)
                    for c in self.others:
                        c.record(rec, change)
                    if change is not None:
                        self._sync(change)
                    index += 1
                    cur = rec.end // 8
                    continue
                if status == PAST_END:
                    if growing:
                        break  # the last record has not wholly arrived: framed next time
                    frame_error(8 * cur, index, nw.size, buf, emit, big)
                    stop = True
                    break
                # ZERO
                try:
                    frame_error(8 * cur, index, 0, buf, emit, big)
                except NeedMore:
                    w.zero_at = cur  # its message names the bytes left: said at the end
                    break
                stop = True
        finally:
            view.release()
        w.cur, w.index, w._released, w.stopped = cur, index, released, stop
        w.records = index
        return not stop


class WholeLint(NativeLint):
    """The lint of whole bytes (not a stream, not a file read a chunk at a time) on the native
    walk, the linter its only consumer: the walk, the linter and its driver in one object
    (``_lint.lint_buffer`` takes it where it can: no ``Walk``, ``Lint``, ``MagicSearch`` or
    ``Counter``; the linter's ``LintState`` made at the first pairing row, provider event
    or record handed back, none for a trace with nothing to pair). It runs ``NativeLint``'s
    steps (``_take`` and the rendering of rows) on its own state, and ``NativeLint.advance``'s
    loop without what only a stream or a mapped file needs (a header of size 0 said at the
    stream's end, pages given back, riders), so its report is the same whole report."""

    # (what a lint sets only where it needs them: class defaults, no attribute to make)
    pairs: LintState | None = None
    checker: RecordChecker | None = None
    others: tuple = ()
    riders: tuple = ()
    _index = 0  # the first record of the run under way (its pairing window)
    # (set by ``lint``)
    limits: Limits
    buffering_mode: str | None

    def _pairs(self) -> LintState:
        """The linter's ``LintState``, made at its first use, in the pairing window of the run
        under way (as ``Lint.start`` would have made it before the first record)."""
        if self.pairs is None:
            st = self.pairs = LintState(self.emit, self.limits, self.tables, self.buffering_mode, True)
            st.big = self.big
            st.window = self._index // self.limits.pairing_window
        return self.pairs

    @classmethod
    def lint(cls, buf, module, sink, log: bool, big: bool, limits: Limits, buffering_mode: str | None,
             order: str | None, path: str) -> FileReport:
        """The lint of ``buf`` (``order``: ``_reader.detect_byte_order(buf)``, read by the caller):
        the object made (without an ``__init__``'s call), the file-level checks, the walk, the
        pairing's end; the report."""
        self = _new(cls)
        self.buf, self.big, self.log, self.limits, self.buffering_mode = buf, big, log, limits, buffering_mode
        self.tables = tables = ProviderState()
        counts: dict = {}
        self.counts = counts
        self.emit = emit = sink.add
        self._setup(module, sink, True)
        records = 0
        # one search for the first magic record where the file does not start with it, asked by
        # the file-level checks (MG001's place) and the walk (a repeated one is MG003)
        search = None if log or order == ("big" if big else "little") else MagicSearch(big)
        if not start_checks(buf, emit, big, log, search=search, order=order, add_at=sink.add_at):
            # (a structured-log stream's walk reads no magic record: its program has none)
            magic_at = None if log else 0 if search is None else search.find(buf)
            records, cut_short = self._walk(-1 if magic_at is None else magic_at)
            if self.pairs is not None:
                self.pairs.finish(cut_short=cut_short)
        # (this lint's own tables, let go of with it: one kind or provider is its own sorted copy)
        kinds = counts if len(counts) < 2 else dict(sorted(counts.items()))
        if log:
            summary: dict = {"record_kinds": kinds}
        else:
            announced, pairs = tables.announced, self.pairs
            summary = {"record_kinds": kinds,
                       "providers": [*announced] if len(announced) < 2 else sorted(announced),
                       "buffer_full_at": [] if pairs is None else pairs.buffer_full}
        return FileReport.from_sink(path, "log" if log else "trace", records, len(buf), "big" if big else "little",
                                    sink, summary)

    def _walk(self, magic_at: int) -> tuple[int, bool]:
        """``NativeLint.advance`` over whole bytes: (records, whether framing stopped early)."""
        buf, emit, big, log = self.buf, self.emit, self.big, self.log
        nw, counts = self.nw, self.counts
        nw.magic_at = magic_at
        pw = self.limits.pairing_window
        cur = index = 0
        stop = False
        # a bytearray is held by a view while it is walked (it cannot be resized under the walk);
        # bytes cannot change: walked as they are
        view = memoryview(buf) if type(buf) is not bytes else None
        kinds = self.term_kinds
        try:
            while True:
                # the runs to the next stop that is not DONE, each taken (``_take``'s steps, compiled)
                status = nw.drive(self, buf if view is None else view, cur, index, pw, kinds, counts)
                cur, index = nw.cur, nw.index
                if status == END:
                    break
                if status == HANDBACK:
                    rec = decode_record(buf, 8 * cur, index, nw.size, emit, big=big, log=log, resync=False)
                    if not log:
                        after_record(rec, emit, None if magic_at < 0 else magic_at)
                    counts[rec.kind] = counts.get(rec.kind, 0) + 1
                    change = self.tables.apply(rec)
                    if not log:
                        if self.checker is None:
                            self.checker = RecordChecker(self._pairs())
                        self.checker.check(rec, change)
                    if change is not None:
                        self._sync(change)
                    index += 1
                    cur = rec.end // 8
                    continue
                # PAST_END, ZERO: framing stops for good
                frame_error(8 * cur, index, nw.size if status == PAST_END else 0, buf, emit, big, self.sink.add_at)
                stop = True
                break
        finally:
            if view is not None:
                view.release()
        return index, stop
