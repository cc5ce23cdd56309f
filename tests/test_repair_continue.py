"""OUT's lint continued from IN's paused lint, and IN's rest walked once by it
(``rewrite/_continue``): IN's report is its lint's, the continued lint of any OUT whose
bytes before the place are IN's is a whole lint of OUT, and the verb writes the bytes and
says the changes of a repair from IN's start, whether OUT's lint took IN's rest
(``Paused.take_rest``) or found something there and let repair walk it (OUT linted whole)."""

from __future__ import annotations

import copy
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fxtlint
from conftest import CORPUS_REAL, DRAWN_MUTATIONS, REPO
from fxtlint import build as B
from fxtlint import rules as R
from fxtlint.cli import main
from fxtlint.engine import _file
from fxtlint.engine._lint import lint_path
from fxtlint.engine._pairing_choice import native_pairing, pairing_engine
from fxtlint.engine._result import DiagnosticSink
from fxtlint.rewrite import _continue, _input, _repair
from fxtlint.rewrite._repair import repair
from fxtlint.rewrite._resume import resume_at
from fxtlint.spec._limits import DEFAULT_LIMITS
from fxtlint.strategies import archives, mutated_archives

pytestmark = pytest.mark.skipif(_repair.native_walk() is None, reason="the native walk is not built here")

CORPORA = sorted((REPO / "corpus" / "golden").glob("*.fxt")) + sorted(CORPUS_REAL.glob("*.fxt"))


def _zeroed(data: bytes, at: int, n: int = 4096) -> bytes:
    at &= ~7
    return data[:at] + bytes(max(0, min(n, len(data) - at))) + data[at + n:]


def _json(report) -> dict:
    return report.to_json()


def _kept(tmp_path, data: bytes):
    """``lint_keeping`` of ``data`` as a file read in chunks of 64 bytes (4 KiB past 64 KiB):
    the walk pauses at a header of size 0 anywhere but in the last chunk."""
    chunk = 64 if len(data) < 1 << 16 else 4096
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    with open(src, "rb") as fh:
        report, walk, paused = _continue.lint_keeping(_file.FileSource(fh, str(src), len(data)), str(src), chunk)
    return src, report, walk, paused


def _continued(tmp_path, paused, out: bytes, name: str = "out.fxt"):
    dst = tmp_path / name
    dst.write_bytes(out)
    with open(dst, "rb", buffering=0) as fh:
        return paused.lint_out(fh.fileno(), len(out), str(dst), 64 if len(out) < 1 << 16 else 4096)


def assert_continues(tmp_path, data: bytes, tails=()) -> bool:
    """IN's report from ``lint_keeping`` is its lint's; where it paused, the lint of OUT
    continued from there is the whole lint of OUT, for OUT the repair from the place and
    each of ``tails`` after IN's bytes before the place. Whether it paused."""
    src, report, walk, paused = _kept(tmp_path, data)
    assert _json(report) == _json(lint_path(src, input_format="trace"))
    if paused is None:
        return False
    assert paused.place == 8 * walk.cur  # (the header of size 0 IN's lint stopped at)
    resume = resume_at(report, walk, lambda a, b: data[a:b])
    outs = []
    if resume is not None and resume.offset == paused.place:
        got: list = []
        repair(data, got.append, resume=resume)
        outs.append(b"".join(got))
    outs += [data[:paused.place] + t for t in tails]
    for i, out in enumerate(outs):
        # (each OUT from a fresh pause: a paused walk continues once)
        _, _, _, again = _kept(tmp_path, data) if i else (None, None, None, paused)
        dst = tmp_path / f"out{i}.fxt"
        assert _json(_continued(tmp_path, again, out, dst.name)) == _json(lint_path(dst, input_format="trace"))
    return True


def test_the_corpora_with_a_page_zeroed_continue_as_a_whole_lint(tmp_path):
    paused = 0
    for path in CORPORA:
        data = path.read_bytes()
        for where, n in ((len(data) // 2, 4096), (len(data) // 3, 64), (72, 16)):
            case = _zeroed(data, where, n)
            paused += assert_continues(tmp_path, case, tails=(data[(where & ~7):], B.archive(B.magic())))
    assert paused >= 20  # (the pause is found and taken across the corpora)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["little", "big"]).flatmap(lambda order: archives(min_size=2, max_size=14, byte_order=order)),
       st.data())
def test_a_stretch_zeroed_continues_as_a_whole_lint(tmp_path_factory, data, draw):
    words = len(data) // 8
    lo = draw.draw(st.integers(1, max(1, words - 1)))
    hi = draw.draw(st.integers(lo, words))
    tail = draw.draw(st.binary(max_size=200))
    assert_continues(tmp_path_factory.mktemp("z"), data[: 8 * lo] + bytes(8 * (hi - lo)) + data[8 * hi:],
                     tails=(data[8 * lo:], tail))


@settings(max_examples=30, deadline=None)
@given(mutated_archives(codes=DRAWN_MUTATIONS), st.data())
def test_a_mutated_archive_with_a_zeroed_word_continues_as_a_whole_lint(tmp_path_factory, case, draw):
    data = case[0]
    words = len(data) // 8
    at = draw.draw(st.integers(1, max(1, words - 1)))
    assert_continues(tmp_path_factory.mktemp("m"), data[: 8 * at] + bytes(8) + data[8 * at:],
                     tails=(data[8 * at:],))


def test_the_pairing_engine_copies_its_state():
    """``PairingEngine.__deepcopy__``: the copy holds what is open, reports to the copied
    sink, and goes on apart from the original."""
    if native_pairing()[0] is None:
        pytest.skip("the compiled pairing engine is not built here")
    from fxtlint.engine._pairing import Batch

    sink = DiagnosticSink()
    strings = ["", "c", "n"]
    eng = pairing_engine(sink.add, strings, DEFAULT_LIMITS, native=True)
    b = Batch()
    b.add(0, 5, 1, 1, 2, 10, 0, 0, 0, 0, 8)  # a duration begun on thread 5
    eng.feed(b)
    memo: dict = {}
    twin = copy.deepcopy({"sink": sink, "eng": eng}, memo)
    assert type(twin["eng"]) is type(eng) and twin["eng"] is not eng
    assert twin["eng"].stacks == eng.stacks != {}
    assert twin["eng"].emit.__self__ is twin["sink"] and twin["eng"].strings is memo[id(strings)]
    twin["eng"].finish(False, None)
    code = R.unterminated_at_end.code
    assert twin["sink"].counts == {code: 1} and not sink.counts  # the copy said it, in its sink
    eng.finish(False, None)
    assert sink.counts == {code: 1}


def _big(tmp_path, monkeypatch, data: bytes, chunk: int = 4096):
    """The verb reads ``data`` as a large file, in chunks of ``chunk`` bytes (``_file``, and
    repair's ``_input``: its walk is asked about IN's rest before IN is read whole)."""
    monkeypatch.setattr(_file, "WHOLE", min(1024, chunk))
    monkeypatch.setattr(_file, "CHUNK", chunk)
    monkeypatch.setattr(_input, "CHUNK", chunk)
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    return src


def _verb(src, dst, capsys, options=()) -> dict:
    assert main(["repair", str(src), "-o", str(dst), "--output-format", "json", *options]) in (0, 1)
    doc = json.loads(capsys.readouterr().out)
    doc.pop("output")
    return doc


class _Spy:
    """The verb's lints of OUT, by the way each was made: ``whole`` (``lint_output``),
    ``continued`` (``_lint_continued``), ``took`` (``Paused.take_rest``: its answer and report)."""

    def __init__(self, monkeypatch):
        from fxtlint.cli import repair as verb

        self.whole: list = []
        self.continued: list = []
        self.took: list = []
        real_continued, real_take = verb._lint_continued, _continue.Paused.take_rest

        def take(paused, *a, **k):
            got = real_take(paused, *a, **k)
            self.took.append((got, paused.report))
            return got

        monkeypatch.setattr(verb, "lint_output",
                            lambda path: self.whole.append(path) or lint_path(path, input_format="trace"))
        def continued(paused, path):
            report = real_continued(paused, path)
            self.continued.append((path, report))
            return report

        monkeypatch.setattr(verb, "_lint_continued", continued)
        monkeypatch.setattr(_continue.Paused, "take_rest", take)


def assert_verb_is_the_repair(src, dst, capsys, case: bytes, spy: _Spy, options=(), spec: bool = False) -> dict:
    """The verb's OUT, changes, notes and counts are a repair of ``case`` from its start's
    (``spec``: the record-by-record pass's), and where OUT's lint was made as repair wrote
    IN's rest (``take_rest``) it is a whole lint of OUT."""
    doc = _verb(src, dst, capsys, options)
    out = dst.read_bytes()
    got: list = []
    log = repair(case, got.append, close_open="--close-open" in options, stop_at_loss="--stop-at-loss" in options,
                 shortcut=not spec)
    assert out == b"".join(got)
    assert doc["changes"] == [c.to_json() for c in log.changes] and doc["notes"] == [c.to_json() for c in log.notes]
    assert (doc["records_in"], doc["records_out"], doc["bytes_in"], doc["bytes_out"]) == (
        log.records_in, log.records_out, log.bytes_in, log.bytes_out)
    whole = lint_path(dst, input_format="trace")
    for took, report in spy.took:
        assert took == (report is not None)
        if took:
            assert _json(report) == {**_json(whole), "path": str(dst)}
    for _, report in spy.continued:
        assert _json(report) == {**_json(whole), "path": str(dst)}
    assert doc["output_lint"]["clean"] == (not whole.has_errors)
    return doc


@pytest.mark.parametrize("options", [[], pytest.param(["--close-open"], marks=pytest.mark.slow), ["--stop-at-loss"]])
def test_a_real_trace_s_out_is_linted_continued_not_whole(tmp_path, monkeypatch, capsys, options):
    """A zeroed page at a record's start in a real trace (IN's lint stops there, and repair
    starts there): OUT's lint is IN's paused lint continued, never a whole lint: made as
    repair writes IN's rest (``take_rest``: the rest walked once) where repair goes on past
    the page, and says what a whole lint of OUT says; OUT is the repair from IN's start."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    case = _zeroed(data, 409600)
    src = _big(tmp_path, monkeypatch, case)
    spy = _Spy(monkeypatch)
    doc = assert_verb_is_the_repair(src, tmp_path / "out.fxt", capsys, case, spy, options)
    assert not spy.whole
    if "--stop-at-loss" in options or "--close-open" in options:
        # (--stop-at-loss: nothing written past the page, no rest to take; --close-open: repair
        # follows what is open record by record, not on the walk (``_Repairer.walkable``), so it
        # is not asked for the rest, and OUT's lint is IN's continued over OUT's bytes)
        assert len(spy.continued) == 1 and not spy.took
    else:
        assert not spy.continued and [t for t, _ in spy.took] == [True]
    out = (tmp_path / "out.fxt").read_bytes()
    got: list = []
    log = repair(case, got.append, close_open="--close-open" in options, stop_at_loss="--stop-at-loss" in options)
    assert out == b"".join(got) and doc["changes"] == [c.to_json() for c in log.changes]
    assert doc["notes"] == [c.to_json() for c in log.notes]
    assert (doc["records_in"], doc["records_out"], doc["bytes_out"]) == (log.records_in, log.records_out,
                                                                          log.bytes_out)
    lint = fxtlint.lint_bytes(out, input_format="trace")
    assert doc["output_lint"] == {"clean": not lint.has_errors, "error": lint.severity_counts.get("error", 0),
                                  "warning": lint.severity_counts.get("warning", 0),
                                  "info": lint.severity_counts.get("info", 0)}


def test_a_page_zeroed_where_a_record_overruns_into_it_is_linted_whole(tmp_path, monkeypatch, capsys):
    """The record before the page runs into it: repair starts at that record, before where
    IN's lint stopped, so OUT's lint is a whole lint."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    src = _big(tmp_path, monkeypatch, _zeroed(data, 495616))
    from fxtlint.cli import repair as verb

    whole: list = []
    monkeypatch.setattr(verb, "lint_output", lambda path: whole.append(path) or lint_path(path, input_format="trace"))
    _verb(src, tmp_path / "out.fxt", capsys)
    assert whole == [str(tmp_path / "out.fxt")]


class _Counted(_file.FileSource):
    """A file read in chunks whose reads are counted; ``touch(path)`` is called after each."""

    def __init__(self, fh, path, size, touch=None):
        super().__init__(fh, path, size)
        self.read, self.touch = 0, touch

    def readinto(self, view) -> int:
        n = super().readinto(view)
        self.read += n or 0
        if self.touch is not None:
            self.touch(self.path)
        return n


def _zeroed_real(tmp_path):
    data = _zeroed((CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes(), 409600)
    src = tmp_path / "in.fxt"
    src.write_bytes(data)
    return src, data


def test_in_s_lint_reads_nothing_past_the_pause(tmp_path):
    """Past the header of size 0 the lint only names the bytes left: IN's rest is not read
    (repair reads it), and the report is the whole lint's."""
    src, data = _zeroed_real(tmp_path)
    with open(src, "rb", buffering=0) as fh:
        source = _Counted(fh, str(src), len(data))
        report, walk, paused = _continue.lint_keeping(source, str(src), 4096)
    assert paused is not None and source.read < paused.place + 2 * 4096 < len(data)
    assert _json(report) == _json(lint_path(src, input_format="trace"))
    assert report.records == walk.records


@pytest.mark.parametrize("how", ["grows", "rewritten"])
def test_a_file_that_changes_while_in_s_lint_reads_it_is_file_changed(tmp_path, how):
    """The rest not read, the changed-while-read check is the file's ``fstat``: a file that
    grows, or is rewritten at its length, while IN's lint reads it is ``FileChanged``."""
    src, data = _zeroed_real(tmp_path)

    def touch(path):
        if how == "grows":
            if src.stat().st_size == len(data):  # (once)
                with open(path, "ab") as fa:
                    fa.write(bytes(8))
        else:
            st = src.stat()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))

    with open(src, "rb", buffering=0) as fh, pytest.raises(_file.FileChanged):
        _continue.lint_keeping(_Counted(fh, str(src), len(data), touch), str(src), 4096)


def test_the_corpora_with_pages_zeroed_take_the_rest_or_walk_it(tmp_path, monkeypatch, capsys):
    """Through the verb, the golden and real corpora with a zeroed stretch (and a second one
    after it: OUT's lint finds it in IN's rest, repair walks the rest and OUT is linted
    whole): the repair from IN's start's bytes, changes and notes, OUT's lint a whole lint."""
    outcomes: dict = {}
    for path in CORPORA:
        data = path.read_bytes()
        for first, second in ((len(data) // 3, None), (len(data) // 4, 3 * len(data) // 4), (72, None)):
            case = _zeroed(data, first, 64)
            if second is not None:
                case = _zeroed(case, second, 64)
            src = _big(tmp_path, monkeypatch, case, 64 if len(case) < 1 << 14 else 4096)
            spy = _Spy(monkeypatch)
            assert_verb_is_the_repair(src, tmp_path / "out.fxt", capsys, case, spy)
            for took, _ in spy.took:
                outcomes[took] = outcomes.get(took, 0) + 1
            monkeypatch.undo()
    assert outcomes.get(True, 0) >= 10 and outcomes.get(False, 0) >= 1  # (both ways taken across the corpora)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["little", "big"]).flatmap(lambda order: archives(min_size=8, max_size=40, byte_order=order)),
       st.data())
def test_an_archive_with_a_stretch_zeroed_through_the_verb_is_the_repair(tmp_path_factory, data, draw):
    """Drawn archives with a zeroed stretch (and sometimes a tail of drawn bytes), through the
    verb read in chunks of 64 bytes: the record-by-record repair's bytes, changes and notes;
    OUT's lint, where made as repair wrote IN's rest, a whole lint of OUT."""
    words = len(data) // 8
    lo = draw.draw(st.integers(1, max(1, words - 1)))
    hi = draw.draw(st.integers(lo, min(words, lo + draw.draw(st.integers(1, 8)))))
    case = data[: 8 * lo] + bytes(8 * (hi - lo)) + data[8 * hi:] + draw.draw(st.binary(max_size=24))
    tmp = tmp_path_factory.mktemp("v")
    with pytest.MonkeyPatch.context() as mp:
        src = _big(tmp, mp, case, 64)
        spy = _Spy(mp)
        import contextlib
        import io

        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(["repair", str(src), "-o", str(tmp / "out.fxt"), "--output-format", "json"]) in (0, 1)
        doc = json.loads(buf.getvalue())
        out = (tmp / "out.fxt").read_bytes()
        got: list = []
        log = repair(case, got.append, shortcut=False)
        assert out == b"".join(got)
        assert doc["changes"] == [c.to_json() for c in log.changes] and doc["notes"] == [c.to_json() for c in log.notes]
        assert (doc["records_in"], doc["records_out"], doc["bytes_out"]) == (log.records_in, log.records_out,
                                                                              log.bytes_out)
        whole = lint_path(tmp / "out.fxt", input_format="trace")
        for took, report in spy.took:
            if took:
                assert _json(report) == {**_json(whole), "path": str(tmp / "out.fxt")}
        assert doc["output_lint"]["clean"] == (not whole.has_errors)


def test_the_records_reading_a_placeholder_thread_are_counted_until_it_is_registered(tmp_path, monkeypatch, capsys):
    """Thread 2's registration in the zeroed stretch: the records after it that read thread 2
    read its placeholder, counted (the change log's note) as the record-by-record repair
    counts them, up to the thread's registration further on, none after it, where OUT's lint
    took IN's rest."""
    def on(thread: int, ts: int):
        return B.event("instant", ts, thread=thread, category=1, name=2)

    head = [B.magic(), B.string(1, "c"), B.string(2, "n"), B.thread(1, 1, 2)] + [on(1, t) for t in range(40)]
    lost = [B.thread(2, 3, 4)] + [on(2, 100 + t) for t in range(3)]
    rest = ([on(2, 200 + t) for t in range(30)] + [on(1, 300 + t) for t in range(30)] + [B.thread(2, 3, 4)]
            + [on(2, 400 + t) for t in range(20)])
    before, gone = B.archive(*head), B.archive(*lost)[8:]
    case = before + bytes(len(gone)) + B.archive(*rest)[8:]
    src = _big(tmp_path, monkeypatch, case, 64)
    spy = _Spy(monkeypatch)
    doc = assert_verb_is_the_repair(src, tmp_path / "out.fxt", capsys, case, spy, spec=True)
    assert [t for t, _ in spy.took] == [True]
    (note,) = doc["notes"]  # (the count is the record-by-record repair's: the first event after the
    # stretch is where its recovery frames again, so 29 or 30 of the 30 read thread 2's placeholder)
    assert 29 <= int(note["detail"].split(" record(s)")[0].rsplit(" ", 1)[1]) <= 30  # (none of the 20 after)


def _record_start(data: bytes, at: int) -> int:
    """The offset of the first record of ``data`` (a clean little-endian trace) at or past ``at``."""
    from fxtlint.engine._reader import declared_size

    off = 0
    while off < at:
        off += 8 * declared_size(int.from_bytes(data[off:off + 8], "little"))
    return off


def test_a_second_zeroed_page_pauses_out_s_lint_again(tmp_path, monkeypatch, capsys):
    """Two zeroed pages, each at a record's start: OUT's lint, walking IN's rest for repair,
    pauses at the second as IN's lint paused at the first, with nothing repair acts on
    before it; repair walks the rest itself and OUT's lint is that walk continued from the
    second page (``lint_out``), never a whole lint: a whole lint's report, the repair's bytes."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    second = _record_start(data, 700000)
    case = _zeroed(_zeroed(data, 409600), second)
    src = _big(tmp_path, monkeypatch, case)
    spy = _Spy(monkeypatch)
    paused: list = []
    real_out = _continue.Paused.lint_out

    def lint_out(self, fd, size, path, chunk=None):
        paused.append(self.place)
        report = real_out(self, fd, size, path, chunk)
        assert _json(report) == _json(lint_path(path, input_format="trace"))
        return report

    monkeypatch.setattr(_continue.Paused, "lint_out", lint_out)
    assert_verb_is_the_repair(src, tmp_path / "out.fxt", capsys, case, spy)
    assert [t for t, _ in spy.took] == [False] and not spy.whole and len(spy.continued) == 1
    assert len(paused) == 1 and 409600 < paused[0] < second  # (OUT's offset of the second page: bytes dropped before)


@pytest.mark.parametrize("cut", [3, 20, 4096 + 5])
def test_a_trace_cut_off_pauses_out_s_lint_before_its_last_bytes(tmp_path, monkeypatch, capsys, cut):
    """A zeroed page and IN's last ``cut`` bytes gone (a record cut off, a part of a word): OUT's
    lint, walking IN's rest for repair, pauses before IN's last bytes with nothing repair acts
    on before them; repair walks the rest itself and OUT's lint is that walk continued from
    there (``lint_out``), never a whole lint: a whole lint's report, the repair's bytes."""
    data = (CORPUS_REAL / "jane-tracing-richiesams.fxt").read_bytes()
    case = _zeroed(data, 409600)[:-cut]
    src = _big(tmp_path, monkeypatch, case)
    spy = _Spy(monkeypatch)
    assert_verb_is_the_repair(src, tmp_path / "out.fxt", capsys, case, spy)
    assert [t for t, _ in spy.took] == [False] and not spy.whole and len(spy.continued) == 1


def test_a_large_file_that_is_not_fxt_is_repaired_without_raising(tmp_path, monkeypatch, capsys):
    """A file read a chunk at a time that is not FXT at all (its lint's walk never steps, so it
    stops nowhere): repair says so and exits 0 or 1, as it does for a small one."""
    data = (CORPUS_REAL / "not-fxt-eztrace.fxt").read_bytes()
    src = _big(tmp_path, monkeypatch, data)
    doc = _verb(src, tmp_path / "out.fxt", capsys)
    assert doc["input_lint_stop"] is None and doc["changes"][0]["code"] == "MG001"


@pytest.mark.parametrize("how", ["grows", "rewritten"])
def test_in_changed_while_its_rest_is_walked_is_a_usage_error(tmp_path, monkeypatch, capsys, how):
    """IN's rest read by OUT's lint for repair (``take_rest``): a file that grows, or is
    rewritten at its length, meanwhile is exit 2 with one line, and no OUT is left."""
    src, data = _zeroed_real(tmp_path)
    _big(tmp_path, monkeypatch, data)
    real = _continue._Joined.readinto
    rest: list = []

    def readinto(self, view):
        if self.at >= self.split:  # (IN's rest being read)
            rest.append(self.at)
            if how == "grows" and src.stat().st_size == len(data):
                with open(src, "ab") as fa:
                    fa.write(bytes(8))
            elif how == "rewritten":
                st = src.stat()
                os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
        return real(self, view)

    monkeypatch.setattr(_continue._Joined, "readinto", readinto)
    spy = _Spy(monkeypatch)
    assert main(["repair", str(src), "-o", str(tmp_path / "out.fxt")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "changed" in err and not (tmp_path / "out.fxt").exists()
    assert rest and spy.took == [] and not list(tmp_path.glob("*.part")) + list(tmp_path.glob(".*.part"))
