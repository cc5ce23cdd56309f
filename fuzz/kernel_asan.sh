#!/usr/bin/env bash
# The native walk (with its screen) and pairing engine under AddressSanitizer and UndefinedBehaviorSanitizer.
# (The name is the native kernel's, the walk's scan step before the walk; scripts call it so.)
#
#   fuzz/kernel_asan.sh build gcc|clang      build build/asan-<cc>/: a copy of fxtlint/ and
#                                            spec-tables/ whose walk and pairing engine are sanitized builds
#   fuzz/kernel_asan.sh test gcc|clang [pytest args]
#                                            the native tests on that build (default:
#                                            tests/test_screen_program.py and tests/test_nwalk.py)
#   fuzz/kernel_asan.sh fuzz [atheris args]  the atheris harness fuzz/fuzz_native.py on the clang
#                                            build (-fsanitize=fuzzer-no-link: libFuzzer sees the
#                                            native code's coverage too), seeded from corpus/seeds
#   fuzz/kernel_asan.sh env gcc|clang        the environment a command needs to run on that build
#                                            (KEY=value lines; built first when missing or older than
#                                            fxtlint/): `python -m fuzz run native` reads it
#
# gcc 12 links its ASan runtime (libasan.so.8); clang 14 builds with
# -fsanitize=fuzzer-no-link and runs with atheris's asan_with_fuzzer.so (ASan and
# libFuzzer in one runtime). Either runtime must be loaded first: LD_PRELOAD. Python
# itself is not sanitized, so leak checking is off (CPython's interned objects would be
# reported at exit); a leak of the native code shows as flat-or-not RSS in a long run instead.
# Any ASan or UBSan report aborts the run with its stack (halt_on_error, and
# -fno-sanitize-recover for UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
what=${1:?usage: fuzz/kernel_asan.sh build|test|env gcc|clang ... or fuzz ...}
shift

cc_of() {
    case "${1:-}" in
        gcc|clang) echo "$1" ;;
        *) echo "say gcc or clang" >&2; exit 2 ;;
    esac
}

runtime() {  # the sanitizer runtime to preload for a build
    if [ "$1" = gcc ]; then
        gcc -print-file-name=libasan.so
    else
        "$PY" -c 'import atheris, os; print(os.path.join(atheris.path(), "asan_with_fuzzer.so"))'
    fi
}

build() {
    local cc=$1 out=build/asan-$1
    # -g1: line tables, what a sanitizer's report needs for file:line (the walk's C++
    # compiles in 31 s of g++ here against 38 s with -g's full debug information)
    local flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    [ "$cc" = clang ] && flags="$flags -fsanitize=fuzzer-no-link"
    local inc suffix
    inc=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
    suffix=$("$PY" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    rm -rf "$out"
    mkdir -p "$out"
    cp -r fxtlint "$out/fxtlint"
    cp -r spec-tables "$out/spec-tables"
    find "$out/fxtlint" -name '*.so' -delete
    # the two modules compile at once (each is one compiler process; the walk's C++ takes
    # most of the time): a failure of either fails the build
    local pids=() pid status=0
    # the native walk: Cython's C++ from the .pyx, the screen (C) linked in
    local cxx=g++ cxxflags=$flags
    # clang's UBSan checks of C++ dynamic types (vptr: the dynamic type of a polymorphic
    # object; function: the type of a function called through a pointer) need UBSan's C++
    # runtime, which the preloaded asan_with_fuzzer.so lacks: the modules would not load
    # (undefined symbols __ubsan_vptr_type_cache, __ubsan_handle_function_type_mismatch_v1_abort).
    # Neither module has a class of its own with virtual methods; every other check stays.
    [ "$cc" = clang ] && cxx=clang++ && cxxflags="$flags -fno-sanitize=vptr,function"
    # shellcheck disable=SC2086
    { "$PY" -m cython -3 --cplus fxtlint/engine/_nwalk.pyx -o "$out/_nwalk.cpp" \
        && "$cc" $flags -Wall -fPIC -c fxtlint/engine/_screen.c -o "$out/_screen.o" \
        && "$cxx" $cxxflags -shared -fPIC -I"$inc" -Ifxtlint/engine "$out/_nwalk.cpp" "$out/_screen.o" \
            -o "$out/fxtlint/engine/_nwalk$suffix" \
        && echo "built $out/fxtlint/engine/_nwalk$suffix ($cxx $cxxflags)"; } &
    pids+=($!)
    # the compiled pairing engine, which the walk hands its rows to (_pairrow.h)
    # shellcheck disable=SC2086
    { "$PY" -m cython -3 --cplus fxtlint/engine/_npairing.pyx -o "$out/_npairing.cpp" \
        && "$cxx" $cxxflags -shared -fPIC -I"$inc" -Ifxtlint/engine "$out/_npairing.cpp" \
            -o "$out/fxtlint/engine/_npairing$suffix" \
        && echo "built $out/fxtlint/engine/_npairing$suffix ($cxx $cxxflags)"; } &
    pids+=($!)
    for pid in "${pids[@]}"; do
        wait "$pid" || status=1
    done
    [ "$status" = 0 ] || { echo "kernel_asan.sh: a sanitized module did not build (above)" >&2; return 1; }
}

fresh() {  # build (quietly) unless every built module is newer than every file they copy
    local so stale=""
    for name in _nwalk _npairing; do
        so=$(find "build/asan-$1/fxtlint/engine" -maxdepth 1 -name "$name*.so" 2>/dev/null | head -1 || true)
        # (bytecode written since is not a change: the build copies sources)
        if [ -z "$so" ] || [ -n "$(find fxtlint spec-tables -newer "$so" ! -name '*.pyc' ! -name __pycache__ \
                                    -print -quit)" ]; then
            stale=yes
        fi
    done
    if [ -n "$stale" ]; then
        build "$1" >&2
    fi
}

environment() {  # the sanitized run's variables, one KEY=value a line
    local dir=$PWD/build/asan-$1
    echo "PYTHONPATH=$dir${PYTHONPATH:+:$PYTHONPATH}"  # the build's fxtlint first
    echo "LD_PRELOAD=$(runtime "$1")"
    echo "PYTHONMALLOC=malloc"
    echo "ASAN_OPTIONS=detect_leaks=0:halt_on_error=1:abort_on_error=1:allocator_may_return_null=1"
    echo "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1"
    echo "FXTLINT_ENGINE=native"
}

sanitized() {  # run a command from the build's folder with environment()'s variables
    local cc=$1 vars
    shift
    fresh "$cc"
    mapfile -t vars < <(environment "$cc")
    (cd "build/asan-$cc" && env "${vars[@]}" "$@")
}

check_build() {  # the sanitized native modules are the ones imported, or stop
    sanitized "$1" "$PY" -c 'import os, fxtlint.engine._nwalk as w, fxtlint.engine._npairing as p
for m in (w, p):
    print(m.__name__ + ":", m.__file__)
    assert m.__file__.startswith(os.getcwd()), "not the sanitized build"'
}

case "$what" in
    build) build "$(cc_of "${1:-}")" ;;
    test)
        cc=$(cc_of "${1:-}")
        shift
        check_build "$cc"
        args=("$@")
        [ $# -gt 0 ] || args=(tests/test_screen_program.py tests/test_nwalk.py)
        sanitized "$cc" "$PY" -m pytest -q -p no:cacheprovider --capture=sys --rootdir "$PWD" "${args[@]/#tests/$PWD/tests}"
        ;;
    env)
        cc=$(cc_of "${1:-}")
        fresh "$cc"
        environment "$cc"
        ;;
    fuzz)
        check_build clang
        mkdir -p build/asan-corpus
        sanitized clang "$PY" "$PWD/fuzz/fuzz_native.py" -rss_limit_mb=4096 "$@" "$PWD/build/asan-corpus" \
            "$PWD/corpus/seeds"
        ;;
    *) echo "usage: fuzz/kernel_asan.sh build|test|env gcc|clang ... or fuzz ..." >&2; exit 2 ;;
esac
