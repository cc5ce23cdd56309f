"""What a trace means: tables and refs per provider, time, and pairing (per record).

This is the reference implementation that the vectorised fast path must agree with:
it takes decoded ``Record`` values in file order. Provider state (string table,
thread table, tick rate) switches on Provider Info and Provider Section records.
Pairing is delegated to ``PairingEngine`` in batches of ``Limits.pairing_window`` records.
"""

from __future__ import annotations

from contextlib import contextmanager

from . import rules as R
from ._model import Record
from ._reader import argument_label, field_span
from . import _pairing as P
from ._limits import DEFAULT_LIMITS, Limits
from ._pairing import Batch, PairingEngine
from ._tables import PAIRING_ROLES, TableError, WordItem, WordsItem, tables

_T = tables()
_INLINE_BIT = _T.string_inline_bit
NS_PER_S = 10**9
U64 = 1 << 64
NUMERIC_ARGS = frozenset(_T.numeric_argument_kinds())
LEGACY_SWITCH = "scheduling.legacy_context_switch"  # PR010: its outgoing thread must not stay running
RUNNING = next(v for v, n in _T.enums["thread_state"].items() if n == "running")
BUFFER_FULL = next(v for v, n in _T.enums["provider_event"].items() if n == "buffer_full")


TABLE_KINDS = frozenset(("metadata.provider_info", "metadata.provider_section", "metadata.provider_event",
                         "initialization", "string", "thread"))


def _roles(layout, role):
    names = [f.name for f in layout.full_fields if f.role == role]
    for it in layout.full_body:
        if isinstance(it, WordItem):
            names += [f.name for f in it.fields if f.role == role]
            if it.role == role:
                names.append(it.name)
    return tuple(names)


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


# per record kind: its string-ref, thread-ref and timestamp fields
STRING_REFS = {leaf.name: _roles(leaf, "string_ref") for leaf in _T.record_leaves()}
THREAD_REFS = {leaf.name: _roles(leaf, "thread_ref") for leaf in _T.record_leaves()}
TIMESTAMPS = {leaf.name: _roles(leaf, "timestamp") for leaf in _T.record_leaves()}
ARG_STRING_REFS = {a.name: _roles(a, "string_ref") for a in _T.arguments.values()}
# header fields by name, to mark an unregistered ref in the hex view
HEADER_FIELDS = {leaf.name: {f.name: f for f in leaf.full_fields} for leaf in _T.record_leaves()}
ARG_HEADER_FIELDS = {a.name: {f.name: f for f in a.full_fields} for a in _T.arguments.values()}
# the koid words an inline thread ref stands for, per (kind, thread field)
INLINE_KOIDS = {
    (leaf.name, it.cond): it.names for leaf in _T.record_leaves() for it in leaf.full_body if isinstance(it, WordsItem)
}


def max_ticks(rate: int) -> int:
    """The largest tick count whose nanosecond value fits in 64 bits at ``rate``."""
    # ticks * 1e9 // rate < 2^64  <=>  ticks < ceil(2^64 * rate / 1e9); ticks are 64-bit
    return min(-(-U64 * rate // NS_PER_S) - 1, U64 - 1)


class Interner:
    """Gives each distinct value a small int id; ``values[id]`` gives it back."""

    def __init__(self):
        self.ids: dict = {}
        self.values: list = []

    def __call__(self, value) -> int:
        i = self.ids.get(value)
        if i is None:
            i = self.ids[value] = len(self.values)
            self.values.append(value)
        return i


class Provider:
    __slots__ = ("id", "strings", "threads", "max_ticks", "rate")

    def __init__(self, pid):
        self.id = pid
        self.strings: dict[int, int] = {}  # index -> interned string id
        self.threads: dict[int, tuple[int, int]] = {}  # index -> (process koid, thread koid)
        self.rate = NS_PER_S
        self.max_ticks = U64 - 1  # 1 tick = 1 ns: no timestamp overflows


class SemanticState:
    """Provider tables and the pairing engine, shared by both checking paths."""

    def __init__(self, emit, limits: Limits = DEFAULT_LIMITS):
        self.emit = emit
        self.limits = limits
        self.strings = Interner()
        self.strings("")  # id 0 is the empty string
        self.threads = Interner()
        self.providers: dict = {}
        self.announced: set = set()
        self.current = self.provider(None)
        self.pairing = PairingEngine(emit, self.strings.values, limits)
        self.batch = Batch()
        self.window = 0
        self.buffer_full: list[int] = []
        # position-stamped table changes, kept only while the fast path asks for them
        self.history: "History | None" = None
        self.big = False  # the byte order, for the byte ranges of fields

    def provider(self, pid) -> Provider:
        p = self.providers.get(pid)
        if p is None:
            p = self.providers[pid] = Provider(pid)
        return p

    @contextmanager
    def recording(self):
        """Stamp every table change with its record index while the block runs (the
        fast path's lookups read them); off again however the block ends."""
        hist = self.history = History()
        try:
            yield hist
        finally:
            self.history = None

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

    # -- table records (both paths decode these per record) ----------------------------
    def table_record(self, rec: Record) -> None:
        k = rec.kind
        f = rec.fields
        emit = self.emit
        at = dict(record_size=8 * rec.size_words)
        hist = self.history
        if k == "metadata.provider_info":
            self.announced.add(f["provider_id"])
            self.current = self.provider(f["provider_id"])
            if hist is not None:
                hist.providers.append((rec.index, self.current))
        elif k == "metadata.provider_section":
            pid = f["provider_id"]
            if pid not in self.announced:
                emit(R.provider_section_unannounced.at(rec.offset, rec.index, provider=pid, **at))
            self.current = self.provider(pid)
            if hist is not None:
                hist.providers.append((rec.index, self.current))
        elif k == "metadata.provider_event":
            if f.get("event_id") == BUFFER_FULL:
                self.buffer_full.append(rec.offset)
                emit(R.records_dropped.at(rec.offset, rec.index, provider=f["provider_id"], **at))
        elif k == "initialization":
            rate = f.get("ticks_per_second", 0)
            p = self.current
            old = (p.max_ticks, p.rate)
            if rate == 0:
                emit(R.tick_rate_zero.at(rec.offset, rec.index, **at))
                p.rate, p.max_ticks = 0, U64 - 1  # no conversion is possible: do not guess
            else:
                p.rate, p.max_ticks = rate, max_ticks(rate)
            if hist is not None:
                hist.rates.append((rec.index, p, p.max_ticks, p.rate, old))
        elif k == "string":
            idx = f["index"]
            if idx == 0:
                emit(R.string_index_zero.at(rec.offset, rec.index, **at))
                return
            value = rec.strings.get("value", "")
            if value == "":
                emit(R.string_record_empty.at(rec.offset, rec.index, index=idx, **at))
            gid = self.strings(value)
            old = self.current.strings.get(idx)
            if old is not None and old != gid:
                emit(R.registration_changes_value.at(rec.offset, rec.index, what="string", index=idx,
                                                     old=repr(self.strings.values[old]),
                                                     new=repr(value), **at))
            self.current.strings[idx] = gid
            if hist is not None:
                hist.strings.append((rec.index, self.current, idx, gid, old))
        elif k == "thread":
            idx = f["index"]
            if idx == 0:
                emit(R.thread_index_zero.at(rec.offset, rec.index, **at))
                return
            koids = (f["process_koid"], f["thread_koid"])
            old = self.current.threads.get(idx)
            if old is not None and old != koids:
                emit(R.registration_changes_value.at(rec.offset, rec.index, what="thread", index=idx,
                                                     old=f"{old[0]}/{old[1]}", new=f"{koids[0]}/{koids[1]}",
                                                     **at))
            self.current.threads[idx] = koids
            if hist is not None:
                hist.threads.append((rec.index, self.current, idx, koids, old))


class History:
    """Table changes of one batch of records, stamped with their record index; each
    change also keeps the value it replaced (None: none), so the tables as they stood
    before the batch need no copy."""

    __slots__ = ("providers", "rates", "strings", "threads")

    def __init__(self):
        self.providers: list = []  # (index, Provider) switches
        self.rates: list = []  # (index, Provider, max ticks, rate, (old max ticks, old rate))
        self.strings: list = []  # (index, Provider, string index, interned id, old id)
        self.threads: list = []  # (index, Provider, thread index, (process koid, thread koid), old koids)


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
    """The per-record semantic checks; ``check(rec)`` for each record in file order."""

    def __init__(self, state: SemanticState):
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
            return self.s.strings(v if isinstance(v, str) else bytes(v).decode("utf-8", "replace"))
        gid = self.s.current.strings.get(ref)
        if gid is None:
            self.s.emit(unregistered_string(rec.offset, rec.index, 8 * rec.size_words, span, where, ref, name,
                                            self.s.current.id))
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
        koids = self.s.current.threads.get(ref)
        if koids is None:
            self.s.emit(unregistered_thread(rec.offset, rec.index, 8 * rec.size_words,
                                            self.span(rec.offset, HEADER_FIELDS.get(rec.kind, {}), name), rec.kind,
                                            ref, name, self.s.current.id))
        return koids

    def check(self, rec: Record) -> None:
        s = self.s
        s.flush_to(rec.index)
        k = rec.kind
        if k in TABLE_KINDS:
            # a string or thread record that did not decode registers nothing; the
            # metadata records act on header fields alone
            if rec.complete or k.startswith("metadata."):
                s.table_record(rec)
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
        p = s.current
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
        s.batch.add(pk, s.threads(koids), koids[0], gids["category"], gids["name"], f["timestamp"], ident, end,
                    rec.offset, rec.index, size)
