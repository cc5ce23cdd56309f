"""The screen's program: the spec tables compiled (``_kernel_program``) for the native walk's
screen (``_screen.c``, compiled into ``_nwalk``), checked when loaded, and the walk on the
inputs that test a screen's bounds.

The instruction set and header the compiler writes are the C screen's, name for name; a
program that names anything outside itself is refused by ``_nwalk.Plan``, and one it
accepts, however damaged, reads nothing outside the buffer (under AddressSanitizer this
file's run is the proof: ``fuzz/kernel_asan.sh``); on the hostile inputs, sizes that
disagree with types and every shape of text, the walk reports what the reference reports.
"""

from __future__ import annotations

import re
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import REPO
from fxtlint import build as B
from fxtlint.engine import _native
from fxtlint.engine._kernel_program import ARG_ROW_HEAD, HEADER, OPS, H, compile_program


def _c_names(array: str) -> tuple[str, ...]:
    """The names of ``array``'s entries in ``_screen.h``, in order."""
    text = (REPO / "fxtlint" / "engine" / "_screen.h").read_text()
    body = re.search(array + r"\[[A-Z_]+\] = \{(.*?)\};", text, re.S)
    assert body is not None, array
    return tuple(re.findall(r'"([a-z_]+)"', body.group(1)))


def test_the_compiler_and_the_c_screen_name_the_same_instructions_and_header():
    assert _c_names("SCREEN_OP_NAMES") == OPS
    assert _c_names("SCREEN_HEADER_NAMES") == HEADER


def _tables_with_argument_type_11():
    """The spec tables plus an argument type 11: a word that must be zero, then a
    counted UTF-8 stream."""
    from fxtlint.spec._tables import build_tables
    from test_tables import _files_with

    def add(files):
        files["arguments.toml"]["undefined"]["argument_types"].remove(11)
        files["arguments.toml"]["argument"].append({
            "type": 11, "name": "labelled", "spec": "a test layout",
            "fields": [{"name": "label_length", "bits": [32, 47]},
                       {"name": "reserved", "bits": [48, 63], "reserved": True, "rule": "RB002"}],
            "body": [{"word": "zeros", "fields": [{"name": "z", "bits": [0, 63], "zero": True, "rule": "RB003"}]},
                     {"stream": "label", "length": "label_length", "content": "utf8"}]})

    return build_tables(_files_with(add))


def test_a_layout_added_to_the_tables_is_compiled_with_no_change_to_the_c_code():
    new = compile_program(False, tables_=_tables_with_argument_type_11())
    old = compile_program(False)
    assert 11 in new.arg_leaves and 11 not in old.arg_leaves
    leaf = new.arg_leaves[11]
    assert set(leaf.vals) == {"type", "size", "name", "label_length", "reserved", "z"}
    assert set(leaf.pos) == {"name string", "zeros", "label"}
    assert new.arg_columns == ARG_ROW_HEAD + new.narg_vals + new.narg_pos
    if _native.nwalk() is not None:
        _plan(new.code)  # the C screen loads it as it is


# -- the program is data: checked when loaded ------------------------------------------------
def _module():
    module = _native.nwalk()
    if module is None:
        pytest.skip(_native.native_missing())
    return module


def _plan(code, log: bool = False):
    """``code`` loaded by the native walk with the semantic plan of the spec tables' program."""
    from fxtlint.engine._reader import ARG_NAME
    from fxtlint.engine._walk_native import plan

    _, terms, argrefs = plan(log)
    return _module().Plan(code, terms, argrefs, (ARG_NAME.lo, ARG_NAME.mask), log)


@pytest.mark.parametrize("at,value", [(H["magic"], 0), (H["length"], 5), (H["nvals"], 1), (H["type_mask"], 4096),
                                      (H["nodes"], -1), (H["args"], 10**9), (H["inline_bit"], 3)])
def test_load_rejects_a_program_that_points_outside_itself(at, value):
    _module()
    code = compile_program(False).code
    code[at] = value
    with pytest.raises(ValueError):
        _plan(code)


def _event(i: int) -> bytes:
    return B.event("instant", i, thread=(1, 2), category="c", name="n", args=[B.arg("uint32", "a", i)])


_DAMAGE = st.one_of(st.integers(-2, 40), st.integers(-(2**63), 2**63 - 1),
                    st.sampled_from([-(2**63), 2**63 - 1, 2**63 - 4, 2**62, 2**31, 4096]))


@settings(max_examples=150)
@given(st.lists(st.tuples(st.integers(0, 10**6), _DAMAGE), min_size=1, max_size=4), st.booleans())
def test_a_damaged_program_is_refused_or_stays_inside_the_buffer(at_values, log):
    """Whatever the damage, the walk's ``Plan`` refuses it or a walk with it reads nothing
    outside the buffer and stops where a walk stops."""
    from fxtlint.engine._provider_state import ProviderState
    from fxtlint.engine._walk_native import Mirror

    module = _module()
    code = compile_program(log).code
    for at, value in at_values:
        code[at % len(code)] = value
    try:
        plan = _plan(code, log)
    except ValueError:
        return
    data = B.log_stream(*[B.log_record(0x30, i) for i in range(5)]) if log else \
        B.archive(B.magic(), *[_event(i) for i in range(5)])
    nw = module.NativeWalk(plan, Mirror(ProviderState()), False)
    status = nw.run(data, 0, 0, 1 << 20)
    assert status in (module.Stop.DONE, module.Stop.HANDBACK, module.Stop.ZERO, module.Stop.PAST_END,
                      module.Stop.END), status
    assert 0 <= nw.cur <= len(data) // 8 and 0 <= nw.index <= len(data) // 8


# -- the walk on the inputs that test a screen's bounds --------------------------------------
HOSTILE = {
    "size past the end": B.archive(B.magic(), B.string(1, "c")) + struct.pack("<Q", 4 | (9 << 4) | (4 << 16)),
    "large size past the end": B.archive(B.magic()) + struct.pack("<Q", 15 | (0xFFFFFFFF << 4)) + b"\0" * 8,
    "size 0": B.archive(B.magic(), B.string(1, "c")) + struct.pack("<Q", 4) + b"\1" * 16,
    "size 0 at once": struct.pack("<Q", 4) * 4,
    "ends inside a header": B.archive(B.magic(), B.string(1, "c")) + b"\x24\0\0",
    "ends inside the magic": B.archive(B.magic())[:5],
    # 32,767 bytes: the longest a length field says; no record of 4,095 words holds them
    "a message of 32,767 bytes": B.archive(B.magic()) + struct.pack(
        "<QQ", 9 | (4095 << 4) | (32767 << 16) | (1 << 32), 1) + b"x" * (8 * 4093),
    "an inline name of 32,767 bytes": B.archive(B.magic()) + struct.pack(
        "<QQ", 4 | (4095 << 4) | (1 << 24) | (1 << 32) | ((0x8000 | 32767) << 48), 1) + b"y" * (8 * 4093),
    "a message of 32,001 bytes": B.archive(B.magic(), B.log(1, "x" * 32001)),
    "a message of 32,000 bytes": B.archive(B.magic(), B.log(1, "x" * 32000)),
    "an inline name of 32,001 bytes": B.archive(B.magic(), B.event("instant", 1, category="c", name="y" * 32001)),
    "a blob argument claiming 4 GiB": B.archive(B.magic(), B.event(
        "instant", 1, category="c", name="n", args=[B.arg("blob", "b", b"\1\2")])),
    # the buffer's last record, its content one word longer than the record: a screen that
    # misjudged a bound by one word would read past the buffer (AddressSanitizer's catch)
    "the last message runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 9 | (3 << 4) | (16 << 16) | (1 << 32), 1, 0x6161616161616161),
    "the last inline name runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 24) | (1 << 32) | ((0x8000 | 9) << 48), 1, 0x6262626262626262),
    "the last argument runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 20) | (1 << 24) | (1 << 32) | (2 << 48), 1, 4 | (2 << 4) | (3 << 16)),
    "the last string argument runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQQ", 4 | (3 << 4) | (1 << 20) | (1 << 24) | (1 << 32) | (2 << 48), 1,
        6 | (1 << 4) | (3 << 16) | ((0x8000 | 5) << 32)),
    "the last blob runs one word past the buffer": B.archive(B.magic()) + struct.pack(
        "<QQ", 5 | (2 << 4) | (3 << 16) | (16 << 32) | (1 << 48), 0x6363636363636363),
}


def _with_blob_of_4_gib() -> bytes:
    data = bytearray(HOSTILE["a blob argument claiming 4 GiB"])
    at = bytes(data).index(b"\1\2") - 16  # the blob argument's header: its size is bits 32..63
    (h,) = struct.unpack_from("<Q", data, at)
    struct.pack_into("<Q", data, at, (h & 0xFFFFFFFF) | (0xFFFFFFFF << 32))
    return bytes(data)


def _set_word(data: bytes, word: int, value: int) -> bytes:
    return data[: 8 * word] + struct.pack("<Q", value) + data[8 * word + 8 :]


def _argument_sizes_disagreeing_with_types() -> list[bytes]:
    """An int64 argument (two words) declaring one, three, and the record's whole size;
    a string argument whose size covers only its header."""
    base = B.archive(B.magic(), B.event("instant", 1, category=1, name=2, args=[B.arg("int64", 3, -5),
                                                                               B.arg("string", 4, "abc")]))
    head = struct.unpack_from("<Q", base, 8 * 4)[0]  # magic, event header, timestamp, then the argument
    out = [_set_word(base, 4, (head & ~(0xFFF << 4)) | (size << 4)) for size in (1, 3, 15)]
    s_head = struct.unpack_from("<Q", base, 8 * 6)[0]
    out.append(_set_word(base, 6, (s_head & ~(0xFFF << 4)) | (1 << 4)))
    return out


def _same(data: bytes, fmt: str = "auto") -> dict:
    """The native walk and the reference give the same whole report; the walk's."""
    _module()
    got = fxtlint.lint_bytes(data, engine="native", input_format=fmt).to_json()
    assert got == fxtlint.lint_bytes(data, engine="reference", input_format=fmt).to_json()
    return got


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_walk_equals_reference_on_hostile_inputs(name):
    _same(HOSTILE[name])


def test_walk_equals_reference_on_a_blob_claiming_4_gib_and_on_sizes_that_disagree_with_types():
    assert any(d["severity"] == "error" for d in _same(_with_blob_of_4_gib())["diagnostics"])
    for data in _argument_sizes_disagreeing_with_types():
        _same(data)


TEXTS = [b"plain", "ünï".encode(), "€uro".encode(), "😀".encode(), "\U0010FFFF".encode(), b"a\0b",
         b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf",
         b"\xf0\x80\x80\x80", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xff", b"\x80", b"ab\xc3",
         b"\xe2\x82", b"\xf0\x9f\x98", b"\xc3\xa9\xc3", b"abcdefgh\xe2\x82\xac", b"\xe2\x82\xacabcdefgh"]


def _with_text(text: bytes, log: bool) -> bytes:
    """A record whose text stream is ``text``: a trace's log message, or a log record's
    string argument."""
    marker = "Q" * len(text)
    if log:
        data = B.log_stream(B.log_record(0x30, 1, args=[B.arg("string", "k", marker)]))
    else:
        data = B.archive(B.magic(), B.log(1, marker, thread=(1, 2)))
    at = data.index(marker.encode())
    return data[:at] + text + data[at + len(text):]


@pytest.mark.parametrize("log", [False, True], ids=["trace", "log"])
@pytest.mark.parametrize("text", TEXTS, ids=lambda t: t.hex() or "empty")
def test_walk_reports_text_that_is_not_utf8_as_the_reference_does(text, log):
    codes = {d["code"] for d in _same(_with_text(text, log), "log" if log else "trace")["diagnostics"]}
    try:
        text.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert ("ST003" in codes) is not valid
