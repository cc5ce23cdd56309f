# Invariant: every archive the Hypothesis strategies draw from the fuzzer's bytes behaves
# as the strategies promise: a valid archive lints clean in both engines and round-trips
# through read and encode; a mutated archive or log stream trips the rule it names; and
# the lint's default engine (the native walk where it is built) agrees with the reference
# engine on all of them.
"""atheris harness driven by fxtlint.strategies (Hypothesis ``fuzz_one_input``):
python fuzz/fuzz_strategies.py [-libFuzzer flags] [corpus dirs]. The corpus holds
Hypothesis choice sequences, not FXT files, so it runs with libFuzzer's byte mutator."""

# No `from __future__` import: OSS-Fuzz's coverage build puts a stub in front of this file,
# and a __future__ import must come first (tests/test_fuzz_build.py holds it).

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness  # puts a source checkout's fxtlint on the path
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fxtlint
from fxtlint.rules._mutations import MUTATIONS
from fxtlint.strategies import archives, log_streams, mutated_archives, mutated_log_streams

# Every mutation but PR012's, 65,537 nested duration begins (1 MiB): its reference lint
# alone is about 4 s of CPU in plain Python, minutes under atheris with the service's
# preloaded ASan (an hour's campaign stopped on it at the 300 s timeout); its promise is
# the test suite's (tests/test_strategies.py, with the slow tests), as in the drawn tests
# (tests/conftest.py's DRAWN_MUTATIONS)
_DRAWN = [code for code, _ in MUTATIONS if code != "PR012"]

_CASES = st.one_of(
    archives(max_size=12).map(lambda d: ("valid", d, None)),
    log_streams().map(lambda d: ("valid-log", d, None)),
    mutated_archives(codes=_DRAWN).map(lambda c: ("mutated", c[0], c[1])),
    mutated_log_streams().map(lambda c: ("mutated-log", c[0], c[1])),
)


def _diags(report) -> list:
    return [d.to_json() for d in report.diagnostics]


def check_case(case) -> None:
    what, data, code = case
    fmt = "log" if what.endswith("log") else "trace"  # a log stream with severity 0 is not auto-detected
    fast = fxtlint.lint_bytes(data, engine="fast", input_format=fmt)
    ref = fxtlint.lint_bytes(data, engine="reference", input_format=fmt)
    assert _diags(fast) == _diags(ref) and fast.counts == ref.counts, (what, fast.counts, ref.counts)
    if what == "valid":
        assert fast.counts == {}, fast.counts
        records, diags = fxtlint.read_records(data)
        assert not diags and fxtlint.encode_records(records) == data
    elif what == "valid-log":
        assert fast.format == "log" and fast.counts == {}, fast.counts
    else:
        assert code in fast.counts, (code, fast.counts)


@settings(database=None, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(_CASES)
def test_strategies_keep_their_promise(case):
    check_case(case)


check = test_strategies_keep_their_promise.hypothesis.fuzz_one_input


if __name__ == "__main__":
    _harness.fuzz(check, structured=False)
