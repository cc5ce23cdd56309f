"""Structure-aware mutations for libFuzzer (atheris ``custom_mutator`` / ``custom_crossover``).

Random bytes rarely keep an FXT record framed, so byte-level fuzzing stalls behind the
framing checks. Here an input is decoded with the recovering reader, one record-level
change is made (a field from the spec tables' layout, a record inserted, deleted,
duplicated, swapped or spliced in, a provider switch, an inline/indexed ref toggle, a
stream resized), and only the changed records are re-encoded, so sizes, lengths and
padding stay consistent while every untouched record keeps its exact bytes (malformed
ones included). A fraction of the time the bytes are mutated instead (``atheris.Mutate``)
so framing faults stay reachable.

Only fxtlint's public API is used: read/iter_records, encode_record(s), build, tables().
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import struct

import fxtlint
from fxtlint import build as B

_T = fxtlint.tables()
BYTE_FRACTION = 0.2  # share of mutations left to libFuzzer's byte mutator
MAX_RECORDS = 4096  # records decoded per input; the rest is carried as raw bytes
_MAGIC_LE = struct.pack("<Q", _T.magic_word)
_MAGIC_BE = struct.pack(">Q", _T.magic_word)
_LEAVES = {leaf.name: leaf for leaf in _T.record_leaves()}
_ARG_KINDS = tuple(a.name for a in _T.arguments.values())
_INLINE = _T.string_inline_bit
# index ranges and limits worth aiming at, from the tables: the highest string and thread
# index, the string length limit and the named log severities
_STRING_INDEX_MAX = next((1 << (f.hi - f.lo + 1)) - 1
                         for f in _LEAVES["string"].full_fields if f.role == "string_index")
_THREAD_INDEX_MAX = next((1 << (f.hi - f.lo + 1)) - 1
                         for f in _LEAVES["thread"].full_fields if f.role == "thread_index")
_SEVERITIES = tuple(_T.enums["severity"])
_STRING_LENGTH_OVER = next(1 << (f.hi - f.lo + 1) for f in _LEAVES["string"].full_fields if f.name == "length")
_REF_FIELDS = ("category", "name")  # header string refs that the encoder may write inline
_THREAD_REFS = {"thread": ("process_koid", "thread_koid"),
                "outgoing_thread": ("outgoing_process_koid", "outgoing_thread_koid"),
                "incoming_thread": ("incoming_process_koid", "incoming_thread_koid")}
_DERIVED = {"type", "size", "argument_count", "length", "name_length", "message_length", "payload_size",
            "blob_size"}


@dataclasses.dataclass
class Parsed:
    """An input as records: ``chunks[i]`` are the bytes of ``records[i]``, ``tail`` what
    follows the last decoded record (unframed bytes or undecoded records)."""

    records: list
    chunks: list
    tail: bytes
    byte_order: str
    log: bool

    def encode(self) -> bytes:
        return b"".join(self.chunks) + self.tail


def parse(data: bytes) -> Parsed:
    big = data[:8] == _MAGIC_BE
    log = not big and data[:8] != _MAGIC_LE and len(data) >= 8 and (data[0] & 0xF) == _T.log_record.type
    order = "big" if big else "little"
    recs = list(itertools.islice(fxtlint.iter_records(data, lambda d: None, byte_order=order, log=log),
                                 MAX_RECORDS))
    chunks = [data[r.offset:r.end] for r in recs]
    end = recs[-1].end if recs else 0
    return Parsed(recs, chunks, data[end:], order, log)


def _encode(p: Parsed, rec) -> bytes:
    if p.log:
        return fxtlint.encode_log_record(rec, p.byte_order)
    return fxtlint.encode_record(rec, p.byte_order)


# -- values ------------------------------------------------------------------------
def _interesting(rng: random.Random, width: int, old: int) -> int:
    mask = (1 << width) - 1
    return rng.choice([
        0, 1, 2, mask, mask >> 1, (mask >> 1) + 1, old + 1, old - 1, old ^ (1 << rng.randrange(width)),
        rng.getrandbits(width), rng.randrange(0, 16), 1 << rng.randrange(width),
    ]) & mask


def _text(rng: random.Random, p: Parsed, raw: bool = False):
    """A registered text, an edge-case one, or (with ``raw``) bytes that are not UTF-8."""
    texts = [r.strings["value"] for r in p.records if r.kind == "string" and isinstance(r.strings.get("value"), str)]
    extra = [b"\xff\xfe", b"a\xc0"] if raw else []
    return rng.choice(texts + extra + ["", "x", "name", "é", "a" * rng.randrange(1, 40), "\x00",
                                       "x" * rng.choice([8, 16, _T.max_string_length, _STRING_LENGTH_OVER])])


def _registered(p: Parsed, kind: str) -> list[int]:
    return [r.fields["index"] for r in p.records if r.kind == kind and "index" in r.fields] or [1]


def _layout(rec):
    return _T.log_record if rec.kind == "log_record" else _LEAVES.get(rec.kind)


# -- record-level edits: each returns the new record or None ------------------------
def _set_field(rng, p, rec):
    lay = _layout(rec)
    names = [n for n in rec.fields if n not in _DERIVED]
    if lay is None or not names:
        return None
    name = rng.choice(names)
    f = lay.field(name)
    old = rec.fields[name]
    if isinstance(old, float):
        value = rng.choice([0.0, -0.0, float("inf"), float("nan"), old * 2, 1e308])
    elif f is not None and f.enum and rng.random() < 0.5:
        value = rng.choice(list(_T.enums[f.enum]) + [max(_T.enums[f.enum]) + 1])
    else:
        value = _interesting(rng, f.width if f is not None else 64, int(old))
    return dataclasses.replace(rec, fields={**rec.fields, name: value})


def _toggle_ref(rng, p, rec):
    fields, strings = dict(rec.fields), dict(rec.strings)
    refs = [n for n in _REF_FIELDS if n in fields] + [n for n in _THREAD_REFS if n in fields]
    if not refs:
        return None
    name = rng.choice(refs)
    if name in _THREAD_REFS:
        koids = _THREAD_REFS[name]
        if fields[name] == 0:
            fields[name] = rng.choice(_registered(p, "thread")
                                      + [_THREAD_INDEX_MAX, rng.randrange(_THREAD_INDEX_MAX + 1)])
            for k in koids:
                fields.pop(k, None)
        else:
            fields[name] = 0
            for k in koids:
                fields[k] = rng.choice([0, 1, rng.getrandbits(64)])
    elif name in strings:
        del strings[name]
        fields[name] = rng.choice(_registered(p, "string")
                                  + [0, _STRING_INDEX_MAX, rng.randrange(_STRING_INDEX_MAX + 1)])
    else:
        strings[name] = _text(rng, p, raw=True)
    return dataclasses.replace(rec, fields=fields, strings=strings)


def _resize_stream(rng, p, rec):
    if not rec.strings:
        return None
    name = rng.choice(list(rec.strings))
    old = rec.strings[name]
    raw = old.encode("utf-8", "surrogatepass") if isinstance(old, str) else bytes(old)
    n = rng.choice([0, 1, 7, 8, 9, len(raw) // 2, len(raw) + 1, len(raw) * 2, rng.randrange(0, 300)])
    new = (raw * (n // max(len(raw), 1) + 1))[:n] if raw else bytes(rng.getrandbits(8) for _ in range(n))
    if isinstance(old, str) and rng.random() < 0.8:
        new = new.decode("utf-8", "replace")
    return dataclasses.replace(rec, strings={**rec.strings, name: new})


def _edit_args(rng, p, rec):
    lay = _layout(rec)
    if lay is None or not any(it.kind == "args" for it in lay.full_body):
        return None
    args = list(rec.args)
    op = rng.randrange(5) if args else 0
    if op == 0:
        kind = rng.choice(_ARG_KINDS)
        value = {"string": _text(rng, p), "blob": bytes(rng.randrange(20)), "double": rng.random()}.get(
            kind, rng.getrandbits(31))
        name = rng.choice([_text(rng, p) or "n", rng.choice(_registered(p, "string"))])
        args.insert(rng.randrange(len(args) + 1), B.arg(kind, name, value))
    elif op == 1:
        del args[rng.randrange(len(args))]
    elif op == 2:
        args.insert(rng.randrange(len(args) + 1), rng.choice(args))
    else:
        i = rng.randrange(len(args))
        a = args[i]
        if a.kind == "unknown" or not a.fields:
            return None
        name = rng.choice([n for n in a.fields if n not in ("type", "size")] or ["name"])
        f = next((fl for fl in _T.arguments[a.type].full_fields if fl.name == name), None) \
            if a.type in _T.arguments else None
        old = a.fields.get(name, 0)
        value = rng.random() if isinstance(old, float) else _interesting(rng, f.width if f else 64, int(old))
        args[i] = dataclasses.replace(a, fields={**a.fields, name: value})
    return dataclasses.replace(rec, args=tuple(args))


def _extra_words(rng, p, rec):
    extra = list(rec.extra_words)
    if extra and rng.random() < 0.5:
        extra.pop()
    else:
        extra.append(rng.choice([0, 1, rng.getrandbits(64)]))
    return dataclasses.replace(rec, extra_words=tuple(extra))


_RECORD_EDITS = (_set_field, _set_field, _set_field, _toggle_ref, _resize_stream, _edit_args, _extra_words)


def _templates(rng, p):
    """Records to insert: every kind of the tables, naming what the input registers."""
    s = rng.choice(_registered(p, "string"))
    t = rng.choice(_registered(p, "thread"))
    ts = max((r.fields.get("timestamp", 0) for r in p.records), default=0) + rng.choice([0, 1, 100])
    ident = rng.choice([1, 2, 42, rng.getrandbits(64)])
    kind = rng.choice(["instant", "counter", "duration_begin", "duration_end", "duration_complete",
                       "async_begin", "async_instant", "async_end", "flow_begin", "flow_step", "flow_end"])
    return rng.choice([
        B.event(kind, ts, thread=t, category=s, name=rng.choice([s, _text(rng, p) or "n"]), id=ident,
                end_timestamp=ts + rng.choice([0, 5])),
        B.string(rng.choice([s, rng.randrange(_STRING_INDEX_MAX + 1)]), _text(rng, p)),
        B.thread(rng.choice([t, rng.randrange(256)]), rng.getrandbits(20), rng.getrandbits(20)),
        B.initialization(rng.choice([0, 1, 1000, 10**9])),
        B.provider_info(rng.getrandbits(32), "p"),
        B.provider_section(rng.choice([r.fields.get("provider_id", 0) for r in p.records
                                       if "provider_id" in r.fields] + [rng.getrandbits(32)])),
        B.provider_event(rng.getrandbits(32), rng.randrange(3)),
        B.magic(),
        B.blob(s, b"payload", rng.randrange(5)),
        B.kernel_object(rng.getrandbits(32), rng.randrange(5), s),
        B.userspace_object(rng.getrandbits(32), t, s),
        B.context_switch(ts, rng.randrange(4), rng.randrange(8), 1, 2),
        B.thread_wakeup(ts, 0, 1),
        B.legacy_context_switch(ts, 0, rng.randrange(8), outgoing_thread=t, incoming_thread=t),
        B.log(ts, "m", thread=t),
        B.large_blob(s, s, b"x" * rng.randrange(20), timestamp=rng.choice([None, ts]), thread=t),
        B.unknown(rng.choice(_T.undefined_record_types), bytes(8 * rng.randrange(3))),
    ])


def _patch_header(rng, p, i):
    """Set one header field of record ``i``'s bytes (size and lengths included), keeping the rest."""
    rec, chunk = p.records[i], p.chunks[i]
    lay = _layout(rec)
    if lay is None or len(chunk) < 8:
        return None
    f = rng.choice(lay.full_fields)
    old = B.read_field(chunk, f, byte_order=p.byte_order)
    return B.patch_field(chunk, f, _interesting(rng, f.width, old), byte_order=p.byte_order)


def mutate_parsed(p: Parsed, rng: random.Random) -> bool:
    """One record-level change to ``p`` in place; False if none applied."""
    n = len(p.records)
    op = rng.randrange(10)
    if p.log and op in (5, 6):
        op = 0
    if n == 0 or op == 5:  # insert a fresh record
        at = rng.randrange(n + 1)
        if p.log:
            rec = B.log_record(rng.choice([*_SEVERITIES, rng.randrange(256)]), rng.getrandbits(40),
                               [B.arg("string", "message", "m")])
        else:
            rec = _templates(rng, p)
        p.records.insert(at, rec)
        p.chunks.insert(at, _encode(p, rec))
        return True
    i = rng.randrange(n)
    if op <= 2:  # a field, ref, stream, argument or extra word of one record
        new = rng.choice(_RECORD_EDITS)(rng, p, p.records[i])
        if new is None:
            return False
        p.records[i], p.chunks[i] = new, _encode(p, new)
    elif op == 3:  # delete a run of records
        k = rng.choice([1, 1, 2, 5])
        del p.records[i:i + k], p.chunks[i:i + k]
    elif op == 4:  # duplicate a record somewhere
        j = rng.randrange(n + 1)
        p.records.insert(j, p.records[i])
        p.chunks.insert(j, p.chunks[i])
    elif op == 6:  # switch provider before record i
        ids = [r.fields["provider_id"] for r in p.records if "provider_id" in r.fields] or [0]
        rec = B.provider_section(rng.choice(ids + [rng.getrandbits(32)]))
        p.records.insert(i, rec)
        p.chunks.insert(i, _encode(p, rec))
    elif op == 7:  # swap two records (order matters to tables and pairing)
        j = rng.randrange(n)
        p.records[i], p.records[j] = p.records[j], p.records[i]
        p.chunks[i], p.chunks[j] = p.chunks[j], p.chunks[i]
    elif op == 8:  # a header field in the bytes, derived ones included
        chunk = _patch_header(rng, p, i)
        if chunk is None:
            return False
        p.chunks[i] = chunk
    else:  # drop the unframed tail, or move a record to the end
        if p.tail and rng.random() < 0.5:
            p.tail = b""
        else:
            p.records.append(p.records.pop(i))
            p.chunks.append(p.chunks.pop(i))
    return True


REPEAT_FRACTION = 0.03  # share of structure-aware mutations that repeat records up to the size limit


def repeat_run(p: Parsed, rng: random.Random, max_size: int) -> bool:
    """Repeat a run of 1-4 records many times in place, up to ``max_size`` bytes: deep
    duration stacks and many live ids; with ``-max_len`` near 1 MiB, pairing windows of
    65,536 records and full state tables (PR012), which no other mutation reaches."""
    if not p.records:
        return False
    i = rng.randrange(len(p.records))
    j = min(len(p.records), i + rng.choice([1, 1, 2, 4]))
    run = b"".join(p.chunks[i:j])
    room = (max_size - len(p.encode())) // max(len(run), 1)
    k = min(room, rng.choice([2, 64, 4096, 1 << 17]))
    if k < 1:
        return False
    p.chunks[j:j] = [run] * k
    p.records[j:j] = [p.records[i]] * k  # placeholders: a repeated run is not edited further
    return True


def mutate(data: bytes, max_size: int, seed: int, *, byte_mutate=None) -> bytes:
    """atheris ``custom_mutator``: one structure-aware change, or a byte-level one."""
    rng = random.Random(seed)
    byte_mutate = byte_mutate or _atheris_mutate
    if rng.random() < BYTE_FRACTION or len(data) < 8:
        return byte_mutate(data, max_size)
    try:
        p = parse(data)
        if rng.random() < REPEAT_FRACTION and repeat_run(p, rng, max_size):
            return p.encode()
        want = 1 + (rng.random() < 0.3) * rng.randrange(1, 4)  # sometimes stack a few changes
        for _ in range(4 * want):  # some edits are no-ops (a value set to itself): retry those
            want -= mutate_parsed(p, rng)
            if want <= 0 and p.encode() != data:
                break
        out = p.encode()
    except Exception:  # a record the encoder cannot write back: leave it to the byte mutator
        return byte_mutate(data, max_size)
    if len(out) > max_size or out == data:
        return byte_mutate(data, max_size)
    return out


def crossover(data1: bytes, data2: bytes, max_out_size: int, seed: int) -> bytes:
    """atheris ``custom_crossover``: records of one input spliced into the other at a record boundary."""
    rng = random.Random(seed)
    a, b = parse(data1), parse(data2)
    if not b.records or a.log != b.log:
        return data1[:max_out_size]
    i = rng.randrange(len(a.records) + 1)
    j = rng.randrange(len(b.records))
    k = min(len(b.records), j + rng.choice([1, 2, 8, len(b.records)]))
    if b.byte_order == a.byte_order:
        middle = b.chunks[j:k]
    else:
        try:
            middle = [_encode(a, r) for r in b.records[j:k]]
        except Exception:
            return data1[:max_out_size]
    if rng.random() < 0.5:  # insert the run
        out = b"".join(a.chunks[:i] + middle + a.chunks[i:]) + a.tail
    else:  # a's head, b's run to its end
        out = b"".join(a.chunks[:i] + middle)
    return out[:max_out_size] if len(out) > max_out_size else out


def _atheris_mutate(data: bytes, max_size: int) -> bytes:
    import atheris

    return atheris.Mutate(data, max_size)
