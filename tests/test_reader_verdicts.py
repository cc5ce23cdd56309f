"""The reader verdicts (fxtlint/reader_suite/_reader_verdicts.py): every trace rule has one, every
citation is the spec's own text, and the canonical decoding follows them."""

from __future__ import annotations

import re

import pytest

from conftest import SPEC_DIR
from fxtlint import build as B
from fxtlint.reader_suite._canonical import decode
from fxtlint.reader_suite._reader_verdicts import ACCEPT, EITHER, REASONS, REJECT, RULES, SKIP, reason_for, strictest
from fxtlint.rules import REGISTRY, all_rules


def _norm(text: str) -> str:
    """Spec text without whitespace and Markdown emphasis (the v1 text joins words at
    line ends and marks field names with ** and _)."""
    return re.sub(r"[\s*_`]", "", text)


def test_every_trace_rule_has_a_reader_verdict():
    trace_rules = {r.code for r in all_rules() if r.bad is None or r.bad.input_format == "trace"}
    assert set(RULES) == trace_rules
    assert set(RULES.values()) <= set(REASONS)


def test_every_reason_is_used_and_quotes_the_spec():
    en = _norm((SPEC_DIR / "trace-format.v1.en.md").read_text("utf-8"))
    zh = _norm((SPEC_DIR / "trace-format.current.zh.txt").read_text("utf-8"))
    used = set(RULES.values()) | {"overrun"}
    for r in REASONS.values():
        assert r.key in used, r.key
        assert r.verdict in (ACCEPT, EITHER, SKIP, REJECT)
        for fragment in r.words.split("[...]"):
            assert _norm(fragment) in en, (r.key, fragment)
        for fragment in r.zh.split("[...]"):
            assert _norm(fragment) in zh, (r.key, fragment)


def test_a_fault_and_its_twin_get_different_verdicts_from_the_spec():
    # a set reserved bit: the writer must not, the reader must read on
    assert REGISTRY["RB001"].severity.label == "error" and reason_for("RB001").verdict == ACCEPT
    # words after an argument: a writer error that a reader may read through ...
    assert reason_for("ST005", {"exact": True}).verdict == EITHER
    # ... but content longer than the argument's size is an overrun
    assert reason_for("ST005", {"exact": False}).verdict == SKIP
    assert reason_for("UN003").verdict == reason_for("UN001").verdict == ACCEPT
    assert strictest([ACCEPT, REJECT, EITHER]) == REJECT and strictest([]) == ACCEPT



def test_a_provider_section_without_its_info_is_a_note_citing_the_spec():
    """Issue 17 item 7: the spec requires no Provider Info before a section, so RF005 is an
    info (it does not fail the default gate), and every sentence its docs quote is the spec's."""
    import fxtlint

    rule = REGISTRY["RF005"]
    assert rule.severity.label == "info" and reason_for("RF005").verdict == ACCEPT
    en = _norm((SPEC_DIR / "trace-format.v1.en.md").read_text("utf-8"))
    quotes = re.findall(r'"([^"]+)"', rule.spec + rule.why)
    assert len(quotes) >= 2 and all(_norm(q) in en for q in quotes), quotes
    bad = fxtlint.lint_bytes(rule.bad.build())
    assert bad.counts == {"RF005": 1} and bad.severity_counts["error"] == bad.severity_counts["warning"] == 0
    assert fxtlint.lint_bytes(rule.good.build()).counts == {}

_HEAD = [B.magic(), B.string(1, "c"), B.thread(1, 2, 3)]


def _reserved_bit_event() -> bytes:
    """A thread record with reserved bit 40 set, then an event on that thread."""
    rec = B.archive(B.thread(1, 2, 3))
    return (B.archive(B.magic(), B.string(1, "c")) + B.patch_field(rec, B.WORD, B.read_field(rec, B.WORD) | 1 << 40)
            + B.archive(B.event("instant", 5, category=1, name=1)))


@pytest.mark.parametrize("data, accepted, strict_accepted", [
    (B.archive(*_HEAD, B.event("instant", 5, category=1, name=1)), True, True),
    (_reserved_bit_event(), True, False),                      # RB001: accept
    (B.archive(*_HEAD, B.event("instant", 5, category=1, name=7)), False, False),  # RF001: reject
])
def test_decode_rejects_only_what_a_reader_must(data, accepted, strict_accepted):
    assert decode(data).accepted is accepted
    assert decode(data, strict=True).accepted is strict_accepted


def test_a_tolerated_fault_is_a_note_and_the_record_decodes():
    d = decode(_reserved_bit_event())
    assert [(r["timestamp"], r["thread"]) for r in d.records] == [("5", {"process_koid": "2", "thread_koid": "3"})]
    assert not d.errors
    assert len(d.notes) == 1 and d.notes[0].startswith("RB001 at 0x")
    strict = decode(_reserved_bit_event(), strict=True)
    assert strict.records == [] and strict.errors[0].startswith("RB001") and not strict.notes


@pytest.mark.parametrize("more", [0, 1000], ids=["small", "large"])
def test_decode_command_notes_a_tolerated_fault_and_strict_rejects_it(tmp_path, capsys, more):
    """`fxtlint decode` streams a small and a large file with the same verdicts: a reserved
    bit is a note on stderr (exit 0, every record printed); --strict rejects it."""
    import json

    from fxtlint.cli import main
    data = _reserved_bit_event() + B.archive(*[B.event("instant", 6 + i, category=1, name=1) for i in range(more)])
    path = tmp_path / "reserved.fxt"
    path.write_bytes(data)
    assert main(["decode", str(path)]) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)["records"]) == 1 + more
    assert [line.split(": ", 2)[1] for line in err.splitlines()] == ["note"]
    assert "note: RB001 at 0x" in err
    assert main(["decode", "--strict", str(path)]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out) == {"records": []}
    assert err.splitlines() and all(": RB001 at 0x" in line and "note:" not in line for line in err.splitlines())
