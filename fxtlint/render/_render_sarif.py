"""The SARIF 2.1.0 renderer, for code-scanning services (GitHub, Azure DevOps, GitLab).

One run; the driver names the tool's home (``informationUri``) and lists every rule of
the registry (description, help and default level from its declaration); one result
per diagnostic, located by
``region.byteOffset``/``byteLength`` (the offending field, else the record) and a
``startLine`` of 1 for services that place every result on a line. Files are named
relative to the working directory under ``uriBaseId`` %SRCROOT%, normalised, so the
log holds no ".." segment and no path of the machine that ran it. Checked against
the OASIS schema and by the SARIF Multitool in ``tests/test_render_ci.py``.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from urllib.parse import quote

from ..engine._result import FileReport
from ..rules._diagnostics import Diagnostic, Rule, Severity, stable_message
from ..spec._version import HOME_URL, TOOL_NAME, tool_version

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _sentence(text: str) -> str:
    """SARIF messages are sentences: they end with a period."""
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.replace("_", "-").split("-"))


SRCROOT = "%SRCROOT%"
ORIGINAL_URI_BASE_IDS = {SRCROOT: {"description": {
    "text": "The working directory fxtlint ran in (the repository's root in CI)."}}}


def _under(path: str, root: str) -> str | None:
    """``path`` relative to ``root`` with ``/`` separators, or None when it is not inside it."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:  # another drive
        return None
    if rel == os.curdir or rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def artifact_location(path: str, root: str | None = None) -> dict:
    """Where a linted file is, as code scanning reads it: relative to ``root`` (default:
    the working directory) under ``uriBaseId`` %SRCROOT%, normalised (no "." or ".."
    segment, whatever the spelling on the command line); a file outside the root, even
    through its symlinks, is a normalised absolute file: URI. Standard input is "stdin"."""
    if path == "-":
        return {"uri": "stdin"}
    root = os.path.abspath(root if root is not None else os.getcwd())
    lexical = os.path.normpath(os.path.abspath(path))
    real = os.path.realpath(path)
    if os.path.realpath(lexical) != real:
        # a ".." after a symlinked folder: dropping the pair lexically names another
        # file, so name the one the system opened
        lexical = real
    rel = _under(lexical, root)
    if rel is None:  # spelled through a link to the root ($PWD of a symlinked checkout)?
        rel = _under(real, os.path.realpath(root))
    if rel is not None:
        return {"uri": quote(rel), "uriBaseId": SRCROOT}
    p = lexical.replace("\\", "/")
    return {"uri": "file://" + quote(p if p.startswith("/") else "/" + p)}


@functools.cache
def _help_markdown(rule: Rule) -> str:
    """A rule's docs (it lints both examples): built once per process."""
    from ._docs import rule_markdown

    return rule_markdown(rule)


def rule_descriptor(rule: Rule) -> dict:
    return {
        "id": rule.code,
        "name": _pascal(rule.name),
        "shortDescription": {"text": _sentence(rule.what)},
        "fullDescription": {"text": _sentence(f"{rule.what} {rule.why}")},
        "help": {"text": _sentence(f"{rule.why} Spec: {rule.spec}"), "markdown": _help_markdown(rule)},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"tags": [rule.code[:2]], "status": rule.status},
    }


def _bare_descriptor(code: str, severity: Severity) -> dict:
    """A code the registry does not hold (a plug-in or test rule)."""
    return {"id": code, "shortDescription": {"text": f"{code}."},
            "defaultConfiguration": {"level": LEVEL[severity]}}


def result(d: Diagnostic, rule_index: int, artifact_index: int, location: dict, occurrence: int = 0) -> dict:
    start, end = d.span if d.span is not None else (d.offset, d.offset + (d.record_size or 0))
    region = {"startLine": 1, "byteOffset": start}
    if end > start:
        region["byteLength"] = end - start
    props: dict[str, object] = {"recordIndex": d.record_index, "recordOffset": d.offset}
    if d.details:
        props["details"] = d.details
    return {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": LEVEL[d.severity],
        "message": {"text": _sentence(d.message)},
        "locations": [{"physicalLocation": {
            "artifactLocation": {**location, "index": artifact_index},
            "region": region,
        }}],
        # how code scanning tells a known finding from a new one: code, message without
        # positions, and which occurrence of that message in the file it is
        "partialFingerprints": {"fxtlint/v1": f"{d.code}:{stable_message(d.message)}:{occurrence}"},
        "properties": props,
    }


def render(reports: Sequence[FileReport], *, failures: Sequence[tuple[str, str]] = (),
           rules: Sequence[Rule] = (), version: str | None = None) -> dict:
    """The run as a SARIF log (a JSON-ready dict)."""
    descriptors = [rule_descriptor(r) for r in rules]
    index = {r.code: i for i, r in enumerate(rules)}
    artifacts, results = [], []
    for ai, rep in enumerate(reports):
        location = artifact_location(rep.path)
        artifacts.append({"location": location, "length": rep.size,
                          "properties": {"format": rep.format, "byteOrder": rep.byte_order,
                                         "records": rep.records, "counts": rep.counts}})
        seen: dict = {}
        for d in rep.diagnostics:
            if d.code not in index:
                index[d.code] = len(descriptors)
                descriptors.append(_bare_descriptor(d.code, d.severity))
            key = (d.code, stable_message(d.message))
            seen[key] = seen.get(key, -1) + 1
            results.append(result(d, index[d.code], ai, location, seen[key]))
    invocation: dict[str, object] = {"executionSuccessful": not failures}
    if failures:
        invocation["toolExecutionNotifications"] = [
            {"level": "error", "message": {"text": _sentence(f"{p}: {m}")},
             "locations": [{"physicalLocation": {"artifactLocation": artifact_location(p)}}]}
            for p, m in failures
        ]
    ver = version or tool_version()
    return {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": TOOL_NAME, "version": ver, "semanticVersion": ver,
                                "informationUri": HOME_URL, "rules": descriptors}},
            "artifacts": artifacts,
            "results": results,
            "originalUriBaseIds": ORIGINAL_URI_BASE_IDS,
            "invocations": [invocation],
            "columnKind": "unicodeCodePoints",
        }],
    }


def dumps(log: dict) -> str:
    return json.dumps(log, indent=2, ensure_ascii=False) + "\n"
