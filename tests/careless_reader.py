"""A careless FXT reader, written the way issue 34's trial reader was, to show the
conformance suite names each of its bugs (tests/test_conformance_careless.py).

python careless_reader.py [--bug NAME]... < FILE prints the canonical decoding
(corpus/conformance/README.md) of a little-endian trace and exits 0. It skips a
malformed record by its size; where it cannot go on (a record cut by the end of the
file, a size of 0) it prints the records read so far and exits 0 too: it never says a
file is damaged.
Plain ``struct``, nothing of fxtlint. Each bug can be turned on alone:

- ``sections``: ignores Provider Section records (one string and thread table for all
  providers, and every record belongs to the last provider announced);
- ``last-word``: reads an event's trailing word (counter id, end timestamp, correlation
  or flow id) from the record's last word, not from after its arguments;
- ``large12``: frames large records (type 15) with the 12-bit size [4 .. 15];
- ``read-through``: decodes an argument whose content overruns its size from the
  words that follow, where a careful reader skips the record.

With no ``--bug`` all four are on. Events, logs, blobs, strings, threads, providers and
large blobs are decoded; other record types are skipped by their size (so the cases
holding them come out wrong whatever the bugs), arguments of the common types read,
others skipped.
"""

from __future__ import annotations

import json
import struct
import sys

EVENTS = ("instant", "counter", "duration_begin", "duration_end", "duration_complete", "async_begin",
          "async_instant", "async_end", "flow_begin", "flow_step", "flow_end")
TRAILING = {"counter": "counter_id", "duration_complete": "end_timestamp", "async_begin": "correlation_id",
            "async_instant": "correlation_id", "async_end": "correlation_id", "flow_begin": "flow_id",
            "flow_step": "flow_id", "flow_end": "flow_id"}
ARG_TYPES = {0: "null", 1: "int32", 2: "uint32", 3: "int64", 4: "uint64", 5: "double", 6: "string",
             7: "pointer", 8: "koid", 9: "bool"}


class Cut(Exception):
    """The record needs words the file does not have."""


def bits(word: int, lo: int, hi: int) -> int:
    return (word >> lo) & ((1 << (hi - lo + 1)) - 1)


class Reader:
    def __init__(self, data: bytes, bugs: set[str]):
        self.data, self.bugs = data, bugs
        self.providers: dict[int, dict] = {}
        self.provider: dict | None = None  # {"id", "name"}
        self.tables: dict[int | None, tuple[dict, dict]] = {None: ({}, {})}
        self.records: list[dict] = []
        self.limit = len(data)  # the end of the record being read

    def need(self, end: int) -> None:
        """Content up to ``end`` must be inside the record being read (``limit``)."""
        if end > self.limit:
            raise Cut if end > len(self.data) else ValueError("content overruns its record")

    def word(self, at: int) -> int:
        self.need(at + 8)
        return struct.unpack_from("<Q", self.data, at)[0]

    def text(self, at: int, n: int) -> str:
        self.need(at + n)
        return self.data[at:at + n].decode("utf-8")

    @property
    def strings(self) -> dict:
        return self.tables.setdefault(self.provider["id"] if self.provider else None, ({}, {}))[0]

    @property
    def threads(self) -> dict:
        return self.tables.setdefault(self.provider["id"] if self.provider else None, ({}, {}))[1]

    def string_ref(self, ref: int, at: int) -> tuple[str, int]:
        """The text of a string ref and where the record goes on."""
        if ref & 0x8000:
            n = ref & 0x7FFF
            return self.text(at, n), at + (n + 7) // 8 * 8
        return ("" if ref == 0 else self.strings[ref]), at

    def thread_ref(self, ref: int, at: int) -> tuple[dict, int]:
        if ref == 0:
            return {"process_koid": str(self.word(at)), "thread_koid": str(self.word(at + 8))}, at + 16
        pid, tid = self.threads[ref]
        return {"process_koid": str(pid), "thread_koid": str(tid)}, at

    def arguments(self, n: int, at: int, end: int) -> tuple[list, int]:
        out = []
        for _ in range(n):
            h = self.word(at)
            kind, size = bits(h, 0, 3), bits(h, 4, 15)
            name, p = self.string_ref(bits(h, 16, 31), at + 8)
            nxt = at + 8 * size
            if kind in ARG_TYPES:
                value, p = self.value(kind, h, p)
                if p > nxt and "read-through" not in self.bugs:
                    raise ValueError("argument overruns its size")
                if "read-through" in self.bugs:
                    nxt = max(nxt, p)  # goes on after what it read
                out.append({"name": name, "type": ARG_TYPES[kind], "value": value})
            at = nxt
        self.need(at)
        return out, at

    def value(self, kind: int, h: int, p: int):
        if kind == 0:
            return None, p
        if kind in (1, 2):
            v = bits(h, 32, 63)
            return (v - (1 << 32) if kind == 1 and v >> 31 else v), p
        if kind == 9:
            return bool(bits(h, 32, 32)), p
        if kind == 6:
            return self.string_ref(bits(h, 32, 47), p)
        w = self.word(p)
        if kind == 3:
            return str(w - (1 << 64) if w >> 63 else w), p + 8
        if kind == 5:
            d = struct.unpack("<d", struct.pack("<Q", w))[0]
            if d != d:
                return "NaN", p + 8
            if d in (float("inf"), float("-inf")):
                return ("Infinity" if d > 0 else "-Infinity"), p + 8
            return d, p + 8
        return str(w), p + 8

    def event(self, h: int, at: int, end: int) -> None:
        kind = EVENTS[bits(h, 16, 19)] if bits(h, 16, 19) < len(EVENTS) else None
        if kind is None:
            return
        ts = self.word(at + 8)
        thread, p = self.thread_ref(bits(h, 24, 31), at + 16)
        category, p = self.string_ref(bits(h, 32, 47), p)
        name, p = self.string_ref(bits(h, 48, 63), p)
        args, p = self.arguments(bits(h, 20, 23), p, end)
        rec = {"kind": f"event.{kind}", "provider": self.provider, "thread": thread, "category": category,
               "name": name, "timestamp": str(ts), "arguments": args}
        if kind in TRAILING:
            rec[TRAILING[kind]] = str(self.word(end - 8 if "last-word" in self.bugs else p))
        self.records.append(rec)

    def large(self, h: int, at: int) -> None:
        if bits(h, 36, 39) != 0 or bits(h, 40, 43) > 1:
            return
        fh = self.word(at + 8)
        category, p = self.string_ref(bits(fh, 0, 15), at + 16)
        name, p = self.string_ref(bits(fh, 16, 31), p)
        rec: dict = {"kind": "large.blob.no_metadata", "provider": self.provider, "category": category,
                     "name": name}
        if bits(h, 40, 43) == 0:
            ts = self.word(p)
            thread, p = self.thread_ref(bits(fh, 36, 43), p + 8)
            args, p = self.arguments(bits(fh, 32, 35), p, len(self.data))
            rec = {**rec, "kind": "large.blob.with_metadata", "thread": thread, "timestamp": str(ts),
                   "arguments": args}
        n = self.word(p)
        self.need(p + 8 + n)
        rec["payload"] = self.data[p + 8:p + 8 + n].hex()
        self.records.append(rec)

    def read(self) -> None:
        at = 0
        while at < len(self.data):
            self.limit = len(self.data)
            h = self.word(at)
            kind = bits(h, 0, 3)
            size = bits(h, 4, 35) if kind == 15 and "large12" not in self.bugs else bits(h, 4, 15)
            if size == 0:
                raise ValueError("record of size 0")
            end = at + 8 * size
            if end > len(self.data):
                raise Cut
            self.limit = end
            try:
                if kind == 0 and bits(h, 16, 19) == 1:  # provider info
                    pid, n = bits(h, 20, 51), bits(h, 52, 59)
                    self.provider = self.providers[pid] = {"id": pid, "name": self.text(at + 8, n)}
                    self.tables[pid] = ({}, {})
                elif kind == 0 and bits(h, 16, 19) == 2 and "sections" not in self.bugs:
                    pid = bits(h, 20, 51)
                    self.provider = self.providers.get(pid, {"id": pid, "name": None})
                elif kind == 2 and bits(h, 16, 30):
                    self.strings[bits(h, 16, 30)] = self.text(at + 8, bits(h, 32, 46))
                elif kind == 3 and bits(h, 16, 23):
                    self.threads[bits(h, 16, 23)] = (self.word(at + 8), self.word(at + 16))
                elif kind == 4:
                    self.event(h, at, end)
                elif kind == 9:
                    ts = self.word(at + 8)
                    thread, p = self.thread_ref(bits(h, 32, 39), at + 16)
                    self.records.append({"kind": "log", "provider": self.provider, "thread": thread,
                                         "timestamp": str(ts), "message": self.text(p, bits(h, 16, 30))})
                elif kind == 5:
                    name, p = self.string_ref(bits(h, 16, 31), at + 8)
                    n = bits(h, 32, 46)
                    self.need(p + n)
                    self.records.append({"kind": "blob", "provider": self.provider, "name": name,
                                         "blob_type": bits(h, 48, 55), "payload": self.data[p:p + n].hex()})
                elif kind == 15:
                    if "large12" in self.bugs:
                        self.limit = len(self.data)  # reads the blob by its blob size, past the 12-bit frame
                    self.large(h, at)
            except (ValueError, KeyError, UnicodeDecodeError):
                pass  # a malformed record: skipped by its size, as the spec allows
            at = end


def main(argv: list[str]) -> int:
    bugs = {argv[i + 1] for i, a in enumerate(argv) if a == "--bug"} or {"sections", "last-word", "large12",
                                                                        "read-through"}
    reader = Reader(sys.stdin.buffer.read(), bugs)
    try:
        reader.read()
    except (Cut, ValueError):
        pass  # a cut or a size of 0: the records read so far, and exit 0 (it never says the file is damaged)
    sys.stdout.write(json.dumps({"records": reader.records}) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
