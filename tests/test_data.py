"""The copies in tests/data are the shared originals, and every test input is there."""

from __future__ import annotations

import pytest

from conftest import CORPUS_REAL, DATA, SHARED, SPEC_DIR

COPIES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.parent != DATA)


def test_every_input_the_tests_read_is_in_the_repository():
    names = {p.relative_to(DATA).as_posix() for p in COPIES}
    assert {"spec/README.md", "spec/trace-format.current.zh.txt", "spec/trace-format.v1.en.md",
            "spec/sarif-schema-2.1.0.json", "corpus-real/jane-tracing-small.fxt",
            "corpus-real/jane-tracing-richiesams.fxt", "corpus-real/not-fxt-eztrace.fxt"} <= names
    assert SPEC_DIR.is_dir() and CORPUS_REAL.is_dir()


@pytest.mark.parametrize("copy", COPIES, ids=lambda p: p.relative_to(DATA).as_posix())
def test_copy_equals_its_original(copy):
    original = SHARED / copy.relative_to(DATA)
    if not SHARED.is_dir():
        pytest.skip(f"no shared folder at {SHARED} to compare with (the copy is what the tests use)")
    assert original.read_bytes() == copy.read_bytes(), f"{copy} differs from {original}: copy it again"


def test_the_real_trace_copies_are_there():
    """The tests parametrised over them would otherwise run on nothing."""
    from conftest import CORPUS_REAL

    assert {p.name for p in CORPUS_REAL.glob("*.fxt")} >= {
        "jane-tracing-richiesams.fxt", "jane-tracing-small.fxt", "not-fxt-eztrace.fxt"}
