"""Build the native kernel when a C compiler is at hand; install without it when not.

The kernel (``fxtlint/_kernel.c``) is an optional extension: when it does not compile
(no compiler, no Python headers), setuptools warns and the install goes on with the
pure Python engine (``fxtlint --version`` says which engine is active). The wheel also
carries the spec tables, copied from ``spec-tables/`` to ``fxtlint/spec_tables``.
"""

import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent


class build_py_with_tables(build_py):
    """build_py, plus spec-tables/ as the package's spec_tables folder."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads spec-tables/ from the checkout
        target = Path(self.build_lib) / "fxtlint" / "spec_tables"
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(HERE / "spec-tables", target)


setup(
    cmdclass={"build_py": build_py_with_tables},
    ext_modules=[Extension("fxtlint._kernel", ["fxtlint/_kernel.c"], optional=True)],
)
