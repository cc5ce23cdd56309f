"""The native walk's rows mode (``_nwalk_rows.pxi``), the Python side: for ``export`` and
``decode``, each event record the walk walks clean as one flat row of int64 words, its
refs resolved as the lint's walk resolves them, and the records it leaves to the reference
per-record path.

A row (``ROW_WIDTH`` words, ``FIELDS`` by name): the record's index, byte offset, size in
words, terminal (its kind: ``kinds[term]``), provider slot, tick rate, flags
(``ROW_KOIDS``: its thread resolved), the thread's koids, then its string refs' interned
ids in the order of ``spec._roles.STRING_REFS[kind]`` (0: the empty ref, ``ROW_INLINE``:
an inline text, in the record; -1: unregistered, which makes the record unclean: never in
a row). An interned id is the walk's ``ProviderState.strings`` id (``state.text(gid)``).

A record that is not an event, or has any finding, is noted (index, offset, declared
words, tick rate) and decoded here by the reference decoder (``decode_record``); the
records the walk hands back go to the consumer's ``record`` as to the linter. So a trace's
records are each exactly one of: a row, a noted record, a handed-back record.

``export_plan`` is the export's plan for the rows mode (``RowSink.export_plan``): per
terminal what the Trace Event export does with its records (``_export_tef``'s rider: a
row it formats natively, a kernel object's row whose names it applies, a count, nothing,
a note, or a record handed back), per argument type how its value prints (``arg_plan``),
all from the spec tables' layouts; the canonical decoding's (``_canonical._row_plan``) is
built the same way. ``RowsRider.take`` is called
at each stop of the walk, so memory holds the rows of one stretch between stops.
"""

from __future__ import annotations

import functools
from array import array

from ..spec._roles import STATE_KINDS, STRING_REFS, is_undefined
from ..spec._tables import StreamItem
from ._reader import decode_record
from ._walk_native import _names, plan

FIELDS = ("index", "offset", "words", "term", "slot", "rate", "flags", "pk", "tk")


def _quiet(diagnostic) -> None:
    """A noted record's diagnostics: the linter's walk has said them already."""


class RowsRider:
    """The rows of one native walk ``nw`` (of ``walk``, on the walk module ``module``):
    ``rows(words, n)`` gets each stop's rows (an ``array('q')`` of ``n`` rows), ``record(rec,
    rate)`` each noted record the reference decoder read."""

    def __init__(self, walk, nw, module, rows, record):
        self.sink = module.RowSink()
        self.width = module.ROW_WIDTH
        self.inline = module.ROW_INLINE
        self.koids = module.ROW_KOIDS
        nw.collect_rows(self.sink)
        self.walk = walk
        self.rows = rows
        self.record = record
        self.kinds = _names(walk.log)[0]

    def take(self) -> None:
        """The rows and the noted records since the last stop (at each stop of the walk,
        while their bytes are in the buffer), in file order within each."""
        raw, notes = self.sink.take()
        if raw:
            words = array("q", raw)
            self.rows(words, len(words) // self.width)
        if notes:
            w = self.walk
            n = array("q", notes)
            for k in range(0, len(n), 4):
                index, offset, words_, rate = n[k], n[k + 1], n[k + 2], n[k + 3]
                rec = decode_record(w.buf, offset, index, words_, _quiet, big=w.big, log=w.log, resync=False)
                self.record(rec, rate & 0xFFFFFFFFFFFFFFFF)


# ``_nwalk_rows.pxi``'s ExportAct and ArgKind (``export_plan`` checks them against a build)
X_NOTE, X_ROW, X_COUNT, X_NONE, X_BACK, X_NAMES = range(6)
XA = {"null": 1, "signed": 2, "unsigned": 3, "double": 4, "string": 5, "pointer": 6, "bool": 7, "blob": 8}
# ``_nwalk_rows.pxi``'s DecodeHow: how the canonical decoding writes a key (``_canonical``'s shapes)
DECODE_HOW = {"string": 0, "thread": 1, "number": 2, "word": 3, "double": 4, "text": 5, "hex": 6, "arguments": 7}
# the thread record: the one table record whose fields the export reads (a thread's first process)
THREAD_RECORD = "thread"


@functools.cache
def export_plan(log: bool, phases: tuple, second: tuple, back: frozenset = frozenset(),
                notes: frozenset = frozenset(), names: tuple = ()) -> tuple[list, list]:
    """The rows mode's plan for the Trace Event export over ``plan(log)``'s program:
    (per terminal a dict of ``XTerm``'s fields, per argument type one of ``XArg``'s).
    ``phases``: (kind, phase letter) of the events it exports; ``second``: (phase letter,
    field) of the value each prints after the thread (an end, an id); ``back``: the kinds
    handed back, ``notes`` the kinds noted (read with the tables as they are at the record:
    the walk stops before a table record that follows a note); ``names``: (kind, (koid
    field, object type field)) of the records that name processes and threads (rows whose
    names ``RowSink.format`` tells)."""
    prog = plan(log)[0]
    ph, sec, named = dict(phases), dict(second), dict(names)
    terms = []
    for t in prog.terminals:
        d = {"act": X_NOTE, "ph": 0, "ts": -1, "v2": -1, "iname": 0, "icat": 0}
        leaf = t.leaf
        kind = leaf.layout.name if leaf is not None else None
        if kind is None or is_undefined(kind):
            pass  # the reference says what it skips
        elif kind in back:
            d["act"] = X_BACK
        elif kind in STATE_KINDS:
            d["act"] = X_NOTE if kind == THREAD_RECORD else X_NONE
        elif kind in notes:
            d["act"] = X_NOTE
        elif kind in named and "name" in STRING_REFS.get(kind, ()):
            d.update(act=X_NAMES, ts=leaf.vals[named[kind][0]], v2=leaf.vals[named[kind][1]],
                     iname=STRING_REFS[kind].index("name"))
        elif kind in ph:
            strs, letter = STRING_REFS[kind], ph[kind]
            d.update(act=X_ROW, ph=ord(letter), ts=leaf.vals["timestamp"], v2=leaf.vals.get(sec.get(letter), -1),
                     iname=strs.index("name"), icat=strs.index("category"))
        else:
            d["act"] = X_COUNT
        terms.append(d)
    args: list = [None] * (max(prog.arg_leaves, default=-1) + 1)
    for ty, a in prog.arg_leaves.items():
        args[ty] = arg_plan(a)
    return terms, args


def arg_plan(a) -> dict:
    """How an argument type's value prints (``XArg``): by its layout in the tables."""
    lay, vals, pos = a.layout, a.vals, a.pos
    d = {"kind": 0, "koid": int(lay.name == "koid"), "width": 64, "name": vals["name"], "npos": pos["name string"],
         "val": -1, "vpos": -1}
    name = lay.name
    if name == "null":
        d["kind"] = XA["null"]
    elif name == "blob":
        stream = next(it for it in lay.full_body if isinstance(it, StreamItem))
        d.update(kind=XA["blob"], val=vals[stream.length], vpos=pos[stream.name])
    elif name in ("double", "string", "pointer", "bool"):
        d.update(kind=XA[name], val=vals["value"])
        if name == "string":
            d["vpos"] = pos["value string"]
    else:  # an integer: a header field (sign-extended when signed), or a word
        f = lay.field("value")
        if f is not None:
            d.update(kind=XA["signed" if f.signed else "unsigned"], width=f.width, val=vals["value"])
        else:
            word = next(it for it in lay.full_body if it.kind == "word" and it.name == "value")
            d.update(kind=XA["signed" if word.signed else "unsigned"], val=vals["value"])
    return d



def checked(module):
    """``module`` (the native walk), when its ExportAct and ArgKind are this module's."""
    acts = {"X_NOTE": X_NOTE, "X_ROW": X_ROW, "X_COUNT": X_COUNT, "X_NONE": X_NONE, "X_BACK": X_BACK,
            "X_NAMES": X_NAMES}
    kinds = {f"XA_{k.upper()}": v for k, v in XA.items()} | {"XA_UNDEFINED": 0}
    hows = {f"D_{k.upper()}": v for k, v in DECODE_HOW.items()}
    hows["D_ARGS"] = hows.pop("D_ARGUMENTS")
    if {m.name: int(m) for m in module.ExportAct} != acts or {m.name: int(m) for m in module.ArgKind} != kinds \
            or {m.name: int(m) for m in module.DecodeHow} != hows:
        raise RuntimeError("a stale build of the native walk (its export or decoding plan differs): rebuild it")
    return module
