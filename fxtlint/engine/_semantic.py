"""What a trace means: tables and refs per provider, time, and pairing (per record).

This is the reference implementation, the specification the native walk
(``_walk_native``, ``_nwalk.pyx``) is held to: it takes decoded ``Record`` values in file
order. The provider tables are the walk's ``ProviderState``, which carries out each
record's effect; the linter reports on the changes it made (``report_change``). The
functions below build every semantic diagnostic, for both: the native walk's
diagnostics rows are rendered by them. Pairing is delegated to a pairing engine
(``_pairing_choice``: the compiled twin on the native walk where it is built, the Python
loop on the reference path) in batches of ``Limits.pairing_window`` records.
"""

from __future__ import annotations

from .. import rules as R
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._model import Record
from ..spec._roles import (
    ARG_HEADER_FIELDS,
    ARG_STRING_REFS,
    HEADER_FIELDS,
    INLINE_KOIDS,
    STATE_KINDS,
    STRING_REFS,
    THREAD_REFS,
    TIMESTAMPS,
)
from ..spec._tables import PAIRING_ROLES, TableError, tables
from . import _pairing as P
from ._kind_checks import KIND_CHECKS, PROVIDER_EVENT
from ._pairing import Batch
from ._pairing_choice import pairing_engine
from ._provider_state import Change, ProviderState
from ._reader import argument_label, field_span

_T = tables()
_INLINE_BIT = _T.string_inline_bit
NUMERIC_ARGS = frozenset(_T.numeric_argument_kinds())


# the pairing engine's code for each pairing role of the tables
PAIRING_CODES = {"begin": P.BEGIN, "end": P.END, "complete": P.COMPLETE, "async_begin": P.ASYNC_BEGIN,
                 "async_instant": P.ASYNC_INSTANT, "async_end": P.ASYNC_END, "flow_begin": P.FLOW_BEGIN,
                 "flow_step": P.FLOW_STEP, "flow_end": P.FLOW_END}
if set(PAIRING_CODES) != set(PAIRING_ROLES):  # pragma: no cover
    raise TableError(f"pairing roles without an engine code: {set(PAIRING_ROLES) ^ set(PAIRING_CODES)}")
# per record kind with a pairing role: the engine's code, and the word holding its id
PAIR_KIND = {leaf.name: PAIRING_CODES[leaf.pairing] for leaf in _T.record_leaves() if leaf.pairing}
PAIR_ID = {leaf.name: leaf.pairing_id for leaf in _T.record_leaves() if leaf.pairing}
NUMERIC_ARG_KINDS = frozenset(leaf.name for leaf in _T.record_leaves() if leaf.numeric_args)


class LintState:
    """The linter's own state beside the provider tables (``tables``, the walk's
    ``ProviderState``): the pairing engine and its pending batch, and where providers
    said they dropped records."""

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS, tables: ProviderState | None = None,
                 buffering_mode: str | None = None, native: bool = False):
        self.emit = emit
        self.limits = limits
        self.tables = tables if tables is not None else ProviderState()
        self.buffering_mode = buffering_mode
        # ``native``: the lint runs on the native walk (the compiled pairing engine where it is
        # built); the reference path pairs with the Python loop. Made at the first batch it is
        # fed (``pairing``): a trace with nothing to pair (a small lint's) never makes one
        self._native = native
        self._pairing = None
        self.buffer_full_index: int | None = None  # the last record that said records were dropped
        self.batch = Batch()
        self.window = 0
        self.buffer_full: list[int] = []
        self.big = False  # the byte order, for the byte ranges of fields

    @property
    def pairing(self):
        """The pairing engine (``_pairing_choice``), made at its first use."""
        if self._pairing is None:
            self._pairing = pairing_engine(self.emit, self.tables.strings.values, self.limits,
                                           buffering_mode=self.buffering_mode, native=self._native)
        return self._pairing

    def flush_to(self, index: int) -> None:
        """Feed the pending batch once ``index`` leaves its pairing window."""
        w = index // self.limits.pairing_window
        if w != self.window:
            self.flush()
            self.window = w

    def flush(self) -> None:
        if self.batch.n:  # (``len(batch)``, without its call)
            self.pairing.feed(self.batch)
            self.batch = Batch()

    def finish(self, cut_short: bool = False) -> None:
        """``cut_short``: framing stopped before the end of the file."""
        if self.batch.n:
            self.pairing.feed(self.batch)  # (``flush``'s, the last batch: emptied, no new one made)
            self.batch.n = 0
        if self._pairing is not None:  # (an engine never fed has nothing open)
            self._pairing.finish(cut_short, self.buffer_full_index)

    # -- what the linter says about a change of the tables ----------------------------
    def report_change(self, rec: Record, change: Change) -> None:
        emit = self.emit
        off, index, size = rec.offset, rec.index, 8 * rec.size_words  # the record's bytes, for the hex view
        effect = change.effect
        if effect == "switches_provider":
            if change.provider.id not in self.tables.announced:
                emit(section_unannounced(off, index, size, change.provider.id))
        elif effect == "sets_tick_rate":
            if change.new == 0:
                emit(rate_zero(off, index, size))
        elif effect == "registers_string":
            if change.key == 0:
                emit(index_zero(off, index, size, "string"))
                return
            values = self.tables.strings.values
            value = values[change.new]
            if value == "":
                emit(string_empty(off, index, size, change.key))
            if change.old is not None and change.old != change.new:
                emit(string_changed(off, index, size, change.key, values[change.old], value))
        elif effect == "registers_thread":
            if change.key == 0:
                emit(index_zero(off, index, size, "thread"))
                return
            old, new = change.old, change.new
            if old is not None and old != new:
                emit(thread_changed(off, index, size, change.key, old, new))

    def provider_event(self, rec: Record) -> None:
        """A provider event record: a full buffer means records were dropped (EV003)."""
        for check in KIND_CHECKS.get(rec.kind, ()):
            if check.holds(rec.fields):
                params = check.params(rec.fields)
                if check.rule is R.records_dropped:  # say so when no Provider Info named the provider
                    self.records_dropped(rec.offset, rec.index, 8 * rec.size_words, params["provider"],
                                         params["provider"] in self.tables.announced)
                else:
                    self.emit(check.rule.at(rec.offset, rec.index, record_size=8 * rec.size_words, **params))

    def records_dropped(self, offset: int, index: int, size: int, provider: int, announced: bool,
                        skips=None, add_at=None) -> None:
        """A provider event at ``offset`` (record ``index``, ``size`` bytes) saying ``provider``'s
        buffer filled (``announced``: a provider info record had named it by then): where,
        kept for the pairing and the summary, and EV003 (the native walk's rows too: with
        ``skips`` and ``add_at``, its sink's, the cap asked first and the diagnostic kept as a
        row, built when read)."""
        self.buffer_full.append(offset)
        self.buffer_full_index = index
        if self.buffering_mode == "streaming":
            return  # the streaming protocol: a rolling buffer filled and was handed over
        row = records_dropped_row(offset, index, size, provider, announced)
        if add_at is None:
            self.emit(row[0].at(offset, index, record_size=size, **row[4]))
        elif not skips(row[0], offset, index):
            add_at(*row)


def records_dropped_row(offset: int, index: int, size: int, provider: int, announced: bool) -> tuple:
    """EV003's diagnostic as a sink's row (``DiagnosticSink.add_at``'s arguments: no span)."""
    return R.records_dropped, offset, index, size, {"provider": provider, "announced": announced}


# -- the one place each semantic diagnostic is built (both engines call these) -----------
# Each is a sink's row (``DiagnosticSink.add_at``'s arguments: rule, offset, record index,
# record size, parameters, span), which the native walk's rows are kept as (built when
# read); the reference engine builds the diagnostic from the same row at once (``built``).
def built(rule, offset, index, size, params, span=None):
    """The diagnostic of a sink's row (``add_at``'s arguments), built now."""
    return rule.at(offset, index, span=span, record_size=size, **params)


def unregistered_string_row(offset, index, size, span, where, ref, field, provider) -> tuple:
    return (R.string_ref_unregistered, offset, index, size,
            {"where": where, "ref": ref, "field": field, "provider": provider}, span)


def unregistered_thread_row(offset, index, size, span, where, ref, field, provider) -> tuple:
    return (R.thread_ref_unregistered, offset, index, size,
            {"where": where, "ref": ref, "field": field, "provider": provider}, span)


def timestamp_overflow_row(offset, index, size, field, ticks, rate) -> tuple:
    return R.timestamp_overflows_ns, offset, index, size, {"field": field, "ticks": ticks, "rate": rate}


def section_unannounced_row(offset, index, size, provider) -> tuple:
    return R.provider_section_unannounced, offset, index, size, {"provider": provider}


def rate_zero_row(offset, index, size) -> tuple:
    return R.tick_rate_zero, offset, index, size, {}


def index_zero_row(offset, index, size, what) -> tuple:
    """A string or thread record (``what``) registering index 0."""
    return R.string_index_zero if what == "string" else R.thread_index_zero, offset, index, size, {}


def string_empty_row(offset, index, size, key) -> tuple:
    return R.string_record_empty, offset, index, size, {"index": key}


def string_changed_row(offset, index, size, key, old, new) -> tuple:
    """String ``key`` registered again with another value (``old``, ``new``: the texts)."""
    return (R.registration_changes_value, offset, index, size,
            {"what": "string", "index": key, "old": repr(old), "new": repr(new)})


def thread_changed_row(offset, index, size, key, old, new) -> tuple:
    """Thread ``key`` registered again with other koids (``old``, ``new``: (process, thread))."""
    return (R.registration_changes_value, offset, index, size,
            {"what": "thread", "index": key, "old": f"{old[0]}/{old[1]}", "new": f"{new[0]}/{new[1]}"})


def unregistered_string(offset, index, size, span, where, ref, field, provider):
    return built(*unregistered_string_row(offset, index, size, span, where, ref, field, provider))


def unregistered_thread(offset, index, size, span, where, ref, field, provider):
    return built(*unregistered_thread_row(offset, index, size, span, where, ref, field, provider))


def timestamp_overflow(offset, index, size, field, ticks, rate):
    return built(*timestamp_overflow_row(offset, index, size, field, ticks, rate))


def section_unannounced(offset, index, size, provider):
    return built(*section_unannounced_row(offset, index, size, provider))


def rate_zero(offset, index, size):
    return built(*rate_zero_row(offset, index, size))


def index_zero(offset, index, size, what):
    """A string or thread record (``what``) registering index 0."""
    return built(*index_zero_row(offset, index, size, what))


def string_empty(offset, index, size, key):
    return built(*string_empty_row(offset, index, size, key))


def string_changed(offset, index, size, key, old, new):
    """String ``key`` registered again with another value (``old``, ``new``: the texts)."""
    return built(*string_changed_row(offset, index, size, key, old, new))


def thread_changed(offset, index, size, key, old, new):
    """Thread ``key`` registered again with other koids (``old``, ``new``: (process, thread))."""
    return built(*thread_changed_row(offset, index, size, key, old, new))


def argument_name(a, i: int, registered) -> str:
    """'argument 2 "count"': an argument named by an indexed name ref by ``registered``, the
    text the provider's string table holds for that ref (None: none), as the pairing
    messages name events ('(name ref 5)' when unregistered: RF001 says so)."""
    ref = a.fields.get("name", 0)
    if ref and not ref & _INLINE_BIT and not a.strings.get("name") and isinstance(registered, str) and registered:
        return f'argument {i} "{registered}"'
    return argument_label(a, i)


def counter_argument_not_numeric_row(offset, index, size, i, a, registered) -> tuple:
    """EV001 for a counter's argument ``a`` (its ``i``-th) of a type that is not numeric, as a
    sink's row; ``registered``: as ``argument_name``'s."""
    return R.counter_argument_not_numeric, offset, index, size, {"i": i, "arg": argument_name(a, i, registered),
                                                                 "kind": a.kind}


def counter_argument_not_numeric(offset, index, size, i, a, registered):
    """``counter_argument_not_numeric_row``'s diagnostic, built."""
    return built(*counter_argument_not_numeric_row(offset, index, size, i, a, registered))


class RecordChecker:
    """The per-record semantic checks; ``check(rec, change)`` for each record in file order."""

    def __init__(self, state: LintState):
        self.s = state

    def span(self, base: int, fields: dict, name: str):
        f = fields.get(name)
        return field_span(base, f, self.s.big) if f is not None and base >= 0 else None

    def string_gid(self, rec: Record, strings: dict, fields: dict, name: str, base: int, span_fields: dict,
                   i: int | None = None):
        """The interned id of a string ref, reporting an unregistered index: the ref's field
        is ``span_fields[name]`` of the header at ``base``, the record's own (``i`` None) or
        its ``i``-th argument's (its place and its name, worked out for a report only)."""
        ref = fields.get(name, 0)
        if ref == 0:
            return 0
        if ref & _INLINE_BIT:
            v = strings.get(name, "")
            return self.s.tables.strings(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))
        current = self.s.tables.current
        gid = current.strings.get(ref)
        if gid is None:
            where = rec.kind if i is None else f"{rec.kind} argument {i}"
            self.s.emit(unregistered_string(rec.offset, rec.index, 8 * rec.size_words,
                                            self.span(base, span_fields, name), where, ref, name, current.id))
            return None
        return gid

    def thread_koids(self, rec: Record, name: str):
        f = rec.fields
        ref = f.get(name, 0)
        if ref == 0:
            names = INLINE_KOIDS.get((rec.kind, name))
            if not names or names[0] not in f:
                return None
            return tuple(f.get(n, 0) for n in names)
        current = self.s.tables.current
        koids = current.threads.get(ref)
        if koids is None:
            self.s.emit(unregistered_thread(rec.offset, rec.index, 8 * rec.size_words,
                                            self.span(rec.offset, HEADER_FIELDS.get(rec.kind, {}), name), rec.kind,
                                            ref, name, current.id))
        return koids

    def check(self, rec: Record, change: Change | None = None) -> None:
        """Check ``rec``; ``change`` is what it did to the provider tables (already done)."""
        s = self.s
        s.flush_to(rec.index)
        k = rec.kind
        if k in STATE_KINDS:
            if change is not None:
                s.report_change(rec, change)
            return
        if k == PROVIDER_EVENT:
            s.provider_event(rec)
            return
        if not rec.complete:
            return  # a record that did not decode says nothing reliable about meaning
        record_size = 8 * rec.size_words
        string_ids = self._string_refs(rec)
        koids = self._thread_refs(rec)
        self._timestamps(rec, record_size)
        self._numeric_arguments(rec, record_size)
        self._kind_checks(rec, record_size)
        self._pairing_rows(rec, record_size, string_ids, koids)

    def _string_refs(self, rec: Record) -> dict:
        """String refs of the record and of its arguments: the record's own interned ids
        by field name."""
        k = rec.kind
        string_ids = {}
        for name in STRING_REFS.get(k, ()):
            string_ids[name] = self.string_gid(rec, rec.strings, rec.fields, name, rec.offset,
                                               HEADER_FIELDS.get(k, {}))
        for i, a in enumerate(rec.args):
            for name in ARG_STRING_REFS.get(a.kind, ()):
                self.string_gid(rec, a.strings, a.fields, name, a.offset, ARG_HEADER_FIELDS.get(a.kind, {}), i)
        return string_ids

    def _thread_refs(self, rec: Record):
        """Thread refs: the first one's (process, thread) koids, None when unregistered
        (reported) or absent."""
        koids = None
        for name in THREAD_REFS.get(rec.kind, ()):
            got = self.thread_koids(rec, name)
            if koids is None:
                koids = got
        return koids

    def _timestamps(self, rec: Record, record_size: int) -> None:
        """Timestamps that do not convert at the provider's rate."""
        current = self.s.tables.current
        for name in TIMESTAMPS.get(rec.kind, ()):
            ts = rec.fields.get(name, 0)
            if ts > current.max_ticks:
                self.s.emit(timestamp_overflow(rec.offset, rec.index, record_size, name, ts, current.rate))

    def _numeric_arguments(self, rec: Record, record_size: int) -> None:
        """A counter's arguments must be numeric (the native walk's screen finds such an
        argument and renders it with ``counter_argument_not_numeric``)."""
        if rec.kind not in NUMERIC_ARG_KINDS:
            return
        tables = self.s.tables
        for i, a in enumerate(rec.args):
            if a.kind not in NUMERIC_ARGS:
                gid = tables.current.strings.get(a.fields.get("name", 0))
                self.s.emit(counter_argument_not_numeric(rec.offset, rec.index, record_size, i, a,
                                                         None if gid is None else tables.strings.values[gid]))

    def _kind_checks(self, rec: Record, record_size: int) -> None:
        """The declared per-kind checks (``_kind_checks``; the native walk's screen finds
        them holding and renders them with the same ``KindCheck``)."""
        for check in KIND_CHECKS.get(rec.kind, ()):
            if check.holds(rec.fields):
                self.s.emit(check.rule.at(rec.offset, rec.index, record_size=record_size, **check.params(rec.fields)))

    def _pairing_rows(self, rec: Record, record_size: int, string_ids: dict, koids) -> None:
        """The event's pairing row, when its identifying refs resolved (its thread, and
        its category and name for ``NAMED_KINDS``)."""
        s, k, f = self.s, rec.kind, rec.fields
        pair_kind = PAIR_KIND.get(k)
        if pair_kind is None or koids is None:
            return
        cat, name = string_ids.get("category"), string_ids.get("name")
        if (cat is None or name is None) and pair_kind in P.NAMED_KINDS:
            return
        word = f.get(PAIR_ID[k], 0)  # a complete event's word is its end, the others' an id
        ident, end = (0, word) if pair_kind == P.COMPLETE else (word, 0)
        s.batch.add(pair_kind, s.tables.threads(koids), koids[0], -1 if cat is None else cat,
                    -1 if name is None else name, f["timestamp"], ident, end, rec.offset, rec.index, record_size,
                    s.tables.current.rate)
