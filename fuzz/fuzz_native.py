# Invariant: the native walk (linting, counting report's coverage beside the linter,
# writing export's and decode's events from its rows mode) and the reference engine (the
# per-record reader, the reference lint and coverage, every event written from its
# decoded record) give the same whole writer's report (verdict, rule results, coverage,
# statistics, problems) for any bytes, read as a trace or as a structured-log stream (the
# input's last byte picks: odd = log), and the same bytes of `export` (either format) and
# of `decode` (a trace); neither raises; and the native code never reads outside a buffer
# (the campaign, `python -m fuzz run native`, runs this under AddressSanitizer:
# fuzz/kernel_asan.sh).
"""atheris harness, the native walk against the reference engine.

    python fuzz/fuzz_native.py [-libFuzzer flags] [corpus dirs]
"""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file.

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness

from fxtlint.engine import _native
from fxtlint.export._export_tef import write_document
from fxtlint.reader_suite._canonical import decode_to
from fxtlint.writer_report._conformance_report import trace_report


def native():
    """The native walk module; an error when it is not built (nothing would be compared)."""
    walk = _native.nwalk()
    if walk is None:  # built or not, whatever FXTLINT_ENGINE says
        raise RuntimeError(f"nothing to fuzz: {_native.native_missing()}")
    return walk


def report_json(data: bytes, input_format: str, engine: str) -> dict:
    """The whole writer's report (``fxtlint report --format json``), with ``engine``:
    "native" (the lint on the native walk, the coverage counted by it beside the linter)
    or "reference" (the lint and the coverage on the reference engine, record by record)."""
    return trace_report(data, input_format=input_format, engine=engine)


def verb_bytes(verb: str, data: bytes, input_format: str, engine: str) -> bytes:
    """What ``export`` or ``decode`` writes for ``data`` (engine ``native``: on the native
    walk's rows mode), to a UTF-8 text stream over bytes as a file is: the native rows go
    to its bytes layer."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", newline="")
    if verb == "export":
        write_document(data, out, input_format=input_format, engine=engine)
    else:
        decode_to(data, out, engine=engine)
    out.flush()
    return raw.getvalue()


def check(data: bytes) -> None:
    input_format = "log" if data and data[-1] & 1 else "trace"
    native = report_json(data, input_format, "native")
    pure = report_json(data, input_format, "reference")
    assert native == pure, first_difference(native, pure)
    for verb in ("export", "decode") if input_format == "trace" else ("export",):
        got, want = verb_bytes(verb, data, input_format, "native"), verb_bytes(verb, data, input_format, "reference")
        assert got == want, f"{verb}: native and reference part at byte {first_byte_apart(got, want)}"


def first_byte_apart(a: bytes, b: bytes) -> int:
    return next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))


def first_difference(native: dict, pure: dict) -> str:
    """Where two reports part, for the crash message: the first differing key (of a list,
    its first differing item)."""
    for key in sorted(native.keys() | pure.keys()):
        a, b = native.get(key), pure.get(key)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list):
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    return f"{key}[{i}]: native {x!r} != reference {y!r}"
            return f"{key}: native {len(a)} items != reference {len(b)}"
        return f"{key}: native {a!r} != reference {b!r}"
    return "no difference"


if __name__ == "__main__":
    print(f"fxtlint.engine._nwalk: {native().__file__}", flush=True)
    _harness.fuzz(check)
