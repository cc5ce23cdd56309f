"""fxtlint's fuzzing campaigns: atheris harnesses, a structure-aware mutator, and the
campaign command (``python -m fuzz --help``). See fuzz/README.md."""

from __future__ import annotations

from pathlib import Path

from ._harness import prefer_installed  # noqa: F401  # before anything imports fxtlint: the installed one

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

# libFuzzer's limits, the same for a campaign here and for the service's runs (build_seeds.py
# writes them into each <fuzzer>.options): the largest input, seconds per input before a
# timeout is reported (Python under instrumentation is slow), and the memory limit.
MAX_LEN = 16384
TIMEOUT = 60
RSS_LIMIT_MB = 2048

# The service's way of running a Python harness in an address build (``python -m fuzz run
# --preload``): libFuzzer and ASan in one runtime preloaded (atheris's asan_with_fuzzer.so,
# OSS-Fuzz's sanitizer_with_fuzzer.so), with the ASAN_OPTIONS OSS-Fuzz's and
# ClusterFuzzLite's runner image sets (google/oss-fuzz, infra/base-images/base-runner/
# Dockerfile: "these match the settings used in ClusterFuzz"), leak detection off as for
# every Python fuzzer (CPython's objects alive at exit are not leaks). Among them
# quarantine_size_mb=10: ASan's default quarantine is 256 MB, which an allocation-heavy
# Python process fills (fuzz/README.md, "Memory under the preload"). An ASAN_OPTIONS in
# the environment is appended: ASan reads the last value of each option.
SERVICE_ASAN_OPTIONS = ("alloc_dealloc_mismatch=0:allocator_may_return_null=1:allocator_release_to_os_interval_ms=500:"
                        "check_malloc_usable_size=0:detect_container_overflow=1:detect_odr_violation=0:"
                        "detect_leaks=0:detect_stack_use_after_return=1:fast_unwind_on_fatal=0:handle_abort=1:"
                        "handle_segv=1:handle_sigill=1:max_uar_stack_size_log=16:print_scariness=1:"
                        "quarantine_size_mb=10:strict_memcmp=1:symbolize=1:use_sigaltstack=1:dedup_token_length=3")

# ASan options each harness's .options sets for the service (its ``[asan]`` section), and
# ``python -m fuzz run --preload`` after SERVICE_ASAN_OPTIONS: the Python harnesses record no
# allocation or free stack (malloc_context_size=0). Every call of atheris's coverage and
# comparison callbacks allocates its arguments through pybind11, about 330,000 allocations
# for a 16 KB input, and ASan's record of each stack made the preloaded run 3.4 to 5.3 times
# slower than the plain one (fuzz/README.md, "Speed under the preload"). A use-after-free is
# still caught and reported at its access, and its input reproduces; the ``native`` harness,
# which runs every native path the others do (both engines' lint and report, export and
# decode), keeps the service's stacks, so such a report there names where the block was
# allocated and freed.
HARNESS_ASAN_OPTIONS = {"malloc_context_size": "0"}
STACKS_KEPT = frozenset({"native"})


def asan_options(harness: str) -> dict[str, str]:
    """The ASan options ``harness``'s .options sets (``HARNESS_ASAN_OPTIONS``; none for
    the harnesses in ``STACKS_KEPT``)."""
    return {} if harness in STACKS_KEPT else dict(HARNESS_ASAN_OPTIONS)


# harness name -> (file, whether its inputs are FXT bytes: seeds, dictionary, custom mutator)
HARNESSES = {
    "lint": ("fuzz_lint.py", True),
    "reader": ("fuzz_reader.py", True),
    "prefix": ("fuzz_prefix.py", True),
    "roundtrip": ("fuzz_roundtrip.py", True),
    "strategies": ("fuzz_strategies.py", False),
    "stream": ("fuzz_stream.py", True),
    "native": ("fuzz_native.py", True),
    "repair": ("fuzz_repair.py", True),
    "slice": ("fuzz_slice.py", True),
}
# atheris harnesses that run here only, not on the service (none since fuzz_kernel.py went
# with the column engine it compared the kernel with)
LOCAL_HARNESSES: tuple[str, ...] = ()
# harnesses whose campaign runs on the native walk built under AddressSanitizer and UBSan
# (fuzz/kernel_asan.sh; clang: -fsanitize=fuzzer-no-link, the native code's edges count)
SANITIZED = {"native": "clang"}


def corpus_files(paths) -> list[Path]:
    """Every file under ``paths`` (files, or folders walked in sorted order), resolved: the
    inputs a corpus command (coverage, leaks, a campaign's checks) replays."""
    return [f.resolve() for p in map(Path, paths) for f in (sorted(p.rglob("*")) if p.is_dir() else [p]) if f.is_file()]


def harness_path(name: str) -> Path:
    return HERE / HARNESSES[name][0]


def load_harness(name: str):
    """Import a harness module by name (without atheris) for its ``check``."""
    import importlib.util

    path = harness_path(name)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
