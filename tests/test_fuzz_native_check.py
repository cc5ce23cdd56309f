"""fuzz/native_check.py: .clusterfuzzlite/build.sh stops when a native module of setup.py
did not build (every extension is optional), or did not build under the sanitizer flags."""

from __future__ import annotations

import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from fuzz import native_check  # noqa: E402


def test_every_extension_of_setup_py_is_checked():
    names = native_check.declared()
    assert names == ["fxtlint.engine._nwalk", "fxtlint.engine._npairing"]
    for pyx in (REPO / "fxtlint" / "engine").glob("*.pyx"):  # each Cython module setup.py builds
        assert f"fxtlint.engine.{pyx.stem}" in names
    assert len(names) == len(set(names))


def test_declared_reads_both_kinds_of_extension(tmp_path):
    setup = tmp_path / "setup.py"
    setup.write_text('ext_modules=[Extension("fxtlint.engine._a", ["a.c"]),\n'
                     '             *cython_extension("_b", "the b"), Extension(f"fxtlint.engine.{name}", [])]\n')
    assert native_check.declared(setup) == ["fxtlint.engine._a", "fxtlint.engine._b"]


@pytest.mark.parametrize("cflags, wanted", [
    ("", {}),
    ("-O1 -fno-omit-frame-pointer -gline-tables-only", {}),
    ("-O1 -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link",
     {"address": b"__asan_", "fuzzer-no-link": b"__sanitizer_cov_"}),
    ("-fsanitize=array-bounds,bool,null", {}),  # UBSan's checks: not looked for (a module may have none)
])
def test_the_instrumentation_the_flags_ask_for(cflags, wanted):
    assert native_check.expected_instrumentation(cflags) == wanted


def test_a_module_that_did_not_build_is_named(monkeypatch, capsys):
    monkeypatch.setattr(native_check, "declared", lambda: ["fxtlint.engine._no_such_module", "fxtlint.engine._walk"])
    assert native_check.main([]) == 1
    out, err = capsys.readouterr()
    assert "fxtlint.engine._no_such_module: not imported: No module named 'fxtlint.engine._no_such_module'" in out
    assert "fxtlint.engine._walk: not a compiled module" in out  # the pure module of that name is no build
    assert err.startswith("native_check: 2 of 2 native modules did not build: fxtlint.engine._no_such_module, "
                          "fxtlint.engine._walk (")


def _shared_object(tmp_path: Path, *flags: str) -> Path:
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    src = tmp_path / "m.c"
    src.write_text("int f(int *p, int i) { return p[i]; }\n")
    out = tmp_path / f"m{len(flags)}.so"
    proc = subprocess.run([cc, "-shared", "-fPIC", "-O1", *flags, str(src), "-o", str(out)], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        pytest.skip(f"{cc} {' '.join(flags)} cannot build here: {proc.stderr.strip()[-200:]}")
    return out


def test_a_module_built_without_the_sanitizer_is_named(tmp_path, monkeypatch):
    plain, asan = _shared_object(tmp_path), _shared_object(tmp_path, "-fsanitize=address")
    files = {"m.plain": plain, "m.asan": asan}
    monkeypatch.setattr(native_check.importlib, "import_module",
                        lambda name: types.SimpleNamespace(__file__=str(files[name])))
    lines, failed = native_check.check(["m.plain", "m.asan"], "-O1 -fsanitize=address")
    assert failed == ["m.plain"]
    assert lines == [f"m.plain: {plain}: built without -fsanitize=address (no __asan_ references)",
                     f"m.asan: {asan} (instrumented: -fsanitize=address)"]
    assert native_check.check(["m.plain"], "")[1] == []  # no sanitizer asked for: importing is enough


def test_the_installed_native_modules_pass_where_they_are_built():
    """The venv's own build: every module imports (FXTLINT_EXPECT_NATIVE, as CI sets it
    where a compiler is, makes a missing one a failure here too)."""
    import os

    lines, failed = native_check.check(native_check.declared())
    if failed and not os.environ.get("FXTLINT_EXPECT_NATIVE"):
        pytest.skip(f"the native modules are not built here: {failed}")
    assert failed == [], lines


def test_build_sh_runs_the_check_after_the_install_under_the_preloaded_runtime():
    text = (REPO / ".clusterfuzzlite" / "build.sh").read_text()
    install, check = text.index("\npip3 install ."), text.index("fuzz/native_check.py --cflags")
    assert install < check < text.index("compile_python_fuzzer \"$fuzzer\"")
    assert 'LD_PRELOAD="$runtime"' in text and 'runtime="$OUT/sanitizer_with_fuzzer.so"' in text
    assert text.startswith("#!/bin/bash -eu")  # a failing check stops the build
