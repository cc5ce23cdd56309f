"""``fxtlint report`` and ``fxtlint export`` from the command line, and the HTML report
as headless Chromium renders it."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

import external_tools
import writer_traces
from conftest import CORPUS_REAL, REPO
from fxtlint.cli import main
from fxtlint.render import _report_words as W
from fxtlint.render._report_markdown import MARK
from fxtlint.render._report_words import rules_summary
from tef_validator import validate

SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
GOLDEN = sorted(p for p in (REPO / "corpus" / "golden").iterdir() if p.suffix in (".fxt", ".log"))
REAL = sorted(CORPUS_REAL.glob("*.fxt"))  # the copies in tests/data: never empty, never skipped
SCHEMA = json.loads((REPO / "docs" / "report.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)  # (checked once: test_conformance_report)


def _three_formats(path: Path, out: Path) -> dict:
    status = main(["report", str(path), "-o", str(out)])
    assert status in (0, 1)
    doc = json.loads((out / "report.json").read_text())
    VALIDATOR.validate(doc)
    md = (out / "report.md").read_text()
    page = (out / "report.html").read_text()
    standing = W.overall(doc)
    verdict = W.STANDING_LABEL[standing]
    assert f"**Verdict: {MARK[W.STANDING_CLASS[standing]]} {verdict}**" in md
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
    assert cap.out.count("<details") == 1  # one problem, not a cascade
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
    assert status == 0 and t["expect"]["matches"] and t["expect"]["mode"] == "subset"  # the others may be there
    status = main(["report", str(SAMPLE), "--expect", str(ev), "--expect-mode", "exact", "--format", "json"])
    t = json.loads(capsys.readouterr().out)["traces"][0]
    assert status == 1 and t["verdict"]["conforming"]
    assert t["expect"]["extra_count"] == 10 and t["expect"]["missing_count"] == 0  # the 10 other events
    ev.write_text(json.dumps([{"ph": "i", "name": "vsync", "pid": 1000, "tid": 1001, "ts": 0.5}]))
    assert main(["report", str(SAMPLE), "--expect", str(ev)]) == 1
    assert "ts: expected 0.5, got 0.16" in capsys.readouterr().out
    exported = tmp_path / "all.json"
    assert main(["export", str(SAMPLE), "-o", str(exported)]) == 0
    ev.write_text(json.dumps(json.loads(exported.read_text())["traceEvents"]))
    assert main(["report", str(SAMPLE), "--expect", str(ev)]) == 0


def test_expect_with_a_misspelled_field_is_a_usage_error_naming_it(tmp_path, capsys):
    """Issue 25, item 6: "nme" is not read as an event with no name."""
    ev = tmp_path / "events.json"
    ev.write_text(json.dumps([{"ph": "i", "nme": "vsync"}]))
    assert main(["report", str(SAMPLE), "--expect", str(ev)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == (
        f'fxtlint: error: {ev}: event 0 has field "nme" (did you mean "name"?): an expected event gives only '
        "fields the exporter writes (ph, name, cat, ts, dur, pid, tid, id, s, bp, args)\n")
    ev.write_text(json.dumps([{"ph": "i", "name": "vsync"}]))  # the twin, spelled right
    assert main(["report", str(SAMPLE), "--expect", str(ev)]) == 0


def test_events_that_differ_are_said_so_in_the_verdict_and_the_files_table(tmp_path, capsys):
    """Issue 25, item 6: a conforming trace whose events differ is not "not conforming:
    1 of 1 trace conforming", and its first-problem cell says what differs."""
    ev = tmp_path / "events.json"
    ev.write_text(json.dumps([{"ph": "B", "name": "nosuch"}]))
    out = tmp_path / "out"
    status = main(["report", str(SAMPLE), str(SAMPLE), "--expect", str(ev), "-o", str(out),
                   "--format", "markdown", "--format", "html"])
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    assert status == 1
    assert "**Verdict: ❌ conforming; events differ from EVENTS.json**: 2 of 2 traces conforming" in md
    assert "not conforming" not in md and ">not conforming<" not in page
    rows = [line for line in md.splitlines() if line.startswith("| `")]
    assert rows and all(r.endswith("| EVENTS.json: subset match, ts in us: 1 expected, 11 written; 1 missing, "
                                   "0 differing |") for r in rows)
    assert "<code>EVENTS.json</code> subset match" in page


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
BROWSER_TRACE = CORPUS_REAL / "jane-tracing-richiesams.fxt"  # a real writer's trace (tests/data)


def _chrome(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    return subprocess.run([external_tools.chromium(), *flags, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.usefixtures("chromium")  # skips saying why when it is missing (tests/external_tools.py)
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
    assert rules_summary(t["rules"]) in dom  # the script's count agrees with the document's
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


# --------------------------------------------------------------------------- no Python reprs
# What Python prints for a value, not what a person should read: None, True, "1 entries",
# a dict or bytes repr. Hex views (their ASCII column shows raw bytes) are left out of the scan.
REPR = re.compile(r"\b(None|True|False)\b|\b1 (entries|records|bytes|errors|warnings|infos|times|words|traces|files"
                  r"|ticks|rules|notes)\b|\{'|\['|\bb'|\bb\"|object at 0x")
REPR_CASES = ["MG001-magic-missing.fxt", "PR001-duration-end-without-begin.fxt", "RB001-reserved-bits-set.fxt",
              "RF001-string-ref-unregistered.fxt", "SL002-log-severity-invalid.log",
              "ST001-size-one-word-too-small-in-a-writer-trace.fxt"]


def _strings(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)
    elif isinstance(value, str):
        yield value


def _without_hex(text: str) -> str:
    text = re.sub(r"<pre>.*?</pre>", "", text, flags=re.S)
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return "\n".join(line for line in text.splitlines() if not re.match(r"\s*[0-9a-f]{8}  |\s*\^", line))


def test_the_repr_scan_can_fail():
    assert REPR.search("Providers: None") and REPR.search("thread table 1 entries") and REPR.search("{'ph': 'B'}")
    assert not REPR.search("providers: none; thread table: 1 entry; 2 entries; nothing")


@pytest.mark.parametrize(("rates", "said"), [([1], "at 1 tick/s"), ([1000], "at 1000 ticks/s"),
                                             ([1, 1000], "at 1, 1000 ticks/s"), ([], "")])
def test_a_time_span_says_tick_for_one_tick_per_second(rates, said):
    span = W.span_text({"span_ticks": 1, "first_ticks": 5, "last_ticks": 6, "span_seconds": None,
                        "ticks_per_second": rates})
    assert span == "1 tick (5 to 6)" + (f" {said}" if said else "")


def test_no_python_reprs_in_any_format(tmp_path, capsys):
    """Markdown, HTML and JSON reports (one file, a folder, a non-FXT file, --expect with an
    absent arg) and the terminal output of check."""
    folder = tmp_path / "writer"
    folder.mkdir()
    for name in REPR_CASES:
        shutil.copy(REPO / "corpus" / "golden" / name, folder / name)
    (folder / "picture.fxt").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(100))
    events = tmp_path / "events.json"
    events.write_text(json.dumps([{"ph": "E", "name": "name", "args": {"gone": None, "flag": True}},
                                  {"ph": "b", "name": "never"}]))
    runs = [[str(folder / REPR_CASES[0])], [str(folder)],
            [str(REPO / "corpus" / "golden" / "PR001-duration-end-without-begin.fxt"), "--expect", str(events),
             "--expect-mode", "exact"]]
    texts = []
    for i, argv in enumerate(runs):
        out = tmp_path / f"out{i}"
        assert main(["report", *argv, "-o", str(out)]) in (0, 1)
        doc = json.loads((out / "report.json").read_text())
        texts += [(f"{i}.json", "\n".join(_strings(doc))), (f"{i}.md", (out / "report.md").read_text()),
                  (f"{i}.html", (out / "report.html").read_text())]
    assert any("differs" in t or "missing" in t for _, t in texts)
    capsys.readouterr()
    assert main(["check", "--no-hex", str(folder), *[str(p) for p in (folder / "picture.fxt",)]]) == 1
    texts.append(("terminal", capsys.readouterr().out))
    for where, text in texts:
        found = REPR.search(_without_hex(text))
        assert found is None, (where, _without_hex(text)[max(0, found.start() - 80): found.end() + 40])


# --------------------------------------------------------------------------- what failed, first
# Appended to a report page: where Chromium laid out the first problem (message and hex
# view) of the most urgent trace, and whether the clean files' rows show.
PROBE = """<script>(function () {
  var sec = document.querySelector('section.trace');
  var msg = sec && sec.querySelector('details.problem li.message');
  var r = msg ? msg.getBoundingClientRect() : null;
  var calm = document.querySelector('#files details table tbody tr');
  document.body.setAttribute('data-probe', JSON.stringify({
    standing: sec && sec.getAttribute('data-standing'), text: msg && msg.textContent,
    top: r && r.top, bottom: r && r.bottom, height: r && r.height,
    width: window.innerWidth, screen: window.innerHeight,
    calm_rows_shown: calm ? calm.checkVisibility() : null}));
})();</script>"""


@pytest.mark.usefixtures("chromium")
def test_a_warnings_only_headline_as_chromium_renders_it(tmp_path):
    # what a person sees above a trace shown with warnings: the same words, in amber
    trace = REPO / "corpus" / "golden" / "PR001-duration-end-without-begin.fxt"
    assert main(["report", str(trace), "-o", str(tmp_path), "--format", "html"]) == 0
    page = tmp_path / "report.html"
    colour = page.with_name("colour.html")
    colour.write_text(page.read_text().replace("</body>", "<script>document.body.dataset.colour = "
                                               "getComputedStyle(document.getElementById('verdict')).color</script></body>"))
    dom = _chrome(tmp_path, "--dump-dom", colour.as_uri()).stdout
    assert f"<title>fxtlint report: {trace}: conforming, with warnings</title>" in dom
    assert '<p id="verdict" class="verdict warn">conforming, with warnings</p>' in dom
    found = re.search(r'data-colour="([^"]*)"', dom)
    assert found and found.group(1) == "rgb(125, 78, 0)", dom[:500]  # .warn's #7d4e00, not .ok's green


def _probe(tmp_path: Path, page: Path) -> dict:
    probed = page.with_name("probed.html")
    probed.write_text(page.read_text().replace("</body>", PROBE + "</body>"))
    dom = _chrome(tmp_path, "--window-size=1280,2000", "--dump-dom", probed.as_uri()).stdout
    found = re.search(r'data-probe="([^"]*)"', dom)
    assert found, dom[:2000]
    return json.loads(html.unescape(found.group(1)))


def _folder_of_clean_writers_and_one_failure(folder: Path) -> Path:
    """The issue's directory: many conforming traces, and one that fails, named to sort last."""
    from fxtlint.rules import all_rules

    folder.mkdir()
    for r in all_rules():
        if r.good.input_format == "trace":
            (folder / f"{r.code}-good.fxt").write_bytes(r.good.build())
    failing = folder / "zz-writer-size-short.fxt"
    golden = REPO / "corpus" / "golden"
    failing.write_bytes((golden / "ST001-size-one-word-too-small-in-a-writer-trace.fxt").read_bytes())
    return failing


@pytest.mark.usefixtures("chromium")  # skips saying why when it is missing (tests/external_tools.py)
@pytest.mark.parametrize("layout", ["folder", "one-file"])
def test_the_first_problem_is_on_the_first_screen(tmp_path, layout):
    if layout == "folder":
        failing = _folder_of_clean_writers_and_one_failure(tmp_path / "writer")
        paths = [str(tmp_path / "writer")]
    else:
        failing = REPO / "corpus" / "golden" / "ST001-size-one-word-too-small-in-a-writer-trace.fxt"
        paths = [str(failing)]
    out = tmp_path / "out"
    assert main(["report", *paths, "-o", str(out), "--format", "html", "--format", "json"]) == 1
    doc = json.loads((out / "report.json").read_text())
    assert len(doc["traces"]) > (40 if layout == "folder" else 0)
    box = _probe(tmp_path, out / "report.html")
    # a 1280x2000 window: its viewport is what headless Chromium leaves of it for the page
    assert box["width"] == 1280 and 1800 <= box["screen"] <= 2000, box
    assert box["standing"] == "not_conforming"
    assert "the size is probably 1 word too small" in box["text"] and "00000" in box["text"]  # message and hex
    assert 0 <= box["top"] and box["height"] > 0 and box["bottom"] <= box["screen"], box
    if layout == "folder":
        assert box["calm_rows_shown"] is False  # the conforming files are folded away


@pytest.mark.usefixtures("chromium")  # skips saying why when it is missing (tests/external_tools.py)
def test_a_conforming_report_has_no_problem_to_lead_with(tmp_path):
    out = tmp_path / "out"
    assert main(["report", str(SAMPLE), "-o", str(out), "--format", "html"]) == 0
    box = _probe(tmp_path, out / "report.html")
    assert box["standing"] in ("conforming", "infos") and box["text"] is None


def test_a_rule_tripped_by_warnings_only_is_shown_as_a_warning(tmp_path):
    out = tmp_path / "out"
    trace = REPO / "corpus" / "golden" / "PR001-duration-end-without-begin.fxt"
    assert main(["report", str(trace), "-o", str(out)]) == 0
    page, md = (out / "report.html").read_text(), (out / "report.md").read_text()
    assert 'data-result="warning"' in page and 'data-result="failed"' not in page
    assert '<span class="verdict warn">conforming, with warnings</span>' in page
    # the headline too: not a green "conforming" above a trace shown with warnings
    assert '<p id="verdict" class="verdict warn">conforming, with warnings</p>' in page
    assert f"<title>fxtlint report: {trace}: conforming, with warnings</title>" in page
    assert "**Verdict: ⚠️ conforming, with warnings**" in md and "✅ conforming" not in md
    assert "| PR001 duration-end-without-begin | ⚠️ warning | 1 | 0x58 |" in md and "❌" not in md
    assert json.loads((out / "report.json").read_text())["traces"][0]["rules"][0]["result"] in ("failed", "passed",
                                                                                                 "not_exercised")


def test_the_cause_leads_the_files_table_and_opens_first(tmp_path):
    """Issue 25, item 2: the string whose padding was left out (ST002) is the first
    problem, before the symptoms it causes (FR001, FR003), in every format; the rules
    reading never reached are "not checked", not "passed"."""
    folder = tmp_path / "writer"
    folder.mkdir()
    (folder / "a-unpadded.fxt").write_bytes(writer_traces.with_padding_left_out())
    shutil.copy(SAMPLE, folder / "b-sample.fxt")
    out = tmp_path / "out"
    assert main(["report", str(folder), "-o", str(out), "--format", "markdown", "--format", "html"]) == 1
    md, page = (out / "report.md").read_text(), (out / "report.html").read_text()
    row = next(line for line in md.splitlines() if "a-unpadded.fxt" in line and line.startswith("|"))
    assert row.split(" | ")[-1].startswith("ST002: string: the padding after the value is not zero; the padding "
                                           "is missing")
    assert md.index("<details open><summary><b>ST002</b>") < md.index("<b>FR001</b>") < md.index("<b>FR003</b>")
    assert "Reading stopped at record 7 (0x68)" in md and "- not checked: EV001, EV002" in md
    assert re.search(r"<details class=\"problem\" open><summary><code class=\"error\">ST002</code>", page)
    assert page.index(">ST002</code>") < page.index(">FR001</code>")
    assert 'data-result="not_checked"' in page and "Reading stopped at record 7 (0x68)" in page


def test_export_of_a_structured_log_stream_says_it_has_no_events(tmp_path, capsys, monkeypatch):
    """Issue 25, item 11: not a silent `"traceEvents": []` with exit 0; exit 1 as for
    anything skipped (the documented rule), from a file and from standard input."""
    import io
    import sys

    log = REPO / "corpus" / "golden" / "clean" / "ST004-log-string-over-32000.log"
    out = tmp_path / "out.json"
    assert main(["export", str(log), "-o", str(out)]) == 1
    assert json.loads(out.read_text())["traceEvents"] == []
    assert capsys.readouterr().err == (f"fxtlint: {log}: a structured-log stream has no events for the Trace "
                                       "Event Format: skipped its 1 log record (the document has no events)\n")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(log.read_bytes())))
    assert main(["export", "-"]) == 1
    assert "fxtlint: -: a structured-log stream has no events" in capsys.readouterr().err
    assert main(["export", str(SAMPLE), "-o", str(out)]) == 0  # the twin: a trace, all exported
    assert capsys.readouterr().err == ""
