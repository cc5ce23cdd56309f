"""The column engine: every layout of the spec tables, screened as arrays.

A batch of framed records is split by leaf layout (record type, then each selector
down the variant tree) and each group walks its layout's compiled body with one
numpy operation per item for all its rows: header and body-word fields (must-be-zero
bits, consts, enums), words, inline-thread words, string refs, streams (length limit,
zero padding, plain ASCII for UTF-8), argument lists (each argument type's own
layout, walked the same way on the rows that hold it) and the record's end. A
layout added to the tables is screened by this walk with no new code.

The screen only *proves records clean*: a row is flagged the moment anything the
per-record reader or ``RecordChecker`` could report is possible (a bad field, an
overrun, trailing words, non-ASCII text, a per-kind semantic check that fails), and
flagged rows go to the reference decoder, which builds every message. For the rows
left clean it keeps the columns the walk's consumers read: field values by name, word
positions, and every argument's values and positions (``ArgColumns``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..spec._tables import (
    ArgsItem,
    Layout,
    StreamItem,
    StringItem,
    VariantItem,
    WordItem,
    WordsItem,
    check_dispatch,
    tables,
)
from ._kind_checks import KIND_CHECKS  # the per-kind predicates the reference reports

_T = tables()
INLINE = _T.string_inline_bit
LEN = INLINE - 1
MAX_STRING = _T.max_string_length
_ASCII_HIGH = np.uint64(0x8080808080808080)
_FAR = 1 << 40  # a stream longer than this (bytes) cannot fit in any file we map
_ARG_TYPE = _T.field(role="type", of="argument")
_ARG_SIZE = _T.field(role="size", of="argument")
_NT = 1 << _ARG_TYPE.width
ARG_LAYOUT = [_T.arguments.get(t) for t in range(_NT)]
ARG_NUMERIC = np.array([a is not None and a.numeric for a in ARG_LAYOUT])
LOG_ALLOWED = np.zeros(_NT, bool)
LOG_ALLOWED[list(_T.log_allowed_argument_types)] = True


def field(x, f):
    """Field ``f`` of the uint64 column ``x``, as int64 (header fields are narrower than 63 bits)."""
    return ((x >> np.uint64(f.lo)) & np.uint64(f.mask)).view(np.int64)


class _Checks:
    """A field list compiled for arrays: the must-be-zero mask, consts, enum lookup tables."""

    def __init__(self, flds):
        self.fields = flds
        zm = 0
        for f in flds:
            if f.must_be_zero:
                zm |= f.word_mask
        self.zero_mask = np.uint64(zm)
        self.consts = [(f, f.const) for f in flds if f.const is not None]
        self.enums = []
        for f in flds:
            if f.enum is not None:
                ok = np.zeros(1 << f.width, bool)
                ok[[v for v in _T.enums[f.enum] if v < (1 << f.width)]] = True
                self.enums.append((f, ok))

    def apply(self, x, vals, flag):
        """Store every field of ``x`` in ``vals``; flag rows whose checks fail."""
        if self.zero_mask:
            flag |= (x & self.zero_mask) != 0
        for f in self.fields:
            vals[f.name] = field(x, f)
        for f, c in self.consts:
            flag |= vals[f.name] != c
        for f, ok in self.enums:
            flag |= ~ok[vals[f.name]]


_CHECKS: dict = {}


def checks(flds) -> _Checks:
    c = _CHECKS.get(id(flds))  # by identity: the tuples live in the loaded tables
    if c is None or c[0] is not flds:
        c = _CHECKS[id(flds)] = (flds, _Checks(flds))
    return c[1]


@dataclass(slots=True, eq=False)
class ArgColumns:
    """The arguments at position ``k`` of type ``layout`` in a group: the group rows that
    hold one (``rows``), the word of each argument's header (``pos``), its field and word
    values by name (``vals``) and word positions by item name (``at``: inline strings as
    "NAME string", streams by name)."""

    k: int
    layout: Layout
    rows: np.ndarray
    pos: np.ndarray
    vals: dict
    at: dict


class Group:
    """The rows of one leaf layout in a batch, and what the walk learnt about them.

    ``vals``: field and word values by name; ``pos``: word positions by name (words,
    inline koid words, inline string streams as "NAME string", streams); ``args``:
    ``ArgColumns`` of every argument position and type; ``flag``: rows not proven clean.
    """

    __slots__ = ("layout", "rows", "start", "end", "vals", "pos", "args", "flag", "streams")

    def __init__(self, layout: Layout, rows, start, end):
        self.layout = layout
        self.rows = rows
        self.start = start  # per row: the word its record starts at
        self.end = end  # and the word after its record
        self.vals: dict = {}
        self.pos: dict = {}
        self.args: list[ArgColumns] = []
        self.flag = np.zeros(len(rows), bool)
        self.streams: list = []  # (first word, byte length, group row, is utf8)


class Screen:
    """Walks compiled layouts over the words ``W`` of one buffer."""

    def __init__(self, W, big: bool, log: bool):
        self.W = W
        self.last = len(W) - 1
        self.big = big
        self.log = log

    def word(self, p):
        return self.W[np.minimum(p, self.last)]

    # -- a batch: split by leaf layout ------------------------------------------------
    def groups(self, roots: dict, starts, sizes, types, reference_kinds=frozenset()):
        """A ``Group`` per leaf layout present (``roots``: record type -> root layout),
        and the rows the reference decoder must take: undefined types and subtypes,
        and leaves named in ``reference_kinds``."""
        self.reference_kinds = reference_kinds
        out: list[Group] = []
        slow: list[np.ndarray] = []
        h_all = self.W[starts]
        for t in np.nonzero(np.bincount(types, minlength=1))[0].tolist():
            rows = np.nonzero(types == t)[0]
            root = roots.get(t)
            if root is None:
                slow.append(rows)
                continue
            self._split(root, rows, h_all[rows], out, slow)
        for g in out:
            g.start = starts[g.rows]
            g.end = g.start + sizes[g.rows]
        return out, (np.concatenate(slow) if slow else np.zeros(0, np.int64))

    def _split(self, lay, rows, headers, out, slow):
        if lay is None:
            slow.append(rows)
            return
        if lay.is_leaf:
            if lay.name in self.reference_kinds:
                slow.append(rows)
            else:
                out.append(Group(lay, rows, None, None))
            return
        sel = field(headers, lay.selector)
        values = np.nonzero(np.bincount(sel))[0].tolist()  # selectors are narrow fields
        if len(values) == 1:
            self._split(lay.variants.get(values[0]), rows, headers, out, slow)
            return
        for v in values:
            m = sel == v
            self._split(lay.variants.get(v), rows[m], headers[m], out, slow)

    # -- one group --------------------------------------------------------------------
    def screen(self, g: Group) -> None:
        lay = g.layout
        s, e = g.start, g.end
        headers = self.W[s]
        checks(lay.full_fields).apply(headers, g.vals, g.flag)
        gi = np.arange(len(s))
        p = self.walk(g, lay.full_body, gi, s + 1, e, g.vals, g.flag, lay)
        g.flag |= p != e  # words after the content: an extension the reference reports
        self._kind_checks(g)
        self._streams(g)

    def walk(self, g: Group, items, gi, p, e, vals, flag, lay):
        """Walk ``items`` for rows ``gi`` of ``g`` (arrays aligned to ``gi``) from word
        positions ``p``; returns the positions after the items."""
        for it in items:
            p = _WALK[type(it)](self, g, it, gi, p, e, vals, flag, lay)
        return p

    def _word(self, g, it, gi, p, e, vals, flag, lay):
        flag |= p >= e
        x = self.word(p)
        if it.fields:
            checks(it.fields).apply(x, vals, flag)
        else:
            vals[it.name] = x
        g.pos[it.name] = p
        return p + 1

    def _words(self, g, it, gi, p, e, vals, flag, lay):
        inline = (vals[it.cond] == 0).astype(np.int64)
        for n in it.names:
            flag |= (inline == 1) & (p >= e)
            g.pos[n] = p
            p = p + inline
        return p

    def _stream(self, g, gi, p, e, flag, length, utf8, present=None):
        nw = (length + 7) >> 3
        if present is not None:
            nw = np.where(present, nw, 0)
        flag |= p + nw > e
        keep = nw > 0
        g.streams.append((p[keep], length[keep], gi[keep], utf8))
        return p + nw

    def _string(self, g, it, gi, p, e, vals, flag, lay):
        ref = vals[it.name]
        inline = (ref & INLINE) != 0
        g.pos[f"{it.name} string"] = p
        return self._stream(g, gi, p, e, flag, ref & LEN, True, inline)

    def _stream_item(self, g, it, gi, p, e, vals, flag, lay):
        g.pos[it.name] = p
        length = vals[it.length]
        if length.dtype.kind == "u":  # a whole word: may be anything
            far = length > np.uint64(_FAR)
            flag |= far
            length = np.where(far, 0, length).astype(np.int64)
        return self._stream(g, gi, p, e, flag, length, it.content == "utf8")

    def _args(self, g, it, gi, p, e, vals, flag, lay):
        count = None if it.name == "*" else vals[it.name]
        p = p.copy()
        record_pos, g.pos = g.pos, {}  # positions inside arguments are not the record's
        try:
            return self._arg_list(g, gi, p, e, flag, lay, count)
        finally:
            g.pos = record_pos

    def _arg_list(self, g, gi, p, e, flag, lay, count):
        k = 0
        while True:
            live = ~flag & ((count > k) if count is not None else (p < e))
            r = np.nonzero(live)[0]
            if not len(r):
                break
            pa, ea = p[r], e[r]
            a = self.word(pa)
            at = field(a, _ARG_TYPE)
            asz = field(a, _ARG_SIZE)
            aend = pa + asz
            bad = (pa >= ea) | (asz == 0) | (aend > ea)
            if self.log:
                bad |= ~LOG_ALLOWED[at]
            if lay.numeric_args:
                bad |= ~ARG_NUMERIC[at]
            for t in np.unique(at[~bad]).tolist():
                alay = ARG_LAYOUT[t]
                m = np.nonzero((at == t) & ~bad)[0]
                if alay is None:
                    bad[m] = True
                    continue
                sub_flag = np.zeros(len(m), bool)
                sub_vals: dict = {}
                checks(alay.full_fields).apply(a[m], sub_vals, sub_flag)
                g.pos = {}
                end = self.walk(g, alay.full_body, gi[r[m]], pa[m] + 1, aend[m], sub_vals, sub_flag, alay)
                sub_flag |= end != aend[m]
                g.args.append(ArgColumns(k, alay, gi[r[m]], pa[m], sub_vals, g.pos))
                if self.log:  # log strings are inline only, and names are never empty
                    for f in alay.all_fields():
                        if f.role == "string_ref":
                            refs = sub_vals[f.name]
                            sub_flag |= (refs != 0) & ((refs & INLINE) == 0)
                            if f.name == "name":
                                sub_flag |= (refs == 0) | (refs == INLINE)
                bad[m] |= sub_flag
            flag[r[bad]] = True
            p[r] = aend
            k += 1
        return p

    def _variant(self, g, it, gi, p, e, vals, flag, lay):  # pragma: no cover - the loader splices them
        raise AssertionError("a variant placeholder left in a leaf layout")

    # -- per-kind semantic checks the reference reports: flag, never report -------------
    def _kind_checks(self, g: Group) -> None:
        for check in KIND_CHECKS.get(g.layout.name, ()):
            a, b = check.a, check.b
            g.flag |= (g.vals[a] < g.vals[b]) if check.op == "less" else (g.vals[a] == b)

    # -- streams: length limit, zero padding, plain ASCII ------------------------------
    def _streams(self, g: Group) -> None:
        if not g.streams:
            return
        W, last, flag = self.W, self.last, g.flag
        st = np.concatenate([x[0] for x in g.streams])
        ln = np.concatenate([x[1] for x in g.streams])
        rw = np.concatenate([x[2] for x in g.streams])
        utf8 = np.concatenate([np.full(len(x[0]), x[3]) for x in g.streams])
        keep = ~flag[rw]
        st, ln, rw, utf8 = st[keep], ln[keep], rw[keep], utf8[keep]
        if not len(st):
            return
        bad = utf8 & (ln > MAX_STRING)
        # text whose last byte is 0 (a counted C terminator): the reference reports it
        lb = np.maximum(ln - 1, 0)
        shift = (8 * (lb & 7)).astype(np.uint64)
        if self.big:
            shift = np.uint64(56) - shift
        bad |= utf8 & (ln > 0) & (((W[np.minimum(st + (lb >> 3), last)] >> shift) & np.uint64(0xFF)) == 0)
        rem = ln & 7
        pr = np.nonzero(rem)[0]
        if len(pr):
            lw = W[np.minimum(st[pr] + (ln[pr] >> 3), last)]
            shift = (8 * rem[pr]).astype(np.uint64)
            if self.big:
                padbad = (lw & ((np.uint64(1) << (np.uint64(64) - shift)) - np.uint64(1))) != 0
            else:
                padbad = (lw >> shift) != 0
            bad[pr[padbad]] = True
        u = np.nonzero(utf8 & ~bad)[0]
        if len(u):
            nwords = (ln[u] + 7) >> 3
            total = int(nwords.sum())
            if total:
                offs = np.cumsum(nwords) - nwords
                idx = np.arange(total, dtype=np.int64) - np.repeat(offs, nwords) + np.repeat(st[u], nwords)
                hi = W[np.minimum(idx, last)] & _ASCII_HIGH
                bad[u[np.bitwise_or.reduceat(hi, offs) != 0]] = True
        flag[rw[bad]] = True


_WALK = check_dispatch({
    WordItem: Screen._word,
    WordsItem: Screen._words,
    StringItem: Screen._string,
    StreamItem: Screen._stream_item,
    ArgsItem: Screen._args,
    VariantItem: Screen._variant,
}, "the column engine")
