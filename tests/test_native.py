"""Which engine runs: FXTLINT_ENGINE, a kernel that is not built or stale, and ``--version``."""

from __future__ import annotations

import pytest

from fxtlint.cli import main
from fxtlint.engine import _native
from fxtlint.spec._errors import FxtError


@pytest.fixture
def fresh(monkeypatch):
    """_native's cached look at the kernel, cleared before and after."""
    _native._built.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    _native._built.cache_clear()


def _not_built(monkeypatch):
    monkeypatch.setattr(_native, "_built", lambda: (None, "No module named 'fxtlint.engine._kernel'"))


def test_python_forces_the_pure_engine(fresh):
    fresh.setenv(_native.ENV, "python")
    assert _native.kernel() is None
    assert _native.describe().startswith("engine: python, forced by FXTLINT_ENGINE=python")


def test_an_unknown_choice_is_an_error_that_names_the_choices(fresh):
    fresh.setenv(_native.ENV, "fast")
    with pytest.raises(FxtError, match="FXTLINT_ENGINE=fast does not fit: allowed auto, python, native"):
        _native.kernel()
    assert "does not fit" in _native.describe()


def test_without_a_build_auto_is_python_and_native_is_an_error(fresh):
    _not_built(fresh)
    fresh.delenv(_native.ENV, raising=False)
    assert _native.kernel() is None
    assert _native.describe().startswith(
        "engine: python; native kernel: not built: No module named 'fxtlint.engine._kernel'; native text filler: ")
    fresh.setenv(_native.ENV, "native")
    with pytest.raises(FxtError, match="not built"):
        _native.kernel()


def test_a_stale_build_is_not_used(fresh):
    from kernel_support import require_kernel

    k = require_kernel()
    fresh.setattr(k, "OPS", k.OPS[:-1])
    _native._built.cache_clear()
    fresh.delenv(_native.ENV, raising=False)
    assert _native.kernel() is None
    assert "stale build" in _native.describe()


def test_a_built_kernel_is_chosen(fresh):
    from kernel_support import require_kernel

    fresh.delenv(_native.ENV, raising=False)
    k = require_kernel()
    assert _native.kernel() is k
    fresh.setenv(_native.ENV, "native")
    assert _native.kernel() is k
    assert _native.describe().startswith("engine: native; native kernel: built; native text filler: ")


def test_version_says_whether_the_filler_is_built(fresh):
    """``--version`` names both native parts, built or not, whatever the engine."""
    fresh.delenv(_native.ENV, raising=False)
    fresh.setattr(_native, "_built", lambda: (object(), None))
    fresh.setattr(_native, "_filler_built", lambda: (object(), None))
    assert _native.describe() == "engine: native; native kernel: built; native text filler: built"
    fresh.setenv(_native.ENV, "python")
    assert _native.describe() == ("engine: python, forced by FXTLINT_ENGINE=python; "
                                  "native kernel: built; native text filler: built")
    fresh.setattr(_native, "_filler_built", lambda: (None, "no compiled fxtlint.engine._textfill"))
    fresh.delenv(_native.ENV)
    assert _native.describe() == ("engine: native, export and decode rows in python; native kernel: built; "
                                  "native text filler: not built: no compiled fxtlint.engine._textfill")
    fresh.setenv(_native.ENV, "native")
    assert _native.describe().startswith("engine: none, FXTLINT_ENGINE=native needs both; ")


def test_the_walk_scans_with_the_engine_chosen(fresh):
    from fxtlint.engine._walk import Walk
    from kernel_support import require_kernel

    k = require_kernel()
    fresh.delenv(_native.ENV, raising=False)
    assert Walk(b"", ()).kernel is k
    fresh.setenv(_native.ENV, "python")
    assert Walk(b"", ()).kernel is None
    assert Walk(b"", (), kernel=k).kernel is k


@pytest.mark.parametrize("env,expected", [("python", "engine: python, forced by FXTLINT_ENGINE=python"),
                                          ("auto", "engine: ")])
def test_version_says_which_engine(fresh, capsys, env, expected):
    fresh.setenv(_native.ENV, env)
    assert main(["--version"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("fxtlint ") and out.count("\n") == 1
    assert f"({expected}" in out


def test_the_readme_shows_what_version_prints_with_both_built(fresh):
    """The README's ``fxtlint --version`` line is the one a full build prints."""
    import re
    from pathlib import Path

    from fxtlint.spec._version import tool_version

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    shown = re.search(r"```text\n(fxtlint .*)\n```", readme).group(1)
    fresh.delenv(_native.ENV, raising=False)
    fresh.setattr(_native, "_built", lambda: (object(), None))
    fresh.setattr(_native, "_filler_built", lambda: (object(), None))
    assert shown == f"fxtlint {tool_version()} ({_native.describe()})"
