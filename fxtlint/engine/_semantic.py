"""What a trace means: tables and refs per provider, time, and pairing (per record).

This is the reference implementation that the column lint (``_fast``) must agree
with: it takes decoded ``Record`` values in file order. The provider tables are the
walk's ``ProviderState``, which carries out each record's effect; the linter reports on
the changes it made (``report_change``). Pairing is delegated to ``PairingEngine`` in
batches of ``Limits.pairing_window`` records.
"""

from __future__ import annotations

from .. import rules as R
from ..spec._model import Record
from ._reader import argument_label, field_span
from . import _pairing as P
from ..spec._limits import DEFAULT_LIMITS, Limits
from ._pairing import Batch, PairingEngine
from ._provider_state import Change, ProviderState
from ..spec._roles import (ARG_HEADER_FIELDS, ARG_STRING_REFS, BUFFER_FULL, EVENT_ID, HEADER_FIELDS, INLINE_KOIDS,
                     LEGACY_SWITCH, PROVIDER_EVENT, RUNNING, STATE_KINDS, STRING_REFS, THREAD_REFS, TIMESTAMPS)
from ..spec._tables import PAIRING_ROLES, TableError, tables

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

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS, tables: ProviderState | None = None):
        self.emit = emit
        self.limits = limits
        self.tables = tables if tables is not None else ProviderState()
        self.pairing = PairingEngine(emit, self.tables.strings.values, limits)
        self.batch = Batch()
        self.window = 0
        self.buffer_full: list[int] = []
        self.big = False  # the byte order, for the byte ranges of fields

    def flush_to(self, index: int) -> None:
        """Feed the pending batch once ``index`` leaves its pairing window."""
        w = index // self.limits.pairing_window
        if w != self.window:
            self.flush()
            self.window = w

    def flush(self) -> None:
        if len(self.batch):
            self.pairing.feed(self.batch)
            self.batch = Batch()

    def finish(self, cut_short: bool = False) -> None:
        """``cut_short``: framing stopped before the end of the file."""
        self.flush()
        self.pairing.finish(cut_short)

    # -- what the linter says about a change of the tables ----------------------------
    def report_change(self, rec: Record, change: Change) -> None:
        emit = self.emit
        at = dict(record_size=8 * rec.size_words)
        effect = change.effect
        if effect == "switches_provider":
            if change.provider.id not in self.tables.announced:
                emit(R.provider_section_unannounced.at(rec.offset, rec.index, provider=change.provider.id, **at))
        elif effect == "sets_tick_rate":
            if change.new == 0:
                emit(R.tick_rate_zero.at(rec.offset, rec.index, **at))
        elif effect == "registers_string":
            if change.key == 0:
                emit(R.string_index_zero.at(rec.offset, rec.index, **at))
                return
            values = self.tables.strings.values
            value = values[change.new]
            if value == "":
                emit(R.string_record_empty.at(rec.offset, rec.index, index=change.key, **at))
            if change.old is not None and change.old != change.new:
                emit(R.registration_changes_value.at(rec.offset, rec.index, what="string", index=change.key,
                                                     old=repr(values[change.old]), new=repr(value), **at))
        elif effect == "registers_thread":
            if change.key == 0:
                emit(R.thread_index_zero.at(rec.offset, rec.index, **at))
                return
            old, new = change.old, change.new
            if old is not None and old != new:
                emit(R.registration_changes_value.at(rec.offset, rec.index, what="thread", index=change.key,
                                                     old=f"{old[0]}/{old[1]}", new=f"{new[0]}/{new[1]}", **at))

    def provider_event(self, rec: Record) -> None:
        """A provider event record: a full buffer means records were dropped (EV003)."""
        if rec.fields.get(EVENT_ID) == BUFFER_FULL:
            self.buffer_full.append(rec.offset)
            self.emit(R.records_dropped.at(rec.offset, rec.index, provider=rec.fields["provider_id"],
                                           record_size=8 * rec.size_words))


# -- the one place each semantic diagnostic is built (both engines call these) -----------
def unregistered_string(offset, index, size, span, where, ref, field, provider):
    return R.string_ref_unregistered.at(offset, index, record_size=size, span=span, where=where, ref=ref,
                                        field=field, provider=provider)


def unregistered_thread(offset, index, size, span, where, ref, field, provider):
    return R.thread_ref_unregistered.at(offset, index, record_size=size, span=span, where=where, ref=ref,
                                        field=field, provider=provider)


def timestamp_overflow(offset, index, size, field, ticks, rate):
    return R.timestamp_overflows_ns.at(offset, index, record_size=size, field=field, ticks=ticks, rate=rate)


class RecordChecker:
    """The per-record semantic checks; ``check(rec, change)`` for each record in file order."""

    def __init__(self, state: LintState):
        self.s = state

    def span(self, base: int, fields: dict, name: str):
        f = fields.get(name)
        return field_span(base, f, self.s.big) if f is not None and base >= 0 else None

    def string_gid(self, rec: Record, strings: dict, fields: dict, name: str, where: str, span=None):
        """The interned id of a string ref, reporting an unregistered index."""
        ref = fields.get(name, 0)
        if ref == 0:
            return 0
        if ref & _INLINE_BIT:
            v = strings.get(name, "")
            return self.s.tables.strings(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))
        current = self.s.tables.current
        gid = current.strings.get(ref)
        if gid is None:
            self.s.emit(unregistered_string(rec.offset, rec.index, 8 * rec.size_words, span, where, ref, name,
                                            current.id))
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
        f = rec.fields
        size = 8 * rec.size_words
        gids = {}
        for name in STRING_REFS.get(k, ()):
            gids[name] = self.string_gid(rec, rec.strings, f, name, k,
                                         self.span(rec.offset, HEADER_FIELDS.get(k, {}), name))
        for i, a in enumerate(rec.args):
            for name in ARG_STRING_REFS.get(a.kind, ()):
                self.string_gid(rec, a.strings, a.fields, name, f"{k} argument {i}",
                                self.span(a.offset, ARG_HEADER_FIELDS.get(a.kind, {}), name))
        koids = None
        for name in THREAD_REFS.get(k, ()):
            kk = self.thread_koids(rec, name)
            if koids is None:
                koids = kk
        p = s.tables.current
        for name in TIMESTAMPS.get(k, ()):
            ts = f.get(name, 0)
            if ts > p.max_ticks:
                s.emit(timestamp_overflow(rec.offset, rec.index, size, name, ts, p.rate))
        stamps = TIMESTAMPS.get(k, ())
        if k in NUMERIC_ARG_KINDS:
            for i, a in enumerate(rec.args):
                if a.kind not in NUMERIC_ARGS:
                    s.emit(R.counter_argument_not_numeric.at(rec.offset, rec.index, record_size=size, i=i,
                                                             arg=argument_label(a, i),
                                                             kind=a.kind))
        elif len(stamps) == 2 and f[stamps[1]] < f[stamps[0]]:  # an end before its start
            s.emit(R.complete_ends_before_start.at(rec.offset, rec.index, record_size=size,
                                                   end=f[stamps[1]], start=f[stamps[0]]))
        elif k == LEGACY_SWITCH and f.get("outgoing_state") == RUNNING:
            s.emit(R.context_switch_outgoing_running.at(rec.offset, rec.index, record_size=size))
        pk = PAIR_KIND.get(k)
        if pk is None or koids is None or gids.get("category") is None or gids.get("name") is None:
            return
        word = f.get(PAIR_ID[k], 0)  # a complete event's word is its end, the others' an id
        ident, end = (0, word) if pk == P.COMPLETE else (word, 0)
        s.batch.add(pk, s.tables.threads(koids), koids[0], gids["category"], gids["name"], f["timestamp"], ident, end,
                    rec.offset, rec.index, size)
