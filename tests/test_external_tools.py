"""A test that needs an external tool skips without it, and fails instead where CI
requires the tool (FXTLINT_REQUIRE_TOOLS, tests/external_tools.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import external_tools
from conftest import REPO

# the tool tests CI runs, each needing a program found on PATH
TOOL_TESTS = ["tests/test_render_ci.py::test_sarif_has_no_multitool_error",
              "tests/test_render_ci.py::test_sarif_of_every_path_form_has_no_multitool_error",
              "tests/test_cli_report.py::test_html_report_as_chromium_renders_it",
              "tests/test_conformance_suite.py::test_committed_matrix_as_chromium_parses_it"]


@pytest.fixture
def no_tools(monkeypatch, tmp_path):
    """A PATH with nothing on it and no Multitool named."""
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("FXTLINT_SARIF_MULTITOOL", raising=False)
    monkeypatch.delenv(external_tools.REQUIRE, raising=False)


@pytest.mark.parametrize("find", [external_tools.chromium, external_tools.sarif_multitool,
                                  lambda: external_tools.module("atheris", "no_such_module_here", "fuzz")])
def test_a_missing_tool_skips_saying_why_unless_required(no_tools, monkeypatch, find):
    with pytest.raises(pytest.skip.Exception, match=r"not installed|no Chromium on PATH"):
        find()
    for asked in ("1", "all", "fxt,chromium,sarif-multitool,atheris"):
        monkeypatch.setenv(external_tools.REQUIRE, asked)
        with pytest.raises(pytest.fail.Exception, match="FXTLINT_REQUIRE_TOOLS requires"):
            find()
    monkeypatch.setenv(external_tools.REQUIRE, "fxt")  # another tool required: this one still skips
    with pytest.raises(pytest.skip.Exception):
        find()


def test_a_tool_that_is_there_is_used(no_tools, monkeypatch, tmp_path):
    tool = tmp_path / "sarif-multitool"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv(external_tools.REQUIRE, "1")
    assert external_tools.sarif_multitool() == [str(tool)]
    monkeypatch.setenv("FXTLINT_SARIF_MULTITOOL", str(tmp_path / "elsewhere"))  # named, but not there
    with pytest.raises(pytest.fail.Exception, match="elsewhere is not an executable"):
        external_tools.sarif_multitool()


def test_an_unknown_tool_name_is_an_error(no_tools, monkeypatch):
    monkeypatch.setenv(external_tools.REQUIRE, "chromum")
    with pytest.raises(pytest.fail.Exception, match=r"unknown tools \['chromum'\]"):
        external_tools.chromium()


def _run(required: str | None, tmp_path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("FXTLINT_SARIF_MULTITOOL", external_tools.REQUIRE)}
    env["PATH"] = str(tmp_path)  # python runs by its full path; no tool is found
    if required:
        env[external_tools.REQUIRE] = required
    # -n 0: a handful of tests, in one process (not addopts' two workers)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", "-rsf",
                           *TOOL_TESTS], cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_the_tool_tests_skip_without_their_tools_and_fail_where_required(tmp_path):
    """The suite's own tool tests on a machine without the tools: skipped, saying why;
    with FXTLINT_REQUIRE_TOOLS=1 (what CI sets), failed, saying which tool is missing."""
    skipped = _run(None, tmp_path)
    assert skipped.returncode == 0, skipped.stdout + skipped.stderr
    assert f"{len(TOOL_TESTS)} skipped" in skipped.stdout
    assert "the SARIF Multitool is not installed (npm install" in skipped.stdout
    assert "no Chromium on PATH" in skipped.stdout
    failed = _run("1", tmp_path)
    assert failed.returncode == 1
    assert f"{len(TOOL_TESTS)} errors" in failed.stdout, failed.stdout  # a fixture's failure: an error
    assert "FXTLINT_REQUIRE_TOOLS requires sarif-multitool, but the SARIF Multitool is not installed" in failed.stdout
    assert "FXTLINT_REQUIRE_TOOLS requires chromium, but no Chromium on PATH" in failed.stdout
