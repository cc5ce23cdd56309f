"""Which engine runs: one word per call (``engine=``), ``FXTLINT_ENGINE`` for the default,
a kernel that is not built or stale, and ``--version``. The environment is read in child
processes and from dicts here: no test changes this process's ``os.environ``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import fxtlint
from fxtlint import build as B
from fxtlint.cli import main
from fxtlint.engine import _native
from fxtlint.engine._walk import COLUMNS_FROM, Walk
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
    monkeypatch.setattr(_native, "_nwalk_built", lambda: (None, "No module named 'fxtlint.engine._nwalk'"))


SMALL = B.archive(B.magic(), B.event("instant", 1, thread=(1, 2), category="c", name="n"))


def test_the_environment_sets_the_default_engine_and_an_unknown_one_is_an_error():
    assert _native.engine_of({}) == _native.engine_of({_native.ENV: ""}) == "auto"
    for name in _native.ENGINES:
        assert _native.engine_of({_native.ENV: name}) == name
    with pytest.raises(FxtError, match="FXTLINT_ENGINE=quick does not fit: allowed auto, fast, native, python"):
        _native.engine_of({_native.ENV: "quick"})
    assert "does not fit" in _native.describe({_native.ENV: "quick"})


def test_a_call_names_its_engine_and_an_unknown_name_fails_clearly():
    with pytest.raises(ValueError, match="engine must be one of"):
        fxtlint.lint_bytes(SMALL, engine="kernel")
    reports = {e: fxtlint.lint_bytes(SMALL, engine=e).to_json() for e in ("auto", "fast", "python", "reference")}
    assert len({str(r) for r in reports.values()}) == 1  # every engine reports the same


@pytest.mark.parametrize("engine,columns", [("reference", False), ("python", True), ("fast", True), ("native", True),
                                            ("auto", False), ("walk", False)])
def test_each_engine_takes_its_path(engine, columns):
    """(A walk whose only consumer is the linter takes the native walk at every size on
    ``auto`` and ``walk``: tests/test_nwalk.py.)"""
    assert Walk(SMALL, (), engine=engine).columns is columns
    assert Walk(bytes(COLUMNS_FROM), (), engine=engine).columns is (columns or engine in ("auto", "walk"))


@pytest.mark.parametrize("engine", _native.ENGINES)
@pytest.mark.parametrize("others", ["alone", "with-coverage", "with-rows"])
def test_the_linter_never_takes_the_column_path(engine, others, monkeypatch):
    """The lint runs on the native walk or on the reference path, whatever the engine and
    whoever rides with it (report's coverage rides the native walk; a walk with a consumer
    aboard that cannot ride it shares the reference path)."""
    from fxtlint.engine._lint import lint_walk
    from fxtlint.engine._walk import Consumer
    from fxtlint.engine._walk import Walk as W
    from fxtlint.writer_report._coverage import CoverageCollector

    if engine == "native" and _native.native_missing():
        pytest.skip(_native.native_missing())
    data = B.archive(B.magic(), *[B.event("instant", i, thread=(1, 2), category="c", name="n")
                                  for i in range(COLUMNS_FROM // 32)])
    assert len(data) >= COLUMNS_FROM
    monkeypatch.setattr(W, "_batch", lambda *a: pytest.fail("the linter's walk took the column path"))
    consumers = {"alone": [], "with-coverage": [CoverageCollector()], "with-rows": [Consumer()]}[others]
    report, walk = lint_walk(data, engine=engine, consumers=consumers)
    native = walk._native is not None
    assert native is (others != "with-rows" and engine not in ("python", "reference") and _native.nwalk() is not None)
    assert report.to_json() == fxtlint.lint_bytes(data, engine="reference").to_json()


def test_python_and_reference_never_take_the_kernel():
    assert Walk(b"", (), engine="python").kernel is None
    assert Walk(b"", (), engine="reference").kernel is None


def test_without_a_build_auto_lints_on_the_reference_and_native_is_an_error(fresh):
    _not_built(fresh)
    assert _native.kernel() is None and Walk(b"", (), engine="auto").kernel is None
    assert not _native.walks_natively("auto") and not _native.walks_natively("fast")
    assert _native.describe({}).startswith(
        "engine: reference; export and decode: python; "
        "native kernel: not built: No module named 'fxtlint.engine._kernel'; native text filler: ")
    with pytest.raises(FxtError, match="not built"):
        _native.kernel(_native.REQUIRED)
    with pytest.raises(FxtError, match="not built"):
        fxtlint.lint_bytes(SMALL, engine="native")
    assert _native.describe({_native.ENV: "native"}).startswith(
        "engine: none, FXTLINT_ENGINE=native needs every native part; ")
    # the lint says what the reference says, the native walk not built
    assert fxtlint.lint_bytes(SMALL).to_json() == fxtlint.lint_bytes(SMALL, engine="reference").to_json()


def test_a_stale_build_is_not_used(fresh):
    from kernel_support import require_kernel

    k = require_kernel()
    fresh.setattr(k, "OPS", k.OPS[:-1])
    _native._built.cache_clear()
    assert _native.kernel() is None
    assert "stale build" in _native.describe({})


def test_a_built_kernel_is_chosen(fresh):
    from kernel_support import require_kernel

    k = require_kernel()
    assert _native.kernel() is k and _native.kernel(_native.REQUIRED) is k
    assert Walk(b"", (), engine="native").kernel is k and Walk(b"", (), engine="fast").kernel is k
    assert Walk(b"", (), engine="python", kernel=k).kernel is k  # the scan step's own walks give theirs
    if _native.native_missing() is None:
        assert _native.describe({_native.ENV: "native"}).startswith(
            "engine: walk, forced by FXTLINT_ENGINE=native; export and decode: native; "
            "native kernel: built; native text filler: built; native walk: built")


def test_version_says_whether_the_filler_is_built(fresh):
    """``--version`` names the native parts, built or not, whatever the engine."""
    fresh.setattr(_native, "_built", lambda: (object(), None))
    fresh.setattr(_native, "_filler_built", lambda: (object(), None))
    fresh.setattr(_native, "_nwalk_built", lambda: (None, "no compiled fxtlint.engine._nwalk"))
    walk = "; native walk: not built: no compiled fxtlint.engine._nwalk"
    others = "export and decode"
    # no native walk: the lint runs on the reference engine, and says so
    assert _native.describe({}) == (f"engine: reference; {others}: native; native kernel: built; "
                                    "native text filler: built" + walk)
    assert _native.describe({_native.ENV: "python"}) == (f"engine: reference, forced by FXTLINT_ENGINE=python; "
                                                         f"{others}: python; native kernel: built; "
                                                         "native text filler: built" + walk)
    assert _native.describe({_native.ENV: "walk"}) == _native.describe({})  # lints as auto
    fresh.setattr(_native, "_filler_built", lambda: (None, "no compiled fxtlint.engine._textfill"))
    assert _native.describe({}) == (f"engine: reference; {others}: native, rows in python; native kernel: built; "
                                    "native text filler: not built: no compiled fxtlint.engine._textfill" + walk)
    assert _native.describe({_native.ENV: "native"}).startswith(
        "engine: none, FXTLINT_ENGINE=native needs every native part; ")
    fresh.setattr(_native, "_filler_built", lambda: (object(), None))
    fresh.setattr(_native, "_nwalk_built", lambda: (object(), None))
    both = "native kernel: built; native text filler: built; native walk: built"
    assert _native.describe({}) == _native.describe({_native.ENV: "walk"}) == f"engine: walk; {others}: native; {both}"
    assert _native.describe({_native.ENV: "fast"}) == (f"engine: walk, forced by FXTLINT_ENGINE=fast; "
                                                       f"{others}: native; {both}")
    assert _native.describe({_native.ENV: "reference"}) == (f"engine: reference, forced by FXTLINT_ENGINE=reference; "
                                                            f"{others}: reference; {both}")


def test_the_readme_shows_what_version_prints_with_both_built(fresh):
    """The README's ``fxtlint --version`` line is the one a full build prints."""
    import re

    from fxtlint.spec._version import tool_version

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    shown = re.search(r"```text\n(fxtlint .*)\n```", readme).group(1)
    fresh.setattr(_native, "_built", lambda: (object(), None))
    fresh.setattr(_native, "_filler_built", lambda: (object(), None))
    fresh.setattr(_native, "_nwalk_built", lambda: (object(), None))
    assert shown == f"fxtlint {tool_version()} ({_native.describe({})})"


def test_the_filler_is_the_running_walks():
    with _native.filling("python"):
        assert _native.filler() is None
        with _native.filling("reference"):
            assert _native.filler() is None
    if _native.native_missing() is None:
        with _native.filling("native"):
            assert _native.filler() is _native._filler_built()[0]


def _child(code: str, env_value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != _native.ENV}
    if env_value is not None:
        env[_native.ENV] = env_value
    env["PYTHONPATH"] = str(Path(fxtlint.__file__).parent.parent)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False)


def test_the_default_is_read_from_the_environment_once():
    """A child with FXTLINT_ENGINE=reference walks a large buffer record by record, and
    keeps that default when its environment changes afterwards."""
    code = f"""
import os
from fxtlint.engine._walk import Walk
first = Walk(bytes({COLUMNS_FROM}), ()).columns
os.environ["FXTLINT_ENGINE"] = "python"
print(first, Walk(bytes({COLUMNS_FROM}), ()).columns, Walk(bytes(8), (), engine="python").columns)
"""
    assert _child(code, "reference").stdout.split() == ["False", "False", "True"]
    assert _child(code, None).stdout.split() == ["True", "True", "True"]


@pytest.mark.parametrize("env,expected", [("python", "engine: reference, forced by FXTLINT_ENGINE=python; "
                                                     "export and decode: python"),
                                          ("reference", "engine: reference, forced by FXTLINT_ENGINE=reference"),
                                          ("auto", "engine: ")])
def test_version_says_which_engine(env, expected):
    run = _child("from fxtlint.cli import main; raise SystemExit(main(['--version']))", env)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("fxtlint ") and run.stdout.count("\n") == 1
    assert f"({expected}" in run.stdout


def test_version_in_process(capsys):
    assert main(["--version"]) == 0
    assert f"({_native.describe()})" in capsys.readouterr().out
