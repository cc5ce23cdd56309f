"""The builder refuses what does not fit, with the library's one error type."""

from __future__ import annotations

import dataclasses

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.spec._tables import tables


@pytest.mark.parametrize("make, field, allowed", [
    (lambda: B.arg("int32", 1, 1 << 40), "value", "-2147483648 .. 4294967295"),
    (lambda: B.arg("uint32", 1, -1), "value", "0 .. 4294967295"),
    (lambda: B.arg("int64", 1, 1 << 64), "value", "18446744073709551615"),
    (lambda: B.string(40000, "x"), "index", "0 .. 32767"),
    (lambda: B.thread(0x100, 1, 2), "index", "0 .. 255"),
    (lambda: B.event("instant", 1, name=1 << 16), "name", "0 .. 65535"),
    (lambda: B.unknown(12, bits=1 << 48), "bits", "0 .. 281474976710655"),
])
def test_overflowing_value_raises_the_library_error_naming_field_and_range(make, field, allowed):
    with pytest.raises(fxtlint.FxtError, match=rf"\b{field}\b.*allowed .*{allowed}"):
        make()


def test_values_at_the_edges_fit():
    for arg in (B.arg("int32", 1, -(1 << 31)), B.arg("int32", 1, (1 << 31) - 1), B.arg("int64", 1, -1)):
        assert fxtlint.encode_argument(arg)
    assert B.archive(B.string(0x7FFF, "x"))


def test_field_put_refuses_instead_of_masking():
    f = tables().header[0]
    assert f.put(f.mask) >> f.lo == f.mask
    with pytest.raises(fxtlint.FxtError, match=f"field {f.name}"):
        f.put(f.mask + 1)
    with pytest.raises(ValueError):  # FxtError is a ValueError
        f.put(-1)


def test_unknown_kinds_raise_the_library_error_not_key_error():
    with pytest.raises(fxtlint.FxtError, match="int33"):
        B.arg("int33", 1, 0)
    with pytest.raises(fxtlint.FxtError, match="event.nonsense"):
        B.event("nonsense", 1)
    with pytest.raises(fxtlint.FxtError):
        fxtlint.encode_record(dataclasses.replace(B.string(1, "x"), extra_words=(1 << 64,)))


def test_kind_alone_decides_the_type():
    assert B.string(1, "x").type == 2
    with pytest.raises(fxtlint.FxtError, match="kind 'string' has type 2, not 7"):
        fxtlint.Record(7, "string", {"index": 1}, {"value": "x"})
    with pytest.raises(fxtlint.FxtError, match="type 1"):
        fxtlint.Argument(9, "int32", {"name": 1, "value": 3})


def test_records_and_arguments_are_hashable_read_only_values():
    rec = B.event("counter", 5, id=1, args=[B.arg("int64", 1, 42)])
    assert hash(rec) == hash(B.event("counter", 5, id=1, args=[B.arg("int64", 1, 42)]))
    assert len({rec, B.event("counter", 5, id=1, args=[B.arg("int64", 1, 42)])}) == 1
    with pytest.raises(TypeError):
        rec.fields["timestamp"] = 6
    with pytest.raises(TypeError):
        rec.args[0].strings.update(name="x")
    data = B.archive(B.magic(), rec)
    read, again = (fxtlint.read_records(data)[0][-1] for _ in range(2))
    assert read == again and hash(read) == hash(again) and read is not again
    assert fxtlint.encode_record(read) == fxtlint.encode_record(rec)


def test_patch_field_sets_one_field_in_either_byte_order():
    size = next(f for f in tables().header if f.role == "size")
    for order in ("little", "big"):
        data = B.archive(B.magic(), B.string(3, "abc"), byte_order=order)
        patched = B.patch_field(data, size, 7, word=1, byte_order=order)
        assert B.read_field(patched, size, word=1, byte_order=order) == 7
        assert len(patched) == len(data)
        others = B.read_field(patched, B.WORD, word=1, byte_order=order) & ~size.word_mask
        assert others == B.read_field(data, B.WORD, word=1, byte_order=order) & ~size.word_mask
        assert patched[:8] == data[:8] and patched[16:] == data[16:]


def test_patch_field_refuses_what_does_not_fit():
    size = next(f for f in tables().header if f.role == "size")
    data = B.archive(B.string(3, "abc"))
    with pytest.raises(fxtlint.FxtError, match=r"size .*allowed 0 \.\. 4095"):
        B.patch_field(data, size, 4096)
    with pytest.raises(fxtlint.FxtError, match=r"word = 9 .*allowed 0 \.\. 1"):
        B.patch_field(data, size, 1, word=9)
    with pytest.raises(fxtlint.FxtError, match="byte_order"):
        B.patch_field(data, size, 1, byte_order="middle")


def test_no_copy_of_the_patching_logic_outside_build():
    """Every hand-made malformed word goes through build.patch_field (on Field.set)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    # clearing a field's bits, or reading a word out of a slice to rewrite it
    pattern = re.compile(r"~\s*\w+\.word_mask|from_bytes\([^)]*\[[\w\s*+]*:[\w\s*+]*\]")
    files = [*(root / "fxtlint").rglob("*.py"), *(root / "fuzz").rglob("*.py")]
    found = [f"{p.relative_to(root)}:{i}" for p in files if p.name not in ("_build.py", "_tables.py")
             for i, line in enumerate(p.read_text("utf-8").splitlines(), 1) if pattern.search(line)]
    assert found == []
