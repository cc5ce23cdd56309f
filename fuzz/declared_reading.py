"""A plain reading of a trace archive by each record's declared size, written from the
spec for the tests (tests/test_declared_verdict.py) and the lint harness (fuzz_lint.py),
independently of fxtlint's engine (no import from ``fxtlint``).

It is the reading the spec defines ("Record Header: [4 .. 15] record size (inclusive of
this word)"; type 15: "[4 .. 35]"): every record is framed by its header's size and
nothing else, and the reader keeps each provider's string and thread tables. It says
whether such a reader meets an error: no magic record first, a file length that is not a
multiple of 8, a size of 0, a record past the end of the file, content past a record's
size, an argument of size 0 or past its record, or a string or thread ref that names an
index the current provider never registered (tables follow Provider Info and Provider
Section records, as in the spec: "All data which follows until the next provider
section metadata or provider info metadata is encountered must have been collected from
the same provider"). It checks nothing else, so its verdict is a floor: when it meets an
error, a linter that reads as the spec does must fail the file.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

MAGIC = 0x0016547846040010
INLINE = 0x8000  # string ref: top bit set, the length in the low 15 bits


def bits(word: int, lo: int, hi: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


def word_format(data: bytes) -> str:
    """The struct format of the archive's words: big-endian when its first word is the
    byte-reversed magic record, little-endian otherwise."""
    return ">Q" if len(data) >= 8 and struct.unpack_from(">Q", data)[0] == MAGIC else "<Q"


def size_of(header: int) -> int:
    """A header's declared size in words: [4 .. 35] for type 15 (large records), else [4 .. 15]."""
    return bits(header, 4, 35) if header & 15 == 15 else bits(header, 4, 15)


def frames(data: bytes) -> list[tuple[int, int, int]]:
    """(offset, header, size in words) of each record framed by its declared size, up to
    the first that cannot be framed (size 0, past the end)."""
    fmt, out, off = word_format(data), [], 0
    while off + 8 <= len(data):
        (header,) = struct.unpack_from(fmt, data, off)
        size = size_of(header)
        if size == 0 or off + 8 * size > len(data):
            break
        out.append((off, header, size))
        off += 8 * size
    return out


def with_size(data: bytes, off: int, size: int) -> bytes:
    """``data`` with the header at ``off`` declaring ``size`` words (cut to the field's
    width), every other bit kept."""
    fmt = word_format(data)
    (header,) = struct.unpack_from(fmt, data, off)
    mask = (1 << (32 if header & 15 == 15 else 12)) - 1
    header = (header & ~(mask << 4)) | ((size & mask) << 4)
    return data[:off] + struct.pack(fmt, header) + data[off + 8:]


@dataclass
class Reading:
    errors: list[tuple[int, str]] = field(default_factory=list)  # (byte offset, what)
    framing_stop: int | None = None  # where framing stopped on an error (size 0, past the end)
    records: int = 0

    @property
    def failed(self) -> bool:
        return bool(self.errors)


class _Record:
    """One record's words, bounded by its declared size: reading past it is an error."""

    def __init__(self, data: bytes, off: int, words: int, fmt: str):
        self.data, self.off, self.end, self.fmt = data, off, off + 8 * words, fmt
        self.pos = off + 8

    def word(self) -> int:
        if self.pos + 8 > self.end:
            raise _Overrun
        (w,) = struct.unpack_from(self.fmt, self.data, self.pos)
        self.pos += 8
        return w

    def skip_bytes(self, n: int) -> None:
        n = (n + 7) // 8 * 8
        if self.pos + n > self.end:
            raise _Overrun
        self.pos += n


class _Overrun(Exception):
    pass


def read(data: bytes) -> Reading:
    """The declared-size reading of ``data`` as a trace archive."""
    out = Reading()
    if len(data) % 8:
        out.errors.append((len(data) - len(data) % 8, "file length not a multiple of 8"))
    if len(data) < 8:
        out.errors.append((0, "no magic record"))
        return out
    fmt = word_format(data)
    if struct.unpack_from(fmt, data)[0] != MAGIC:
        out.errors.append((0, "the first record is not the magic record"))
    tables: dict = {}
    current = [None]

    def table(pid):
        return tables.setdefault(pid, (set(), set()))

    def string_ref(rec: _Record, ref: int, what: str):
        if ref == 0:
            return
        if ref & INLINE:
            rec.skip_bytes(ref & 0x7FFF)
        elif ref not in table(current[0])[0]:
            out.errors.append((rec.off, f"{what}: string index {ref} unregistered"))

    def thread_ref(rec: _Record, ref: int, words: int, what: str):
        if ref == 0:
            for _ in range(words):
                rec.word()
        elif ref not in table(current[0])[1]:
            out.errors.append((rec.off, f"{what}: thread index {ref} unregistered"))

    def arguments(rec: _Record, count: int):
        for i in range(count):
            at = rec.pos
            header = rec.word()
            size = bits(header, 4, 15)
            if size == 0:
                out.errors.append((rec.off, f"argument {i} has size 0"))
                raise _Stop
            if at + 8 * size > rec.end:
                out.errors.append((rec.off, f"argument {i} runs past its record"))
                raise _Stop
            arg = _Record(rec.data, at, size, rec.fmt)
            if bits(header, 0, 3) > 10:
                rec.pos = at + 8 * size
                continue  # an undefined argument type: skipped by its size, as a whole
            try:
                string_ref(arg, bits(header, 16, 31), f"argument {i} name")
                if bits(header, 0, 3) == 6:  # string argument: its value ref
                    string_ref(arg, bits(header, 32, 47), f"argument {i} value")
            except _Overrun:
                out.errors.append((rec.off, f"argument {i}'s content runs past its size"))
                raise _Stop from None
            rec.pos = at + 8 * size

    off = 0
    n = len(data) - len(data) % 8
    while off + 8 <= n:
        (header,) = struct.unpack_from(fmt, data, off)
        rtype = bits(header, 0, 3)
        size = size_of(header)
        if size == 0:
            out.errors.append((off, "size 0"))
            out.framing_stop = off
            return out
        if off + 8 * size > n:
            out.errors.append((off, "record past the end of the file"))
            out.framing_stop = off
            return out
        rec = _Record(data, off, size, fmt)
        try:
            _record(rec, header, rtype, tables, current, table, string_ref, thread_ref, arguments)
        except _Overrun:
            out.errors.append((off, "content past the record's size"))
        except _Stop:
            pass
        out.records += 1
        off += 8 * size
    return out


class _Stop(Exception):
    pass


def _record(rec, header, rtype, tables, current, table, string_ref, thread_ref, arguments):
    if rtype == 0:  # metadata
        mtype = bits(header, 16, 19)
        if mtype in (1, 2):  # provider info, provider section: the tables of that provider follow
            if mtype == 1:
                rec.skip_bytes(bits(header, 52, 59))
            current[0] = bits(header, 20, 51)
            table(current[0])
    elif rtype == 1:  # initialization
        rec.word()
    elif rtype == 2:  # string record
        index = bits(header, 16, 30)
        rec.skip_bytes(bits(header, 32, 46))
        if index:
            table(current[0])[0].add(index)
    elif rtype == 3:  # thread record
        index = bits(header, 16, 23)
        rec.word()
        rec.word()
        if index:
            table(current[0])[1].add(index)
    elif rtype == 4:  # event
        etype = bits(header, 16, 19)
        if etype > 10:
            return  # undefined event type: skipped
        rec.word()  # timestamp
        thread_ref(rec, bits(header, 24, 31), 2, "event thread")
        string_ref(rec, bits(header, 32, 47), "event category")
        string_ref(rec, bits(header, 48, 63), "event name")
        arguments(rec, bits(header, 20, 23))
        if etype in (1, 4, 5, 6, 7, 8, 9, 10):
            rec.word()  # counter id, end timestamp, correlation or flow id
    elif rtype == 5:  # blob
        string_ref(rec, bits(header, 16, 31), "blob name")
        rec.skip_bytes(bits(header, 32, 46))
    elif rtype == 6:  # userspace object
        rec.word()  # pointer
        thread_ref(rec, bits(header, 16, 23), 1, "userspace object process")
        string_ref(rec, bits(header, 24, 39), "userspace object name")
        arguments(rec, bits(header, 40, 43))
    elif rtype == 7:  # kernel object
        rec.word()  # koid
        string_ref(rec, bits(header, 24, 39), "kernel object name")
        arguments(rec, bits(header, 40, 43))
    elif rtype == 8:  # scheduling
        sub = bits(header, 60, 63)
        if sub == 0:
            rec.word()
            thread_ref(rec, bits(header, 28, 35), 2, "outgoing thread")
            thread_ref(rec, bits(header, 36, 43), 2, "incoming thread")
        elif sub == 1:
            for _ in range(3):
                rec.word()
            arguments(rec, bits(header, 16, 19))
        elif sub == 2:
            for _ in range(2):
                rec.word()
            arguments(rec, bits(header, 16, 19))
    elif rtype == 9:  # log record
        rec.word()  # timestamp
        thread_ref(rec, bits(header, 32, 39), 2, "log thread")
        rec.skip_bytes(bits(header, 16, 30))
