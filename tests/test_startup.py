"""Start-up: what a small lint and the pytest plugin import (``engine/_numpy.py``).

Below ``_walk.COLUMNS_FROM`` the walk is the per-record reader alone and needs no
array: numpy (a third of the start-up before) is imported by the first walk that takes
the column path, and never by ``import fxtlint.testing``, the ``pytest11`` entry point
every pytest session of a project that installs fxtlint loads. Each case runs in a
fresh interpreter, where ``sys.modules`` starts empty. The times are bench/startup.py's.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
HEAVY = ("numpy", "fxtlint.engine._columns", "fxtlint.engine._kernel_screen", "fxtlint.engine._scan",
         "concurrent.futures.process", "rich.progress")


def loaded_after(code: str) -> dict:
    """Which of ``HEAVY`` a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nimport json\nprint(json.dumps({{m: m in sys.modules for m in {HEAVY!r}}}))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_pytest_plugin_imports_no_numpy():
    assert loaded_after("import fxtlint.testing")["numpy"] is False


@pytest.mark.parametrize("code", [
    f"import fxtlint; r = fxtlint.lint_path({str(SAMPLE)!r}); assert r.records == 29, r",
    f"import fxtlint.testing; fxtlint.testing.assert_conforms({str(SAMPLE)!r})",
    f"from fxtlint.cli import main; rc = main([{str(SAMPLE)!r}]); assert rc == 0, rc",
], ids=["lint_path", "assert_conforms", "command-line"])
def test_a_small_lint_imports_neither_numpy_nor_the_column_engine(code):
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


def test_the_column_path_imports_numpy_when_it_runs():
    """The passing twin: the same file walked by the column path does import it."""
    code = f"import fxtlint; fxtlint.lint_path({str(SAMPLE)!r}, engine='fast')"
    got = loaded_after(code)
    assert got["numpy"] and got["fxtlint.engine._columns"]
