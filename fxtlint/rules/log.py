"""Structured-log stream rules (the second format): codes SL."""

from __future__ import annotations

from ..spec._tables import tables
from ._diagnostics import Example, Rule, Severity
from ._later import Later, LaterModule

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from ..spec import _build as B
    from . import _mutate as M
else:  # the builders and the mutations' helpers, imported at their first use (``_later``)
    B = LaterModule("fxtlint.spec._build", globals(), "B")
    M = LaterModule("fxtlint.rules._mutate", globals(), "M")

E, W = Severity.ERROR, Severity.WARNING

_SEVERITIES = tables().enum_of(tables().log_record.named("severity"))
INFO = tables().value_of(tables().log_record.named("severity").enum or "", "INFO")
# the lowest and highest named severities, "TRACE (0x10)" and "FATAL (0x60)"
_LOWEST, _HIGHEST = (f"{_SEVERITIES[v]} ({v:#x})" for v in (min(_SEVERITIES), max(_SEVERITIES)))


def _rec(severity=INFO, args=None):
    return B.log_record(severity, 1000, args if args is not None else [B.arg("string", "message", "hello")])


def _stream(*recs) -> bytes:
    return B.log_stream(*(recs or (_rec(),)))


log_record_wrong_type = Rule(
    code="SL001",
    name="log-record-wrong-type",
    severity=E,
    scope=("records:log",),
    mutation=Later(lambda: M.log_wrong_type),
    message="a structured-log record must have type 9, not {value}",
    params=('expected', 'value'),
    what="A record of a structured-log stream whose type (bits [0..3]) is not 9.",
    why="Every structured-log record has type 9; anything else is a framing error or a "
    "trace-format record in a log stream.",
    bad=Example("a log stream whose second record has type 4",
                lambda: _stream() + bytes([0x24]) + _stream()[1:16], "log"),
    good=Example("a log stream of two type-9 records", lambda: _stream(_rec(), _rec()), "log"),
    spec="structured-log-encoding: T (type) = {0,3} must be 9",
)

log_severity_invalid = Rule(
    code="SL002",
    name="log-severity-invalid",
    severity=E,
    scope=("records:log",),
    mutation=lambda recs, pick: B.log_stream(M.log(pick, severity=pick.sampled_from(M.OUTSIDE))),
    message="severity {value:#x} is not a severity: it is {side}",
    params=('value',),
    derived=('side',),
    what="A structured-log record whose severity byte is 0, below TRACE (0x10) or above FATAL (0x60).",
    why="Severities run from TRACE 0x10 to FATAL 0x60; a log consumer cannot rank or "
    "filter a record outside that range.",
    bad=Example("a record of severity 0", lambda: _stream(_rec(severity=0)), "log"),
    good=Example("a record of severity INFO (0x30)", lambda: _stream(_rec(severity=INFO)), "log"),
    spec="spec/README.md: severities TRACE 0x10 .. FATAL 0x60; 0 and values above 0x60 are not severities",
    derive=lambda p: {"side": f"below {_LOWEST}" if p["value"] < min(_SEVERITIES) else f"above {_HIGHEST}"},
)

log_severity_raw = Rule(
    code="SL003",
    name="log-severity-raw",
    severity=W,
    scope=("records:log",),
    mutation=lambda recs, pick: B.log_stream(M.log(pick, severity=pick.sampled_from(M.BETWEEN))),
    message="severity {value:#x} is a raw severity between {below} and {above}",
    params=('above', 'below', 'value'),
    what="A severity byte between two named severities (a verbosity step).",
    why="Fuchsia's own loggers emit these, so it is legal, but consumers that only know "
    "the six names show it as the one below or not at all.",
    bad=Example("a record of severity 0x2a (between DEBUG and INFO)", lambda: _stream(_rec(severity=0x2A)), "log"),
    good=Example("a record of severity DEBUG (0x20)", lambda: _stream(_rec(severity=0x20)), "log"),
    spec="spec/README.md: values between them are raw severities",
)

log_argument_type_not_allowed = Rule(
    code="SL004",
    name="log-argument-type-not-allowed",
    severity=E,
    scope=("args:log",),
    mutation=lambda recs, pick: B.log_stream(M.log(pick, args=[B.arg(pick.sampled_from(M.NOT_LOG_ARGS), "n", 1)])),
    message="{arg} has type {value} ({kind}); a log record allows only int64, uint64, double, string and bool",
    params=('arg', 'expected', 'i', 'kind', 'value'),
    what="A structured-log argument of a type other than 3, 4, 5, 6 or 9: a type the "
    "trace format defines (0, 1, 2, 7, 8, 10) and a type nothing defines (11 to 15) are "
    "the same error here, since the log format defines exactly five.",
    why="The structured-log encoding defines only those five argument types; log readers "
    "reject or drop the others.",
    bad=Example("a record with an int32 argument", lambda: _stream(_rec(args=[B.arg("int32", "n", 5)])), "log"),
    good=Example("a record with an int64 argument", lambda: _stream(_rec(args=[B.arg("int64", "n", 5)])), "log"),
    spec="structured-log-encoding: argument types 3, 4, 5, 6, 9",
)

log_string_ref_reserved = Rule(
    code="SL005",
    name="log-string-ref-reserved",
    severity=E,
    scope=("args:log",),
    mutation=lambda recs, pick: B.log_stream(
        M.log(pick, args=[B.arg("string", "m", pick.integers(1, M.TABLES.string_inline_bit - 1))])),
    message="{arg}: {part} string ref {value:#06x} is reserved: log strings are inline only",
    params=('arg', 'i', 'part', 'value'),
    what="A string ref in a structured-log record with its top bit clear and not 0.",
    why="Log records have no string table: a ref is either 0 (empty) or inline; the rest "
    "are reserved for future use.",
    bad=Example("a string argument whose value ref is the index 5",
                lambda: _stream(_rec(args=[B.arg("string", "message", 5)])), "log"),
    good=Example("the same argument with an inline value", lambda: _stream(_rec()), "log"),
    spec="structured-log-encoding: refs with MSB 0, except the empty string, are reserved",
)

log_argument_name_empty = Rule(
    code="SL006",
    name="log-argument-name-empty",
    severity=E,
    scope=("args:log",),
    mutation=lambda recs, pick: B.log_stream(M.log(pick, args=[B.arg("int64", pick.sampled_from(["", 0]), 1)])),
    message="argument {i} has an empty name; structured-log argument names are never empty",
    params=('i',),
    what="A structured-log argument whose name ref is 0 or an inline string of length 0.",
    why="Keys are always non-empty strings in the structured-log encoding.",
    bad=Example("an int64 argument named \"\"", lambda: _stream(_rec(args=[B.arg("int64", "", 5)])), "log"),
    good=Example("the same argument named \"n\"", lambda: _stream(_rec(args=[B.arg("int64", "n", 5)])), "log"),
    spec="structured-log-encoding: keys are always non-empty strings",
)
