"""Build the native walk when a C++ compiler is at hand; install without it when not.

The native walk (``fxtlint/engine/_nwalk.pyx``, Cython 3 in C++ mode: every verb in one
compiled pass, running the screen of ``_screen.c``) and the native pairing engine
(``_npairing.pyx``, the same) are optional extensions: when they do not compile (no
compiler, no Python headers), setuptools warns and the install goes on with the reference
engine (``fxtlint --version`` says which engine is active). The wheel also
carries the folders of ``PACKAGED``, copied into the package.
"""

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

# checkout folder -> its place in the installed package: the spec tables every engine
# loads, and the reader conformance suite, so `fxtlint conformance run` works outside a
# checkout (a name that is not an identifier, so nothing walks it as a subpackage)
PACKAGED = {
    "spec-tables": "fxtlint/spec_tables",
    "corpus/conformance": "fxtlint/conformance-suite",
}


class build_py_with_data(build_py):
    """build_py, plus the folders of ``PACKAGED`` inside the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads them from the checkout
        for source, target in PACKAGED.items():
            dest = Path(self.build_lib) / target
            if dest.exists():
                shutil.rmtree(dest)
            shutil.copytree(HERE / source, dest, ignore=shutil.ignore_patterns("__pycache__", "*.py[cod]"))


class build_ext_parallel(build_ext):
    """build_ext compiling the extensions at once, one per core (``-j``, setuptools'
    ``parallel`` option) unless told otherwise: the walk's generated C++ alone takes most of
    a minute, and a fresh install or CI's wheel would otherwise build the two one by one."""

    def finalize_options(self):
        super().finalize_options()
        if not self.parallel:
            self.parallel = min(len(self.extensions or ()), os.cpu_count() or 1)

    def build_extensions(self):
        """No debug information unless CFLAGS asks for some (a sanitizer build's
        ``-gline-tables-only``): Python's own flags carry ``-g``, which makes the walk's
        object twelve times larger (12 MB against 1 MB) and its compile 40% longer (30 s
        against 18 s of g++ here), for symbols a user's install never reads."""
        if self.compiler.compiler_type == "unix" and not any(
                flag.startswith("-g") for flag in os.environ.get("CFLAGS", "").split()):
            for ext in self.extensions:
                ext.extra_compile_args = [*(ext.extra_compile_args or []), "-g0"]
        super().build_extensions()


def cython_extension(name: str, what: str, sources=(), depends=()) -> list:
    """An optional Cython extension (Cython 3, C++ mode) ``fxtlint.engine.<name>``: cythonized
    from its .pyx when Cython is at hand (a build requirement), built from the generated C++
    an sdist ships when it is not, else none; where it does not compile the install goes on
    without it (``what`` names it in the warning)."""
    pyx, cpp = f"fxtlint/engine/{name}.pyx", f"fxtlint/engine/{name}.cpp"
    try:
        from Cython.Build import cythonize
    except ImportError:
        if not (HERE / cpp).exists():
            return []
        return [Extension(f"fxtlint.engine.{name}", [cpp, *sources], language="c++", depends=list(depends),
                          optional=True)]
    try:
        exts = cythonize([Extension(f"fxtlint.engine.{name}", [pyx, *sources], language="c++",
                                    depends=list(depends))], language_level=3, quiet=True)
    except Exception as e:  # noqa: BLE001 - an optional extension: say why and go on
        print(f"warning: {what} is not built: {e}")
        return []
    for ext in exts:
        ext.optional = True  # cythonize makes new Extensions and does not carry this over
    return exts


setup(
    cmdclass={"build_py": build_py_with_data, "build_ext": build_ext_parallel},
    ext_modules=[*cython_extension("_nwalk", "the native walk", ["fxtlint/engine/_screen.c"],
                                   ["fxtlint/engine/_screen.h", "fxtlint/engine/_pairrow.h",
                                    "fxtlint/engine/_nwalk_coverage.pxi", "fxtlint/engine/_nwalk_rows.pxi"]),
                 *cython_extension("_npairing", "the native pairing engine", depends=["fxtlint/engine/_pairrow.h"])],
)
