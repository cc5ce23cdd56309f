"""Where repair takes over from IN's lint: the bytes before it are IN's, read once.

Repair writes IN's records as they are wherever the lint finds nothing repair acts on
(``tests/test_repair.py``). So OUT starts with IN's bytes up to the first record of a
finding repair acts on (an error, a finding it mends, a repeated magic record: ``acts``),
and the lint of IN, which read them first, already holds the tables there. ``resume_at``
gives that place (``Resume``) where the lint's tables there are its tables at its end:
every record from that place to where the lint stopped reading (at most ``REACH`` of
them, framed by their declared sizes as the lint framed them, each header well formed)
has no effect on the tables (no metadata, initialization, string or thread record:
``spec._roles.STATE_KINDS``, and no metadata record at all). A trace with a zeroed
page: the lint stops at the page (FR001), the record before it usually overran into it
(its finding is the place), and repair starts there, the bytes before it sent whole
(``_repair.repair(..., resume=)``). Anywhere else (a finding early in IN, a provider
section near the stop, a capped report) there is no such place: repair reads IN from
its start, as before. Both write the same bytes and say the same changes
(``tests/test_repair_resume.py``).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from .. import rules as R
from ..engine._provider_state import ProviderState
from ..engine._reader import declared_size, header_kind
from ..rules._diagnostics import Severity
from ..spec._roles import STATE_KINDS

# findings a re-encoding mends (``_repair``); any other error drops the record
MENDED = frozenset({"RB001", "RB002", "RB003", "ST002", "ST008", "ST001", "FR004", "ST005"})
REACH = 256  # records from the place to the lint's stop, at most, checked for effects
_UNPACK = {False: struct.Struct("<Q").unpack_from, True: struct.Struct(">Q").unpack_from}


@dataclass(frozen=True)
class Resume:
    """IN's lint handed to repair: ``offset`` (record ``index``), the first record repair
    may act on; ``state``, the tables there (the lint's ``ProviderState``, taken over:
    the lint is done with it)."""

    offset: int
    index: int
    state: ProviderState


@dataclass(frozen=True)
class Linted:
    """What repair takes from the walk of IN's lint: where it can start (``resume``, or None)
    and where the lint stopped framing (``stop``: the offset of the header it could not
    frame, FR001 or FR002; None when it read to the end). The lint's counts are of IN up
    to ``stop``; what repair finds past it, reading on, the lint never read. ``paused``: the
    walk as it was at ``stop``, a header of size 0 (``_continue.Paused``: OUT's lint there), or None."""

    resume: Resume | None
    stop: int | None
    paused: Any = None  # ``_continue.Paused``: the walk paused at the header of size 0 at ``stop``, or None


def acts(code: str) -> bool:
    """Whether repair may change what it writes for a record of a finding ``code``: an
    error (dropped, or given a placeholder registration), a finding it mends
    (``MENDED``), a repeated magic record (noted)."""
    rule = R.REGISTRY.get(code)
    return rule is None or rule.severity == Severity.ERROR or code in MENDED or code.startswith("MG")


def resume_at(report, walk, read) -> Resume | None:
    """Where repair can start from the lint of IN (``report`` and ``walk``, ``_lint.lint_walk``'s;
    ``read(start, end)``: IN's bytes there), or None."""
    if report.format != "trace" or report.capped or walk.log:
        return None
    first = min((d for d in report.diagnostics if acts(d.code)), key=lambda d: d.offset, default=None)
    if first is None or first.offset <= 0 or first.record_index <= 0:
        return None
    stop, index = 8 * walk.cur, walk.index
    at, n = first.offset, index - first.record_index
    if at % 8 or not 0 <= n <= REACH or not at <= stop <= report.size:
        return None  # (n == 0: the place is where the lint stopped)
    buf, base = read(at, stop) if n else b"", at
    if len(buf) != stop - at:
        return None
    unpack = _UNPACK[walk.big]
    for _ in range(n):
        if at + 8 > stop:
            return None
        header = unpack(buf, at - base)[0]
        kind = header_kind(header, buf, at - base, walk.big)
        if kind is None or kind in STATE_KINDS or kind.startswith("metadata."):
            return None  # (a header the lint framed but no well-formed one: not read on)
        at += 8 * declared_size(header)
    if at != stop:
        return None
    return Resume(first.offset, first.record_index, walk.state)
