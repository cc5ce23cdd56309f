"""What every harness shares: the atheris set-up, with the structure-aware mutator.

``FXTLINT_FUZZ_MUTATOR=bytes`` turns the custom mutator off (libFuzzer's byte mutations
only), for comparisons; the default is ``structure`` (fuzz/mutator.py).
"""

from __future__ import annotations

import gc
import importlib
import os
import pkgutil
import shlex
import sys
import tempfile
import types
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def prefer_installed(repo: Path = _HERE.parent) -> None:
    """Put the checkout last on ``sys.path``, so ``import fxtlint`` finds the installed
    package (``pip install '.[fuzz]'``, with its native kernel) and the checkout's sources
    only without an install. ``python -m fuzz`` from the checkout puts the working folder
    first, and ``PYTHONPATH`` the checkout: either would put its sources (no kernel) under
    test while the harness fuzzed the installed package. Call it before importing fxtlint."""
    def here(entry: str) -> bool:
        try:
            return Path(entry or ".").resolve() == repo
        except OSError:
            return False

    sys.path[:] = [e for e in sys.path if not here(e)] + [str(repo)]


def under_test() -> str:
    """Which fxtlint this process runs: its folder and its engine (``fxtlint --version``'s words)."""
    import fxtlint
    from fxtlint.engine import _native

    engine = _native.describe()
    kernel = _native.kernel()
    if kernel is not None:
        engine += f", kernel {kernel.__file__}"
    return f"fxtlint under test: {Path(fxtlint.__file__).parent} ({engine})"


prefer_installed()


def fuzz(check, argv=None, *, structured: bool = True) -> None:
    """Run ``check`` under libFuzzer with coverage from fxtlint's code only; with
    ``structured`` (inputs are FXT bytes) through the structure-aware mutator."""
    import atheris  # only the fuzzer needs it; tests import the harnesses without it
    import mutator

    instrument_fxtlint(atheris)
    kw = {}
    if structured and os.environ.get("FXTLINT_FUZZ_MUTATOR", "structure") != "bytes":
        kw = dict(custom_mutator=mutator.mutate, custom_crossover=mutator.crossover)
    argv = list(argv or sys.argv)
    if not getattr(sys, "frozen", False):  # a PyInstaller bundle (OSS-Fuzz) is executable already
        argv[0] = launcher(argv[0])
    atheris.Setup(argv, check, **kw)
    atheris.Fuzz()


def launcher(script: str) -> str:
    """An executable that runs ``script`` with this Python.

    libFuzzer re-runs argv[0] through the shell for -jobs, -workers, -fork, -merge and
    -minimize_crash; a Python harness is not executable itself, so hand it this."""
    path = Path(tempfile.gettempdir()) / f"fxtlint-fuzz-{os.getuid()}-{Path(script).stem}"
    text = f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(Path(script).resolve()))} \"$@\"\n"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(path)  # atomic: parallel workers may write it at once
    return str(path)


def instrument_fxtlint(atheris) -> int:
    """Instrument the functions of fxtlint's modules (nested code included), and nothing
    else; returns how many.

    Comparisons are traced (libFuzzer's CMP feedback) except in modules that use numpy:
    atheris 3.0.0's COMPARE_OP hook keeps a reference to every comparison result that is
    not a bool singleton, so each ``array == x`` in the fast engine leaked its result
    array, input after input (fuzz/README.md, "Memory"). ``atheris.instrument_all()`` would
    also instrument numpy, hypothesis, the standard library and the mutator."""
    from atheris.instrument_bytecode import patch_code

    import fxtlint

    for info in pkgutil.walk_packages(fxtlint.__path__, "fxtlint."):  # lazily imported ones too
        if not info.name.endswith("__main__"):
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional extra (fxtlint.testing needs pytest): nothing to fuzz there
                pass
    n = 0
    for obj in gc.get_objects():
        if not isinstance(obj, types.FunctionType):
            continue
        name = obj.__module__ or ""
        if name.partition(".")[0] != "fxtlint":
            continue
        obj.__code__ = patch_code(obj.__code__, trace_dataflow=not uses_numpy(sys.modules.get(name)))
        n += 1
    return n


def uses_numpy(module) -> bool:
    return any(getattr(v, "__name__", "").partition(".")[0] == "numpy" for v in vars(module).values()) \
        if module is not None else True
