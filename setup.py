"""Build the native kernel when a C compiler is at hand; install without it when not.

The kernel (``fxtlint/engine/_kernel.c``: the walk's scan step) and the text filler
(``fxtlint/engine/_textfill.c``: the JSON rows of export and decode) are optional
extensions: when they do not compile
(no compiler, no Python headers), setuptools warns and the install goes on with the
pure Python engine (``fxtlint --version`` says which engine is active). The wheel also
carries the folders of ``PACKAGED``, copied into the package.
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
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


def native_pairing() -> list:
    """The compiled pairing engine (``fxtlint/engine/_npairing.pyx``, Cython 3 in C++ mode):
    cythonized here when Cython is at hand, from the generated C++ an sdist ships when it is
    not, else none: optional, the install goes on with the Python engine."""
    pyx, cpp = "fxtlint/engine/_npairing.pyx", "fxtlint/engine/_npairing.cpp"
    try:
        from Cython.Build import cythonize
    except ImportError:
        if not (HERE / cpp).exists():
            return []
        return [Extension("fxtlint.engine._npairing", [cpp], language="c++", optional=True)]
    try:
        exts = cythonize([Extension("fxtlint.engine._npairing", [pyx], language="c++")], language_level=3,
                         quiet=True)
    except Exception as e:  # noqa: BLE001 - an optional extension: say why and go on
        print(f"warning: the native pairing engine is not built: {e}")
        return []
    for ext in exts:
        ext.optional = True  # (cythonize makes new Extensions, and does not carry this over)
    return exts


setup(
    cmdclass={"build_py": build_py_with_data},
    ext_modules=[Extension("fxtlint.engine._kernel", ["fxtlint/engine/_kernel.c"], optional=True),
                 Extension("fxtlint.engine._textfill", ["fxtlint/engine/_textfill.c"], optional=True),
                 *native_pairing()],
)
