"""Shared test settings: where the spec and the real traces are, and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

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


@pytest.fixture(scope="module", params=["native", "python"], ids=["native-kernel", "column-engine"])
def scan_engine(request):
    """The column path's scan step, both ways: the native kernel and the pure column engine
    (``FXTLINT_ENGINE``). Module-scoped (Hypothesis refuses function-scoped fixtures), so a
    module's tests run once with each. Where the kernel is not built, its half skips saying
    why; with FXTLINT_EXPECT_NATIVE=1 (CI, which has a compiler) it fails instead."""
    from fxtlint.engine import _native

    if request.param == "native" and _native._built()[0] is None:
        why = _native._built()[1]
        if os.environ.get("FXTLINT_EXPECT_NATIVE") == "1":
            pytest.fail(f"FXTLINT_EXPECT_NATIVE=1 but {why}")
        pytest.skip(why)
    before = os.environ.get(_native.ENV)
    os.environ[_native.ENV] = request.param
    try:
        yield request.param
    finally:
        if before is None:
            del os.environ[_native.ENV]
        else:
            os.environ[_native.ENV] = before
