"""The figures fuzz/README.md quotes, printed from the repository as it is
(``python -m fuzz stats``): the seeds a campaign and the service start from, the
statements of fxtlint's modules that the lint, reader and native checks import and how
many the seeds leave unreached, and the edges and features libFuzzer counts on loading the seeds.
"""

from __future__ import annotations

import re
import shutil
import sys
import tempfile
from pathlib import Path

from . import HARNESSES, MAX_LEN, SANITIZED
from .campaign import libfuzzer, parse_log
from .seeds import SEEDS, seed_files

_TOTAL = re.compile(r"^TOTAL\s+(\d+)\s+(\d+)\s+(\d+)%", re.M)


def seeds() -> tuple[list[Path], list[Path]]:
    """(seed files used, seed files over max_len left out)."""
    kept = seed_files()
    return kept, [f for f in seed_files(max_len=None) if f not in kept]


def statements(files) -> tuple[int, int]:
    """(statements, missed) of the modules the lint, reader and native checks import, over
    ``files``."""
    from .coverage_report import in_subprocess

    _, text = in_subprocess(["lint", "reader", "native"], files)
    m = _TOTAL.search(text)
    if not m:
        raise RuntimeError(f"no coverage total in:\n{text[-2000:]}")
    return int(m[1]), int(m[2])


def edges(harness: str, files) -> tuple[int, int]:
    """(edges, features) libFuzzer reports once it has run every seed (``-runs=0``)."""
    with tempfile.TemporaryDirectory() as tmp:
        corpus = Path(tmp) / "seeds"
        corpus.mkdir()
        for f in files:
            shutil.copyfile(f, corpus / f"{f.parent.name}-{f.name}")
        log = Path(tmp) / "log"
        with log.open("w") as fh:
            libfuzzer(harness, "-runs=0", f"-max_len={MAX_LEN}", corpus, cwd=tmp, log=fh).wait()
        _, cov, ft = parse_log(log.read_text(errors="replace"))
    return cov, ft


def report(*, edges_too: bool = True, out=sys.stdout) -> None:
    kept, left_out = seeds()
    where = " and ".join(str(d.relative_to(d.parent.parent)) for d in SEEDS)
    out.write(f"seeds: {len(kept)} files, {sum(f.stat().st_size for f in kept):,} bytes, from {where}\n")
    if left_out:
        out.write(f"  left out, over max_len {MAX_LEN:,}: " + ", ".join(
            f"{f.parent.name}/{f.name} ({f.stat().st_size:,} bytes)" for f in left_out) + "\n")
    total, missed = statements(kept)
    out.write(f"statements: {total:,} in the fxtlint modules the lint, reader and native checks import; "
              f"the seeds leave {missed:,} unreached ({100 * (total - missed) / total:.1f}% covered)\n")
    if edges_too:
        for name, (_, fxt_input) in HARNESSES.items():
            if not fxt_input:
                continue
            if name in SANITIZED and not shutil.which(SANITIZED[name]):
                out.write(f"edges {name}: not counted: no {SANITIZED[name]} here (the {name} harness runs on "
                          f"fuzz/kernel_asan.sh's {SANITIZED[name]} build)\n")
                continue
            try:
                cov, ft = edges(name, kept)
            except RuntimeError as e:  # its environment cannot be made here: one line, not a traceback
                why = (str(e).strip().splitlines() or ["?"])[-1]
                out.write(f"edges {name}: not counted: {why}\n")
                continue
            out.write(f"edges {name}: {cov:,} edges, {ft:,} features on loading the seeds (fxtlint's code only)\n")
