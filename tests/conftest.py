"""Shared test settings: where the spec and the real traces are, and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

import external_tools
from fxtlint.rules._mutations import MUTATIONS

REPO = Path(__file__).resolve().parent.parent
# The originals live in ../shared (FXTLINT_SHARED points elsewhere); the tests read the
# copies in tests/data, so a clone of the repository alone runs every test.
SHARED = Path(os.environ.get("FXTLINT_SHARED", REPO.parent / "shared"))
DATA = REPO / "tests" / "data"
SPEC_DIR = DATA / "spec"
CORPUS_REAL = DATA / "corpus-real"

# Hypothesis profiles (HYPOTHESIS_PROFILE): "dev", the default, draws three quarters of what CI
# draws (.ci/run sets "ci": 20 a property, within CI's 12 minutes beside the fuzz runs);
# "slow" is for a long hunt. A test's own @settings wins.
_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]
settings.register_profile("dev", max_examples=15, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("ci", max_examples=20, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("slow", max_examples=2000, deadline=None, suppress_health_check=_QUIET)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)

# Cases built on PR012's examples: the pairing engine's stack cap plus one (65,537
# nested duration begins), seconds on every engine. They run with the slow tests.
SLOW_CASES = ("PR012",)


# The mutations Hypothesis draws: all but those slow cases (one drawn PR012 costs a
# minute on tiny windows, and their own cases run with the slow tests), in the default
# run and in CI's; only the "slow" profile, the long hunt, draws every mutation.
DRAWN_MUTATIONS = None if PROFILE == "slow" else [code for code, _ in MUTATIONS if code not in SLOW_CASES]


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items):
    for item in items:
        callspec = getattr(item, "callspec", None)
        if callspec is not None and any(case in callspec.id for case in SLOW_CASES):
            item.add_marker(pytest.mark.slow)


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
