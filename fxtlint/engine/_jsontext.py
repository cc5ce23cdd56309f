"""JSON text for columns: what ``json.dumps`` writes for each row, made for a batch at once.

The export and the canonical decoding write millions of small objects; ``json.dumps``
per object costs more than the rest of the walk. Their column paths build the same
text instead: each value column becomes its JSON text once per distinct value (a
string table entry, a thread, a provider), and a row is a template with the columns
in its slots. ``tests/test_walk.py`` holds the result to ``json.dumps``' byte for byte.

With the native text filler (``_textfill.c``, chosen by ``_native.filler()``) the rows of a
batch are written straight into one UTF-8 buffer (``TextRows``), merged into file order
and written to the output's bytes layer: no str per row. Without it, the same templates
make a str per row (the reference, and the fallback where nothing compiled).
"""

from __future__ import annotations

import codecs
import functools
import json
import os
from itertools import chain, pairwise
from operator import itemgetter
from typing import TYPE_CHECKING, Any, cast

from . import _native
from ._walk import INLINE_TEXT, UNREGISTERED, Rows

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np  # (imported by the column path's first use: ``_numpy``)

_TEMPLATES: dict = {}
_MERGED = 4096  # the most texts a table of two neighbouring coded columns may hold


ROW_END = ",\n"  # what follows each row the native filler writes: the array's separator
_ROW_END = ROW_END.encode()


class TextRows:
    """Rows of JSON text in one UTF-8 buffer, as the native filler writes them: row ``i`` is
    ``data[ends[i - 1]:ends[i]]`` (from 0 for the first), ``tail`` bytes of row end included
    (``ROW_END`` for a batch's rows, none for the entries of a table)."""

    __slots__ = ("data", "ends", "tail")

    def __init__(self, data: bytes, ends, tail: int):
        self.data = data
        self.ends = np.frombuffer(ends, np.int64) if isinstance(ends, bytes) else ends
        self.tail = tail

    @classmethod
    def made(cls, pair: tuple, tail: int) -> TextRows:
        """The rows of a (bytes, ends) pair that ``fill`` or ``gather`` returned."""
        return cls(pair[0], pair[1], tail)

    def __len__(self) -> int:
        return len(self.ends)

    def pair(self):
        """The (bytes, ends) the filler's functions take."""
        return self.data, self.ends

    def tolist(self) -> list[str]:
        data, tail = self.data, self.tail
        cuts = [0, *self.ends.tolist()]
        return [data[a : b - tail].decode() for a, b in pairwise(cuts)]

    def take(self, filler, rows) -> TextRows:
        """Rows ``rows`` (indexes), in that order."""
        rows = np.ascontiguousarray(rows, np.int64)
        return TextRows.made(filler.gather([self.pair()], np.zeros(len(rows), np.int64), rows), self.tail)


class Coded:
    """A column of texts as codes into a small table: row i holds ``table[codes[i]]``.
    Two neighbouring coded columns with small tables become one (a slot fewer per row).
    The table: an object array of str, or ``TextRows`` the native filler wrote."""

    __slots__ = ("codes", "table")

    def __init__(self, codes, table):
        self.codes = codes
        self.table = table

    def texts(self) -> list[str]:
        table = self.table
        if isinstance(table, TextRows):
            table = np.asarray(table.tolist(), object)
        return table[self.codes].tolist()


def _pieces(column):
    return column if isinstance(column, tuple) else (column,)


def is_ints(column) -> bool:
    return isinstance(column, np.ndarray) and column.dtype.kind in "iu"


def fill(parts: list[str], columns: list, n: int, *, item: bool = False):
    """``n`` rows ``parts[0] + c0 + parts[1] + c1 + ... + parts[-1]``. A column is a list of
    texts, one per row; one text for every row, which goes into the template (a slot
    costs more than a longer literal); a ``Coded`` column; an integer column (an int64 or
    uint64 array, see ``int_column``), in decimal; or a tuple of such columns whose texts
    follow one another (the pieces of one value).

    With the native filler: ``TextRows``, each row followed by ``ROW_END`` (none when
    ``item``: the entries of a table); without: a list of str."""
    filler = _native.filler()
    if filler is not None:
        return _native_fill(filler, parts, columns, n, b"" if item else _ROW_END)
    merged: list[str] = [parts[0]]
    slots: list = []
    for col, part in zip(columns, parts[1:]):
        pieces = [q for p in _pieces(col) for q in _pieces(_int_forms(p) if is_ints(p) else p)]
        for i, piece in enumerate(pieces):
            after = part if i == len(pieces) - 1 else ""
            if isinstance(piece, str):
                merged[-1] += piece + after
                continue
            prev = slots[-1] if slots else None
            if (isinstance(piece, Coded) and isinstance(prev, Coded) and isinstance(piece.table, np.ndarray)
                    and isinstance(prev.table, np.ndarray) and len(prev.table) * len(piece.table) <= _MERGED):
                # the literal between two coded slots joins their tables: one slot
                between = merged.pop()
                table = np.asarray([a + between + b for a in prev.table.tolist() for b in piece.table.tolist()],
                                   object)
                slots[-1] = Coded(prev.codes * len(piece.table) + piece.codes, table)
                merged.append(after)
                continue
            slots.append(piece)
            merged.append(after)
    if not slots:
        return [merged[0]] * n
    key = tuple(merged)
    f = _TEMPLATES.get(key)
    if f is None:
        if len(_TEMPLATES) > 1024:  # constants come from the data: a cache, not a table
            _TEMPLATES.clear()
        f = _TEMPLATES[key] = column_template(merged)
    return f(*(s.texts() if isinstance(s, Coded) else s for s in slots))


class Filled:
    """A batch's rows of one template, not written yet (the native filler's parts and slots,
    a row end in the last part) and which of its rows are kept, in order: ``in_file_order``
    writes several kinds' rows in file order in one pass (``fill_rows``)."""

    __slots__ = ("parts", "slots", "n", "rows")

    def __init__(self, parts: list[bytes], slots: list, n: int, rows=None):
        self.parts = parts
        self.slots = slots
        self.n = n
        self.rows = np.arange(n, dtype=np.int64) if rows is None else rows

    def __len__(self) -> int:
        return len(self.rows)

    def template(self) -> tuple:
        return self.parts, self.slots, self.n


def fill_later(parts: list[str], columns: list, n: int):
    """``fill`` for the rows of a batch's kind that go to ``in_file_order``: with the native
    filler, ``Filled`` (written when the kinds are merged, in one pass); without, a list of str."""
    filler = _native.filler()
    if filler is None:
        return fill(parts, columns, n)
    merged, slots = _native_template(filler, parts, columns)
    merged[-1] += _ROW_END
    return Filled(merged, slots, n)


def _native_fill(filler, parts: list[str], columns: list, n: int, end: bytes) -> TextRows:
    """``fill`` by the native filler (``_textfill.c``)."""
    merged, slots = _native_template(filler, parts, columns)
    return TextRows.made(filler.fill(merged, slots, n, end), len(end))


def _native_template(filler, parts: list[str], columns: list) -> tuple[list[bytes], list]:
    """The native filler's parts and slots for a template: constants join the parts; each
    other column is a slot in one of the filler's forms."""
    merged: list[str] = [parts[0]]
    slots: list = []
    for col, part in zip(columns, parts[1:]):
        pieces = _pieces(col)
        for i, piece in enumerate(pieces):
            after = part if i == len(pieces) - 1 else ""
            if isinstance(piece, str):
                merged[-1] += piece + after
                continue
            slots.append(_slot(filler, piece))
            merged.append(after)
    return [m.encode() for m in merged], slots


def _slot(filler, column):
    """A column as one of the native filler's slot forms."""
    if isinstance(column, list):
        return filler.TEXTS, column
    if isinstance(column, Coded):
        codes = _eight_bytes(column.codes, np.int64)
        if isinstance(column.table, TextRows):
            return filler.CODED_ROWS, codes, column.table.pair()
        return filler.CODED, codes, column.table.tolist()
    if is_ints(column):
        if column.dtype.kind == "u":
            return filler.UNSIGNED, _eight_bytes(column, np.uint64)
        return filler.SIGNED, _eight_bytes(column, np.int64)
    return filler.TEXTS, list(column)  # an object array of str


def _eight_bytes(column, dtype):
    """An integer column as ``dtype`` in the machine's byte order, strided views kept as
    they are (the filler reads any stride)."""
    if (column.dtype == dtype and column.dtype.isnative and column.ndim == 1 and column.flags.aligned
            and column.strides[0] % 8 == 0):
        return column
    return np.ascontiguousarray(column, dtype)


def joined(parts: list[TextRows]) -> TextRows:
    """``TextRows`` one after another, as one."""
    if len(parts) == 1:
        return parts[0]
    which, at = _positions([len(p) for p in parts])
    return TextRows.made(_native.filler().gather([p.pair() for p in parts], which, at), parts[0].tail)


def keep_rows(texts, keep):
    """The texts (``Filled``, ``TextRows`` or a list) where the bool array ``keep`` holds."""
    if isinstance(texts, Filled):
        return Filled(texts.parts, texts.slots, texts.n, texts.rows[keep])
    if isinstance(texts, TextRows):
        return texts.take(_native.filler(), np.nonzero(keep)[0])
    return [t for t, k in zip(texts, keep.tolist()) if k]


def _fstring(parts: list[str], names: list[str]) -> str:
    """The f-string literal ``parts[0]{names[0]}parts[1]...``, braces of the parts escaped."""
    body = "".join(p.replace("{", "{{").replace("}", "}}") + (f"{{{n}}}" if i < len(names) else "")
                   for i, (p, n) in enumerate(zip(parts, [*names, ""])))
    return f"f{body!r}"


def template(parts: list[str]):
    """``f(a, b, ...)`` = ``parts[0] + a + parts[1] + b + ... + parts[-1]``: a format
    string compiled once (an f-string is the fastest way CPython joins a row)."""
    names = [f"c{i}" for i in range(len(parts) - 1)]
    return eval(f"lambda {', '.join(names)}: {_fstring(parts, names)}")  # eval: the text is ours


def column_template(parts: list[str]):
    """``f(A, B, ...)``: the rows of ``template(parts)`` over the columns ``A, B, ...`` (one
    comprehension: no call per row)."""
    names = [f"c{i}" for i in range(len(parts) - 1)]
    cols = [n.upper() for n in names]
    return eval(f"lambda {', '.join(cols)}: [{_fstring(parts, names)} "  # eval: the text is ours
                f"for {', '.join(names)}{',' if len(names) == 1 else ''} in zip({', '.join(cols)})]")


def key(name: str) -> str:
    """A key as ``json.dumps`` writes it in an object, with its separator."""
    return f"{json.dumps(name, ensure_ascii=False)}: "


class IdTexts:
    """Texts of small int ids (interned strings, threads), made once each by ``make(id)``
    and kept in an array as long as the largest id, so a column is looked up at once."""

    def __init__(self, make):
        self.make = make
        self.table: Any = ()  # an object array from the first column asked (no numpy before)

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
        return cast("list[str]", got)  # each None was filled in above

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


@functools.cache
def _small_ints():
    """The texts of 0 to ``_SMALL`` - 1 (a table of texts beats str() per row), built on
    first use: the export on the native walk imports this module and no numpy."""
    return np.asarray([str(i) for i in range(_SMALL)], object)


def int_texts(values) -> list[str]:
    """``str`` of each integer of a column."""
    if len(values) and 0 <= int(values.min()) and int(values.max()) < _SMALL:
        return _small_ints()[values.astype(np.int64)].tolist()
    return list(map(str, values.tolist()))


_LOW = 10**4


@functools.cache
def _low_digits():
    """The four-digit texts of 0 to ``_LOW`` - 1, built on first use."""
    return np.asarray([f"{i:04d}" for i in range(_LOW)], object)


def int_column(values):
    """An integer column for ``fill`` (which writes it in decimal): an int64 or uint64 array."""
    if is_ints(values) and values.dtype.itemsize == 8:
        return values
    if is_ints(values):
        return values.astype(np.uint64 if values.dtype.kind == "u" else np.int64)
    return list(map(str, values.tolist()))


def _int_forms(values):
    """The decimal texts of an integer column, for the pure ``fill``: one text when every row holds
    the same value; codes into a table when the values lie in a small range; else, when
    they lie close together (timestamps of a batch), two coded pieces: the digits above
    the last four, and the last four; else ``str`` per row."""
    if not len(values):
        return []
    lo, hi = int(values.min()), int(values.max())
    if lo == hi:
        return str(lo)
    if 0 <= lo and hi < _SMALL:
        return Coded((values - lo).astype(np.int64), _small_ints()[lo : hi + 1])
    if lo >= _LOW and hi // _LOW - lo // _LOW < _SMALL:
        first = lo // _LOW
        heads = np.asarray([str(first + i) for i in range(hi // _LOW - first + 1)], object)
        return (Coded((values // _LOW - first).astype(np.int64), heads),
                Coded((values % _LOW).astype(np.int64), _low_digits()))
    return list(map(str, values.tolist()))


def as_list(column, n: int) -> list[str]:
    """A column in any of ``fill``'s forms as a list of ``n`` texts."""
    if isinstance(column, str):
        return [column] * n
    if isinstance(column, Coded):
        return column.texts()
    if isinstance(column, tuple):
        pieces = [as_list(p, n) for p in column]
        return ["".join(t) for t in zip(*pieces)]
    if is_ints(column):
        return as_list(_int_forms(column), n)
    if isinstance(column, TextRows):
        return column.tolist()
    return column


def _bytes_layer(out):
    """The binary buffer under text stream ``out`` when UTF-8 bytes written to it are what
    writing their text would write (UTF-8, no newline translation), else None."""
    raw = getattr(out, "buffer", None)
    encoding = getattr(out, "encoding", None)
    if raw is None or not encoding or os.linesep != "\n":
        return None
    try:
        return raw if codecs.lookup(encoding).name == "utf-8" else None
    except LookupError:
        return None


class Lines:
    """Writes batches of texts to ``out`` as the items of a JSON array, one per line:
    ``opening`` before the first, ",\n" between; ``empty`` until one is written. A batch
    is a list of str or ``TextRows``; the latter go to the stream's bytes layer when it
    has one (its text layer flushed first, to keep the order), else decoded."""

    def __init__(self, out, opening: str):
        self.out = out
        self.opening = opening
        self.empty = True
        self._raw = _bytes_layer(out)

    def __call__(self, texts) -> None:
        if not len(texts):
            return
        lead = self.opening if self.empty else ",\n"
        self.empty = False
        if isinstance(texts, TextRows):  # rows with ROW_END each: all but the last's
            body = memoryview(texts.data)[: len(texts.data) - texts.tail]
            if self._raw is not None:
                self.out.flush()
                self._raw.write(lead.encode())
                self._raw.write(body)
            else:
                self.out.write(lead)
                self.out.write(str(body, "utf-8"))
            return
        self.out.write(lead)
        self.out.write(",\n".join(texts))

    def raw(self, pieces: list[bytes]) -> None:
        """Pieces of UTF-8 bytes, each texts already joined by ",\n" (the native walk's rows
        mode's), each written as it is."""
        pieces = [p for p in pieces if p]
        if not pieces:
            return
        lead = self.opening if self.empty else ",\n"
        self.empty = False
        if self._raw is not None:
            self.out.flush()
            write = self._raw.write
            write(lead.encode())
            for i, p in enumerate(pieces):
                if i:
                    write(b",\n")
                write(p)
        else:
            self.out.write(lead)
            self.out.write(",\n".join(str(p, "utf-8") for p in pieces))


def unregistered(ids) -> np.ndarray:
    return np.nonzero(ids == UNREGISTERED)[0]


def in_file_order(pieces: list, below: int | None = None):
    """The texts of ``pieces`` ((record indexes, texts) each, every piece in file order)
    merged into file order, only those of records below ``below`` if given: ``TextRows``
    when a piece is the native filler's (``Filled`` or ``TextRows``), else a sequence of str."""
    pieces = [(i, t) for i, t in pieces if len(t)]
    if not pieces:
        return []
    if any(isinstance(t, (Filled, TextRows)) for _, t in pieces):
        return _merge_rows(pieces, below)
    at = np.concatenate([np.asarray(i, np.int64) for i, _ in pieces])
    texts = pieces[0][1] if len(pieces) == 1 else list(chain.from_iterable(t for _, t in pieces))
    if (below is None or at[-1] < below) and (len(pieces) == 1 or bool(np.all(at[1:] > at[:-1]))):
        return texts  # one piece, or pieces already in order: nothing to sort
    order = np.argsort(at, kind="stable")
    if below is not None:
        order = order[at[order] < below]
    if len(order) < 2:
        return [texts[i] for i in order.tolist()]
    return itemgetter(*order.tolist())(texts)


def _merge_rows(pieces: list, below: int | None) -> TextRows:
    """``in_file_order`` by the native filler: every piece's rows written in file order in
    one pass (``fill_rows``); rows already written (``TextRows``, their row ends included)
    and texts (a list) are templates of one slot."""
    filler = _native.filler()
    filled = [_as_filled(filler, t) for _, t in pieces]
    at = np.concatenate([np.asarray(i, np.int64) for i, _ in pieces])
    which, _ = _positions([len(f) for f in filled])
    rows = np.concatenate([f.rows for f in filled])
    if not ((below is None or at[-1] < below) and (len(filled) == 1 or bool(np.all(at[1:] > at[:-1])))):
        order = np.argsort(at, kind="stable")
        if below is not None:
            order = order[at[order] < below]
        which, rows = which[order], rows[order]
    return TextRows.made(filler.fill_rows([f.template() for f in filled], which, rows), len(_ROW_END))


def _as_filled(filler, texts) -> Filled:
    if isinstance(texts, Filled):
        return texts
    n = len(texts)
    if isinstance(texts, TextRows):
        return Filled([b"", b""], [(filler.CODED_ROWS, np.arange(n, dtype=np.int64), texts.pair())], n)
    return Filled([b"", _ROW_END], [(filler.TEXTS, list(texts))], n)


def _positions(sizes: list[int]):
    """(piece, row in the piece) of each row of pieces of ``sizes`` rows laid end to end."""
    which = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    return which, np.arange(len(which), dtype=np.int64) - np.repeat(np.cumsum([0, *sizes[:-1]]), sizes)


def _item_column(column, order):
    """An item column in ``order``, indexable by item positions: ``TextRows`` (native) as
    (their codes, the rows); an integer column stays one; texts as an object array."""
    if isinstance(column, TextRows):
        return order, column
    if is_ints(column):
        return column[order]
    return np.asarray(column, object)[order]


def _item_slot(column, at):
    if isinstance(column, tuple):
        codes, rows = column
        return Coded(codes[at], rows)
    return column[at] if is_ints(column) else column[at].tolist()


def item_lists(n: int, row, k, kind, columns: list, parts_of, empty: str):
    """Texts of ``n`` rows that each hold a list of items (a record's arguments), as a
    ``Coded`` column: item ``i`` is at place ``k[i]`` in row ``row[i]``, of kind ``kind[i]``
    (a small int), and its texts are ``columns[c][i]`` (a column: a list of texts, an
    integer column, or ``TextRows`` of items). Rows whose items have the same
    kinds, in order, share one template, ``parts_of(kinds)`` (for ``fill``: the texts
    around the item columns, item by item); a row without items is ``empty``."""
    if not len(row):
        return empty
    order = np.lexsort((k, row))
    row = row[order]
    starts = np.flatnonzero(np.r_[True, row[1:] != row[:-1]])
    rows = row[starts]  # the rows that hold items, each once
    # each row's kinds as one int, place j in hex digit j (kinds < 15; at most 15 items)
    signature = np.add.reduceat((kind[order] + 1) << (4 * k[order]), starts)
    cols = [_item_column(c, order) for c in columns]
    texts = np.empty(len(rows), object)
    filler = _native.filler()
    made, place = [], np.zeros(len(rows) + 1, np.int64)
    which_piece = np.zeros(len(rows) + 1, np.int64)  # native: each signature's TextRows
    for sig in np.unique(signature).tolist():
        which = np.nonzero(signature == sig)[0]
        kinds = []
        while sig:
            kinds.append(sig % 16 - 1)
            sig //= 16
        first = starts[which]
        slots = [_item_slot(c, first + j) for j in range(len(kinds)) for c in cols]
        if filler is None:
            texts[which] = fill(parts_of(tuple(kinds)), slots, len(which))
            continue
        made.append(fill(parts_of(tuple(kinds)), slots, len(which), item=True))
        which_piece[which + 1] = len(made)
        place[which + 1] = np.arange(len(which))
    codes = np.zeros(n, np.int64)
    codes[rows] = np.arange(1, len(rows) + 1)
    if filler is not None:  # the table: "empty", then each row's list, gathered in row order
        head = fill([empty], [], 1, item=True)
        table_rows = TextRows.made(filler.gather([head.pair(), *(t.pair() for t in made)], which_piece, place), 0)
        return Coded(codes, table_rows)
    table = np.empty(len(rows) + 1, object)
    table[0] = empty
    table[1:] = texts
    return Coded(codes, table)


def replaced(column, rows: list[int], texts: list[str], n: int):
    """Column ``column`` (``fill``'s forms, ``n`` rows) with row ``rows[j]`` holding
    ``texts[j]``: a ``Coded`` column stays one (its table gains the texts), so the rows
    the native filler wrote are not made into str."""
    if not isinstance(column, Coded):
        out = as_list(column, n)
        for r, t in zip(rows, texts):
            out[r] = t
        return out
    codes = column.codes.copy()
    table = column.table
    codes[rows] = np.arange(len(table), len(table) + len(rows))
    if isinstance(table, TextRows):
        return Coded(codes, joined([table, fill(["", ""], [list(texts)], len(texts), item=True)]))
    return Coded(codes, np.concatenate([table, np.asarray(texts, object)]))


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
