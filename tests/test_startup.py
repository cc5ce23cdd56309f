"""Start-up: what a lint, every verb and the pytest plugin import.

Every verb runs on the native walk or on the per-record reference engine, at every size
and on every engine, and imports no numpy (a third of the start-up once, when a column
engine ran on it; it is no dependency of the package now). ``import fxtlint.testing``, the
``pytest11`` entry point every pytest session of a project that installs fxtlint loads,
imports no engine at all. Each case runs in a fresh interpreter, where ``sys.modules``
starts empty. The times are bench/startup.py's.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import fxtlint
from fxtlint.engine import _native

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "corpus" / "samples" / "sample.fxt"
# the children import the fxtlint these tests import (the installed wheel in CI, the
# checkout in an editable install), from a folder that is not the checkout: from its root,
# ``python -m fxtlint`` would import the checkout's sources, uncompiled in a fresh clone
PACKAGE_ROOT = str(Path(fxtlint.__file__).resolve().parents[1])
ELSEWHERE = tempfile.gettempdir()
HEAVY = ("numpy", "concurrent.futures.process", "rich.progress")


def loaded_after(code: str, modules=HEAVY) -> dict:
    """Which of ``modules`` a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nimport json\nprint(json.dumps({{m: m in sys.modules for m in {modules!r}}}))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ELSEWHERE, check=True,
                          env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT))
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_pytest_plugin_imports_neither_numpy_nor_an_engine():
    """The package face imports a name when it is first used (PEP 562), so the plugin's
    import reads no table and loads no engine."""
    modules = ("numpy", "fxtlint.engine", "fxtlint.spec._tables", "fxtlint.rules")
    assert loaded_after("import fxtlint.testing", modules) == dict.fromkeys(modules, False)


def test_the_package_face_imports_what_is_used():
    code = "import fxtlint; fxtlint.Limits; from fxtlint import lint_bytes"
    modules = ("fxtlint.spec._limits", "fxtlint.engine._lint", "fxtlint.engine._walk")
    # (the reference ``Walk`` is imported by the first lint that builds one: ``_lint.walk_for``)
    assert loaded_after(code, modules) == {**dict.fromkeys(modules, True), "fxtlint.engine._walk": False}
    assert loaded_after(code + "; lint_bytes(b'', engine='reference')", modules) == dict.fromkeys(modules, True)


@pytest.mark.parametrize("code", [
    f"import fxtlint; r = fxtlint.lint_path({str(SAMPLE)!r}); assert r.records == 29, r",
    f"import fxtlint.testing; fxtlint.testing.assert_conforms({str(SAMPLE)!r})",
    f"from fxtlint.cli import main; rc = main([{str(SAMPLE)!r}]); assert rc == 0, rc",
], ids=["lint_path", "assert_conforms", "command-line"])
def test_a_small_lint_imports_nothing_heavy(code):
    assert loaded_after(code) == dict.fromkeys(HEAVY, False)


def test_the_check_sees_a_module_that_is_imported():
    """The failing twin: a module imported is seen as imported."""
    assert loaded_after("import concurrent.futures.process")["concurrent.futures.process"] is True


@pytest.mark.parametrize("engine", ["auto", "native", "reference", "fast", "walk", "python"])
def test_a_large_lint_imports_no_numpy_on_any_engine(engine, tmp_path):
    """A file of 28 KiB and one read a chunk at a time (past ``_file.WHOLE``), linted whole
    and as a stream: the native walk or the reference, never an array."""
    from fxtlint.engine import _native

    if engine == "native" and _native.native_missing():
        pytest.skip(_native.native_missing())
    path = tmp_path / "large.fxt"
    code = f"""
import fxtlint
from fxtlint.engine import _native
from fxtlint import build as B
from fxtlint.engine import _file
pre = B.archive(B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "c"), B.string(2, "n"),
                B.thread(1, 10, 11))
pair = B.archive(*[B.event(k, 5, thread=1, category=1, name=2) for k in ("duration_begin", "duration_end")])
data = pre + pair * ((_file.WHOLE + len(pair)) // len(pair))
assert _file.WHOLE < len(data), len(data)
open({str(path)!r}, "wb").write(data)
report = fxtlint.lint_path({str(path)!r}, engine={engine!r})  # read a chunk at a time: a stream's walk
assert report.counts == {{}} and report.records > _file.WHOLE // 16, report
assert fxtlint.lint_bytes(data[:len(pre) + (28 << 10)], engine={engine!r}).records > (28 << 10) // 16
"""
    assert loaded_after(code)["numpy"] is False


def test_a_small_file_of_many_durations_is_paired_without_numpy():
    """The pairing batch of 600 events goes to the loop (or its compiled twin), never to
    an array."""
    code = """
import fxtlint
from fxtlint.engine import _native
from fxtlint import build as B
pre = [B.magic(), B.provider_info(1, "p"), B.provider_section(1), B.string(1, "c"), B.string(2, "n"),
       B.thread(1, 10, 11)]
evs = [B.event("duration_begin" if i % 2 == 0 else "duration_end", i) for i in range(600)]
data = B.archive(*pre, *evs)
assert len(data) < 14 << 10, len(data)
assert fxtlint.lint_bytes(data).counts == {}, fxtlint.lint_bytes(data).counts
"""
    assert loaded_after(code)["numpy"] is False


def imported_by(*args: str, env: dict | None = None) -> set[str]:
    """Every module ``python -X importtime ARGS`` imports (its own report, on stderr), run
    with ``env`` (default: this process's environment) and the tests' fxtlint first."""
    env = dict(os.environ if env is None else env, PYTHONPATH=PACKAGE_ROOT)
    proc = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True,
                          cwd=ELSEWHERE, env=env, check=False)
    assert proc.returncode in (0, 1), proc.stderr[-2000:]
    return {line.rpartition("|")[2].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_import_fxtlint_imports_no_numpy():
    assert "numpy" not in imported_by("-c", "import fxtlint")


@pytest.mark.parametrize("fmt", ["rich", "json"])
def test_the_command_line_imports_no_numpy(fmt):
    """``python -m fxtlint FILE``, text to a pipe and JSON (the issue's start-up target)."""
    got = imported_by("-m", "fxtlint", "--output-format", fmt, str(SAMPLE))
    assert "fxtlint.cli.check" in got  # the report is read right: the lint's modules are in it
    assert "numpy" not in got


# the module only a lint imports: the native walk's driver, or the reference engine's
# ``Walk`` where the walk is not built (an install with no compiler)
NATIVE = _native.walks_natively(None)
LINTED = "fxtlint.engine._walk_native" if NATIVE else "fxtlint.engine._walk"

# what ``fxtlint FILE`` was made to do without (bench/startup.py): argparse with gettext and
# locale (``check.parsed_simply`` reads a plain argv); re (the patterns of baselines and of
# unprintable lines, compiled at their first use; fnmatch's, for --exclude); the archive
# builders, the encoder and the mutation helpers (``rules._later``: a lint calls none)
DEFERRED = ("argparse", "gettext", "locale", "fxtlint.cli._parser", "re", "fnmatch", "fxtlint.spec._build",
            "fxtlint.spec._encoder", "fxtlint.rules._mutate", "fxtlint.rules._ex")


@pytest.mark.parametrize("argv", [["--output-format", "rich"], ["--output-format=rich", "-q", "--select", "PR,RB"]])
def test_the_command_line_of_a_file_and_plain_options_builds_no_parser(argv):
    got = imported_by("-m", "fxtlint", *argv, str(SAMPLE))
    assert LINTED in got  # it linted
    # (what the interpreter imports before any code runs is not the lint's: an editable
    # install's finder brings re and fnmatch)
    got -= imported_by("-c", "pass")
    assert set(DEFERRED).isdisjoint(got), sorted(set(DEFERRED) & got)


def test_an_argv_argparse_reads_imports_it():
    """The failing twin: an option ``parsed_simply`` leaves to argparse brings it (short
    options run together)."""
    got = imported_by("-m", "fxtlint", "-qj1", str(SAMPLE))
    assert {"argparse", "gettext", "locale", "fxtlint.cli._parser"} <= got


def test_a_rules_mutation_imports_the_builders_at_its_first_call():
    """The other twin: the registry alone imports no builder; a mutation's first call does,
    and makes what its helpers make."""
    code = """
import sys
import fxtlint.rules as R
assert "fxtlint.spec._build" not in sys.modules
class Pick:
    def integers(self, lo, hi): return lo
    def sampled_from(self, values): return values[0]
recs = [R.layout.B.magic()]
from fxtlint.rules import _mutate as M
from fxtlint.spec import _build as B
assert R.magic_repeated.mutation(recs, Pick()) == M.append(B.magic())(recs, Pick())
assert R.record_size_zero.mutation(recs, Pick()) == M.size_zero(recs, Pick())
assert R.layout.B is B and R.layout.M is M  # the modules themselves, bound at the first use
"""
    modules = ("fxtlint.spec._build", "fxtlint.spec._encoder", "fxtlint.rules._mutate")
    assert loaded_after("import fxtlint.rules", (*modules, "fxtlint.rules._ex")) == \
        dict.fromkeys((*modules, "fxtlint.rules._ex"), False)
    assert loaded_after(code, modules) == dict.fromkeys(modules, True)


# every verb that reads a trace, on the sample: (its arguments, a module it imports, what it writes)
VERBS = {
    "export": (["export", str(SAMPLE), "-o", "{out}"], "fxtlint.export._export_tef", "out"),
    "decode": (["decode", str(SAMPLE)], "fxtlint.reader_suite._canonical", None),
    "report": (["report", "--format", "json", "-o", "{tmp}", str(SAMPLE)], "fxtlint.writer_report._coverage", "tmp"),
    "slice": (["slice", str(SAMPLE), "-o", "{out}", "--split-size", "1MB"], "fxtlint.rewrite._slice", "tmp"),
    "repair": (["repair", str(SAMPLE), "-o", "{out}"], "fxtlint.rewrite._repair", "out"),
}


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_imports_no_numpy(verb, tmp_path):
    """``fxtlint export``, ``decode``, ``report``, ``slice`` and ``repair`` of a trace: the
    native walk where it is built, the reference path otherwise, and no numpy either way."""
    argv, module, writes = VERBS[verb]
    out = tmp_path / "out.fxt"
    got = imported_by("-m", "fxtlint", *(a.format(out=out, tmp=tmp_path) for a in argv))
    assert module in got  # the verb ran its own modules
    assert writes is None or any(tmp_path.iterdir())
    assert "numpy" not in got


@pytest.mark.parametrize("fmt", ["rich", "json"])
def test_output_to_a_pipe_imports_no_rich_and_no_toml(fmt):
    """Text or JSON on stdout and stderr not a terminal: no rich console is made (the text
    is ``PlainConsole``'s, no progress bar can be drawn), and the spec tables come from
    their cache (``--isolated``: no pyproject.toml is read either)."""
    import os

    from fxtlint.spec._tables import cache_path, parsed_tables

    parsed_tables()  # the cache, written if it is not there yet
    env = {k: "" for k in ("TTY_COMPATIBLE", "FORCE_COLOR")}
    got = imported_by("-m", "fxtlint", "--output-format", fmt, "--isolated", str(SAMPLE),
                      env={k: v for k, v in os.environ.items() if k not in env})
    assert "fxtlint.engine._lint" in got
    assert not any(m == "rich" or m.startswith("rich.") for m in got), sorted(m for m in got if "rich" in m)
    if os.path.isfile(cache_path()):  # (a read-only install parses on every start)
        assert "tomllib" not in got
    assert {"xml.etree.ElementTree", "fxtlint.render._render_sarif"}.isdisjoint(got)  # other formats' renderers
    assert "fxtlint.engine._parallel" not in got  # one file, no worker
    assert "fxtlint.engine._hexview" not in got  # a clean file: no hex view drawn
    if NATIVE:  # a lint of whole bytes on the native walk builds no reference ``Walk`` (``_lint.lint_whole``)
        assert {"fxtlint.engine._walk", "fxtlint.engine._feeder"}.isdisjoint(got)
    if installed_wheel():  # its version is read from the dist-info folder's name
        assert "importlib.metadata" not in got
        # (an editable install's metadata look-up brings both)
        assert {"shutil", "typing", "dataclasses"}.isdisjoint(got)
    if fmt == "rich":  # no version asked for: the lint's own imports, whatever the install
        code = f"from fxtlint.cli import main; main([{str(SAMPLE)!r}, '--isolated'])"
        modules = ("typing", "shutil", "dataclasses", "inspect", "threading", "string")
        assert loaded_after(code, modules) == dict.fromkeys(modules, False)


def installed_wheel() -> bool:
    import os

    import fxtlint
    from fxtlint.spec._version import _dist_info_version

    return _dist_info_version(os.path.dirname(os.path.dirname(os.path.realpath(fxtlint.__file__)))) is not None


def test_the_version_is_the_distributions():
    """The dist-info folder's name (an installed wheel) or the metadata (anything else) say
    the same version."""
    from importlib import metadata

    from fxtlint.spec._version import __version__, tool_version

    try:
        expected = metadata.version("fxtlint")
    except metadata.PackageNotFoundError:
        expected = __version__
    assert tool_version() == expected


@pytest.mark.parametrize("names, expected", [
    (["fxtlint-1.2.3.dist-info"], "1.2.3"),
    (["fxtlint-1.2.3.dist-info", "other-4.0.dist-info", "fxtlint"], "1.2.3"),
    ([], None),
    (["fxtlint-1.2.3.dist-info", "fxtlint-1.2.4.dist-info"], None),  # two installs: the metadata decides
    (["fxtlint-1.2.3.egg-info"], None),
])
def test_the_dist_info_folder_names_the_version(tmp_path, names, expected):
    from fxtlint.spec._version import _dist_info_version

    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "METADATA").write_text("Metadata-Version: 2.1\n")
    assert _dist_info_version(str(tmp_path)) == expected
    assert _dist_info_version(str(tmp_path / "missing")) is None


@pytest.mark.parametrize("env, isatty, expect", [
    ({}, False, False),  # a pipe or a file: no console, no rich
    ({}, True, True),
    ({"FORCE_COLOR": "1"}, False, True),  # rich calls it a terminal: rich decides
    ({"TTY_COMPATIBLE": "1"}, False, True),
])
def test_the_progress_bar_console_is_made_only_where_rich_may_draw(monkeypatch, env, isatty, expect):
    import io

    from fxtlint.cli import _progress

    class Err(io.StringIO):
        def isatty(self):
            return isatty

    for k in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setattr(sys, "stderr", Err())
    console = _progress.stderr_console()
    assert (console is not None) == expect
    if console is not None:
        assert console.is_terminal


def test_the_console_entry_lints_and_leaves_its_objects_frozen():
    """``fxtlint`` (the console script) and ``python -m fxtlint`` run ``console``: main's
    exit status, and every object frozen for the collections at exit (bench/startup.py);
    ``main`` itself, a library caller's, freezes nothing."""
    code = f"""
import contextlib, gc, io, sys
from fxtlint.cli import console, main
with contextlib.redirect_stdout(io.StringIO()):
    assert main([{str(SAMPLE)!r}]) == 0 and gc.get_freeze_count() == 0
sys.argv = ["fxtlint", "--output-format", "json", {str(SAMPLE)!r}]
rc = console()
print(rc, gc.get_freeze_count() > 1000, file=sys.stderr)
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ELSEWHERE,
                          env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT), check=True)
    assert proc.stderr.split() == ["0", "True"]
    assert [f["records"] for f in json.loads(proc.stdout)["files"]] == [29]


@pytest.mark.parametrize("columns", [None, "", "x", "0", "-3", "57", "200"])
def test_the_help_width_is_shutils(monkeypatch, columns):
    """The parser's formatters are as wide as argparse makes them (shutil's terminal
    size), without importing shutil."""
    import argparse
    import shutil

    from fxtlint.cli._parser import Parser, _columns

    if columns is None:
        monkeypatch.delenv("COLUMNS", raising=False)
    else:
        monkeypatch.setenv("COLUMNS", columns)
    assert _columns() == shutil.get_terminal_size().columns
    parser = Parser(prog="p", description="word " * 40)
    assert parser.format_help() == argparse.ArgumentParser(prog="p", description="word " * 40).format_help()


# the ``fxtlint`` command as pip writes it from ``[project.scripts]``: pip before 2025 (the one
# a fresh venv of Python 3.11 bundles) imports re first; later pips and uv do not
# (pypa/pip#13166), hence the two ``re`` lines
RENAME_ARGV0 = "    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])\n"


def console_script(*, with_re: bool = True) -> str:
    import tomllib

    entry = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]["fxtlint"]
    module, _, func = entry.partition(":")
    return ("import re\n" if with_re else "") + f"import sys\nfrom {module} import {func}\n" + \
        "if __name__ == '__main__':\n" + (RENAME_ARGV0 if with_re else "") + f"    sys.exit({func}())\n"


def test_the_console_script_imports_what_python_m_does():
    """``fxtlint FILE`` (pip's script, run as a file is: ``-c``) imports the modules of
    ``python -m fxtlint FILE``, and beyond them only what pip's script itself imports."""
    argv = ("--output-format", "rich", str(SAMPLE))
    by_m = imported_by("-m", "fxtlint", *argv)
    scripts = [console_script()]
    installed = Path(sys.executable).parent / "fxtlint"  # the one pip wrote, where there is one (CI's wheel)
    if installed.is_file():
        scripts.append(installed.read_text())
    for text in scripts:
        script = imported_by("-c", text, *argv)
        assert LINTED in script  # it linted
        beyond = script - by_m
        assert beyond <= {"re", "re._casefix", "re._compiler", "re._constants", "re._parser", "copyreg", "_sre"}, \
            (text, beyond)
    assert set(DEFERRED).isdisjoint(imported_by("-c", console_script(with_re=False), *argv) - imported_by("-c", "pass"))


# a fresh interpreter imports the console entry as pip's script does, then the entry runs
# with ``main`` replaced by a probe: how many collections ran while the entry imported the
# command line's modules, whether they are imported and frozen, and the collector's state
ENTRY_PROBE = """
import gc, json, sys
{entry_import}
library = [gc.isenabled(), gc.get_freeze_count()]
collections = []
gc.callbacks.append(lambda phase, info: collections.append(info["generation"]) if phase == "start" else None)
{run}
"""


def probe(entry_import: str, run: str) -> dict:
    code = ENTRY_PROBE.format(entry_import=entry_import, run=run)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ELSEWHERE, check=True,
                          env=dict(os.environ, PYTHONPATH=PACKAGE_ROOT))
    return json.loads(proc.stdout.splitlines()[-1])


def test_the_console_entry_collects_nothing_while_it_imports():
    """The command's entry (``cli.console``, what ``[project.scripts]`` names) imports the
    engine, the rules and the tables with the collector off, freezes what they made and
    turns the collector back on before the lint; importing the entry's module (a library
    caller of ``fxtlint.cli.main``) leaves the collector as it was."""
    entry = console_script(with_re=False).split("\n")[1]  # from MODULE import FUNC
    func = entry.rpartition(" ")[2]
    run = f"""
import fxtlint.cli as cli
def main():
    print(json.dumps(dict(library=library, collections=len(collections), enabled=gc.isenabled(),
                          frozen=gc.get_freeze_count(), engine="fxtlint.engine._lint" in sys.modules)))
    return 0
cli.main = main
assert {func}() == 0
"""
    got = probe(entry, run)
    assert got["library"] == [True, 0]  # imported as a library is: the collector untouched
    assert got["engine"] and got["enabled"] and got["frozen"] > 10_000, got
    assert got["collections"] == 0, got


def test_the_probe_sees_collections_while_the_engine_imports():
    """The failing twin: the same modules imported with the collector on are collected
    (the gc callback the probe reads sees them)."""
    run = """
from fxtlint.cli import _common
print(json.dumps(dict(library=library, collections=len(collections), frozen=gc.get_freeze_count())))
"""
    got = probe("import fxtlint.cli", run)
    assert got["library"] == [True, 0] and got["frozen"] == 0
    assert got["collections"] > 5, got
