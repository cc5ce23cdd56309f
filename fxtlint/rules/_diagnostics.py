"""Diagnostics as data: severities, the Rule declaration, and the Diagnostic it makes.

A rule owns its code, name, default severity, one message template and its docs.
Everything that reports a problem does it through ``Rule.at(...)``; renderers only
ever see ``Diagnostic`` values (glTF-Validator's issue families, ruff's registry).
"""

from __future__ import annotations

import enum
import functools
import operator

# string.Formatter().parse, without importing string (whose Template compiles a pattern at import)
from _string import formatter_parser  # type: ignore[import-not-found]  # (CPython's, no stub)
from collections.abc import Callable

from ..spec._errors import FxtError
from ..spec._frozen import BuiltWhenRead, F, Frozen


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return _LABELS[self]  # (looked up: an enum's ``name`` is a Python-level descriptor, read per report)

    def __str__(self) -> str:
        """'warning', as every output names it (not the number an IntEnum prints)."""
        return self.label

    def __format__(self, spec: str) -> str:
        return format(self.label, spec)

    @classmethod
    def parse(cls, text: str) -> Severity:
        return cls[text.strip().upper()]


_LABELS = {s: s.name.lower() for s in Severity}  # each severity's label, as every output names it


class Example(Frozen):
    """A minimal archive for a rule's docs and tests: ``build`` returns its bytes.

    ``input_format`` says how it must be linted ("trace" or "log").
    """

    caption: str
    build: Callable[[], bytes]
    input_format: str
    _spec = (F("caption"), F("build"), F("input_format", "trace"))

    def __init__(self, caption: str, build: Callable[[], bytes], input_format: str = "trace"):
        self.__dict__.update(caption=caption, build=build if isinstance(build, _Once) else _Once(build),
                             input_format=input_format)


class _Once:
    """An example's ``build``, run at its first call: the bytes are kept (an example is a
    constant, and some are large: PR012's is 65,537 records, seconds of encoding in Python)."""

    __slots__ = ("make", "made")

    def __init__(self, make: Callable[[], bytes]):
        self.make: Callable[[], bytes] = make
        self.made: bytes | None = None

    def __call__(self) -> bytes:
        made = self.made
        if made is None:
            made = self.made = self.make()
        return made


class Rule(Frozen):
    """One rule. ``params`` names what the engines report (a trailing "?" marks one
    they may leave out); ``derived`` names what ``derive`` adds for the message.

    The template is checked when the rule is built: a field that is neither a required
    parameter nor derived raises ``FxtError`` at import, not a KeyError in the middle of
    a lint. Parameters are data (values, kinds, offsets), never pieces of the sentence:
    a clause that depends on what was reported is the rule's, built by ``derive``.
    """

    code: str
    name: str
    severity: Severity
    message: str
    what: str
    why: str
    bad: Example
    good: Example
    spec: str
    params: tuple[str, ...]
    status: str  # default "stable"
    # extra message parameters computed from the reported ones (e.g. a readable
    # provider label from a provider id), so every engine reports with the same params
    derive: Callable[[dict], dict] | None
    derived: tuple[str, ...]
    # a removed code: the code that reports the same defect now (codes are never reused)
    replaced_by: str | None
    # the params that say where other things are (another record's offset or index, the
    # bytes left in the file, the file's length): they move when unrelated records are
    # added, so they are not part of what identifies a finding (``identity``)
    positions: tuple[str, ...]
    # what the rule looks at (``_rule_scope``): features a trace must contain for the
    # rule to be exercised; a rule in force has at least one
    scope: tuple[str, ...]
    # ``mutation(records, pick) -> bytes``: a valid archive given one defect that trips this
    # rule (``fxtlint.rules._mutate``); ``no_mutation`` says why no small mutation does
    mutation: Callable[..., bytes] | None  # (not compared)
    no_mutation: str | None
    # the only other codes the mutation may trip (every other mutation adds exactly one defect)
    also_trips: tuple[str, ...]
    # what a conforming reader does with a trace that trips it: a key of
    # ``_reader_verdicts.REASONS`` (trace rules only; the spec's words are there)
    reader_reason: str | None
    # (computed from params, not compared)
    required: frozenset
    allowed: frozenset
    _spec = (*(F(n) for n in ("code", "name", "severity", "message", "what", "why", "bad", "good", "spec", "params")),
             F("status", "stable"), F("derive", None), F("derived", ()), F("replaced_by", None), F("positions", ()),
             F("scope", ()), F("mutation", None, compare=False), F("no_mutation", None), F("also_trips", ()),
             F("reader_reason", None), F("required", init=False, repr=False, compare=False),
             F("allowed", init=False, repr=False, compare=False))

    def __init__(self, code: str, name: str, severity: Severity, message: str, what: str, why: str, bad: Example,
                 good: Example, spec: str, params: tuple[str, ...], status: str = "stable",
                 derive: Callable[[dict], dict] | None = None, derived: tuple[str, ...] = (),
                 replaced_by: str | None = None, positions: tuple[str, ...] = (), scope: tuple[str, ...] = (),
                 mutation: Callable[..., bytes] | None = None, no_mutation: str | None = None,
                 also_trips: tuple[str, ...] = (), reader_reason: str | None = None):
        self.__dict__.update(code=code, name=name, severity=severity, message=message, what=what, why=why, bad=bad,
                             good=good, spec=spec, params=params, status=status, derive=derive, derived=derived,
                             replaced_by=replaced_by, positions=positions, scope=scope, mutation=mutation,
                             no_mutation=no_mutation, also_trips=also_trips, reader_reason=reader_reason)
        self._check()

    def _check(self) -> None:
        if self.status not in STATUSES:
            raise FxtError(f"{self.code}: status = {self.status!r} is not one of {STATUSES}")
        if (self.status == "removed") != (self.replaced_by is not None):
            raise FxtError(f"{self.code}: a removed rule, and only one, names the code replacing it")
        required = frozenset(p for p in self.params if not p.endswith("?"))
        optional = frozenset(p[:-1] for p in self.params if p.endswith("?"))
        if len(required) + len(optional) != len(self.params) or required & optional:
            raise FxtError(f"{self.code}: params {self.params} name a parameter twice")
        if self.status != "removed":
            if not self.scope:
                raise FxtError(f"{self.code}: a rule in force names its scope (what it looks at)")
            if (self.mutation is None) == (self.no_mutation is None):
                raise FxtError(f"{self.code}: a rule in force has a mutation, or says why it has none")
        if (self.derive is None) != (not self.derived):
            raise FxtError(f"{self.code}: derive and derived must be given together")
        fragments = [p for p in required | optional if p.endswith("_text")]
        if fragments:
            raise FxtError(f"{self.code}: params {sorted(fragments)} are sentence fragments: report data "
                           "and let derive build the clause")
        for name in template_fields(self.code, self.message):
            if name in required or name in self.derived:
                continue
            raise FxtError(
                f"{self.code}: message field {{{name}}} is not among the required params "
                f"{sorted(required)}" + (f" or derived {self.derived}" if self.derived else "")
                + (" (an optional parameter reaches the message through derive)" if name in optional else "")
            )
        unknown = set(self.positions) - required - optional
        if unknown:
            raise FxtError(f"{self.code}: positions {sorted(unknown)} are not among its params")
        self.__dict__.update(required=required, allowed=required | optional)

    def at(
        self,
        offset: int,
        record_index: int,
        span: tuple[int, int] | None = None,
        record_size: int | None = None,
        **params: object,
    ) -> Diagnostic:
        """The diagnostic this rule reports for a record at ``offset``.

        ``span`` is the absolute byte range of the offending field and ``record_size``
        the record's length in bytes as far as the file holds it, for the hex view.
        Parameters other than the declared ones raise ``FxtError`` (a bug in the caller).
        """
        keys = params.keys()
        if not (self.required <= keys <= self.allowed):
            raise FxtError(
                f"{self.code} reported with parameters {sorted(keys)}; it declares {self.params}"
            )
        # Diagnostic(...) with every field given, without a call of its __init__
        # (one object.__setattr__ a field: half the cost of a diagnostic); its message and
        # details are built when first read (``Diagnostic.message``: ``_rendered``), from parameters
        # that cannot change meanwhile (else built now): a lint whose caller reads only
        # counts, or whose report keeps few, builds no sentence it never shows
        d = _new(Diagnostic)
        fields = d.__dict__
        fields.update(offset=offset, record_index=record_index, code=self.code, severity=self.severity,
                      span=span, record_size=record_size)
        for v in params.values():
            if type(v) not in _SCALARS and not _frozen(v):
                fields["message"], fields["details"] = self.render(params)
                return d
        fields["_lazy"] = (self, params)
        return d

    def render(self, params: dict) -> tuple[str, dict]:
        """The message and details of a diagnostic reported with ``params`` (``at``'s,
        checked against the declared ones)."""
        shown = dict(params, **self.derive(params)) if self.derive is not None else params
        try:
            message = self.message.format_map(shown)
        except KeyError as e:  # derive left out what it declares: a bug in the rule
            raise FxtError(f"{self.code}: message parameter {e} is missing") from None
        return visible(message), details_of(params)


STATUSES = ("stable", "preview", "deprecated", "removed")
_new = object.__new__


def template_fields(code: str, template: str) -> list[str]:
    """The named fields of a message template; FxtError for any other kind of field."""
    try:
        parsed = list(formatter_parser(template))
    except ValueError as e:
        raise FxtError(f"{code}: message template does not parse: {e}") from None
    names = []
    for _, name, _, _ in parsed:
        if name is None:
            continue
        if not name.isidentifier():
            raise FxtError(f"{code}: message field {{{name}}} must be a plain name")
        names.append(name)
    return names


def visible(text: str) -> str:
    """``text`` with its unprintable characters escaped (``\\x00``, ``\\n``, ``\\u200b``):
    a name of NUL bytes must not print as blanks in a terminal or a log."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


@functools.cache
def _positions():
    """The pattern of another record's position in a message (compiled at its first use:
    a lint that writes no baseline and no SARIF imports no ``re``, bench/startup.py)."""
    import re

    return re.compile(r"\bat (?:0x[0-9a-f]+|record \d+)")


def stable_message(message: str) -> str:
    """The message without the positions of other records ("at 0x58", "at record 6"),
    which move when unrelated records are added: how baselines and SARIF fingerprints
    recognise the same finding in a rewritten trace."""
    return _positions().sub("at ?", message)


def _plain(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    return str(value)


_SCALARS = frozenset({type(None), bool, int, float, str})


def _frozen(value: object) -> bool:
    """Whether ``value`` cannot change (bytes, or a tuple of such values and scalars): a
    diagnostic reported with it can build its message later."""
    if type(value) is bytes:
        return True
    return type(value) is tuple and all(type(v) in _SCALARS or _frozen(v) for v in value)


def details_of(params: dict) -> dict:
    """The structured fields of a diagnostic, from its rule's parameters.

    The same names everywhere: ``found`` for the value seen (``value`` in templates),
    ``bits`` for a field's [lo, hi] bit range; the rest keep their parameter names
    (``field``, ``expected``, ``declared``...).
    """
    out = {}
    for k, v in params.items():
        if k == "lo" or k == "hi":
            continue
        out["found" if k == "value" else k] = v if type(v) in _SCALARS else _plain(v)
    if "lo" in params and "hi" in params:
        out["bits"] = [params["lo"], params["hi"]]
    return out


def _rendered(fields: dict, lazy) -> None:
    """``Diagnostic.message`` and ``details`` of one ``Rule.at`` made (``lazy``: its rule and
    parameters), both built at the first read of either (``Rule.render``)."""
    fields["message"], fields["details"] = lazy[0].render(lazy[1])


class Diagnostic(Frozen):
    """One finding, with exactly one location: the byte offset of its record.

    Equality compares every field (a span that moved is a different finding: the hex
    view shows it); order is ``sort_key``, by position, never ``<``. One ``Rule.at`` made
    holds its rule and parameters until ``message`` or ``details`` is first read, then
    builds both (``Rule.render``, ``_rendered``) and keeps them: equal to one built with them.
    """

    offset: int
    record_index: int
    code: str
    message: str = BuiltWhenRead("message", "_lazy", _rendered)  # type: ignore[assignment]  # (built when first read)
    severity: Severity
    span: tuple[int, int] | None
    record_size: int | None
    # structured fields (field name, expected, found, bit range...), for tools and tests (not hashed)
    details: dict = BuiltWhenRead("details", "_lazy", _rendered)  # type: ignore[assignment]
    _spec = (F("offset"), F("record_index"), F("code"), F("message"), F("severity"), F("span", None),
             F("record_size", None), F("details", factory=dict, hash=False))

    def __init__(self, offset: int, record_index: int, code: str, message: str, severity: Severity,
                 span: tuple[int, int] | None = None, record_size: int | None = None, details: dict | None = None):
        self.__dict__.update(offset=offset, record_index=record_index, code=code, message=message,
                             severity=severity, span=span, record_size=record_size,
                             details={} if details is None else details)

    def __getstate__(self) -> dict:
        """Pickled (or copied) with its message built: what it holds until then is its rule."""
        self.message  # noqa: B018 (built and kept)
        return {k: v for k, v in self.__dict__.items() if k != "_lazy"}

    # Frozen's equality, hash and repr read the fields from ``__dict__``: the message and
    # details built first
    def __eq__(self, other):
        self.message  # noqa: B018 (built and kept)
        if other.__class__ is self.__class__:
            other.message  # noqa: B018
        return Frozen.__eq__(self, other)

    def __hash__(self) -> int:  # type: ignore[override]  # (as Frozen's: Struct's is None)
        self.message  # noqa: B018 (built and kept)
        return Frozen.__hash__(self)

    def __repr__(self) -> str:
        self.message  # noqa: B018 (built and kept)
        return Frozen.__repr__(self)

    def sort_key(self) -> tuple:
        """Position first (offset, record), then code, message and span: how reports list."""
        return (self.offset, self.record_index, self.code, self.message, self.span or (-1, -1))

    def to_json(self) -> dict:
        out = {
            "code": self.code,
            "severity": self.severity.label,
            "offset": self.offset,
            "record_index": self.record_index,
            "message": self.message,
        }
        if self.span is not None:
            out["span"] = list(self.span)
        if self.record_size is not None:
            out["record_size"] = self.record_size
        if self.details:
            out["details"] = dict(self.details)
        return out


# ``Diagnostic.sort_key`` without the message and span: what orders diagnostics unless two share it
_POSITION = operator.attrgetter("offset", "record_index", "code")


def sort_diagnostics(diags: list[Diagnostic]) -> None:
    """Sort ``diags`` in place by ``Diagnostic.sort_key``, the same order (stable too), reading
    the message of only those that share their position and code with another."""
    n = len(diags)
    if n < 2:
        return
    diags.sort(key=_POSITION)
    keys = list(map(_POSITION, diags))
    if len(set(keys)) == n:
        return  # no two share their position and code (the usual case): ordered by it alone
    i = 0
    while i < n - 1:
        if keys[i] != keys[i + 1]:
            i += 1
            continue
        j = i + 2
        while j < n and keys[j] == keys[i]:
            j += 1
        diags[i:j] = sorted(diags[i:j], key=Diagnostic.sort_key)
        i = j
