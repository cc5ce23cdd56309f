"""The recovering reader: bytes in, records and diagnostics out. Never raises on input.

Framing walks record headers by their size; each record is decoded by walking its
layout from the spec tables, reading only inside the record's own bytes. A problem
becomes a diagnostic and decoding carries on where it safely can: a bad argument is
skipped by its size, an undefined type by the record's size, and only a header that
cannot be framed (size 0, past the end of the file) ends the walk.
"""

from __future__ import annotations

import struct
from typing import Callable, Iterator

from . import rules as R
from ._diagnostics import Diagnostic
from ._model import Argument, Record
from ._tables import (ArgsItem, Field, Layout, StreamItem, StringItem, TableError, VariantItem, WordItem, WordsItem,
                      check_dispatch, tables)

_T = tables()
_MAGIC = _T.magic_word
MAGIC_LE = struct.pack("<Q", _MAGIC)
MAGIC_BE = struct.pack(">Q", _MAGIC)
_HEADER_TYPE = next(f for f in _T.header if f.role == "type")
_HEADER_SIZE = next(f for f in _T.header if f.role == "size")
_ARG_TYPE = next(f for f in _T.argument_header if f.role == "type")
_ARG_SIZE = next(f for f in _T.argument_header if f.role == "size")
_INLINE_BIT = _T.string_inline_bit
_INLINE_LEN = _INLINE_BIT - 1

Emit = Callable[[Diagnostic], None]
_UNPACK = {False: struct.Struct("<Q").unpack_from, True: struct.Struct(">Q").unpack_from}


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
    if len(buf) < 16 or detect_byte_order(buf) is not None:
        return False
    lr = _T.log_record
    (h,) = struct.unpack_from("<Q", buf, 0)
    sev = next(f for f in lr.full_fields if f.enum is not None)  # its one enum: the severity
    return _HEADER_TYPE.get(h) == lr.type and sev.get(h) != 0 and (h & lr.zero_mask) == 0


def field_span(base: int, f: Field, big: bool) -> tuple[int, int]:
    """Byte range of a field inside the 64-bit word at ``base``."""
    lo, hi = f.lo // 8, f.hi // 8
    if big:
        return (base + 7 - hi, base + 8 - lo)
    return (base + lo, base + hi + 1)


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


class _Decoder:
    """Decodes one record's layout; holds what every diagnostic of the record needs."""

    __slots__ = ("buf", "unpack", "big", "emit", "off", "idx", "size", "what", "log")

    def __init__(self, buf, unpack, big, emit, off, idx, size, what, log=False):
        self.buf = buf
        self.unpack = unpack
        self.big = big
        self.emit = emit
        self.off = off
        self.idx = idx
        self.size = size
        self.what = what
        self.log = log

    def report(self, rule, span=None, **params):
        self.emit(rule.at(self.off, self.idx, span=span, record_size=self.size, **params))

    # -- fields -------------------------------------------------------------------
    def check_fields(self, word, base, cf: _Fields, where):
        out = {}
        for name, lo, mask, sign in cf.get:
            v = (word >> lo) & mask
            if v & sign:
                v -= sign << 1
            out[name] = v
        if word & cf.zero_mask:
            for f, rule in cf.zero:
                if out[f.name]:
                    self.report(rule, field_span(base, f, self.big), where=where, field=f.name,
                                lo=f.lo, hi=f.hi, value=out[f.name])
        for f, rule, between in cf.checks:
            v = out[f.name]
            if f.const is not None:
                if v != f.const:
                    self.report(rule, field_span(base, f, self.big), where=where, field=f.name, value=v,
                                expected=f.const)
                continue
            values = _T.enums[f.enum]
            if v in values:
                continue
            below = max((k for k in values if k < v), default=None)
            above = min((k for k in values if k > v), default=None)
            if between is not None and below is not None and above is not None:
                self.report(between, field_span(base, f, self.big), where=where, field=f.name, value=v,
                            enum=f.enum, below=values[below], above=values[above])
            else:
                self.report(rule, field_span(base, f, self.big), where=where, field=f.name, value=v,
                            enum=f.enum)
        return out

    # -- streams ------------------------------------------------------------------
    def stream(self, pos, end, length, part, content, strings, name, overrun):
        nbytes = (length + 7) & ~7
        if pos + nbytes > end:
            overrun(part, nbytes, end - pos, pos)
            return -1
        buf = self.buf
        data = bytes(buf[pos : pos + length])
        if nbytes != length and any(buf[pos + length : pos + nbytes]):
            self.report(R.padding_not_zero, (pos + length, pos + nbytes), part=part, where=self.what)
        if content == "utf8":
            if length > _T.max_string_length:
                self.report(R.string_too_long, (pos, pos + nbytes), part=part, length=length,
                            limit=_T.max_string_length)
            try:
                strings[name] = data.decode("utf-8")
            except UnicodeDecodeError as e:
                self.report(R.invalid_utf8, (pos + e.start, pos + e.end), part=part, where=self.what,
                            reason=e.reason, at=e.start)
                strings[name] = data
        else:
            strings[name] = data
        return pos + nbytes

    # -- bodies: one handler per item class -----------------------------------------
    def body(self, items, pos, end, fields, strings, args, overrun, where):
        """Walk body items from ``pos``; returns the position after them, -1 on overrun."""
        for it in items:
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
                    overrun(n, 8, end - pos, pos)
                    return -1
                (fields[n],) = self.unpack(self.buf, pos)
                pos += 8
        return pos

    def string(self, it, pos, end, fields, strings, args, overrun, where):
        ref = fields.get(it.name, 0)
        if ref & _INLINE_BIT:
            return self.stream(pos, end, ref & _INLINE_LEN, f"{it.name} string", "utf8", strings, it.name, overrun)
        return pos

    def stream_item(self, it, pos, end, fields, strings, args, overrun, where):
        return self.stream(pos, end, fields.get(it.length, 0), it.name, it.content, strings, it.name, overrun)

    def args(self, it, pos, end, fields, strings, args, overrun, where):
        count = None if it.name == "*" else fields.get(it.name, 0)
        return self.arguments(pos, end, count, args)

    def variant(self, it, pos, end, fields, strings, args, overrun, where):  # pragma: no cover
        raise TableError("a variant placeholder left in a leaf layout")  # the loader splices them all

    def arguments(self, pos, end, count, out):
        """Decode ``count`` arguments (None: until ``end``). Bad ones are skipped by size."""
        i = 0
        unpack = self.unpack
        while (i < count) if count is not None else (pos < end):
            if pos + 8 > end:
                self.report(R.content_overruns_record, (pos, end), where=self.what,
                            part=f"argument {i}", need=8, have=end - pos)
                return -1
            (h,) = unpack(self.buf, pos)
            atype = (h >> _ARG_TYPE.lo) & _ARG_TYPE.mask
            asize = (h >> _ARG_SIZE.lo) & _ARG_SIZE.mask
            if asize == 0:
                self.report(R.argument_size_zero, (pos, pos + 8), i=i)
                return -1
            aend = pos + 8 * asize
            if aend > end:
                self.report(R.argument_overruns_record, (pos, end), i=i, words=asize,
                            have=(end - pos) // 8)
                return -1
            out.append(self.argument(h, atype, asize, pos, aend, i))
            pos = aend
            i += 1
        return pos

    def argument(self, h, atype, asize, pos, aend, i):
        lay = _T.arguments.get(atype)
        if lay is None:
            self.report(R.unknown_argument_type, field_span(pos, _ARG_TYPE, self.big), i=i, value=atype)
            return Argument(atype, "unknown", {f.name: f.get(h) for f in _T.argument_header},
                            raw=bytes(self.buf[pos + 8 : aend]))
        if self.log and atype not in _T.log_allowed_argument_types:
            self.report(R.log_argument_type_not_allowed, field_span(pos, _ARG_TYPE, self.big), i=i,
                        value=atype, kind=lay.name, allowed=_LOG_ALLOWED)
        where = f"argument {i} ({lay.name})"
        fields = self.check_fields(h, pos, _compiled(lay.full_fields), where)
        strings: dict = {}
        over = []

        def overrun(part, need, have, at):
            over.append((part, need, have, at))

        end = self.body(lay.full_body, pos + 8, aend, fields, strings, None, overrun, where)
        extra: tuple[int, ...] = ()
        if end < 0:
            part, need, have, at = over[0]
            used = (at - pos) // 8 + (need + 7) // 8
            self.report(R.argument_size_mismatch, (pos, aend), i=i, kind=lay.name, declared=asize,
                        actual=f"at least {used}")
        elif end < aend:
            self.report(R.argument_size_mismatch, (end, aend), i=i, kind=lay.name, declared=asize,
                        actual=(end - pos) // 8)
            extra = tuple(self.unpack(self.buf, p)[0] for p in range(end, aend, 8))
        return Argument(atype, lay.name, fields, strings, extra)


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
_LOG_ALLOWED_NAMES = [_T.arguments[t].name for t in _T.log_allowed_argument_types]
# "int64, uint64, double, string and bool": for SL004's message, from the tables
_LOG_ALLOWED = " and ".join(filter(None, (", ".join(_LOG_ALLOWED_NAMES[:-1]), _LOG_ALLOWED_NAMES[-1])))


def decode_record(buf, off: int, idx: int, size_words: int, emit: Emit, *, big: bool = False,
                  log: bool = False) -> Record:
    """Decode the record framed at ``[off, off + 8*size_words)`` of ``buf``."""
    unpack = _UNPACK[big]
    end = off + 8 * size_words
    (h,) = unpack(buf, off)
    rtype = (h >> _HEADER_TYPE.lo) & _HEADER_TYPE.mask
    root = _T.log_record if log else _T.records.get(rtype)
    dec = _Decoder(buf, unpack, big, emit, off, idx, 8 * size_words, "record", log)
    if root is None:
        dec.report(R.unknown_record_type, field_span(off, _HEADER_TYPE, big), value=rtype)
        return Record(rtype, "unknown", {"type": rtype, "size": size_words, "bits": h >> (_HEADER_SIZE.hi + 1)},
                      raw=bytes(buf[off + 8 : end]), offset=off, index=idx, size_words=size_words)
    lay = root
    while not lay.is_leaf:
        v = lay.selector.get(h)
        child = lay.variants.get(v)
        if child is None:
            dec.report(R.unknown_record_subtype, field_span(off, lay.selector, big), record=lay.name,
                       field=lay.selector.name, value=v)
            return Record(rtype, f"{lay.name}.unknown", {"type": rtype, "size": size_words,
                          "bits": h >> (root.size_field.hi + 1)}, raw=bytes(buf[off + 8 : end]), offset=off, index=idx,
                          size_words=size_words)
        lay = child
    dec.what = lay.name
    fields = dec.check_fields(h, off, _compiled(lay.full_fields), f"{lay.name} header")
    strings: dict = {}
    args: list = []
    overran = []

    def overrun(part, need, have, at):
        overran.append(part)
        dec.report(R.content_overruns_record, (at, end), where=lay.name, part=part, need=need,
                   have=have)

    pos = dec.body(lay.full_body, off + 8, end, fields, strings, args, overrun, lay.name)
    if log:
        _check_log(dec, lay, fields, args)
    extra: tuple[int, ...] = ()
    if pos >= 0 and pos < end:
        extra = tuple(unpack(buf, p)[0] for p in range(pos, end, 8))
        if not lay.extensible:
            dec.report(R.magic_has_extra_words, (pos, end), record=lay.name, words=size_words)
        else:
            dec.report(R.trailing_words, (pos, end), record=lay.name, n=len(extra))
    return Record(rtype, lay.name, fields, strings, tuple(args), extra, offset=off, index=idx,
                  size_words=size_words, complete=pos >= 0)


# per argument type: its string-ref fields among the name and the value (log strings are inline only)
_LOG_REFS = {t: tuple(p for p in ("name", "value") if (f := a.field(p)) is not None and f.role == "string_ref")
             for t, a in _T.arguments.items()}


def _check_log(dec: _Decoder, lay: Layout, fields: dict, args: list) -> None:
    """Structured-log checks on a decoded log record's arguments: refs and names."""
    for i, a in enumerate(args):
        if a.kind == "unknown":
            continue
        for part in _LOG_REFS[a.type]:
            ref = a.fields.get(part, 0)
            if ref and not ref & _INLINE_BIT:
                dec.report(R.log_string_ref_reserved, None, i=i, part=part, value=ref)
        name_ref = a.fields.get("name", 0)
        if name_ref == 0 or name_ref == _INLINE_BIT:
            dec.report(R.log_argument_name_empty, None, i=i)


def start_checks(buf, emit: Emit, big: bool, log: bool, check_magic: bool = True) -> None:
    """File-level checks made before the walk: length alignment, byte order, magic."""
    n = len(buf)
    if n % 8:
        emit(R.file_length_not_aligned.at(n - n % 8, -1, span=(n - n % 8, n), length=n, extra=n % 8))
    if big and detect_byte_order(buf) == "big":
        emit(R.big_endian_archive.at(0, 0, span=(0, 8), record_size=8))
    if check_magic and not log:
        if n < 8 or detect_byte_order(buf) is None:
            first = bytes(buf[:8]).hex(" ")
            emit(R.magic_missing.at(0, 0, span=(0, min(n, 8)), record_size=min(n, 8), first=first or "(empty file)"))


def size_fields(log: bool) -> dict[int, Field]:
    """The size field of each record type (large records have a 32-bit one)."""
    if log:
        return {}
    return {t: lay.size_field for t, lay in _T.records.items() if lay.size_field is not _HEADER_SIZE}


def frame_error(off: int, idx: int, size: int, n: int, emit: Emit, big: bool) -> bool:
    """Report a header that cannot be framed (size 0, past the end). True if it cannot."""
    if size == 0:
        emit(R.record_size_zero.at(off, idx, span=field_span(off, _HEADER_SIZE, big), record_size=8,
                                   remaining=n - off))
        return True
    if off + 8 * size > n:
        emit(R.record_past_end_of_file.at(off, idx, span=(off, n), record_size=n - off,
                                          words=size, bytes=8 * size, remaining=n - off))
        return True
    return False


def after_record(rec: Record, emit: Emit) -> None:
    """Checks that depend on a record's place in the file."""
    if rec.index > 0 and rec.kind == "metadata.trace_info.magic":
        emit(R.magic_repeated.at(rec.offset, rec.index, span=(rec.offset, rec.offset + 8),
                                 record_size=8 * rec.size_words))


def iter_records(buf, emit: Emit, *, byte_order: str | None = None, log: bool = False,
                 check_magic: bool = True) -> Iterator[Record]:
    """Frame and decode every record of ``buf``; diagnostics go to ``emit``.

    ``byte_order`` None detects it from the magic record (little-endian without one).
    With ``log`` the buffer is read as a structured-log stream.
    """
    n = len(buf)
    if byte_order is None:
        byte_order = detect_byte_order(buf) or "little"
    big = byte_order == "big"
    unpack = _UNPACK[big]
    size_lo, size_mask = _HEADER_SIZE.lo, _HEADER_SIZE.mask
    large = size_fields(log)
    start_checks(buf, emit, big, log, check_magic)
    off = 0
    idx = 0
    while n - off >= 8:
        (h,) = unpack(buf, off)
        sf = large.get(_HEADER_TYPE.get(h))
        size = (h >> sf.lo) & sf.mask if sf is not None else (h >> size_lo) & size_mask
        if frame_error(off, idx, size, n, emit, big):
            return
        rec = decode_record(buf, off, idx, size, emit, big=big, log=log)
        if check_magic and not log:
            after_record(rec, emit)
        yield rec
        off += 8 * size
        idx += 1


def read_records(data, *, byte_order: str | None = None, log: bool = False):
    """Decode ``data`` (bytes, bytearray, memoryview or mmap). Returns (records, diagnostics)."""
    diags: list[Diagnostic] = []
    recs = list(iter_records(data, diags.append, byte_order=byte_order, log=log))
    return recs, diags
