#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: one <harness>_fuzzer per fuzz/fuzz_*.py, each with its
# seed corpus zip (corpus/seeds and corpus/golden) and FXT token dictionary.
# Everything but compile_python_fuzzer is fuzz/build_seeds.py, which
# tests/test_fuzz_campaign.py runs without this image.
cd "$SRC/fxtlint"
pip3 install .               # fxtlint and its packaged spec tables
pip3 install "hypothesis>=6.90"  # fxtlint.strategies (the strategies harness, the mutation catalogue)

STAGE="$SRC/fxtlint-fuzzers"
python3 fuzz/build_seeds.py --out "$OUT" --stage "$STAGE"

for fuzzer in "$STAGE"/*_fuzzer.py; do
  # --paths: the staged helpers (_harness.py, mutator.py); --collect-*: fxtlint's lazily
  # imported modules and its spec-tables/*.toml, which PyInstaller cannot see by itself.
  compile_python_fuzzer "$fuzzer" --paths "$STAGE" \
    --collect-submodules fxtlint --collect-data fxtlint
done
