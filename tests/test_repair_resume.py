"""Repair taking over from IN's lint (``rewrite/_resume``): the bytes before the first
record of a finding repair acts on are written as they are, the lint's tables taken
there; the output and the change log are those of a repair from IN's start. And the
change log's counts are the lint's, what repair did past the lint's stop counted apart."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._reader import forget_chains
from fxtlint.rewrite import _repair, _repair_walk
from fxtlint.rewrite._input import Input
from fxtlint.rewrite._repair import repair
from fxtlint.rewrite._resume import resume_at
from fxtlint.strategies import archives, mutated_archives

pytestmark = pytest.mark.skipif(_repair.native_walk() is None, reason="the native walk is not built here")

CORPORA = sorted((REPO / "corpus" / "golden").glob("*.fxt")) + sorted(CORPUS_REAL.glob("*.fxt"))


def _zeroed(data: bytes, at: int, n: int = 4096) -> bytes:
    at &= ~7
    return data[:at] + bytes(max(0, min(n, len(data) - at))) + data[at + n:]


def _resume(data: bytes):
    try:
        report, walk = lint_walk(data, input_format="trace")
    finally:
        forget_chains()
    return resume_at(report, walk, lambda a, b: data[a:b])


def _run(data, **options):
    out: list = []
    log = repair(data, out.append, **options)
    return b"".join(out), log


def assert_resumed_alike(data: bytes) -> bool:
    """The repair from the lint's place (in memory, and from a file read in 4 KiB chunks,
    the prefix sent by the kernel) is the repair from IN's start. Whether there was a place."""
    at = _resume(data)
    expected = _run(data)
    assert _run(data, resume=at) == expected
    if len(data) < 100_000:  # (the record-by-record pass of a large trace: tests/test_repair_walk.py's slow test)
        assert _run(data, shortcut=False) == expected
    return at is not None


def _from_file(tmp_path, data: bytes, resume) -> tuple[bytes, _repair.RepairLog]:
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    src.write_bytes(data)
    with open(src, "rb", buffering=0) as fh, open(dst, "wb") as out:
        inp = Input.of_file(fh, str(src), chunk=4096)
        try:
            log = repair(inp, out.write, out_file=out, resume=resume)
        finally:
            inp.close()
    return dst.read_bytes(), log


def test_the_corpora_with_a_page_zeroed_repair_alike_from_the_lint_s_place(tmp_path):
    taken = 0
    for path in CORPORA:
        data = path.read_bytes()
        for where, n in ((len(data) // 2, 4096), (len(data) // 3, 64), (72, 16)):
            taken += assert_resumed_alike(_zeroed(data, where, n))
    assert taken >= 3  # (the real traces' pages: the place is found, and taken)


@pytest.mark.parametrize("path", sorted(CORPUS_REAL.glob("*.fxt")), ids=lambda p: p.name)
def test_a_file_repaired_from_the_lint_s_place_is_its_bytes_repaired_from_the_start(tmp_path, path):
    data = path.read_bytes()
    case = _zeroed(data, (len(data) // 2) & ~4095)
    at = _resume(case)
    assert (at is not None) == (len(data) > 100_000)  # the large trace's page: after its first chunks
    assert _from_file(tmp_path, case, at) == _run(case)


@given(st.sampled_from(["little", "big"]).flatmap(lambda order: archives(min_size=2, max_size=14, byte_order=order)),
       st.data())
def test_a_stretch_zeroed_repairs_alike_from_the_lint_s_place(data, draw):
    words = len(data) // 8
    lo = draw.draw(st.integers(1, max(1, words - 1)))
    hi = draw.draw(st.integers(lo, words))
    assert_resumed_alike(data[: 8 * lo] + bytes(8 * (hi - lo)) + data[8 * hi:])


@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_a_mutated_archive_repairs_alike_from_the_lint_s_place(case):
    assert_resumed_alike(case[0])


@given(st.binary(max_size=300))
def test_any_bytes_after_a_magic_record_repair_alike_from_the_lint_s_place(data):
    assert_resumed_alike(B.archive(B.magic()) + data)


def _bad_then(*between) -> bytes:
    """A clean run of events, one event whose argument's header is zeroed (ST006: dropped),
    ``between``, then a header of size 0 (FR001: the lint stops there), more events."""
    events = [B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(50)]
    bad = bytearray(B.archive(B.event("instant", 99, thread=(1, 2), category="c", name="n",
                                      args=[B.arg("int64", "a", 5)])))
    bad[-16:-8] = bytes(8)  # the argument's header word zeroed
    return B.archive(B.magic(), *events) + bytes(bad) + B.archive(*between) + bytes(8) + B.archive(*events)


def test_a_record_with_an_effect_between_the_place_and_the_stop_takes_no_place():
    """A string registered between the first dropped record and the lint's stop: the lint's
    tables at its end are not those at the place; repair reads IN from its start."""
    plain = _bad_then(B.event("instant", 7, thread=(1, 2), category="c", name="n"))
    assert assert_resumed_alike(plain)
    with_string = _bad_then(B.string(9, "x"))
    assert _resume(with_string) is None
    assert_resumed_alike(with_string)


@pytest.mark.parametrize("page", [495616, 409600])  # a record overruns into it / it starts at a record
def test_the_verb_starts_where_the_lint_lets_it(tmp_path, monkeypatch, capsys, page):
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    src, dst = tmp_path / "in.fxt", tmp_path / "out.fxt"
    case = _zeroed(data, page)
    src.write_bytes(case)
    starts: list = []
    real = _repair_walk.walk_repair

    def seen(r, module, out_file=None, resume=None, rest=None):
        starts.append(resume)
        return real(r, module, out_file, resume, rest)

    monkeypatch.setattr(_repair, "walk_repair", seen)
    assert main(["repair", str(src), "-o", str(dst), "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert starts and starts[0] is not None and page - 64 < starts[0].offset <= page
    assert dst.read_bytes() == _run(case)[0]
    # the counts are the lint's on IN; what repair did past where the lint stopped is apart
    lint = fxtlint.lint_bytes(case)
    assert {t["code"]: t["found"] for t in doc["input_lint"] if t["found"]} == lint.counts
    stop = next(d.offset for d in lint.diagnostics if d.code == "FR001")
    assert doc["input_lint_stop"] == stop
    past: dict = {}
    for c in doc["changes"] + doc["notes"]:
        if c["code"] and c["offset"] > stop:
            past.setdefault(c["code"], {}).setdefault(c["action"], 0)
            past[c["code"]][c["action"]] += 1
    assert past  # (this page: a record after it is cut, ST001)
    assert {t["code"]: t["past_lint_stop"] for t in doc["input_lint"] if t["past_lint_stop"]} == past
    assert all(t["found"] == 0 for t in doc["input_lint"] if t["code"] in past and t["code"] != "FR001")


def test_the_text_says_where_the_lint_stopped_and_marks_what_is_past_it(tmp_path, capsys):
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    src = tmp_path / "in.fxt"
    src.write_bytes(_zeroed(data, (len(data) // 2) & ~4095))
    assert main(["repair", str(src), "-o", str(tmp_path / "out.fxt")]) == 0
    out = capsys.readouterr().out
    assert "ST001 0 (dropped 1; past the lint's stop: dropped 1)" in out
    assert "FR001 1 (dropped 1);" in out
    assert f"{src}:0x79018: the lint stops framing here" in out


def test_a_trace_the_lint_reads_to_its_end_has_no_stop(tmp_path, capsys):
    src = REPO / "corpus" / "golden" / "ST002-padding-not-zero.fxt"
    assert main(["repair", str(src), "-o", str(tmp_path / "out.fxt"), "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["input_lint_stop"] is None
    assert all(t["past_lint_stop"] == {} for t in doc["input_lint"]) and doc["changes"]


def test_a_file_changed_after_its_lint_is_not_resumed(tmp_path, monkeypatch, capsys):
    """Repair takes over the lint's tables: the file must still be the one the lint read (exit 2)."""
    import os

    from fxtlint.cli import _rewrite_io
    from fxtlint.cli import repair as verb

    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    src = tmp_path / "in.fxt"
    src.write_bytes(_zeroed(data, (len(data) // 2) & ~4095))
    real = _rewrite_io.lint_regular_file

    def touched(path, progress=None, **kw):
        got = real(path, progress, **kw)
        st = os.stat(path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
        return got

    monkeypatch.setattr(verb, "lint_regular_file", touched)
    assert main(["repair", str(src), "-o", str(tmp_path / "out.fxt")]) == 2
    assert "not the file the lint read" in capsys.readouterr().err
    assert not (tmp_path / "out.fxt").exists()
