"""``slice``: each piece opens on its own (its providers, tick rates, the registrations
and kernel objects it reads, and nothing else), what a cut leaves open is begun or ended
there, marked; pieces of a clean trace lint clean and together hold the input's events
(by the canonical decoding)."""

from __future__ import annotations

import io
import json
import sys
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

import external_tools
import fxtlint
from conftest import CORPUS_REAL, REPO
from fxtlint import build as B
from fxtlint import rules as R
from fxtlint.cli import main
from fxtlint.engine._provider_state import ProviderState
from fxtlint.reader_suite._canonical import decode
from fxtlint.rewrite._repair import MARK_NAME
from fxtlint.rewrite._slice import Cutter, slice_trace, time_range
from fxtlint.strategies import archives, record_lists

# PR012's case nests 65,537 durations: cut into pieces, each begins them all again
GOLDEN = [p for p in sorted((REPO / "corpus" / "golden").glob("*.fxt")) if not p.name.startswith("PR012")]


class _Kept(io.BytesIO):
    def close(self) -> None:  # the slicer closes what it writes: keep the bytes readable
        pass


def pieces(data: bytes, cutter: Cutter) -> list[bytes]:
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    slice_trace(data, open_out, cutter)
    return [outs[i].getvalue() for i in sorted(outs)]


def pieces_by_records(data: bytes, cutter: Cutter) -> list[bytes]:
    """``pieces`` as the record-by-record pass writes them (the specification)."""
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    slice_trace(data, open_out, cutter, shortcut=False)
    return [outs[i].getvalue() for i in sorted(outs)]


def marked(rec: dict) -> bool:
    return any(a["name"] == MARK_NAME for a in rec.get("arguments", ()))


def events(data: bytes) -> list[dict]:
    """The canonical decoding's events, without those a cut wrote."""
    return [r for r in decode(data).records if r["kind"].startswith("event.") and not marked(r)]


def kinds(data: bytes) -> list[str]:
    return [r.kind for r in fxtlint.read_records(data)[0]]


def ev(ts: int, name="n", kind="instant", **kw):
    return B.event(kind, ts, thread=kw.pop("thread", 1), category=kw.pop("category", 1), name=name, **kw)


MS10 = Fraction(10, 1000)  # 10 ticks of TABLES' 1 kHz clock
TABLES = [B.magic(), B.provider_info(7, "p"), B.initialization(1000), B.string(1, "cat"), B.string(2, "a"),
          B.string(3, "b"), B.string(4, "unused"), B.thread(1, 10, 11), B.thread(2, 10, 12),
          B.kernel_object(10, 1, "proc"), B.kernel_object(11, 2, "t11"), B.kernel_object(12, 2, "t12")]


def test_a_piece_carries_exactly_the_state_its_records_read():
    data = B.archive(*TABLES, ev(5, 2, thread=1), ev(6, 2, thread=1), ev(20, 3, thread=2))
    assert fxtlint.lint_bytes(data).counts == {}
    first, second = pieces(data, Cutter(span=MS10))
    recs = fxtlint.read_records(second)[0]
    assert [(r.kind, r.fields.get("index"), r.strings.get("value")) for r in recs[:7]] == [
        ("metadata.trace_info.magic", None, None), ("metadata.provider_info", None, None),
        ("initialization", None, None), ("string", 1, "cat"), ("string", 3, "b"), ("thread", 2, None),
        ("kernel_object", None, None)]
    assert [r.fields["koid"] for r in recs if r.kind == "kernel_object"] == [10, 12]
    assert recs[2].fields["ticks_per_second"] == 1000 and recs[1].strings["provider_name"] == "p"
    for piece in (first, second):
        assert fxtlint.lint_bytes(piece).counts == {}
    assert events(first) + events(second) == events(data)


def test_what_a_cut_leaves_open_is_ended_and_begun_there_marked():
    data = B.archive(*TABLES, ev(5, 2, "duration_begin"), ev(6, 3, "async_begin", id=4),
                     ev(7, 2, "instant"), ev(30, 3, "async_end", id=4), ev(31, 2, "duration_end"))
    first, second = pieces(data, Cutter(span=MS10))
    assert fxtlint.lint_bytes(first).counts == {} and fxtlint.lint_bytes(second).counts == {}
    tail = [r for r in decode(first).records if marked(r)]
    head = [r for r in decode(second).records if marked(r)]
    assert [(r["kind"], r["timestamp"], r["name"]) for r in tail] == [
        ("event.duration_end", "7", "a"), ("event.async_end", "7", "b")]
    assert [(r["kind"], r["timestamp"], r["name"]) for r in head] == [
        ("event.duration_begin", "30", "a"), ("event.async_begin", "30", "b")]
    assert events(first) + events(second) == events(data)


def test_a_flow_cut_is_begun_and_ended_inside_a_duration_of_its_own():
    data = B.archive(*TABLES, ev(5, 2, "duration_begin"), ev(6, 3, "flow_begin", id=9), ev(7, 2, "duration_end"),
                     ev(30, 2, "duration_begin"), ev(31, 3, "flow_end", id=9), ev(32, 2, "duration_end"))
    assert fxtlint.lint_bytes(data).counts == {}
    parts = pieces(data, Cutter(span=MS10))
    assert len(parts) == 2 and all(fxtlint.lint_bytes(p).counts == {} for p in parts)


def test_a_time_range_keeps_its_events_and_what_they_need():
    data = B.archive(*TABLES, ev(5, 2), ev(15, 3), ev(25, 2))
    (piece,) = pieces(data, Cutter(start=Fraction(10, 1000), end=Fraction(20, 1000)))
    assert [r["timestamp"] for r in events(piece)] == ["15"]
    assert "string" in kinds(piece) and fxtlint.lint_bytes(piece).counts == {}
    span = time_range(data)
    assert (span.first, span.last, span.rates, span.start, span.end) == (
        (5, 1000), (25, 1000), (1000,), Fraction(5, 1000), Fraction(25, 1000))


def test_split_size_bounds_each_piece():
    data = B.archive(*TABLES, *(ev(t, 2) for t in range(1, 40)))
    parts = pieces(data, Cutter(size=200))
    assert len(parts) > 3 and all(fxtlint.lint_bytes(p).counts == {} for p in parts)
    assert all(len(p) <= 200 for p in parts)  # (the file: its prefix and what the cut writes too)
    assert sum(len(events(p)) for p in parts) == 39


# -- properties --------------------------------------------------------------------------
@given(archives(), st.one_of(st.integers(8, 600).map(lambda n: Cutter(size=n)),
                             st.integers(1, 60).map(lambda n: Cutter(span=Fraction(n, 10**6)))))
def test_pieces_of_a_clean_trace_lint_clean_and_hold_its_events(data, cutter):
    parts = pieces(data, cutter)
    for p in parts:
        assert fxtlint.lint_bytes(p).counts == {}, [d.message for d in fxtlint.lint_bytes(p).diagnostics]
    assert [e for p in parts for e in events(p)] == events(data)


# (a trace whose instants go back is cut a second time, record by record, in time order:
# jane-tracing-richiesams.fxt's two cuts take about 15 s, with the slow tests)
@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow) if p.name.startswith("jane-tracing-rich")
                                  else p for p in GOLDEN + sorted(CORPUS_REAL.glob("*.fxt"))], ids=lambda p: p.name)
def test_pieces_of_the_golden_and_real_corpora_have_no_error(path):
    """... and no flow event outside a duration (PR008) more than the trace has: what encloses
    a flow event in the trace (an open duration, a complete event still running) encloses it
    in its piece; nor a duration end with no begin (PR001): an end closes in the cut what it
    closes in the lint (down to the begin of its name: PR003's file)."""
    data = path.read_bytes()
    counts = fxtlint.lint_bytes(data).counts
    span = time_range(data)
    eighth = max(Fraction(1, 10**9), (span.end - span.start) / 8) if span else Fraction(1)
    for cutter in (Cutter(size=max(64, len(data) // 8)), Cutter(span=eighth)):
        parts = pieces(data, cutter)
        assert all(d.severity != fxtlint.Severity.ERROR for p in parts for d in fxtlint.lint_bytes(p).diagnostics
                   if d.code not in counts)
        # a flow event outside a duration, a duration end with no begin open: no more than the trace has
        for code in (R.flow_outside_duration.code, R.duration_end_without_begin.code):
            assert sum(fxtlint.lint_bytes(p).counts.get(code, 0) for p in parts) <= counts.get(code, 0), code
        if decode(data).accepted and not counts:
            assert [e for p in parts for e in events(p)] == events(data)


@pytest.mark.slow  # (the second cut in time order, as above: about 6 s)
def test_fxt_reads_the_pieces_of_the_real_trace():
    external_tools.module("fxt", "fxt", "readers")
    from fxt.reader import parse_records

    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    parts = pieces(data, Cutter(size=300_000))
    assert len(parts) == 4
    for p in parts:
        parse_records(io.BytesIO(p))


# -- the verb ----------------------------------------------------------------------------
@pytest.fixture
def trace(tmp_path):
    path = tmp_path / "in.fxt"
    path.write_bytes(B.archive(*TABLES, *(ev(t, 2) for t in range(1000, 40000, 1000))))
    return path


def test_verb_writes_numbered_pieces(trace, tmp_path, capsys):
    assert main(["slice", str(trace), "-o", str(tmp_path / "out.fxt"), "--split-time", "10s",
                 "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [p["path"][-12:] for p in doc["pieces"]] == [f"out-000{i}.fxt" for i in range(1, 5)]
    assert all(p["errors"] == p["warnings"] == 0 for p in doc["pieces"])


def test_verb_range_and_stdin(trace, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(trace.read_bytes())))
    out = tmp_path / "out.fxt"
    assert main(["slice", "-", "-o", str(out), "--from", "5s", "--to", "9000"]) == 0
    assert [r["timestamp"] for r in events(out.read_bytes())] == [str(t) for t in range(6000, 10000, 1000)]


@pytest.mark.parametrize(("options", "said"), [
    (["--from", "20ms", "--to", "10ms"], "is after --to"),
    (["--from", "50s"], "is outside the trace"),
    (["--to", "10"], "is outside the trace"),
    (["--from", "3 parsecs"], "does not parse"),
    (["--split-time", "0s"], "no time at all"),
    (["--split-size", "4"], "at least 8 bytes"),
    (["--from", "1ms", "--split-size", "1MB"], "give one of"),
])
def test_verb_usage_errors_name_the_time_range(trace, tmp_path, capsys, options, said):
    """A usage error is said before any piece is cut: a range outside the trace as soon as
    the walk has read the trace's time range (nothing written, from a file or stdin)."""
    assert main(["slice", str(trace), "-o", str(tmp_path / "out.fxt"), *options]) == 2
    err = capsys.readouterr().err
    assert said in err
    if "give one" not in err and "8 bytes" not in err:
        assert "the trace's time range is 1000 .. 39000 ticks" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fxt"]
    if "outside" in said:
        with open(trace, "rb") as fh, pytest.MonkeyPatch.context() as mp:
            mp.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(fh.read())))
            assert main(["slice", "-", "-o", str(tmp_path / "out.fxt"), *options]) == 2
        assert said in capsys.readouterr().err and sorted(p.name for p in tmp_path.iterdir()) == ["in.fxt"]


def test_verb_refuses_to_write_over_its_input(trace, capsys):
    assert main(["slice", str(trace), "-o", str(trace), "--from", "2ms"]) == 2
    assert "the output is the input" in capsys.readouterr().err


def test_a_file_that_is_not_fxt_gives_no_piece(tmp_path, capsys):
    src = CORPUS_REAL / "not-fxt-eztrace.fxt"
    assert pieces(src.read_bytes(), Cutter(size=4096)) == []
    assert main(["slice", str(src), "-o", str(tmp_path / "out.fxt"), "--split-size", "4KiB"]) == 1
    assert "it is not an FXT trace: nothing written" in capsys.readouterr().out


def test_the_fuzz_invariant_catches_a_slice_that_loses_events(monkeypatch):
    """fuzz/fuzz_slice.py's check holds on a clean trace and fails when a piece is lost."""
    if str(REPO) not in sys.path:
        sys.path.append(str(REPO))
    from fuzz import load_harness

    mod = load_harness("slice")
    data = B.archive(*TABLES, *(ev(t, 2) for t in range(1, 40)))
    mod.check(data)
    real = mod.slice_trace

    def losing(buf, open_out, cutter, **kw):
        return real(buf, lambda i: open_out(i) if i == 1 else _Kept(), cutter, **kw)

    monkeypatch.setattr(mod, "slice_trace", losing)
    with pytest.raises(AssertionError, match="events"):
        mod.check(data)


# -- the trace's own time: each provider's ticks through its rate ------------------------
GHZ, KHZ = 10**9, 1000
A, B_RATE = 10**9 + 7, 999_999_937  # rates that do not divide each other
ORDERS = ("little", "big")


def both(*recs, order="little") -> bytes:
    return B.archive(B.magic(), *recs, byte_order=order)


def on(ts: int, name="n", kind="instant", **kw):
    return B.event(kind, ts, thread=kw.pop("thread", (1, 2)), category="c", name=name, **kw)


def clean(data: bytes) -> bool:
    """Nothing found in ``data`` but the note that it is big-endian."""
    return not {k for k in fxtlint.lint_bytes(data).counts if k != "EX002"}


def placed(data: bytes) -> list[tuple]:
    """(provider id, timestamp) of the events the cut did not write."""
    return [(r["provider"]["id"], int(r["timestamp"])) for r in events(data)]


def two_providers_one_after_the_other():
    """Provider 1 at 1 GHz, then all of provider 2 at 1 kHz: events at 1..10 ms in each."""
    return [B.provider_info(1, "fast"), B.initialization(GHZ), *(on(k * 10**6) for k in range(1, 11)),
            B.provider_info(2, "slow"), B.initialization(KHZ), *(on(k) for k in range(1, 11))]


@pytest.mark.parametrize("order", ORDERS)
def test_a_range_keeps_the_events_of_its_time_in_every_provider(order):
    data = both(*two_providers_one_after_the_other(), order=order)
    (piece,) = pieces(data, Cutter(start=Fraction(4, 1000), end=Fraction(7, 1000)))
    assert placed(piece) == [(1, k * 10**6) for k in range(4, 8)] + [(2, k) for k in range(4, 8)]
    assert clean(piece)
    span = time_range(data)
    # the last instant: 10 ms, in both (the first met is kept)
    assert (span.first, span.last, span.start, span.end) == ((10**6, GHZ), (10**7, GHZ), Fraction(1, 1000),
                                                             Fraction(10, 1000))


@pytest.mark.parametrize("order", ORDERS)
def test_a_range_follows_a_rate_change(order):
    data = both(B.provider_info(1, "p"), B.initialization(KHZ), *(on(k) for k in range(1, 6)),
                B.initialization(GHZ), *(on(k * 10**6) for k in range(6, 11)), order=order)
    (piece,) = pieces(data, Cutter(start=Fraction(3, 1000), end=Fraction(7, 1000)))
    assert placed(piece) == [(1, 3), (1, 4), (1, 5), (1, 6 * 10**6), (1, 7 * 10**6)]
    assert clean(piece)


@pytest.mark.parametrize("order", ORDERS)
def test_a_cut_near_2_64_at_rates_that_do_not_divide_is_exact(order):
    """A cut at provider 1's instant t = T/A s: provider 2's ticks just before and just at or
    after it (less than a tick of B apart, the same double) fall on either side."""
    big = (1 << 64) - 2
    t = Fraction(big, A)
    just_after = -(-big * B_RATE // A)  # the first tick of B at or after t
    assert Fraction(just_after, B_RATE) > t  # not equal: A and B share no factor
    assert float(Fraction(just_after - 1, B_RATE)) == float(Fraction(just_after, B_RATE))
    data = both(B.provider_info(1, "a"), B.initialization(A), on(5), on(big),
                B.provider_info(2, "b"), B.initialization(B_RATE), on(just_after - 1), on(just_after), order=order)
    (piece,) = pieces(data, Cutter(start=t))
    assert placed(piece) == [(1, big), (2, just_after)]
    (piece,) = pieces(data, Cutter(end=t))
    assert placed(piece) == [(1, 5), (1, big), (2, just_after - 1)]


@pytest.mark.parametrize("order", ORDERS)
def test_what_a_range_leaves_open_is_begun_and_ended_in_its_own_provider_at_its_rate(order):
    """A duration of provider 2 (1 kHz) open across a range cut in provider 1's (1 GHz)
    events: its begin and end are written in provider 2's section, in its ticks."""
    data = both(B.provider_info(2, "slow"), B.initialization(KHZ), on(1, "d", "duration_begin", thread=(1, 3)),
                B.provider_info(1, "fast"), B.initialization(GHZ), *(on(k * 10**6) for k in range(2, 9)),
                B.provider_section(2), on(9, "d", "duration_end", thread=(1, 3)), order=order)
    assert clean(data)
    (piece,) = pieces(data, Cutter(start=Fraction(3, 1000) + Fraction(1, 10**7), end=Fraction(6, 1000)))
    assert clean(piece)
    cut = [(r["kind"], r["provider"]["id"], int(r["timestamp"])) for r in decode(piece).records if marked(r)]
    # begun at or before the piece's first instant (4 ms), ended at or after its last (6 ms)
    assert cut == [("event.duration_begin", 2, 4), ("event.duration_end", 2, 6)]
    assert placed(piece) == [(1, k * 10**6) for k in range(4, 7)]


@pytest.mark.parametrize("order", ORDERS)
def test_split_time_cuts_every_provider_at_the_same_instants(order):
    """Providers at 1 GHz and 1 kHz written turn by turn, an event a millisecond in each:
    --split-time 2ms gives pieces of two milliseconds of both."""
    recs = [B.provider_info(1, "fast"), B.initialization(GHZ), B.provider_info(2, "slow"), B.initialization(KHZ)]
    for k in range(1, 9):
        recs += [B.provider_section(1), on(k * 10**6), B.provider_section(2), on(k)]
    parts = pieces(both(*recs, order=order), Cutter(span=Fraction(2, 1000)))
    assert [placed(p) for p in parts] == [[(1, k * 10**6), (2, k), (1, (k + 1) * 10**6), (2, k + 1)]
                                          for k in range(1, 9, 2)]
    assert all(clean(p) for p in parts)


def test_verb_reads_times_in_the_trace_s_own_time(tmp_path, capsys):
    path = tmp_path / "in.fxt"
    path.write_bytes(both(*two_providers_one_after_the_other()))
    out = tmp_path / "out.fxt"
    assert main(["slice", str(path), "-o", str(out), "--from", "3ms", "--to", "6.000000000000000000001ms"]) == 0
    assert placed(out.read_bytes()) == [(1, k * 10**6) for k in range(4, 8)] + [(2, k) for k in range(4, 8)]
    said = capsys.readouterr().out
    assert "from tick 4,000,000 of 1 GHz (4 ms) to tick 7,000,000 of 1 GHz (7 ms)" in said
    assert main(["slice", str(path), "-o", str(out), "--from", "10ms"]) == 2
    assert ("the trace's time range is tick 1,000,000 of 1 GHz (1 ms) .. tick 10,000,000 of 1 GHz (10 ms) (0 .. 9 ms "
            "from its start; its providers tick at 1 kHz, 1 GHz)") in capsys.readouterr().err
    # ticks are of the start's clock (1 GHz): 7,000,000 is 7 ms
    assert main(["slice", str(path), "-o", str(out), "--from", "7000000"]) == 0
    assert placed(out.read_bytes()) == [(1, k * 10**6) for k in range(7, 11)] + [(2, k) for k in range(7, 11)]


def _times(data: bytes) -> list[Fraction]:
    """Each event's time, in file order: its ticks over its provider's rate at its record."""
    state, out = ProviderState(), []
    for rec in fxtlint.read_records(data)[0]:
        state.apply(rec)
        if rec.kind.startswith("event."):
            out.append(Fraction(rec.fields["timestamp"], state.current.rate))
    return out


@given(record_lists(max_size=8), record_lists(max_size=8), st.data())
def test_a_range_keeps_exactly_the_events_whose_instant_is_in_it(first, second, data):
    """Two providers, one after the other in the file, each at its own rates (the
    strategies change a rate mid-trace): a range between two of the events' instants keeps
    exactly the events whose own time is in it, in file order."""
    pid = first[1].fields["provider_id"]
    second = [B.provider_info(pid + 1 if pid < (1 << 32) - 1 else pid - 1, "second"), *second[3:]]
    trace = B.archive(*first, *second)
    times = _times(trace)
    want = events(trace)
    assert len(times) == len(want)
    if not times:
        return
    lo, hi = sorted(data.draw(st.sampled_from(times)) for _ in range(2))
    got = [e for p in pieces(trace, Cutter(start=lo, end=hi)) for e in events(p)]
    assert got == [e for e, t in zip(want, times) if lo <= t <= hi]


def test_a_split_time_longer_than_the_trace_says_so(trace, tmp_path, capsys):
    assert main(["slice", str(trace), "-o", str(tmp_path / "out.fxt"), "--split-time", "100s"]) == 0
    err = capsys.readouterr().err
    assert "--split-time 100s is longer than the trace (38" in err and "it is one piece" in err
    assert main(["slice", str(trace), "-o", str(tmp_path / "out.fxt"), "--split-time", "10s"]) == 0
    assert "longer than the trace" not in capsys.readouterr().err


@pytest.mark.parametrize("order", ORDERS)
def test_a_kernel_object_is_carried_in_the_section_of_the_provider_it_came_from(order):
    """Provider 2 names process 10 and thread 12; provider 1's events on them are cut into
    a second piece, which carries both objects in provider 2's section, its records then
    read in provider 1's again."""
    data = both(B.provider_info(2, "kernel"), B.kernel_object(10, 1, "proc"), B.kernel_object(12, 2, "t12"),
                B.provider_info(1, "user"), B.initialization(KHZ), *(on(k, thread=(10, 12)) for k in (1, 2, 30, 31)),
                order=order)
    assert clean(data)
    first, second = pieces(data, Cutter(span=MS10))
    objects = [(r["provider"]["id"], r["koid"]) for r in decode(second).records if r["kind"] == "kernel_object"]
    assert objects == [(2, "10"), (2, "12")]
    assert placed(second) == [(1, 30), (1, 31)] and clean(first) and clean(second)


@pytest.mark.parametrize("order", ORDERS)
def test_a_userspace_object_is_carried_into_the_pieces_that_refer_to_it(order):
    """Provider 2 describes pointer 0x1000 of process 10 (its name registered, its process
    by a thread ref); provider 1's events point at it (and at a pointer nothing describes)
    in both pieces: the second carries the object, process and strings inline, in provider
    2's section; the first holds its own; a piece that points at it from another process
    (1) carries none. The
    walk writes the pieces the record-by-record pass writes."""
    obj = B.userspace_object(0x1000, 3, 5, args=[B.arg("int32", "size", 7)])
    points = [B.arg("pointer", "p", 0x1000), B.arg("pointer", "q", 0x2000)]
    data = both(B.provider_info(2, "user"), B.string(5, "buffer"), B.thread(3, 10, 12), obj,
                B.provider_info(1, "app"), B.initialization(KHZ), on(1, thread=(10, 12), args=points), on(2),
                *(on(k, thread=(10, 12), args=points) for k in (30, 31)), on(60, args=points), order=order)
    assert clean(data)
    parts = pieces(data, Cutter(span=MS10))
    assert parts == [bytes(p) for p in pieces_by_records(data, Cutter(span=MS10))]
    _, second, third = parts
    objects = [(r["provider"]["id"], r["process"]["process_koid"], r["pointer"], r["name"])
               for p in parts for r in decode(p).records if r["kind"] == "userspace_object"]
    assert objects == [(2, "10", "4096", "buffer"), (2, "10", "4096", "buffer")]
    assert [r["kind"] for r in decode(third).records if r["kind"] == "userspace_object"] == []
    assert placed(second) == [(1, 30), (1, 31)] and all(clean(p) for p in parts)


def test_a_record_larger_than_the_split_size_is_a_piece_of_its_own():
    """--split-size bounds each piece's file, its prefix and what the cut writes included;
    a record whose piece would be larger than the size alone is written alone, in a piece
    of its own that is larger than the size."""
    big = B.event("instant", 20, thread=1, category=1, name=2, args=[B.arg("string", "s", "x" * 400)])
    data = B.archive(*TABLES, ev(5, 2), ev(6, 2), big, ev(30, 2))
    outs: dict = {}

    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]

    log = slice_trace(data, open_out, Cutter(size=300))
    parts = [outs[i].getvalue() for i in sorted(outs)]
    alone = [i for i, p in enumerate(log.pieces) if p.bytes == 432]
    assert len(alone) == 1 and log.pieces[alone[0]].records == 1 and len(parts[alone[0]]) > 432
    assert all(len(p) <= 300 for i, p in enumerate(parts) if i != alone[0])
    assert sum(len(events(p)) for p in parts) == 4 and len(parts) >= 3
    assert all(fxtlint.lint_bytes(p).counts == {} for p in parts)


# -- time going back: a cut begins and ends what the lint pairs across it ------------------
STEP_BACK = [*TABLES, ev(6, 3), ev(7, 2, "duration_end"), ev(30, 3), ev(5, 2, "duration_begin")]


def test_a_begin_written_after_its_end_is_carried_where_it_was_stamped():
    """The begin of a duration (5 ms) written after its end (7 ms), past a cut: the first
    piece begins it at its first instant (6 ms: the begin is before it), the second ends it
    at its own instant (7 ms: inside its time, before its records), as the lint pairs them."""
    data = B.archive(*STEP_BACK)
    assert fxtlint.lint_bytes(data).counts == {}
    first, second = pieces(data, Cutter(span=MS10))
    assert [(r["kind"], r["timestamp"]) for r in decode(first).records if marked(r)] == [("event.duration_begin", "6")]
    assert [(r["kind"], r["timestamp"]) for r in decode(second).records if marked(r)] == [("event.duration_end", "7")]
    assert fxtlint.lint_bytes(first).counts == {} and fxtlint.lint_bytes(second).counts == {}
    assert events(first) + events(second) == events(data)


def test_verb_cuts_a_file_going_back_in_time_as_the_lint_pairs_and_says_a_pipe_cannot_be(tmp_path, monkeypatch,
                                                                                         capsys):
    """A file whose instants go back is cut again in time order: its pieces are clean (the
    first cut's replaced, each piece once in the log). A pipe is read once: it is cut
    following what is open in file order, and the verb says so."""
    path = tmp_path / "in.fxt"
    path.write_bytes(B.archive(*STEP_BACK))
    assert main(["slice", str(path), "-o", str(tmp_path / "out.fxt"), "--split-time", "10ms",
                 "--output-format", "json"]) == 0
    out = capsys.readouterr()
    assert [(p["path"][-8:], p["warnings"]) for p in json.loads(out.out)["pieces"]] == [
        ("0001.fxt", 0), ("0002.fxt", 0)] and "go back" not in out.err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(B.archive(*STEP_BACK))))
    assert main(["slice", "-", "-o", str(tmp_path / "out.fxt"), "--split-time", "10ms"]) == 0
    assert "timestamps go back, and a pipe is read once" in capsys.readouterr().err


def _opener(outs: dict):
    """``open_out`` writing piece ``i`` to a new ``outs[i]`` (written again: anew)."""
    def open_out(i: int):
        outs[i] = _Kept()
        return outs[i]
    return open_out


def test_split_size_bounds_the_pieces_of_a_trace_going_back_in_time():
    """Cut a second time as the lint pairs (ends written before their begins): an end may
    open a pair in the file, and the stand-in of its begin counts against the size too."""
    data = B.archive(*STEP_BACK, ev(40, 3), ev(41, 2, "duration_end"), ev(50, 3), ev(35, 2, "duration_begin"))
    for size in range(200, 304, 8):
        outs: dict = {}
        log = slice_trace(data, _opener(outs), Cutter(size=size))
        parts = [outs[i].getvalue() for i in sorted(outs)]
        assert all(len(p) <= size for p, info in zip(parts, log.pieces, strict=True) if info.records > 1), size
        assert [e for p in parts for e in events(p)] == events(data)
