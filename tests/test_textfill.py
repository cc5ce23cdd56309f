"""The native text filler (``_textfill.c``) writes exactly the rows the pure templates make.

``_jsontext.fill`` and ``in_file_order`` run both ways (``_native.filling("python")`` and
``"native"``) on drawn columns of every slot form: texts (non-ASCII and escaped JSON
strings, None for a dropped row), coded texts, coded rows of an earlier fill, and int64
and uint64 columns at their extremes; empty batches; a row longer than any first guess
of the buffer. Bad arguments raise instead of reading outside a buffer (these tests run
under AddressSanitizer too: fuzz/kernel_asan.sh). Whole outputs of decode and export on
both engines: tests/test_walk.py.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fxtlint.engine import _jsontext as J
from fxtlint.engine import _native

ROW = J.ROW_END.encode()


def require_filler():
    """The filler module; a skip saying why when it is not built (a failure with
    FXTLINT_EXPECT_NATIVE=1, as CI sets where it has a compiler)."""
    mod, why = _native._filler_built()
    if mod is None:
        if os.environ.get("FXTLINT_EXPECT_NATIVE") == "1":
            pytest.fail(f"FXTLINT_EXPECT_NATIVE=1 but {why}")
        pytest.skip(why)
    return mod


@pytest.fixture(scope="module")
def filler():
    return require_filler()


engine = _native.filling  # the filler of the rows written in the block


def both(make):
    """``make()``'s texts with the pure path and with the native one (as a list of str)."""
    with engine("python"):
        pure = J.as_list(make(), 0)
    with engine("native"):
        got = make()
    assert isinstance(got, J.TextRows)
    return list(pure), got


json_texts = st.text().map(lambda s: json.dumps(s, ensure_ascii=False))  # escapes, non-ASCII, emoji
int64s = st.integers(-(2**63), 2**63 - 1)
uint64s = st.integers(0, 2**64 - 1)


@st.composite
def columns(draw, n: int, pieces: bool = True):
    """One column of ``fill``'s forms for ``n`` rows."""
    form = draw(st.sampled_from(["texts", "constant", "coded", "int64", "uint64", "small", *(["pieces"] * pieces)]))
    if form == "texts":
        return draw(st.lists(json_texts, min_size=n, max_size=n))
    if form == "constant":
        return draw(json_texts)
    if form == "coded":
        table = draw(st.lists(json_texts, min_size=1, max_size=5))
        codes = draw(st.lists(st.integers(0, len(table) - 1), min_size=n, max_size=n))
        return J.Coded(np.asarray(codes, np.int64), np.asarray(table, object))
    if form == "int64":
        return J.int_column(np.asarray(draw(st.lists(int64s, min_size=n, max_size=n)), np.int64))
    if form == "uint64":
        return J.int_column(np.asarray(draw(st.lists(uint64s, min_size=n, max_size=n)), np.uint64))
    if form == "small":  # timestamps close together: the pure path's two coded pieces
        base = draw(st.integers(0, 2**40))
        return J.int_column(np.asarray([base + draw(st.integers(0, 10**6)) for _ in range(n)], np.uint64))
    return (draw(columns(n, pieces=False)), draw(st.lists(json_texts, min_size=n, max_size=n)))  # one value's pieces


@st.composite
def templates(draw):
    n = draw(st.integers(0, 12))
    cols = draw(st.lists(columns(n), max_size=5))
    parts = draw(st.lists(st.text(max_size=8), min_size=len(cols) + 1, max_size=len(cols) + 1))
    return parts, cols, n


@settings(max_examples=300)
@given(templates())
def test_fill_writes_the_pure_rows(filler, template):
    parts, cols, n = template
    pure, got = both(lambda: J.fill(parts, cols, n))
    assert got.tolist() == pure
    assert got.data == b"".join(t.encode() + ROW for t in pure)  # UTF-8, each row with its end
    with engine("native"):
        item = J.fill(parts, cols, n, item=True)
    assert item.data == "".join(pure).encode() and item.tolist() == pure


def test_extreme_integers_in_decimal(filler):
    signed = np.asarray([-(2**63), -1, 0, 2**63 - 1, -10, 99], np.int64)
    unsigned = np.asarray([0, 2**64 - 1, 2**63, 9, 10, 100], np.uint64)
    with engine("native"):
        got = J.fill(["[", ", ", "]"], [J.int_column(signed), J.int_column(unsigned)], 6)
    assert got.tolist() == [f"[{a}, {b}]" for a, b in zip(signed.tolist(), unsigned.tolist())]
    assert got.tolist()[0] == "[-9223372036854775808, 0]" and got.tolist()[1] == "[-1, 18446744073709551615]"


def test_non_ascii_and_escapes_are_utf8(filler):
    texts = [json.dumps(s, ensure_ascii=False) for s in ["naïve", "日本語", "\U0001F600", 'q"\\\n\t\x00', ""]]
    with engine("native"):
        got = J.fill(['{"s": ', "}"], [texts], len(texts))
    assert got.data.decode() == "".join(f'{{"s": {t}}},\n' for t in texts)
    assert [json.loads(t)["s"] for t in got.tolist()] == ["naïve", "日本語", "\U0001F600", 'q"\\\n\t\x00', ""]


def test_empty_batch(filler):
    with engine("native"):
        got = J.fill(["a", "b", "c"], [[], J.int_column(np.zeros(0, np.int64))], 0)
        merged = J.in_file_order([([], got)])
    assert (got.data, len(got), got.tolist(), merged) == (b"", 0, [], [])
    assert filler.fill([b"x"], [], 0, b",\n") == (b"", b"")


def test_a_row_longer_than_any_guess(filler):
    big = json.dumps("é" * (3 << 20), ensure_ascii=False)  # 6 MiB of UTF-8 in one row
    texts = ['"a"', big, '"b"']
    with engine("native"):
        got = J.fill(["[", "]"], [texts], 3)
    assert got.tolist() == [f"[{t}]" for t in texts]
    size = len(big.encode()) + 4  # [, ], the row end
    assert got.ends.tolist() == [7, 7 + size, 7 + size + 7]


def test_none_is_a_row_without_text(filler):
    with engine("native"):
        got = J.fill(["<", ">"], [["x", None, "z"]], 3)
    assert got.tolist() == ["<x>", "<>", "<z>"]


@given(st.lists(st.lists(st.tuples(st.integers(0, 50), json_texts), max_size=8), max_size=4),
       st.one_of(st.none(), st.integers(0, 50)))
def test_in_file_order_merges_as_the_pure_path(filler, kinds, below):
    # each kind's rows in file order, the indexes of different kinds distinct
    seen: set[int] = set()
    pieces = []
    for rows in kinds:
        rows = sorted({i: t for i, t in rows if i not in seen}.items())
        seen |= {i for i, _ in rows}
        pieces.append(([i for i, _ in rows], [t for _, t in rows]))
    with engine("python"):
        pure = list(J.in_file_order(pieces, below))
    with engine("native"):
        # the first piece stays a list of str (the records decoded one by one); the others are
        # rows to be written in the merge (Filled, some rows dropped and put back as texts) or
        # rows already written (TextRows)
        native = [pieces[0]] if pieces else []
        for j, (i, t) in enumerate(pieces[1:]):
            if j % 2:
                native.append((i, J.fill(["", ""], [t], len(t))))
                continue
            filled = J.fill_later(["<", ">"], [["x", *t, "y"]], len(t) + 2)
            assert isinstance(filled, J.Filled)
            filled = J.keep_rows(filled, np.asarray([False, *([True] * len(t)), False]))
            filled.parts[0], filled.parts[-1] = b"", J.ROW_END.encode()  # what the texts need
            native.append((i, filled))
        got = J.in_file_order(native, below)
    assert (got.tolist() if isinstance(got, J.TextRows) else list(got)) == pure


def test_item_lists_table_of_rows(filler):
    """Argument lists: each row's list filled per kinds, the table gathered in row order."""
    row = np.asarray([2, 0, 2, 0, 3], np.int64)
    k = np.asarray([1, 0, 0, 1, 0], np.int64)
    kind = np.asarray([0, 0, 1, 1, 0], np.int64)
    names = ['"a"', '"b"', '"c"', '"d"', '"é"']

    def parts_of(kinds):
        return ["[", *[", " if i else "" for i in range(1, len(kinds))], "]"]

    with engine("python"):
        pure = J.item_lists(5, row, k, kind, [names], parts_of, "[]").texts()
    with engine("native"):
        coded = J.item_lists(5, row, k, kind, [names], parts_of, "[]")
        got = J.fill(["{", "}"], [coded], 5)
    assert isinstance(coded.table, J.TextRows)
    assert pure == ['["b", "d"]', "[]", '["c", "a"]', '["é"]', "[]"]
    assert got.tolist() == [f"{{{t}}}" for t in pure]


@pytest.mark.parametrize("layer", ["bytes", "text"])
def test_lines_writes_rows_after_earlier_text(filler, layer):
    """``Lines`` writes TextRows to the bytes layer, after what the text layer holds."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8") if layer == "bytes" else io.StringIO()
    out.write("{[")
    lines = J.Lines(out, "\n")
    with engine("native"):
        lines(J.fill(['"', '"'], [["é", "b"]], 2))
        lines(["x"])
        lines(J.fill(["", ""], [[]], 0))
        lines(J.fill(["<", ">"], [["y"]], 1))
    out.write("\n]}")
    out.flush()
    text = raw.getvalue().decode() if layer == "bytes" else out.getvalue()
    assert text == '{[\n"é",\n"b",\nx,\n<y>\n]}'


def test_lines_decodes_for_a_stream_of_another_encoding(filler):
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-16")
    with engine("native"):
        J.Lines(out, "[")(J.fill(["", ""], [["ü"]], 1))
    out.flush()
    assert raw.getvalue().decode("utf-16") == "[ü"


# -- bad arguments raise; nothing is read outside a buffer ----------------------------

def test_codes_outside_the_table_raise(filler):
    for code in (-1, 2):
        with pytest.raises(ValueError, match="outside its table"):
            filler.fill([b"", b""], [(filler.CODED, np.asarray([0, code], np.int64), ["a", "b"])], 2, b"")
    rows = (b"abc", np.asarray([1, 3], np.int64))
    with pytest.raises(ValueError, match="outside its table"):
        filler.fill([b"", b""], [(filler.CODED_ROWS, np.asarray([2], np.int64), rows)], 1, b"")


def test_rows_whose_ends_do_not_fit_raise(filler):
    for ends in ([2, 1], [1, 4], [-1, 2]):
        with pytest.raises(ValueError, match="ends"):
            filler.gather([(b"abc", np.asarray(ends, np.int64))], np.zeros(1, np.int64), np.zeros(1, np.int64))
    good = (b"abc", np.asarray([1, 3], np.int64))
    for which, row in ((1, 0), (0, 2), (-1, 0), (0, -1)):
        with pytest.raises(ValueError, match="not there"):
            filler.gather([good], np.asarray([which], np.int64), np.asarray([row], np.int64))
    assert filler.gather([good], np.asarray([0, 0], np.int64), np.asarray([1, 0], np.int64))[0] == b"bca"


def test_columns_of_the_wrong_length_or_type_raise(filler):
    with pytest.raises(ValueError, match="rows, not"):
        filler.fill([b"", b""], [(filler.SIGNED, np.zeros(3, np.int64))], 2, b"")
    with pytest.raises(ValueError, match="8-byte"):
        filler.fill([b"", b""], [(filler.SIGNED, np.zeros(3, np.int32))], 3, b"")
    with pytest.raises(ValueError, match="8-byte"):  # an unaligned view
        filler.fill([b"", b""], [(filler.SIGNED, memoryview(bytes(17))[1:])], 2, b"")
    with pytest.raises(ValueError, match="list of 2"):
        filler.fill([b"", b""], [(filler.TEXTS, ["a"])], 2, b"")
    with pytest.raises(TypeError, match="not a str"):
        filler.fill([b"", b""], [(filler.TEXTS, ["a", 3])], 2, b"")
    with pytest.raises(ValueError, match="one part more"):
        filler.fill([b""], [(filler.TEXTS, ["a"])], 1, b"")
    with pytest.raises(ValueError, match="form 9"):
        filler.fill([b"", b""], [(9, ["a"])], 1, b"")
    with pytest.raises(ValueError):
        filler.fill([b"x"], [], -1, b"")
    with pytest.raises(ValueError):  # a count whose ends would overflow the allocation
        filler.fill([b"x"], [], 2**62, b"")


class Meddling:
    """An int whose ``__index__`` first runs ``act``: the caller's code run while the filler
    converts a slot's form or a template's row count, after it has taken other arguments."""

    def __init__(self, value: int, act):
        self.value, self.act = value, act

    def __index__(self) -> int:
        self.act()
        return self.value


def _fresh(text: str, times: int = 60) -> str:
    return "".join([text] * times)  # a new object (not a constant of this module), freed when dropped


def test_a_table_replaced_by_a_later_slots_form_is_not_read_freed(filler):
    """A coded slot's table, replaced (its str freed) by the __index__ of the next slot's form:
    the rows are the table as it was when the slot was taken (under ASan: no use-after-free)."""
    table = [_fresh(c) for c in "ab"]

    def act():
        table[:] = ["x", "y"]
    slots = [(filler.CODED, np.asarray([0, 1], np.int64), table), (Meddling(filler.SIGNED, act), np.arange(2))]
    got = filler.fill([b"", b",", b""], slots, 2, b";")[0].decode()
    assert got == f"{_fresh('a')},0;{_fresh('b')},1;"


def test_texts_cleared_by_a_later_slots_form_are_the_texts_taken(filler):
    texts = [_fresh("t"), _fresh("u")]
    slots = [(filler.TEXTS, texts), (Meddling(filler.SIGNED, texts.clear), np.arange(2))]
    assert filler.fill([b"", b",", b""], slots, 2, b";")[0].decode() == f"{_fresh('t')},0;{_fresh('u')},1;"


def test_codes_changed_by_a_later_slots_form_are_checked_after_it(filler):
    """The codes are checked once no more of the caller's code runs: a code moved outside its
    table by the next slot's form raises, as it would have given first."""
    codes = np.asarray([0, 1], np.int64)

    def act():
        codes[1] = 10**9
    slots = [(filler.CODED, codes, ["a", "b"]), (Meddling(filler.SIGNED, act), np.arange(2))]
    with pytest.raises(ValueError, match="outside its table"):
        filler.fill([b"", b",", b""], slots, 2, b";")


def test_a_template_emptied_by_a_later_templates_count_is_the_template_taken(filler):
    """fill_rows: the row count of the second template (an __index__) empties the first's parts and
    slots (freeing them) after the first was taken; the rows are written as the first was."""
    parts = [_fresh("p").encode(), _fresh("q").encode()]
    codes = np.asarray([1, 0], np.int64)
    slots = [(filler.SIGNED, np.asarray([5, 6], np.int64)), (filler.CODED, codes, ["c", "d"])]
    parts.insert(1, b"+")

    def act():
        parts[:] = [b"z"]
        slots.clear()
    which, rows = np.asarray([0, 1, 0], np.int64), np.asarray([1, 0, 0], np.int64)
    got = filler.fill_rows([(parts, slots, 2), ([b"-"], [], Meddling(1, act))], which, rows)[0].decode()
    p, q = _fresh("p"), _fresh("q")
    assert got == f"{p}6+c{q}-{p}5+d{q}"

    within = np.zeros(2, np.int64)

    def move():
        within[0] = -1  # checked after the last count is converted: it raises
    with pytest.raises(ValueError, match="outside its table"):
        filler.fill_rows([([b"", b""], [(filler.CODED, within, ["c"])], 2), ([b"-"], [], Meddling(1, move))],
                         which, rows)


def test_replaced_rows_keep_a_coded_column_coded(filler):
    """Export's arguments with a name given twice: those rows' texts replace the lists'."""
    row = np.asarray([0, 2], np.int64)
    k = np.zeros(2, np.int64)

    def make():
        lists = J.item_lists(4, row, k, k, [['"a"', '"ü"']], lambda kinds: ["[", "]"], "")
        return J.replaced(lists, [1, 3], ["<1>", "<3>"], 4)

    pure, got = both(lambda: J.fill(["{", "}"], [make()], 4))
    assert pure == ['{["a"]}', "{<1>}", '{["ü"]}', "{<3>}"] and got.tolist() == pure
    with engine("native"):
        assert isinstance(make(), J.Coded)
    assert J.replaced("x", [0], ["y"], 2) == ["y", "x"]


def test_strided_and_reversed_columns(filler):
    """A column of a table and a reversed view are read in place, stride by stride."""
    table = np.arange(-12, 12, dtype=np.int64).reshape(8, 3)
    column, backwards = table[:, 1], np.arange(5, dtype=np.uint64)[::-1]
    codes = np.asarray([[0, 9], [1, 9], [0, 9]], np.int64)[:, 0]
    assert not column.flags.c_contiguous
    with engine("native"):
        got = J.fill(["", " ", " ", ""], [column[:3], backwards[:3], J.Coded(codes, np.asarray(["x", "y"], object))], 3)
    assert got.tolist() == ["-11 4 x", "-8 3 y", "-5 2 x"]
    assert filler.fill([b"", b""], [(filler.SIGNED, column)], 8, b";")[0] == b"-11;-8;-5;-2;1;4;7;10;"


def test_fill_rows_writes_templates_in_the_order_given(filler):
    first = ([b"a", b";"], [(filler.SIGNED, np.asarray([1, -2], np.int64))], 2)
    unsigned = np.asarray([7, 8, 2**64 - 1], np.uint64)
    second = ([b"<", b"|", b">"], [(filler.TEXTS, ["\u00e9", "z", "q"]), (filler.UNSIGNED, unsigned)], 3)
    got = filler.fill_rows([first, second], np.asarray([1, 0, 1, 0], np.int64), np.asarray([2, 1, 0, 0], np.int64))
    assert got[0].decode() == "<q|18446744073709551615>a-2;<\u00e9|7>a1;"
    assert np.frombuffer(got[1], np.int64).tolist() == [24, 28, 34, 37]  # é is two bytes
    assert filler.fill_rows([first], np.zeros(0, np.int64), np.zeros(0, np.int64)) == (b"", b"")
    for which, row in ((2, 0), (0, 2), (1, 3), (-1, 0), (0, -1)):
        with pytest.raises(ValueError, match="not there"):
            filler.fill_rows([first, second], np.asarray([which], np.int64), np.asarray([row], np.int64))
    with pytest.raises(ValueError, match="differ in length"):
        filler.fill_rows([first], np.zeros(2, np.int64), np.zeros(1, np.int64))
    with pytest.raises(ValueError, match="rows, not"):  # a template whose slot is shorter than its n
        filler.fill_rows([([b"", b""], [(filler.SIGNED, np.zeros(1, np.int64))], 2)], np.zeros(1, np.int64),
                         np.ones(1, np.int64))


def test_the_allocator_is_tuned_by_the_command_line_only(filler, monkeypatch, tmp_path):
    # malloc's thresholds are process-wide: a library user's process is not ours to tune
    import fxtlint
    from fxtlint.cli import main
    from fxtlint.export._export_tef import write_document
    from fxtlint.reader_suite._canonical import decode_to

    calls: list[int] = []
    monkeypatch.setattr(filler, "tune_allocator", lambda: calls.append(1) or True)
    sample = Path(__file__).resolve().parent.parent / "corpus" / "samples" / "sample.fxt"
    data = sample.read_bytes()
    fxtlint.lint_bytes(data)
    write_document(data, io.StringIO())
    decode_to(data, io.StringIO())
    assert calls == []
    assert main(["decode", str(sample)]) == 0 and calls == [1]
    assert main(["export", str(sample), "-o", str(tmp_path / "out.json")]) in (0, 1) and calls == [1, 1]


def test_the_command_lines_bytes_read_back_as_their_consumers_read_them(filler, tmp_path):
    # a real trace above the columns' threshold, through a child's real stdout (the bytes
    # layer the filler writes to) and an export file, on each engine: a JSON parser gets the
    # in-process decoding, and the Trace Event Format's rules hold for the export (the
    # in-process readings made once for both engines: the 1 MB trace's were most of 30 s)
    from conftest import CORPUS_REAL
    from fxtlint.engine._walk import COLUMNS_FROM
    from fxtlint.export._export_tef import document
    from fxtlint.reader_suite._canonical import decode
    from tef_validator import validate

    path = CORPUS_REAL / "jane-tracing-richiesams.fxt"
    data = path.read_bytes()
    assert len(data) > COLUMNS_FROM
    decoded, events = decode(data).document(), document(data)[0]["traceEvents"]
    # the child imports the fxtlint this test imported (an installed one with its built
    # modules, or the checkout), not the sources of the folder it runs in
    import fxtlint

    for engine in ("native", "python"):
        env = {**os.environ, "FXTLINT_ENGINE": engine, "PYTHONPATH": str(Path(fxtlint.__file__).parent.parent)}
        run = subprocess.run([sys.executable, "-m", "fxtlint", "decode", str(path)], capture_output=True, env=env,
                             cwd=tmp_path, check=False)
        assert run.returncode == 0, (engine, run.stderr)
        assert json.loads(run.stdout.decode("utf-8")) == decoded, engine
        out = tmp_path / f"out-{engine}.json"
        run = subprocess.run([sys.executable, "-m", "fxtlint", "export", str(path), "-o", str(out)],
                             capture_output=True, env=env, cwd=tmp_path, check=False)
        assert run.returncode in (0, 1), (engine, run.stderr)
        exported = json.loads(out.read_text(encoding="utf-8"))
        assert exported["traceEvents"] == events, engine
        if engine == "native":
            assert validate(exported) == []  # (the other engine's events equal these, and its document's rest)
        else:
            assert exported == json.loads((tmp_path / "out-native.json").read_text(encoding="utf-8"))
