"""The committed conformance suite: no drift from its generator, what it covers, fxtlint's
own reader passing every case (in this process, and a part of them through the runner),
and the committed matrix."""

from __future__ import annotations

import contextlib
import filecmp
import importlib.util
import io
import json
import re
import sys

import pytest

import external_tools
from conftest import REPO
from fxtlint.reader_suite._canonical import SHAPES
from fxtlint.reader_suite._runner import Run, grade, load_results, load_suite, passed, run_suite
from fxtlint.render._reader_matrix import matrix_html, matrix_markdown

SUITE = REPO / "corpus" / "conformance"
RESULTS = SUITE / "results"


def _generator():
    spec = importlib.util.spec_from_file_location("conformance_generate", SUITE / "generate.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


GEN = _generator()


@pytest.fixture(scope="module")
def cases():
    return GEN.all_cases()


def test_no_drift_from_the_generator(tmp_path, cases):
    (tmp_path / "README.md").write_text(f"x\n{GEN.BEGIN}\n{GEN.END}\ny\n")
    GEN.write(tmp_path, cases)
    for cat in GEN.CATEGORIES:
        ours = sorted(p.name for p in (tmp_path / cat).iterdir())
        committed = sorted(p.name for p in (SUITE / cat).iterdir())
        assert ours == committed, f"{cat}/ differs: run python corpus/conformance/generate.py"
        _, mismatch, errors = filecmp.cmpfiles(tmp_path / cat, SUITE / cat, ours, shallow=False)
        assert not mismatch and not errors, f"{cat}/ {mismatch[:5]}: run python corpus/conformance/generate.py"
    for name in ("manifest.json", "canonical.schema.json"):
        assert (tmp_path / name).read_bytes() == (SUITE / name).read_bytes(), name
    table = (tmp_path / "README.md").read_text().split(GEN.BEGIN)[1].split(GEN.END)[0]
    assert GEN.BEGIN + table + GEN.END in (SUITE / "README.md").read_text()


def test_size_and_categories(cases):
    counts = {cat: sum(c.category == cat for c in cases) for cat in GEN.CATEGORIES}
    assert sum(counts.values()) >= 150 and all(counts.values()), counts


def test_every_reader_rule_has_cases_named_after_it(cases):
    codes = {c.rule for c in cases if c.name.startswith(f"{c.rule}-")}
    assert codes >= {r.code for r in GEN.reader_rules()}
    assert all(c.rule for c in cases if c.category == "invalid")


def test_every_committed_case_sits_in_the_folder_its_verdict_says():
    """The bytes on disk, linted now: the strictest reader verdict of what they trip is
    their folder's, and the manifest says the same."""
    manifest = {(m["category"], m["name"]): m for m in json.loads((SUITE / "manifest.json").read_text())["cases"]}
    for case in load_suite(SUITE):
        verdict, reasons = GEN.verdict_of(case.path.read_bytes())
        assert verdict == GEN.VERDICT_OF[case.category], case.id
        m = manifest[(case.category, case.name)]
        assert m["expect"] == verdict and m.get("reasons", []) == list(reasons), case.id


def test_the_same_fault_gets_the_same_verdict(cases):
    """Cases with the same reasons are in folders of one verdict, and the contradictions
    the suite once had are gone."""
    verdicts: dict = {}
    for c in cases:
        verdicts.setdefault(c.reasons, set()).add(GEN.VERDICT_OF[c.category])
    assert all(len(v) == 1 for v in verdicts.values()), {k: v for k, v in verdicts.items() if len(v) > 1}
    by = {(c.category, c.name): c for c in cases}
    folder = {name: cat for cat, name in by}
    # the shape of the ST005 cases, and unknown argument types like unknown record types
    assert folder["trailing-words-argument"] == folder["ST005-argument-size-mismatch"] == "impl"
    assert folder["unknown-argument-type"] == folder["unknown-record-type-10"] == "valid"
    # a partial trailing header: must reject, whether as a rule's case or a recover case
    assert GEN.VERDICT_OF[folder["FR003-file-length-not-aligned"]] == GEN.VERDICT_OF[
        folder["truncated-partial-header"]] == "reject"
    assert folder["RB001-reserved-bits-set"] == "valid" and folder["ST002-padding-not-zero"] == "impl"


def test_every_case_cites_the_spec_in_the_readme(cases):
    """Each must-reject (and every other judged) case's row quotes the spec's words."""
    from fxtlint.reader_suite._reader_verdicts import REASONS

    readme = (SUITE / "README.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([^`]+)` \|.*$", readme, re.M)}
    for c in cases:
        if c.category in ("malformed", "invalid", "recover"):
            assert c.reasons, c.name
        for key in c.reasons:
            assert f'[{key}](#why-{key}): "{REASONS[key].words.replace("|", chr(92) + "|")}"' in rows[c.name], c.name


def test_must_reject_is_kept_for_what_no_reader_can_go_on_from(cases):
    """Issue 27 item 4: 'Unrecognized or malformed trace records can be skipped'. invalid/ and
    recover/ hold framing faults only (size 0, past the end, not FXT), each with its reason;
    a fault inside one record is malformed/ (skip or reject), the corrupt-middle cases too."""
    for c in cases:
        if c.category in ("invalid", "recover"):
            assert c.reasons and set(c.reasons) <= {"size-zero", "truncated", "not-fxt"}, (c.name, c.reasons)
        if c.rule in ("RF001", "RF002", "ST001", "ST003", "ST006", "ST007") or c.name.startswith("corrupt-middle"):
            assert c.category == "malformed", c.name
    assert {c.name for c in cases if c.category == "malformed"} >= {
        "corrupt-middle-record-size", "corrupt-middle-invalid-utf8", "corrupt-middle-unregistered-thread"}
    assert sum(c.category == "invalid" for c in cases) == 19


def test_a_malformed_cases_decoding_is_the_file_read_without_the_record(cases):
    """The .json of a malformed/ case is what a reader that skips the malformed record
    reads: the records before it (the manifest's prefix) and every one after it."""
    from fxtlint.reader_suite._canonical import decode

    mid = next(c for c in cases if c.name == "corrupt-middle-unregistered-thread")
    records = mid.expected["records"]
    assert mid.prefix == 3 and len(records) == 4 and records[-1]["timestamp"] == "300"  # the event after it
    for c in cases:
        if c.category == "malformed":
            before = decode(c.data)
            assert not before.accepted and before.records == c.expected["records"][:c.prefix], c.name


def test_every_record_kind_is_in_a_valid_case():
    kinds = set()
    for p in (SUITE / "valid").glob("*.json"):
        kinds |= {r["kind"] for r in json.loads(p.read_text())["records"]}
    assert kinds == set(SHAPES)


def test_both_byte_orders_and_every_argument_type(cases):
    valid = [c for c in cases if c.category == "valid"]
    assert any(c.data[:8] == bytes.fromhex("0016547846040010") for c in valid)
    types = set()
    for c in valid:
        for r in c.expected["records"]:
            types |= {a["type"] for a in r.get("arguments", ())}
    from fxtlint.spec._tables import tables

    assert types == {a.name for a in tables().arguments.values()}


def test_impl_cases_say_why_and_keep_a_decoding_where_the_spec_fixes_one(cases):
    impl = [c for c in cases if c.category == "impl"]
    assert all(c.reasons for c in impl)
    assert all((c.expected is None) == ("enum-value" in c.reasons) for c in impl)


def _adapter():
    spec = importlib.util.spec_from_file_location("fxtlint_reader_adapter", SUITE / "adapters" / "fxtlint_reader.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_fxtlint_passes_every_case():
    """fxtlint's adapter on every case of the suite, run in this process (its ``main``, its
    stdout and stderr caught) and graded as the runner grades a reader's run."""
    adapter = _adapter()
    cases = load_suite(SUITE)
    assert len(cases) > 200
    bad = []
    for case in cases:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = adapter.main(["fxtlint_reader.py", str(case.path)])
        result = grade(case, Run(status, out.getvalue().encode(), err.getvalue().encode()), 60)
        if result.grade != "pass":
            bad.append((case.id, result.detail))
    assert not bad, bad[:5]


@pytest.mark.slow  # a subprocess per case: about 10 s on an idle 2-core machine
def test_fxtlint_passes_the_cases_to_reject_or_recover_from_through_the_runner():
    """The adapter as a real subprocess per case, through the runner: the invalid and
    recover cases (every case, in this process: above; the malformed ones from an empty
    folder on the installed suite: .ci/install_check)."""
    argv = [sys.executable, str(SUITE / "adapters" / "fxtlint_reader.py")]
    res = run_suite(argv, SUITE, stdin=False, timeout=60, jobs=2, skip=("valid/*", "impl/*", "malformed/*"))
    ran = [c for c in res["cases"] if c["grade"] != "skip"]
    bad = [c for c in ran if c["grade"] != "pass"]
    assert not bad and passed(res), bad[:5]
    assert {c["case"].split("/")[0] for c in ran} == {"invalid", "recover"}
    assert len(res["cases"]) == len(load_suite(SUITE))


def test_the_committed_matrix_is_rendered_from_the_committed_results():
    docs = [load_results(RESULTS / "fxtlint.json"), load_results(RESULTS / "fxt-0.3.0.json")]
    assert (RESULTS / "matrix.md").read_text() == matrix_markdown(docs)
    assert (RESULTS / "matrix.html").read_text() == matrix_html(docs)
    ids = {c.id for c in load_suite(SUITE)}
    for d in docs:
        assert {c["case"] for c in d["cases"]} == ids, "results are stale: rerun the commands in results/README.md"
    assert passed(docs[0]) and not passed(docs[1])


def test_the_fxt_adapter_agrees_with_the_committed_results():
    """fxt 0.3.0 through its adapter, on one case of every (category, grade) it has."""
    external_tools.module("fxt", "fxt", "readers")
    from fxtlint.reader_suite._runner import grade, run_reader

    committed = {c["case"]: c for c in load_results(RESULTS / "fxt-0.3.0.json")["cases"]}
    picked = {}
    for case in load_suite(SUITE):
        picked.setdefault((case.category, committed[case.id]["grade"], committed[case.id]["outcome"]), case)
    argv = [sys.executable, str(SUITE / "adapters" / "fxt_reader.py")]
    for case in picked.values():
        got = grade(case, run_reader(argv, case.path, stdin=True, timeout=60), 60)
        want = committed[case.id]
        assert (got.grade, got.outcome, got.detail) == (want["grade"], want["outcome"], want["detail"]), case.id
    assert len(picked) >= 8


_INTEGER_TYPES = {"int32", "uint32", "int64", "uint64", "pointer", "koid"}


def _integers_as_one_type(doc: dict) -> dict:
    """fxt's model cannot tell integer argument types apart: compare their values only."""
    for r in doc["records"]:
        for a in r.get("arguments", ()):
            if a["type"] in _INTEGER_TYPES:
                a["type"], a["value"] = "integer", str(a["value"])
    return doc


def test_fxt_and_fxtlint_decode_a_real_trace_alike():
    """Another reader as an oracle for the canonical decoding: 34,594 records of a real
    writer's trace, equal but for what fxt's model cannot express (integer types)."""
    external_tools.module("fxt", "fxt", "readers")
    import io

    from fxt.reader import parse_records

    from conftest import CORPUS_REAL
    from fxtlint.reader_suite._canonical import decode

    path = CORPUS_REAL / "jane-tracing-richiesams.fxt"
    if not path.is_file():
        pytest.skip(f"the real trace {path} is not there (FXTLINT_SHARED points at shared/)")
    spec = importlib.util.spec_from_file_location("fxt_adapter", SUITE / "adapters" / "fxt_reader.py")
    adapter = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(adapter)
    data = path.read_bytes()
    ours = decode(data)
    theirs = adapter.canonical(parse_records(io.BytesIO(data)))
    assert theirs.pop("cannot_tell_apart") == [["int32", "uint32", "int64", "uint64", "pointer", "koid"]]
    assert ours.accepted and len(ours.records) == 34594
    assert _integers_as_one_type(theirs) == _integers_as_one_type(ours.document())


from test_cli_report import _chrome  # noqa: E402  (the same headless Chromium)


@pytest.mark.usefixtures("chromium")
def test_committed_matrix_as_chromium_parses_it(tmp_path):
    """What a reader author opens: the summary table, as the browser's parser builds it,
    holds each reader's pass counts from the committed results files."""
    dom = _chrome(tmp_path, "--dump-dom", (RESULTS / "matrix.html").as_uri()).stdout
    summary = re.search(r"<h2>Summary \(passed / graded\)</h2><table>(.*?)</table>", dom, re.S).group(1)
    rows = {cells[0]: cells[1:] for cells in (re.findall(r"<t[dh][^>]*>([^<]*)</t[dh]>", tr)
                                              for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", summary, re.S))}
    assert "<tbody>" in summary  # parsed by the browser, not echoed
    docs = [load_results(RESULTS / name) for name in ("fxtlint.json", "fxt-0.3.0.json")]
    assert rows["category"] == ["a reader", *(d["reader"]["name"] for d in docs)]
    # what a reader must read first
    assert list(rows)[1:] == ["valid", "recover", "malformed", "invalid", "impl", "total"]
    for category in ("valid", "malformed", "invalid", "recover", "impl"):
        expected = []
        for d in docs:  # graded: the cases not reported are counted apart
            cases = [c for c in d["cases"] if c["category"] == category and c["grade"] != "unreported"]
            expected.append(f"{sum(c['grade'] == 'pass' for c in cases)}/{len(cases)}")
        assert [cell.split()[0] for cell in rows[category][1:]] == expected
    totals = [f"{sum(c['grade'] == 'pass' for c in d['cases'])}/"
              f"{sum(c['grade'] != 'unreported' for c in d['cases'])}" for d in docs]
    assert [cell.split()[0] for cell in rows["total"][1:]] == totals
