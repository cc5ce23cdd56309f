"""JSON text for columns: what ``json.dumps`` writes for each row, made for a batch at once.

The export and the canonical decoding write millions of small objects; ``json.dumps``
per object costs more than the rest of the walk. Their column paths build the same
text instead: each value column becomes its JSON text once per distinct value (a
string table entry, a thread, a provider), and a row is a template with the columns
in its slots. ``tests/test_walk.py`` holds the result to ``json.dumps``' byte for byte.
"""

from __future__ import annotations

import json

import numpy as np

from ._walk import INLINE_TEXT, UNREGISTERED, Rows


def template(parts: list[str]):
    """``f(a, b, ...)`` = ``parts[0] + a + parts[1] + b + ... + parts[-1]``: a format
    string compiled once (an f-string is the fastest way CPython joins a row)."""
    names = [f"c{i}" for i in range(len(parts) - 1)]
    body = "".join(p.replace("{", "{{").replace("}", "}}") + (f"{{{n}}}" if i < len(names) else "")
                   for i, (p, n) in enumerate(zip(parts, [*names, ""])))
    return eval(f"lambda {', '.join(names)}: f{body!r}")  # noqa: S307 - the text is ours: JSON keys and literals


def key(name: str) -> str:
    """A key as ``json.dumps`` writes it in an object, with its separator."""
    return f"{json.dumps(name, ensure_ascii=False)}: "


class StringTexts:
    """JSON texts of strings: per interned id (as many as the string tables hold) and per
    inline text (a bounded cache: inline strings may all differ)."""

    def __init__(self, state):
        self.state = state
        self.by_id: dict[int, str] = {0: '""'}
        self.by_text: dict[str, str] = {}

    def text(self, s: str) -> str:
        got = self.by_text.get(s)
        if got is None:
            if len(self.by_text) > 1 << 16:
                self.by_text.clear()
            got = self.by_text[s] = json.dumps(s, ensure_ascii=False)
        return got

    def column(self, rows: Rows, arg, name: str, sel):
        """JSON texts of string ref ``name`` (of the rows, or of argument rows ``arg``) at
        positions ``sel``, as an object array; None where the ref names an index its
        provider never registered (``UNREGISTERED`` in ``ids``). Returns (texts, ids)."""
        of = arg if arg is not None else rows
        ids = rows.string_ids(name, arg)[sel]
        out = np.empty(len(ids), object)
        known = ids >= 0
        if known.any():
            cache = self.by_id
            uk, inv = np.unique(ids[known], return_inverse=True)
            for g in uk.tolist():
                if g not in cache:
                    cache[g] = json.dumps(self.state.text(g), ensure_ascii=False)
            out[known] = np.asarray([cache[g] for g in uk.tolist()], object)[inv.reshape(-1)]
        inline = np.nonzero(ids == INLINE_TEXT)[0]
        if len(inline):
            refs = of.value(name)[sel][inline]
            words = of.position(f"{name} string")[sel][inline]
            out[inline] = [self.text(t) for t in rows.inline_text(name, refs, words)]
        return out, ids


def unregistered(ids) -> np.ndarray:
    return np.nonzero(ids == UNREGISTERED)[0]


def in_file_order(at: list[int], texts: list[str], below: int | None = None) -> list[str]:
    """``texts`` sorted by record index ``at`` (only those below ``below``, if given)."""
    at_ = np.asarray(at, np.int64)
    order = np.argsort(at_, kind="stable")
    if below is not None:
        order = order[at_[order] < below]
    arr = np.empty(len(texts), object)
    arr[:] = texts
    return arr[order].tolist()


def grouped(row, k, *columns):
    """Many rows' list items (of row ``row``, at position ``k`` in it) in row, then item,
    order: (the rows, cuts, the columns reordered); row ``rows[j]`` has the items
    ``cuts[j]:cuts[j + 1]`` of each column."""
    order = np.lexsort((k, row))
    out = []
    for col in columns:
        arr = np.empty(len(col), object)
        arr[:] = col
        out.append(arr[order].tolist())
    row = row[order]
    starts = np.flatnonzero(np.diff(row)) + 1
    return row[np.r_[0, starts]].tolist(), [0, *starts.tolist(), len(order)], out
