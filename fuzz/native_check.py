"""Did the native code build? ``python3 fuzz/native_check.py [--cflags FLAGS]``, run by
.clusterfuzzlite/build.sh after ``pip3 install .``.

Every extension of setup.py is optional: where one does not compile (under the service's
sanitizer flags, say) setuptools warns and the install goes on without it, and the
harnesses then fuzz the pure Python engine unawares. This imports each extension setup.py
declares, from the installed package, and with ``--cflags`` checks that each carries the
instrumentation those flags ask for (``-fsanitize=address``: ASan's ``__asan_`` calls;
``-fsanitize=fuzzer-no-link``: libFuzzer's ``__sanitizer_cov_`` counters). One line per
module; exit 1 naming each that did not import or is not instrumented, 0 when all are.

Run it as the service runs the harnesses: an address build's modules import only with the
sanitizer runtime preloaded (build.sh sets ``LD_PRELOAD=$OUT/sanitizer_with_fuzzer.so``).
Standard library only, and the installed fxtlint: the checkout's folder is not on the path
(a script's folder is, and this one's holds no ``fxtlint``).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

SETUP = Path(__file__).resolve().parent.parent / "setup.py"
# a sanitizer flag -> the symbols every module built under it references
INSTRUMENTATION = {"address": b"__asan_", "fuzzer-no-link": b"__sanitizer_cov_"}


def declared(setup: Path = SETUP) -> list[str]:
    """The extension modules setup.py builds: its ``Extension("fxtlint.engine.X", ...)``
    and ``cython_extension("X", ...)`` calls, in order."""
    text = setup.read_text()
    names = re.findall(r'Extension\(\s*"(fxtlint\.[\w.]+)"', text)
    names += [f"fxtlint.engine.{n}" for n in re.findall(r'cython_extension\(\s*"(\w+)"', text)]
    return names


def expected_instrumentation(cflags: str) -> dict[str, bytes]:
    """The instrumentation ``cflags`` asks for: {what: a symbol prefix every module references}."""
    wanted = {}
    for value in re.findall(r"-fsanitize=([\w,-]+)", cflags):
        for name in value.split(","):
            if name in INSTRUMENTATION:
                wanted[name] = INSTRUMENTATION[name]
    return wanted


def check(modules, cflags: str = "") -> tuple[list[str], list[str]]:
    """(a line per module, the modules that failed: not imported or not instrumented)."""
    wanted = expected_instrumentation(cflags)
    lines, failed = [], []
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except Exception as e:  # ImportError, or an undefined symbol of a runtime not preloaded
            why = (str(e).strip().splitlines() or [type(e).__name__])[-1]
            lines.append(f"{name}: not imported: {why}")
            failed.append(name)
            continue
        path = Path(getattr(mod, "__file__", "") or "")
        if path.suffix not in (".so", ".pyd"):
            lines.append(f"{name}: not a compiled module ({path})")
            failed.append(name)
            continue
        data = path.read_bytes()
        missing = [what for what, symbol in wanted.items() if symbol not in data]
        if missing:
            lines.append(f"{name}: {path}: built without -fsanitize={','.join(missing)} (no "
                         f"{', '.join(wanted[m].decode() for m in missing)} references)")
            failed.append(name)
        else:
            lines.append(f"{name}: {path}" + (f" (instrumented: -fsanitize={','.join(wanted)})" if wanted else ""))
    return lines, failed


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cflags", default="", help="the flags the install compiled with ($CFLAGS)")
    args = ap.parse_args(argv)
    modules = declared()
    lines, failed = check(modules, args.cflags)
    print(f"native modules: {len(modules)} declared in setup.py")
    for line in lines:
        print(f"  {line}")
    if failed:
        print(f"native_check: {len(failed)} of {len(modules)} native modules did not build"
              + (f" under CFLAGS={args.cflags!r}" if args.cflags else "") + f": {', '.join(failed)} "
              "(every extension is optional, so pip went on without it: `pip3 install -v .` shows the "
              "compiler's error)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
