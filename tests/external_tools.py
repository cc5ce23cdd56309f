"""The external tools some tests check real output with, and what happens when one is missing.

A test that needs a tool (headless Chromium, the SARIF Multitool, atheris, the PyPI
reader fxt) asks for it here. When the tool is missing the test skips and says why, so
that ``pytest`` passes on any machine; CI installs the tools and then sets
``FXTLINT_REQUIRE_TOOLS`` (``1`` or ``all``: every tool; else a comma-separated list
of the names below), and a required tool that is missing fails the test instead.

Where a tool is found: ``FXTLINT_SARIF_MULTITOOL`` (the Multitool's executable) or
``PATH``; Chromium on ``PATH`` under its usual names; atheris and fxt as importable
modules.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from typing import NoReturn

import pytest

REQUIRE = "FXTLINT_REQUIRE_TOOLS"
TOOLS = ("chromium", "sarif-multitool", "atheris", "fxt")


def required(tool: str) -> bool:
    """Whether CI asked for ``tool`` to be there (``FXTLINT_REQUIRE_TOOLS``)."""
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r}: allowed {', '.join(TOOLS)}")
    asked = {t.strip() for t in os.environ.get(REQUIRE, "").split(",") if t.strip()}
    unknown = asked - set(TOOLS) - {"1", "all"}
    if unknown:
        pytest.fail(f"{REQUIRE} names unknown tools {sorted(unknown)}: allowed 1, all, {', '.join(TOOLS)}")
    return bool(asked & {"1", "all", tool})


def missing(tool: str, why: str) -> NoReturn:
    """Skip the calling test saying why, or fail it when the tool is required."""
    if required(tool):
        pytest.fail(f"{REQUIRE} requires {tool}, but {why}")
    pytest.skip(why)


def chromium() -> str:
    """The path of a headless-capable Chromium."""
    names = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
    for name in names:
        found = shutil.which(name)
        if found:
            return found
    missing("chromium", f"no Chromium on PATH ({', '.join(names)})")


MULTITOOL_HOW = ("npm install --prefix DIR @microsoft/sarif-multitool, then set "
                 "FXTLINT_SARIF_MULTITOOL=DIR/node_modules/.bin/sarif-multitool")


def sarif_multitool() -> list[str]:
    """The command that runs the SARIF Multitool."""
    env = os.environ.get("FXTLINT_SARIF_MULTITOOL")
    if env:
        if shutil.which(env) is None:
            missing("sarif-multitool", f"FXTLINT_SARIF_MULTITOOL={env} is not an executable")
        return [env]
    for name in ("sarif-multitool", "sarif"):
        found = shutil.which(name)
        if found:
            return [found]
    missing("sarif-multitool", f"the SARIF Multitool is not installed ({MULTITOOL_HOW})")


def module(tool: str, name: str, extra: str) -> None:
    """Python package ``name`` (``tool`` above) importable, from the ``extra`` named."""
    if importlib.util.find_spec(name) is None:
        missing(tool, f"{tool} is not installed (pip install '.[{extra}]')")
