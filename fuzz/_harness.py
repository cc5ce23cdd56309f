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
    package (``pip install '.[fuzz]'``, with its native walk) and the checkout's sources
    only without an install. ``python -m fuzz`` from the checkout puts the working folder
    first, and ``PYTHONPATH`` the checkout: either would put its sources (no native walk) under
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
    walk = _native.nwalk()
    if walk is not None:
        engine += f", native walk {walk.__file__}"
    return f"fxtlint under test: {Path(fxtlint.__file__).parent} ({engine})"


prefer_installed()


def fuzz(check, argv=None, *, structured: bool = True) -> None:
    """Run ``check`` under libFuzzer with coverage from fxtlint's code only; with
    ``structured`` (inputs are FXT bytes) through the structure-aware mutator."""
    import atheris  # only the fuzzer needs it; tests import the harnesses without it
    import mutator

    custom = structured and os.environ.get("FXTLINT_FUZZ_MUTATOR", "structure") != "bytes"
    if custom and libfuzzer_preloaded():
        ensure_preloaded_mutators()  # re-executes this process with them, or exits saying why
    instrument_fxtlint(atheris)
    kw = {}
    if custom:
        kw = dict(custom_mutator=mutator.mutate, custom_crossover=mutator.crossover)
    argv = list(argv or sys.argv)
    if not getattr(sys, "frozen", False):  # a PyInstaller bundle (OSS-Fuzz) is executable already
        argv[0] = launcher(argv[0])
    atheris.Setup(argv, check, **kw)
    if custom and libfuzzer_preloaded():
        forward_mutators()
    atheris.Fuzz()


# ------------------------------------------------------------------ a preloaded libFuzzer
# Under LD_PRELOAD=asan_with_fuzzer.so (OSS-Fuzz's wrapper in an address build; the native
# campaign) libFuzzer binds LLVMFuzzerCustomMutator/CustomCrossOver when it is loaded,
# before atheris is, and finds none (google/atheris#54): fuzzing would go byte by byte
# without a word. preload/custom_mutator_preload.c defines both, preloaded beside it, and
# forwards to atheris's once forward_mutators() hands them over.
PRELOAD_SOURCE = _HERE / "preload" / "custom_mutator_preload.c"
PRELOAD_NAME = "custom_mutator_preload.so"
_PRELOAD_TRIED = "FXTLINT_FUZZ_PRELOAD_TRIED"  # set on the re-executed process: never loop


def _symbol(name: str) -> bool:
    import ctypes

    try:
        getattr(ctypes.CDLL(None), name)
    except AttributeError:
        return False
    return True


def libfuzzer_preloaded() -> bool:
    """libFuzzer is in the process before atheris (what atheris calls 'preloaded')."""
    return _symbol("LLVMFuzzerRunDriver")


def preload_library() -> Path:
    """The forwarding library: bundled beside a frozen harness (.clusterfuzzlite/build.sh
    builds it), else compiled once from its source with ``$CC`` (default cc) into the temp
    folder. Raises RuntimeError saying why when there is none."""
    import hashlib
    import subprocess

    if getattr(sys, "frozen", False):
        lib = Path(getattr(sys, "_MEIPASS", "")) / PRELOAD_NAME
        if not lib.is_file():
            raise RuntimeError(f"{lib} is not in the bundle (.clusterfuzzlite/build.sh adds it with --add-binary)")
        return lib
    source = PRELOAD_SOURCE.read_bytes()
    lib = Path(tempfile.gettempdir()) / f"fxtlint-fuzz-{os.getuid()}-{hashlib.sha1(source).hexdigest()[:12]}.so"
    if not lib.is_file():
        cc = shlex.split(os.environ.get("CC", "cc"))
        tmp = lib.with_suffix(f".{os.getpid()}.so")
        try:
            out = subprocess.run([*cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(PRELOAD_SOURCE)],
                                 capture_output=True, text=True, env={k: v for k, v in os.environ.items()
                                                                      if k != "LD_PRELOAD"})
        except OSError as e:
            raise RuntimeError(f"cannot compile {PRELOAD_SOURCE}: {e}") from None
        if out.returncode != 0:
            raise RuntimeError(f"cannot compile {PRELOAD_SOURCE}:\n{out.stderr[-2000:]}")
        tmp.replace(lib)
    return lib


def ensure_preloaded_mutators() -> None:
    """With libFuzzer preloaded, make sure the forwarding library is preloaded too:
    re-execute this process with it appended to LD_PRELOAD (after the sanitizer runtime,
    which must come first). Where that cannot be done, exit with status 1 saying so: a
    campaign that silently fuzzes byte by byte is worse than none."""
    if _symbol("fxtlint_fuzz_forward"):
        return
    why = "it was preloaded but is not in the process" if os.environ.get(_PRELOAD_TRIED) else ""
    if not why:
        try:
            lib = preload_library()
        except RuntimeError as e:
            why = str(e)
    if why:
        sys.stderr.write(f"ERROR: libFuzzer is preloaded (LD_PRELOAD={os.environ.get('LD_PRELOAD', '')}) and "
                         "would not use the structure-aware mutator (google/atheris#54); the forwarding library "
                         f"could not be preloaded beside it: {why}. FXTLINT_FUZZ_MUTATOR=bytes fuzzes byte by "
                         "byte knowingly.\n")
        sys.stderr.flush()
        os._exit(1)
    preload = " ".join(filter(None, [os.environ.get("LD_PRELOAD", ""), str(lib)]))
    env = dict(os.environ, LD_PRELOAD=preload, **{_PRELOAD_TRIED: "1"})
    sys.stderr.write(f"INFO: libFuzzer is preloaded: re-running with {lib} preloaded for the custom mutator\n")
    sys.stderr.flush()
    if getattr(sys, "frozen", False):
        os.execve(sys.executable, [sys.executable, *sys.argv[1:]], env)
    os.execve(sys.executable, list(sys.orig_argv), env)


def forward_mutators() -> None:
    """Hand atheris's custom mutator and crossover (its own C entry points, which call the
    Python functions Setup was given) to the preloaded forwarding library."""
    import ctypes
    import importlib

    entry = []
    for module, name in (("atheris.custom_mutator", "LLVMFuzzerCustomMutator"),
                         ("atheris.custom_crossover", "LLVMFuzzerCustomCrossOver")):
        lib = ctypes.CDLL(importlib.import_module(module).__file__)  # the module atheris uses: the same handle
        entry.append(ctypes.cast(getattr(lib, name), ctypes.c_void_p))
    forward = ctypes.CDLL(None).fxtlint_fuzz_forward
    forward.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    if forward(*entry) != 1:
        sys.stderr.write("ERROR: the forwarding library did not take atheris's custom mutator\n")
        os._exit(1)
    sys.stderr.write("INFO: structure-aware mutator forwarded to the preloaded libFuzzer\n")


def launcher(script: str) -> str:
    """An executable that runs ``script`` with this Python.

    libFuzzer re-runs argv[0] through the shell for -jobs, -workers, -fork, -merge and
    -minimize_crash; a Python harness is not executable itself, so hand it this. Its name
    is keyed by the script's path and the Python (not by the harness's name alone): two
    checkouts on one machine, or two venvs, each get their own, so one campaign's merge
    never runs another checkout's harness."""
    import hashlib

    target = f"{sys.executable}\0{Path(script).resolve()}"
    key = hashlib.sha1(target.encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / f"fxtlint-fuzz-{os.getuid()}-{Path(script).stem}-{key}"
    text = f"#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(Path(script).resolve()))} \"$@\"\n"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}")
        tmp.write_text(text)
        tmp.chmod(0o755)
        tmp.replace(path)  # atomic: parallel workers may write it at once
    return str(path)


def instrument_fxtlint(atheris, cache: bool = True) -> int:
    """Instrument the functions of fxtlint's modules (nested code included), and nothing
    else; returns how many.

    Comparisons are traced (libFuzzer's CMP feedback) everywhere in fxtlint (atheris 3.0.0's
    COMPARE_OP hook keeps a reference to every comparison result that is not a bool
    singleton: each ``array == x`` of the numpy column engine leaked its result array, and
    its modules were left untraced until the engine went, fuzz/README.md, "Memory").
    ``atheris.instrument_all()`` would also instrument hypothesis, the standard library and
    the mutator.

    Patching is about 4 s of CPU (1,600 functions rewritten in Python), at every start of a
    harness. With ``cache``, the patched code is kept in the temporary folder, keyed by the
    original code of every function, atheris's version and Python's, and the next start
    takes it (``_instrumented``) when atheris hands out the same coverage counters."""
    from atheris.instrument_bytecode import patch_code

    import fxtlint

    for info in pkgutil.walk_packages(fxtlint.__path__, "fxtlint."):  # lazily imported ones too
        if not info.name.endswith("__main__"):
            try:
                importlib.import_module(info.name)
            except ImportError:  # an optional extra (fxtlint.testing needs pytest): nothing to fuzz there
                pass
    funcs = [obj for obj in gc.get_objects() if isinstance(obj, types.FunctionType)
             and (obj.__module__ or "").partition(".")[0] == "fxtlint" and obj.__module__ not in UNTRACED]
    # one order in every process, so that each function gets the same coverage counters
    # (generated code, a namedtuple's or the text filler's lambdas, shares a place: its
    # code decides; functions alike in all of it are closures of one code, interchangeable)
    texts = {id(f): canonical(f.__code__) for f in funcs}
    funcs.sort(key=lambda f: (f.__module__, f.__code__.co_filename, f.__code__.co_firstlineno, f.__qualname__,
                              texts[id(f)]))
    flags = [True] * len(funcs)  # every comparison traced
    path = _instrumented(atheris, funcs, flags, texts) if cache else None
    global INSTRUMENTED_FROM
    if path is not None and _take_instrumented(atheris, funcs, path):
        INSTRUMENTED_FROM = "cache"
        return len(funcs)
    INSTRUMENTED_FROM = "patched"
    first = atheris._reserve_counter()  # the counters the patched code uses lie between these two
    patched = [patch_code(f.__code__, trace_dataflow=flag) for f, flag in zip(funcs, flags)]
    last = atheris._reserve_counter()
    for f, code in zip(funcs, patched):
        f.__code__ = code
    if path is not None:
        _keep_instrumented(atheris, path, first, last, patched)
    return len(funcs)


# Modules left uninstrumented (they still run, and a crash or failed assertion in them is
# still found): the plumbing every diagnostic goes through, whose branches every input
# takes alike, and whose callbacks were 31% of the preloaded run's malloc calls on 16 KB
# inputs (fuzz/README.md, "Speed under the preload"): the diagnostics' sink and cap,
# building and rendering a diagnostic, the frozen tables' lookups.
UNTRACED = frozenset({"fxtlint.engine._result", "fxtlint.rules._diagnostics", "fxtlint.spec._model",
                      "fxtlint.spec._tables"})

_ATHERIS = "__FXTLINT_ATHERIS_MODULE__"  # the module constant patched code holds, in the cache
INSTRUMENTED_FROM = ""  # how instrument_fxtlint patched: "patched" (atheris's patching) or "cache"


def _swap_constant(code: types.CodeType, old, new) -> types.CodeType:
    """``code`` (and its nested code) with the constant ``old`` (the atheris module, or its
    stand-in string) replaced by ``new``."""
    consts = tuple(new if (c is old or (isinstance(old, str) and isinstance(c, str) and c == old))
                   else _swap_constant(c, old, new) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    return code.replace(co_consts=consts)


def canonical(value, module=None) -> str:
    """A code object (or constant) as text that is the same in every process: what
    ``marshal`` writes is not (a frozenset's order follows the string hash's seed), so the
    cache is named by this; ``module`` (atheris) is written as its stand-in."""
    if isinstance(value, types.CodeType):
        # (its file and lines too: a traceback through kept code names where it was read)
        parts = [value.co_name, value.co_filename, str(value.co_firstlineno), value.co_code.hex(),
                 repr(value.co_names), repr(value.co_varnames), repr(value.co_freevars), repr(value.co_cellvars),
                 value.co_linetable.hex() if hasattr(value, "co_linetable") else "",
                 value.co_exceptiontable.hex() if hasattr(value, "co_exceptiontable") else ""]
        return f"<code {' '.join(parts)} ({', '.join(canonical(c, module) for c in value.co_consts)})>"
    if value is not None and value is module:
        return _ATHERIS
    if isinstance(value, (frozenset, set)):
        return "{" + ", ".join(sorted(canonical(c, module) for c in value)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(canonical(c, module) for c in value) + ")"
    return repr(value)


def _instrumented(atheris, funcs: list, flags: list, texts: dict) -> Path:
    """Where the patched code of ``funcs`` is kept: named by their original code."""
    import hashlib

    key = hashlib.sha256(f"{sys.version} {getattr(atheris, '__version__', '?')} {len(funcs)}".encode())
    for f, flag in zip(funcs, flags):
        key.update(f"{f.__module__} {f.__qualname__} {flag} {texts[id(f)]}".encode())
    return Path(tempfile.gettempdir()) / f"fxtlint-fuzz-{os.getuid()}-instrumented-{key.hexdigest()[:20]}.marshal"


def _take_instrumented(atheris, funcs: list, path: Path) -> bool:
    """Patch ``funcs`` with the code kept at ``path``; False (nothing patched) where there
    is none, it is unreadable, or atheris's counters start elsewhere than they did."""
    import marshal

    try:
        first, last, codes = marshal.loads(path.read_bytes())
    except (OSError, ValueError, EOFError, TypeError):
        return False
    if len(codes) != len(funcs) or atheris._reserve_counter() != first:
        return False
    for _ in range(first, last):  # the same counters reserved as by the patching
        atheris._reserve_counter()
    module = sys.modules["atheris"]
    for f, code in zip(funcs, codes):
        f.__code__ = _swap_constant(code, _ATHERIS, module)
    return True


def _keep_instrumented(atheris, path: Path, first: int, last: int, patched: list) -> None:
    import marshal

    module = sys.modules["atheris"]
    try:
        blob = marshal.dumps((first, last, [_swap_constant(c, module, _ATHERIS) for c in patched]))
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_bytes(blob)
        os.replace(tmp, path)
        # the newest few kept (2 MB each: one per version of the code a checkout fuzzed)
        kept = sorted(path.parent.glob(f"fxtlint-fuzz-{os.getuid()}-instrumented-*.marshal"),
                      key=lambda p: p.stat().st_mtime, reverse=True)
        for old in kept[8:]:
            old.unlink(missing_ok=True)
    except (OSError, ValueError):  # a read-only temporary folder: the next start patches again
        pass

