"""The fuzzing service's build, run here: .clusterfuzzlite/build.sh with OSS-Fuzz's
compile_python_fuzzer steps (fuzz/oss_fuzz/compile_python_fuzzer), in a fresh builder
environment with the base image's Python tools from PyPI, then every frozen harness run
on its seeds with its .options flags. A build that breaks fails here, not on the service.

Slow (a few minutes: one PyInstaller --onefile build per harness), so marked ``frozen``:
deselected by default, run by .ci/run (``pytest -m frozen tests/test_fuzz_build.py``).

Which harnesses are frozen: ``FXTLINT_FROZEN_FUZZERS``, a glob of harness file names as
build.sh's ``FXTLINT_FUZZERS`` takes it; by default ``fuzz_lint*``, ``*`` for every one.
Each PyInstaller build costs about half a minute of CPU and each run of build.sh compiles
the native code under the sanitizer's flags again, so the address build is made once
(``address_build``) and both tests of it use it. CI freezes the lint harness alone (the
service's main target, and the one whose custom mutator is checked): the harnesses differ
only in the fxtlint modules they import (``--collect-submodules fxtlint`` bundles every one
of them into each) but for strategies, which brings Hypothesis, and their staged files
tests/test_fuzz_campaign.py imports on their own in every run; with the four that stood
for the others (lint, native, stream and strategies) the step took 634 s beside CI's
other steps; with lint alone, 230 s (253 s of CPU) on the 2-core machine at load 3.
``FXTLINT_FROZEN_FUZZERS='*'`` freezes every harness.
"""

from __future__ import annotations

import configparser
import fnmatch
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
COMPILE = REPO / "fuzz" / "oss_fuzz" / "compile_python_fuzzer"
# What the base-builder image installs for Python projects (google/oss-fuzz,
# infra/base-images/base-builder/install_python.sh); pip3 in build.sh adds the rest.
IMAGE_TOOLS = ["atheris>=2.3.0", "pyinstaller==6.10.0", "setuptools==72.1.0", "coverage==6.3.2"]

pytestmark = pytest.mark.frozen
FROZEN = os.environ.get("FXTLINT_FROZEN_FUZZERS", "fuzz_lint*")

sys.path.insert(0, str(REPO))
from fuzz import HARNESSES  # noqa: E402
from fuzz.build_seeds import fuzzer_name  # noqa: E402


def _copy_checkout(dest: Path) -> None:
    """The repository's files as a fresh clone has them (build.sh writes into its folder)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                                capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: everything but build litter
        listed = [str(p.relative_to(REPO)) for p in REPO.rglob("*") if p.is_file()
                  and not any(part.startswith((".git", ".venv", ".ci-", "__pycache__")) for part in p.parts)
                  and "campaigns" not in p.parts]
    for rel in filter(None, listed):
        src = REPO / rel
        if src.is_file():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / rel)


@pytest.fixture(scope="module")
def builder(tmp_path_factory) -> dict:
    """A builder environment (the image's tools from PyPI) and a copy of the checkout at
    $SRC/fxtlint, as the Dockerfile lays them out."""
    root = tmp_path_factory.mktemp("oss-fuzz")
    venv = root / "builder"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", *IMAGE_TOOLS],
                         capture_output=True, text=True)
    assert pip.returncode == 0, pip.stderr[-3000:]
    src = root / "src"
    _copy_checkout(src / "fxtlint")
    return {"root": root, "src": src, "path": os.pathsep.join([str(venv / "bin"), str(COMPILE.parent),
                                                               os.environ["PATH"]])}


def _build(builder: dict, sanitizer: str, fuzzers: str = "*") -> Path:
    out = builder["root"] / f"out-{sanitizer}-{fuzzers.replace('*', 'all')}"
    out.mkdir()
    if sanitizer == "address":  # the image's compile step, before build.sh: the runtime the wrapper preloads
        atheris = subprocess.run([str(Path(builder["path"].split(os.pathsep)[0]) / "python"), "-c",
                                  "import atheris; print(atheris.path())"], capture_output=True, text=True)
        assert atheris.returncode == 0, atheris.stderr
        shutil.copyfile(Path(atheris.stdout.strip()) / "asan_with_fuzzer.so", out / "sanitizer_with_fuzzer.so")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(PATH=builder["path"], SRC=str(builder["src"]), OUT=str(out), SANITIZER=sanitizer,
               FXTLINT_FUZZERS=fuzzers)
    proc = subprocess.run(["bash", str(builder["src"] / "fxtlint" / ".clusterfuzzlite" / "build.sh")], env=env,
                          cwd=builder["src"], capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return out


def _run(out: Path, fuzzer: str, workdir: Path) -> subprocess.CompletedProcess:
    """The frozen harness on its seeds (one pass over them), with the flags of its
    .options file as the service passes them."""
    opts = configparser.ConfigParser()
    opts.read(out / f"{fuzzer}.options")
    flags = [f"-{k}={v}" for k, v in opts["libfuzzer"].items()]
    seeds = workdir / f"{fuzzer}-seeds"
    seeds.mkdir()
    zipped = out / f"{fuzzer}_seed_corpus.zip"
    if zipped.exists():
        zipfile.ZipFile(zipped).extractall(seeds)
        flags += ["-runs=0", str(seeds)]
    else:  # Hypothesis choice sequences: let libFuzzer make some
        flags += ["-runs=30", "-seed=1", str(seeds)]
    binary = out / f"{fuzzer}.pkg"
    binary.chmod(0o755)  # compile_python_fuzzer clears it; its wrapper sets it back
    return subprocess.run([str(binary), *flags], cwd=workdir, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def address_build(builder) -> tuple[Path, str]:
    """(the address build, the glob it was made with): the ``FROZEN`` harnesses, or every
    one where that glob leaves out fuzz_lint (the custom mutator's test runs it), made once
    for the module."""
    fuzzers = FROZEN if fnmatch.fnmatchcase("fuzz_lint", FROZEN) else "*"
    return _build(builder, "address", fuzzers), fuzzers


def test_every_harness_freezes_and_runs_on_its_seeds(builder, address_build, tmp_path):
    out, fuzzers = address_build
    names = [name for name in HARNESSES if fnmatch.fnmatchcase(Path(HARNESSES[name][0]).stem, fuzzers)]
    assert names, f"FXTLINT_FROZEN_FUZZERS={FROZEN} names no harness"
    assert sorted(p.name for p in out.glob("*_fuzzer")) == sorted(fuzzer_name(n) for n in names)
    for name in names:
        fuzzer = fuzzer_name(name)
        assert (out / fuzzer).is_file() and os.access(out / fuzzer, os.X_OK), f"{fuzzer}: no wrapper"
        proc = _run(out, fuzzer, tmp_path)
        assert proc.returncode == 0, f"{fuzzer}:\n{proc.stderr[-3000:]}"
        assert "Traceback" not in proc.stderr and re.search(r"^Done \d+ runs", proc.stderr, re.M), proc.stderr[-2000:]
        if (out / f"{fuzzer}_seed_corpus.zip").exists():
            n = len(zipfile.ZipFile(out / f"{fuzzer}_seed_corpus.zip").namelist())
            assert re.search(rf"INFO:\s+{n} files found", proc.stderr), proc.stderr[-2000:]


@pytest.mark.skipif(FROZEN != "*", reason="the coverage build is made where every harness is frozen "
                    "(FXTLINT_FROZEN_FUZZERS='*'); tests/test_fuzz_campaign.py compiles every harness behind the "
                    "coverage stub in every run")
def test_the_coverage_build_takes_the_stub_in_front_of_a_harness(builder, tmp_path):
    """OSS-Fuzz's coverage build puts its coverage stub before the harness source; a
    harness that needs to come first (a __future__ import) fails to build there. A second
    whole build (the native code compiled again, PyInstaller again): made with the full
    freeze only, as the stub's placement is checked on every harness by
    tests/test_fuzz_campaign.py."""
    out = _build(builder, "coverage", "fuzz_lint")
    staged = (builder["src"] / "fxtlint-fuzzers" / "fuzz_lint_fuzzer.py").read_text()
    assert staged.startswith("###### Coverage stub")
    proc = _run(out, "fuzz_lint_fuzzer", tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr[-3000:]


def test_the_frozen_harness_uses_the_custom_mutator_under_the_services_wrapper(address_build, tmp_path):
    """Issue 27 item 1: the service's wrapper preloads sanitizer_with_fuzzer.so (atheris's
    asan_with_fuzzer.so in an address build); libFuzzer then bound no custom mutator and
    every mutation was a byte mutation. Run through that wrapper, the frozen harness's
    libFuzzer log shows Custom mutations."""
    out = address_build[0]
    assert "LD_PRELOAD=$this_dir/sanitizer_with_fuzzer.so" in (out / "fuzz_lint_fuzzer").read_text()
    seeds, corpus = tmp_path / "seeds", tmp_path / "corpus"
    zipfile.ZipFile(out / "fuzz_lint_fuzzer_seed_corpus.zip").extractall(seeds)
    corpus.mkdir()
    proc = subprocess.run([str(out / "fuzz_lint_fuzzer"), "-runs=300", "-seed=1", "-max_len=4096", str(corpus),
                           str(seeds)], cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "INFO: Using preloaded libfuzzer" in proc.stderr, proc.stderr[-3000:]
    assert re.search(r"MS: \d+ .*Custom", proc.stderr), proc.stderr[-3000:]
