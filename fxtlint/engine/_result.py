"""What a lint run says about one file: counts are exact, the stored list is capped.

A trace with millions of identical defects must not grow memory with file size,
so each rule keeps at most ``per_rule_cap`` diagnostics while its count stays exact.
An engine that can emit many (the compiled pairing engine at the end of a trace with
65,537 open durations) asks ``skips`` first: a diagnostic the cap would drop is counted
and never built. Once a rule has ``per_rule_cap`` diagnostics, one placed after all of
them can never be kept, whatever arrives later, so an engine reporting in file order
builds no more than the cap of any rule.

Diagnostics are kept as rows until something reads them: a row is the ``Diagnostic``
``add`` was given, or (offset, record index, base, span), its base a rule and its
parameters (``add_at``: the compiled pairing engine's findings, built by ``Rule.at`` when
read) or the fields of a diagnostic its engine noted for another copy of the record
(``add_moved``: the row's position and span are the copy's), or a block of such copies'
places as the native walk hands them over (``add_moved_block``: kept as the block, standing
in its rule's list once per row, ``_Held``, until read), or an engine's block of findings
(``add_found``: its rows' rules and parameters as integers, ``_Found``, built by the rule when
read). The counts, severities, exit status
and the cap work on rows; a ``FileReport`` builds its ``diagnostics`` (and their sentences)
when they are first read (a fuzz harness or a CI gate that reads the counts builds none).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from operator import itemgetter

from ..rules._diagnostics import _LABELS, Diagnostic, Severity, sort_diagnostics
from ..spec._frozen import BuiltWhenRead, F, Struct

DEFAULT_PER_RULE_CAP = 200
_new = object.__new__
_new_counter = Counter.__new__  # an empty Counter without its Python ``__init__`` (a small lint's cost)


class _Held:
    """The rows of one rule in a block of places (``DiagnosticSink.add_moved_block``), held
    as the block until read: it stands in its rule's list once per row it holds (so the
    list's length is the rows' count, and the cap works on it as on rows), one after the
    other, and is replaced by its diagnostics when they are read (``made``: ``_diagnostics``,
    ``_trimmed``; where its rule reaches its cap, its last place is read, ``last``)."""

    __slots__ = ("noted", "block", "code", "_last")

    def __init__(self, noted, block, code: str):
        self.noted, self.block, self.code = noted, block, code
        self._last: tuple[int, int] | None = None

    def last(self) -> tuple[int, int]:
        """The (offset, record index) of its last row (the block is in file order): what the
        cap's bound reads of it (``_position``), without its rows built."""
        last = self._last
        if last is None:
            places, code, noted = memoryview(self.block).cast("q"), self.code, self.noted
            last = places[-2], places[-1]  # (never kept: a block holds a row of its code)
            for k in range(len(places) - 3, -1, -3):
                if any(rule.code == code for rule, _, _ in noted[places[k]]):
                    last = places[k + 1], places[k + 2]
                    break
            self._last = last
        return last

    def made(self) -> list[Diagnostic]:
        """Its diagnostics, in the block's order: for each place, each diagnostic of ``code``
        noted under its slot, built from the noted fields at the place (``add_moved``'s rows)."""
        out: list[Diagnostic] = []
        add, code, noted = out.append, self.code, self.noted
        mine: dict = {}  # slot -> its noted (span, fields) of ``code``
        places = memoryview(self.block).cast("q")
        for k in range(0, len(places), 3):
            slot = places[k]
            got = mine.get(slot)
            if got is None:
                got = mine[slot] = [(span, fields) for rule, span, fields in noted[slot] if rule.code == code]
            if got:
                offset, index = places[k + 1], places[k + 2]
                for span, fields in got:
                    d = _new(Diagnostic)
                    d.__dict__.update(fields, offset=offset, record_index=index,
                                      span=None if span is None else (offset + span[0], offset + span[1]))
                    add(d)
        return out


class _Found:
    """The findings of one rule in an engine's block of findings (``DiagnosticSink.add_found``:
    the compiled pairing engine's ``Findings``), held as the block until read, as ``_Held``
    holds a block of places: it stands in its rule's list once per finding, and is replaced
    by its diagnostics, built by the rule from the block's parameters, when they are read."""

    __slots__ = ("found", "code", "_last")

    def __init__(self, found, code: str, last: tuple[int, int]):
        self.found, self.code, self._last = found, code, last

    def last(self) -> tuple[int, int]:
        """The greatest (offset, record index) of its findings (the engine worked it out)."""
        return self._last

    def made(self) -> list[Diagnostic]:
        """Its diagnostics, in the order the engine found them."""
        return self.found.made(self.code)


_BLOCKS = (_Held, _Found)  # what stands in a rule's list for a block's rows


def _kept_built(lst: list) -> list[Diagnostic]:
    """A rule's kept rows built (``_made``), each block that stands in them (``_Held``) once."""
    out: list[Diagnostic] = []
    last = None
    for row in lst:
        if type(row) in _BLOCKS:
            if row is not last:
                out.extend(row.made())
                last = row
            continue
        out.append(_made(row))
    return out


def _made(row) -> Diagnostic:
    """The diagnostic of a kept row: the one ``add`` kept, or built from its noted fields at
    its position (``add_moved``), or by its rule from its parameters (``add_at``)."""
    if type(row) is not tuple:
        return row
    base = row[2]
    if type(base) is dict:
        d = _new(Diagnostic)
        d.__dict__.update(base, offset=row[0], record_index=row[1], span=row[3])
        return d
    return base[0].at(row[0], row[1], row[3], base[1], **base[2])


def _position(row) -> tuple[int, int]:
    """A kept row's (offset, record index); a block's last (``_Held``: it stands for rows that
    come no later)."""
    if type(row) is tuple:
        return row[0], row[1]
    return row.last() if type(row) in _BLOCKS else (row.offset, row.record_index)


_AT = itemgetter(0, 1)  # a tuple row's (offset, record index)


def _bound_of(lst: list) -> tuple[int, int]:
    """``max(map(_position, lst))``: a rule's rows' greatest (offset, record index), read at C
    speed where all are tuples, else with each block asked once (it stands in the list once
    per row it holds, one after the other)."""
    if len(set(map(type, lst))) == 1 and type(lst[0]) is tuple:
        return max(map(_AT, lst))
    best: tuple[int, int] = (-1, -1)  # (below every position)
    last = None
    for row in lst:
        if type(row) is tuple:
            at = row[0], row[1]
        elif row is last:
            continue
        elif type(row) in _BLOCKS:
            last = row
            at = row.last()
        else:
            at = row.offset, row.record_index
        if at > best:
            best = at
    return best


def _trimmed(lst: list, cap: int) -> list[Diagnostic]:
    """A rule's first ``cap`` diagnostics by position (``sort_diagnostics``: a stable sort of
    all, so one rule's equal diagnostics keep the order they came in), built from its rows."""
    diags = _kept_built(lst)
    if len(diags) > cap:
        sort_diagnostics(diags)
        del diags[cap:]
    return diags


def _snapshot(kept: dict, cap: int) -> tuple[list[list], int, int]:
    """A sink's rows as they are now (``kept``: code -> rows), for a report to build when read:
    (each rule's rows copied, the cap, how many a report lists: each rule's up to the cap)."""
    lists, listed = [], 0
    for lst in kept.values():
        lists.append(lst[:])
        n = len(lst)
        listed += n if n < cap else cap
    return lists, cap, listed


def _diagnostics(lists: list[list], cap: int) -> list[Diagnostic]:
    """The diagnostics of a sink's rows (``_snapshot``'s): each rule's first ``cap`` by
    position, built, and all sorted."""
    out: list[Diagnostic] = []
    add = out.append
    for lst in lists:
        if len(lst) > cap:
            out.extend(_trimmed(lst, cap))
            continue
        last = None
        for row in lst:  # (``_made``, without a call per row)
            if type(row) is not tuple:
                if type(row) in _BLOCKS:  # (one block, standing in its rule's list once per row)
                    if row is not last:
                        out.extend(row.made())
                        last = row
                    continue
                add(row)
                continue
            offset, index, base, span = row
            if type(base) is dict:
                d = _new(Diagnostic)
                d.__dict__.update(base, offset=offset, record_index=index, span=span)
                add(d)
            else:
                add(base[0].at(offset, index, span, base[1], **base[2]))
    sort_diagnostics(out)
    return out


class DiagnosticSink(Struct):
    """Collects diagnostics; ``severity_overrides`` and ``ignored`` come from the user."""

    per_rule_cap: int
    severity_overrides: dict[str, Severity]
    ignored: frozenset[str]
    counts: Counter
    severity_of: dict  # code -> severity as reported
    _kept: dict  # code -> rows (a diagnostic each: ``_made``), trimmed to the smallest
    # code -> (offset, record index) past which no diagnostic can be kept (``skips``): the
    # last of the first ``per_rule_cap`` kept, then the last kept at each trim
    _bound: dict
    # called with each diagnostic kept (a stream's findings as they are found)
    listener: Callable[[Diagnostic], None] | None
    _spec = (F("per_rule_cap", DEFAULT_PER_RULE_CAP), F("severity_overrides", factory=dict),
             F("ignored", frozenset()), F("counts", factory=Counter), F("severity_of", factory=dict),
             F("_kept", factory=dict), F("_bound", factory=dict), F("listener", None))

    def __init__(self, per_rule_cap: int = DEFAULT_PER_RULE_CAP, severity_overrides: dict[str, Severity] | None = None,
                 ignored: frozenset[str] = frozenset(), counts: Counter | None = None, severity_of: dict | None = None,
                 _kept: dict | None = None, _bound: dict | None = None,
                 listener: Callable[[Diagnostic], None] | None = None):
        if per_rule_cap < 1:
            raise ValueError("per_rule_cap must be at least 1")
        self.per_rule_cap = per_rule_cap
        self.severity_overrides = {} if severity_overrides is None else severity_overrides
        self.ignored = ignored
        self.counts = _new_counter(Counter) if counts is None else counts
        self.severity_of = {} if severity_of is None else severity_of
        self._kept = {} if _kept is None else _kept
        self._bound = {} if _bound is None else _bound
        self.listener = listener

    def add(self, diag: Diagnostic) -> None:
        fields = diag.__dict__  # (read from its fields: one lookup each, no attribute protocol)
        code = fields["code"]
        if code in self.ignored:
            return
        if self.severity_overrides:
            override = self.severity_overrides.get(code)
            if override is not None and override != fields["severity"]:
                # ``dataclasses.replace`` without reading every field (which would build the
                # message now: ``Diagnostic.__getattr__``)
                diag = _new(type(diag))
                diag.__dict__.update(fields, severity=override)
                fields = diag.__dict__
        counts = self.counts
        counts[code] = counts.get(code, 0) + 1
        self.severity_of[code] = fields["severity"]
        if self.listener is not None:
            self.listener(diag)
        lst = self._kept.get(code)
        if lst is None:
            lst = self._kept[code] = []
        lst.append(diag)
        if len(lst) >= self.per_rule_cap:
            self._capping(code, lst)

    def _capping(self, code: str, lst: list) -> None:
        """A rule with ``per_rule_cap`` rows or more: its bound set at the cap, its rows trimmed
        at twice the cap."""
        cap = self.per_rule_cap
        if len(lst) == cap and code not in self._bound:
            # the cap is reached: one after all these can never be kept, whatever comes later
            # (a walk in file order builds the first ``per_rule_cap`` of a rule, no more)
            self._bound[code] = _bound_of(lst)
        elif len(lst) >= 2 * cap:
            # keep the first by position, not by arrival: the fast and the per-record
            # paths emit in different orders but must keep the same diagnostics
            lst[:] = _trimmed(lst, cap)
            self._bound[code] = _position(lst[-1])

    def add_at(self, rule, offset: int, record_index: int, record_size: int | None, params: dict,
               span: tuple[int, int] | None = None) -> None:
        """``add(rule.at(offset, record_index, span=span, record_size=record_size, **params))``,
        the cap asked already (``skips``): kept as a row, the diagnostic built by its rule when
        read (an engine's findings that nothing reads build nothing; their parameters are
        checked then: the engines' tests read them)."""
        code = rule.code
        if self.listener is not None or self.severity_overrides or code in self.ignored:
            self.add(rule.at(offset, record_index, span=span, record_size=record_size, **params))
            return
        counts = self.counts
        counts[code] = counts.get(code, 0) + 1
        self.severity_of[code] = rule.severity
        lst = self._kept.get(code)
        if lst is None:
            lst = self._kept[code] = []
        lst.append((offset, record_index, (rule, record_size, params), span))
        if len(lst) >= self.per_rule_cap:
            self._capping(code, lst)

    def add_found(self, found, rows: dict) -> None:
        """An engine's findings in one call: ``found`` (the compiled pairing engine's
        ``Findings``: each finding's rule, record and parameters as integers) and ``rows``
        (code -> (rule, its findings, their greatest (offset, record index))), none past its
        rule's bound nor of an ignored code (the engine dropped or counted those). Where no
        rule reaches its cap with them, no bound is set and no override or listener wants each,
        each rule's count and severity are updated once and the block is held (``_Found``,
        standing in each rule's list once per finding), built when read; else each finding is
        said as the engine said it one by one (``skips``, then ``add_at``): the same rows,
        bounds and trims."""
        kept, cap = self._kept, self.per_rule_cap
        if (self.listener is None and not self.severity_overrides
                and not any(code in self._bound or len(kept.get(code, ())) + got[1] >= cap
                            for code, got in rows.items())):
            counts, severity_of = self.counts, self.severity_of
            for code, (rule, n, last) in rows.items():
                counts[code] = counts.get(code, 0) + n
                severity_of[code] = rule.severity
                lst = kept.get(code)
                if lst is None:
                    lst = kept[code] = []
                lst += [_Found(found, code, last)] * n
            return
        skips, add_at = self.skips, self.add_at
        for rule, offset, index, size, params in found.each():
            if not skips(rule, offset, index):
                add_at(rule, offset, index, size, params)

    def add_moved(self, noted, offset: int, record_index: int) -> None:
        """The diagnostics ``noted`` ((rule, span from the record's start, the fields of the
        diagnostic said of another copy of the record)) said of the copy at ``offset``, record
        ``record_index``: each asked of the cap (``skips``) and added, kept as rows (no
        ``Diagnostic`` built: its position and span are the row's)."""
        if self.listener is not None or self.severity_overrides:
            for rule, span, fields in noted:  # (each built and added: a listener sees it, an override changes it)
                if self.skips(rule, offset, record_index):
                    continue
                d = _new(Diagnostic)
                d.__dict__.update(fields, offset=offset, record_index=record_index,
                                  span=None if span is None else (offset + span[0], offset + span[1]))
                self.add(d)
            return
        ignored, bounds, counts, severity_of = self.ignored, self._bound, self.counts, self.severity_of
        kept, cap, at = self._kept, self.per_rule_cap, (offset, record_index)
        for rule, span, fields in noted:
            code = rule.code
            if code in ignored:
                continue
            counts[code] = counts.get(code, 0) + 1
            bound = bounds.get(code)
            if bound is not None and at > bound:  # (dropped by the cap: counted, as ``skips`` counts it)
                severity_of[code] = rule.severity
                continue
            severity_of[code] = fields["severity"]
            lst = kept.get(code)
            if lst is None:
                lst = kept[code] = []
            lst.append((offset, record_index, fields, None if span is None else (offset + span[0], offset + span[1])))
            if len(lst) >= cap:
                self._capping(code, lst)

    def add_moved_block(self, noted, block, per_slot: dict) -> None:
        """``add_moved(noted[slot], offset, record_index)`` for each place (slot, offset,
        record index) of ``block`` (native int64 triples, in file order; ``per_slot``: how many
        places each slot has), in one call. Where no rule of the block has reached its cap or
        would reach it with the block (and no override re-grades it), each rule's count and
        severity are updated once and the block is kept as it is, standing in each rule's list
        once per row (``_Held``), its rows built when read. Else it is said in runs of places:
        a run in which each rule either stays under its cap (held so) or has its bound before
        the run (counted as dropped, as ``skips`` counts them), and, between runs, one place
        added as ``add_moved`` adds it (the place where a rule reaches its cap: its bound set
        there, as adding each copy would set it). With a listener (told each diagnostic, in
        file order), each place is added."""
        places = memoryview(block).cast("q")
        if self.listener is not None:
            for k in range(0, len(places), 3):
                self.add_moved(noted[places[k]], places[k + 1], places[k + 2])
            return
        ignored = self.ignored
        rows: dict = {}  # code -> [rows, its rule, the severity noted]
        for slot, n in per_slot.items():
            for rule, _, fields in noted[slot]:
                code = rule.code
                got = rows.get(code)
                if got is not None:
                    got[0] += n
                elif code not in ignored:
                    rows[code] = [n, rule, fields["severity"]]
        if not rows:
            return  # (every code ignored)
        kept, bounds, cap = self._kept, self._bound, self.per_rule_cap
        holds = not self.severity_overrides
        if holds and not any(code in bounds or len(kept.get(code, ())) + got[0] >= cap for code, got in rows.items()):
            self._held(rows, noted, block, {code: got[0] for code, got in rows.items()}, ())
            return
        mult: dict = {}  # slot -> {code: its diagnostics of that code}
        for slot in per_slot:
            m = mult[slot] = {}
            for rule, _, _ in noted[slot]:
                if rule.code not in ignored:
                    m[rule.code] = m.get(rule.code, 0) + 1
        one = mult[next(iter(per_slot))] if len(per_slot) == 1 else None
        left = {code: got[0] for code, got in rows.items()}  # each rule's diagnostics in the places left
        n, k = len(places), 0
        while k < n:
            at = (places[k + 1], places[k + 2])
            dropping = {code for code in rows if code in bounds and at > bounds[code]}
            if len(dropping) == len(rows):  # every bound before the places left: all counted
                self._held(rows, noted, block, left, dropping)
                return
            room = {code: cap - 1 - len(kept.get(code, ())) for code in rows if code not in dropping}
            if one is not None:  # (one slot: the run's length worked out, not walked)
                run = (n - k) // 3
                for code, c in one.items():
                    if code not in dropping:
                        run = min(run, room[code] // c) if holds and code not in bounds else 0
                j = k + 3 * run
                acc = {code: c * run for code, c in one.items()}
            else:
                acc, j = {}, k
                while j < n:
                    m = mult[places[j]]
                    for code, c in m.items():
                        if code not in dropping and (not holds or code in bounds or acc.get(code, 0) + c > room[code]):
                            break
                    else:
                        for code, c in m.items():
                            acc[code] = acc.get(code, 0) + c
                        j += 3
                        continue
                    break
            if j == k:  # (a rule reaches its cap at this place, or one before its bound)
                for code, c in mult[places[k]].items():
                    left[code] -= c
                self.add_moved(noted[places[k]], places[k + 1], places[k + 2])
                k += 3
                continue
            for code, c in acc.items():
                left[code] -= c
            self._held(rows, noted, block[8 * k:8 * j], acc, dropping)
            k = j

    def _held(self, rows: dict, noted, block, acc: dict, dropping) -> None:
        """A run of places (``block``) with ``acc[code]`` diagnostics of each rule: those of the
        rules in ``dropping`` counted as dropped, the others held (``_Held``), none reaching its
        cap (``add_moved_block``)."""
        kept, counts, severity_of = self._kept, self.counts, self.severity_of
        for code, m in acc.items():
            if not m:
                continue
            if code in dropping:
                self.dropped(rows[code][1], m)
                continue
            counts[code] = counts.get(code, 0) + m
            severity_of[code] = rows[code][2]
            lst = kept.get(code)
            if lst is None:
                lst = kept[code] = []
            lst += [_Held(noted, block, code)] * m

    def skips(self, rule, offset: int, record_index: int) -> bool:
        """Whether a diagnostic of ``rule`` at (``offset``, ``record_index``) would be dropped
        by the cap: then it is counted here, exactly as ``add`` counts it, and its caller need
        not build it (a trace with millions of one defect costs a count each, not a message
        each). False whenever it might be kept, or a listener wants every diagnostic."""
        code = rule.code
        if code in self.ignored:
            return True
        if self.listener is not None:
            return False
        bound = self._bound.get(code)
        if bound is None or (offset, record_index) <= bound:
            return False
        self.dropped(rule, 1)
        return True

    def dropped(self, rule, n: int) -> None:
        """Count ``n`` diagnostics of ``rule`` the cap dropped before they were built (``skips``'s
        count: an engine that asked ``bound`` drops them itself)."""
        code = rule.code
        self.counts[code] += n
        self.severity_of[code] = self.severity_overrides.get(code, rule.severity)

    def bound(self, code: str) -> tuple[int, int] | None:
        """The (offset, record index) past which no diagnostic of ``code`` can be kept, now
        and whatever comes later (a bound only moves back), or None: an engine may count
        those past it with ``dropped`` instead of asking ``skips`` of each. None while a
        listener wants every diagnostic."""
        return None if self.listener is not None else self._bound.get(code)

    @property
    def bounded(self) -> bool:
        """Whether any rule has reached the cap (before that, ``skips`` drops nothing)."""
        return bool(self._bound)

    def skips_all(self, rules, offset: int, record_index: int) -> bool:
        """Whether the cap would drop a diagnostic of each of ``rules`` (a sequence, a rule as
        often as it reports) at (``offset``, ``record_index``): then each is counted, as
        ``skips`` counts it, and True; else False and nothing is counted."""
        if self.listener is not None:
            return False
        bounds, ignored, at = self._bound, self.ignored, (offset, record_index)
        for rule in rules:
            code = rule.code
            if code not in ignored and ((bound := bounds.get(code)) is None or at <= bound):
                return False
        for rule in rules:
            self.skips(rule, offset, record_index)
        return True

    @property
    def kept(self) -> list[Diagnostic]:
        """The diagnostics kept, each rule's first ``per_rule_cap`` by position, sorted."""
        return _diagnostics(list(self._kept.values()), self.per_rule_cap) if self._kept else []

    def extend(self, diags) -> None:
        for d in diags:
            self.add(d)


def sink_of(emit) -> DiagnosticSink | None:
    """The sink whose ``add`` is ``emit`` (None for any other callable)."""
    sink = getattr(emit, "__self__", None)
    return sink if isinstance(sink, DiagnosticSink) and emit == sink.add else None


def skipper(emit) -> Callable | None:
    """``skips`` of the sink whose ``add`` is ``emit`` (None for any other callable): how an
    engine that emits many diagnostics asks before it builds one."""
    sink = sink_of(emit)
    return None if sink is None else sink.skips


def _built(fields: dict, rows) -> None:
    """``FileReport.diagnostics`` of a report ``from_sink`` made, from the sink's rows
    (``_snapshot``) at the first read (``BuiltWhenRead``)."""
    fields["diagnostics"] = _diagnostics(rows[0], rows[1])


class FileReport(Struct):
    """What a lint says about one file (``to_json``: the JSON output's object).

    ``from_sink`` makes one whose ``diagnostics`` are the sink's rows until first read
    (``_snapshot``): then built, sorted and kept (equality, ``repr`` and pickling build them
    first)."""

    path: str
    format: str  # "trace" | "log"
    records: int
    size: int
    byte_order: str  # "little" | "big"
    diagnostics: list[Diagnostic] = BuiltWhenRead("diagnostics", "_rows", _built)  # type: ignore[assignment]  # (a list, built when read)
    counts: dict[str, int]
    severity_counts: dict[str, int]
    summary: dict
    _spec = (*(F(n) for n in ("path", "format", "records", "size", "byte_order", "diagnostics", "counts",
                              "severity_counts")), F("summary", factory=dict))

    def __init__(self, path: str, format: str, records: int, size: int, byte_order: str,
                 diagnostics: list[Diagnostic], counts: dict[str, int], severity_counts: dict[str, int],
                 summary: dict | None = None):
        self.path, self.format, self.records, self.size, self.byte_order = path, format, records, size, byte_order
        self.diagnostics, self.counts, self.severity_counts = diagnostics, counts, severity_counts
        self.summary = {} if summary is None else summary

    def __eq__(self, other):
        self.diagnostics  # noqa: B018 (built and kept: Struct's equality reads ``__dict__``)
        if other.__class__ is self.__class__:
            other.diagnostics  # noqa: B018
        return Struct.__eq__(self, other)

    __hash__ = None  # (a mutable value: unhashable, as Struct says)

    def __repr__(self) -> str:
        self.diagnostics  # noqa: B018 (built and kept)
        return Struct.__repr__(self)

    def __getstate__(self) -> dict:
        """Pickled (or copied) with its diagnostics built: what it holds until then is rows."""
        self.diagnostics  # noqa: B018 (built and kept)
        return dict(self.__dict__)

    @property
    def has_errors(self) -> bool:
        return self.severity_counts.get("error", 0) > 0

    # (``from_sink``'s rows until the diagnostics are first read; None, the class's, once built
    # or for a report made with its diagnostics)
    _rows: tuple[list[list], int, int] | None = None

    @property
    def capped(self) -> bool:
        rows = self._rows
        return sum(self.counts.values()) > (len(self.diagnostics) if rows is None else rows[2])

    @classmethod
    def from_sink(cls, path, format, records, size, byte_order, sink, summary=None):
        """The report of a lint whose diagnostics went to ``sink``: its counts exact, its
        diagnostics the sink's rows until first read (``_snapshot``; a clean file's: none).
        (Positional too: a small lint's fixed cost.)"""
        sev = {"error": 0, "warning": 0, "info": 0}
        counts = sink.counts
        if counts:
            # exact per-severity counts: a code's severity is the same for all its diagnostics
            severity_of = sink.severity_of
            for code, n in counts.items():
                sev[_LABELS[severity_of[code]]] += n  # (``Severity.label``'s, without its call)
            counts = dict(sorted(counts.items())) if len(counts) > 1 else dict(counts)
        else:
            counts = {}
        # (``__init__``'s fields set here, without its call: a small lint's fixed cost; attributes,
        # not ``__dict__``: an object's own dict is made when first asked for)
        report = _new(cls)
        report.path, report.format, report.records, report.size, report.byte_order = (
            path, format, records, size, byte_order)
        kept = sink._kept
        if not kept:
            report.diagnostics = []
        report.counts, report.severity_counts, report.summary = counts, sev, {} if summary is None else summary
        if kept:  # (the diagnostics built at their first read)
            report._rows = _snapshot(kept, sink.per_rule_cap)
        return report

    def to_json(self) -> dict:
        return {
            "path": self.path,
            "format": self.format,
            "records": self.records,
            "bytes": self.size,
            "byte_order": self.byte_order,
            "counts": self.counts,
            "severity_counts": self.severity_counts,
            "capped": self.capped,
            "summary": self.summary,
            "diagnostics": [d.to_json() for d in self.diagnostics],
        }
