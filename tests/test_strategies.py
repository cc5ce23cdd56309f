"""The strategies: valid archives are clean and round-trip; mutations trip their rule."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis.errors import InvalidArgument

import fxtlint
from conftest import DRAWN_MUTATIONS
from fxtlint.rules import REGISTRY, _mutations
from fxtlint.strategies import archives, log_streams, mutated_archives, mutated_log_streams, record_lists


def header_walk(data: bytes):
    """An independent oracle: record offsets by the header size alone (struct only)."""
    offsets, off = [], 0
    while off + 8 <= len(data):
        h = struct.unpack_from("<Q", data, off)[0]
        size = (h >> 4) & (0xFFFFFFFF if h & 0xF == 15 else 0xFFF)
        offsets.append(off)
        off += 8 * size
    assert off == len(data)
    return offsets


@given(archives())
def test_archives_are_clean_and_round_trip(data):
    for engine in ("fast", "reference"):
        report = fxtlint.lint_bytes(data, engine=engine)
        assert report.counts == {}, [d.message for d in report.diagnostics]
    records, diags = fxtlint.read_records(data)
    assert diags == []
    assert fxtlint.encode_records(records) == data
    assert [r.offset for r in records] == header_walk(data)


@given(archives(byte_order="big"))
def test_big_endian_archives_are_clean_but_for_the_note(data):
    assert fxtlint.lint_bytes(data).counts == {"EX002": 1}


@given(log_streams())
def test_log_streams_are_clean(data):
    report = fxtlint.lint_bytes(data)
    assert report.format == "log" and report.counts == {}


@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_mutations_trip_their_rule(case):
    data, code = case
    for engine in ("fast", "reference"):
        assert code in fxtlint.lint_bytes(data, engine=engine).counts


@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_mutations_add_only_their_defect(case):
    data, code = case
    allowed = {code} | _mutations.COMPANIONS.get(code, set())
    for engine in ("fast", "reference"):
        assert set(fxtlint.lint_bytes(data, engine=engine).counts) <= allowed


@pytest.mark.parametrize("code", ["RF001", "RF002"])
def test_unregistered_ref_mutations_hold_when_the_archive_registers_the_largest_index(code):
    """An archive may register string 0x7FFF or thread 255; the mutation's ref must still
    name an index nothing registers (a fixed largest index passed the drawn archive by)."""
    recs = [fxtlint.build.magic(), fxtlint.build.string(1, "c"), fxtlint.build.string(0x7FFF, "top"),
            fxtlint.build.thread(1, 1, 2), fxtlint.build.thread(255, 1, 3)]
    assert fxtlint.lint_bytes(fxtlint.build.archive(*recs)).counts == {}
    data = dict(_mutations.MUTATIONS)[code](recs, None)
    for engine in ("fast", "reference"):
        assert fxtlint.lint_bytes(data, engine=engine).counts == {code: 1}


@pytest.mark.parametrize("code", ["ST006", "ST007", "PR002", "PR003", "PR006", "PR012", "RF007"])
def test_mutation_exists_for(code):
    @settings(max_examples=5)
    @given(mutated_archives(codes=[code]))
    def check(case):
        data, got = case
        assert got == code and set(fxtlint.lint_bytes(data).counts) <= {code, "PR004"}
        assert code in fxtlint.lint_bytes(data).counts

    check()


def test_unknown_code_is_named():
    with pytest.raises(InvalidArgument, match="XX001"):
        mutated_archives(codes=["XX001"]).example()


def test_log_code_points_to_log_streams():
    with pytest.raises(InvalidArgument, match="mutated_log_streams"):
        mutated_archives(codes=["SL001"]).example()


@given(mutated_log_streams())
def test_log_mutations_trip_their_rule(case):
    data, code = case
    assert code in fxtlint.lint_bytes(data, input_format="log").counts


def test_every_rule_has_a_mutation_or_a_reason():
    covered = {c for c, _ in _mutations.MUTATIONS} | {c for c, _ in _mutations.LOG_MUTATIONS}
    assert covered | set(_mutations.EXEMPT) == {c for c, r in REGISTRY.items() if r.status != "removed"}
    assert not covered & set(_mutations.EXEMPT)


@pytest.mark.parametrize("bad", [dict(min_size=-1), dict(min_size=3, max_size=2)])
def test_bad_bounds_are_invalid_arguments(bad):
    with pytest.raises(InvalidArgument):
        record_lists(**bad).example()


@pytest.mark.slow  # 400 draws, about 7 s (1,000 were 18 s of CI's slow run)
@settings(max_examples=400)
@given(mutated_archives(codes=DRAWN_MUTATIONS))
def test_mutations_trip_their_rule_many(case):
    data, code = case
    assert code in fxtlint.lint_bytes(data).counts


def test_without_hypothesis_the_import_names_the_extra():
    import subprocess
    import sys

    code = ("import sys; sys.modules['hypothesis'] = None\n"
            "try:\n    import fxtlint.strategies\nexcept ImportError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "pip install 'fxtlint[strategies]'" in out


def test_rf005_mutation_names_a_provider_the_archive_did_not_announce():
    """A drawn archive may announce the highest provider id itself (CI's draws found one):
    the mutation's section then named an announced provider and RF005 did not fire."""
    from fxtlint import build as B
    from fxtlint.rules import _mutate as M

    recs, _ = fxtlint.read_records(B.archive(B.magic(), B.provider_info(M.PROVIDER_ID_MAX, "x"), B.string(1, "a"),
                                             B.thread(1, 1, 2)))
    assert fxtlint.lint_bytes(M.unannounced_section(recs, None)).counts == {"RF005": 1}
