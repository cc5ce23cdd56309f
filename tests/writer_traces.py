"""A small writer's trace, whole and with the size faults a writer author made (issue 17).

``trace()`` is 32 records as a real writer emits them: magic, provider, initialization,
strings, threads, then duration events with arguments. ``with_size_off_by(delta)``
writes record ``FAULTY`` with its size field ``delta`` words off; its argument value is
one whose stray word reads as an initialization header with reserved bits set, so a
walk that trusts a short size invents an initialization record (RB001 + ST001).
"""

from __future__ import annotations

import fxtlint
from fxtlint import build as B

FAULTY = 13  # the record whose size is wrong: a duration begin with an argument
STRAY = (1 << 32) | (1 << 4) | 1  # as a header: type 1 (initialization), size 1, bit 32 set


def _records(deltas: dict[int, int] | None = None) -> list[bytes]:
    recs = [B.magic(), B.provider_info(1, "writer"), B.provider_section(1), B.initialization(1_000_000),
            B.string(1, "app"), B.string(2, "frame"), B.string(3, "load"), B.thread(1, 10, 11),
            B.thread(2, 10, 12)]
    out = [B.archive(r) for r in recs]
    ts = 100
    while len(out) < 31:
        thread = 1 + len(out) % 2
        args = [B.arg("uint64", 3, STRAY if len(out) == FAULTY else ts)]
        out.append(B.archive(B.event("duration_begin", ts, category=1, name=2, thread=thread, args=args)))
        out.append(B.archive(B.event("duration_end", ts + 5, category=1, name=2, thread=thread)))
        ts += 10
    out.append(B.archive(B.event("instant", ts, category=1, name=3, thread=1)))
    size = next(f for f in fxtlint.tables().header if f.role == "size")
    for i, delta in (deltas or {}).items():
        out[i] = B.patch_field(out[i], size, len(out[i]) // 8 + delta)
    return out


def trace() -> bytes:
    return b"".join(_records())


def with_size_off_by(delta: int) -> bytes:
    """The same trace with record FAULTY's size ``delta`` words off (content unchanged)."""
    return b"".join(_records({FAULTY: delta}))


def with_sizes_off(deltas: dict[int, int]) -> bytes:
    """The same trace with the size of record ``i`` off by ``deltas[i]`` words."""
    return b"".join(_records(deltas))


def offset_of(index: int) -> int:
    return sum(len(r) for r in _records()[:index])


def with_padding_left_out(pad: bool = False, log_lines: int = 0) -> bytes:
    """Issue 25, item 2: the writer wrote the string record "render" (6 bytes) without its
    padding, so the next record's header (``22 00`` ...) comes 2 bytes early and reading
    stops at a header of size 0 there (FR001), then FR003; ``pad`` writes it correctly.
    ``log_lines`` more log records are written before the string and as many at the end."""
    from fxtlint.rules import _ex as X

    rec = B.archive(B.string(5, "render"))
    rest = B.archive(B.string(6, "frame"),
                     *[B.event("instant", 100 + i, category=1, name=5) for i in range(25)])
    logs = B.archive(*[B.log(90 + i, f"log line {i}") for i in range(log_lines)])
    return X.preamble() + logs + (rec if pad else rec[:8 + 6]) + rest + logs
