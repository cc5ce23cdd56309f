#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build: one <harness>_fuzzer per fuzz/fuzz_*.py, each with its
# libFuzzer options (max_len, timeout, rss_limit_mb of a local campaign), seed corpus zip
# (corpus/seeds and corpus/golden, none over max_len) and FXT token dictionary.
# Everything but compile_python_fuzzer is fuzz/build_seeds.py; tests/test_fuzz_build.py
# runs this script with fuzz/oss_fuzz/compile_python_fuzzer (the image's steps) and runs
# every frozen harness on its seeds.
cd "$SRC/fxtlint"
pip3 install .               # fxtlint and its packaged spec tables
pip3 install "hypothesis>=6.90"  # fxtlint.strategies (the strategies harness, the mutation catalogue)
# Every native module of setup.py built, under the image's CFLAGS (every extension is
# optional: where one does not compile, pip goes on without it and the harnesses would fuzz
# the pure engine unawares). Imported as the wrapper runs the harnesses, with the
# sanitizer runtime that the image's compile step put in $OUT preloaded (an address build's
# modules reference ASan's symbols); names each that did not build, and stops the build.
runtime="$OUT/sanitizer_with_fuzzer.so"
if [ -f "$runtime" ]; then
  LD_PRELOAD="$runtime" ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0" python3 fuzz/native_check.py --cflags "${CFLAGS:-}"
else
  python3 fuzz/native_check.py --cflags "${CFLAGS:-}"
fi

STAGE="$SRC/fxtlint-fuzzers"
python3 fuzz/build_seeds.py --out "$OUT" --stage "$STAGE"
# The custom mutator's forwarding library: the service's wrapper preloads libFuzzer
# (sanitizer_with_fuzzer.so), which then finds no custom mutator of atheris's; each frozen
# harness carries this library and re-runs itself with it preloaded (fuzz/_harness.py).
${CC:-cc} -shared -fPIC -O2 -o "$STAGE/custom_mutator_preload.so" fuzz/preload/custom_mutator_preload.c

# FXTLINT_FUZZERS (a glob of harness names, default all) builds fewer; the tests use it.
for fuzzer in "$STAGE"/${FXTLINT_FUZZERS:-*}_fuzzer.py; do
  # --paths: the staged helpers (_harness.py, mutator.py); --collect-*: fxtlint's lazily
  # imported modules and its spec-tables/*.toml, which PyInstaller cannot see by itself
  compile_python_fuzzer "$fuzzer" --paths "$STAGE" \
    --collect-submodules fxtlint --collect-data fxtlint \
    --add-binary "$STAGE/custom_mutator_preload.so:."
done
