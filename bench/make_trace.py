"""Deterministic synthetic FXT traces of a given size and workload, for the benchmark.

    python bench/make_trace.py OUT.fxt --mb 50 [--workload events|mixed|sched|log] [--seed 0]

Its own small writer (struct and numpy, nothing from fxtlint), so the benchmark input
is also an independent oracle: fxtlint must find nothing wrong with it. One block of
records is written once and repeated with its timestamps and ids shifted, so 500 MB
take seconds. Workloads:

- ``events``: nested durations with arguments, complete, instant events with inline
  strings, counters, async and flow events, inline thread refs;
- ``mixed``: the events block interleaved with blobs, large blobs, kernel objects,
  trace log records and context switches;
- ``sched``: a system-wide kernel trace: context switches, thread wakeups (with and
  without arguments) and kernel objects;
- ``log``: a structured-log stream (the second format): log records with a message
  and a few arguments of the five allowed types.
"""

from __future__ import annotations

import argparse
import hashlib
import random
import struct
import sys

import numpy as np

THREADS = 16
STRINGS = 200
BLOCK_ITERATIONS = 2000


def word(v: int) -> bytes:
    return struct.pack("<Q", v & 0xFFFFFFFFFFFFFFFF)


def stream(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 8)


def header(rtype: int, size: int, bits: int) -> bytes:
    return word(rtype | (size << 4) | (bits << 16))


class Writer:
    """Records as words; remembers which words hold timestamps and ids."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.words = 0
        self.ts_words: list[int] = []
        self.id_words: list[int] = []

    def record(self, rtype: int, bits: int, body: bytes, ts_at=(), id_at=()):
        size = 1 + len(body) // 8
        for w in ts_at:
            self.ts_words.append(self.words + w)
        for w in id_at:
            self.id_words.append(self.words + w)
        self.parts.append(header(rtype, size, bits) + body)
        self.words += size

    def bytes(self) -> bytes:
        return b"".join(self.parts)


def sref_inline(text: bytes) -> int:
    return 0x8000 | len(text)


def arg(kind: str, name, value) -> bytes:
    """name: int (string index) or bytes (inline)."""
    name_ref = name if isinstance(name, int) else sref_inline(name)
    name_stream = b"" if isinstance(name, int) else stream(name)
    types = {"int32": 1, "uint32": 2, "int64": 3, "uint64": 4, "double": 5, "string": 6, "pointer": 7,
             "koid": 8, "bool": 9}
    t = types[kind]
    upper = 0
    tail = b""
    if kind in ("int32", "uint32"):
        upper = value & 0xFFFFFFFF
    elif kind == "bool":
        upper = 1 if value else 0
    elif kind == "double":
        tail = struct.pack("<d", value)
    elif kind == "string":
        if isinstance(value, int):
            upper = value
        else:
            upper = sref_inline(value)
            tail = stream(value)
    else:
        tail = word(value)
    body = name_stream + tail
    size = 1 + len(body) // 8
    return word(t | (size << 4) | (name_ref << 16) | (upper << 32)) + body


def event(w: Writer, etype: int, ts: int, thread, cat, name, args=(), extra=None, extra_is_ts=False):
    """thread: int index or (pid, tid); cat/name: int index or bytes inline."""
    body = word(ts)
    ts_at = [1]
    if isinstance(thread, tuple):
        body += word(thread[0]) + word(thread[1])
        tref = 0
    else:
        tref = thread
    crefs = []
    for s in (cat, name):
        if isinstance(s, int):
            crefs.append(s)
        else:
            crefs.append(sref_inline(s))
            body += stream(s)
    for a in args:
        body += a
    id_at = []
    if extra is not None:
        pos = 1 + len(body) // 8
        body += word(extra)
        (ts_at if extra_is_ts else id_at).append(pos)
    bits = etype | (len(args) << 4) | (tref << 8) | (crefs[0] << 16) | (crefs[1] << 32)
    w.record(4, bits, body, ts_at=ts_at, id_at=id_at)


def preamble(workload: str = "events") -> bytes:
    if workload == "log":
        return b""  # a structured-log stream has no magic record and no tables
    w = Writer()
    w.parts.append(bytes.fromhex("1000044678541600"))  # magic
    name = b"bench-provider"
    w.parts.append(header(0, 1 + len(stream(name)) // 8, 1 | (1 << 4) | (len(name) << 36)) + stream(name))
    w.parts.append(header(0, 1, 2 | (1 << 4)))  # provider section 1
    w.parts.append(header(1, 2, 0) + word(1_000_000_000))  # initialization
    for i in range(1, STRINGS + 1):
        text = f"string-{i:04d}".encode()
        w.parts.append(header(2, 1 + len(stream(text)) // 8, i | (len(text) << 16)) + stream(text))
    for t in range(1, THREADS + 1):
        w.parts.append(header(3, 3, t) + word(1000) + word(2000 + t))
    proc = b"bench process"
    w.parts.append(header(7, 2 + len(stream(proc)) // 8, 1 | (sref_inline(proc) << 8)) + word(1000) + stream(proc))
    for t in range(1, THREADS + 1):
        a = arg("koid", 1, 1000)  # string 1 names the argument
        w.parts.append(header(7, 2 + len(a) // 8, 2 | (10 + t) << 8 | (1 << 24)) + word(2000 + t) + a)
    return b"".join(w.parts)


def block(rnd: random.Random, workload: str = "events"):
    """One block: returns (words, timestamp word positions, id word positions, time span, ids used)."""
    if workload != "events":
        return BLOCKS[workload](rnd)
    w = Writer()
    ts = 0
    ids = 0
    kinds = ["int32", "uint32", "int64", "uint64", "double", "string", "pointer", "koid", "bool"]

    def some_args(n):
        out = []
        for _ in range(n):
            k = rnd.choice(kinds)
            name = rnd.randrange(20, STRINGS) if rnd.random() < 0.7 else f"arg{rnd.randrange(99)}".encode()
            value = {"double": rnd.random(), "bool": rnd.random() < 0.5, "int32": -rnd.randrange(1 << 20),
                     "string": rnd.randrange(20, STRINGS) if rnd.random() < 0.5 else b"value-" * rnd.randrange(1, 4)
                     }.get(k, rnd.randrange(1 << 40))
            out.append(arg(k, name, value))
        return out

    for i in range(BLOCK_ITERATIONS):
        t = 1 + i % THREADS
        thread = (1000, 2000 + t) if i % 7 == 0 else t
        cat = 2 + i % 5
        name = 20 + rnd.randrange(100)
        inner = 20 + rnd.randrange(100, STRINGS - 20)
        aid, fid = ids, ids + 1
        ids += 2
        event(w, 2, ts, thread, cat, name, some_args(rnd.randrange(5)))
        text_c = bytes(rnd.choice(b"abcdefghij") for _ in range(rnd.randrange(1, 24)))
        text_n = bytes(rnd.choice(b"klmnopqrst") for _ in range(rnd.randrange(1, 40)))
        event(w, 0, ts + 1, t, text_c, text_n)
        event(w, 1, ts + 2, t, cat, 8, [arg("int64", 9, rnd.randrange(1 << 30)), arg("double", 10, rnd.random())],
              extra=i)
        event(w, 4, ts + 3, t, cat, 11, some_args(rnd.randrange(3)), extra=ts + 5, extra_is_ts=True)
        event(w, 5, ts + 4, t, cat, 12, extra=aid)
        event(w, 8, ts + 5, t, cat, 13, extra=fid)
        event(w, 2, ts + 6, t, cat, inner)
        event(w, 6, ts + 7, thread, cat, 12, extra=aid)
        event(w, 9, ts + 8, t, cat, 13, extra=fid)
        event(w, 10, ts + 9, t, cat, 13, extra=fid)
        event(w, 3, ts + 10, t, cat, inner)
        event(w, 7, ts + 11, t, cat, 12, extra=aid)
        event(w, 3, ts + 12, thread, cat, name)
        ts += 20
    data = np.frombuffer(w.bytes(), "<u8").copy()
    return data, np.array(w.ts_words), np.array(w.id_words), ts, ids


def _columns(w: Writer, ts: int, ids: int):
    data = np.frombuffer(w.bytes(), "<u8").copy()
    return data, np.array(w.ts_words, np.int64), np.array(w.id_words, np.int64), ts, ids


def context_switch(w: Writer, ts: int, cpu: int, state: int, out_koid: int, in_koid: int, args=()):
    bits = len(args) | (cpu << 4) | (state << 20) | (1 << 44)  # scheduling type 1 in bits 60..63
    w.record(8, bits, word(ts) + word(out_koid) + word(in_koid) + b"".join(args), ts_at=[1])


def thread_wakeup(w: Writer, ts: int, cpu: int, koid: int, args=()):
    bits = len(args) | (cpu << 4) | (2 << 44)
    w.record(8, bits, word(ts) + word(koid) + b"".join(args), ts_at=[1])


def kernel_object(w: Writer, koid: int, obj_type: int, name, args=()):
    nref = name if isinstance(name, int) else sref_inline(name)
    body = word(koid) + (b"" if isinstance(name, int) else stream(name)) + b"".join(args)
    w.record(7, obj_type | (nref << 8) | (len(args) << 24), body)


def blob(w: Writer, name: int, payload: bytes, blob_type: int = 1):
    w.record(5, name | (len(payload) << 16) | (blob_type << 32), stream(payload))


def large_blob(w: Writer, ts: int, cat: int, name: int, thread: int, payload: bytes, args=()):
    """A large blob with metadata (large type 0, blob format 0); indexed refs."""
    fmt = cat | (name << 16) | (len(args) << 32) | (thread << 36)
    body = word(fmt) + word(ts) + b"".join(args) + word(len(payload)) + stream(payload)
    size = 1 + len(body) // 8
    w.ts_words.append(w.words + 2)
    w.parts.append(word(15 | (size << 4)) + body)  # large type 0, blob format 0 in bits 36..43
    w.words += size


def trace_log(w: Writer, ts: int, thread: int, message: bytes):
    w.record(9, len(message) | (thread << 16), word(ts) + stream(message), ts_at=[1])


def mixed_block(rnd: random.Random):
    """The events block's kinds plus every other record kind, in proportion."""
    events, ts_at, id_at, span, nids = block(random.Random(rnd.random()), "events")
    w = Writer()
    w.parts.append(events.tobytes())
    w.words = len(events)
    w.ts_words += ts_at.tolist()
    w.id_words += id_at.tolist()
    ts = span
    for i in range(BLOCK_ITERATIONS // 2):
        t = 1 + i % THREADS
        context_switch(w, ts, i % 4, 3, 2000 + t, 2000 + 1 + (i + 1) % THREADS)
        trace_log(w, ts + 1, t, b"log line %d of the mixed workload" % (i % 97))
        if i % 4 == 0:
            blob(w, 20 + i % 50, bytes(rnd.randrange(256) for _ in range(rnd.randrange(1, 200))))
            kernel_object(w, 5000 + i, 2, 20 + i % 50, [arg("uint64", 9, i)])
        if i % 16 == 0:
            large_blob(w, ts + 2, 2, 30, t, bytes(rnd.randrange(256) for _ in range(rnd.randrange(500, 3000))),
                       [arg("int64", 9, i)])
        ts += 3
    return _columns(w, ts + 20, nids)


def sched_block(rnd: random.Random):
    """A system-wide kernel trace: context switches, wakeups, kernel objects."""
    w = Writer()
    ts = 0
    states = [0, 2, 3, 4, 5]  # never "running" for the outgoing thread of a switch
    for i in range(BLOCK_ITERATIONS * 4):
        cpu = i % 4
        out_k, in_k = 2000 + rnd.randrange(1, THREADS + 1), 2000 + rnd.randrange(1, THREADS + 1)
        if i % 8 == 0:
            context_switch(w, ts, cpu, rnd.choice(states), out_k, in_k,
                           [arg("int32", 9, -rnd.randrange(1 << 10)), arg("uint32", 10, rnd.randrange(1 << 10))])
        else:
            context_switch(w, ts, cpu, rnd.choice(states), out_k, in_k)
        if i % 3 == 0:
            thread_wakeup(w, ts + 1, cpu, in_k, [arg("int32", 9, 7)] if i % 9 == 0 else ())
        if i % 50 == 0:
            kernel_object(w, 10_000 + i, 2, 20 + i % 100, [arg("koid", 11, 1000)])
        ts += 2
    return _columns(w, ts, 0)


def log_block(rnd: random.Random):
    """Structured-log records: severity, timestamp, a message and a few arguments."""
    w = Writer()
    ts = 0
    severities = [0x10, 0x20, 0x30, 0x40, 0x50, 0x60]
    for _ in range(BLOCK_ITERATIONS * 2):
        args = [arg("string", b"message", b"request %d handled in the log workload" % rnd.randrange(10**6))]
        for _ in range(rnd.randrange(4)):
            k = rnd.choice(["int64", "uint64", "double", "bool", "string"])
            value = {"double": rnd.random(), "bool": rnd.random() < 0.5, "string": b"tag-%d" % rnd.randrange(99),
                     "int64": -rnd.randrange(1 << 40)}.get(k, rnd.randrange(1 << 40))
            args.append(arg(k, b"field%d" % rnd.randrange(9), value))
        body = word(ts) + b"".join(args)
        w.ts_words.append(w.words + 1)
        w.parts.append(word(9 | ((1 + len(body) // 8) << 4) | (rnd.choice(severities) << 56)) + body)
        w.words += 1 + len(body) // 8
        ts += 1
    return _columns(w, ts, 0)


BLOCKS = {"mixed": mixed_block, "sched": sched_block, "log": log_block}
WORKLOADS = ("events", "mixed", "sched", "log")


def generate(out, mb: float, seed: int = 0, workload: str = "events") -> str:
    target = int(mb * 1024 * 1024)
    rnd = random.Random(seed)
    head = preamble(workload)
    blk, ts_at, id_at, span, nids = block(rnd, workload)
    digest = hashlib.sha256()
    written = 0
    copy = 0
    per_chunk = max(1, (64 << 20) // (8 * len(blk)))  # copies per write: about 64 MB
    with open(out, "wb") as fh:
        fh.write(head)
        digest.update(head)
        written += len(head)
        while written < target:
            k = min(per_chunk, -(-(target - written) // (8 * len(blk))))
            tile = np.tile(blk, (k, 1))
            n = np.arange(copy, copy + k, dtype=np.uint64)[:, None]
            tile[:, ts_at] += n * np.uint64(span)
            tile[:, id_at] += n * np.uint64(nids)
            b = tile.tobytes()
            fh.write(b)
            digest.update(b)
            written += len(b)
            copy += k
    return digest.hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--mb", type=float, default=50)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workload", choices=WORKLOADS, default="events")
    a = ap.parse_args(argv)
    print(f"{a.out}: sha256 {generate(a.out, a.mb, a.seed, a.workload)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
