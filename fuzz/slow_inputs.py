"""Hostile inputs of at most ``MAX_LEN`` bytes, built to make the reader's recovery work
hard: every record a resynchronisation. Issue 26 asks that no input of up to 16 KB take
more than 100 ms on either engine; ``bench/fuzz_speed.py`` times these with the fuzz
harness's body, and ``tests/test_reader.py`` counts the words the reader reads on them
(linear work, not time). Each builder takes the size to fill and returns the bytes.
"""

from __future__ import annotations

from fxtlint import build as B
from fxtlint import tables

MAX_LEN = 16384  # fuzz/__init__.py's: the largest input a campaign draws


def _size(rec: bytes, words: int) -> bytes:
    """``rec`` (one record's bytes) with its header's size field set to ``words``."""
    return B.patch_field(rec, tables().field(role="size"), words)


def _fill(head: bytes, rec: bytes, size: int, tail: bytes = b"") -> bytes:
    n = (size - len(head) - len(tail)) // len(rec)
    return head + rec * n + tail


def swallowers(size: int = MAX_LEN) -> bytes:
    """Two-word events, each declaring a size that runs to the file's last word (which
    frames nothing): every one swallows all its neighbours (FR004), and the reader reads
    on from its content's end, so each neighbour is framed once."""
    ev = B.archive(B.event("instant", 1, thread=1, category=1, name=2))
    n = (size - 16) // len(ev)
    out = bytearray(B.archive(B.magic()))
    for i in range(n):
        out += _size(ev, min(4095, 2 * (n - i)))
    return bytes(out + bytes(8))


def sizes_too_small(size: int = MAX_LEN) -> bytes:
    """Two-word events declaring one word: each one's content settles its size (ST001)."""
    ev = B.archive(B.event("instant", 1, thread=1, category=1, name=2))
    return _fill(B.archive(B.magic()), _size(ev, 1), size)


def many_arguments_too_small(size: int = MAX_LEN) -> bytes:
    """Events of fifteen arguments declaring a word too few: each one decoded to its
    content's end before its size is settled."""
    ev = B.archive(B.event("instant", 1, thread=(1, 2), category="c", name="n",
                           args=[B.arg("int64", f"a{i}", i) for i in range(15)]))
    return _fill(B.archive(B.magic()), _size(ev, len(ev) // 8 - 1), size)


def headers_only(size: int = MAX_LEN) -> bytes:
    """Events with an argument, declaring a size of one word: every word of their bodies
    is a candidate header for the resynchronisation."""
    ev = B.archive(B.event("instant", 1, thread=(1, 2), category="c", name="n", args=[B.arg("int64", "a", 5)]))
    return _fill(B.archive(B.magic()), _size(ev, 1), size)


BUILDERS = {f.__name__: f for f in (swallowers, sizes_too_small, many_arguments_too_small, headers_only)}
