"""The copies in tests/data are the shared originals, and every test input is there."""

from __future__ import annotations

import hashlib
import re

import pytest

from conftest import CORPUS_REAL, DATA, SHARED, SPEC_DIR

COPIES = sorted(p for p in DATA.rglob("*") if p.is_file() and p.parent != DATA)


def test_every_input_the_tests_read_is_in_the_repository():
    names = {p.relative_to(DATA).as_posix() for p in COPIES}
    assert {"spec/README.md", "spec/trace-format.current.zh.txt", "spec/trace-format.v1.en.md",
            "spec/sarif-schema-2.1.0.json", "corpus-real/jane-tracing-small.fxt",
            "corpus-real/jane-tracing-richiesams.fxt", "corpus-real/not-fxt-eztrace.fxt"} <= names
    assert SPEC_DIR.is_dir() and CORPUS_REAL.is_dir()


def _manifest() -> dict[str, str]:
    """tests/data/SHA256SUMS (``sha256sum`` lines, paths relative to tests/data): the
    digest of each original when it was copied (``sha256sum -c SHA256SUMS`` checks it too)."""
    lines = (DATA / "SHA256SUMS").read_text("utf-8").splitlines()
    return {path: digest for digest, path in (line.split(maxsplit=1) for line in lines if line.strip())}


def test_every_copy_is_listed_with_its_original_digest():
    assert sorted(_manifest()) == [p.relative_to(DATA).as_posix() for p in COPIES], \
        "a copy added or removed without its line in tests/data/SHA256SUMS"


@pytest.mark.parametrize("copy", COPIES, ids=lambda p: p.relative_to(DATA).as_posix())
def test_copy_is_byte_for_byte_what_was_copied(copy):
    """In any clone: a copy edited, re-encoded or given other line endings (git's
    autocrlf, an editor) no longer matches the digest its original had."""
    digest = hashlib.sha256(copy.read_bytes()).hexdigest()
    assert digest == _manifest()[copy.relative_to(DATA).as_posix()], f"{copy} was changed after it was copied"


@pytest.mark.parametrize("copy", COPIES, ids=lambda p: p.relative_to(DATA).as_posix())
def test_copy_equals_its_original(copy):
    """Where the shared originals are (../shared or $FXTLINT_SHARED): the manifest still
    describes them, so a changed original is copied again."""
    original = SHARED / copy.relative_to(DATA)
    if not SHARED.is_dir():
        pytest.skip(f"no shared folder at {SHARED}: the copy is checked against tests/data/SHA256SUMS instead")
    assert original.read_bytes() == copy.read_bytes(), f"{copy} differs from {original}: copy it again"


def test_real_traces_have_the_sizes_their_readme_gives():
    """corpus-real/README.md's table is what a reader of a verdict goes by."""
    table = (CORPUS_REAL / "README.md").read_text("utf-8")
    sizes = {m[1]: int(m[2]) for m in re.finditer(r"^\| ([\w.-]+\.fxt) \| (\d+) \|", table, re.MULTILINE)}
    assert sizes == {p.name: p.stat().st_size for p in CORPUS_REAL.glob("*.fxt")}


def test_the_real_trace_copies_are_there():
    """The tests parametrised over them would otherwise run on nothing."""
    from conftest import CORPUS_REAL

    assert {p.name for p in CORPUS_REAL.glob("*.fxt")} >= {
        "jane-tracing-richiesams.fxt", "jane-tracing-small.fxt", "not-fxt-eztrace.fxt"}
