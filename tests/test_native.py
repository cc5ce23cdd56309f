"""Which engine runs: one word per call (``engine=``), ``FXTLINT_ENGINE`` for the default,
the names of the numpy days kept as aliases, a native walk that is not built, and
``--version``. The environment is read in child
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
from fxtlint.engine._lint import lint_walk
from fxtlint.engine._walk import Consumer
from fxtlint.spec._errors import FxtError


@pytest.fixture
def fresh(monkeypatch):
    """_native's cached look at the native walk, cleared before and after."""
    _native._nwalk_built.cache_clear()
    yield monkeypatch
    monkeypatch.undo()
    _native._nwalk_built.cache_clear()


def _not_built(monkeypatch):
    monkeypatch.setattr(_native, "_nwalk_built", lambda: (None, "No module named 'fxtlint.engine._nwalk'"))


SMALL = B.archive(B.magic(), B.event("instant", 1, thread=(1, 2), category="c", name="n"))
LARGE = B.archive(B.magic(), *[B.event("instant", i, thread=(1, 2), category="c", name="n") for i in range(2000)])


def test_the_environment_sets_the_default_engine_and_an_unknown_one_is_an_error():
    assert _native.engine_of({}) == _native.engine_of({_native.ENV: ""}) == "auto"
    for name in _native.ENGINES:
        assert _native.engine_of({_native.ENV: name}) == name
    with pytest.raises(FxtError, match="FXTLINT_ENGINE=quick does not fit: allowed auto, native, reference, fast, "
                                       "walk, python"):
        _native.engine_of({_native.ENV: "quick"})
    assert "does not fit" in _native.describe({_native.ENV: "quick"})


def test_a_call_names_its_engine_and_an_unknown_name_fails_clearly():
    with pytest.raises(ValueError, match="engine must be one of"):
        fxtlint.lint_bytes(SMALL, engine="kernel")
    reports = {e: fxtlint.lint_bytes(SMALL, engine=e).to_json() for e in ("auto", "fast", "python", "reference")}
    assert len({str(r) for r in reports.values()}) == 1  # every engine reports the same


# the names scripts may set, and what each runs as: the native walk where built, or the reference
@pytest.mark.parametrize("engine,runs", [("auto", "auto"), ("native", "native"), ("reference", "reference"),
                                        ("fast", "auto"), ("walk", "auto"), ("python", "reference")])
def test_the_old_engine_names_are_aliases_of_what_remains(engine, runs):
    assert _native.canonical(engine) == runs
    if runs == "native" and _native.native_missing():
        with pytest.raises(FxtError, match="not built"):
            _native.walks_natively(engine)
        return
    native = runs != "reference" and _native.nwalk() is not None
    assert _native.walks_natively(engine) is native
    for data in (SMALL, LARGE):  # every size
        report, walk = lint_walk(data, engine=engine)
        assert (walk._native is not None) is native
        assert report.to_json() == fxtlint.lint_bytes(data, engine="reference").to_json()


@pytest.mark.parametrize("engine", _native.ENGINES)
@pytest.mark.parametrize("others", ["alone", "with-coverage", "with-a-consumer-that-cannot-ride"])
def test_the_linter_takes_the_native_walk_or_the_reference_path(engine, others):
    """The lint runs on the native walk or on the reference path, whatever the engine and
    whoever rides with it (report's coverage rides the native walk; a walk with a consumer
    aboard that cannot ride it shares the reference path)."""
    from fxtlint.writer_report._coverage import CoverageCollector

    if _native.canonical(engine) == "native" and _native.native_missing():
        pytest.skip(_native.native_missing())
    consumers = {"alone": [], "with-coverage": [CoverageCollector()],
                 "with-a-consumer-that-cannot-ride": [Consumer()]}[others]
    report, walk = lint_walk(LARGE, engine=engine, consumers=consumers)
    native = walk._native is not None
    assert native is (others != "with-a-consumer-that-cannot-ride" and _native.canonical(engine) != "reference"
                      and _native.nwalk() is not None)
    assert report.to_json() == fxtlint.lint_bytes(LARGE, engine="reference").to_json()


def test_without_a_build_auto_runs_on_the_reference_and_native_is_an_error(fresh):
    _not_built(fresh)
    assert not _native.walks_natively("auto") and not _native.walks_natively("fast")
    assert _native.describe({}) == "engine: reference; native walk: not built: No module named 'fxtlint.engine._nwalk'"
    with pytest.raises(FxtError, match="not built"):
        _native.walks_natively("native")
    with pytest.raises(FxtError, match="not built"):
        fxtlint.lint_bytes(SMALL, engine="native")
    assert _native.describe({_native.ENV: "native"}).startswith(
        "engine: none, FXTLINT_ENGINE=native needs the native walk; ")
    # the lint says what the reference says, the native walk not built
    assert fxtlint.lint_bytes(SMALL).to_json() == fxtlint.lint_bytes(SMALL, engine="reference").to_json()


def test_version_says_what_runs_and_whether_the_walk_is_built(fresh):
    """``--version`` names the engine every verb runs on and whether the native walk is built."""
    fresh.setattr(_native, "_nwalk_built", lambda: (None, "no compiled fxtlint.engine._nwalk"))
    missing = "native walk: not built: no compiled fxtlint.engine._nwalk"
    assert _native.describe({}) == f"engine: reference; {missing}"
    assert _native.describe({_native.ENV: "python"}) == f"engine: reference, forced by FXTLINT_ENGINE=python; {missing}"
    assert _native.describe({_native.ENV: "walk"}) == _native.describe({_native.ENV: "fast"}) == _native.describe({})
    fresh.setattr(_native, "_nwalk_built", lambda: (object(), None))
    for auto in ("auto", "fast", "walk"):  # the aliases of auto run as it does, and say nothing more
        assert _native.describe({_native.ENV: auto}) == "engine: walk; native walk: built"
    assert _native.describe({_native.ENV: "native"}) == ("engine: walk, forced by FXTLINT_ENGINE=native; "
                                                         "native walk: built")
    assert _native.describe({_native.ENV: "reference"}) == ("engine: reference, forced by FXTLINT_ENGINE=reference; "
                                                            "native walk: built")


def test_the_readme_shows_what_version_prints_with_the_walk_built(fresh):
    """The README's ``fxtlint --version`` line is the one a full build prints."""
    import re

    from fxtlint.spec._version import tool_version

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text("utf-8")
    shown = re.search(r"```text\n(fxtlint .*)\n```", readme).group(1)
    fresh.setattr(_native, "_nwalk_built", lambda: (object(), None))
    assert shown == f"fxtlint {tool_version()} ({_native.describe({})})"


def _child(code: str, env_value: str | None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != _native.ENV}
    if env_value is not None:
        env[_native.ENV] = env_value
    home = str(Path(fxtlint.__file__).parent.parent)
    env["PYTHONPATH"] = home
    # (run where this fxtlint is: ``-c`` puts the working directory first on sys.path, and a
    # checkout's fxtlint there, its extensions not built in place, is not the installed one)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False, cwd=home)


def test_the_default_is_read_from_the_environment_once():
    """A child with FXTLINT_ENGINE=reference lints on the reference path, and keeps that
    default when its environment changes afterwards."""
    code = """
import os
from fxtlint.engine._native import walks_natively
first = walks_natively(None)
os.environ["FXTLINT_ENGINE"] = "auto"
print(first, walks_natively(None), walks_natively("python"))
"""
    assert _child(code, "reference").stdout.split() == ["False", "False", "False"]
    built = str(_native.nwalk() is not None)
    assert _child(code, None).stdout.split() == [built, built, "False"]


@pytest.mark.parametrize("env,expected", [("python", "engine: reference, forced by FXTLINT_ENGINE=python; "
                                                     "native walk: "),
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
