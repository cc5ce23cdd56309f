"""Shared test settings: where the spec and the real traces are, and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

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
