"""Line coverage of fxtlint's modules over a corpus, measured with coverage.py by running
harness checks on every file in plain Python (no atheris). The modules counted are those
the checks import, less OMIT."""

from __future__ import annotations

import io
import subprocess
import sys

from . import REPO

# Modules no input bytes can reach (command line, rendering, docs, test-input builders).
OMIT = ["*/fxtlint/cli*", "*/fxtlint/__main__.py", "*/fxtlint/render/_render_*", "*/fxtlint/render/_docs.py",
        "*/fxtlint/engine/_hexview.py", "*/fxtlint/strategies.py", "*/fxtlint/rules/_mutations.py",
        "*/fxtlint/build.py"]


def measure(harnesses, paths, *, report=sys.stdout, show_missing: bool = False) -> float:
    """Run each harness's check on every file under ``paths``; print coverage.py's report of
    fxtlint's modules (with ``show_missing``, the line numbers no input reached) and return
    the total line coverage in percent. Call in a fresh process (``python -m fuzz
    coverage``): modules imported before the start are missed."""
    import importlib.util

    import coverage

    # the folder of the fxtlint the harnesses import (the installed one, _harness), named as
    # a folder: a package name would be looked for in the working folder first, and a
    # checkout's fxtlint/ there is not the code that runs
    spec = importlib.util.find_spec("fxtlint")
    source = list(spec.submodule_search_locations or []) if spec is not None else ["fxtlint"]
    early = sorted(n for n in sys.modules if n.partition(".")[0] == "fxtlint")
    if early:  # their module-level statements ran uncounted: the figure would be low
        raise RuntimeError(f"fxtlint was imported before coverage started ({', '.join(early[:3])}...); "
                           "measure in a fresh process (python -m fuzz coverage)")
    cov = coverage.Coverage(data_file=None, source=source, omit=OMIT, branch=False)
    cov.start()
    from . import corpus_files, load_harness
    from ._harness import under_test

    print(under_test(), file=sys.stderr, flush=True)  # imports fxtlint: counted now

    checks = [load_harness(h).check for h in harnesses]
    files = corpus_files(paths)
    for f in files:
        data = f.read_bytes()
        for check in checks:
            try:
                check(data)
            except Exception:  # a failing input still counts towards coverage; reproduce shows it
                pass
    cov.stop()
    # fxtlint's modules that the checks imported (not the CLI, renderers or exporters)
    loaded = sorted(m.__file__ for n, m in list(sys.modules.items())
                    if n.partition(".")[0] == "fxtlint" and getattr(m, "__file__", None))
    out = io.StringIO()
    total = cov.report(file=out, show_missing=show_missing, include=loaded)
    report.write(f"{len(files)} inputs, harnesses: {', '.join(harnesses)}\n{out.getvalue()}")
    return total


def in_subprocess(harnesses, paths, *, show_missing: bool = False) -> tuple[float, str]:
    """``measure`` in a fresh interpreter; returns (total percent, report text)."""
    cmd = [sys.executable, "-m", "fuzz", "coverage", "--harness", ",".join(harnesses),
           *(["--show-missing"] if show_missing else []), *map(str, paths)]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    last = [ln for ln in proc.stdout.splitlines() if ln.startswith("TOTAL")]
    total = float(last[-1].split()[-1].rstrip("%")) if last else 0.0
    return total, proc.stdout + proc.stderr
