"""The recovering reader: bytes in, records and diagnostics out. Never raises on input.

Framing walks record headers by their size; each record is decoded by walking its
layout from the spec tables, reading only inside the record's own bytes. A problem
becomes a diagnostic and decoding carries on where it safely can: a bad argument is
skipped by its size, an undefined type by the record's size, and only a header that
cannot be framed (size 0, past the end of the file) ends the walk.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator

from .. import rules as R
from ..rules._diagnostics import Diagnostic
from ..spec._model import Argument, Record
from ..spec._roles import KIND_OF_EFFECT, field_of_role
from ..spec._tables import (
    ArgsItem,
    Field,
    Layout,
    StreamItem,
    StringItem,
    TableError,
    VariantItem,
    WordItem,
    WordsItem,
    check_dispatch,
    tables,
)
from ._stream_buffer import NeedMore

_T = tables()
_MAGIC = _T.magic_word
MAGIC_LE = struct.pack("<Q", _MAGIC)
MAGIC_BE = struct.pack(">Q", _MAGIC)
_HEADER_TYPE = _T.field(role="type")
_HEADER_SIZE = _T.field(role="size")
_ARG_TYPE = _T.field(role="type", of="argument")
_ARG_SIZE = _T.field(role="size", of="argument")
_ARG_NAME = ARG_NAME = _T.field(role="string_ref", of="argument")
_INLINE_BIT = _T.string_inline_bit
_INLINE_LEN = _INLINE_BIT - 1

Emit = Callable[[Diagnostic], None]
_UNPACK = {False: struct.Struct("<Q").unpack_from, True: struct.Struct(">Q").unpack_from}


def _have(buf, end: int) -> bool:
    """Whether ``buf`` holds the bytes up to ``end``. A stream still being fed
    (``_stream_buffer``) may deliver them later: it raises NeedMore, and the walk asks
    again with more bytes or at the stream's end, so a decision never depends on where
    the stream was cut. A file read a chunk at a time knows its final length (its
    ``final``, the rewrite's input): bytes past it never come."""
    if end <= len(buf):
        return True
    if getattr(buf, "growing", False):
        final = getattr(buf, "final", None)
        if final is None or end <= final:
            raise NeedMore(end)
    return False


def _final_len(buf) -> int:
    """``len(buf)`` where the answer needs the final length (a message naming it): a
    growing buffer's ``final`` when it knows it."""
    if getattr(buf, "growing", False):
        final = getattr(buf, "final", None)
        if final is None:
            raise NeedMore(None)
        return final
    return len(buf)


def detect_byte_order(buf) -> str | None:
    """'little' or 'big' when the buffer starts with the magic record, else None."""
    head = bytes(buf[:8])
    if head == MAGIC_LE:
        return "little"
    if head == MAGIC_BE:
        return "big"
    return None


def looks_like_structured_log(buf) -> bool:
    """A structured-log stream starts with a type-9 header whose severity byte is set
    and whose reserved bits [16..55] are clear; a trace starts with the magic record."""
    if not _have(buf, 16) or detect_byte_order(buf) is not None:
        return False
    lr = _T.log_record
    (header,) = struct.unpack_from("<Q", buf, 0)
    sev = next(f for f in lr.full_fields if f.enum is not None)  # its one enum: the severity
    return _HEADER_TYPE.get(header) == lr.type and sev.get(header) != 0 and (header & lr.zero_mask) == 0


def field_span(base: int, f: Field, big: bool) -> tuple[int, int]:
    """Byte range of a field inside the 64-bit word at ``base``."""
    lo, hi = f.lo // 8, f.hi // 8
    if big:
        return (base + 7 - hi, base + 8 - lo)
    return (base + lo, base + hi + 1)



_STRING_KIND = KIND_OF_EFFECT["registers_string"]  # the string record
_STRING_INDEX = field_of_role(_STRING_KIND, "string_index")


def _inline_words(names) -> str:
    """What follows an inline thread ref, from the table's words: 'its process and thread koids
    follow as words', or for a userspace object (the spec's process id word only) 'its process
    koid follows as a word'."""
    koids = [n.removesuffix("_koid") for n in names]
    if len(koids) == 1:
        return f"its {koids[0]} koid follows as a word"
    return f"its {', '.join(koids[:-1])} and {koids[-1]} koids follow as words"

class _Fields:
    """A list of fields compiled once: (name, shift, mask, sign bit) per field, the bits
    that must be zero, and the fields that carry a check with the rule they report."""

    __slots__ = ("get", "zero_mask", "zero", "checks")

    def __init__(self, flds):
        self.get = tuple((f.name, f.lo, f.mask, f.sign_bit) for f in flds)
        self.zero_mask = 0
        for f in flds:
            if f.must_be_zero:
                self.zero_mask |= f.word_mask
        self.zero = tuple((f, _rule(f.rule)) for f in flds if f.must_be_zero)
        self.checks = tuple((f, _rule(f.rule), _rule(f.rule_between)) for f in flds
                            if f.const is not None or f.enum is not None)


def _rule(code):
    """The rule a table names; an unknown code fails at import, not on some input."""
    if code is None:
        return None
    rule = R.REGISTRY.get(code)
    if rule is None:
        raise TableError(f"the spec tables name rule {code}, which is not registered")
    return rule


_COMPILED: dict = {}


def _compiled(flds) -> _Fields:
    # keyed by identity: the tuples live in the loaded tables (hashing fields costs more)
    c = _COMPILED.get(id(flds))
    if c is None or c[0] is not flds:
        c = _COMPILED[id(flds)] = (flds, _Fields(flds))
    return c[1]


# The parameters (message fields and details) each kind of field check can report; a
# rule gets those it declares (the structured-log rules declare fewer).
_CHECK_PARAMS = {
    "zero": ("where", "field", "lo", "hi", "value", "expected"),
    "const": ("field", "value", "expected"),
    "enum": ("where", "field", "value", "enum"),
    "between": ("value", "below", "above"),
}


def _params(kind: str, rule, **all_params) -> dict:
    return {k: all_params[k] for k in _CHECK_PARAMS[kind] if k in rule.allowed}


def continues_as_text(value: bytes, spill: bytes) -> bool:
    """Whether the non-zero bytes after a string (``spill``) read as more of its text:
    valid UTF-8 of printable characters after a value that is valid UTF-8 itself. Only
    then is a miscounted length the likely cause (0xAA filler is garbage, not text)."""
    if not spill:
        return False
    try:
        value.decode("utf-8")
        more = spill.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return all(c.isprintable() or c in "\t\n\r" for c in more)


def text_run(after: bytes) -> bytes:
    """The printable UTF-8 text at the start of ``after``: up to its first zero byte, or
    the first byte that is not part of a printable character (a tab or a line break counts)."""
    run = after[: after.index(0)] if 0 in after else after
    try:
        text = run.decode("utf-8")
    except UnicodeDecodeError as e:
        text = run[: e.start].decode("utf-8")
    n = next((i for i, c in enumerate(text) if not (c.isprintable() or c in "\t\n\r")), len(text))
    return text[:n].encode("utf-8")


def length_guess(value: bytes, after: bytes, padded: int, tail: bool) -> int | None:
    """ST002: the length a string's own bytes give when its declared length (``value``'s)
    is too small: the printable text (``text_run``) running on in ``after``, the bytes from
    its declared end to the end of its record (or argument). The guess stands only when
    it fits the record: the string so padded ends where the declared one does
    (``padded`` bytes from its start, so what follows stays where it is) or, for a string
    that ends its record or argument (``tail``), where that ends; and its padding is
    zero. None: no guess (filler, or text that fits no such end)."""
    run = text_run(after)
    if not run or not continues_as_text(value, run):
        return None
    guess = len(value) + len(run)
    pad_to = (guess + 7) & ~7
    fits = pad_to == padded or (tail and pad_to == len(value) + len(after))
    if not fits or any(after[len(run) : pad_to - len(value)]):
        return None
    return guess


def _field_value(word: int, f) -> int:
    """Field ``f`` of ``word`` (two's complement where it is signed), as ``check_fields`` reads it."""
    v = (word >> f.lo) & f.mask
    if v & f.sign_bit:
        v -= f.sign_bit << 1
    return v


def report_fields(dec, word: int, base: int, cf: _Fields, where: str, out: dict | None = None) -> None:
    """A word's field checks (reserved bits that are set, RB001-RB003; a constant that
    differs, MG002; a value no enumeration defines, UN004 and the log's), each that fails
    built by ``dec`` (``wants``, then ``add``) in the tables' order: the reader's step
    (``_Decoder.check_fields``, ``out`` the fields it decoded) and the native walk's field
    rows (``report_layout``'s, from the word the row names alone) both say them here."""
    if word & cf.zero_mask:
        for f, rule in cf.zero:
            v = _field_value(word, f) if out is None else out[f.name]
            if v and dec.wants(rule):
                dec.add(rule, field_span(base, f, dec.big),
                        _params("zero", rule, where=where, field=f.name, lo=f.lo, hi=f.hi, value=v, expected=0))
    for f, rule, between in cf.checks:
        v = _field_value(word, f) if out is None else out[f.name]
        if f.const is not None:
            if v != f.const and dec.wants(rule):
                dec.add(rule, field_span(base, f, dec.big),
                        _params("const", rule, field=f.name, value=v, expected=f.const))
            continue
        values = _T.enums[f.enum]
        if v in values:
            continue
        below = max((k for k in values if k < v), default=None)
        above = min((k for k in values if k > v), default=None)
        if between is not None and below is not None and above is not None:
            if dec.wants(between):
                dec.add(between, field_span(base, f, dec.big),
                        _params("between", between, value=v, below=values[below], above=values[above]))
        elif dec.wants(rule):
            dec.add(rule, field_span(base, f, dec.big),
                    _params("enum", rule, where=where, field=f.name, value=v, enum=f.enum))


class _Decoder:
    """Decodes one record's layout; holds what every diagnostic of the record needs."""

    __slots__ = ("buf", "unpack", "big", "emit", "off", "idx", "size", "what", "log", "short_args", "tail", "skips",
                 "past", "keeps")

    def __init__(self, buf, unpack, big, emit, off, idx, size, what, log=False, skips=None):
        self.buf = buf
        self.unpack = unpack
        self.big = big
        self.emit = emit
        self.off = off
        self.idx = idx
        self.size = size
        self.what = what
        self.log = log
        self.short_args: list[int] = []  # arguments whose declared size is too small (ST005)
        self.tail = False  # the body item being read is its body's last (ST002's length guess may reach its end)
        # the sink's ``skips`` (``_result.skipper``): a diagnostic the per-rule cap would drop is
        # counted there and never built (None: every one is built)
        self.skips = skips
        # what a step read past the record: False (nothing), the questions it asked of what
        # follows and their answers (``_ask``: a missing padding's next header, a header's
        # kind), or True (a framing decision: the records after this one and where they are):
        # ``report_layout``'s answer
        self.past: bool | list = False
        # whether the words after an argument's content are read into it (``Argument.extra``):
        # not by ``report_layout``, which keeps no argument
        self.keeps = True

    def ask(self, question: str, *at: int):
        """The answer to ``question`` (``_QUESTIONS``) at positions ``at`` (bytes), noted
        with them from the record's start (``past``)."""
        answer = _QUESTIONS[question](self.buf, self.big, *at)
        self.heard(question, answer, *at)
        return answer

    def heard(self, question: str, answer, *at: int) -> None:
        """Note ``answer``, what ``question`` at ``at`` answers (``ask``'s)."""
        if self.past is not True:
            if self.past is False:
                self.past = []
            self.past.append((question, tuple(a - self.off for a in at), answer))

    def report(self, rule, span=None, **params):
        if self.skips is not None and self.skips(rule, self.off, self.idx):
            return
        self.emit(rule.at(self.off, self.idx, span=span, record_size=self.size, **params))

    def wants(self, rule) -> bool:
        """Whether a diagnostic of ``rule`` on this record is to be built (``report``'s question,
        asked before its parameters are worked out: False counts it as dropped by the cap)."""
        return self.skips is None or not self.skips(rule, self.off, self.idx)

    def build(self, rule, span=None, **params):
        """``report`` once ``wants`` said yes."""
        self.emit(rule.at(self.off, self.idx, span=span, record_size=self.size, **params))

    def add(self, rule, span, params: dict) -> None:
        """``build`` with its parameters in a dict (no keywords packed and unpacked again)."""
        self.emit(rule.at(self.off, self.idx, span=span, record_size=self.size, **params))

    # -- fields -------------------------------------------------------------------
    def check_fields(self, word, base, cf: _Fields, where):
        out = {}
        for name, lo, mask, sign in cf.get:
            v = (word >> lo) & mask
            if v & sign:
                v -= sign << 1
            out[name] = v
        report_fields(self, word, base, cf, where, out)
        return out

    # -- streams ------------------------------------------------------------------
    def stream(self, pos, end, length, part, content, strings, name, overrun, where=None, index=None):
        """``index``: the string index a string record registers (to name it in ST004)."""
        nbytes = (length + 7) & ~7
        if pos + nbytes > end:
            overrun(part, nbytes, end - pos, pos)
            return -1
        buf = self.buf
        where = where or self.what
        data = bytes(buf[pos : pos + length])
        if nbytes != length and any(buf[pos + length : pos + nbytes]) and self.wants(R.padding_not_zero):
            params = {}
            early = self.next_header_early(pos + length, pos + nbytes)
            if early is not None:
                # the padding is missing: the next record's header starts right after the value
                params = {"next_kind": early, "missing": nbytes - length}
            elif content == "utf8":
                # the value's own text runs on past its length: the length is too short
                guess = length_guess(data, bytes(buf[pos + length : end]), nbytes, self.tail)
                if guess is not None:
                    params = {"length": length, "suggested_length": guess}
            self.build(R.padding_not_zero, (pos + length, pos + nbytes), part=part, where=where, **params)
        if content == "utf8":
            # 32,000 bytes is the trace format's limit; the log format has none of its own
            if length > _T.max_string_length and not self.log:
                arg = where[len(self.what) + 1:] if where != self.what else None  # the argument's label
                self.report(R.string_too_long, (pos, pos + nbytes), part=part, record=self.what, length=length,
                            limit=_T.max_string_length, **({} if arg is None else {"arg": arg}),
                            **({} if index is None else {"index": index}))
            if length and data[-1] == 0:
                self.report(R.string_ends_in_nul, (pos + length - 1, pos + length), part=part,
                            where=where, length=length)
            try:
                strings[name] = data.decode("utf-8")
            except UnicodeDecodeError as e:
                self.report(R.invalid_utf8, (pos + e.start, pos + e.end), part=part, where=where,
                            reason=e.reason, at=e.start)
                strings[name] = data
        else:
            strings[name] = data
        return pos + nbytes

    def next_header_early(self, at: int, pad_end: int) -> str | None:
        """The kind of the record header found at ``at``, right after a stream that ends
        its record, when the records framed from there reach further than those framed
        from the padded end (``pad_end``): a writer that left the padding out, so the next
        record starts early. None otherwise (and for a stream inside its record, or a
        structured-log record)."""
        if self.log or pad_end != self.off + self.size:
            return None
        return self.ask("early", at, pad_end)

    # -- bodies -------------------------------------------------------------------
    def body(self, items, pos, end, fields, strings, args, overrun, where):
        """Walk body items from ``pos``; returns the position after them, -1 on overrun."""
        last = items[-1] if items else None
        for it in items:
            self.tail = it is last
            pos = _ITEM_HANDLERS[type(it)](self, it, pos, end, fields, strings, args, overrun, where)
            if pos < 0:
                return -1
        return pos

    def word(self, it, pos, end, fields, strings, args, overrun, where):
        if pos + 8 > end:
            overrun(it.name, 8, end - pos, pos)
            return -1
        (w,) = self.unpack(self.buf, pos)
        if it.fields:
            fields.update(self.check_fields(w, pos, _compiled(it.fields), f"{where} {it.name} word"))
        elif it.float:
            fields[it.name] = struct.unpack("<d", struct.pack("<Q", w))[0]
        elif it.signed and w >> 63:
            fields[it.name] = w - (1 << 64)
        else:
            fields[it.name] = w
        return pos + 8

    def words(self, it, pos, end, fields, strings, args, overrun, where):
        if fields.get(it.cond, 1) == 0:
            for n in it.names:
                if pos + 8 > end:
                    overrun(f"{n} word ({it.cond} 0 means an inline thread: {_inline_words(it.names)})",
                            8, end - pos, pos)
                    return -1
                (fields[n],) = self.unpack(self.buf, pos)
                pos += 8
        return pos

    def string(self, it, pos, end, fields, strings, args, overrun, where):
        ref = fields.get(it.name, 0)
        if ref & _INLINE_BIT:
            return self.stream(pos, end, ref & _INLINE_LEN, f"{it.name} string", "utf8", strings, it.name,
                               overrun, where)
        return pos

    def stream_item(self, it, pos, end, fields, strings, args, overrun, where):
        index = fields.get(_STRING_INDEX) if self.what == _STRING_KIND else None
        return self.stream(pos, end, fields.get(it.length, 0), it.name, it.content, strings, it.name, overrun,
                           where, index)

    def args(self, it, pos, end, fields, strings, args, overrun, where):
        count = None if it.name == "*" else fields.get(it.name, 0)
        return self.arguments(pos, end, count, args)

    def variant(self, it, pos, end, fields, strings, args, overrun, where):  # pragma: no cover
        raise TableError("a variant placeholder left in a leaf layout")  # the loader splices them all

    def arguments(self, pos, end, count, out, first=0):
        """Decode ``count`` arguments (None: until ``end``). Bad ones are skipped by size.
        ``first``: the index of the argument at ``pos`` (the native walk's says where the
        list ran past its record)."""
        i = first
        unpack = self.unpack
        while (i < count) if count is not None else (pos < end):
            if pos + 8 > end:
                self.report(R.content_overruns_record, (pos, end), where=self.what,
                            part=f"argument {i}", need=8, have=end - pos)
                return -1
            (header,) = unpack(self.buf, pos)
            atype = (header >> _ARG_TYPE.lo) & _ARG_TYPE.mask
            asize = (header >> _ARG_SIZE.lo) & _ARG_SIZE.mask
            declared = {} if count is None else {"count": count}
            if asize == 0:
                if self.wants(R.argument_size_zero):
                    self.build(R.argument_size_zero, (pos, pos + 8), i=i,
                               arg=self.arg_where(header, pos, pos, i, atype), **declared)
                return -1
            aend = pos + 8 * asize
            if aend > end:
                if self.wants(R.argument_overruns_record):
                    self.build(R.argument_overruns_record, (pos, end), i=i, words=asize, have=(end - pos) // 8,
                               arg=self.arg_where(header, pos, end, i, atype), **declared)
                return -1
            out.append(self.argument(header, atype, asize, pos, aend, i))
            pos = aend
            i += 1
        return pos

    def arg_where(self, header, pos, end, i, atype):
        """'event.instant argument 0 (int32)', as ST005 names an argument: its record's kind, its
        index, its inline name when the record's bytes hold it, its type when it is defined."""
        lay = _T.arguments.get(atype)
        return f"{self.what} {self.arg_label(header, pos, end, i, None if lay is None else lay.name)}"

    def arg_label(self, header, pos, aend, i, kind=None):
        """'argument 2 "count" (double)': its inline name when the bytes hold one."""
        ref = _ARG_NAME.get(header)
        label = f"argument {i}"
        if ref & _INLINE_BIT:
            n = ref & _INLINE_LEN
            if 0 < n <= 64 and pos + 8 + n <= aend:
                try:
                    label += f' "{bytes(self.buf[pos + 8 : pos + 8 + n]).decode("utf-8")}"'
                except UnicodeDecodeError:
                    pass
        elif ref:
            return f"{label} ({kind}, name ref {ref})" if kind else f"{label} (name ref {ref})"
        return f"{label} ({kind})" if kind else label

    def argument(self, header, atype, asize, pos, aend, i):
        lay = _T.arguments.get(atype)
        if self.log and atype not in _T.log_allowed_argument_types:
            # the log format defines five types: any other, defined elsewhere or not, is this error
            if self.wants(R.log_argument_type_not_allowed):
                kind = lay.name if lay is not None else "undefined"
                self.build(R.log_argument_type_not_allowed, field_span(pos, _ARG_TYPE, self.big), i=i,
                           value=atype, kind=kind, arg=self.arg_label(header, pos, aend, i),
                           expected=sorted(_T.log_allowed_argument_types))
            if lay is None:
                return Argument(atype, "unknown", {f.name: f.get(header) for f in _T.argument_header},
                                raw=bytes(self.buf[pos + 8 : aend]), offset=pos)
        if lay is None:
            if self.wants(R.unknown_argument_type):
                self.build(R.unknown_argument_type, field_span(pos, _ARG_TYPE, self.big), i=i, value=atype,
                           arg=self.arg_label(header, pos, aend, i))
            return Argument(atype, "unknown", {f.name: f.get(header) for f in _T.argument_header},
                            raw=bytes(self.buf[pos + 8 : aend]), offset=pos)
        where = f"{self.what} {self.arg_label(header, pos, aend, i, lay.name)}"
        fields = self.check_fields(header, pos, _compiled(lay.full_fields), where)
        strings: dict = {}
        over = []

        def overrun(part, need, have, at):
            over.append((part, need, have, at))

        end = self.body(lay.full_body, pos + 8, aend, fields, strings, None, overrun, where)
        extra: tuple[int, ...] = ()
        if end < 0:
            _, need, _, at = over[0]
            used = (at - pos) // 8 + (need + 7) // 8
            self.short_args.append(i)
            self.report(R.argument_size_mismatch, (pos, aend), i=i, kind=lay.name, declared=asize,
                        expected=used, exact=False, arg=where)
        elif end < aend:
            self.report(R.argument_size_mismatch, (end, aend), i=i, kind=lay.name, declared=asize,
                        expected=(end - pos) // 8, exact=True, arg=where)
            if self.keeps:  # (``report_layout`` keeps no argument's words: only its diagnostics)
                extra = tuple(self.unpack(self.buf, p)[0] for p in range(end, aend, 8))
        return Argument(atype, lay.name, fields, strings, extra, offset=pos, complete=end >= 0)


_ITEM_HANDLERS = check_dispatch({
    WordItem: _Decoder.word,
    WordsItem: _Decoder.words,
    StringItem: _Decoder.string,
    StreamItem: _Decoder.stream_item,
    ArgsItem: _Decoder.args,
    VariantItem: _Decoder.variant,
}, "the reader")
for _lay in [*_T.record_leaves(), *_T.arguments.values(), _T.log_record]:
    _compiled(_lay.full_fields)  # every table rule is resolved (and checked) at import
    for _it in _lay.full_body:
        if isinstance(_it, WordItem) and _it.fields:
            _compiled(_it.fields)


def decode_record(buf, off: int, idx: int, size_words: int, emit: Emit, *, big: bool = False,
                  log: bool = False, resync: bool = True) -> Record:
    """Decode the record framed at ``[off, off + 8*size_words)`` of ``buf``.

    ``resync`` is the recovering reading: a size that swallows the next record's header
    (FR004) is cut to the record's content when the records framed from that header read
    better (``resync_offset``), so ``rec.end`` is where the next record starts. Without it
    (the lint's reading, the spec's) the declared size stands and FR004 says which
    records a reader following it skips."""
    unpack = _UNPACK[big]
    end = off + 8 * size_words
    (header,) = unpack(buf, off)
    rtype = (header >> _HEADER_TYPE.lo) & _HEADER_TYPE.mask
    root = _T.log_record if log else _T.records.get(rtype)
    lay = _leaf_of(buf, off, idx, size_words, emit, header, rtype, root, big, log)
    if isinstance(lay, Record):
        return lay
    if log:
        return _decode_leaf(buf, unpack, big, emit, off, idx, end, lay, header, True)[0]
    # held until the framing is settled: a content that overruns a size too small is one
    # finding that names the short size, not the overrun the declared size leads to
    held: list[Diagnostic] = []
    rec, pos = _decode_leaf(buf, unpack, big, held.append, off, idx, end, lay, header, False, resync=resync)
    if pos < 0:
        content_end = _content_end(buf, unpack, big, off, idx, lay, header)
        if content_end is not None and resync_offset(buf, end, content_end, big) == content_end:
            held = []
            rec, _ = _decode_leaf(buf, unpack, big, held.append, off, idx, content_end, lay, header, False)
            held.append(_size_too_small(buf, unpack, big, off, idx, lay, size_words, content_end))
    for d in held:
        emit(d)
    return rec


def _leaf_of(buf, off, idx, size_words, emit, header, rtype, root, big, log, skips=None, add_at=None,
             record: bool = True) -> Layout | Record | str:
    """The leaf layout of the record at ``off`` (``root``: its type's layout, None when the
    type is undefined), or, for an undefined type or subtype, the record the reader makes
    of it (reported: it is skipped by its size; ``record`` False: its kind alone, no record
    made). ``skips``, ``add_at``: as ``report_layout``'s."""
    end = off + 8 * size_words
    if root is None:
        _say(emit, add_at, R.unknown_record_type, off, idx, 8 * size_words, {"value": rtype},
             field_span(off, _HEADER_TYPE, big), skips)
        if not record:
            return "unknown"
        return Record(rtype, "unknown", {"type": rtype, "size": size_words, "bits": header >> (_HEADER_SIZE.hi + 1)},
                      raw=bytes(buf[off + 8 : end]), offset=off, index=idx, size_words=size_words)
    lay = root
    while (sel := lay.selector) is not None:  # not a leaf
        v = sel.get(header)
        child = lay.variants.get(v)
        if child is None:
            _say(emit, add_at, R.unknown_record_subtype, off, idx, 8 * size_words,
                 {"record": lay.name, "field": sel.name, "value": v}, field_span(off, sel, big), skips)
            if not record:
                return f"{lay.name}.unknown"
            return Record(rtype, f"{lay.name}.unknown", {"type": rtype, "size": size_words,
                          "bits": header >> (root.size_field.hi + 1)}, raw=bytes(buf[off + 8 : end]),
                          offset=off, index=idx, size_words=size_words)
        lay = child
    return lay


def report_undefined(buf, off: int, idx: int, size_words: int, emit: Emit, *, big: bool, skips=None,
                     add_at=None) -> str:
    """UN001 or UN002 for the trace record at ``off``, whose type or subtype is undefined (the
    reader's message as it skips it by its size); returns the kind the reader gives it (no
    record made). ``skips``: the sink's, asked before the diagnostic is built; ``add_at``: as
    ``report_layout``'s."""
    (header,) = _UNPACK[big](buf, off)
    rtype = (header >> _HEADER_TYPE.lo) & _HEADER_TYPE.mask
    got = _leaf_of(buf, off, idx, size_words, emit, header, rtype, _T.records.get(rtype), big, False, skips, add_at,
                   False)
    if isinstance(got, str):
        return got
    return got.kind if isinstance(got, Record) else got.name


_MISSING = object()


def _size_too_small(buf, unpack, big, off, idx, lay, size_words, content_end, after=_MISSING) -> Diagnostic:
    """ST001 for a record whose size leaves out part of its content (``resync_offset``
    settled it): by how many words, and what follows the content (``after``: already
    asked, ``_after``)."""
    if after is _MISSING:
        after = _after(buf, big, content_end)
    return R.content_overruns_record.at(off, idx, span=field_span(off, lay.size_field, big),
                                        record_size=content_end - off,
                                        **_size_too_small_params(lay, off, size_words, content_end, after))


def _size_too_small_params(lay, off: int, size_words: int, content_end: int, after) -> dict:
    """ST001's parameters (``_size_too_small``'s, and ``report_layout``'s row of it)."""
    return {"where": lay.name, "part": "content", "need": content_end - off - 8, "have": 8 * size_words - 8,
            "words": size_words, "content_words": (content_end - off) // 8, "next_kind": after}


def _decode_leaf(buf, unpack, big, emit, off, idx, end, lay, header, log, content_only=False,
                 resync=True) -> tuple[Record, int]:
    """Decode a leaf layout framed at ``[off, end)``: the record, and where its content
    ended (-1 when it overran ``end``); ``content_only``: only where it ended (None, pos);
    ``resync``: as ``decode_record``'s."""
    size_words = (end - off) // 8
    dec = _Decoder(buf, unpack, big, emit, off, idx, end - off, lay.name, log)
    plan = _LEAVES.get(id(lay))
    if plan is None or plan[0] is not lay:
        plan = _LEAVES[id(lay)] = (lay, _compiled(lay.full_fields), f"{lay.name} header")
    fields = dec.check_fields(header, off, plan[1], plan[2])
    strings: dict = {}
    args: list = []
    overrun = _overrun(dec, lay, end)
    pos = dec.body(lay.full_body, off + 8, end, fields, strings, args, overrun, lay.name)
    if content_only:
        return None, pos  # type: ignore[return-value]
    if log:
        _check_log(dec, lay, fields, args)
    extra: tuple[int, ...] = ()
    if pos >= 0 and pos < end:
        extra, size_words = _after_content(dec, lay, pos, end, size_words, log, resync)
    # the kind decides the type; a log record's type bits as found stay in fields["type"]
    return Record(lay.type, lay.name, fields, strings, tuple(args), extra, offset=off, index=idx,
                  size_words=size_words, complete=pos >= 0), pos


# per leaf layout (by identity, as ``_compiled``): its header's compiled fields and their place's name
_LEAVES: dict[int, tuple[Layout, _Fields, str]] = {}


def _overrun(dec: _Decoder, lay: Layout, end: int):
    """What a record's body reports where an item of it runs past the record's ``end``."""
    def overrun(part, need, have, at):
        dec.report(R.content_overruns_record, (at, end), where=lay.name, part=part, need=need,
                   have=have)
    return overrun


_UNASKED = object()  # ``_after_content``: no framing answer given (the reader frames what follows itself)


def framed(kind: str | None, resumes: bool, skipped: tuple, lands: bool) -> tuple:
    """A framing answer for the words after a trace record's content (``_after_content``'s
    ``answer``, the native walk's FOUND_END row, ``_walk_native``'s ``_found``): the kind of
    the well-formed header there (None: none), whether recovery reads on from it
    (``resync_offset``'s answer), the (kind, offset) of the records a reader following the
    declared size skips and whether that size ends inside the last (``swallowed``'s)."""
    return kind, resumes, skipped, lands


def _too_large_params(lay: Layout, pos: int, end: int, answer: tuple) -> dict:
    """FR004's parameters for a record of leaf ``lay`` whose content ends at ``pos`` and its
    declared size at ``end``, from a framing answer (``framed``'s) whose header is well formed."""
    kind, resumes, skipped, lands = answer
    return {"record": lay.name, "n": (end - pos) // 8, "kind": kind, **({"recovery": pos} if resumes else {}),
            **_swallowed(skipped, lands)}


def _swallowed(skipped: tuple, lands: bool) -> dict:
    """FR004's ``skipped`` and ``lands`` parameters (``swallowed``'s, and the walk's answer's)."""
    return {"skipped": skipped, "lands": skipped[-1]} if lands else {"skipped": skipped}


def _after_content(dec: _Decoder, lay: Layout, pos: int, end: int, size_words: int, log: bool,
                   resync: bool, words: bool = True, answer=_UNASKED) -> tuple[tuple[int, ...], int]:
    """The words between a record's content (ending at ``pos``) and its declared ``end``:
    an extension (EX001), a magic record's extra words, a size that swallows the next
    record (FR004). Returns the extra words it keeps (none read where ``words`` is False:
    ``report_layout`` keeps no record) and the record's size in words (cut to the content
    where ``resync`` reads on from it). ``answer``: what follows, framed by the native walk
    (``framed``'s, or None: no well-formed header there) for the lint's reading of bytes held
    whole; else the reader frames it (``header_kind``, ``resync_offset``, ``swallowed``)."""
    buf, unpack, big, off = dec.buf, dec.unpack, dec.big, dec.off
    extra: tuple[int, ...] = ()
    # the words after the content, read only when the record keeps them: one whose size
    # swallowed its neighbours is read on from its content's end, and reading the words
    # it drops would read each neighbour again (quadratic in a file of such records)
    n_extra, keep = (end - pos) // 8, True
    if not lay.extensible:
        dec.report(R.magic_has_extra_words, (pos, end), record=lay.name, words=size_words, expected=1)
    elif dec.short_args:
        # not an extension: the payload of an argument whose size is too small
        dec.report(R.trailing_words, (pos, end), record=lay.name, n=n_extra,
                   short_argument=dec.short_args[0])
    else:
        kind = None
        if not log:
            word = unpack(buf, pos)[0]
            kind = header_kind(word, buf, pos, big) if answer is _UNASKED else answer and answer[0]
            if kind is not None:
                dec.past = True  # a header after the content: a framing decision (the records after it)
            elif _header_reach(word, pos) > end:
                dec.heard("kind", None, pos)  # (whether the file holds what it would frame)
        # the lint's reading (not ``resync``) of bytes held whole asks the cap about FR004 first:
        # the framing decision below changes only its message (a growing stream's may need
        # bytes still to come: asked after it)
        asked = not resync and not getattr(buf, "growing", False)
        if kind is None:
            dec.report(R.trailing_words, (pos, end), record=lay.name, n=n_extra)
        elif asked and not dec.wants(R.record_size_too_large):
            pass  # dropped by the cap (counted): no framing decision, no message
        elif answer is not _UNASKED:  # the walk's framing decision: its answers, the reader's
            if asked or dec.wants(R.record_size_too_large):
                dec.add(R.record_size_too_large, (pos, pos + 8), _too_large_params(lay, pos, end, answer))
        elif resync_offset(buf, end, pos, big) != pos:
            if asked or dec.wants(R.record_size_too_large):
                dec.build(R.record_size_too_large, (pos, pos + 8), record=lay.name, n=n_extra,
                          kind=kind, **swallowed(buf, pos, end, big))
        elif resync:
            # the size swallowed the next record: frame this one to its content, read on from there
            dec.report(R.record_size_too_large, (pos, pos + 8), record=lay.name, n=n_extra,
                       kind=kind, resumes_at=pos)
            keep, size_words = False, (pos - off) // 8
        elif asked or dec.wants(R.record_size_too_large):
            # the declared size stands (the spec's reading): say what a reader following it
            # skips, and that recovery would read on from the swallowed header
            dec.build(R.record_size_too_large, (pos, pos + 8), record=lay.name, n=n_extra,
                      kind=kind, recovery=pos, **swallowed(buf, pos, end, big))
    if keep and words:
        extra = tuple(unpack(buf, p)[0] for p in range(pos, end, 8))
    return extra, size_words


class _RowDecoder(_Decoder):
    """``report_layout``'s decoder where the diagnostics go to a sink as rows (``add_at``:
    the sink's, ``DiagnosticSink.add_at``): each kept as its rule and parameters, built by
    ``rule.at`` when the report's diagnostics are read (a CI gate reading counts builds none)."""

    __slots__ = ("add_at",)
    add_at: Callable[..., None]

    def report(self, rule, span=None, **params):
        if self.skips is not None and self.skips(rule, self.off, self.idx):
            return
        self.add_at(rule, self.off, self.idx, self.size, params, span)

    def build(self, rule, span=None, **params):
        self.add_at(rule, self.off, self.idx, self.size, params, span)

    def add(self, rule, span, params: dict) -> None:
        self.add_at(rule, self.off, self.idx, self.size, params, span)


def report_layout(buf, off: int, idx: int, size_words: int, emit: Emit, lay: Layout, found, *, big: bool,
                  log: bool = False, skips=None, add_at=None) -> bool | tuple:
    """What the reference's decoder reports on the record at ``off`` (leaf ``lay``) at the
    places the native walk's screen found wrong (``found``: (what, item, position, value,
    argument) in file order; ``_kernel_program``'s sites), each made again by the decoder
    step that makes it when it decodes the whole record: a word's field checks (their
    builder alone, ``report_fields``), a stream's, an argument's (all of it; a log's argument
    checks, ``_check_log``, after the body as the decoder makes them), the words after the
    content (``end``: the value the native walk's framing answer, ``framed``'s, or None where
    no well-formed header follows them); where the content ran
    past the record's size (``over``: the item there, at its first word, with its length,
    reference or argument count, and the argument's index), which ends what the decoder
    reads of it; a record framed anew at its content's end (``short``: the position is that
    end, the value its declared size in words, ``size_words`` the size it is read at),
    ST001 after the rest, as ``decode_record`` says it. The record is otherwise as the
    screen read it: its content fits ``size_words`` (the lint's reading, ``resync=False``).
    ``skips``: the sink's (``_result.skipper``), asked before each diagnostic is built;
    ``add_at``: the sink's (``emit`` its ``add``), which keeps the decoder's diagnostics as
    rows built when read (``_RowDecoder``). Returns what its steps read past the record:
    False, nothing but its bytes (then the same bytes and ``found``, positions moved with
    the record, make the same steps and the same diagnostics, their spans moved:
    ``_walk_native``'s ``_replayed``); the questions
    they asked of the bytes after it, with their answers (the same where ``answers_hold``);
    True, a framing decision (the records after it, where they are)."""
    unpack = _UNPACK[big]
    end = off + 8 * size_words
    if add_at is None:
        dec = _Decoder(buf, unpack, big, emit, off, idx, 8 * size_words, lay.name, log, skips)
    else:
        dec = _RowDecoder(buf, unpack, big, emit, off, idx, 8 * size_words, lay.name, log, skips)
        dec.add_at = add_at
    dec.keeps = False
    last = lay.full_body[-1] if lay.full_body else None
    args: list | None = [] if log else None  # a log's arguments the decoder read again, and their indexes
    for what, item, pos, value, arg in found:
        if args is not None and what == "end":
            _check_log_args(dec, args)  # after the body, before the words after it
            args = None
        if what == "fields":  # (the checks alone: no field decoded that none fails)
            _report_word(dec, lay, item, pos)
        elif what == "stream":
            dec.tail = item is last
            if isinstance(item, StringItem):
                dec.stream(pos, end, value & _INLINE_LEN, f"{item.name} string", "utf8", {}, item.name,
                           _no_overrun, lay.name)
            else:
                index = None
                if lay.name == _STRING_KIND:
                    index = next(f for f in lay.full_fields if f.name == _STRING_INDEX).get(unpack(buf, off)[0])
                dec.stream(pos, end, value, item.name, item.content, {}, item.name, _no_overrun, lay.name, index)
        elif what == "argument":
            (header,) = unpack(buf, pos)
            size = (header >> _ARG_SIZE.lo) & _ARG_SIZE.mask
            if pos + 8 * size > end:  # (never: the screen found the argument within the record)
                dec.past = True
            a = dec.argument(header, (header >> _ARG_TYPE.lo) & _ARG_TYPE.mask, size, pos, pos + 8 * size, arg)
            if args is not None:
                args.append((arg, a))
        elif what == "over":
            overrun = _overrun(dec, lay, end)
            if isinstance(item, ArgsItem):
                dec.arguments(pos, end, None if value < 0 else value, [], first=arg)
            elif isinstance(item, WordsItem):
                dec.words(item, pos, end, {item.cond: 0}, {}, None, overrun, lay.name)
            else:  # a word, a string ref's inline text, a stream
                name = item.name if isinstance(item, StringItem) else getattr(item, "length", None)
                _ITEM_HANDLERS[type(item)](dec, item, pos, end, {name: value}, {}, None, overrun, lay.name)
        elif what == "short":
            if skips is None or not skips(R.content_overruns_record, off, idx):
                # (its message names the header after the content; the record is read at its
                # content's size, ``size_words``: ST001's record size)
                dec.add(R.content_overruns_record, field_span(off, lay.size_field, big),
                        _size_too_small_params(lay, off, value, pos, dec.ask("after", pos)))
        else:  # "end": words after the content (``value``: the walk's framing answer, ``framed``)
            _after_content(dec, lay, pos, end, size_words, log, False, False, value)
    if args is not None:
        _check_log_args(dec, args)
    return dec.past if dec.past is True or dec.past is False else tuple(dec.past)


def _report_word(dec: _Decoder, lay: Layout, item, pos: int) -> None:
    """The field checks of the word at ``pos``: the header's (``item`` None) or a word item's."""
    (word,) = dec.unpack(dec.buf, pos)
    if item is None:
        report_fields(dec, word, pos, _compiled(lay.full_fields), f"{lay.name} header")
    else:
        report_fields(dec, word, pos, _compiled(item.fields), f"{lay.name} {item.name} word")


def report_words(buf, off: int, idx: int, size_words: int, emit: Emit, lay: Layout, words, *, big: bool,
                 skips=None, add_at=None) -> None:
    """``report_layout`` for a record whose layout rows are all words whose field checks fail
    (``words``: (the word item, None for the header; its position), in file order): each
    word's checks by the builder the reader's ``check_fields`` calls (``report_fields``),
    nothing else of the record read."""
    if add_at is None:
        dec = _Decoder(buf, _UNPACK[big], big, emit, off, idx, 8 * size_words, lay.name, False, skips)
    else:
        dec = _RowDecoder(buf, _UNPACK[big], big, emit, off, idx, 8 * size_words, lay.name, False, skips)
        dec.add_at = add_at
    for item, pos in words:
        _report_word(dec, lay, item, pos)


def report_after(buf, off: int, idx: int, size_words: int, emit: Emit, lay: Layout, pos: int, answer, *, big: bool,
                 skips=None, add_at=None) -> None:
    """``report_layout`` for a trace record whose one layout row is the words after its content
    (from ``pos`` to its declared end) with the native walk's framing answer (``framed``'s): the
    reader's step for them (``_after_content``) says FR004 from that answer, or EX001, MG004.
    FR004 kept as a row (``add_at``), of an extensible record followed by a well-formed header
    in bytes held whole, is said here: the cap asked, then its parameters built by the builder
    the step builds them with (``_too_large_params``), with no decoder."""
    end = off + 8 * size_words
    if add_at is not None and lay.extensible and answer is not None and answer[0] is not None \
            and not getattr(buf, "growing", False):
        # (``_after_content``'s step for such a record, whose decoder holds no short argument)
        if skips is None or not skips(R.record_size_too_large, off, idx):
            add_at(R.record_size_too_large, off, idx, 8 * size_words, _too_large_params(lay, pos, end, answer),
                   (pos, pos + 8))
        return
    if add_at is None:
        dec = _Decoder(buf, _UNPACK[big], big, emit, off, idx, 8 * size_words, lay.name, False, skips)
    else:
        dec = _RowDecoder(buf, _UNPACK[big], big, emit, off, idx, 8 * size_words, lay.name, False, skips)
        dec.add_at = add_at
    _after_content(dec, lay, pos, end, size_words, False, False, False, answer)


def answers_hold(buf, off: int, big: bool, questions) -> bool:
    """Whether each of ``questions`` (``report_layout``'s: question, positions from the
    record's start, answer) has the same answer for the record at ``off``."""
    for question, at, answer in questions:
        if len(at) == 1:
            got = _QUESTIONS[question](buf, big, off + at[0])
        elif question == "early":  # (``_early``'s two positions, without a generator)
            got = _early(buf, big, off + at[0], off + at[1])
        else:
            got = _QUESTIONS[question](buf, big, *[off + a for a in at])
        if got != answer:
            return False
    return True


def _early(buf, big: bool, at: int, pad_end: int) -> str | None:
    """``_Decoder.next_header_early``'s question: the kind of the header at ``at`` when the
    records framed from there reach further than those framed from ``pad_end``, else None."""
    if at + 8 <= len(buf):
        (header,) = _UNPACK[big](buf, at)
        kind, size = _HEADERS.get(header) or _header_leaf(header)  # (``_chain``'s first step)
        if kind is None or size == 0:
            return None  # no well-formed header there: nothing framed from it (the copies of a
            # record whose padding is missing, each asked at its offset: no chain to remember)
    starts, reach = _chain(buf, at, big)
    if not starts or reach <= _chain(buf, pad_end, big)[1]:
        return None
    return header_kind(_UNPACK[big](buf, at)[0], buf, at, big)


def _kind_at(buf, big: bool, at: int) -> str | None:
    """``header_kind`` of the word at ``at``."""
    return header_kind(_UNPACK[big](buf, at)[0], buf, at, big)


def _after(buf, big: bool, at: int) -> str | None:
    """The kind of the header after a record's content (``_size_too_small``'s), None where
    the file ends first."""
    if at + 8 <= len(buf) or _have(buf, at + 8):  # (``_kind_at``'s, without its call)
        return header_kind(_UNPACK[big](buf, at)[0], buf, at, big)
    return None


# what a record's decoder steps ask of the bytes after it (``_Decoder.ask``)
_QUESTIONS: dict[str, Callable[..., str | None]] = {"early": _early, "kind": _kind_at, "after": _after}


def record_of(buf, off: int, idx: int, size_words: int, lay: Layout, *, big: bool) -> Record:
    """The trace record at ``off`` (leaf ``lay``, ``size_words`` standing) as the reference
    decoder reads it, its diagnostics left out: what a per-kind check's message names
    (``_kind_checks``: any field), and a counter's arguments (EV001)."""
    unpack = _UNPACK[big]
    (header,) = unpack(buf, off)
    return _decode_leaf(buf, unpack, big, _discard, off, idx, off + 8 * size_words, lay, header, False,
                        resync=False)[0]


def _no_overrun(part, need, have, at) -> None:  # pragma: no cover - the screen proved the stream fits
    pass


def _content_end(buf, unpack, big, off, idx, lay, header) -> int | None:
    """Where a record's content ends when nothing but the file's end bounds it (None when
    it does not fit there either): what its size should have said."""
    n = len(buf) - len(buf) % 8
    pos = _decode_leaf(buf, unpack, big, _discard, off, idx, n, lay, header, False, content_only=True)[1]
    if pos <= 0 and getattr(buf, "growing", False):
        raise NeedMore(n + 8)  # the content may end in bytes still to come
    return pos if pos > 0 else None


def _discard(d: Diagnostic) -> None:
    pass


RESYNC_DEPTH = 8  # records framed ahead to compare two framings (the file's end counts as all)


def _chain(buf, at: int, big: bool) -> tuple[tuple[int, ...], int]:
    """The offsets of the well-formed records (``header_kind``) that frame one after the
    other from ``at``, up to RESYNC_DEPTH, and how far that reaches: their number, or
    RESYNC_DEPTH when they end at the file's last whole word.

    Bytes (immutable) are chained once an offset (``_chain_memo``): a record's chain is its
    own offset before the next record's chain, and a flood of records whose sizes swallow
    their neighbours (FR004) asks for the same neighbours' chains record after record."""
    memo = _chain_memo(buf, big)
    if memo is None:
        return _chain_walk(buf, at, big)
    got = memo.get(at)
    if got is not None:
        return got
    # frame ahead (CHAIN_AHEAD records at most) to an offset already chained or where the
    # chain ends, then fill back: each offset framed is remembered with its chain
    n = len(buf)
    unpack = _UNPACK[big]
    path: list[int] = []
    tail: tuple[tuple[int, ...], int] | None = None
    while len(path) < _CHAIN_AHEAD:
        tail = memo.get(at)
        if tail is not None:
            break
        if at + 8 > n:
            tail = ((), RESYNC_DEPTH if at == n - n % 8 else 0)
            break
        (header,) = unpack(buf, at)
        kind, size = _HEADERS.get(header) or _header_leaf(header)  # header_kind's reading, inline
        if size == 0 or at + 8 * size > n or kind is None:
            tail = ((), 0)
            break
        path.append(at)
        at += 8 * size
    if len(memo) + len(path) > _CHAIN_MEMO_MAX:
        memo.clear()
    if tail is None:  # framed CHAIN_AHEAD records: those with RESYNC_DEPTH framed after them are known
        for i in range(len(path) - RESYNC_DEPTH + 1):
            memo[path[i]] = (tuple(path[i:i + RESYNC_DEPTH]), RESYNC_DEPTH)
        return memo[path[0]]
    starts, reach = tail
    for p in reversed(path):
        starts, reach = (p, *starts[:RESYNC_DEPTH - 1]), min(RESYNC_DEPTH, reach + 1)
        memo[p] = (starts, reach)
    return starts, reach


_CHAIN_AHEAD = 4 * RESYNC_DEPTH  # records framed ahead at most to chain one offset
_CHAIN_MEMO_MAX = 1 << 14  # offsets chained and remembered for one buffer (then forgotten: a cost, not a result)
# the chains of a buffer asked for before the memo is used: framed record by record
# (``_chain_walk``, RESYNC_DEPTH records at most), as a small lint's one bad record asks
# (two chains each: framing ``_CHAIN_AHEAD`` ahead and filling the memo back cost it more
# than they save; a flood of FR004 asks for many more)
_CHAIN_WALK_FIRST = 4
# the buffer last chained (bytes only: they cannot change while held), its byte order, its
# chains, and how many chains it was asked for (up to ``_CHAIN_WALK_FIRST``): one tuple,
# replaced whole (a thread reads a consistent one), and forgotten when a walk ends
# (``forget_chains``: the buffer is not held past its lint)
_CHAINS: tuple = (None, False, {}, [0])


def _chain_memo(buf, big: bool) -> dict | None:
    """The chains remembered for ``buf`` (None for a buffer that may change or grow: a
    bytearray, an mmap, a stream still being fed; and for the first ``_CHAIN_WALK_FIRST``
    chains asked of a buffer: framed record by record)."""
    global _CHAINS
    if type(buf) is not bytes:
        return None
    held = _CHAINS
    if held[0] is not buf or held[1] != big:
        held = _CHAINS = (buf, big, {}, [0])
    asked = held[3]
    if asked[0] < _CHAIN_WALK_FIRST:
        asked[0] += 1  # (a race between threads at worst frames one more chain record by record)
        return None
    return held[2]


def forget_chains() -> None:
    """Let go of the buffer the chains were remembered for (at the end of a walk, a lint).
    (Held for no buffer: nothing to let go of, and nothing in it changed, ``_chain_memo``
    replaces it whole: a small lint's fixed cost.)"""
    global _CHAINS
    if _CHAINS[0] is not None:
        _CHAINS = (None, False, {}, [0])


def _chain_walk(buf, at: int, big: bool) -> tuple[tuple[int, ...], int]:
    """``_chain`` framed record by record (any buffer: a growing one's end is its final length)."""
    n = len(buf)
    last = n - n % 8
    unpack = _UNPACK[big]
    starts: list[int] = []
    while len(starts) < RESYNC_DEPTH:
        if at + 8 > n and not _have(buf, at + 8):
            if getattr(buf, "growing", False):  # a file read in chunks: its end is its final length
                n = _final_len(buf)
                last = n - n % 8
            return tuple(starts), RESYNC_DEPTH if at == last else len(starts)
        (header,) = unpack(buf, at)
        kind, size = _HEADERS.get(header) or _header_leaf(header)  # header_kind's reading, inline
        if size == 0 or not (at + 8 * size <= n or _have(buf, at + 8 * size)) or kind is None:
            break
        starts.append(at)
        at += 8 * size  # (declared_size: a defined type's size field)
    return tuple(starts), len(starts)


def swallowed(buf, content_end: int, declared_end: int, big: bool) -> dict:
    """What a reader following a declared size skips between a record's content and its
    declared end (FR004): ``skipped``, the (kind, offset) of the well-formed records
    framed from the content's end that start before the declared end, and ``lands``,
    the (kind, offset) of the one the declared end falls inside, if any."""
    unpack = _UNPACK[big]
    skipped: list[tuple[str, int]] = []
    at = content_end
    while at < declared_end and len(skipped) < RESYNC_DEPTH and _have(buf, at + 8):
        (header,) = unpack(buf, at)
        kind = header_kind(header, buf, at, big)
        if kind is None:
            break
        skipped.append((kind, at))
        at += 8 * (_HEADERS.get(header) or _header_leaf(header))[1]  # (declared_size's, remembered)
    return _swallowed(tuple(skipped), bool(skipped) and at > declared_end)


def resync_offset(buf, declared_end: int, content_end: int, big: bool) -> int | None:
    """Where the walk goes on after a record whose declared size and content disagree
    (FR004: words left after the content, ST001: content past the size): at the end of
    its content when the records framed from there reach further than those framed from
    the declared end, or frame the words in between as whole records; None keeps the
    declared size. The one framing decision both engines take from a record's content
    (they go on from the decoded record's ``end``)."""
    if content_end == declared_end or content_end <= 0:
        return None
    starts, reach = _chain(buf, content_end, big)
    if declared_end in starts or reach > _chain(buf, declared_end, big)[1]:
        return content_end
    if content_end < declared_end and _frames_exactly(buf, content_end, declared_end, big):
        return content_end  # the words the size swallowed are whole records, ending where it does
    return None


def _frames_exactly(buf, at: int, end: int, big: bool) -> bool:
    """Whether well-formed records (``header_kind``), at most RESYNC_DEPTH of them, frame
    one after the other from ``at`` to exactly ``end``."""
    unpack = _UNPACK[big]
    for _ in range(RESYNC_DEPTH):
        if at == end:
            return True
        if at > end or not _have(buf, at + 8):
            return False
        (header,) = unpack(buf, at)
        if header_kind(header, buf, at, big) is None:
            return False
        at += 8 * (_HEADERS.get(header) or _header_leaf(header))[1]  # (declared_size's, remembered)
    return at == end


# per argument type: its string-ref fields among the name and the value (log strings are inline only)
_LOG_REFS = {t: tuple((p, f) for p in ("name", "value") if (f := a.field(p)) is not None and f.role == "string_ref")
             for t, a in _T.arguments.items()}


def _check_log(dec: _Decoder, lay: Layout, fields: dict, args: list) -> None:
    """Structured-log checks on a decoded log record's arguments: refs and names (the
    severity is a field check: its rules are named in the tables)."""
    _check_log_args(dec, enumerate(args))


def _check_log_args(dec: _Decoder, args) -> None:
    """``_check_log`` on (index, argument) pairs."""
    for i, a in args:
        if a.kind == "unknown":
            continue
        for part, f in _LOG_REFS[a.type]:
            ref = a.fields.get(part, 0)
            if ref and not ref & _INLINE_BIT:
                dec.report(R.log_string_ref_reserved, field_span(a.offset, f, dec.big), i=i, part=part,
                           value=ref, arg=argument_label(a, i))
        name_ref = a.fields.get("name", 0)
        if name_ref == 0 or name_ref == _INLINE_BIT:
            dec.report(R.log_argument_name_empty, field_span(a.offset, _ARG_NAME, dec.big), i=i)


def header_kind(header: int, buf, off: int, big: bool) -> str | None:
    """The record kind a word at ``off`` would be as a well-formed header (a defined type
    and subtype, reserved bits clear, a size that fits in ``buf``), else None."""
    got = _HEADERS.get(header)
    if got is None:
        got = _header_leaf(header)
    kind, size = got
    if size == 0 or not _have(buf, off + 8 * size):  # (asked of a defined type's size, well formed or not)
        return None
    return kind


def _header_reach(header: int, off: int) -> int:
    """Where the record a well-formed header word at ``off`` frames would end (``off`` for any
    other word): how far ``header_kind``'s answer reads, the file's length aside."""
    kind, size = _HEADERS.get(header) or _header_leaf(header)
    return off if kind is None else off + 8 * size


def _header_leaf(header: int) -> tuple[str | None, int]:
    """(the kind a header word is when well formed, or None; its size in words where its type
    is defined, else 0): what ``header_kind`` reads of the word alone, remembered (the
    framing decisions read the same headers again and again: ``_chain`` frames up to
    RESYNC_DEPTH records ahead of each record it decides on)."""
    if len(_HEADERS) >= _HEADERS_MAX:
        _HEADERS.clear()
    kind, size = None, 0
    lay = _T.records.get(_HEADER_TYPE.get(header))
    if lay is not None:
        size = lay.size_field.get(header)
        while (sel := lay.selector) is not None:  # not a leaf
            lay = lay.variants.get(sel.get(header))
            if lay is None:
                break
        else:
            if not header & lay.zero_mask:
                kind = lay.name
    got = _HEADERS[header] = (kind, size)
    return got


_HEADERS: dict[int, tuple[str | None, int]] = {}
_HEADERS_MAX = 1 << 16


# signatures of files that end up named .fxt: say what they look like
_SIGNATURES = ((b"\x89PNG", "a PNG image"), (b"\x1f\x8b", "gzip data"), (b"PK\x03\x04", "a zip archive"),
               (b"\x7fELF", "an ELF binary"), (b"%PDF", "a PDF document"), (b"\xff\xd8\xff", "a JPEG image"),
               (b"GIF8", "a GIF image"))
_TEXT = frozenset(b"\t\n\r") | frozenset(range(0x20, 0x7F))


def _looks_like(head: bytes) -> str:
    for sig, what in _SIGNATURES:
        if head.startswith(sig):
            return what
    if head and all(b in _TEXT for b in head):
        return "text"
    return ""


def _not_fxt(buf, head: bytes) -> str | None:
    """What a file without a magic record looks like, when it is not a trace at all
    ("" when unknown), or None when its first header frames as a trace record."""
    what = _looks_like(head[:64])
    if what:
        return what
    if looks_like_structured_log(buf):
        return "a structured-log stream (lint it with --input-format log)"
    (header,) = struct.unpack_from("<Q", buf, 0)
    return None if header_kind(header, buf, 0, False) else ""


def _is_magic(buf) -> bool:
    """A malformed magic record (wrong value, wrong size) is its own rules' business."""
    (header,) = struct.unpack_from("<Q", buf, 0)
    return header_kind(header, buf, 0, False) == "metadata.trace_info.magic"


def argument_label(a: Argument, i: int) -> str:
    """'argument 2 "count"' (or '(name ref 5)') for a decoded argument."""
    name = a.strings.get("name")
    if isinstance(name, str) and name:
        return f'argument {i} "{name}"'
    ref = a.fields.get("name", 0)
    return f"argument {i} (name ref {ref})" if ref and not ref & _INLINE_BIT else f"argument {i}"


_UNREAD = object()


def _say(emit: Emit, add_at, rule, offset: int, index: int, size: int | None, params: dict, span=None,
         skips=None) -> None:
    """A diagnostic said without a decoder: the cap asked first (``skips``, where given), then
    kept as a sink's row where the caller gives its ``add_at`` (``DiagnosticSink.add_at``: built
    when read), else built and emitted (``_Decoder.report``'s steps)."""
    if skips is not None and skips(rule, offset, index):
        return
    if add_at is not None:
        add_at(rule, offset, index, size, params, span)
    else:
        emit(rule.at(offset, index, span=span, record_size=size, **params))


def start_checks(buf, emit: Emit, big: bool, log: bool, check_magic: bool = True,
                 search: MagicSearch | None = None, order=_UNREAD, add_at=None) -> bool:
    """File-level checks made before the walk: not FXT at all, length alignment, byte
    order, magic. True when the file is not FXT: the walk must not start. ``search``:
    the walk's magic search, kept across a stream's attempts (``MagicSearch``); ``order``:
    ``detect_byte_order(buf)`` where the caller has read it (a small lint's fixed cost);
    ``add_at``: the sink's (``emit`` its ``add``), which keeps the diagnostics as rows (``_say``)."""
    n = len(buf)
    if n < 8:
        order = None
    elif order is _UNREAD:
        order = detect_byte_order(buf)  # (read once)
    if check_magic and not log and n >= 8 and order is None:
        _have(buf, 64)  # what the first bytes look like
        head = bytes(buf[:min(n, 64)])  # a stream's map holds more than it has received
        looks = _not_fxt(buf, head)
        if looks is not None:
            _say(emit, add_at, R.not_fxt_file, 0, 0, min(n, 64), {"first": head[:8].hex(" "),
                                                                   "looks_like": looks or None}, (0, 8))
            return True
    if n % 8 and not getattr(buf, "growing", False):
        length_check(n, emit, add_at)  # a stream's, at its end (``Walk.end_stream``)
    if big and order == "big":
        _say(emit, add_at, R.big_endian_archive, 0, 0, 8, {}, (0, 8))
    if check_magic and not log:
        if n < 8:
            _say(emit, add_at, R.magic_missing, 0, 0, n, {"length": n}, (0, n))
        elif order is None and not _is_magic(buf):
            (header,) = struct.unpack_from("<Q", buf, 0)
            kind = header_kind(header, buf, 0, False) or "undecodable"
            found = {}
            search = search if search is not None else MagicSearch(big)
            at = search.find(buf)
            if at is not None:
                found = {"magic_offset": at, "magic_index": search.index}
            _say(emit, add_at, R.magic_missing, 0, 0, 8,
                 {"first_kind": kind, **found, "first": bytes(buf[:8]).hex(" ")}, (0, 8))
    return False


def length_check(n: int, emit: Emit, add_at=None) -> None:
    """FR003 on a file of ``n`` bytes (``add_at``: as ``start_checks``')."""
    if n % 8:
        _say(emit, add_at, R.file_length_not_aligned, n - n % 8, -1, None, {"length": n, "extra": n % 8},
             (n - n % 8, n))


def declared_size(header: int) -> int:
    """The size in words a trace record header declares (32 bits for a large record)."""
    lay = _T.records.get(_HEADER_TYPE.get(header))
    return (lay.size_field if lay is not None and lay.size_field is not None else _HEADER_SIZE).get(header)


MAGIC_SEARCH_RECORDS = 4096  # records framed from the start to find a misplaced magic record


class MagicSearch:
    """The search for the file's first magic record (``first_magic``): the first
    MAGIC_SEARCH_RECORDS records framed by their declared sizes, from the start.

    It remembers where it got to: on a stream still growing (``_stream_buffer``) it stops
    at the first header not yet received (``NeedMore``) and the next ``find``, with more
    bytes, goes on from that header, so a stream fed one record at a time costs one pass
    over its first headers, not one per advance. One search per buffer (a stream's
    buffer keeps its bytes at their offsets as it grows)."""

    def __init__(self, big: bool = False):
        self.big = big
        self.off = self.idx = 0  # the next header to read, and its record index
        self.at: int | None = None  # the first magic record's offset, once found
        self.index: int | None = None  # and its record index
        self.done = False

    def find(self, buf) -> int | None:
        """The first magic record's offset, or None (may raise NeedMore on a growing stream)."""
        if not self.done and type(buf) is bytes and not _word_aligned(buf, MAGIC_BE if self.big else MAGIC_LE,
                                                                      self.off):
            # whole bytes with no magic record's word at any offset the search could stop at
            # (a multiple of 8 from here): it would frame on and find none
            self.done = True
        unpack = _UNPACK[self.big]
        n = len(buf)
        while not self.done:
            off = self.off
            if self.idx >= MAGIC_SEARCH_RECORDS or (off + 8 > n and not _have(buf, off + 8)):
                self.done = True
                break
            (word,) = unpack(buf, off)  # (the magic record's bytes, read in this byte order, are its word)
            if word == _MAGIC:
                self.at, self.index, self.done = off, self.idx, True
                break
            # (a defined type's declared size as ``header_kind`` remembers it: a search reads the same
            # headers again; an undefined type's, 0 there, read from the word)
            size = (_HEADERS.get(word) or _header_leaf(word))[1] or declared_size(word)
            if size == 0:
                self.done = True
                break
            self.off, self.idx = off + 8 * size, self.idx + 1
        return self.at


def _word_aligned(buf: bytes, word: bytes, start: int) -> bool:
    """Whether ``word`` (8 bytes) stands in ``buf`` at an offset that is a multiple of 8, from
    ``start`` (one: a byte search, ``bytes.find``)."""
    at = buf.find(word, start)
    while at >= 0:
        if at % 8 == 0:
            return True
        at = buf.find(word, at + 1)
    return False


def first_magic(buf, big: bool = False) -> int | None:
    """The offset of the file's first magic record: 0 when the file starts with it, else
    the first one among its first MAGIC_SEARCH_RECORDS records, else None."""
    return MagicSearch(big).find(buf)


def size_fields(log: bool) -> dict[int, Field]:
    """The size field of each record type (large records have a 32-bit one)."""
    if log:
        return {}
    return {t: lay.size_field for t, lay in _T.records.items() if lay.size_field is not _HEADER_SIZE}


def other_order(buf, off: int, big: bool) -> dict:
    """Message params: when the header at ``off`` frames cleanly in the other byte order
    (a writer that mixed byte orders), that order and the kind it would be."""
    kind = None
    if _have(buf, off + 8):
        (header,) = _UNPACK[not big](buf, off)
        kind = header_kind(header, buf, off, not big)
    if kind is None:
        return {}
    return {"other_byte_order": "little" if big else "big", "other_byte_order_kind": kind}


def frame_error(off: int, idx: int, size: int, buf, emit: Emit, big: bool, add_at=None) -> bool:
    """Report a header that cannot be framed (size 0, past the end). True if it cannot.
    ``add_at``: as ``start_checks``'."""
    n = _final_len(buf)
    if size == 0:
        _say(emit, add_at, R.record_size_zero, off, idx, 8, {"remaining": n - off, **other_order(buf, off, big)},
             field_span(off, _HEADER_SIZE, big))
        return True
    if off + 8 * size > n:
        _say(emit, add_at, R.record_past_end_of_file, off, idx, n - off,
             {"words": size, "bytes": 8 * size, "remaining": n - off, **other_order(buf, off, big)}, (off, n))
        return True
    return False


def after_record(rec: Record, emit: Emit, magic_at: int | None = 0) -> None:
    """Checks that depend on a record's place in the file. ``magic_at`` is the offset
    of the file's first magic record (``first_magic``): a later one is repeated, that
    one is only misplaced (MG001 says where it is)."""
    if rec.index > 0 and rec.offset != magic_at and rec.kind == _MAGIC_KIND \
            and _well_formed_magic(rec):
        emit(repeated_magic(rec.offset, rec.index, 8 * rec.size_words))


def repeated_magic(offset: int, index: int, size: int):
    """MG003 for the well-formed magic record at ``offset`` (record ``index``, ``size``
    bytes): the one place it is built (the native walk's rows too)."""
    rule, offset, index, size, params, span = repeated_magic_row(offset, index, size)
    return rule.at(offset, index, span=span, record_size=size, **params)


def repeated_magic_row(offset: int, index: int, size: int) -> tuple:
    """``repeated_magic``'s diagnostic as a sink's row, ``DiagnosticSink.add_at``'s arguments
    (built by its rule when read: the native walk's)."""
    return R.magic_repeated, offset, index, size, {"index": index}, (offset, offset + 8)


_MAGIC_KIND = "metadata.trace_info.magic"
_MAGIC_CONSTS = {f.name: f.const for f in next(
    lay for lay in _T.record_leaves() if lay.name == _MAGIC_KIND).full_fields if f.const is not None}


def _well_formed_magic(rec: Record) -> bool:
    """A magic record whose constant fields hold their values (else MG002 says it all)."""
    return well_formed_magic(rec.fields)


def well_formed_magic(fields: dict) -> bool:
    """The fields of a magic record whose constant fields hold their values."""
    return all(fields.get(k) == v for k, v in _MAGIC_CONSTS.items())


def iter_records(buf, emit: Emit, *, byte_order: str | None = None, log: bool = False,
                 check_magic: bool = True) -> Iterator[Record]:
    """Frame and decode every record of ``buf``; diagnostics go to ``emit``.

    ``byte_order`` None detects it from the magic record (little-endian without one).
    With ``log`` the buffer is read as a structured-log stream.
    """
    if byte_order is None:
        byte_order = detect_byte_order(buf) or "little"
    big = byte_order == "big"
    if start_checks(buf, emit, big, log, check_magic):
        return
    yield from walk_records(buf, emit, big=big, log=log, check_magic=check_magic)


def walk_records(buf, emit: Emit, *, big: bool, log: bool = False, check_magic: bool = True,
                 resync: bool = True) -> Iterator[Record]:
    """Frame and decode every record of ``buf`` after the file-level ``start_checks``
    (``resync``: as ``decode_record``'s; the recovering reader's default)."""
    n = len(buf)
    unpack = _UNPACK[big]
    size_lo, size_mask = _HEADER_SIZE.lo, _HEADER_SIZE.mask
    large = size_fields(log)
    magic_at = first_magic(buf, big)
    growing = getattr(buf, "growing", False)  # (its framing is frame_error's to settle, record by record)
    magic = _MAGIC_KIND if check_magic and not log else None  # after_record's kind
    off = 0
    idx = 0
    try:
        while n - off >= 8:
            (header,) = unpack(buf, off)
            sf = large.get(_HEADER_TYPE.get(header))
            size = (header >> sf.lo) & sf.mask if sf is not None else (header >> size_lo) & size_mask
            if (growing or size == 0 or off + 8 * size > n) and frame_error(off, idx, size, buf, emit, big):
                return
            rec = decode_record(buf, off, idx, size, emit, big=big, log=log, resync=resync)
            if rec.kind == magic:
                after_record(rec, emit, magic_at)
            yield rec
            off = rec.end  # the declared size, unless the content settled it (resync_offset)
            idx += 1
    finally:
        forget_chains()


def read_records(data, *, byte_order: str | None = None, log: bool = False):
    """Decode ``data`` (bytes, bytearray, memoryview or mmap). Returns (records, diagnostics)."""
    diags: list[Diagnostic] = []
    recs = list(iter_records(data, diags.append, byte_order=byte_order, log=log))
    return recs, diags
