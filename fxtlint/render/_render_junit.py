"""The JUnit XML renderer, for CI systems that show test reports (GitLab, Jenkins).

One ``<testsuite>`` per file; one failed ``<testcase>`` per diagnostic (its code and
location as the name, its severity as the failure type), or a single passing
``<testcase>`` for a clean file; a file that could not be read is an ``<error>``.
"""

from __future__ import annotations

from collections.abc import Sequence
from xml.etree import ElementTree as ET

from ..engine._result import FileReport
from ..rules._diagnostics import visible


def render(reports: Sequence[FileReport], *, failures: Sequence[tuple[str, str]] = ()) -> str:
    # XML 1.0 cannot hold most control characters, even escaped: a path or a message (the
    # diagnostics' are made visible already) with one is written as visible() shows it
    root = ET.Element("testsuites", name="fxtlint")
    n_tests = n_fail = 0
    for r in reports:
        cases = max(1, len(r.diagnostics))
        path = visible(r.path)
        suite = ET.SubElement(root, "testsuite", name=path, tests=str(cases),
                              failures=str(len(r.diagnostics)), errors="0", skipped="0")
        n_tests += cases
        n_fail += len(r.diagnostics)
        if not r.diagnostics:
            ET.SubElement(suite, "testcase", classname=path, name="no problems")
        for d in r.diagnostics:
            where = f"byte {d.offset:#x}" + (f", record {d.record_index}" if d.record_index >= 0 else "")
            case = ET.SubElement(suite, "testcase", classname=path, name=f"{d.code} at {where}")
            fail = ET.SubElement(case, "failure", type=d.severity.label, message=f"{d.code}: {d.message}")
            fail.text = f"{d.severity.label}[{d.code}] {path} at {where}: {d.message}"
        hidden = sum(r.counts.values()) - len(r.diagnostics)
        if hidden:
            ET.SubElement(suite, "system-out").text = f"{hidden} more diagnostics over the per-rule cap"
    for path, message in ((visible(p), visible(m)) for p, m in failures):
        suite = ET.SubElement(root, "testsuite", name=path, tests="1", failures="0", errors="1", skipped="0")
        case = ET.SubElement(suite, "testcase", classname=path, name="read")
        ET.SubElement(case, "error", type="io", message=message).text = message
        n_tests += 1
    root.set("tests", str(n_tests))
    root.set("failures", str(n_fail))
    root.set("errors", str(len(failures)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
