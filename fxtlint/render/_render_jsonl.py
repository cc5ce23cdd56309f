"""The JSON Lines renderer: one JSON object per diagnostic, one per line (ruff's
``json-lines``): easy to grep, stream and load into a table."""

from __future__ import annotations

import json
from collections.abc import Sequence

from ..engine._result import FileReport


def records(reports: Sequence[FileReport]):
    for r in reports:
        for d in r.diagnostics:
            yield {"path": r.path, **d.to_json()}


def render(reports: Sequence[FileReport], *, failures: Sequence[tuple[str, str]] = ()) -> str:
    return "".join(json.dumps(o, ensure_ascii=False, sort_keys=True) + "\n" for o in records(reports))
