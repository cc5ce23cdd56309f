"""The stream maps the walk and repair read a file into ask for huge pages (``_feeder.Stream``):
a chunk read faults 2 MiB at a time, not 4 KiB."""

from __future__ import annotations

import ctypes
import mmap
import sys

import pytest

from fxtlint.engine._feeder import Feeder, Stream
from fxtlint.rewrite._input import Input

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_HUGEPAGE"),
                                reason="huge pages are asked for on Linux")


def _flags(m) -> list[str]:
    """The VmFlags of the mapping that holds the map ``m`` (/proc/self/smaps)."""
    at = ctypes.addressof(ctypes.c_char.from_buffer(m))
    inside = False
    with open("/proc/self/smaps") as fh:
        for line in fh:
            head = line.split()[0]
            if "-" in head and not head.endswith(":"):
                lo, hi = (int(x, 16) for x in head.split("-"))
                inside = lo <= at < hi
            elif inside and head == "VmFlags:":
                return line.split()[1:]
    return []


def test_a_feeder_s_stream_asks_for_huge_pages_after_it_grows():
    f = Feeder((), lambda buf, consumers: None)
    assert isinstance(f.stream, Stream)
    f.stream.append(bytes(3 << 20))  # (past the first map: grown)
    try:
        assert "hg" in _flags(f.stream.map)
    finally:
        f.release()


def test_repair_s_input_stream_asks_for_huge_pages():
    inp = Input(lambda view: 0, None, "-")
    try:
        assert isinstance(inp.stream, Stream)
        inp.stream.append(bytes(3 << 20))
        assert "hg" in _flags(inp.stream.map)
    finally:
        inp.close()
