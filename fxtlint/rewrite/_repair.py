"""Repair: the most of a trace that can be made conforming, and what was done to it.

One pass over the input with the recovering reader (``engine/_reader``), record by
record, writing as it goes (memory is the provider tables and what is still open):

- a record the reader reads with nothing to mend is written byte for byte;
- a record whose only findings can be mended without guessing is re-encoded from
  what was read (``spec/_encoder``): reserved bits and padding cleared (RB001-RB003,
  ST002), the size its content gives (FR004 that swallowed the next record, ST001
  settled by its content), an argument's extra words dropped (ST005), a counted C
  terminator dropped (ST008); the result is read again and kept only when it reads clean;
- anything else with an error is dropped: a record the reader could not read, one
  whose arguments overran it, a header that cannot be framed (FR001, FR002: the walk
  resumes at the next offset where well-formed records frame one after the other), the
  bytes after the last whole word (FR003), a tick rate of 0 (TM001);
- the magic record is put first (MG001) and a misplaced one taken out of its place;
- a string or thread ref that names nothing registered gets a registration written
  just before its record (RF001, RF002), a placeholder that says it was missing;
- with ``close_open``, durations and async operations still open at the end get their
  end, marked by an argument, in their own provider's section at the trace's last
  instant: the first tick of that provider's rate at or after the latest timestamp of
  any provider, each read through its own provider's rate (``spec/_time``).

Every change is a ``Change`` in the linter's terms: the rule code, the offset in the
input, what was done. The output of a trace with nothing to mend is the input.

That pass (``_Repairer.step``, record by record) is the specification. Where the native
walk is built, it reads the trace instead (``_repair_walk``): the records it proves
clean are copied as byte ranges, what its rows say becomes what ``step`` would write,
and every record it cannot walk goes to ``step``; the output and the change log are the
same (``tests/test_repair_walk.py``). A byte-order conversion, ``close_open``,
``spell_out_defaults`` and a trace that does not start with its magic record stay on
the record-by-record pass.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from .. import rules as R
from ..engine._native import default_walk as native_walk
from ..engine._provider_state import Change as Change_
from ..engine._provider_state import ProviderState
from ..engine._reader import (
    MAGIC_BE,
    MAGIC_LE,
    _chain,
    decode_record,
    detect_byte_order,
    first_magic,
    header_kind,
)
from ..rules._diagnostics import Diagnostic, Severity
from ..spec._build import arg, initialization, magic, provider_info, provider_section, string, thread
from ..spec._encoder import encode_record
from ..spec._errors import FxtError
from ..spec._model import Argument, Record
from ..spec._roles import ARG_STRING_REFS, STATE_KINDS, STRING_REFS, THREAD_REFS, TIMESTAMPS, is_undefined
from ..spec._tables import WordItem, tables
from ..spec._time import DEFAULT_RATE, instant_text, seconds
from ..spec._time import before as is_before
from ._input import Whole, at_least, decode, frame
from ._open import MARK_NAME, OpenEvents
from ._repair_walk import walk_repair
from ._resume import MENDED, Resume

_T = tables()
_INLINE_BIT = _T.string_inline_bit
_UNPACK = {False: struct.Struct("<Q").unpack_from, True: struct.Struct(">Q").unpack_from}
_PROVIDER_EVENT = "metadata.provider_event"
_MAGIC = "metadata.trace_info.magic"
_ANOTHER_ARCHIVE = ("kept: a second archive starts here (concatenated archives: a reader may refuse the second's "
                    "provider records as repeated); `fxtlint slice IN -o OUT --split-archives` writes each archive "
                    "to its own file")


def _zero_fields(layout) -> frozenset:
    """The names of a layout's fields that must be zero (reserved, always-zero bits)."""
    names = {f.name for f in layout.full_fields if f.must_be_zero}
    for it in layout.full_body:
        if isinstance(it, WordItem):
            names |= {f.name for f in it.fields if f.must_be_zero}
    return frozenset(names)


_ZERO = {leaf.name: _zero_fields(leaf) for leaf in _T.record_leaves()}
_ARG_ZERO = {a.name: _zero_fields(a) for a in _T.arguments.values()}


@dataclass(frozen=True)
class Change:
    """One thing repair did: the finding's rule ``code``, the ``offset`` in the input it
    is about, the ``action`` (mended, dropped, added, moved, converted, closed), what was
    done (``detail``) and the linter's message for the input (empty for added records)."""

    code: str
    offset: int
    action: str
    detail: str
    message: str = ""

    @property
    def rule(self) -> str:
        """The rule's name ("" for what no rule asks for: ``spell_out_defaults``)."""
        rule = R.REGISTRY.get(self.code)
        return rule.name if rule is not None else ""

    def to_json(self) -> dict:
        return {"code": self.code, "rule": self.rule, "offset": self.offset, "action": self.action,
                "detail": self.detail, "message": self.message}


@dataclass
class RepairLog:
    """What a repair did: its changes in input order, records read and written."""

    changes: list[Change] = field(default_factory=list)
    notes: list[Change] = field(default_factory=list)  # what a reader of OUT would misread (action "noted")
    records_in: int = 0
    records_out: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    byte_order: str = "little"

    def add(self, code: str, offset: int, action: str, detail: str, message: str = "") -> None:
        self.changes.append(Change(code, offset, action, detail, message))

    def note(self, code: str, offset: int, detail: str) -> None:
        """Something OUT holds that a reader would misread, or a choice the user has: not a change."""
        self.notes.append(Change(code, offset, "noted", detail))


@dataclass(frozen=True)
class Tally:
    """One rule's findings in IN as the lint counts them (``found``: the lint's own count on
    the same bytes), beside what repair did under that rule's code (``done``: action ->
    changes; ``noted``: notes); ``past``: of those changes and notes, the ones past where
    the lint stopped framing (action -> count; "noted" for notes), which the lint never read."""

    code: str
    found: int
    done: dict
    noted: int = 0
    past: dict = field(default_factory=dict)

    @property
    def rule(self) -> str:
        rule = R.REGISTRY.get(self.code)
        return rule.name if rule is not None else ""

    def to_json(self) -> dict:
        return {"code": self.code, "rule": self.rule, "found": self.found, "done": self.done, "noted": self.noted,
                "past_lint_stop": self.past}


def tally(log: RepairLog, counts: dict[str, int], stop: int | None = None) -> list[Tally]:
    """Per rule code, the lint's count of IN's findings (``counts``: a lint of IN, the same
    bytes repair read) beside the changes and notes repair logged under it, in code order.
    The counts are the lint's by construction; what repair did may differ from them (the
    README's "Repairing a trace": the lint stops framing at a size it cannot trust, FR001
    and FR002, where repair resumes at the next records that frame and reads on; a
    warning is reported, not mended). ``stop``: where the lint stopped framing (None: it
    read IN to its end); the changes and notes after it are counted apart (``Tally.past``)."""
    done: dict = {}
    noted: dict = {}
    past: dict = {}

    def beyond(c: Change, action: str) -> None:
        if stop is not None and c.offset > stop:
            by = past.setdefault(c.code, {})
            by[action] = by.get(action, 0) + 1

    for c in log.changes:
        if c.code:
            by = done.setdefault(c.code, {})
            by[c.action] = by.get(c.action, 0) + 1
            beyond(c, c.action)
    for c in log.notes:
        if c.code:
            noted[c.code] = noted.get(c.code, 0) + 1
            beyond(c, "noted")
    codes = sorted(set(counts) | set(done) | set(noted))
    return [Tally(code, counts.get(code, 0), done.get(code, {}), noted.get(code, 0), past.get(code, {}))
            for code in codes]


class _Writer:
    """The output: bytes written and the provider tables as a reader of them sees them.
    ``placeholders``: the (provider id, thread ref) registered as koids 0/0 whose
    placeholder a reader of OUT still reads (a real registration of the ref takes it out);
    ``on_change(change, placeholder)`` is told of each change a written record made."""

    def __init__(self, write: Callable[[bytes], object], log: RepairLog, big: bool):
        self._write = write
        self.log = log
        self.big = big
        self.order = "big" if big else "little"
        self.state = ProviderState()
        self.initialized: set = set()  # providers given a tick rate by an Initialization record
        self.placeholders: set = set()
        self.on_change: Callable[[Change_, bool], None] | None = None

    def put(self, data: bytes, rec: Record, *, placeholder: bool = False) -> None:
        self._write(data)
        self.log.bytes_out += len(data)
        self.log.records_out += 1
        change = self.state.apply(rec)
        if change is None:
            return
        if change.effect == "sets_tick_rate":
            self.initialized.add(change.provider.id)
        elif change.effect == "registers_thread" and not placeholder:
            self.placeholders.discard((change.provider.id, change.key))
        if self.on_change is not None:
            self.on_change(change, placeholder)

    def put_record(self, rec: Record, *, placeholder: bool = False) -> None:
        self.put(encode_record(rec, self.order), rec, placeholder=placeholder)

    def sent(self, size: int, records: int) -> None:
        """``records`` whole records of IN, ``size`` bytes, written to OUT's file by the
        kernel or by ``O_DIRECT`` (``_repair_walk``; their effect is already on ``state``)."""
        self.log.bytes_out += size
        self.log.records_out += records

    def copy(self, data, records: int) -> None:
        """``records`` whole records of IN, written as they are (their effect is already on
        ``state``: the native walk carried it out)."""
        self._write(data)
        self.log.bytes_out += len(data)
        self.log.records_out += records


def _strip_nul(value):
    """A text without its counted C terminator (binary payloads are bytes: left alone)."""
    return value.rstrip("\0") if isinstance(value, str) else value


def _mend_argument(a: Argument) -> Argument:
    if a.kind == "unknown":
        return a
    zero = _ARG_ZERO.get(a.kind, frozenset())
    return dataclasses.replace(a, fields={k: 0 if k in zero else v for k, v in a.fields.items()},
                               strings={k: _strip_nul(v) for k, v in a.strings.items()}, extra_words=())


def _mend(rec: Record) -> Record:
    """``rec`` with what can be mended mended (the encoder computes sizes and padding)."""
    if is_undefined(rec.kind):
        return rec
    zero = _ZERO.get(rec.kind, frozenset())
    return dataclasses.replace(
        rec, fields={k: 0 if k in zero else v for k, v in rec.fields.items()},
        strings={k: _strip_nul(v) for k, v in rec.strings.items()},
        args=tuple(_mend_argument(a) for a in rec.args))


def _reads_clean(data: bytes, idx: int, big: bool) -> Record | None:
    """The record ``data`` holds, when it reads with nothing repair would act on."""
    found: list[Diagnostic] = []
    rec = decode_record(data, 0, idx, len(data) // 8, found.append, big=big)
    if not rec.complete or rec.end != len(data):
        return None
    if any(d.severity == Severity.ERROR or d.code in MENDED for d in found if d.code != "FR004"):
        return None
    return rec


def _fatal(found: list[Diagnostic]) -> Diagnostic | None:
    """The first finding that no re-encoding mends."""
    for d in found:
        if d.severity == Severity.ERROR and d.code not in MENDED:
            return d
        if d.code == "ST005" and not d.details.get("exact", True):
            return d  # an argument whose content overran its size: it cannot be read
    return None


def _resume(inp: Whole, at: int, big: bool) -> int:
    """The next offset from ``at`` where at least two well-formed records frame one after
    the other (or one ends the file): where the recovering reader finds records again."""
    unpack = _UNPACK[big]

    def found(b) -> bool:
        return header_kind(unpack(b, at)[0], b, at, big) is not None and _chain(b, at, big)[1] >= 2

    while at_least(inp, at + 8):
        if inp.call(found):
            return at
        at += 8
        inp.release(at)
    return inp.size - inp.size % 8


class _Open(OpenEvents):
    """What is open at the end, for --close-open, and the trace's last instant: the latest
    of its timestamps, each read through its provider's tick rate at that record."""

    def __init__(self):
        super().__init__()
        self.last: tuple[int, int] | None = None  # (ticks, rate) of the last instant

    def see(self, rec: Record, state: ProviderState, tag=None) -> None:
        rate = state.current.rate
        for name in TIMESTAMPS.get(rec.kind, ()):
            ts = rec.fields.get(name)
            if ts is not None and (self.last is None or is_before(*self.last, ts, rate)):
                self.last = (ts, rate)
        super().see(rec, state, tag)

    def close(self, out: _Writer, log: RepairLog, mark: str, before=None) -> None:
        """Write the ends, each in its own provider's section at the first tick of that
        provider's rate at or after the trace's last instant; ``before(record)`` first for
        each (what it needs written)."""
        last = self.last if self.last is not None else (0, DEFAULT_RATE)
        when = seconds(*last)
        def rate_of(pid) -> int:  # the reader's first provider (None) cannot be switched back to:
            # its ends go where they fall, at the rate of the provider in force there
            return out.state.provider(out.state.current.id if pid is None else pid).rate

        for pid, end, offset in self.ends(when, rate_of, arg("string", MARK_NAME, mark), flows=False):
            if pid is not None and pid != out.state.current.id:
                out.put_record(provider_section(pid))  # its own provider's section
            if before is not None:
                before(end)
            out.put_record(end)
            what = end.kind.removeprefix("event.").removesuffix("_end")
            name = end.strings.get("name", "")
            ts, rate = end.fields["timestamp"], out.state.current.rate
            at = f"at the trace's last instant, {instant_text(*last)}" if (ts, rate) == last else \
                f"at {instant_text(ts, rate)}, the first tick of its provider at or after the trace's last " \
                f"instant, {instant_text(*last)}"
            if what == "duration":
                log.add("PR004", offset, "closed", f'duration "{name}" ended {at}')
            else:
                log.add("PR004", offset, "closed", f'async operation "{name}" (id {self.pairing_id(end)}) ended {at}')


def placeholder_record(what: str, ref: int) -> Record:
    """The registration repair writes for a ``what`` ("string", "thread") ref that names nothing."""
    return string(ref, f"<missing string {ref}>") if what == "string" else thread(ref, 0, 0)


def placeholder_said(log: RepairLog, what: str, ref: int, name: str, offset: int) -> None:
    """The change a placeholder is (RF001, RF002), for the record at ``offset`` reading ``ref`` as ``name``."""
    if what == "string":
        log.add("RF001", offset, "added", f'string {ref} (its {name}) registered as "<missing string {ref}>"')
    else:
        log.add("RF002", offset, "added", f"thread {ref} (its {name}) registered as koids 0/0 (missing)")


def _register_refs(rec: Record, out: _Writer, log: RepairLog, offset: int) -> None:
    """A registration, written before ``rec``, for each of its refs that names nothing;
    the thread refs given a placeholder go to ``out.placeholders``."""
    if rec.kind in STATE_KINDS or rec.kind == _PROVIDER_EVENT or not rec.complete:
        return
    current = out.state.current
    refs = [(n, rec.fields.get(n, 0)) for n in STRING_REFS.get(rec.kind, ())]
    for a in rec.args:
        refs += [(n, a.fields.get(n, 0)) for n in ARG_STRING_REFS.get(a.kind, ())]
    for name, ref in refs:
        if ref and not ref & _INLINE_BIT and ref not in current.strings:
            out.put_record(placeholder_record("string", ref), placeholder=True)
            placeholder_said(log, "string", ref, name, offset)
    for name in THREAD_REFS.get(rec.kind, ()):
        ref = rec.fields.get(name, 0)
        if ref and ref not in current.threads:
            out.put_record(placeholder_record("thread", ref), placeholder=True)
            placeholder_said(log, "thread", ref, name, offset)
            out.placeholders.add((current.id, ref))


class _Losses:
    """What a reader of OUT would misread after a stretch repair dropped: when the records
    after it read thread refs their provider never registered, the stretch likely held a
    Provider Section record (or the registrations), and those records are read as the
    provider in force before it. Per drop: the threads given a placeholder after it and
    the records reading such a placeholder (until a real registration of the ref), said
    once at the end (``noted``)."""

    def __init__(self):
        self.drops: list[tuple[int, str]] = []  # (offset, code) of each stretch dropped
        self.threads: dict[int, set] = {}  # drop offset -> thread refs given a placeholder after it
        self.records: dict[int, int] = {}  # drop offset -> records reading such a thread

    def dropped(self, offset: int, code: str) -> None:
        self.drops.append((offset, code))

    def see(self, rec: Record, placeholders: set, state: ProviderState) -> None:
        if self.drops:
            self.read({(state.current.id, rec.fields.get(n, 0)) for n in THREAD_REFS.get(rec.kind, ())} & placeholders)

    def read_many(self, hit: set, records: int) -> None:
        """``records`` records read the placeholder threads ``hit`` (a stretch's, counted by
        OUT's lint: ``_continue.Paused.take_rest``)."""
        if records and self.drops:
            at = self.drops[-1][0]
            self.threads.setdefault(at, set()).update(hit)
            self.records[at] = self.records.get(at, 0) + records

    def read(self, hit: set) -> None:
        """One record read the placeholder threads ``hit`` ((provider id, ref) each)."""
        if hit and self.drops:
            at = self.drops[-1][0]
            self.threads.setdefault(at, set()).update(hit)
            self.records[at] = self.records.get(at, 0) + 1

    def note(self, log: RepairLog, stopped: bool) -> None:
        codes = dict(self.drops)
        for at, threads in self.threads.items():
            names = ", ".join(str(r) for _, r in sorted(threads, key=lambda t: t[1]))
            log.note(codes[at], at,
                     f"after this dropped stretch, {self.records[at]} record(s) read thread(s) {names}, which their "
                    f"provider never registered: the stretch likely held a Provider Section record (or the "
                    f"registrations), so these records may be another provider's, and a reader of OUT takes them "
                    f"as the provider in force before it, on placeholder threads (koids 0/0); "
                    f"`fxtlint repair --stop-at-loss` writes nothing after the first dropped stretch instead")
        if stopped:
            at, code = self.drops[0]
            log.note(code, at, "--stop-at-loss: nothing after this dropped stretch was written")


def _spell_out_defaults(rec: Record, out: _Writer, log: RepairLog, offset: int) -> None:
    """What the spec implies and some readers need written (no rule asks for it: the
    change has no code): a provider before the first record that is not metadata when
    none was named, and for the current provider without one, before its first event,
    the Initialization record of one tick per nanosecond."""
    if rec.kind.startswith("metadata."):
        return
    if not out.state.announced:
        out.put_record(provider_info(0, "<missing provider>"))
        log.add("", offset, "added", 'provider 0 named "<missing provider>" (none was named)')
    if rec.kind not in STATE_KINDS and out.state.current.id not in out.initialized:
        out.put_record(initialization(10**9))
        log.add("", offset, "added", f"the implied tick rate (10^9 per second) written for provider "
                                    f"{out.state.current.id}")


def repair(buf, write: Callable[[bytes], object], *, byte_order: str | None = None,
           close_open: bool = False, spell_out_defaults: bool = False, shortcut: bool = True,
           stop_at_loss: bool = False, out_file: IO[bytes] | None = None, resume: Resume | None = None,
           rest: Callable[[_Repairer, int], bool] | None = None) -> RepairLog:
    """Write the repaired trace of ``buf`` through ``write``; returns what was done.

    ``buf`` is the trace's bytes, or an ``Input`` (``_input``: a file or a pipe read in
    place as far as the pass needs, memory flat). ``byte_order`` ("little", "big")
    writes the output in that order; None keeps the input's. ``spell_out_defaults``
    writes what the spec leaves implied (a provider, the tick rate) before the first
    event, for readers that refuse a trace without them. ``stop_at_loss`` writes nothing
    after the first stretch that had to be dropped (what a reader would read as another
    provider's, or on placeholder threads, is not written). ``shortcut`` (the default)
    lets the native walk read the trace where it is built (``_repair_walk``: the records
    it proves clean are copied as byte ranges, the others go through the record-by-record
    pass below, the specification, which ``shortcut=False`` runs on every record; the two
    write the same bytes and say the same changes). ``out_file``: the file ``write``
    writes to, where IN is a regular file's ``Input`` (``Input.source``): the records the
    walk copies as they are go from IN's file to it (``_repair_out.send``: by ``O_DIRECT``), not
    through ``write`` (the same bytes; slice's pieces are written so). ``resume``: where
    the lint of these same bytes lets the walk start (``_resume.resume_at``: IN's bytes
    before it are written as they are, its tables those there), taken where the walk
    reads this repair (else ignored); the same bytes and changes. ``rest(repairer, at)``:
    where the walk reads this repair, asked once whether it writes IN's rest from ``at`` on
    (``_repair_walk.walk_repair``; ``_continue.Paused.take_rest``). Never raises on
    any input (an ``Input`` raises ``FileChanged`` when its file changed while read, or
    ended before bytes the walk read were copied).
    """
    inp = buf if isinstance(buf, Whole) else Whole(buf)
    r = _Repairer(inp, write, byte_order=byte_order, close_open=close_open, spell_out_defaults=spell_out_defaults,
                  stop_at_loss=stop_at_loss)
    module = native_walk() if shortcut else None
    if module is not None and r.walkable:
        walk_repair(r, module, out_file, resume, rest)
    else:
        r.one_by_one()
    return r.finish()


class _Repairer:
    """One repair: IN, OUT, the change log; ``step`` takes the record at an offset the
    record-by-record way (the specification), ``one_by_one`` every record."""

    def __init__(self, inp: Whole, write: Callable[[bytes], object], *, byte_order: str | None, close_open: bool,
                 spell_out_defaults: bool, stop_at_loss: bool):
        self.inp = inp
        found_order = inp.call(detect_byte_order)
        self.big = big = found_order == "big"
        out_big = big if byte_order is None else byte_order == "big"
        self.log = log = RepairLog(byte_order="big" if out_big else "little")
        self.out = out = _Writer(write, log, out_big)
        self.convert = out_big != big
        self.spell_out_defaults = spell_out_defaults
        self.stop_at_loss = stop_at_loss
        if self.convert:
            log.add("EX002", 0, "converted", f"every record written {log.byte_order}-endian")
        self.moved = None
        if found_order is None:
            self.moved = inp.call(lambda b: first_magic(b, False))
            where = f"the one at {self.moved:#x} moved there" if self.moved is not None else "none was found"
            out.put(MAGIC_BE if out_big else MAGIC_LE, magic())
            log.add("MG001", 0, "added", f"a magic record put first ({where})")
        self.opened = _Open() if close_open else None
        self.losses = _Losses()
        self.stopped = False
        # what the native walk can read for this repair: a trace that starts with its magic
        # record, written in its own byte order, with nothing to follow on every record
        self.walkable = found_order is not None and not self.convert and not close_open and not spell_out_defaults

    def one_by_one(self) -> None:
        off = idx = 0
        while not self.stopped and at_least(self.inp, off + 8):
            off = self.step(off, idx)
            idx += 1

    def step(self, off: int, idx: int) -> int:
        """The record at ``off`` (index ``idx``), or the stretch that cannot be framed there;
        the offset to go on from (``stopped`` set when nothing more is to be written)."""
        inp = self.inp
        found: list[Diagnostic] = []
        size = frame(inp, off, idx, self.big, found.append)
        if size is None:
            return self._dropped(off, found)
        rec, found = decode(inp, off, idx, size, self.big)
        self.log.records_in += 1
        inp.release(off)
        if off == self.moved:
            return rec.end  # the magic record, already written first
        if rec.kind == _MAGIC and off and rec.complete and not found:
            self.another_archive(off)
        out, log = self.out, self.log
        kept = _kept(inp.buf, rec, found, off, self.big, self.convert, out, log)
        if kept is None:
            return rec.end
        data, rec = kept
        if self.spell_out_defaults:
            _spell_out_defaults(rec, out, log, off)
        _register_refs(rec, out, log, off)
        self.losses.see(rec, out.placeholders, out.state)
        out.put(data, rec)
        if self.opened is not None:
            self.opened.see(rec, out.state, off)
        return rec.end

    placeholder_record = staticmethod(placeholder_record)

    # -- what the native walk's rows become (``_repair_walk``), said as ``step`` says it --
    def another_archive(self, offset: int) -> None:
        """A magic record at ``offset`` past the start, kept: noted (MG003)."""
        self.log.note("MG003", offset, _ANOTHER_ARCHIVE)

    def rate_zero(self, offset: int, index: int) -> None:
        """The initialization record at ``offset`` (index ``index``), of a tick rate of 0: dropped."""
        _rate_zero_dropped(self.log, offset, index)

    def placeholder(self, what: str, ref: int, name: str, offset: int) -> Record:
        """The placeholder registration of a ``what`` ("string", "thread") ref, written (not
        carried out on ``out.state``: the caller does when it stands there) and said."""
        rec = placeholder_record(what, ref)
        self.out.copy(encode_record(rec, self.out.order), 1)
        placeholder_said(self.log, what, ref, name, offset)
        return rec

    def _dropped(self, off: int, found: list[Diagnostic]) -> int:
        """The bytes from ``off`` up to where records frame again, dropped (``found``: why
        the header at ``off`` cannot be framed)."""
        inp = self.inp
        nxt = _resume(inp, off + 8, self.big)
        last = inp.size - inp.size % 8 if inp.done else None
        d = found[0]
        if d.code == "FR001":  # the bytes that cannot be framed are those dropped, not all the rest
            d = R.record_size_zero.at(d.offset, d.record_index, span=d.span, record_size=d.record_size,
                                      **{**d.details, "remaining": nxt - off})
        self.log.add(d.code, off, "dropped",
                     f"{nxt - off} bytes, up to {'the end' if nxt == last else 'the next record'}", d.message)
        self.losses.dropped(off, d.code)
        if self.stop_at_loss and nxt != last:
            self.stopped = True
        return nxt

    def finish(self) -> RepairLog:
        inp, log, out = self.inp, self.log, self.out
        self.losses.note(log, self.stopped)
        if self.stopped:
            inp.want(None)  # read to the end all the same: IN's length is checked, and said
        n = log.bytes_in = inp.size
        if n % 8 and not self.stopped:
            log.add("FR003", n - n % 8, "dropped", f"the {n % 8} bytes after the last whole word")
        if self.opened is not None:
            before = (lambda rec: _spell_out_defaults(rec, out, log, n)) if self.spell_out_defaults else None
            self.opened.close(out, log, "open at the end of the trace; ended by fxtlint repair --close-open", before)
        return log


def _kept(buf, rec: Record, found: list[Diagnostic], start: int, big: bool, convert: bool, out: _Writer,
          log: RepairLog) -> tuple[bytes, Record] | None:
    """The bytes to write for ``rec`` and the record they hold, or None when it is dropped."""
    fatal = _fatal(found) if rec.complete else next((d for d in found if d.severity == Severity.ERROR),
                                                      next(iter(found), None))
    if not rec.complete or fatal is not None:
        code = fatal.code if fatal is not None else "ST001"
        log.add(code, start, "dropped", f"the {rec.kind} record ({8 * rec.size_words} bytes)",
                fatal.message if fatal is not None else "")
        return None
    if rec.kind in STATE_KINDS and "ticks_per_second" in rec.fields and rec.fields["ticks_per_second"] == 0:
        _rate_zero_dropped(log, start, rec.index)
        return None
    mend = [d for d in found if d.code in MENDED and (d.code != "FR004" or "resumes_at" in d.details)]
    if not mend and not convert:
        return bytes(buf[start:rec.end]), rec
    try:
        data = encode_record(_mend(rec) if mend else rec, out.order)
    except FxtError as e:
        log.add(mend[0].code if mend else "EX002", start, "dropped", f"the {rec.kind} record: {e}")
        return None
    again = _reads_clean(data, rec.index, out.big)
    if again is None:
        code = mend[0].code if mend else "EX002"
        log.add(code, start, "dropped", f"the {rec.kind} record (it does not read clean once mended)",
                mend[0].message if mend else "")
        return None
    for d in mend:
        log.add(d.code, start, "mended", _MENDS[d.code], d.message)
    return data, dataclasses.replace(again, offset=start)


def _rate_zero_dropped(log: RepairLog, start: int, index: int) -> None:
    log.add("TM001", start, "dropped", "the initialization record (a tick rate of 0 converts nothing)",
            R.tick_rate_zero.at(start, index).message)


_MENDS = {
    "RB001": "reserved bits cleared",
    "RB002": "argument reserved bits cleared",
    "RB003": "always-zero bits cleared",
    "ST002": "padding cleared",
    "ST008": "the counted C terminator dropped",
    "ST001": "size set to the record's content",
    "FR004": "size set to the record's content; the record it swallowed is kept",
    "ST005": "argument size set to its content",
}
