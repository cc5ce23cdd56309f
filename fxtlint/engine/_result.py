"""What a lint run says about one file: counts are exact, the stored list is capped.

A trace with millions of identical defects must not grow memory with file size,
so each rule keeps at most ``per_rule_cap`` diagnostics while its count stays exact.
An engine that can emit many (the compiled pairing engine at the end of a trace with
65,537 open durations) asks ``skips`` first: a diagnostic the cap would drop is counted
and never built. Once a rule has ``per_rule_cap`` diagnostics, one placed after all of
them can never be kept, whatever arrives later, so an engine reporting in file order
builds no more than the cap of any rule.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from ..rules._diagnostics import Diagnostic, Severity, sort_diagnostics
from ..spec._frozen import F, Struct

DEFAULT_PER_RULE_CAP = 200
_new = object.__new__
_new_counter = Counter.__new__  # an empty Counter without its Python ``__init__`` (a small lint's cost)


class DiagnosticSink(Struct):
    """Collects diagnostics; ``severity_overrides`` and ``ignored`` come from the user."""

    per_rule_cap: int
    severity_overrides: dict[str, Severity]
    ignored: frozenset[str]
    counts: Counter
    severity_of: dict  # code -> severity as reported
    _kept: dict  # code -> diagnostics, trimmed to the smallest
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
        if len(lst) < self.per_rule_cap:
            return
        if len(lst) == self.per_rule_cap and code not in self._bound:
            # the cap is reached: one after all these can never be kept, whatever comes later
            # (a walk in file order builds the first ``per_rule_cap`` of a rule, no more)
            self._bound[code] = max((d.offset, d.record_index) for d in lst)
        elif len(lst) >= 2 * self.per_rule_cap:
            # keep the first by position, not by arrival: the fast and the per-record
            # paths emit in different orders but must keep the same diagnostics
            sort_diagnostics(lst)
            del lst[self.per_rule_cap :]
            self._bound[code] = (lst[-1].offset, lst[-1].record_index)

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
        if not self._kept:
            return []
        out = []
        cap = self.per_rule_cap
        for lst in self._kept.values():
            if len(lst) > cap:  # (a rule's first ``per_rule_cap`` by position; a stable sort of all
                sort_diagnostics(lst)  # keeps one rule's equal diagnostics in the order they came)
                out.extend(lst[:cap])
            else:
                out.extend(lst)
        sort_diagnostics(out)
        return out

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


class FileReport(Struct):
    """What a lint says about one file (``to_json``: the JSON output's object)."""

    path: str
    format: str  # "trace" | "log"
    records: int
    size: int
    byte_order: str  # "little" | "big"
    diagnostics: list[Diagnostic]
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

    @property
    def has_errors(self) -> bool:
        return self.severity_counts.get("error", 0) > 0

    @property
    def capped(self) -> bool:
        return sum(self.counts.values()) > len(self.diagnostics)

    @classmethod
    def from_sink(cls, *, path, format, records, size, byte_order, sink, summary=None):
        sev = {"error": 0, "warning": 0, "info": 0}
        # exact per-severity counts: a code's severity is the same for all its diagnostics
        severity_of = sink.severity_of
        for code, n in sink.counts.items():
            sev[severity_of[code].label] += n
        return cls(path, format, records, size, byte_order, sink.kept, dict(sorted(sink.counts.items())), sev,
                   summary or {})

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
