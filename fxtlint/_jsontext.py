"""JSON text for columns: what ``json.dumps`` writes for each row, made for a batch at once.

The export and the canonical decoding write millions of small objects; ``json.dumps``
per object costs more than the rest of the walk. Their column paths build the same
text instead: each value column becomes its JSON text once per distinct value (a
string table entry, a thread, a provider), and a row is a template with the columns
in its slots. ``tests/test_walk.py`` holds the result to ``json.dumps``' byte for byte.
"""

from __future__ import annotations

import json
from operator import itemgetter

import numpy as np

from ._walk import INLINE_TEXT, UNREGISTERED, Rows


_TEMPLATES: dict = {}


def fill(parts: list[str], columns: list, n: int) -> list[str]:
    """``n`` rows ``parts[0] + c0 + parts[1] + c1 + ... + parts[-1]``: a column is a list of
    texts, one per row, or one text for every row, which goes into the template (a slot
    costs more than a longer literal)."""
    merged, lists = [parts[0]], []
    for col, part in zip(columns, parts[1:]):
        if isinstance(col, str):
            merged[-1] += col + part
        else:
            lists.append(col)
            merged.append(part)
    if not lists:
        return [merged[0]] * n
    key = tuple(merged)
    f = _TEMPLATES.get(key)
    if f is None:
        if len(_TEMPLATES) > 1024:  # constants come from the data: a cache, not a table
            _TEMPLATES.clear()
        f = _TEMPLATES[key] = template(merged)
    return list(map(f, *lists))


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


class IdTexts:
    """Texts of small int ids (interned strings, threads), made once each by ``make(id)``
    and kept in an array as long as the largest id, so a column is looked up at once."""

    def __init__(self, make):
        self.make = make
        self.table = np.empty(0, object)

    def of(self, ids):
        """The texts of ``ids`` (all >= 0), as an object array."""
        if not len(ids):
            return np.empty(0, object)
        table = self.table
        top = int(ids.max())
        if top >= len(table):
            grown = np.full(max(top + 1, 2 * len(table)), None, object)
            grown[: len(table)] = table
            table = self.table = grown
        got = table[ids]
        missing = np.nonzero(got == None)[0]  # noqa: E711 - an elementwise test of the object array
        if len(missing):
            for i in np.unique(ids[missing]).tolist():
                table[i] = self.make(i)
            got = table[ids]
        return got


class StringTexts:
    """JSON texts of strings: per interned id (``IdTexts``) and per inline text in a
    bounded cache (inline strings may all differ)."""

    def __init__(self, state):
        self.by_id = IdTexts(lambda g: json.dumps(state.text(g), ensure_ascii=False))
        self.by_bytes: dict[bytes, str] = {}

    def inline(self, raw: list[bytes]) -> list[str]:
        """JSON texts of inline strings' bytes (plain ASCII: clean rows)."""
        cache = self.by_bytes
        if len(cache) > 1 << 16:
            cache.clear()
        got = list(map(cache.get, raw))
        for i in [i for i, t in enumerate(got) if t is None]:
            b = raw[i]
            got[i] = cache.get(b) or cache.setdefault(b, json.dumps(b.decode("ascii"), ensure_ascii=False))
        return got

    def column(self, rows: Rows, arg, name: str, sel):
        """JSON texts of string ref ``name`` (of the rows, or of argument rows ``arg``) at
        positions ``sel``, as an object array; None where the ref names an index its
        provider never registered (``UNREGISTERED`` in ``ids``). Returns (texts, ids)."""
        of = arg if arg is not None else rows
        ids = rows.string_ids(name, arg)[sel]
        if len(ids) and int(ids.min()) >= 0:
            return self.by_id.of(ids), ids
        out = np.empty(len(ids), object)
        known = ids >= 0
        out[known] = self.by_id.of(ids[known])
        inline = np.nonzero(ids == INLINE_TEXT)[0]
        if len(inline):
            refs = of.value(name)[sel][inline]
            words = of.position(f"{name} string")[sel][inline]
            out[inline] = self.inline(rows.inline_bytes(refs, words))
        return out, ids


_SMALL = 1 << 16
_SMALL_INTS = np.asarray([str(i) for i in range(_SMALL)], object)  # a table of texts beats str() per row


def int_texts(values) -> list[str]:
    """``str`` of each integer of a column."""
    if len(values) and 0 <= int(values.min()) and int(values.max()) < _SMALL:
        return _SMALL_INTS[values.astype(np.int64)].tolist()
    return list(map(str, values.tolist()))


def int_column(values) -> list[str] | str:
    """``int_texts``, or the one text when every row holds the same value (for ``fill``)."""
    if len(values) > 1 and values.min() == values.max():
        return str(int(values[0]))
    return int_texts(values)


def unregistered(ids) -> np.ndarray:
    return np.nonzero(ids == UNREGISTERED)[0]


def in_file_order(at: list[int], texts: list[str], below: int | None = None) -> list[str]:
    """``texts`` sorted by record index ``at`` (only those below ``below``, if given)."""
    at_ = np.asarray(at, np.int64)
    if (below is None or not len(at_) or at_[-1] < below) and bool(np.all(at_[1:] > at_[:-1])):
        return texts  # one leaf layout, or records already in order: nothing to sort
    order = np.argsort(at_, kind="stable")
    if below is not None:
        order = order[at_[order] < below]
    if len(order) < 2:
        return [texts[i] for i in order.tolist()]
    return list(itemgetter(*order.tolist())(texts))


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
