"""tools/relayout.py, the move script other branches run (issue 15): on a small flat
checkout it moves, rewrites imports and paths, and a second run changes nothing; it
refuses a flat module its table does not map; this checkout is already laid out."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "tools" / "relayout.py"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def run(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], cwd=root, capture_output=True, text=True, timeout=120)


def checkout(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    for cmd in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "flat"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, check=True, capture_output=True)
    return tmp_path


FLAT = {
    "fxtlint/__init__.py": "from ._lint import lint_bytes\nfrom ._report import FileReport\n",
    "fxtlint/_lint.py": "from . import rules as R\nfrom ._report import FileReport\nfrom ._tables import (\n    tables,\n)\n",
    "fxtlint/_report.py": "",
    "fxtlint/_tables.py": "from pathlib import Path\nROOT = Path(__file__).resolve().parent.parent / 'spec-tables'\n",
    "fxtlint/_kernel.c": "/* fxtlint/_kernel.c */\n",
    "fxtlint/_native.py": "def load():\n    from . import _kernel\n    return _kernel\n",
    "fxtlint/rules/__init__.py": "from .._tables import tables\n",
    "fxtlint/cli/check.py": "from .. import _lint, build\n",
    "tests/test_x.py": "import fxtlint._lint\nfrom fxtlint import _report, _lint as L\n"
                       "def test(monkeypatch):\n    monkeypatch.setattr('fxtlint._report.X', 1)\n",
    "setup.py": 'Extension("fxtlint._kernel", ["fxtlint/_kernel.c"])\n',
    "README.md": "See `fxtlint/_lint.py` and `python -m fxtlint._tables`; not fxtlint/_lint_more.py.\n",
}


def test_moves_rewrites_and_is_idempotent(tmp_path):
    root = checkout(tmp_path, FLAT)
    first = run(root)
    assert first.returncode == 0, first.stderr
    assert "move     fxtlint/_report.py -> fxtlint/engine/_result.py" in first.stdout
    read = lambda name: (root / name).read_text()  # noqa: E731
    assert not (root / "fxtlint" / "_lint.py").exists()
    assert read("fxtlint/engine/_lint.py") == (
        "from .. import rules as R\nfrom ._result import FileReport\nfrom ..spec._tables import (\n    tables,\n)\n")
    assert read("fxtlint/spec/_tables.py").endswith("Path(__file__).resolve().parents[2] / 'spec-tables'\n")
    assert read("fxtlint/engine/_native.py") == "def load():\n    from . import _kernel\n    return _kernel\n"
    assert read("fxtlint/engine/_kernel.c") == "/* fxtlint/engine/_kernel.c */\n"
    assert read("fxtlint/__init__.py") == "from .engine._lint import lint_bytes\nfrom .engine._result import FileReport\n"
    assert read("fxtlint/rules/__init__.py") == "from ..spec._tables import tables\n"
    assert read("fxtlint/cli/check.py") == "from ..engine import _lint\nfrom .. import build\n"
    assert read("tests/test_x.py") == (
        "import fxtlint.engine._lint\nfrom fxtlint.engine import _result as _report, _lint as L\n"
        "def test(monkeypatch):\n    monkeypatch.setattr('fxtlint.engine._result.X', 1)\n")
    assert read("setup.py") == 'Extension("fxtlint.engine._kernel", ["fxtlint/engine/_kernel.c"])\n'
    assert read("README.md") == ("See `fxtlint/engine/_lint.py` and `python -m fxtlint.spec._tables`; "
                                 "not fxtlint/_lint_more.py.\n")
    assert '"""' in read("fxtlint/engine/__init__.py")
    second = run(root)
    assert second.returncode == 0 and "nothing to do" in second.stdout
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    assert "fxtlint/_lint.py -> fxtlint/engine/_lint.py" in status  # a git mv: history follows


def test_an_unmapped_flat_module_stops_it_before_any_change(tmp_path):
    root = checkout(tmp_path, {**FLAT, "fxtlint/_incremental.py": ""})
    proc = run(root)
    assert proc.returncode == 1
    assert "fxtlint/_incremental.py" in proc.stderr and "MOVES" in proc.stderr
    assert (root / "fxtlint" / "_lint.py").exists() and not (root / "fxtlint" / "engine").exists()


def test_this_checkout_is_laid_out():
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout (the script lists files with git)")
    proc = run(REPO, "--dry-run")
    assert proc.returncode == 0, proc.stderr
    assert "nothing to do" in proc.stdout, proc.stdout
