# Invariant: the native kernel and the pure Python engine give the same whole JSON report
# (records, counts, summary, every diagnostic with its span and details) for any bytes,
# read as a trace or as a structured-log stream (the input's last byte picks: odd = log);
# the lint never raises in either; and the kernel never reads outside the buffer (the
# campaign, `python -m fuzz run native`, runs this under AddressSanitizer: fuzz/kernel_asan.sh).
"""atheris harness, the native engine against the pure one.

    python fuzz/fuzz_native.py [-libFuzzer flags] [corpus dirs]
"""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file.

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness

import fxtlint
from fxtlint.engine import _native


def kernel():
    """The native kernel; an error when it is not built (nothing would be compared)."""
    os.environ.pop(_native.ENV, None)  # FXTLINT_ENGINE=python would hide it
    k = _native.kernel()
    if k is None:
        raise RuntimeError(f"nothing to fuzz: {_native.describe()}")
    return k


def lint_json(data: bytes, input_format: str, engine: str) -> dict:
    """The whole report as ``fxtlint --format json`` writes it, the scan step ``engine``
    (``_native.ENV``'s values: "native" or "python"); always the column walk
    (engine="fast"): below its size threshold "auto" would not scan at all."""
    before = os.environ.get(_native.ENV)
    os.environ[_native.ENV] = engine  # read once per walk (_native.kernel): a dict store, not a cost
    try:
        return fxtlint.lint_bytes(data, input_format=input_format, engine="fast").to_json()
    finally:
        if before is None:
            del os.environ[_native.ENV]
        else:
            os.environ[_native.ENV] = before


def check(data: bytes) -> None:
    input_format = "log" if data and data[-1] & 1 else "trace"
    native = lint_json(data, input_format, "native")
    pure = lint_json(data, input_format, "python")
    assert native == pure, first_difference(native, pure)


def first_difference(native: dict, pure: dict) -> str:
    """Where two reports part, for the crash message: the first differing key or diagnostic."""
    for key in native.keys() | pure.keys():
        if key != "diagnostics" and native.get(key) != pure.get(key):
            return f"{key}: native {native.get(key)!r} != python {pure.get(key)!r}"
    for i, (a, b) in enumerate(zip(native["diagnostics"], pure["diagnostics"])):
        if a != b:
            return f"diagnostic {i}: native {a} != python {b}"
    return f"diagnostics: native {len(native['diagnostics'])} != python {len(pure['diagnostics'])}"


if __name__ == "__main__":
    print(f"fxtlint.engine._kernel: {kernel().__file__}", flush=True)
    _harness.fuzz(check)
