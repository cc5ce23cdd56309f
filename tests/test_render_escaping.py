"""No output can be spoofed by the trace it describes (issue 24, item 4).

A trace whose strings hold backticks, ``|``, ``<img>``, ``</details><script>``, ``%``,
newlines, CR, NUL and a right-to-left override names a duration end with no begin (PR001
quotes its category and name) and a provider (the report's coverage names it); its
events are expected by an EVENTS.json of the same strings. Every output format is
rendered and read back by a parser of its own kind: the Markdown report by a CommonMark
parser with GFM tables (markdown-it-py, which rich brings), the HTML report by
``html.parser``, JSON, JSON Lines and SARIF by ``json``, JUnit by ``ElementTree``; the
structure must be the renderer's alone, and each string must read back as itself (made
visible where it is unprintable) or round-trip exactly (JSON).
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from markdown_it import MarkdownIt

from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.rules._diagnostics import visible

NAME = "x`` | <img src=x onerror=alert(2)>`</details><script>alert(1)</script>\n## forged %0A\r\x00\u202eevil`"
CAT = "`c|a&lt;t"
PROVIDER = "p`</details><script>|\n\u202e"
EVENTS = [{"ph": "E", "name": NAME, "cat": CAT, "ts": 0.01, "pid": 1, "tid": 2},
          {"ph": "i", "name": "`never|</details>\n", "ts": 5, "pid": 1, "tid": 2}]


def _trace() -> bytes:
    return B.archive(B.magic(), B.provider_info(1, PROVIDER), B.provider_section(1), B.initialization(1000),
                     B.thread(1, 1, 2), B.event("duration_end", 10, category=CAT, name=NAME, thread=1))


@pytest.fixture
def traces(tmp_path) -> dict[str, Path]:
    """Two writers (folders whose names need escaping too), a trace each, and EVENTS.json."""
    paths = {}
    for writer in ("w`|1", "w2"):
        (tmp_path / writer).mkdir()
        paths[writer] = tmp_path / writer / "evil.fxt"
        paths[writer].write_bytes(_trace())
    paths["events"] = tmp_path / "events.json"
    paths["events"].write_text(json.dumps(EVENTS))
    return paths


def _check(capsys, fmt: str, path: Path, *options: str) -> str:
    capsys.readouterr()
    # PR001 is a warning: exit 0, or 1 with --fail-on warning
    assert main(["check", "--output-format", fmt, str(path), *options]) == (1 if options else 0)
    return capsys.readouterr().out


def _pr001(diagnostics) -> dict:
    (d,) = [d for d in diagnostics if d.get("code", d.get("ruleId")) == "PR001"]
    return d


# -- the check formats ----------------------------------------------------------------


def test_json_and_json_lines_round_trip_the_strings(traces, capsys):
    path = traces["w2"]
    run = json.loads(_check(capsys, "json", path))
    d = _pr001(run["files"][0]["diagnostics"])
    assert d["details"]["name"] == NAME and d["details"]["cat"] == CAT
    assert visible(NAME) in d["message"]  # the message shows them visibly, on one line
    lines = _check(capsys, "json-lines", path).splitlines()
    d = _pr001([json.loads(line) for line in lines])
    assert d["details"]["name"] == NAME and visible(NAME) in d["message"]


def test_sarif_round_trips_the_strings(traces, capsys):
    log = json.loads(_check(capsys, "sarif", traces["w2"]))
    r = _pr001(log["runs"][0]["results"])
    assert r["properties"]["details"]["name"] == NAME
    assert visible(NAME) in r["message"]["text"] and "\n" not in r["message"]["text"]


def test_junit_parses_as_xml_with_the_strings_visible(traces, capsys):
    root = ET.fromstring(_check(capsys, "junit", traces["w2"]))
    # PR001 is a warning: below --fail-on's default it is a passing case carrying the finding
    (out,) = (case.find("system-out") for case in root.iter("testcase") if case.find("system-out") is not None)
    assert visible(NAME) in out.text
    root = ET.fromstring(_check(capsys, "junit", traces["w2"], "--fail-on", "warning"))
    (failure,) = root.iter("failure")
    assert visible(NAME) in failure.get("message") and visible(NAME) in failure.text


def test_junit_parses_for_a_path_with_control_characters(tmp_path, capsys):
    """XML 1.0 cannot hold a control character even escaped: the path is written visibly."""
    path = tmp_path / "a\x01b\x1bc.fxt"
    path.write_bytes(_trace())
    root = ET.fromstring(_check(capsys, "junit", path))
    (suite,) = root.iter("testsuite")
    assert suite.get("name") == visible(str(path))


def test_github_commands_escape_percent_cr_and_lf(traces, capsys):
    out = _check(capsys, "github", traces["w2"])
    lines = out.splitlines()
    assert all(line.startswith("::") for line in lines) and len(lines) == 2  # the annotation and the summary
    data = lines[0].split("::", 2)[2]
    assert "\r" not in out and "\x00" not in out and "\u202e" not in out
    assert re.search(r"%(?!25|0A|0D)", data) is None  # every % is an escape, none a raw one
    unescaped = data.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
    assert visible(NAME) in unescaped


def test_the_terminal_output_keeps_each_finding_on_one_line(traces, capsys):
    out = _check(capsys, "rich", traces["w2"])
    assert "\x00" not in out and "\u202e" not in out and "\r" not in out
    (line,) = [line for line in out.splitlines() if "PR001" in line]
    assert visible(NAME) in line


# -- the reports ----------------------------------------------------------------------


class _Page(HTMLParser):
    """The elements of an HTML text: tags opened and closed, the text of each ``li``."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.opened: list[str] = []
        self.closed: list[str] = []
        self.text: list[str] = []
        self.rows: list[list[int]] = []  # per table, the cells of each row

    def handle_starttag(self, tag, attrs):
        self.opened.append(tag)
        if tag == "table":
            self.rows.append([])
        elif tag == "tr":
            self.rows[-1].append(0)
        elif tag in ("td", "th"):
            self.rows[-1][-1] += 1

    def handle_endtag(self, tag):
        self.closed.append(tag)

    def handle_data(self, data):
        self.text.append(data)


def _page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    page.close()
    return page


def _reports(traces, tmp_path, *argv) -> tuple[str, str, dict]:
    out = tmp_path / "out"
    assert main(["report", *map(str, argv), "-o", str(out)]) in (0, 1)
    return ((out / "report.md").read_text(), (out / "report.html").read_text(),
            json.loads((out / "report.json").read_text()))


RUNS = {"two-writers": lambda t: [t["w`|1"].parent, t["w2"].parent],
        "expected-events": lambda t: [t["w2"], "--expect", t["events"], "--expect-mode", "exact"]}


def _shows(text: str, *strings: str) -> None:
    """Each string reads back as itself, made visible."""
    squeezed = " ".join(text.split())
    for s in strings:
        assert " ".join(visible(s).split()) in squeezed, s


@pytest.mark.parametrize("run", RUNS)
def test_the_markdown_report_keeps_its_structure(traces, tmp_path, run):
    md, _, _ = _reports(traces, tmp_path, *RUNS[run](traces))
    # the source: the report's own sections only, one block-level tag a line
    opens = [line for line in md.splitlines() if line.startswith("<details")]
    assert len(opens) == sum(1 for line in md.splitlines() if line == "</details>") and opens
    assert "\x00" not in md and "\u202e" not in md and "\r" not in md
    # as GitHub reads it: CommonMark with GFM tables, raw HTML passed through as it would be
    html = MarkdownIt("commonmark").enable("table").render(md)
    page = _page(html)
    assert "script" not in page.opened and "img" not in page.opened
    assert page.opened.count("details") == page.closed.count("details") == len(opens)
    assert not [line for line in html.splitlines() if line.startswith("<h2>forged")]  # no forged heading
    for table in page.rows:  # every row has the header's cells: no "|" split a cell
        assert table and all(cells == table[0] for cells in table), table
    _shows("".join(page.text), NAME, CAT, PROVIDER)
    if run == "expected-events":
        _shows("".join(page.text), EVENTS[1]["name"])
    else:
        _shows("".join(page.text), "w`|1")


@pytest.mark.parametrize("run", RUNS)
def test_the_html_report_keeps_its_structure(traces, tmp_path, run):
    _, page_text, _ = _reports(traces, tmp_path, *RUNS[run](traces))
    assert "\x00" not in page_text and "\u202e" not in page_text
    page = _page(page_text)
    assert page.opened.count("script") == 1  # the report's own, at the end
    assert page.opened.count("details") == page.closed.count("details") and "img" not in page.opened
    _shows("".join(page.text), NAME, CAT, PROVIDER)


def test_the_json_report_round_trips_the_strings(traces, tmp_path):
    _, _, doc = _reports(traces, tmp_path, *RUNS["expected-events"](traces))
    (trace,) = doc["traces"]
    assert [p["name"] for p in trace["coverage"]["providers"]] == [PROVIDER]
    assert trace["expect"]["missing"][-1]["name"] == EVENTS[1]["name"]
