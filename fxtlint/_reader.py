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
from ._tables import Field, Item, Layout, tables

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
    sev = next(f for f in lr.full_fields if f.enum == "severity")
    return _HEADER_TYPE.get(h) == lr.type and sev.get(h) != 0 and (h & lr.zero_mask) == 0


def field_span(base: int, f: Field, big: bool) -> tuple[int, int]:
    """Byte range of a field inside the 64-bit word at ``base``."""
    lo, hi = f.lo // 8, f.hi // 8
    if big:
        return (base + 7 - hi, base + 8 - lo)
    return (base + lo, base + hi + 1)


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
    def check_fields(self, word, base, flds, zero_mask, where, arg=False):
        out = {}
        for f in flds:
            out[f.name] = f.get(word)
        if word & zero_mask:
            for f in flds:
                if f.must_be_zero and out[f.name]:
                    rule = R.always_zero_bit_set if f.zero else (
                        R.argument_reserved_bits_set if arg else R.reserved_bits_set)
                    self.report(rule, field_span(base, f, self.big), where=where, field=f.name,
                                lo=f.lo, hi=f.hi, value=out[f.name])
        for f in flds:
            if f.const is not None and out[f.name] != f.const and f.role != "type":
                self.report(R.magic_wrong_value, field_span(base, f, self.big), value=out[f.name],
                            expected=f.const)
            elif f.enum is not None and f.enum != "severity" and out[f.name] not in _T.enums[f.enum]:
                self.report(R.undefined_enum_value, field_span(base, f, self.big), where=where,
                            field=f.name, value=out[f.name], enum=f.enum)
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

    # -- bodies -------------------------------------------------------------------
    def body(self, items, pos, end, fields, strings, args, overrun, where):
        """Walk body items from ``pos``; returns the position after them, -1 on overrun."""
        unpack = self.unpack
        buf = self.buf
        for it in items:
            kind = it.kind
            if kind == "word":
                if pos + 8 > end:
                    overrun(it.name, 8, end - pos, pos)
                    return -1
                (w,) = unpack(buf, pos)
                if it.fields:
                    zm = 0
                    for f in it.fields:
                        if f.must_be_zero:
                            zm |= f.word_mask
                    fields.update(self.check_fields(w, pos, it.fields, zm, f"{where} {it.name} word"))
                elif it.float:
                    fields[it.name] = struct.unpack("<d", struct.pack("<Q", w))[0]
                elif it.signed and w >> 63:
                    fields[it.name] = w - (1 << 64)
                else:
                    fields[it.name] = w
                pos += 8
            elif kind == "words":
                if fields.get(it.cond, 1) == 0:
                    for n in it.names:
                        if pos + 8 > end:
                            overrun(n, 8, end - pos, pos)
                            return -1
                        (fields[n],) = unpack(buf, pos)
                        pos += 8
            elif kind == "string":
                ref = fields.get(it.name, 0)
                if ref & _INLINE_BIT:
                    pos = self.stream(pos, end, ref & _INLINE_LEN, f"{it.name} string", "utf8",
                                      strings, it.name, overrun)
                    if pos < 0:
                        return -1
            elif kind == "stream":
                length = fields.get(it.length, 0)
                pos = self.stream(pos, end, length, it.name, it.content, strings, it.name, overrun)
                if pos < 0:
                    return -1
            elif kind == "args":
                count = None if it.name == "*" else fields.get(it.name, 0)
                pos = self.arguments(pos, end, count, args)
                if pos < 0:
                    return -1
        return pos

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
            atype = _ARG_TYPE.get(h)
            asize = _ARG_SIZE.get(h)
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
                        value=atype, kind=lay.name)
        where = f"argument {i} ({lay.name})"
        fields = self.check_fields(h, pos, lay.full_fields, lay.zero_mask, where, arg=True)
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


def decode_record(buf, off: int, idx: int, size_words: int, emit: Emit, *, big: bool = False,
                  log: bool = False) -> Record:
    """Decode the record framed at ``[off, off + 8*size_words)`` of ``buf``."""
    unpack = _UNPACK[big]
    end = off + 8 * size_words
    (h,) = unpack(buf, off)
    rtype = _HEADER_TYPE.get(h)
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
    if log and rtype != lay.type:
        dec.report(R.log_record_wrong_type, field_span(off, _HEADER_TYPE, big), value=rtype)
    fields = dec.check_fields(h, off, lay.full_fields, lay.zero_mask, f"{lay.name} header")
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


_SEVERITIES = sorted(_T.enums["severity"].items())
_SEVERITY_FIELD = next(f for f in _T.log_record.full_fields if f.enum == "severity")


def _check_log(dec: _Decoder, lay: Layout, fields: dict, args: list) -> None:
    """Structured-log checks on a decoded log record: severity, refs and names."""
    sev = fields.get(_SEVERITY_FIELD.name, 0)
    span = field_span(dec.off, _SEVERITY_FIELD, dec.big)
    if sev not in _T.enums["severity"]:
        if _SEVERITIES[0][0] < sev < _SEVERITIES[-1][0]:
            below = [n for v, n in _SEVERITIES if v < sev][-1]
            above = [n for v, n in _SEVERITIES if v > sev][0]
            dec.report(R.log_severity_raw, span, value=sev, below=below, above=above)
        else:
            dec.report(R.log_severity_invalid, span, value=sev)
    for i, a in enumerate(args):
        if a.kind == "unknown":
            continue
        for part in ("name", "value"):
            f = _T.arguments[a.type].field(part)
            if f is None or f.role != "string_ref":
                continue
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
