"""Shared test settings: where the spec and the real traces are, and Hypothesis profiles."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parent.parent
# CI clones the repository with ../shared beside it; FXTLINT_SHARED points elsewhere.
SHARED = Path(os.environ.get("FXTLINT_SHARED", REPO.parent / "shared"))
SPEC_DIR = SHARED / "spec"
CORPUS_REAL = SHARED / "corpus-real"

settings.register_profile("ci", max_examples=60, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("slow", max_examples=2000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
