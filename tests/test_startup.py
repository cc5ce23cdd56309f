"""Start-up: what a small lint and the pytest plugin import (``engine/_numpy.py``).

Below ``_walk.COLUMNS_FROM`` the walk is the per-record reader alone and needs no
array: numpy (a third of the start-up before) is imported by the first walk that takes
the column path. ``import fxtlint.testing``, the ``pytest11`` entry point every pytest
session of a project that installs fxtlint loads, imports no engine at all. Each case runs in a
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


def loaded_after(code: str, modules=HEAVY) -> dict:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nimport json\nprint(json.dumps({{m: m in sys.modules for m in {modules!r}}}))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_pytest_plugin_imports_neither_numpy_nor_an_engine():
    """The package face imports a name when it is first used (PEP 562), so the plugin's
    import reads no table and loads no engine."""
    modules = ("numpy", "fxtlint.engine", "fxtlint.spec._tables", "fxtlint.rules")
    assert loaded_after("import fxtlint.testing", modules) == dict.fromkeys(modules, False)


def test_the_package_face_imports_what_is_used():
    code = "import fxtlint; fxtlint.Limits; from fxtlint import lint_bytes; fxtlint.engine._walk"
    assert loaded_after(code, ("fxtlint.spec._limits", "fxtlint.engine._lint", "fxtlint.engine._walk")) == \
        dict.fromkeys(("fxtlint.spec._limits", "fxtlint.engine._lint", "fxtlint.engine._walk"), True)


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


def test_a_small_file_of_many_durations_is_paired_without_numpy():
    """Below ``COLUMNS_FROM`` the pairing batch of 600 events goes to the loop, not to the
    array proof (the column path's), so a small file never imports numpy for it."""
    code = """
import fxtlint
from fxtlint import build as B
from fxtlint.engine._walk import COLUMNS_FROM
pre = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "c"), B.string(2, "n"),
       B.thread(1, 10, 11)]
evs = [B.event("duration_begin" if i % 2 == 0 else "duration_end", i) for i in range(600)]
data = B.archive(*pre, *evs)
assert len(data) < COLUMNS_FROM, len(data)
assert fxtlint.lint_bytes(data).counts == {}, fxtlint.lint_bytes(data).counts
"""
    assert loaded_after(code)["numpy"] is False
