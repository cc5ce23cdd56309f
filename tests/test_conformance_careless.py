"""The conformance suite names each bug of a careless reader (tests/careless_reader.py,
issue 34's trial reader): without its bugs it passes the cases chosen here; with each
bug alone, exactly that bug's cases stop passing, and the detail says what it did."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from conftest import REPO
from fxtlint.reader_suite._runner import run_suite

SUITE = REPO / "corpus" / "conformance"
READER = Path(__file__).resolve().parent / "careless_reader.py"
LARGE = [f"valid/large-{kind}-{words}-words-then-records" for kind in ("with-metadata", "no-metadata",
                                                                        "unknown-type", "unknown-format")
         for words in (4096, 4097, 8195)]
# each bug, the cases it must fail, and what the result must say
BUGS = {
    "sections": (["valid/provider-two-sections", "valid/provider-tables-separate"], ".provider.id: expected"),
    "last-word": (["valid/trailing-words-after-arguments"], '.counter_id: expected "1", got "0"'),
    "large12": (LARGE, ".records: expected"),
    "read-through": (["malformed/ST005-argument-size-mismatch-content-longer", "malformed/ST006-argument-size-zero"],
                     "read through the malformed record (decoded it"),
}
# damaged files it reads up to the last well-formed record, exiting 0
RECOVERED = ["recover/truncated-event-args-last-word-missing", "recover/truncated-partial-header",
             "invalid/FR003-file-length-not-aligned-provider-1"]
CONTROL = "valid/large-blob-over-4095-words"  # the last record of its file: 12-bit framing reads it right


def _suite(tmp_path: Path, ids: list[str]) -> Path:
    out = tmp_path / "suite"
    manifest = json.loads((SUITE / "manifest.json").read_text(encoding="utf-8"))
    for cid in ids:
        cat, name = cid.split("/")
        (out / cat).mkdir(parents=True, exist_ok=True)
        for ext in (".fxt", ".json"):
            if (SUITE / cat / f"{name}{ext}").is_file():
                shutil.copy(SUITE / cat / f"{name}{ext}", out / cat)
    manifest["cases"] = [c for c in manifest["cases"] if f"{c['category']}/{c['name']}" in ids]
    assert len(manifest["cases"]) == len(ids), "a case this test names is not in the suite"
    (out / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return out


def _run(tmp_path: Path, ids: list[str], *bugs: str) -> dict:
    argv = [sys.executable, str(READER)] + [a for b in bugs for a in ("--bug", b)]
    res = run_suite(argv, _suite(tmp_path, ids), timeout=60, jobs=2)
    return {c["case"]: c for c in res["cases"]}


def test_without_its_bugs_the_careless_reader_passes_these_cases(tmp_path):
    ids = [cid for cases, _ in BUGS.values() for cid in cases] + RECOVERED + [CONTROL]
    got = _run(tmp_path, ids, "none")
    assert {cid: c["grade"] for cid, c in got.items() if c["grade"] != "pass"} == {}
    # a damaged file read up to its last well-formed record, exit 0: a pass, with the warning apart
    for cid in RECOVERED:
        assert (got[cid]["outcome"], got[cid]["chose"]) == ("accepted", "accept")
        assert got[cid]["warning"].startswith("exit 0: returned the")
    assert got["malformed/ST006-argument-size-zero"]["chose"] == "skip"


@pytest.mark.parametrize("bug", list(BUGS))
def test_the_suite_names_each_bug(tmp_path, bug):
    cases, said = BUGS[bug]
    got = _run(tmp_path, [*cases, CONTROL], bug)
    assert {cid for cid, c in got.items() if c["grade"] != "pass"} == set(cases)
    for cid in cases:
        assert got[cid]["grade"] == "wrong" and said in got[cid]["detail"], (cid, got[cid]["detail"])
    if bug == "read-through":  # counted as what it did, not as skipping
        assert {got[cid]["chose"] for cid in cases} == {"read-through"}
    # the one large record over 4,095 words the suite had before is the last of its file:
    # a reader that frames it with the 12-bit size still reads it (the new cases catch it)
    assert got[CONTROL]["grade"] == "pass"


def test_a_file_with_nothing_before_its_fault_must_still_be_rejected(tmp_path):
    got = _run(tmp_path, ["invalid/MG005-not-fxt-file", "invalid/FR001-record-size-zero"])
    assert {c["grade"] for c in got.values()} == {"fail"}
    assert all("nothing to recover" in c["detail"] for c in got.values())
