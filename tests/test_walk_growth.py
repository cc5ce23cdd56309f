"""The native walk's findings on bytes that arrive after its buffer grew.

A stream (stdin, ``StreamLinter``) and a file over ``_file.WHOLE`` (``FileSource``, read a
chunk at a time) are held in a ``StreamBuffer`` whose map is replaced by a larger one as
bytes come (``_grow``, the old map closed). The walk's findings read the record again from
the buffer in force. They read the first map: a file's lint raised ``ValueError: mmap
closed or invalid`` (a 100 MB trace with a zeroed page in its middle, ``fxtlint check``
and ``repair``'s first lint), and a stream's lint stopped short without a word (the stale
map, still growing, ended before the record: ``NeedMore``, taken as bytes still to come),
its report holding two thirds of this trace's records."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import DRAWN_MUTATIONS
from fxtlint import build as B
from fxtlint.engine import _file, _native, _stream_buffer
from fxtlint.render._render_json import dumps, render
from fxtlint.strategies import archives, mutated_archives, mutated_log_streams
from noisy_traces import noisy_archives

pytestmark = pytest.mark.skipif(_native.nwalk() is None, reason="the native walk is not built here")

_SIZE = fxtlint.spec._tables.tables().field(role="size")


def _trace() -> tuple[bytes, list[int]]:
    """About 3 MiB: clean instants, then records the walk hands to the reference's layout
    steps (an argument list past the record's declared size; a record whose size is one
    word short), each after the buffer's first map (1 MiB) was outgrown."""
    head = B.archive(B.magic(), B.string(1, "cat"), B.string(2, "name"), B.thread(1, 7, 8))
    filler = B.archive(B.event("instant", 10, thread=1, category=1, name=2)) * 40_000  # 960,000 bytes
    short = B.archive(B.event("instant", 11, thread=1, category=1, name=2, args=[B.arg("int64", 2, 3)]))
    data, at = bytearray(head), []
    for _ in range(3):
        data += filler
        at.append(len(data))
        data += B.patch_field(short, _SIZE, len(short) // 8 - 1)
    return bytes(data), at


def _json(report) -> str:
    return dumps(render([report], version="-"))


def test_findings_after_the_buffer_grew_are_read_from_the_buffer_in_force(tmp_path, monkeypatch):
    data, at = _trace()
    # the same bytes walked whole (the walk's equivalence with the reference on whole bytes
    # is test_nwalk's; the property below compares streams with the reference)
    whole = fxtlint.lint_buffer(data, engine="walk", path="-")
    want = _json(whole)
    assert {d.offset for d in whole.diagnostics} >= set(at)  # each short record found, the last two past 2 MiB
    # a stream, fed 256 KiB at a time
    linter = fxtlint.StreamLinter(engine="walk")
    for i in range(0, len(data), 1 << 18):
        linter.feed(data[i:i + (1 << 18)])
    linter.close()
    assert linter.feeder.walk._native is not None
    assert _json(linter.report) == want
    # a file read 256 KiB at a time
    path = tmp_path / "t.fxt"
    path.write_bytes(data)
    monkeypatch.setattr(_file, "CHUNK", 1 << 18)
    with open(path, "rb") as fh:
        got = fxtlint.lint_buffer(_file.FileSource(fh, "-", len(data)), engine="walk", path="-")
    assert _json(got) == want


_DRAWN = st.one_of(
    noisy_archives().map(lambda d: (d, "auto")),
    mutated_archives(codes=DRAWN_MUTATIONS).map(lambda m: (m[0], "auto")),
    archives(max_size=10, byte_order="big").map(lambda d: (d, "auto")),
    mutated_log_streams().map(lambda m: (m[0], "log")),
)


@settings(deadline=None)
@given(_DRAWN, st.lists(st.integers(0, 3000), max_size=6), st.sampled_from([1, 8, 64]),
       st.sampled_from(["walk", "reference"]))
def test_a_stream_whose_buffer_grows_at_every_chunk_lints_as_the_reference_lints_it_whole(case, cuts, step, engine):
    """Drawn traces fed in drawn chunks to a stream whose buffer starts at 64 bytes (not
    1 MiB), so that it grows again and again while the walk runs (on either engine): every
    finding after a growth is read from the map in force."""
    data, fmt = case
    cuts = sorted({min(c, len(data)) for c in cuts})
    want = _json(fxtlint.lint_buffer(data, engine="reference", input_format=fmt, path="-"))
    first, _stream_buffer._FIRST = _stream_buffer._FIRST, 64
    try:
        linter = fxtlint.StreamLinter(engine=engine, input_format=fmt, step=step)
        for a, b in zip([0, *cuts], [*cuts, len(data)]):
            linter.feed(data[a:b])
        linter.close()
    finally:
        _stream_buffer._FIRST = first
    assert _json(linter.report) == want
