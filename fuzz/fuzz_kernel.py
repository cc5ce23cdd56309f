# Invariant: as the walk's scan step, the native kernel frames and screens any bytes
# exactly as the column engine does (batches, reference rows, groups, flags, every
# clean row's values, word positions and arguments, the decode step's diagnostics and
# resynchronisation, the framing stop), read as a trace and as a structured-log
# stream, with the default and with tiny windows; and it never reads outside the
# buffer (run it under AddressSanitizer: fuzz/kernel_asan.sh).
"""atheris harness for the native kernel: python fuzz/fuzz_kernel.py [-libFuzzer flags] [corpus dirs]."""

# No `from __future__` import: a service's coverage build would put a stub in front of
# this file, and a __future__ import must come first (tests/test_fuzz_campaign.py holds it).
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path

import fxtlint
from fxtlint.engine import _native

sys.path.append(str(_harness._HERE.parent / "tests"))
from kernel_support import assert_same_walk  # the comparison the tests make

TINY = fxtlint.Limits(window_words=16, pairing_window=5)


def kernel():
    k = _native.kernel()
    if k is None:
        raise RuntimeError(f"nothing to fuzz: {_native.describe()}")
    return k


def check(data: bytes) -> None:
    k = kernel()
    for log in (False, True):
        assert_same_walk(k, data, log=log)
        assert_same_walk(k, data, log=log, limits=TINY)


if __name__ == "__main__":
    print(f"fxtlint.engine._kernel: {kernel().__file__}", flush=True)
    _harness.fuzz(check)
