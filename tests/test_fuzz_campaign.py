"""The campaign tooling: libFuzzer log parsing, the ClusterFuzzLite build's seed zips,
dictionaries and staged ``*_fuzzer.py`` harnesses, and (where atheris is installed) a
short real campaign and the instrumentation that keeps memory flat."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
if str(REPO) not in sys.path:
    sys.path.append(str(REPO))
from fuzz import (  # noqa: E402
    HARNESSES,
    LOCAL_HARNESSES,
    MAX_LEN,
    RSS_LIMIT_MB,
    TIMEOUT,
    build_seeds,
    campaign,
)

needs_atheris = pytest.mark.usefixtures("atheris_installed")  # skips saying why without it
ENV = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))

LOG = """INFO: Seed: 1
#2\tINITED cov: 700 ft: 2000 corp: 50/10Kb exec/s: 0 rss: 70Mb
#512\tpulse  cov: 712 ft: 2100 corp: 55/11Kb lim: 920 exec/s: 256 rss: 71Mb
#900\tNEW    cov: 715 ft: 2150 corp: 56/11Kb lim: 920 exec/s: 300 rss: 71Mb L: 8/8 MS: 1 Custom-
stat::number_of_executed_units: 1024
"""


def test_parse_log_reads_executions_edges_features():
    assert campaign.parse_log(LOG) == (1024, 715, 2150)


def test_seed_files_are_traces_and_logs_only():
    files = campaign.seed_files()
    assert len(files) > 80
    assert {f.suffix for f in files} == {".fxt", ".log"}


def test_build_writes_what_clusterfuzzlite_expects(tmp_path):
    out, stage = tmp_path / "out", tmp_path / "src"
    made = build_seeds.build(out, stage)
    fxt = [n for n, (_, is_fxt) in HARNESSES.items() if is_fxt]
    assert sorted(p.name for p in made["zips"]) == sorted(f"fuzz_{n}_fuzzer_seed_corpus.zip" for n in fxt)
    for z in made["zips"]:
        infos = zipfile.ZipFile(z).infolist()
        assert len(infos) == len(campaign.seed_files()) and "seeds-sample.fxt" in {i.filename for i in infos}
        # the 1 MB golden file would be cut to max_len anyway, and outlasts a timeout instrumented
        assert max(i.file_size for i in infos) <= MAX_LEN
        assert "golden-PR012-pairing-state-overflow.fxt" not in {i.filename for i in infos}
    for d in made["dicts"]:
        entries = [ln for ln in d.read_text().splitlines() if ln and not ln.startswith("#")]
        assert len(entries) > 30
        assert all(re.fullmatch(r'fxt_\d+="(\\x[0-9a-f]{2})+"', e) for e in entries), entries[:3]
    staged = sorted(p.name for p in made["harnesses"])
    assert staged == sorted(f"{Path(f).stem}_fuzzer.py" for f, _ in HARNESSES.values())


def test_every_fuzzer_gets_the_local_campaigns_options(tmp_path):
    """Without <fuzzer>.options the service takes max_len from the largest seed and runs
    with -timeout=25; a campaign here uses these."""
    import configparser

    made = build_seeds.build(tmp_path)
    assert sorted(p.name for p in made["options"]) == sorted(f"{build_seeds.fuzzer_name(n)}.options" for n in HARNESSES)
    for p in made["options"]:
        opts = configparser.ConfigParser()
        opts.read(p)
        assert dict(opts["libfuzzer"]) == {"max_len": str(MAX_LEN), "timeout": str(TIMEOUT),
                                           "rss_limit_mb": str(RSS_LIMIT_MB)}
    import inspect

    defaults = inspect.signature(campaign.run).parameters  # a campaign here runs with the same
    assert defaults["max_len"].default == MAX_LEN and defaults["rss_limit_mb"].default == RSS_LIMIT_MB


def _stub(kind: str) -> str:
    """The text compile_python_fuzzer puts in front of a harness (coverage or pysecsan)."""
    script = (REPO / "fuzz" / "oss_fuzz" / "compile_python_fuzzer").read_text()
    return re.search(rf"cat <<EOF > {kind}_wrapper.py\n(.*?)\nEOF", script, re.S).group(1) + "\n"


@pytest.mark.parametrize("kind", ["coverage", "pysecsan"])
def test_every_harness_compiles_behind_the_services_stubs(kind):
    """OSS-Fuzz puts a stub in front of the harness source (coverage builds; PySecSan):
    nothing in a harness may need to come first, as a __future__ import does."""
    stub = _stub(kind)
    assert stub.startswith(("###### Coverage stub", "import pysecsan"))
    for path in sorted((REPO / "fuzz").glob("fuzz_*.py")):  # every harness, the local-only ones too
        compile(stub + path.read_text(), path.name, "exec")
    with pytest.raises(SyntaxError, match="__future__"):  # the check can fail
        compile(stub + "from __future__ import annotations\n", "x.py", "exec")


def test_every_harness_file_is_built_for_the_service_or_said_to_run_here_only():
    """A harness added to fuzz/ is staged, built and given its .options by naming it in
    HARNESSES; one left out on purpose is named in LOCAL_HARNESSES, with its reason."""
    files = {p.name for p in (REPO / "fuzz").glob("fuzz_*.py")}
    service = {file for file, _ in HARNESSES.values()}
    assert files == service | set(LOCAL_HARNESSES) and not service & set(LOCAL_HARNESSES)


def test_the_readme_splits_fuzz_seconds_across_every_fuzzer():
    """ClusterFuzzLite's fuzz-seconds is a run's total, shared by the fuzzers: the README's
    time per fuzzer follows the workflows and the number of harnesses."""
    readme = " ".join((REPO / "fuzz" / "README.md").read_text().split())
    n = len(HARNESSES)
    pr, batch = (int(re.search(r"fuzz-seconds: (\d+)", (REPO / ".github" / "workflows" / f).read_text())[1])
                 for f in ("cflite_pr.yml", "cflite_batch.yml"))
    assert f"split across the {n} fuzzers" in readme
    assert f"{pr} s is about {round(pr / n)} seconds per fuzzer" in readme
    assert f"{batch:,} s about {batch / n / 60:.1f} minutes per fuzzer" in readme
    assert f"set {n * 3600} for an hour each" in readme


def test_the_readme_names_every_harness():
    text = " ".join((REPO / "README.md").read_text().split())
    m = re.search(r"(\w+) atheris harnesses \(([^)]*)\)", text)
    assert m, "README.md: the Fuzzing section's list of harnesses"
    assert m[2].replace("`", "").split(", ") == list(HARNESSES)
    assert m[1] == ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"][len(HARNESSES) - 1]


def test_staged_harnesses_import_on_their_own(tmp_path):
    """Each *_fuzzer.py runs from the staging folder alone (fxtlint installed, no fuzz/
    package), as compile_python_fuzzer bundles it, and its check passes on a seed."""
    stage = tmp_path / "src"
    build_seeds.stage(stage)
    seed = REPO / "corpus" / "seeds" / "sample.fxt"
    code = (
        "import importlib.util, sys\n"
        "for path in sys.argv[2:]:\n"
        "    spec = importlib.util.spec_from_file_location(path.rsplit('/', 1)[-1][:-3], path)\n"
        "    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)\n"
        "    mod.check(open(sys.argv[1], 'rb').read())\n"
        "    print('ok', mod.__name__)\n"
    )
    import fxtlint

    # the fxtlint this test imported first (an installed one, with its kernel, before a
    # checkout's sources beside it, which may have none)
    own = str(Path(fxtlint.__file__).resolve().parent.parent)
    path = [own, *(p for p in sys.path if p and "fuzz" not in Path(p).name and p != own)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
    files = sorted(str(p) for p in stage.glob("*_fuzzer.py"))
    assert len(files) == len(HARNESSES)
    from fxtlint.engine import _native

    if _native.native_missing():  # an install with no compiler: the native harness has nothing to compare
        files = [f for f in files if not f.endswith("/fuzz_native_fuzzer.py")]
        assert len(files) == len(HARNESSES) - 1
    proc = subprocess.run([sys.executable, "-c", code, str(seed), *files], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ok ") == len(files)


def test_build_sh_compiles_every_staged_harness():
    text = (REPO / ".clusterfuzzlite" / "build.sh").read_text()
    assert "fuzz/build_seeds.py" in text and "compile_python_fuzzer" in text and "_fuzzer.py" in text
    for f in (".clusterfuzzlite/project.yaml", ".clusterfuzzlite/Dockerfile"):
        assert (REPO / f).is_file()
    assert "base-builder-python" in (REPO / ".clusterfuzzlite" / "Dockerfile").read_text()


@pytest.mark.parametrize("workflow, mode", [("cflite_pr.yml", "code-change"), ("cflite_batch.yml", "batch")])
def test_workflows_fuzz_and_report_sarif(workflow, mode):
    text = (REPO / ".github" / "workflows" / workflow).read_text()
    assert f"mode: {mode}" in text and "output-sarif: true" in text and "upload-sarif" in text
    assert "clusterfuzzlite/actions/build_fuzzers" in text and "language: python" in text


def test_the_continuous_build_and_cron_workflows_follow_the_services_files():
    """ClusterFuzzLite's recommended files beside the PR and batch ones: cflite_build.yml
    uploads a build of main (PR fuzzing reports only new crashes against it),
    cflite_cron.yml prunes the batch corpus and reports coverage."""
    build = (REPO / ".github" / "workflows" / "cflite_build.yml").read_text()
    assert "push:\n    branches:\n      - main\n" in build and "upload-build: true" in build
    assert "clusterfuzzlite/actions/build_fuzzers@v1" in build and "language: python" in build
    cron = (REPO / ".github" / "workflows" / "cflite_cron.yml").read_text()
    prune, coverage = cron.split("  Coverage:\n")
    assert "mode: prune" in prune and "sanitizer: address" in prune and "schedule:" in prune
    assert "mode: coverage" in coverage and coverage.count("sanitizer: coverage") == 2
    for text in (prune, coverage):
        assert text.count("language: python") == 1 and "clusterfuzzlite/actions/run_fuzzers@v1" in text


@needs_atheris
def test_dictionary_is_accepted_by_libfuzzer(tmp_path):
    d = build_seeds.write_dictionary(tmp_path / "fxt.dict")
    proc = subprocess.run([sys.executable, str(REPO / "fuzz" / "fuzz_reader.py"), f"-dict={d}", "-runs=20",
                           str(REPO / "corpus" / "seeds" / "sample.fxt")], env=ENV, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "ParseDictionaryFile" not in proc.stderr and "Dictionary: " in proc.stderr


@pytest.mark.slow  # a real campaign of a few seconds per harness, and its merge and report
@needs_atheris
def test_a_short_campaign_runs_merges_and_reports(tmp_path):
    # 300 runs on each worker: the seeds (about 160) first, then mutations, whose new units
    # are what the corpus holds; with fewer runs than seeds it would stay empty, and a
    # merge of nothing is an error of the campaign (exit 2), not a pass
    proc = subprocess.run([sys.executable, "-m", "fuzz", "run", "reader", "--runs", "300", "--workers", "2",
                           "--dir", str(tmp_path), "--max-len", "4096", "--rss-every", "1"],
                          cwd=REPO, env=ENV, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    m = re.search(r"executions ([\d,]+) \(([\d.]+) per CPU second: ([\d,]+) s\)", out)
    assert m and int(m[1].replace(",", "")) >= 600, out  # 300 runs on each of 2 workers
    # (the workers' CPU counted too: the rate is the executions over the CPU they all used)
    assert float(m[2]) == pytest.approx(int(m[1].replace(",", "")) / max(1, int(m[3].replace(",", ""))), rel=0.5)
    m = re.search(r"corpus units ([\d,]+) -> ([\d,]+) after -merge=1", out)
    assert m and 0 < int(m[2].replace(",", "")) <= int(m[1].replace(",", "")), out
    assert "crashes 0" in out and "campaign error" not in out
    assert re.search(r"^TOTAL\s+\d+\s+\d+\s+\d+%", out, re.M), out
    assert (tmp_path / "rss.csv").read_text().count("\n") >= 2
    assert sorted(p.name for p in tmp_path.glob("fuzz-*.log")) == ["fuzz-0.log", "fuzz-1.log"]
    assert re.search(r"^slowest unit \d+ s \(libFuzzer's stat::slowest_unit_time_sec", out, re.M), out
    assert "RSS beside the corpus libFuzzer holds (its status lines, from INITED)" in out, out


INSTRUMENT_PROBE = """
import gc, hashlib, sys, types, atheris
sys.path.insert(0, sys.argv[1])
import _harness
_harness.instrument_fxtlint(atheris)
module = sys.modules["atheris"]
texts = sorted(_harness.canonical(f.__code__, module) for f in gc.get_objects()
               if isinstance(f, types.FunctionType) and (f.__module__ or "").startswith("fxtlint"))
traced = {f.__module__ for f in gc.get_objects() if isinstance(f, types.FunctionType)
          and (f.__module__ or "").startswith("fxtlint") and "_trace_branch" in f.__code__.co_names}
assert "fxtlint.engine._reader" in traced and "fxtlint.engine._walk_native" in traced, sorted(traced)
assert not traced & _harness.UNTRACED, sorted(traced & _harness.UNTRACED)
print(_harness.INSTRUMENTED_FROM, len(texts), hashlib.sha256("\\n".join(texts).encode()).hexdigest(),
      atheris._reserve_counter())
"""


@pytest.mark.slow  # atheris patches every fxtlint function once (about 5 s), then the cache is read
@needs_atheris
def test_instrumentation_is_kept_and_taken_again(tmp_path):
    """A harness's start patches fxtlint's code and keeps it; the next start takes it: the
    same instrumented code, the same coverage counters reserved; the modules in ``UNTRACED``
    are left as they are, the reader and the walk's driver patched."""
    env = {**ENV, "TMPDIR": str(tmp_path)}
    runs = [subprocess.run([sys.executable, "-c", INSTRUMENT_PROBE, str(REPO / "fuzz")], env=env,
                           capture_output=True, text=True, timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr[-2000:]
    (how1, *first), (how2, *second) = (r.stdout.split() for r in runs)
    assert (how1, how2) == ("patched", "cache") and first == second and int(first[0]) > 1000, (first, second)
    assert len(list(tmp_path.glob("fxtlint-fuzz-*-instrumented-*.marshal"))) == 1


# ------------------------------------------------------------------ python -m fuzz, small verbs
def _fuzz_cli(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "fuzz", *args], cwd=REPO, env=ENV, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.parametrize("path, message", [
    ("corpus/seeds", "corpus/seeds is a folder; give the files in it: python -m fuzz reproduce reader corpus/seeds/*"),
    ("no/such/crash", "no/such/crash: no such file"),
])
def test_reproduce_on_a_folder_or_a_missing_path_says_so(path, message):
    proc = _fuzz_cli("reproduce", "reader", "corpus/seeds/sample.fxt", path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == f"python -m fuzz reproduce: error: {message}"
    assert "sample.fxt: ok" not in proc.stdout  # refused before running anything


@needs_atheris  # and coverage.py, which the fuzz extra brings with it
def test_coverage_lists_the_missed_lines():
    proc = _fuzz_cli("coverage", "--harness", "reader", "--show-missing", "corpus/seeds/sample.fxt")
    assert proc.returncode == 0, proc.stderr
    header = next(ln for ln in proc.stdout.splitlines() if ln.startswith("Name"))
    assert header.split()[-1] == "Missing"
    assert re.search(r"fxtlint/engine/_reader\.py\s+\d+\s+\d+\s+\d+%\s+\d+(-\d+)?(, \d+(-\d+)?)*",
                     proc.stdout), proc.stdout


@needs_atheris  # and coverage.py, which the fuzz extra brings with it
def test_stats_prints_the_readme_figures(tmp_path):
    """fuzz/README.md quotes these lines; the edges need atheris, so they are left out here."""
    from fuzz import stats

    kept, left_out = stats.seeds()
    assert kept == campaign.seed_files() and {f.name for f in left_out} == {
        f.name for f in campaign.seed_files(max_len=None) if f.stat().st_size > MAX_LEN}
    proc = _fuzz_cli("stats", "--no-edges")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == (f"seeds: {len(kept)} files, {sum(f.stat().st_size for f in kept):,} bytes, "
                        "from corpus/seeds and corpus/golden")
    assert re.fullmatch(r"statements: [\d,]+ in the fxtlint modules .*; "
                        r"the seeds leave [\d,]+ unreached \([\d.]+% covered\)", lines[-1])
    readme = (REPO / "fuzz" / "README.md").read_text()
    # the README quotes what the script prints: the seeds exactly (they change with the
    # corpus); the statement count changes with every module, so only its form
    for line in lines[:-1]:
        assert line.strip() in readme, f"fuzz/README.md is stale: paste the output of python -m fuzz stats ({line})"
    assert re.search(r"^statements: [\d,]+ in the fxtlint modules", readme, re.M)


@needs_atheris
def test_stats_counts_edges_on_the_seeds():
    from fuzz import stats

    cov, ft = stats.edges("reader", campaign.seed_files()[:20])
    assert 0 < cov <= ft


LSAN = """pass 1: 100 bytes live
==1==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 48 byte(s) in 2 object(s) allocated from:
    #0 0x7f in __interceptor_malloc asan_malloc_linux.cpp:69:3
    #1 0x7f in PyFloat_FromDouble Objects/floatobject.c:149:14

Indirect leak of 16 byte(s) in 1 object(s) allocated from:
    #0 0x7f in __interceptor_calloc asan_malloc_linux.cpp:77:3
    #1 0x7f in load_program /src/build/asan-clang/fxtlint/engine/_screen.c:165:19

SUMMARY: AddressSanitizer: 64 byte(s) leaked in 3 allocation(s).
"""


def _replay(passes: int, objects: int, kernel_reports=(), status: int = 23, output: str = ""):
    from fuzz import leaks

    started = f"fxtlint.engine._nwalk: {KERNEL}\nreplaying 10 inputs, {passes} passes\n"
    return leaks.Replay(passes, status, started + output, live=[1] * passes, kernel_file=KERNEL,
                        leaked_objects=objects, kernel_reports=list(kernel_reports))


KERNEL = "/x/build/asan-clang/fxtlint/engine/_nwalk.so"
# What CPython leaves at exit whatever ran (or nothing ran): LeakSanitizer's report of it
CPYTHON_AT_EXIT = """
==1==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 48 byte(s) in 2 object(s) allocated from:
    #0 0x7f in __interceptor_malloc asan_malloc_linux.cpp:69:3
    #1 0x7f in PyFloat_FromDouble Objects/floatobject.c:149:14

SUMMARY: AddressSanitizer: 48 byte(s) leaked in 2 allocation(s).
"""


def test_leak_reports_are_split_and_the_kernels_found():
    from fuzz import leaks

    found = leaks.reports(LSAN)
    assert [r.splitlines()[0] for r in found] == ["Direct leak of 48 byte(s) in 2 object(s) allocated from:",
                                                  "Indirect leak of 16 byte(s) in 1 object(s) allocated from:"]
    assert [bool(leaks._KERNEL_FRAME.search(r)) for r in found] == [False, True]


def test_the_leak_check_fails_on_objects_per_pass_a_kernel_frame_or_a_sanitizer_error():
    from fuzz import leaks

    assert leaks.Leaks(10, _replay(1, 53), _replay(8, 53)).ok  # what CPython leaves at exit, whatever ran
    grows = leaks.Leaks(10, _replay(1, 143), _replay(4, 413))  # a tuple leaked per scan call (90 a pass)
    assert not grows.ok and grows.objects_per_pass == 90
    assert not leaks.Leaks(10, _replay(1, 53, ["#1 in f fxtlint/engine/_screen.c:1"]), _replay(8, 53)).ok
    overflow = _replay(8, 53, output="ERROR: AddressSanitizer: heap-buffer-overflow")
    assert not overflow.ran and not leaks.Leaks(10, _replay(1, 53), overflow).ok
    assert overflow.finding == "ERROR: AddressSanitizer: heap-buffer-overflow" and not overflow.error
    assert leaks.Leaks(10, _replay(1, 53), overflow).verdict == "leak check: FAILED"


def test_a_replay_on_an_unsanitized_kernel_is_an_error_of_the_check_not_a_verdict():
    from fuzz import leaks

    unsanitized = _replay(8, 53)
    unsanitized.kernel_file = str(REPO / "fxtlint" / "_nwalk.so")  # the repository's own build won the path
    found = leaks.Leaks(10, _replay(1, 53), unsanitized)
    assert not found.ok and not unsanitized.finding
    assert found.error == f"the 8-pass replay it imported {unsanitized.kernel_file}, not the sanitized build " \
                          "(build/asan-*)"
    assert found.verdict.startswith("leak check: the check did not run: the 8-pass replay it imported ")


# ------------------------------------------------------------------ a preloaded libFuzzer
def _asan_with_fuzzer() -> Path:
    """atheris's libFuzzer with ASan, the library OSS-Fuzz's wrapper preloads in an address build."""
    import atheris

    return Path(atheris.__file__).resolve().parent.parent / "asan_with_fuzzer.so"


@pytest.mark.slow  # an instrumented harness under ASan for a few hundred executions
@needs_atheris
def test_the_custom_mutator_runs_under_a_preloaded_libfuzzer(tmp_path):
    """Issue 27 item 1: preloaded, libFuzzer bound LLVMFuzzerCustomMutator to nothing and
    every mutation was a byte mutation; now the harness forwards atheris's to it."""
    env = dict(ENV, LD_PRELOAD=str(_asan_with_fuzzer()), ASAN_OPTIONS="detect_leaks=0", TMPDIR=str(tmp_path))
    (tmp_path / "corpus").mkdir()
    proc = subprocess.run([sys.executable, str(REPO / "fuzz" / "fuzz_reader.py"), "-runs=200", "-seed=1",
                           "-max_len=4096", str(tmp_path / "corpus"), str(REPO / "corpus" / "seeds")],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "INFO: Using preloaded libfuzzer" in proc.stderr and "found LLVMFuzzerCustomMutator" in proc.stderr
    assert re.search(r"MS: \d+ .*Custom", proc.stderr), proc.stderr[-3000:]


@needs_atheris
def test_a_preloaded_libfuzzer_without_the_forwarding_library_fails_loudly(tmp_path):
    env = dict(ENV, LD_PRELOAD=str(_asan_with_fuzzer()), ASAN_OPTIONS="detect_leaks=0", TMPDIR=str(tmp_path),
               CC="false")  # nothing compiles it, and no copy is cached in this TMPDIR
    proc = subprocess.run([sys.executable, str(REPO / "fuzz" / "fuzz_reader.py"), "-runs=1"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "ERROR: libFuzzer is preloaded" in proc.stderr and "cannot compile" in proc.stderr
    assert "FXTLINT_FUZZ_MUTATOR=bytes" in proc.stderr and "#1" not in proc.stderr  # it did not fuzz



def test_a_leak_check_of_no_inputs_did_not_run_and_starts_no_process(tmp_path, monkeypatch):
    """The failing CI run: a corpus of 0 units, replayed with no kernel loaded, judged on
    CPython's allocations at exit. Now no replay starts (none is stubbed: one would need
    the sanitized build), and the summary says the check did not run, with no leak figures."""
    from fuzz import leaks

    def no_replay(*a, **k):
        raise AssertionError("a replay of nothing was started")

    monkeypatch.setattr(leaks, "replay", no_replay)
    found = leaks.check("native", [tmp_path])
    assert found.inputs == 0 and not found.ok
    assert found.error == "it replayed 0 inputs (nothing to replay)"
    text = leaks.summary(found)
    assert text.splitlines()[-1] == ("leak check: the check did not run: it replayed 0 inputs (nothing to replay) "
                                     "(an error of the check, not a leak verdict)")
    assert "reports with a frame in the kernel" not in text and "FAILED" not in text and "passed" not in text


def test_leaks_cli_exits_2_when_the_check_did_not_run(tmp_path):
    proc = _fuzz_cli("leaks", "native", str(tmp_path))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    # a folder of no inputs is refused before any replay (the paths are checked first), and
    # never said to be a leak verdict
    assert "no input files" in proc.stderr and "FAILED" not in proc.stdout + proc.stderr


@pytest.mark.parametrize("output, status, error", [
    # the replay process could not import the sanitized kernel: it stops before any input,
    # and CPython's allocations at exit are all LeakSanitizer sees
    ("the native walk (fxtlint.engine._nwalk) is not importable: No module named 'x'\n" + CPYTHON_AT_EXIT, 23,
     "the 1-pass replay it failed before replaying anything (exit 23): SUMMARY: AddressSanitizer: 48 byte(s) "
     "leaked in 2 allocation(s)."),
    # the harness would not even load
    ("Traceback (most recent call last):\nModuleNotFoundError: No module named 'fxtlint'\n", 1,
     "the 1-pass replay it failed before replaying anything (exit 1): ModuleNotFoundError: No module named "
     "'fxtlint'"),
    # it started, but no kernel line: nothing native was checked
    ("replaying 3 inputs, 1 passes\npass 1: 100 bytes live\n" + CPYTHON_AT_EXIT, 23,
     "the 1-pass replay it loaded no native walk"),
    # killed part-way with no sanitizer report (the OOM killer, a signal)
    (f"fxtlint.engine._nwalk: {KERNEL}\nreplaying 3 inputs, 1 passes\n", -9,
     "the 1-pass replay it stopped after 0 of 1 passes (exit -9) with no sanitizer report: replaying 3 inputs, "
     "1 passes"),
])
def test_a_replay_that_did_not_run_is_an_error_of_the_check(output, status, error):
    from fuzz import leaks

    once = leaks.parse_replay(1, status, output)
    many = leaks.parse_replay(8, 23, f"fxtlint.engine._nwalk: {KERNEL}\nreplaying 3 inputs, 8 passes\n"
                              + "".join(f"pass {i}: 100 bytes live\n" for i in range(1, 9)) + CPYTHON_AT_EXIT)
    assert not many.error and not many.finding and many.leaked_objects == 2
    found = leaks.Leaks(3, once, many)
    assert found.error == error and not found.ok and not once.finding
    summary = leaks.summary(found)
    assert summary.splitlines()[-1] == f"leak check: the check did not run: {error} (an error of the check, " \
                                       "not a leak verdict)"
    assert "reports with a frame in the kernel" not in summary


def test_a_check_raising_after_the_replay_started_is_a_finding():
    from fuzz import leaks

    out = (f"fxtlint.engine._nwalk: {KERNEL}\nreplaying 3 inputs, 1 passes\nTraceback (most recent call last):\n"
           "AssertionError: native and python part at byte 7\n")
    replay = leaks.parse_replay(1, 1, out)
    assert replay.finding == "the harness's check raised: AssertionError: native and python part at byte 7"
    assert not replay.error
    found = leaks.Leaks(3, replay, _replay(8, 53))
    assert not found.error and found.verdict == "leak check: FAILED"


# ------------------------------------------------------------------ the merge step
_MERGE_OK = """INFO: Seed: 12
MERGE-OUTER: 122 files, 0 in the initial corpus, 0 processed earlier
MERGE-OUTER: successful in 1 attempt(s)
MERGE-OUTER: 116 new files with 2701 new features added; 481 new coverage edges
"""


@pytest.mark.parametrize("status, log, units, kept, error", [
    (0, _MERGE_OK, 122, 116, ""),
    # the failing CI run: the merge ended silently right after its seed line
    (0, "INFO: Seed: 3735928559\n", 40, 0,
     "libFuzzer -merge=1 kept 0 of 40 units and printed no 'MERGE-OUTER: N new files' summary; its log "
     "(merge.log) ends: INFO: Seed: 3735928559"),
    (1, "INFO: Seed: 1\n==7== ERROR: libFuzzer: deadly signal\n", 40, 0,
     "libFuzzer -merge=1 exited 1; its log (merge.log) ends: INFO: Seed: 1 | ==7== ERROR: libFuzzer: deadly signal"),
    (0, "", 0, 0, "the corpus has no units to merge (the run wrote none: did it get past its seeds?)"),
])
def test_merge_error_says_why_the_merge_did_not_run(status, log, units, kept, error):
    assert campaign.merge_error(status, log, units, kept) == error


def test_merging_an_empty_corpus_is_an_error_and_runs_nothing(tmp_path, monkeypatch):
    def no_libfuzzer(*a, **k):
        raise AssertionError("libFuzzer was started on an empty corpus")

    monkeypatch.setattr(campaign, "libfuzzer", no_libfuzzer)
    (tmp_path / "corpus").mkdir()
    with pytest.raises(campaign.MergeError, match="the corpus has no units to merge"):
        campaign.merge_corpus("native", tmp_path / "corpus")


def test_a_campaign_whose_merge_did_not_run_judges_no_leaks_and_says_why(tmp_path, monkeypatch, capsys):
    from fuzz import __main__ as cli
    from fuzz import leaks

    def fake_run(harness, workdir, **kw):  # what the failing CI run's campaign came back with
        return campaign.Result(harness, 5.0, 0, executions=0, kernel=KERNEL,
                               merge_error=campaign.merge_error(0, "", 0, 0))

    def no_check(*a, **k):
        raise AssertionError("leaks were judged on nothing")

    monkeypatch.setattr(campaign, "run", fake_run)
    monkeypatch.setattr(leaks, "check", no_check)
    # (not asked of a process in the native harness's environment: that is the sanitized
    # build's, seconds to check it is current, and nothing here runs in it)
    monkeypatch.setattr(campaign, "harness_fxtlint", lambda *a, **k: "fxtlint under test: (not asked)")
    status = cli.main(["run", "native", "--runs", "10", "--dir", str(tmp_path), "--no-coverage"])
    out = capsys.readouterr().out
    assert status == 2, out
    assert "corpus units 0; -merge=1 did not run (below)" in out
    assert "leak check: not run, the campaign before it did not complete (below)" in out
    assert "campaign error (not a finding): the harness ran no input: libFuzzer printed no executions" in out
    assert ("campaign error (not a finding): the -merge=1 step did not run: the corpus has no units to merge"
            in out)


def test_a_slow_unit_is_not_a_timeout():
    """The loaded CI run: one input took more than libFuzzer's -report_slow_units (10 s)
    and the smoke run failed as on a timeout; only -timeout's artifacts are timeouts."""
    found = [Path(n) for n in ("crash-1", "oom-2", "slow-unit-82f6", "timeout-3")]
    assert campaign.artifacts(found) == ([Path("crash-1")], [Path("timeout-3")], [Path("slow-unit-82f6")],
                                         [Path("oom-2")])


@pytest.mark.parametrize("result, status, says", [
    (campaign.Result("reader", 5.0, 0, executions=600, units_before=9, units_after_merge=8), 0, None),
    (campaign.Result("reader", 5.0, 1, executions=600), 2,
     "campaign error (not a finding): libFuzzer exited 1 and left no crash or timeout file"),
    (campaign.Result("reader", 5.0, 1, executions=600, crashes=[Path("crash-1")], regressions=[Path("r")]), 1,
     "crashes 1"),
    # an input slower than libFuzzer's -report_slow_units on a loaded machine: listed, not a finding
    (campaign.Result("stream", 86.0, 0, executions=500, units_before=128, units_after_merge=125,
                     slow_units=[Path("slow-unit-82f6")]), 0, "slow units 1 (over 10 s but under the 60 s timeout"),
    (campaign.Result("stream", 86.0, 0, executions=500, units_before=128, units_after_merge=125, slowest_unit_s=12),
     0, "slowest unit 12 s (libFuzzer's stat::slowest_unit_time_sec"),
    (campaign.Result("stream", 86.0, 70, executions=500, timeouts=[Path("timeout-82f6")]), 1, "timeouts 1"),
])
def test_a_campaign_exits_1_on_a_finding_and_2_when_it_did_not_complete(result, status, says, tmp_path,
                                                                          monkeypatch, capsys):
    from fuzz import __main__ as cli

    monkeypatch.setattr(campaign, "run", lambda *a, **k: result)
    assert cli.main(["run", "reader", "--runs", "10", "--dir", str(tmp_path), "--no-coverage"]) == status
    out = capsys.readouterr().out
    assert ("campaign error" in out) == (status == 2)
    assert says is None or says in out


@needs_atheris
def test_a_second_merge_in_the_same_folder_merges_its_own_corpus(tmp_path):
    """libFuzzer resumes a -merge_control_file it finds rather than replacing it: the
    smoke run's merge left one in .ci-fuzz/lint/, and the preloaded run's merge in that
    folder read it as its own (files since deleted: "No such directory: corpus/<unit>;
    exiting", a campaign error that failed CI). Each merge starts a control file anew."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seeds = sorted((REPO / "corpus" / "seeds").glob("*.fxt"))[:8]
    for s in seeds:
        (corpus / s.name).write_bytes(s.read_bytes())
    assert campaign.merge_corpus("reader", corpus) >= 1
    assert (tmp_path / "merge.ctl").exists()  # what libFuzzer leaves behind
    # the folder changes as a run changes it: units deleted (-reduce_inputs), others added
    for p in corpus.iterdir():
        p.unlink()
    for s in seeds[-3:]:
        (corpus / ("new-" + s.name)).write_bytes(s.read_bytes())
    kept = campaign.merge_corpus("reader", corpus)
    assert 1 <= kept <= 3
    assert all(p.read_bytes() in {s.read_bytes() for s in seeds[-3:]} for p in corpus.iterdir())


def test_the_timeout_reaches_libfuzzer_and_its_merge(tmp_path, monkeypatch):
    """python -m fuzz run --timeout N: libFuzzer's -timeout, in the run and in its merge
    (.ci/run gives its smoke runs more than the default on a loaded machine)."""
    calls = []

    class Done:
        pid = os.getpid()

        def wait(self):
            return 0

    def fake_libfuzzer(harness, *args, log=None, **kw):
        args = [str(a) for a in args]
        calls.append(args)
        if "-merge=1" in args:  # keep the one unit, and say so as libFuzzer does
            merged, corpus = Path(args[-2]), Path(args[-1])
            for f in corpus.iterdir():
                (merged / f.name).write_bytes(f.read_bytes())
            log.write("MERGE-OUTER: 1 new files with 3 new features added; 2 new coverage edges\n")
        else:
            (tmp_path / "corpus" / "unit").write_bytes(b"x")
            log.write("#10\tDONE   cov: 2 ft: 3 corp: 1/1b lim: 4 exec/s: 10 rss: 50Mb\n")
        return Done()

    monkeypatch.setattr(campaign, "libfuzzer", fake_libfuzzer)
    res = campaign.run("reader", tmp_path, runs=10, timeout=600, land=False, rss_every=60)
    assert [[a for a in c if a.startswith("-timeout=")] for c in calls] == [["-timeout=600"], ["-timeout=600"]]
    assert (res.executions, res.units_before, res.units_after_merge, res.errors) == (10, 1, 1, [])


# ------------------------------------------------------------------ issue 34 item 3
def test_preload_is_the_services_runtime_and_options(monkeypatch):
    """python -m fuzz run --preload: asan_with_fuzzer.so first on LD_PRELOAD, the runner
    image's ASAN_OPTIONS (leaks off, the 10 MB quarantine), the user's options after them."""
    from fuzz import SERVICE_ASAN_OPTIONS

    monkeypatch.setattr(campaign, "asan_with_fuzzer", lambda: Path("/atheris/asan_with_fuzzer.so"))
    env = campaign.preload_env({"ASAN_OPTIONS": "quarantine_size_mb=1", "LD_PRELOAD": "/x/other.so"})
    assert env["LD_PRELOAD"] == "/atheris/asan_with_fuzzer.so /x/other.so"
    assert env["ASAN_OPTIONS"] == SERVICE_ASAN_OPTIONS + ":quarantine_size_mb=1"
    assert "detect_leaks=0" in SERVICE_ASAN_OPTIONS and "quarantine_size_mb=10" in SERVICE_ASAN_OPTIONS
    assert campaign.preload_env({})["ASAN_OPTIONS"] == SERVICE_ASAN_OPTIONS
    monkeypatch.delenv("LD_PRELOAD", raising=False)
    assert campaign.harness_env("reader", preload=True)["LD_PRELOAD"] == "/atheris/asan_with_fuzzer.so"
    assert "LD_PRELOAD" not in campaign.harness_env("reader")


def test_python_harnesses_record_no_allocation_stacks(monkeypatch, tmp_path):
    """A Python harness's .options carries ``[asan] malloc_context_size = 0`` and ``run
    --preload`` sets it after the service's options (the user's still last); the native
    harness keeps the service's stacks, in both."""
    import configparser

    from fuzz import SERVICE_ASAN_OPTIONS, STACKS_KEPT
    from fuzz.build_seeds import write_options

    monkeypatch.setattr(campaign, "asan_with_fuzzer", lambda: Path("/atheris/asan_with_fuzzer.so"))
    assert campaign.preload_env({"ASAN_OPTIONS": "malloc_context_size=30"}, "lint")["ASAN_OPTIONS"] == \
        SERVICE_ASAN_OPTIONS + ":malloc_context_size=0:malloc_context_size=30"
    assert campaign.preload_env({}, "native")["ASAN_OPTIONS"] == SERVICE_ASAN_OPTIONS
    monkeypatch.delenv("ASAN_OPTIONS", raising=False)
    assert campaign.harness_env("reader", preload=True)["ASAN_OPTIONS"].endswith(":malloc_context_size=0")
    assert STACKS_KEPT == {"native"}
    for harness in HARNESSES:
        opts = configparser.ConfigParser()
        opts.read(write_options(tmp_path / f"{harness}.options", harness))
        assert opts["libfuzzer"]["max_len"] == "16384", harness
        asan = dict(opts["asan"]) if opts.has_section("asan") else {}
        assert asan == ({} if harness in STACKS_KEPT else {"malloc_context_size": "0"}), harness


@needs_atheris
def test_asan_with_fuzzer_is_found_where_kernel_asan_sh_finds_it():
    import atheris

    assert campaign.asan_with_fuzzer() == Path(atheris.path()) / "asan_with_fuzzer.so"
    assert campaign.asan_with_fuzzer().is_file()


def _fake_libfuzzer(tmp_path, calls, *, oom=False):
    class Done:
        pid = os.getpid()

        def __init__(self, status):
            self.status = status

        def wait(self):
            return self.status

    def fake(harness, *args, log=None, preload=False, **kw):
        args = [str(a) for a in args]
        calls.append((args, preload))
        if "-merge=1" in args:
            merged, corpus = Path(args[-2]), Path(args[-1])
            for f in corpus.iterdir():
                (merged / f.name).write_bytes(f.read_bytes())
            log.write("MERGE-OUTER: 1 new files with 3 new features added; 2 new coverage edges\n")
            return Done(0)
        if any(a.startswith("-max_total_time") or a.startswith("-runs") for a in args):  # the campaign
            (tmp_path / "corpus" / "unit").write_bytes(b"x")
            log.write("#10\tDONE   cov: 2 ft: 3 corp: 1/1b lim: 4 exec/s: 10 rss: 50Mb\n")
            if oom:
                (tmp_path / "crashes" / "oom-abc").write_bytes(b"y")
                log.write("==1== ERROR: libFuzzer: out-of-memory (used: 2052Mb; exceeds: 2048Mb)\n")
                return Done(71)
            return Done(0)
        # a replay of one input
        log.write(f"Running: {args[-1]}\nExecuted {args[-1]} in 12 ms\n")
        return Done(0)

    return fake


def test_preload_reaches_the_run_its_merge_and_the_replay_of_an_oom(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(campaign, "libfuzzer", _fake_libfuzzer(tmp_path, calls, oom=True))
    res = campaign.run("reader", tmp_path, runs=10, land=False, rss_every=60, preload=True)
    assert [preload for _, preload in calls] == [True, True, True]  # run, merge, the oom's replay
    assert (res.crashes, res.memory_growth, res.errors) == ([], [tmp_path / "crashes" / "oom-abc"], [])


def test_an_oom_that_reproduces_alone_is_a_crash():
    out = "Running: oom-1\n==1== ERROR: libFuzzer: out-of-memory (malloc(4000000000))\n"
    assert campaign.oom_reproduced(77, out)
    assert not campaign.oom_reproduced(0, "Running: oom-1\nExecuted oom-1 in 12 ms\n")
    assert not campaign.oom_reproduced(1, "ERROR: no such file\n")  # never ran it: not the input's


def test_memory_growth_over_the_run_is_not_a_crash_of_the_input(tmp_path, monkeypatch, capsys):
    """The issue's OOM after 1,288 s counted 'crashes 1' and exit 1; now its own status
    and words, since the input it stopped on passes alone."""
    from fuzz import __main__ as cli

    result = campaign.Result("lint", 1288.0, 71, executions=5000, units_before=9, units_after_merge=8,
                             peak_rss_mb=2052.0, memory_growth=[Path("oom-abc")])
    monkeypatch.setattr(campaign, "run", lambda *a, **k: result)
    assert cli.main(["run", "lint", "--runs", "10", "--dir", str(tmp_path), "--no-coverage"]) == 3
    out = capsys.readouterr().out
    assert "crashes 0" in out and "campaign error" not in out
    assert "memory growth over the run: libFuzzer stopped at -rss_limit_mb=2048 (peak RSS 2052 MB" in out
    assert "not this input's failure (not a crash)" in out


def test_the_launcher_is_keyed_by_the_checkout(tmp_path, monkeypatch):
    """Two checkouts' fuzz_lint.py used to share $TMPDIR/fxtlint-fuzz-<uid>-fuzz_lint."""
    from fuzz import _harness

    monkeypatch.setattr(_harness.tempfile, "gettempdir", lambda: str(tmp_path))
    one, two = tmp_path / "a" / "fuzz_lint.py", tmp_path / "b" / "fuzz_lint.py"
    for f in (one, two):
        f.parent.mkdir()
        f.write_text("")
    first, second = _harness.launcher(str(one)), _harness.launcher(str(two))
    assert first != second and _harness.launcher(str(one)) == first
    assert str(one) in Path(first).read_text() and str(two) in Path(second).read_text()
    assert Path(first).name.startswith(f"fxtlint-fuzz-{os.getuid()}-fuzz_lint-")


@needs_atheris  # and coverage.py
def test_coverage_starts_before_fxtlint_is_imported():
    """The banner imported fxtlint before coverage started: every module-level line was
    missed (about 25 points). Now measure() refuses a process where fxtlint is imported,
    and the CLI's banner comes after the start."""
    proc = _fuzz_cli("coverage", "--harness", "reader", "corpus/seeds/sample.fxt")
    assert proc.returncode == 0, proc.stderr
    assert "fxtlint under test:" in proc.stderr
    probe = ("import sys, fuzz.__main__ as m, fuzz.coverage_report as c\n"
             "c.measure = lambda *a, **k: print(sorted(n for n in sys.modules if n.startswith('fxtlint')))\n"
             "m.main(['coverage', 'corpus/seeds/sample.fxt'])")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=ENV, capture_output=True, text=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_coverage_refuses_a_process_that_imported_fxtlint_already(tmp_path):
    import fxtlint  # noqa: F401
    from fuzz.coverage_report import measure

    pytest.importorskip("coverage")
    with pytest.raises(RuntimeError, match="imported before coverage started"):
        measure(["reader"], [REPO / "corpus" / "seeds" / "sample.fxt"])


def test_stats_without_clang_says_so_in_one_line(monkeypatch):
    import io

    from fuzz import stats

    monkeypatch.setattr(stats, "statements", lambda files: (100, 20))
    monkeypatch.setattr(stats.shutil, "which", lambda name: None)
    monkeypatch.setattr(stats, "edges", lambda name, files: (5, 7))
    out = io.StringIO()
    stats.report(out=out)
    lines = out.getvalue().splitlines()
    assert "edges native: not counted: no clang here (the native harness runs on fuzz/kernel_asan.sh's " \
           "clang build)" in lines
    assert "edges lint: 5 edges, 7 features on loading the seeds (fxtlint's code only)" in lines

    def broken(name, files):
        raise RuntimeError("fuzz/kernel_asan.sh env clang failed:\nclang: command not found")

    monkeypatch.setattr(stats.shutil, "which", lambda name: "/usr/bin/clang")
    monkeypatch.setattr(stats, "edges", broken)
    out = io.StringIO()
    stats.report(out=out)
    assert "edges native: not counted: clang: command not found" in out.getvalue().splitlines()


def test_preload_without_the_runtime_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    """Where atheris ships no asan_with_fuzzer.so, `run --preload` said so in a traceback
    (exit 1, which CI reads as a finding); now one line, exit 2, before anything runs."""
    from fuzz import __main__ as cli

    def missing():
        raise RuntimeError("atheris ships no asan_with_fuzzer.so at /x")

    monkeypatch.setattr(campaign, "asan_with_fuzzer", missing)
    monkeypatch.setattr(campaign, "run", lambda *a, **k: pytest.fail("ran"))
    assert cli.main(["run", "lint", "--runs", "10", "--preload", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["python -m fuzz run: error: --preload: atheris ships no asan_with_fuzzer.so at /x"]


def test_an_error_of_the_campaign_code_is_exit_2_not_a_finding(tmp_path, monkeypatch, capsys):
    from fuzz import __main__ as cli

    def broken(*a, **k):
        raise ValueError("oops")

    monkeypatch.setattr(campaign, "run", broken)
    monkeypatch.setattr(campaign, "harness_fxtlint", lambda *a, **k: "fxtlint under test: x")
    assert cli.main(["run", "lint", "--runs", "10", "--dir", str(tmp_path), "--no-coverage"]) == 2
    captured = capsys.readouterr()
    assert "campaign error (not a finding): python -m fuzz run stopped on an error of its own: ValueError: oops" \
        in captured.out
    assert "Traceback" in captured.err


_CI_STATUSES = [
    (0, None),
    (1, "found a problem (a crash, a timeout or a leak"),
    (2, "did not complete (exit 2; not a finding): it stopped"),
    (3, "memory grew over the run to libFuzzer's -rss_limit_mb (exit 3;"),
    (130, "did not complete (exit 130; not a finding)"),  # interrupted
]


@pytest.mark.parametrize("status, says", _CI_STATUSES)
def test_ci_names_every_exit_status_of_fuzz_run(tmp_path, status, says):
    """.ci/run's fuzz_smoke, with `python -m fuzz run` replaced by one exiting ``status``:
    each fails CI saying which (0 passes)."""
    text = (REPO / ".ci" / "run").read_text()
    body = re.search(r"^fuzz_smoke\(\) \{.*?^\}\n", text, re.S | re.M)
    assert body, "no fuzz_smoke function in .ci/run"
    script = ("python() { echo 'campaign error (not a finding): it stopped'; echo 'executions 9'; "
              f"return {status}; }}\n{body.group(0)}fuzz_smoke lint lint --runs 1\necho passed\n")
    proc = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    if says is None:
        assert (proc.returncode, proc.stdout.splitlines()[-1]) == (0, "passed"), proc.stdout
    else:
        assert proc.returncode == 1 and "passed" not in proc.stdout, proc.stdout
        assert says in proc.stdout.splitlines()[-1], proc.stdout


def test_every_exit_status_run_documents_is_checked_against_ci():
    from fuzz import __main__ as cli

    parser_text = (REPO / "fuzz" / "__main__.py").read_text()
    described = re.search(r'description="Exit status: (.*?)"\)', parser_text, re.S)
    assert described and cli.main  # the run parser's description, as --help prints it
    documented = {int(n) for n in re.findall(r"(?:^|; )(\d) ", described.group(1).replace('"\n', "").replace(
        '                                   "', ""))}
    assert documented == {0, 1, 2, 3}
    assert documented <= {status for status, _ in _CI_STATUSES}


def test_rss_over_the_run_is_read_from_libfuzzers_status_lines():
    log = ("INFO: Running with entropic power schedule (0xFF, 100).\n"
           "#2\tINITED exec/s: 0 rss: 90Mb\n"  # an empty corpus's INITED: the first counts
           "#283\tNEW    cov: 1553 ft: 4072 corp: 94/11473b exec/s: 70 rss: 186Mb\n"
           "#300\tDONE   cov: 1561 ft: 4224 corp: 103/13795b lim: 16384 exec/s: 60 rss: 250Mb\n")
    assert campaign.rss_over_run(log) == ((2, 90.0), (300, 250.0))
    assert campaign.rss_over_run("#5\tNEW    cov: 1 ft: 1 corp: 1/1b rss: 9Mb\n") is None


@pytest.mark.parametrize("seeded, end, bound, status, says", [
    ((262, 180.0), (600, 190.0), 64, 0, "RSS 180 MB once the seeds were loaded (#262), 190 MB at the end (#600): "
                                        "+10 MB over 338 executions"),
    ((263, 727.0), (600, 1118.0), 64, 3, "memory growth over the run: +391 MB from the seeds' end to the run's end, "
                                         "over the bound of 64.0 MB (--max-rss-growth)"),
    ((263, 727.0), (600, 1118.0), None, 0, "+391 MB over 337 executions"),  # no bound asked for
    ((0, 0.0), (0, 0.0), 64, 2, "campaign error (not a finding): --max-rss-growth: libFuzzer printed no INITED"),
])
def test_max_rss_growth_bounds_the_growth_after_the_seeds(tmp_path, monkeypatch, capsys, seeded, end, bound, status,
                                                         says):
    """The CI step's bound (.ci/run, the preloaded lint smoke run): figures of this machine's
    runs with the service's quarantine (+10 MB) and ASan's default 256 MB (+391 MB)."""
    from fuzz import __main__ as cli

    result = campaign.Result("lint", 30.0, 0, executions=600, units_before=9, units_after_merge=8,
                             rss_seeded=seeded, rss_end=end)
    monkeypatch.setattr(campaign, "run", lambda *a, **k: result)
    monkeypatch.setattr(campaign, "harness_fxtlint", lambda *a, **k: "fxtlint under test: x")
    extra = ["--max-rss-growth", str(bound)] if bound is not None else []
    assert cli.main(["run", "lint", "--runs", "600", "--dir", str(tmp_path), "--no-coverage", *extra]) == status
    assert says in capsys.readouterr().out


def test_memory_over_a_run_is_a_trend_and_a_growth_beside_the_corpus(tmp_path):
    from fuzz import rss

    # two processes, summed per sample; the first minute (seeds loading) left out
    (tmp_path / "rss.csv").write_text(
        "elapsed_s,pid,rss_mb,hwm_mb\n0,1,1.0,1.0\n0,2,1.0,1.0\n"
        + "".join(f"{t},1,{100 + t / 60:.1f},0\n{t},2,10.0,0\n" for t in range(60, 660, 60))
        + "bad,row\n")
    assert rss.tree_rss(tmp_path / "rss.csv")[:2] == [(0.0, 2.0), (60.0, 111.0)]
    line = rss.trend_line(tmp_path / "rss.csv")
    assert line.startswith("RSS trend (rss.csv, least squares, from 60 s): +1.00 MB a minute over the run; "
                           "by thirds +1.00 (60-240 s), +1.00 (240-420 s), +1.00 (420-600 s)"), line
    assert rss.slope([(0, 5.0), (1, 5.0), (2, 5.0)]) == 0.0 and rss.slope([(3, 1.0)]) is None
    assert rss.trend_line(tmp_path / "absent.csv") is None
    log = ("#2\tINITED exec/s: 0 rss: 90Mb\n"  # an empty corpus's: the lines from it on count
           "#100\tNEW    cov: 1 ft: 1 corp: 10/1Kb lim: 4 exec/s: 1 rss: 100Mb\n"
           "#200\tNEW    cov: 1 ft: 1 corp: 20/2Kb lim: 4 exec/s: 1 rss: 110Mb\n"
           "#300\tREDUCE cov: 1 ft: 1 corp: 30/3Mb lim: 4 exec/s: 1 rss: 120Mb\n"
           "#400\tDONE   cov: 1 ft: 1 corp: 30/3Mb lim: 4 exec/s: 1 rss: 150Mb\n")
    assert campaign.corpus_over_run("#1\tNEW    cov: 1 ft: 1 corp: 1/1b rss: 9Mb\n") == []
    assert campaign.corpus_over_run(log)[0] == (100, 10, 1024, 100.0)
    (tmp_path / "libfuzzer.log").write_text(log)
    assert campaign.memory_lines(tmp_path)[1] == (
        "RSS beside the corpus libFuzzer holds (its status lines, from INITED): +50 MB while it grew 10 -> 30 units "
        "(0.0 -> 3.1 MB): 2560 KB a unit kept; by thirds of the executions +10 MB / +10 units, +10 MB / +10 units, "
        "+30 MB / +0 units")  # the last third grew with no unit kept: not the corpus
    out = subprocess.run([sys.executable, "-m", "fuzz", "memory", str(tmp_path)], cwd=REPO, env=ENV,
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.splitlines() == campaign.memory_lines(tmp_path), out
    out = subprocess.run([sys.executable, "-m", "fuzz", "memory", str(tmp_path / "none")], cwd=REPO, env=ENV,
                         capture_output=True, text=True)
    assert out.returncode == 2 and out.stderr.strip().endswith("no such folder"), out
