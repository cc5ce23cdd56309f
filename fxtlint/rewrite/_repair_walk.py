"""Repair on the native walk: the records it proves clean copied as byte ranges, the
others taken by the record-by-record pass (``_repair._Repairer.step``, the specification).

The native walk (``engine/_nwalk.pyx``, the lint's, in its strict mode: a record whose
layout the screen flags is handed back whole, ``layout = False``) runs over IN with its
tables mirrored into OUT's ``ProviderState``: a record it walks has no finding repair acts
on in its layout, and its effect on the tables is carried out, as writing it as it is
would carry it out. What it says about a record it walked is a diagnostics row, and
only four kinds of row change what repair writes; each becomes what ``step`` does:

- an unregistered string or thread ref (RF001, RF002): the placeholder registration is
  written before the record (once per ref: the walk's tables never hold a placeholder,
  so every record reading one has a row; a real registration of the ref ends the rows),
  and a record reading a thread placeholder after a dropped stretch is counted as a loss;
- a tick rate of 0 (TM001): the record is dropped;
- a repeated magic record (MG003): noted, kept.

Every other row (a timestamp past the limit, a registration that changes a value...)
leaves the record as it is. The walk stops before anything it cannot walk (a record
the screen flags, one it leaves to the reference, a header of size 0, a record past the
end): ``step`` takes that record, writes what it writes, and its changes to OUT's tables
go back to the walk's (``_walk_native.sync_change``; a thread placeholder stays out of them). A walk of
65,536 records writes its stretch: the clean records as byte ranges, each row's record
where it stands; the placeholders it wrote are then carried out on OUT's tables where no
real registration followed them in the stretch.

The walk runs the lint's plan without its pairing rows
(``_walk_native._loaded(module, pairing=False)``): repair pairs nothing.
Memory: the walk's tables and one stretch's diagnostics rows.
"""

from __future__ import annotations

from typing import Any

from ..engine._file import FileChanged
from ..engine._provider_state import Change
from ..engine._walk_native import (
    DONE,
    END,
    F_MAGIC,
    F_RATE_ZERO,
    F_STRING,
    F_THREAD,
    PAST_END,
    Mirror,
    _loaded,
    _names,
    sync_change,
)
from ..spec._roles import ARG_STRING_REFS, STRING_REFS, THREAD_REFS
from ._input import at_least
from ._repair_out import send

WINDOW = 1 << 16  # records per run of the walk
COPY = 1 << 22  # bytes written at a time


class _OutMirror(Mirror):
    """The walk's registrations carried out on OUT's tables; a real thread registration
    ends a placeholder there (``_Writer.placeholders``)."""

    def __init__(self, out):
        super().__init__(out.state)
        self.out = out

    def registers_thread(self, idx: int, pk: int, tk: int) -> None:
        super().registers_thread(idx, pk, tk)
        self.out.placeholders.discard((self.state.current.id, idx))


class _Stretch:
    """OUT as far as it is written: IN's records up to ``off`` (index ``idx``) are in it.
    ``send``: OUT's file, where IN is a regular file (``Input.source``): the records are
    sent from IN's file to it (``_repair_out.send``: by ``O_DIRECT``, or by the kernel), else None."""

    def __init__(self, r, out_file=None):
        self.r = r
        self.off = self.idx = 0
        source = getattr(r.inp, "source", None)
        self.src = source.fh.fileno() if source is not None and out_file is not None else None
        self.path = getattr(r.inp, "path", "")
        self.out_file = out_file

    def copy_to(self, off: int, idx: int) -> None:
        """IN's records from here up to ``off`` (index ``idx``), written as they are."""
        inp, out = self.r.inp, self.r.out
        n = idx - self.idx
        at = self.off
        if self.src is not None and at < off:
            if send(self.out_file, self.src, at, off - at) != off - at:
                raise FileChanged.saying(self.path, "it ended before bytes the repair had read")
            out.sent(off - at, n)
            at = off
        while at < off:
            end = min(at + COPY, off)
            out.copy(bytes(inp.buf[at:end]), n)
            n = 0
            at = end
        self.off, self.idx = off, idx
        inp.release(off)

    def skip_to(self, off: int, idx: int) -> None:
        self.off, self.idx = off, idx


def walk_repair(r, module, out_file=None, resume=None, rest=None) -> None:
    """Repair ``r`` (a ``_repair._Repairer`` whose IN the walk can read: ``walkable``)
    on the native walk ``module`` (``out_file``: OUT's file, for the copies of IN's ranges),
    from ``resume`` (``_resume.Resume``: IN's records before it written as they are, its
    tables OUT's there) or from IN's start. ``rest(r, at)``: asked once, at the end of the
    first run after the first record ``step`` took (a resume's dropped stretch, its
    placeholders written) that walked its window or what is read of IN, with IN written up
    to ``at``: True when it wrote the rest of IN
    and said what repair would (``_continue.Paused.take_rest``: OUT's lint over IN's rest
    proves it is written as it is), and the walk stops there; False: the walk goes on."""
    inp, out, log = r.inp, r.out, r.log
    if resume is not None:
        out.state = resume.state
    nw = module.NativeWalk(_loaded(module, pairing=False), _OutMirror(out), r.big)
    nw.layout = False  # a record the screen flags is the reference's, whole
    nw.magic_at = 0
    kinds, arg_kinds = _names()
    placed: set = set()  # (what, provider id, ref) of every placeholder written

    def on_change(change: Change, placeholder: bool) -> None:
        """A change ``step`` made to OUT's tables, on the walk's (a thread placeholder
        stays out of them: a record reading it is a row, a loss to count, not a new one)."""
        if placeholder:
            placed.add(("string" if change.effect == "registers_string" else "thread", change.provider.id,
                        change.key))
            if change.effect == "registers_thread":
                return
        sync_change(nw, out.state, change)

    out.on_change = on_change
    written = _Stretch(r, out_file)
    off = idx = 0
    stepped = False  # (``rest``: a record ``step`` took, since the start)
    if resume is not None:
        _load(nw, out.state)
        off, idx = resume.offset, resume.index
        log.records_in += idx
        inp.skip_to(off)
    try:
        while not r.stopped:
            view = memoryview(inp.buf)[: len(inp.buf)]
            try:
                status = nw.run(view, off // 8, idx, idx + WINDOW)
            finally:
                view.release()
            cur, nidx, size = 8 * nw.cur, nw.index, nw.size
            nw.take_counts()
            log.records_in += nidx - idx
            pending = _rows(r, nw.take_findings(), written, kinds, arg_kinds, placed)
            written.copy_to(cur, nidx)
            _carry_out(r, nw, pending)
            off, idx = cur, nidx
            if rest is not None and stepped and not r.stopped and (status == DONE or (status == END and not inp.done)):
                asked, rest = rest, None
                if asked(r, cur):
                    break  # (the rest of IN written as it is, and linted as OUT's)
            if status == DONE:
                continue
            if status == END:
                if at_least(inp, cur + 8):
                    continue  # more of IN has come: the walk goes on
                break  # the end of IN
            if status == PAST_END and not inp.done:
                at_least(inp, cur + 8 * size)  # the rest of the record, or IN's end: walked again
                continue
            # HANDBACK, ZERO, a record past IN's end: the record-by-record pass takes it
            off = r.step(cur, nidx)
            stepped = True
            idx = nidx + 1
            written.skip_to(off, idx)
    finally:
        out.on_change = None


def _load(nw, state) -> None:
    """``state``'s tables (a lint's, taken over) on the fresh walk ``nw``: each provider's
    name, tick rate, strings and threads, then its current provider."""
    for pid, p in state.providers.items():
        if pid in state.announced:
            nw.announce(pid)
        nw.set_current(pid)
        nw.set_rate(p.rate, p.max_ticks)
        for index, gid in p.strings.items():
            nw.set_string(index, gid)
        for index, (pk, tk) in p.threads.items():
            nw.set_thread(index, pk, tk)
    nw.set_current(state.current.id)


def _rows(r, found: list, written: _Stretch, kinds, arg_kinds, placed: set) -> list:
    """The diagnostics rows of one run, in file order: what each changes in OUT written
    (the records before each row's record copied first). Returns the placeholders written
    ((what, provider id, ref) each), to carry out on OUT's tables at the run's end."""
    pending: list = []
    i, n = 0, len(found)
    while i < n:
        index, offset, size = found[i][5], found[i][6], found[i][7]
        j = i
        while j < n and found[j][5] == index:
            j += 1
        hits: set = set()
        drop = False
        for row in found[i:j]:
            rule, term, field, arg, arg_type, _, _, _, _, value, _, provider = row[:12]
            if rule in (F_STRING, F_THREAD):
                what = "string" if rule == F_STRING else "thread"
                key = (what, provider, value)
                if key not in placed:
                    written.copy_to(offset, index)
                    r.placeholder(what, value, _ref_name(rule, term, field, arg, arg_type, kinds, arg_kinds), offset)
                    placed.add(key)
                    pending.append(key)
                if what == "thread":
                    hits.add((provider, value))
            elif rule == F_RATE_ZERO:
                drop = True
            elif rule == F_MAGIC:
                r.another_archive(offset)
        if drop:
            written.copy_to(offset, index)
            r.rate_zero(offset, index)
            written.skip_to(offset + size, index + 1)
        else:
            r.losses.read(hits)
        i = j
    return pending


def _ref_name(rule: int, term: int, field: int, arg: int, arg_type: int, kinds, arg_kinds) -> str:
    """The field name of a row's unregistered ref (as ``_register_refs`` names it)."""
    kind = kinds[term]
    if rule == F_THREAD:
        return THREAD_REFS[kind][field]
    if arg < 0:
        return STRING_REFS[kind][field]
    return ARG_STRING_REFS[arg_kinds[arg_type]][field]


def _carry_out(r, nw, pending: list) -> None:
    """The placeholders a run wrote, on OUT's tables where no real registration of the
    ref followed in the run (a string's on the walk's too; a thread's stays out of them,
    so a record reading it is a row: a loss to count)."""
    if not pending:
        return
    state = r.out.state
    current = state.current
    for what, pid, ref in pending:
        p = state.provider(pid)
        if ref in (p.strings if what == "string" else p.threads):
            continue  # registered for real after the placeholder
        state.current = p
        rec: Any = r.placeholder_record(what, ref)
        change = state.apply(rec)
        if what == "string":
            nw.set_current(pid)
            nw.set_string(ref, change.new)
        else:
            r.out.placeholders.add((pid, ref))
    state.current = current
    nw.set_current(current.id)
