"""IN's byte ranges written to OUT past the page cache (``rewrite/_repair_out.send``): the
same bytes as the kernel's copy at any position of OUT, any length, a file that ends
first, and a file system that refuses ``O_DIRECT``."""

from __future__ import annotations

import errno
import os

import pytest

from fxtlint.rewrite import _repair_out
from fxtlint.rewrite._repair_out import ALIGN, send

_DATA = bytes((i * 7 + i // 4099) % 251 for i in range(3 * ALIGN * 5 + 123))


@pytest.fixture
def small(monkeypatch):
    """Direct writes for ranges of any size, two blocks a time (the loop's every turn)."""
    monkeypatch.setattr(_repair_out, "DIRECT_MIN", 1)
    monkeypatch.setattr(_repair_out, "CHUNK", 2 * ALIGN)


def _send(tmp_path, before: bytes, offset: int, size: int, after: bytes = b"tail") -> tuple[bytes, int]:
    src = tmp_path / "in.bin"
    src.write_bytes(_DATA)
    dst = tmp_path / "out.bin"
    with open(src, "rb", buffering=0) as fi, open(dst, "wb") as out:
        out.write(before)
        n = send(out, fi.fileno(), offset, size)
        out.write(after)
    return dst.read_bytes(), n


@pytest.mark.parametrize("before", [0, 1, 8, ALIGN - 8, ALIGN, ALIGN + 16, 3 * ALIGN - 1])
@pytest.mark.parametrize("offset,size", [(0, len(_DATA)), (8, 2 * ALIGN), (24, ALIGN - 8), (ALIGN, 5 * ALIGN + 40),
                                         (1000, 1), (0, 0)])
def test_a_range_is_written_where_the_file_ends_as_its_bytes(tmp_path, small, before, offset, size):
    head = bytes(range(256)) * (before // 256 + 1)
    got, n = _send(tmp_path, head[:before], offset, size)
    assert n == size
    assert got == head[:before] + _DATA[offset:offset + size] + b"tail"


@pytest.mark.parametrize("before", [0, 40])
def test_a_file_that_ends_first_gives_what_it_holds(tmp_path, small, before):
    offset = len(_DATA) - 3 * ALIGN - 24
    got, n = _send(tmp_path, bytes(before), offset, 10 * ALIGN)
    assert n == len(_DATA) - offset
    assert got == bytes(before) + _DATA[offset:] + b"tail"


def test_large_ranges_go_by_o_direct_here(tmp_path, small, monkeypatch):
    """On a file system that takes ``O_DIRECT`` (the tests' temporary folder, where it does),
    the whole blocks go by it; the bytes are the same either way."""
    calls = []
    real = _repair_out._write_direct

    def counting(dfd, buf, n, at):
        w = real(dfd, buf, n, at)
        calls.append((n, at, w))
        return w

    monkeypatch.setattr(_repair_out, "_write_direct", counting)
    got, n = _send(tmp_path, b"x" * 13, 0, len(_DATA))
    assert n == len(_DATA)
    assert got == b"x" * 13 + _DATA + b"tail"
    assert all(at % ALIGN == 0 and size % ALIGN == 0 for size, at, _ in calls)
    direct = sum(w for _, _, w in calls)
    assert direct == ((len(_DATA) - (ALIGN - 13)) // ALIGN * ALIGN if _direct_allowed(tmp_path) else 0)


def _direct_allowed(folder) -> bool:
    try:
        fd = os.open(folder / "probe", os.O_WRONLY | os.O_CREAT | getattr(os, "O_DIRECT", 0))
    except OSError:
        return False
    os.close(fd)
    return bool(getattr(os, "O_DIRECT", 0))


@pytest.mark.parametrize("refused_at", ["open", "write", "second write"])
def test_a_file_system_that_refuses_o_direct_gets_the_kernel_s_copy(tmp_path, small, monkeypatch, refused_at):
    real_open, real_pwrite = os.open, os.pwrite
    direct = getattr(os, "O_DIRECT", 0)
    seen = []

    def opening(path, flags, *a, **k):
        if refused_at == "open" and flags & direct and direct:
            raise OSError(errno.EINVAL, "no O_DIRECT here")
        return real_open(path, flags, *a, **k)

    def writing(fd, data, at):
        if refused_at != "open" and len(data) % ALIGN == 0 and at % ALIGN == 0 and len(data):
            seen.append(at)
            if refused_at == "write" or len(seen) > 1:
                raise OSError(errno.EINVAL, "not this one")
        return real_pwrite(fd, data, at)

    monkeypatch.setattr(_repair_out.os, "open", opening)
    monkeypatch.setattr(_repair_out.os, "pwrite", writing)
    got, n = _send(tmp_path, b"y" * 5000, 16, len(_DATA) - 16)
    assert n == len(_DATA) - 16
    assert got == b"y" * 5000 + _DATA[16:] + b"tail"


def test_an_error_other_than_a_refusal_is_raised(tmp_path, small, monkeypatch):
    real_open, real_pwrite = os.open, os.pwrite
    direct = getattr(os, "O_DIRECT", 0)

    def opening(path, flags, *a, **k):  # (the second open file as it is, O_DIRECT or not here)
        return real_open(path, flags & ~direct, *a, **k)

    def full(fd, data, at):
        if len(data) % ALIGN == 0 and at % ALIGN == 0 and len(data):
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_pwrite(fd, data, at)

    monkeypatch.setattr(_repair_out.os, "open", opening)
    monkeypatch.setattr(_repair_out.os, "pwrite", full)
    with pytest.raises(OSError) as e:
        _send(tmp_path, b"", 0, len(_DATA))
    assert e.value.errno == errno.ENOSPC


@pytest.mark.parametrize("rate", [1 << 60, 1])
def test_a_disk_slower_than_the_page_cache_gets_the_rest_of_the_range_by_the_kernel(tmp_path, small, monkeypatch,
                                                                                     rate):
    """Direct writes the disk takes slower than ``MIN_RATE`` (judged over ``JUDGED`` bytes):
    the rest of the range by the kernel, the same bytes; a fast enough disk keeps them."""
    monkeypatch.setattr(_repair_out, "MIN_RATE", rate)
    monkeypatch.setattr(_repair_out, "JUDGED", 2 * ALIGN)
    kernel = []
    real = _repair_out.send_range

    def sending(out, src, offset, size):
        kernel.append(size)
        return real(out, src, offset, size)

    monkeypatch.setattr(_repair_out, "send_range", sending)
    got, n = _send(tmp_path, b"z" * 100, 0, len(_DATA))
    assert n == len(_DATA)
    assert got == b"z" * 100 + _DATA + b"tail"
    if _direct_allowed(tmp_path):
        assert kernel == ([len(_DATA) - (ALIGN - 100) - 2 * ALIGN] if rate > 1 else [])
    else:  # (no O_DIRECT here: the whole range by the kernel)
        assert kernel == [len(_DATA)]
