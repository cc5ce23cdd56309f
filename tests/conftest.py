"""Shared test settings: where the spec and the real traces are, and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import external_tools

REPO = Path(__file__).resolve().parent.parent
# The originals live in ../shared (FXTLINT_SHARED points elsewhere); the tests read the
# copies in tests/data, so a clone of the repository alone runs every test.
SHARED = Path(os.environ.get("FXTLINT_SHARED", REPO.parent / "shared"))
DATA = REPO / "tests" / "data"
SPEC_DIR = DATA / "spec"
CORPUS_REAL = DATA / "corpus-real"

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("slow", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(scope="session")  # looked up before any costlier fixture
def chromium() -> str:
    """Headless Chromium's path; the test skips (or, where CI requires it, fails) without it."""
    return external_tools.chromium()


@pytest.fixture(scope="session")  # looked up before any costlier fixture
def sarif_multitool() -> list[str]:
    """The SARIF Multitool's command; the test skips (or, where CI requires it, fails) without it."""
    return external_tools.sarif_multitool()


@pytest.fixture(scope="session")  # looked up before any costlier fixture
def atheris_installed() -> None:
    """atheris importable; the test skips (or, where CI requires it, fails) without it."""
    external_tools.module("atheris", "atheris", "fuzz")
