"""The layering of fxtlint/ is a contract (pyproject.toml, [tool.importlinter]): the
checkout keeps it, and the contract breaks on the imports it forbids.

``lint-imports`` reads the package it finds first on the path, so each run puts the
tree it checks (the checkout, or a copy with one bad import) first on PYTHONPATH.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("importlinter", reason="import-linter is not installed (pip install '.[test]')")

REPO = Path(__file__).resolve().parent.parent


def lint_imports(root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache", "--no-logo", str(root / "pyproject.toml")],
                          cwd=root, env=env, capture_output=True, text=True, timeout=300)


def test_the_checkout_keeps_the_layers():
    proc = lint_imports(REPO)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 kept, 0 broken" in proc.stdout


@pytest.fixture
def copy(tmp_path) -> Path:
    shutil.copytree(REPO / "fxtlint", tmp_path / "fxtlint", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    shutil.copy(REPO / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def inject(path: Path, line: str) -> None:
    path.write_text(path.read_text("utf-8") + f"\n{line}  # injected by tests/test_layers.py\n", "utf-8")


@pytest.mark.parametrize("module, line, broken", [
    # the spec layer reaching up into the engine
    ("spec/_limits.py", "from ..engine import _walk", "fxtlint.spec._limits -> fxtlint.engine._walk"),
    # a rule importing a renderer, lazily (inside a function counts too)
    ("rules/_selection.py", "def _f():\n    from ..render import _render_json",
     "fxtlint.rules._selection -> fxtlint.render._render_json"),
    # the engine reaching the export
    ("engine/_lint.py", "from ..export import _export_tef", "fxtlint.engine._lint -> fxtlint.export._export_tef"),
    # one consumer importing a sibling consumer
    ("export/_export_tef.py", "from ..reader_suite import _canonical",
     "fxtlint.export._export_tef -> fxtlint.reader_suite._canonical"),
])
def test_an_upward_or_sideways_import_breaks_the_contract(copy, module, line, broken):
    inject(copy / "fxtlint" / module, line)
    proc = lint_imports(copy)
    assert proc.returncode != 0
    assert "BROKEN" in proc.stdout and broken in proc.stdout, proc.stdout


def test_a_cycle_inside_a_layer_breaks_the_contract(copy):
    # _roles imports _tables; the reverse import closes a circle inside the spec layer
    inject(copy / "fxtlint" / "spec" / "_tables.py", "from . import _roles")
    proc = lint_imports(copy)
    assert proc.returncode != 0
    assert "No import cycles between sibling modules or subpackages BROKEN" in proc.stdout, proc.stdout


def test_a_flat_module_outside_every_layer_breaks_the_contract(copy):
    (copy / "fxtlint" / "_stray.py").write_text('"""A module no layer names."""\n')
    proc = lint_imports(copy)
    assert proc.returncode != 0
    assert "fxtlint._stray" in proc.stdout, proc.stdout
