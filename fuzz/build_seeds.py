"""The parts of .clusterfuzzlite/build.sh that need no OSS-Fuzz image: stage each harness
as the ``*_fuzzer.py`` file the service compiles, zip its seed corpus, write its FXT
token dictionary and its libFuzzer options.

    python fuzz/build_seeds.py --out DIR [--stage DIR]

writes DIR/<harness>_fuzzer.options for every harness (max_len, timeout and rss_limit_mb
of a local campaign: without it the service takes max_len from the largest seed and runs
with -timeout=25; and its ASan options, ``fuzz.asan_options``),
DIR/<harness>_fuzzer_seed_corpus.zip (no seed over max_len) and DIR/<harness>_fuzzer.dict
for every harness whose inputs are FXT bytes, and (with --stage) DIR/<harness>_fuzzer.py
plus the modules the harnesses import, ready for ``compile_python_fuzzer``.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import zipfile
from pathlib import Path

if __package__ in (None, ""):  # run as a script (build.sh): make `fuzz` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from fuzz import HARNESSES, HERE, MAX_LEN, RSS_LIMIT_MB, TIMEOUT, asan_options
from fuzz.seeds import seed_files, write_dictionary

HELPERS = ("_harness.py", "mutator.py", "declared_reading.py")  # what the harness files import from fuzz/


def fuzzer_name(harness: str) -> str:
    return Path(HARNESSES[harness][0]).stem + "_fuzzer"


def seed_zip(path: Path, *, max_len: int = MAX_LEN) -> Path:
    """The seeds a local campaign starts from, none longer than ``max_len``."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for f in seed_files(max_len=max_len):
            z.write(f, f"{f.parent.name}-{f.name}")
    return Path(path)


def options() -> dict[str, int]:
    """libFuzzer flags of a local campaign that the service must use too."""
    return {"max_len": MAX_LEN, "timeout": TIMEOUT, "rss_limit_mb": RSS_LIMIT_MB}


def write_options(path: Path, harness: str) -> Path:
    lines = ["# libFuzzer settings of a local campaign (fuzz/__init__.py), written by fuzz/build_seeds.py",
             "[libfuzzer]"] + [f"{k} = {v}" for k, v in options().items()]
    asan = asan_options(harness)
    if asan:  # (the service appends these to its ASAN_OPTIONS: fuzz/__init__.py says why)
        lines += ["[asan]"] + [f"{k} = {v}" for k, v in asan.items()]
    Path(path).write_text("\n".join(lines) + "\n")
    return Path(path)


def stage(dest: Path) -> list[Path]:
    """Copy each harness to DEST/<name>_fuzzer.py with the helper modules beside it."""
    dest.mkdir(parents=True, exist_ok=True)
    for helper in HELPERS:
        shutil.copyfile(HERE / helper, dest / helper)
    out = []
    for name, (file, _) in HARNESSES.items():
        target = dest / f"{fuzzer_name(name)}.py"
        shutil.copyfile(HERE / file, target)
        out.append(target)
    return out


def build(out: Path, stage_dir: Path | None = None) -> dict[str, list[Path]]:
    out.mkdir(parents=True, exist_ok=True)
    made: dict[str, list[Path]] = {"harnesses": stage(stage_dir) if stage_dir else [], "zips": [], "dicts": [],
                                   "options": []}
    for name, (_, fxt_input) in HARNESSES.items():
        made["options"].append(write_options(out / f"{fuzzer_name(name)}.options", name))
        if fxt_input:
            made["zips"].append(seed_zip(out / f"{fuzzer_name(name)}_seed_corpus.zip"))
            made["dicts"].append(write_dictionary(out / f"{fuzzer_name(name)}.dict"))
    return made


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="where seed zips and dictionaries go ($OUT)")
    ap.add_argument("--stage", type=Path, help="where to write the *_fuzzer.py harness files")
    args = ap.parse_args(argv)
    made = build(args.out, args.stage)
    for kind, paths in made.items():
        for p in paths:
            print(f"{kind}: {p}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
