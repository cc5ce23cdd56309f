"""``fxtlint report`` and ``fxtlint export`` from the command line, and the HTML report
as headless Chromium renders it."""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from conftest import CORPUS_REAL, REPO
from fxtlint.cli import main
from tef_validator import validate

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
REAL = sorted(CORPUS_REAL.glob("*.fxt"))  # the copies in tests/data: never empty, never skipped
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())


def _three_formats(path: Path, out: Path) -> dict:
    status = main(["report", str(path), "-o", str(out)])
    assert status in (0, 1)
    doc = json.loads((out / "report.json").read_text())
    jsonschema.validate(doc, SCHEMA, cls=jsonschema.Draft202012Validator)
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    verdict = "conforming" if doc["verdict"]["conforming"] else "not conforming"
    assert f"**Verdict: {'✅' if doc['verdict']['conforming'] else '❌'} {verdict}**" in md
    assert page.startswith("<!DOCTYPE html>") and f"<title>{html.escape(f'fxtlint report: {path}: {verdict}')}" in page
    assert status == (0 if doc["verdict"]["conforming"] else 1)
    return doc


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name)
def test_report_on_every_golden_file_writes_all_three_formats(path, tmp_path):
    doc = _three_formats(path, tmp_path)
    if path.suffix == ".fxt":  # .log files need --input-format log to be read as logs
        assert path.name[:5] in {p["code"] for p in doc["traces"][0]["problems"]}


@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name)
def test_report_on_every_real_trace_writes_all_three_formats(path, tmp_path):
    _three_formats(path, tmp_path)


def test_directories_are_writers_in_one_combined_report(tmp_path, capsys):
    for writer, names in {"alpha": ["RF001", "PR001"], "beta": ["EX001"]}.items():
        (tmp_path / writer).mkdir()
        for n in names:
            shutil.copy(next(p for p in GOLDEN if p.name.startswith(n)), tmp_path / writer)
    status = main(["report", str(tmp_path / "alpha"), str(tmp_path / "beta"), "--format", "json"])
    doc = json.loads(capsys.readouterr().out)
    assert status == 1
    assert doc["matrix"]["writers"] == ["alpha", "beta"]
    assert doc["matrix"]["conforming"] == [False, True]
    assert [t["writer"] for t in doc["traces"]] == ["alpha", "alpha", "beta"]


def test_an_unreadable_path_is_an_error_line_and_the_others_are_reported(tmp_path, capsys):
    status = main(["report", str(tmp_path / "missing.fxt"), str(SAMPLE), "--format", "json"])
    cap = capsys.readouterr()
    assert status == 2
    assert re.search(r"fxtlint: error: .*missing\.fxt: no such file or directory", cap.err)
    doc = json.loads(cap.out)
    assert [t["path"] for t in doc["traces"]] == [str(SAMPLE)]
    assert doc["failures"][0]["path"].endswith("missing.fxt")


def test_a_file_that_is_not_fxt_says_so_first_and_stops(tmp_path, capsys):
    junk = tmp_path / "other.fxt"
    junk.write_bytes(bytes(8) + b"LiTL trace" * 30 + b"x")
    status = main(["report", str(junk)])
    cap = capsys.readouterr()
    assert status == 1
    assert "not an FXT file" in cap.err.splitlines()[0]  # MG005's own message
    assert cap.out.count("<details>") == 1  # one problem, not a cascade
    assert "❌ not an FXT file" in cap.out


def test_expect_with_malformed_json_names_line_and_column(tmp_path, capsys):
    bad = tmp_path / "events.json"
    bad.write_text('[\n  {"ph": "B", name: 1}\n]')
    assert main(["report", str(SAMPLE), "--expect", str(bad)]) == 2
    assert f"{bad}:2:15: malformed JSON" in capsys.readouterr().err


def test_expect_mismatch_fails_the_report(tmp_path, capsys):
    ev = tmp_path / "events.json"
    ev.write_text(json.dumps([{"ph": "i", "name": "vsync", "pid": 1000, "tid": 1001, "ts": 0.16}]))
    status = main(["report", str(SAMPLE), "--expect", str(ev), "--format", "json"])
    t = json.loads(capsys.readouterr().out)["traces"][0]
    assert status == 1 and t["verdict"]["conforming"]
    assert t["expect"]["extra_count"] == 10 and t["expect"]["missing_count"] == 0  # the 10 other events
    exported = tmp_path / "all.json"
    assert main(["export", str(SAMPLE), "-o", str(exported)]) == 0
    ev.write_text(json.dumps(json.loads(exported.read_text())["traceEvents"]))
    assert main(["report", str(SAMPLE), "--expect", str(ev)]) == 0


def test_several_formats_to_stdout_is_a_usage_error(capsys):
    assert main(["report", str(SAMPLE), "--format", "json", "--format", "html"]) == 2
    assert "need -o DIR" in capsys.readouterr().err


def test_each_subcommand_has_help(capsys):
    for verb in ("report", "export"):
        assert main([verb, "--help"]) == 0
        assert f"usage: fxtlint {verb}" in capsys.readouterr().out


def test_export_writes_trace_event_json_and_says_what_it_skipped(tmp_path, capsys):
    out = tmp_path / "sample.json"
    assert main(["export", str(SAMPLE), "-o", str(out)]) == 0
    assert validate(json.loads(out.read_text())) == []
    broken = tmp_path / "broken.fxt"
    broken.write_bytes(SAMPLE.read_bytes() + bytes(8))
    assert main(["export", str(broken)]) == 1
    cap = capsys.readouterr()
    assert "the reader stopped at offset" in cap.err
    assert validate(json.loads(cap.out)) == []
    assert main(["export", str(tmp_path / "nope.fxt")]) == 2
    assert main(["export", str(REPO / "corpus" / "golden" / "FR001-record-size-zero.fxt")]) == 1


# --------------------------------------------------------------------------- a real browser
def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


CHROMIUM = _chromium()
BROWSER_TRACE = CORPUS_REAL / "jane-tracing-richiesams.fxt"  # a real writer's trace (tests/data)


def _chrome(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    return subprocess.run([CHROMIUM, *flags, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium binary found (chromium, chromium-browser, google-chrome)")
def test_html_report_as_chromium_renders_it(tmp_path):
    assert main(["report", str(BROWSER_TRACE), "-o", str(tmp_path), "--format", "html", "--format", "json"]) == 0
    doc = json.loads((tmp_path / "report.json").read_text())
    url = (tmp_path / "report.html").as_uri()
    dom = _chrome(tmp_path, "--dump-dom", url).stdout
    # what a person sees, from the page after its script ran
    assert f"<title>fxtlint report: {BROWSER_TRACE}: conforming</title>" in dom
    assert re.search(r'<p id="verdict" class="verdict ok">conforming</p>', dom)
    assert 'data-rendered="yes"' in dom
    t = doc["traces"][0]
    used = sum(1 for r in t["coverage"]["record_kinds"] if r["used"])
    total = len(t["coverage"]["record_kinds"])
    assert f"{used} of {total} record kinds used" in dom  # computed by the page's script
    results = [r["result"] for r in t["rules"]]
    assert (f"{results.count('failed')} failed, {results.count('passed')} passed, "
            f"{results.count('not_exercised')} not exercised of {len(results)} rules") in dom
    # the coverage table, sorted by the script: most records first, unused kinds last
    table = re.search(r'<table class="sortable coverage".*?</table>', dom, re.S).group(0)
    rows = re.findall(r'<tr class="(used|unused)"><td>([^<]+)</td><td class="num" data-value="(\d+)"', table)
    assert len(rows) == total
    counts = [int(n) for _, _, n in rows]
    assert counts == sorted(counts, reverse=True)
    top = max(t["coverage"]["record_kinds"], key=lambda r: r["records"])
    assert rows[0][1] == top["kind"] and rows[-1][0] == "unused"
    assert 'aria-sort="descending"' in table
    shot = tmp_path / "report.png"
    _chrome(tmp_path, f"--screenshot={shot}", "--window-size=1200,1600", url)
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_html_report_is_self_contained(tmp_path):
    main(["report", str(SAMPLE), "-o", str(tmp_path), "--format", "html"])
    page = (tmp_path / "report.html").read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "<link" not in page and "@import" not in page and "url(" not in page
    assert "<script>" in page and "<script src" not in page
    assert page.count("<details") >= 1 and "default-src 'none'" in page
