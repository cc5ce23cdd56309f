"""The stream maps the walk and repair read a file into ask for huge pages (``_feeder.Stream``):
a chunk read faults 2 MiB at a time, not 4 KiB."""

from __future__ import annotations

import ctypes
import mmap
import sys

import pytest

from fxtlint.engine._feeder import Feeder, Stream
from fxtlint.rewrite._input import Input


def _kernel_takes_the_hint() -> bool:
    """Whether this kernel accepts ``MADV_HUGEPAGE`` (one built without transparent huge
    pages refuses it: the streams then stay on 4 KiB pages, and there is nothing to see)."""
    m = mmap.mmap(-1, mmap.PAGESIZE)
    try:
        m.madvise(mmap.MADV_HUGEPAGE)
    except OSError:
        return False
    finally:
        m.close()
    return True


pytestmark = [
    pytest.mark.skipif(not sys.platform.startswith("linux") or not hasattr(mmap, "MADV_HUGEPAGE"),
                       reason="huge pages are asked for on Linux"),
    pytest.mark.skipif(sys.platform.startswith("linux") and hasattr(mmap, "MADV_HUGEPAGE")
                       and not _kernel_takes_the_hint(),
                       reason="this kernel refuses MADV_HUGEPAGE (no transparent huge pages)"),
]


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
