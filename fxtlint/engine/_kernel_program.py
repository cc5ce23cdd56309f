"""The spec tables compiled for the native walk's screen: one flat int64 array it interprets.

The screen (``_screen.c``, compiled into the native walk ``_nwalk``) knows the instruction
set below and nothing of FXT's layouts: this module turns the loaded tables (record tree,
leaf layouts, argument layouts, the structured-log record) into a *program*, so a layout
added to ``spec-tables/`` is screened with no change to the C code. A record the screen
cannot prove clean goes to the reference reader (``_reader``), which says why.

Program layout (all int64; every table is addressed by its absolute index):

- a header of ``HEADER`` slots;
- ``sizes``: per record type value, the size field's (lo, mask);
- ``roots``: per record type value, the index of its dispatch node;
- ``nodes``: the dispatch tree in preorder. A select node is (SELECT, lo, mask, 0)
  followed by mask + 1 child indices, each after the node; a terminal is (TERMINAL,
  ordinal, pc, 0), pc -1 for rows the screen only frames (undefined types and
  subtypes, reference kinds). Ordinals number terminals in the dispatch tree's order:
  types ascending, then selector values;
- ``args``: per argument type value, (pc or -1, allowed, numeric);
- code: instructions of four ints (op, a, b, c), each leaf's and argument type's a
  straight run ending in ``end``; enumeration tables: 0/1 per value.

Slots: a leaf's values and positions (``Leaf``) are the slots of the screen's per-record
outputs; an argument type's (``ArgLeaf``) are columns of its per-argument rows, one row
per argument of a clean record: (position of the record, argument index, argument type,
argument header word, ``narg_vals`` values, ``narg_pos`` positions).
"""

from __future__ import annotations

from array import array

from ..spec._tables import (
    ArgsItem,
    Field,
    Layout,
    StreamItem,
    StringItem,
    TableError,
    Tables,
    VariantItem,
    WordItem,
    WordsItem,
    by_role,
    check_dispatch,
    tables,
)
from ._kind_checks import KIND_CHECKS

# The instruction set; ``_screen.h``'s SCREEN_OP_NAMES lists the same names in the same
# order (tests/test_screen_program.py).
#   end                      flag unless the position is the end (record or argument); stop
#   word        pos          need a word; cur = it; pos[pos] = its position (-1: none)
#   store       val          vals[val] = cur
#   zero        mask         flag if cur & mask
#   field       val lo mask  vals[val] = (cur >> lo) & mask
#   fields      n            the next n instructions are fields: run them with one dispatch
#   const       val value    flag if vals[val] != value
#   enum        val at n     flag unless vals[val] < n and program[at + vals[val]]
#   inline_word cond pos     pos[pos] = position; if vals[cond] == 0: need a word, skip it
#   string      ref pos      pos[pos] = position; inline bit set: a UTF-8 stream of ref's length
#   stream      val utf8 pos a stream of vals[val] bytes (utf8: text checks too); over ``far``: flag;
#                            pos[pos] = its first word (-1: none)
#   args        count num    arguments: vals[count] of them (-1: until the end); num: numeric only;
#                            each argument of a clean record is written as an argument row
#   logref      val check    a log argument's string ref: 1 inline or empty only, 2 also not empty
#   less        a b          flag if vals[a] < vals[b] (unsigned)
#   equal       val value    flag if vals[val] == value
OPS = ("end", "word", "store", "zero", "field", "fields", "const", "enum", "inline_word", "string", "stream",
       "args", "logref", "less", "equal")
OP = {name: i for i, name in enumerate(OPS)}
HEADER = ("magic", "length", "type_lo", "type_mask", "arg_type_lo", "arg_type_mask", "arg_size_lo", "arg_size_mask",
          "nvals", "npos", "narg_vals", "narg_pos", "inline_bit", "max_string", "far", "sizes", "roots", "nodes",
          "nodes_end", "args", "nterminals")
H = {name: i for i, name in enumerate(HEADER)}
MAGIC = 0x46584B3100000004  # "FXK1", program format 4
SELECT, TERMINAL = 0, 1
FAR = 1 << 40  # a stream longer than this (bytes) cannot fit in any file we map
# log-only checks of an argument's string ref (logref's second operand)
LOG_INLINE, LOG_NAME = 1, 2
# the screen's stack arrays of one argument's values and positions have this many slots
MAX_ARG_VALS = 64
MAX_ARG_POS = 16
# an argument row's leading columns: record position, argument index, type, header word
ARG_ROW_HEAD = 4


# (plain classes, not dataclasses: a small lint compiles the walk's program at start-up,
# and ``@dataclass`` compiles each class's methods from source, bench/startup.py)
class Leaf:
    """One leaf layout's slots: where each ``Group.vals`` / ``Group.pos`` name lives in a row."""

    def __init__(self, layout: Layout, pc: int = -1):
        self.layout = layout
        self.pc = pc
        self.vals: dict = {}  # name -> slot
        self.signed: dict = {}  # name -> True: a field (int64), False: a word (uint64)
        self.pos: dict = {}  # name -> slot


class ArgLeaf:
    """One argument layout's slots: where each ``ArgColumns.vals`` / ``ArgColumns.at`` name
    lives in an argument row (after its ``ARG_ROW_HEAD`` columns)."""

    def __init__(self, layout: Layout):
        self.layout = layout
        self.vals: dict = {}  # name -> slot
        self.signed: dict = {}
        self.pos: dict = {}  # name -> slot


class Terminal:
    """Where a dispatch ends: a leaf to screen, or rows for the reference decoder."""

    def __init__(self, ordinal: int, leaf: Leaf | None):
        self.ordinal = ordinal
        self.leaf = leaf  # None: slow (undefined type or subtype, or a reference kind)


class Program:
    def __init__(self, code: array, terminals: list, leaves: dict, arg_leaves: dict, nvals: int,
                 npos: int, narg_vals: int, narg_pos: int, log: bool, sites: dict):
        self.code = code  # int64 (an array("q")), the whole program
        self.terminals = terminals  # by ordinal
        self.leaves = leaves  # layout name -> Leaf
        self.arg_leaves = arg_leaves  # argument type -> ArgLeaf
        self.nvals, self.npos, self.narg_vals, self.narg_pos = nvals, npos, narg_vals, narg_pos
        self.log = log
        self.sites = sites  # pc -> what the check there reads (``_Compiler.sites``)

    @property
    def arg_columns(self) -> int:
        """Columns of an argument row."""
        return ARG_ROW_HEAD + self.narg_vals + self.narg_pos


class _Code:
    """An instruction stream with its layout's slot assignment (a record leaf's, or an
    argument type's: positions inside arguments are not the record's)."""

    def __init__(self, out: list, leaf: Leaf | ArgLeaf):
        self.out = out
        self.leaf = leaf
        self.arg = isinstance(leaf, ArgLeaf)

    def emit(self, op: str, a: int = 0, b: int = 0, c: int = 0):
        self.out.extend((OP[op], a, b, c))

    def val(self, name: str, signed: bool) -> int:
        slots = self.leaf.vals
        if name not in slots:
            slots[name] = len(slots)
        self.leaf.signed[name] = signed
        return slots[name]

    def read(self, name: str, where: str) -> int:
        slots = self.leaf.vals
        if name not in slots:
            raise TableError(f"{where}: {name!r} is used before any field or word sets it")
        return slots[name]

    def pos(self, name: str) -> int:
        slots = self.leaf.pos
        if name not in slots:
            slots[name] = len(slots)
        return slots[name]


class _Compiler:
    def __init__(self, T: Tables, log: bool, reference_kinds):
        self.T = T
        self.log = log
        self.reference_kinds = frozenset(reference_kinds)
        self.out: list[int] = []
        self.enums: list[tuple[int, list[int]]] = []  # (instruction index of the operand, table)
        self.leaves: dict = {}
        self.arg_leaves: dict = {}
        self.terminals: list = []
        # what each check of a leaf's code reads (its pc, relative until relocated): ("fields",
        # layout, word item or None for the header), ("stream", layout, item), ("end", layout,
        # None), ("kind", layout, its ordinal in KIND_CHECKS); and each item that may run past
        # the record's end: ("word", layout, item), ("words", layout, item, which of its words),
        # ("args", layout, item), a stream's at its check: where the native walk's finding rows
        # say the reference looks again
        self.sites: dict[int, tuple] = {}

    # -- fields: what the screen checks of each ----------------------------------------
    def fields(self, c: _Code, flds, site: tuple | None = None) -> None:
        zm = 0
        for f in flds:
            if f.must_be_zero:
                zm |= f.word_mask
        if zm:
            self.site(c, site)
            c.emit("zero", _i64(zm))
        if len(flds) > 1:
            c.emit("fields", len(flds))
        for f in flds:
            c.emit("field", c.val(f.name, True), f.lo, _i64(f.mask))
        for f in flds:
            if f.const is not None:
                self.site(c, site)
                c.emit("const", c.read(f.name, "const"), _i64(f.const))
        for f in flds:
            if f.enum is not None:
                ok = [0] * (1 << f.width)
                for v in self.T.enums[f.enum]:
                    if v < len(ok):
                        ok[v] = 1
                self.site(c, site)
                c.emit("enum", c.read(f.name, "enum"), 0, len(ok))
                self.enums.append((len(self.out) - 2, ok))

    def site(self, c: _Code, site: tuple | None) -> None:
        """The next instruction checks ``site`` (a record leaf's; an argument's are not kept:
        its findings are one row, the argument's)."""
        if site is not None and not c.arg:
            self.sites[len(self.out)] = site

    # -- body items ---------------------------------------------------------------
    def body(self, c: _Code, lay: Layout) -> None:
        for it in lay.full_body:
            _ITEMS[type(it)](self, c, it, lay)

    def word(self, c: _Code, it: WordItem, lay: Layout) -> None:
        self.site(c, ("word", lay, it))
        c.emit("word", c.pos(it.name))
        if it.fields:
            self.fields(c, it.fields, ("fields", lay, it))
        else:
            c.emit("store", c.val(it.name, False))

    def words(self, c: _Code, it: WordsItem, lay: Layout) -> None:
        cond = c.read(it.cond, f"{lay.name} words")
        for j, n in enumerate(it.names):
            self.site(c, ("words", lay, it, j))
            c.emit("inline_word", cond, c.pos(n))

    def string(self, c: _Code, it: StringItem, lay: Layout) -> None:
        self.site(c, ("stream", lay, it))
        c.emit("string", c.read(it.name, f"{lay.name} string"), c.pos(f"{it.name} string"))

    def stream(self, c: _Code, it: StreamItem, lay: Layout) -> None:
        self.site(c, ("stream", lay, it))
        c.emit("stream", c.read(it.length, f"{lay.name} stream"), int(it.content == "utf8"), c.pos(it.name))

    def args(self, c: _Code, it: ArgsItem, lay: Layout) -> None:
        if c.arg:
            raise TableError(f"{lay.name}: arguments inside an argument are beyond the native screen")
        count = -1 if it.name == "*" else c.read(it.name, f"{lay.name} args")
        self.site(c, ("args", lay, it))
        c.emit("args", count, int(lay.numeric_args))

    def variant(self, c: _Code, it: VariantItem, lay: Layout) -> None:  # pragma: no cover - spliced away
        raise TableError(f"{lay.name}: a variant placeholder left in a leaf layout")

    # -- whole layouts -------------------------------------------------------------
    def leaf(self, lay: Layout) -> Leaf:
        leaf = self.leaves.get(lay.name)
        if leaf is not None:
            return leaf
        leaf = self.leaves[lay.name] = Leaf(lay, pc=len(self.out))
        c = _Code(self.out, leaf)
        self.fields(c, lay.full_fields, ("fields", lay, None))
        self.body(c, lay)
        for k, (op, a, b) in enumerate(check[:3] for check in KIND_CHECKS.get(lay.name, ())):
            self.site(c, ("kind", lay, k))
            if isinstance(b, str):  # "less": field a < field b
                c.emit(op, c.read(a, "kind check"), c.read(b, "kind check"))
            else:  # "equal": field a == the value b
                c.emit(op, c.read(a, "kind check"), _i64(b))
        self.site(c, ("end", lay, None))
        c.emit("end")
        return leaf

    def argument(self, t: int, lay: Layout) -> int:
        pc = len(self.out)
        leaf = self.arg_leaves[t] = ArgLeaf(lay)
        c = _Code(self.out, leaf)
        self.fields(c, lay.full_fields)
        self.body(c, lay)
        if self.log:  # a log's strings are inline only, and its arguments have names
            for f in lay.all_fields():
                if f.role == "string_ref":
                    c.emit("logref", c.read(f.name, "logref"), LOG_NAME if f.name == "name" else LOG_INLINE)
        c.emit("end")
        if len(leaf.vals) > MAX_ARG_VALS or len(leaf.pos) > MAX_ARG_POS:
            raise TableError(f"argument {lay.name}: more than {MAX_ARG_VALS} values or {MAX_ARG_POS} positions")
        return pc

    # -- the dispatch tree ---------------------------------------------------------
    def node(self, nodes: list, lay: Layout | None) -> int:
        """Append ``lay``'s node (and its subtree) to ``nodes``; returns its index there."""
        at = len(nodes)
        if lay is None or lay.is_leaf:
            leaf = None
            if lay is not None and lay.name not in self.reference_kinds:
                leaf = self.leaf(lay)
            self.terminals.append(Terminal(len(self.terminals), leaf))
            nodes.extend((TERMINAL, len(self.terminals) - 1, -1, 0))  # pc patched at the end
            return at
        sel = lay.selector
        assert sel is not None  # not a leaf
        n = 1 << sel.width
        if n > 256:
            raise TableError(f"{lay.name}: a selector of {sel.width} bits is beyond the native screen")
        nodes.extend((SELECT, sel.lo, _i64(sel.mask), 0))
        kids = len(nodes)
        nodes.extend([0] * n)
        for v in range(n):
            nodes[kids + v] = self.node(nodes, lay.variants.get(v))
        return at


_ITEMS = check_dispatch({
    WordItem: _Compiler.word,
    WordsItem: _Compiler.words,
    StringItem: _Compiler.string,
    StreamItem: _Compiler.stream,
    ArgsItem: _Compiler.args,
    VariantItem: _Compiler.variant,
}, "the screen compiler")


def _i64(v: int) -> int:
    """A 64-bit pattern as the int64 that holds it."""
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


def _field(role: str, flds) -> Field:
    return by_role(flds, role, "screen program fields")


def compile_program(log: bool, reference_kinds=frozenset(), tables_: Tables | None = None) -> Program:
    """The program that screens a trace (``log`` False) or a structured-log stream;
    leaves named in ``reference_kinds`` are only framed (their rows are slow).
    ``tables_``: other tables than the loaded spec tables (tests). Its code is an
    ``array("q")``."""
    T = tables_ if tables_ is not None else tables()
    comp = _Compiler(T, log, reference_kinds)
    rtype = _field("type", T.header)
    rsize = _field("size", T.header)
    atype = _field("type", T.argument_header)
    asize = _field("size", T.argument_header)
    ntypes = 1 << rtype.width
    nargs = 1 << atype.width
    if ntypes > 256 or nargs > 256:
        raise TableError("a record or argument type field wider than 8 bits is beyond the native screen")
    roots = {t: T.log_record for t in range(ntypes)} if log else dict(T.records)
    # the size field of each record type (large records have a 32-bit one; a log has none)
    large: dict[int, Field] = {} if log else {
        t: lay.size_field for t, lay in T.records.items() if lay.size_field is not None and lay.size_field != rsize}

    # the dispatch tree: types ascending, then selector values
    nodes: list[int] = []
    root_at = [comp.node(nodes, roots.get(t)) for t in range(ntypes)]

    # argument layouts: allowed types of a log, numeric types of counters
    arg_table = _argument_table(comp, T, log, nargs)

    code = comp.out
    header = [0] * len(HEADER)
    sizes_at = len(header)
    sizes = _size_table(large, rsize, ntypes)
    roots_at = sizes_at + len(sizes)
    nodes_at = roots_at + ntypes
    args_at = nodes_at + len(nodes)
    code_at = args_at + 3 * nargs
    enums_at = code_at + len(code)
    # relocate: children, roots and pcs become absolute indices of the program
    for leaf in comp.leaves.values():
        leaf.pc += code_at
    nodes = _relocate_nodes(nodes, nodes_at, comp.terminals)
    args_flat = [v for pc, ok, num in arg_table for v in (pc + code_at if pc >= 0 else -1, ok, num)]
    enum_flat: list[int] = []
    for operand, table in comp.enums:
        code[operand] = enums_at + len(enum_flat)
        enum_flat.extend(table)
    nvals, npos = _columns_needed(comp.leaves)
    narg_vals, narg_pos = _columns_needed(comp.arg_leaves)
    values = {
        "magic": _i64(MAGIC), "type_lo": rtype.lo, "type_mask": rtype.mask, "arg_type_lo": atype.lo,
        "arg_type_mask": atype.mask, "arg_size_lo": asize.lo, "arg_size_mask": _i64(asize.mask),
        "nvals": nvals, "npos": npos, "narg_vals": narg_vals, "narg_pos": narg_pos,
        "inline_bit": T.string_inline_bit,
        "max_string": T.max_string_length, "far": FAR, "sizes": sizes_at, "roots": roots_at, "nodes": nodes_at,
        "nodes_end": args_at, "args": args_at, "nterminals": len(comp.terminals),
    }
    for k, v in values.items():
        header[H[k]] = v
    flat = header + sizes + [nodes_at + r for r in root_at] + nodes + args_flat + code + enum_flat
    flat[H["length"]] = len(flat)
    words = array("q", flat)
    return Program(words, comp.terminals, comp.leaves, comp.arg_leaves, nvals, npos, narg_vals,
                   narg_pos, log, {pc + code_at: site for pc, site in comp.sites.items()})


def _argument_table(comp: _Compiler, T: Tables, log: bool, nargs: int) -> list[tuple[int, int, int]]:
    """Per argument type: (its layout's pc or -1, allowed, numeric)."""
    allowed = set(T.log_allowed_argument_types) if log else set(range(nargs))
    arg_table = []
    for t in range(nargs):
        lay = T.arguments.get(t)
        pc = comp.argument(t, lay) if lay is not None else -1
        arg_table.append((pc, int(t in allowed), int(lay is not None and lay.numeric)))
    return arg_table


def _size_table(large: dict, rsize: Field, ntypes: int) -> list[int]:
    """Per record type: its size field's (lo, mask)."""
    sizes: list[int] = []
    for t in range(ntypes):
        f = large.get(t, rsize)
        sizes.extend((f.lo, _i64(f.mask)))
    return sizes


def _columns_needed(leaves: dict) -> tuple[int, int]:
    """The most value and position columns any of ``leaves`` fills."""
    return (max((len(leaf.vals) for leaf in leaves.values()), default=0),
            max((len(leaf.pos) for leaf in leaves.values()), default=0))


def _relocate_nodes(nodes: list, base: int, terminals: list) -> list:
    """Nodes with absolute child indices and their terminals' (already absolute) pcs."""
    out = list(nodes)
    i = 0
    while i < len(out):
        if out[i] == TERMINAL:
            leaf = terminals[out[i + 1]].leaf
            out[i + 2] = leaf.pc if leaf is not None else -1
            i += 4
        else:
            n = out[i + 2] + 1
            for j in range(i + 4, i + 4 + n):
                out[j] += base
            i += 4 + n
    return out
