"""The canonical decoding: records as plain JSON values that any reader can print.

A decoding is ``{"records": [...]}``, one object per record a reader hands to its user,
in file order. Each object has the record's ``kind`` (the tables' dotted name), its
``provider`` (``{"id", "name"}`` of the provider section it is in, or null), and its
fields by the tables' names, walked from the record's layout:

- string refs are resolved to their text, thread refs to ``{"process_koid",
  "thread_koid"}`` (only ``process_koid`` for a userspace object's process);
- sizes, selectors, argument counts, stream lengths, inline-thread words and reserved
  or always-zero fields are left out: they are the encoding, not the content;
- a value read from a 64-bit word is a decimal string (no JSON reader rounds it); a
  narrower header field is a number; a UTF-8 stream is a string, a binary one hex;
- ``arguments`` is a list of ``{"name", "type", "value"}`` in order, ``type`` the
  tables' argument name; doubles are numbers ("NaN", "Infinity", "-Infinity" as strings).

Records that only set reader state do not appear; their effect does (the tables'
``effect`` of each record kind, carried out by ``ProviderState``). Timestamps stay in
ticks, the tables' unit. Records of undefined types, subtypes and arguments of
undefined types are skipped, and words after a record's defined content are ignored,
as the spec tells readers to do.

A consumer of the walk (``_walk``): decoded records become canonical objects one by
one (the reference path, ``decode``). Where the native walk is built ``decode_to`` rides
it behind a linter whose findings nothing reads (``_aboard``): its rows mode writes the
line of every record of a kind the decoding prints natively (``_NativeRecords``, key by
key as ``_row_plan`` derives from ``SHAPES`` and the program's slots), at each stop of the
walk; a record with a finding the reference must describe is noted and decoded one by
one, as is a provider info or magic record. Either way each line is byte for byte what
``json.dumps`` writes for the same object, written as soon as its stretch is done, so
memory does not grow with the file.
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass, field
from typing import IO

from ..engine._feeder import walk_source
from ..engine._jsontext import Lines, key
from ..engine._provider_state import INLINE_BIT, ProviderState
from ..engine._reader import detect_byte_order
from ..engine._walk import Consumer, Walk
from ..rules._diagnostics import Severity
from ..spec._limits import DEFAULT_LIMITS, Limits
from ..spec._model import Argument, Record
from ..spec._roles import EFFECT_OF, INLINE_KOIDS, STATE_KINDS, STRING_REFS, is_undefined
from ..spec._tables import ArgsItem, Layout, StreamItem, WordItem, tables
from ._reader_verdicts import REJECT, SKIP, verdict

_T = tables()
_LEAVES = {leaf.name: leaf for leaf in _T.record_leaves()}
_ARGS = {a.type: a for a in _T.arguments.values()}

_ENCODING_ROLES = frozenset(("type", "size", "selector", "arg_count"))


@dataclass
class Decoding:
    """The canonical records of a file: all of them, or those before the first error.

    ``errors`` lists what fxtlint's reader rejects (fxtlint.reader_suite._reader_verdicts:
    framing, overruns, text that is not UTF-8, refs that resolve to nothing), first one
    first; ``faults`` the same as (record index, verdict): ``skip`` where a reader may
    instead skip that record, ``reject`` where none can go on; ``notes`` the writer errors
    a reader may read through (reserved bits, padding...).
    """

    records: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    faults: list = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        return not self.errors

    def document(self) -> dict:
        return {"records": self.records}

    def to_json(self) -> str:
        return dumps(self.document())


def dumps(document: dict) -> str:
    """The canonical text of a decoding: stable key order, one record per line."""
    lines = [json.dumps(r, ensure_ascii=False, allow_nan=False) for r in document["records"]]
    if not lines:
        return '{"records": []}\n'
    return '{"records": [\n' + ",\n".join(lines) + "\n]}\n"


class _Unresolved(Exception):
    """A ref to a table entry that was never registered (internal; never escapes)."""


def _word(value: int) -> str:
    return str(value)


def _double(value: float):
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return value


def _stream_value(value):
    """A UTF-8 stream's text; a binary one (or text that is not UTF-8) as hex."""
    if isinstance(value, str):
        return value
    return bytes(value).hex()


class _Canonicaliser:
    """Resolves records against the provider tables kept by ``ProviderState``; a ref
    to nothing raises ``_Unresolved`` here, where the exporter would skip it."""

    def __init__(self, state: ProviderState):
        self.state = state

    @property
    def current(self):
        return self.state.current

    # -- refs ----------------------------------------------------------------------
    def string(self, ref: int, strings: dict, name: str, label: str = "") -> str:
        label = label or name
        if name in strings:  # inline
            value = strings[name]
            if not isinstance(value, str):
                raise _Unresolved(f"inline string {label} is not UTF-8")
            return value
        if ref == 0:
            return ""
        if ref & INLINE_BIT:  # inline but not decoded: the reader reported why
            raise _Unresolved(f"inline string {label} could not be read")
        gid = self.current.strings.get(ref)
        if gid is None:
            raise _Unresolved(f"string ref {ref} ({label}) is not registered")
        return self.state.text(gid)

    def thread(self, ref: int, fields: dict, words: tuple[str, ...], name: str) -> dict:
        if ref == 0:
            koids = {_koid_key(w): fields.get(w, 0) for w in words}
        else:
            entry = self.current.threads.get(ref)
            if entry is None:
                raise _Unresolved(f"thread ref {ref} ({name}) is not registered")
            both = {"process_koid": entry[0], "thread_koid": entry[1]}
            koids = {_koid_key(w): both[_koid_key(w)] for w in words}
        return {k: _word(v) for k, v in koids.items()}

    # -- records -------------------------------------------------------------------
    def record(self, rec: Record) -> dict:
        p = self.current
        out: dict = {"kind": rec.kind, "provider": None if p.id is None else {"id": p.id, "name": p.name}}
        f, s = rec.fields, rec.strings
        for name, how in SHAPES[rec.kind]:
            if how == "string":
                out[name] = self.string(f.get(name, 0), s, name)
            elif how == "thread":
                out[name] = self.thread(f.get(name, 0), f, _WORDS_BY_REF[(rec.kind, name)], name)
            elif how == "number":
                out[name] = f.get(name, 0)
            elif how == "word":
                out[name] = _word(f.get(name, 0))
            elif how == "double":
                out[name] = _double(f.get(name, 0.0))
            elif how in ("text", "hex"):
                out[name] = _stream_value(s.get(name, b""))
            else:  # arguments
                out[name] = [a for a in (self.argument(x) for x in rec.args) if a is not None]
        return out

    def argument(self, arg: Argument) -> dict | None:
        lay = _ARGS.get(arg.type)
        if lay is None or arg.kind == "unknown":
            return None  # an undefined argument type is skipped by its size
        name = self.string(arg.fields.get("name", 0), arg.strings, "name", "argument name")
        return {"name": name, "type": lay.name, "value": self.argument_value(lay, arg)}

    def argument_value(self, lay: Layout, arg: Argument):
        f = lay.field("value")
        if f is not None and f.role == "string_ref":
            return self.string(arg.fields.get("value", 0), arg.strings, "value", "argument value")
        if f is not None:  # a header field: a number, or a bool when one bit wide
            v = arg.fields.get("value", 0)
            return bool(v) if f.width == 1 else v
        for it in lay.full_body:
            if isinstance(it, WordItem) and it.name == "value":
                v = arg.fields.get("value", 0)
                return _double(v) if it.float else _word(v)
            if isinstance(it, StreamItem):
                return _stream_value(arg.strings.get(it.name, b""))
        return None  # the null argument


def _koid_key(word_name: str) -> str:
    return "process_koid" if word_name.endswith("process_koid") else "thread_koid"


_WORDS_BY_REF = INLINE_KOIDS  # per (record kind, thread-ref field): the koid words


def _shape(lay: Layout) -> tuple[tuple[str, str], ...]:
    """The canonical keys of a record kind, in order, each with how its value is made:
    string | thread | number | word | double | text | hex | arguments."""
    lengths = {it.length for it in lay.full_body if isinstance(it, StreamItem)}

    def header(flds):
        for f in flds:
            if f.role in _ENCODING_ROLES or f.must_be_zero or f.const is not None or f.name in lengths:
                continue
            yield f.name, {"string_ref": "string", "thread_ref": "thread"}.get(f.role, "number")

    out = list(header(lay.full_fields))
    for it in lay.full_body:
        if isinstance(it, WordItem) and it.fields:
            out += header(it.fields)
        elif isinstance(it, WordItem) and it.name not in lengths:
            out.append((it.name, "double" if it.float else "word"))
        elif isinstance(it, StreamItem):
            out.append((it.name, "text" if it.content == "utf8" else "hex"))
        elif isinstance(it, ArgsItem):
            out.append(("arguments", "arguments"))
    return tuple(out)


SHAPES = {leaf.name: _shape(leaf) for leaf in _T.record_leaves() if leaf.name not in STATE_KINDS}
class Canonical(Consumer):
    """The canonical decoding as a consumer of the walk (its ``emit`` being
    ``reader_diagnostic``). ``write(texts)`` gets the JSON text of each record in file
    order, a batch at a time, up to the first record in error; with ``keep`` the
    records are kept as objects instead (``decoded``)."""

    def __init__(self, write=None, keep: bool = False, strict: bool = False):
        self.write = write
        self.keep = keep
        self.strict = strict
        self.decoded: list[dict] = []
        self.errors: list = []  # (record index, offset, message, verdict); a file-level one at index None
        self.notes: list[str] = []  # writer errors a reader may read through (not with ``strict``)
        self.stop: int | None = None  # the first record in error
        self._pending: list = []  # (record index, text) of the noted records of a stop of the native walk

    def reader_diagnostic(self, d) -> None:
        if d.severity >= Severity.ERROR:
            message = f"{d.code} at {d.offset:#x}: {d.message}"
            v = verdict(d)
            if not self.strict and v not in (SKIP, REJECT):
                self.notes.append(message)  # a reader may read through it (fxtlint.reader_suite._reader_verdicts)
                return
            self._error(d.record_index if d.record_index >= 0 else None, d.offset, message,
                        REJECT if v not in (SKIP, REJECT) else v)

    def _error(self, at, offset: int, message: str, how: str = SKIP) -> None:
        """A fault at record ``at``: ``how`` says whether a reader may skip that record (a ref
        to nothing: the record cannot be decoded, but it frames) or none can go on."""
        self.errors.append((at, offset, message, how))
        if at is not None and (self.stop is None or at < self.stop):
            self.stop = at

    def _before_stop(self, index: int) -> bool:
        return self.stop is None or index < self.stop

    rides_native = True  # (the walk takes the native walk only with a linter aboard: ``_aboard``)
    riding = False  # on the native walk's rows (``ride``)
    _collecting = False  # the lines of noted records kept for the rider (``_NativeRecords.take``)

    def ride(self, walk: Walk, nw, module):
        """The decoding's rider on the native walk ``nw``: its records written natively from
        the rows mode's rows (``_NativeRecords``), the records it notes or hands back decoded
        one by one (``record``)."""
        self.riding = True
        return _NativeRecords(self, walk, nw, module)

    def start(self, walk: Walk) -> None:
        self.walk = walk
        self.canon = _Canonicaliser(walk.state)

    def finish(self, walk: Walk) -> None:
        # a file-level error sorts after every record (it cuts none of them)
        self.errors = [(walk.records if at is None else at, off, msg, how) for at, off, msg, how in self.errors]
        self.errors.sort(key=lambda e: (e[0], e[1]))

    # -- one record at a time ----------------------------------------------------------
    _rows: _NativeRecords | None = None  # the rider, while riding

    def record(self, rec: Record, change=None) -> None:
        if self._rows is not None and rec.kind in _NAMING:
            self._rows.known()  # (a provider's text: the walk's direct lines after it name it anew)
        if is_undefined(rec.kind) or rec.kind in STATE_KINDS:
            return  # skipped by its size; or folded into the provider tables
        try:
            obj = self.canon.record(rec)
        except _Unresolved as e:
            self._error(rec.index, rec.offset, f"record {rec.index} at {rec.offset:#x}: {e}")
            return
        if not self._before_stop(rec.index):
            return
        if self.keep:
            self.decoded.append(obj)
        elif self._collecting:
            self._pending.append((rec.index, _line(obj)))
        else:
            self.write([_line(obj)])

# the records that name a provider (handed back to ``Canonical.record``)
_NAMING = frozenset(k for k, e in EFFECT_OF.items() if e == "names_provider")
# the records the walk walks with nothing to write: their effect is the walk's own
_FOLDED = frozenset(k for k, e in EFFECT_OF.items()
                    if e in ("registers_string", "registers_thread", "sets_tick_rate", "switches_provider"))


def _field(lay: Layout, name: str):
    """The header field ``name`` of ``lay``, in its header or in one of its words."""
    f = lay.field(name)
    if f is not None:
        return f
    return next(x for it in lay.full_body if isinstance(it, WordItem) for x in it.fields if x.name == name)


def _key_ops(kind: str, leaf) -> list[dict]:
    """How the rows mode writes each key of a record of ``kind`` (``SHAPES[kind]``): a
    ``DOp``'s fields (``_nwalk_rows.pxi``'s ``DecodeHow``) with the key's text and the field's
    name, the slots from the program's leaf (``leaf.vals``: value slots, ``leaf.pos``:
    position slots)."""
    from ..engine._walk_rows import DECODE_HOW as H

    lay, vals, pos = leaf.layout, leaf.vals, leaf.pos
    ops = []
    for name, how in SHAPES[kind]:
        d: dict = {"text": (", " + key(name)).encode(), "label": name}
        if how == "string":
            d.update(how=H["string"], a=STRING_REFS[kind].index(name))
        elif how == "thread":
            words = _WORDS_BY_REF[(kind, name)]
            slots = [pos.get(w, -1) for w in words] + [-1, -1]
            kinds = [0 if _koid_key(w) == "process_koid" else 1 for w in words] + [0, 0]
            d.update(how=H["thread"], a=vals[name], b=slots[0], c=slots[1], nk=len(words), k0=kinds[0], k1=kinds[1])
        elif how == "number":
            f = _field(lay, name)
            d.update(how=H["number"], a=vals[name], b=f.width, c=int(f.signed))
        elif how == "word":  # (nk: a koid, whose text the walk keeps: koids repeat)
            d.update(how=H["word"], a=vals[name], c=int(_word_is_signed(lay, name)), nk=int(name.endswith("koid")))
        elif how == "double":
            d.update(how=H["double"], a=vals[name])
        elif how in ("text", "hex"):
            stream = next(it for it in lay.full_body if isinstance(it, StreamItem) and it.name == name)
            d.update(how=H[how], a=pos[name], b=vals[stream.length])
        else:
            d["how"] = H["arguments"]
        ops.append(d)
    return ops


@functools.cache
def _row_plan(log: bool) -> tuple:
    """The rows mode's plan for the canonical decoding over the native walk's program:
    (per terminal ``XTerm``'s fields, per argument type ``XArg``'s, per terminal its keys'
    ops and its text up to the provider, per argument type its JSON name). Every kind the
    decoding prints is a row, written natively, but where the walk hands its records back
    (its plan's ``M_REFERENCE``) or notes them (a finding the reference says); handed back
    are also a record that names a provider (the provider texts of a stretch's rows are
    those at its stop), a magic record (the reader says where one repeats) and one of an
    undefined type (the reader says what it skips). A structured-log stream is no trace to
    decode: its records are handed back."""
    from ..engine._walk_native import M_EVENT, M_PROVIDER_EVENT, plan
    from ..engine._walk_rows import X_BACK, X_NONE, X_ROW, arg_plan

    prog, modes = plan(log)[:2]
    terms, ops, heads = [], [], []
    for t, m in zip(prog.terminals, modes, strict=True):
        d = {"act": X_BACK, "ph": 0, "ts": -1, "v2": -1, "iname": 0, "icat": 0}
        leaf = t.leaf
        kind = leaf.layout.name if leaf is not None and not log else None
        o: list = []
        head = b""
        if kind in _FOLDED:
            d["act"] = X_NONE
        elif kind is not None and kind in SHAPES and m["mode"] in (M_EVENT, M_PROVIDER_EVENT):
            d["act"] = X_ROW
            o = _key_ops(kind, leaf)
            head = ("{" + key("kind") + json.dumps(kind) + ", " + key("provider")).encode()
        terms.append(d)
        ops.append(o)
        heads.append(head)
    args: list = [None] * (max(prog.arg_leaves, default=-1) + 1)
    argtypes: list = [b""] * len(args)
    for ty, a in prog.arg_leaves.items():
        args[ty] = arg_plan(a)
        argtypes[ty] = json.dumps(a.layout.name).encode()
    return terms, args, ops, heads, argtypes


class _NativeRecords:
    """The canonical decoding on the native walk's rows mode (``_nwalk_rows.pxi``): its
    records' lines written by the walk as it walks them (``RowSink.direct_lines``: byte for
    byte ``_line`` of ``Canonical.record``'s object), or, where a line needs what the walk
    does not know yet (a string interned since the last stop, a provider's text) or is no
    line (a ref to nothing: an error, as the canonicaliser says it), kept as a row and
    written at the next stop by the walk's formatter; in file order with the records it
    noted, which the reference decoder reads (its diagnostics the decoding's) and
    ``Canonical.record`` decodes. The records handed back go to ``Canonical.record`` after
    the stop's lines."""

    def __init__(self, canon: Canonical, walk: Walk, nw, module):
        from ..engine._walk_rows import checked

        terms, args, ops, heads, argtypes = _row_plan(walk.log)
        self.sink = checked(module).RowSink()
        self.sink.export_plan(terms, args)
        self.sink.decode_plan(ops, heads, argtypes)
        nw.collect_rows(self.sink)
        self.canon = canon
        self.walk = walk
        self.texts: list[bytes] = []
        self.known()
        canon._rows = self

    def known(self) -> dict:
        """What the lines need that the walk does not read: the interned strings' JSON texts
        and the providers' texts, as the tables are now; told to the walk (its direct lines)
        and returned (the providers')."""
        state, texts = self.walk.state, self.texts
        values = state.strings.values
        if len(texts) < len(values):  # (the interner only grows)
            texts += [json.dumps(state.text(g), ensure_ascii=False).encode() for g in range(len(texts), len(values))]
        provs = {-1: b"null"}
        for pid, p in state.providers.items():
            if pid is not None:
                provs[pid - (1 << 64) if pid >= 1 << 63 else pid] = _line({"id": p.id, "name": p.name}).encode()
        self.sink.direct_lines(texts, provs)
        return provs

    def take(self) -> None:
        from ..engine._reader import decode_record

        w, canon, sink = self.walk, self.canon, self.sink
        provs = self.known()
        errors: list = []
        canon._collecting = True  # (``record`` keeps the line of a noted record for here)
        try:
            for index, offset, words, _rate, cut in sink.take_notes(True):
                self._format(index, provs, errors)
                sink.direct_to(cut, canon.stop is None, self._flush)
                canon.record(decode_record(w.buf, offset, index, words, canon.reader_diagnostic, big=w.big,
                                           log=w.log, resync=False))
                for _, t in canon._pending:
                    sink.append_line(t.encode())
                canon._pending.clear()
        finally:
            canon._collecting = False
        self._format(1 << 62, provs, errors)
        sink.direct_to(-1, canon.stop is None, self._flush)
        sink.clear_rows()
        canon.write.drain(sink)  # (the stretch's lines, written out without a copy)

    def _flush(self, text) -> None:
        """Lines the walk's formatter wrote, handed out while it writes (a view it releases)."""
        self.canon.write.raw([text])

    def _format(self, below: int, provs: dict, errors: list) -> None:
        canon = self.canon
        self.sink.format_decode(below, 1 << 62 if canon.stop is None else canon.stop, self.texts, provs, errors,
                                self._flush)
        for index, offset, message in errors:
            canon._error(index, offset, message)
        errors.clear()


def _aboard(walk: Walk, canon: Canonical) -> Walk:
    """``canon`` the consumer of ``walk``: riding the native walk behind a linter whose
    findings nothing reads where the walk's engine walks natively (the rows mode writes
    every kind the decoding prints natively), alone otherwise (the reference path;
    ``decode``'s, which keeps objects)."""
    from ..engine._lint_consumer import Lint
    from ..engine._native import walks_natively
    from ..engine._result import DiagnosticSink

    if not canon.keep and walks_natively(walk.engine):
        lint = Lint(DiagnosticSink(per_rule_cap=1).add, walk.limits, walk.log)
        lint.silent = True
        walk.consumers = [lint, canon]
        walk.lint = lint
    return walk


def _line(obj: dict) -> str:
    return json.dumps(obj, ensure_ascii=False, allow_nan=False)


def _word_is_signed(lay: Layout, name: str) -> bool:
    return any(isinstance(it, WordItem) and it.name == name and it.signed for it in lay.full_body)


def _decoding_walk(data, consumer: Canonical, byte_order: str | None, engine: str | None,
                   limits: Limits = DEFAULT_LIMITS) -> Walk:
    big = (byte_order or detect_byte_order(data) or "little") == "big"
    return Walk(data, [consumer], big=big, emit=consumer.reader_diagnostic, engine=engine, limits=limits,
                resync=True)


def decode(data, *, byte_order: str | None = None, strict: bool = False) -> Decoding:
    """The canonical decoding of a trace archive, record by record. Never raises on input.

    A file with a fault a reader must reject or may skip the record of (a reader
    diagnostic whose verdict is ``reject`` or ``skip``, or a ref that resolves to
    nothing) is rejected, keeping only the records before the first record in error: the
    prefix that the spec's recovery promise covers (``faults`` says which a reader could
    have skipped instead). Other error-severity diagnostics are ``notes``; ``strict``
    makes them errors too.
    """
    canon = Canonical(keep=True, strict=strict)
    _decoding_walk(data, canon, byte_order, "reference").run()
    return Decoding(canon.decoded, [msg for _, _, msg, _ in canon.errors], canon.notes,
                    [(at, how) for at, _, _, how in canon.errors])


def decode_to(data, out: IO[str], *, byte_order: str | None = None, engine: str | None = None,
              limits: Limits = DEFAULT_LIMITS, strict: bool = False, stream=None) -> Decoding:
    """Write the canonical JSON of ``data`` to ``out`` as it is read (``dumps`` of
    ``decode(data)``, byte for byte); returns its errors (none: accepted) and notes, the
    records having gone to ``out``. ``data`` may be ``open_buffer``'s ``FileSource``
    (read and decoded a chunk at a time). ``stream``: byte chunks to decode instead of
    ``data`` (a pipe), written as they arrive (``_feeder``)."""
    write = Lines(out, '{"records": [\n')
    canon = Canonical(write, strict=strict)
    if stream is None:  # a buffer, or a file read a chunk at a time (``_file.FileSource``)
        walk_source(data, lambda buf, _: _aboard(_decoding_walk(buf, canon, byte_order, engine, limits), canon))
    else:
        from ..engine._feeder import stream_walk

        stream_walk(lambda buf, _: _aboard(_decoding_walk(buf, canon, byte_order, engine, limits), canon), [],
                    stream)
    out.write('{"records": []}\n' if write.empty else "\n]}\n")
    return Decoding([], [msg for _, _, msg, _ in canon.errors], canon.notes,
                    [(at, how) for at, _, _, how in canon.errors])


# ------------------------------------------------------------------ the JSON Schema
_U64 = {"type": "string", "pattern": "^(0|[1-9][0-9]*)$"}
_I64 = {"type": "string", "pattern": "^(0|-?[1-9][0-9]*)$"}
_HEX = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
_DOUBLE = {"anyOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}]}
_KOIDS = {"process_koid": _U64, "thread_koid": _U64}


def _value_schema(how: str, kind: str, name: str) -> dict:
    if how == "thread":
        keys = sorted({_koid_key(w) for w in _WORDS_BY_REF[(kind, name)]})
        return {"type": "object", "properties": {k: _KOIDS[k] for k in keys}, "required": keys,
                "additionalProperties": False}
    schemas: dict[str, dict] = {
        "string": {"type": "string"}, "number": {"type": "integer", "minimum": 0}, "word": _U64,
        "double": _DOUBLE, "text": {"type": "string"}, "hex": _HEX,
        "arguments": {"type": "array", "items": {"$ref": "#/$defs/argument"}}}
    return schemas[how]


def _argument_value_schema(lay: Layout) -> dict:
    f = lay.field("value")
    if f is not None and f.role == "string_ref":
        return {"type": "string"}
    if f is not None:
        if f.width == 1:
            return {"type": "boolean"}
        lo, hi = (-(1 << (f.width - 1)), (1 << (f.width - 1)) - 1) if f.signed else (0, (1 << f.width) - 1)
        return {"type": "integer", "minimum": lo, "maximum": hi}
    for it in lay.full_body:
        if isinstance(it, WordItem) and it.name == "value":
            return _DOUBLE if it.float else (_I64 if it.signed else _U64)
        if isinstance(it, StreamItem):
            return _HEX if it.content != "utf8" else {"type": "string"}
    return {"type": "null"}


def json_schema() -> dict:
    """The JSON Schema (2020-12) of a canonical decoding, derived from the spec tables."""
    records = []
    for kind, shape in SHAPES.items():
        props = {"kind": {"const": kind}, "provider": {"$ref": "#/$defs/provider"}}
        props.update({name: _value_schema(how, kind, name) for name, how in shape})
        records.append({"type": "object", "properties": props, "required": list(props),
                        "additionalProperties": False})
    arguments = [{"type": "object", "properties": {"name": {"type": "string"}, "type": {"const": lay.name},
                                                   "value": _argument_value_schema(lay)},
                  "required": ["name", "type", "value"], "additionalProperties": False}
                 for lay in _T.arguments.values()]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://fxtlint.invalid/conformance/canonical.schema.json",
        "title": "Canonical decoding of an FXT trace (fxtlint decode; the conformance suite)",
        "description": "Generated from spec-tables/ by fxtlint.reader_suite._canonical.json_schema(); do not edit.",
        "type": "object",
        "properties": {
            "records": {"type": "array", "items": {"$ref": "#/$defs/record"}},
            # a reader's output only: argument types it returns alike (the runner grades
            # a right value of another type in the group "unreported")
            "cannot_tell_apart": {"type": "array", "items": {
                "type": "array", "items": {"enum": [lay.name for lay in _T.arguments.values()]}}},
        },
        "required": ["records"],
        "additionalProperties": False,
        "$defs": {
            "provider": {"anyOf": [{"type": "null"}, {
                "type": "object", "properties": {"id": {"type": "integer", "minimum": 0},
                                                 "name": {"type": ["string", "null"]}},
                "required": ["id", "name"], "additionalProperties": False}]},
            "record": {"oneOf": records},
            "argument": {"oneOf": arguments},
        },
    }
