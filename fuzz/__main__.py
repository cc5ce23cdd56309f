"""python -m fuzz: fuzzing campaigns for fxtlint (see fuzz/README.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import HARNESSES, MAX_LEN, REPO, RSS_LIMIT_MB, SANITIZED, TIMEOUT
from .campaign import REGRESSIONS
from .leaks import PASSES


def _run(args) -> int:
    from . import campaign
    from .coverage_report import in_subprocess

    workdir = args.dir or REPO / "fuzz" / "campaigns" / args.harness
    res = campaign.run(args.harness, workdir, seconds=args.time, runs=args.runs, workers=args.workers,
                       mutator=args.mutator, max_len=args.max_len, rss_limit_mb=args.rss_limit_mb,
                       rss_every=args.rss_every, merge=not args.no_merge, extra_seeds=args.seeds,
                       timeout=args.timeout, preload=args.preload)
    print(f"harness {res.harness}: {res.seconds:.0f} s, libFuzzer exit {res.status}"
          + (" (preloaded: asan_with_fuzzer.so, the service's ASAN_OPTIONS, then the harness's .options ones)"
             if args.preload else ""))
    rate = f" ({res.executions / res.cpu_seconds:.1f} per CPU second: {res.cpu_seconds:,.0f} s)" \
        if res.cpu_seconds > 0 else ""
    print(f"executions {res.executions:,}{rate}  edges {res.edges:,}  features {res.features:,}")
    if res.slowest_unit_s is not None:
        print(f"slowest unit {res.slowest_unit_s} s (libFuzzer's stat::slowest_unit_time_sec: wall-clock, whole "
              "seconds)")
    merged = "" if args.no_merge else (f" -> {res.units_after_merge:,} after -merge=1" if not res.merge_error
                                       else "; -merge=1 did not run (below)")
    print(f"corpus units {res.units_before:,}{merged}")
    print(f"peak RSS {res.peak_rss_mb:.0f} MB (over time: {Path(workdir) / 'rss.csv'})")
    for line in campaign.memory_lines(Path(workdir)):
        print(line)
    (seeded_at, seeded_mb), (end_at, end_mb) = res.rss_seeded, res.rss_end
    growth = end_mb - seeded_mb
    if seeded_at:
        print(f"RSS {seeded_mb:.0f} MB once the seeds were loaded (#{seeded_at:,}), {end_mb:.0f} MB at the end "
              f"(#{end_at:,}): {growth:+.0f} MB over {end_at - seeded_at:,} executions (libFuzzer's rss:)")
    over_bound = args.max_rss_growth is not None and seeded_at and growth > args.max_rss_growth
    if over_bound:
        print(f"memory growth over the run: {growth:+.0f} MB from the seeds' end to the run's end, over the "
              f"bound of {args.max_rss_growth} MB (--max-rss-growth)")
    if res.kernel:
        print(f"native walk {res.kernel}")
    errors = res.errors
    if args.harness in SANITIZED and "/build/asan-" not in res.kernel:
        errors.append("the campaign did not run on the sanitized native walk "
                      f"(fuzz/kernel_asan.sh env {SANITIZED[args.harness]}): it printed "
                      f"{res.kernel or 'no native walk'}")
    print(f"crashes {len(res.crashes)}" + "".join(f"\n  {c} -> {r}" for c, r in zip(res.crashes, res.regressions)))
    print(f"timeouts {len(res.timeouts)}" + "".join(f"\n  {t}" for t in res.timeouts))
    if res.memory_growth:  # libFuzzer's -rss_limit_mb stopped the run; the input alone stays under it
        print(f"memory growth over the run: libFuzzer stopped at -rss_limit_mb={args.rss_limit_mb} (peak RSS "
              f"{res.peak_rss_mb:.0f} MB, over time in rss.csv) while running an input that stays under the "
              "limit when replayed alone: the process's memory grew, not this input's failure (not a crash)"
              + "".join(f"\n  {m}" for m in res.memory_growth))
    if res.slow_units:  # slower than libFuzzer's -report_slow_units, not its -timeout: not a finding
        print(f"slow units {len(res.slow_units)} (over 10 s but under the {args.timeout} s timeout; wall-clock "
              "time, which a loaded machine stretches: not a finding)" + "".join(f"\n  {t}" for t in res.slow_units))
    leaked = False
    if args.harness in SANITIZED and not args.no_leaks:
        if errors:  # a corpus the run or its merge did not make: there is nothing to judge leaks on
            print("leak check: not run, the campaign before it did not complete (below)")
        else:
            from . import leaks

            found = leaks.check(args.harness, [Path(workdir) / "corpus"])
            print(leaks.summary(found))
            leaked = not found.ok and not found.error
            if found.error:
                errors.append(f"the leak check did not run: {found.error}")
    if not args.no_coverage:
        harnesses = ["lint", "reader"] if HARNESSES[args.harness][1] else [args.harness]
        harnesses += [args.harness] if args.harness in SANITIZED else []  # the column engine is its other half
        # what libFuzzer ran from: the seeds it loaded and the units it kept (a short run may keep none)
        ran = [Path(workdir) / d for d in ("corpus", "seeds") if (Path(workdir) / d).is_dir()]
        _, text = in_subprocess(harnesses, ran)
        print(text.rstrip())
    if args.max_rss_growth is not None and not seeded_at:
        errors.append("--max-rss-growth: libFuzzer printed no INITED line with its rss: (see libfuzzer.log)")
    for e in errors:
        print(f"campaign error (not a finding): {e}")
    if res.crashes or res.timeouts or leaked:
        return 1
    if res.memory_growth or over_bound:
        return 3
    return 2 if errors else 0


def _memory(args) -> int:
    from . import campaign

    lines = campaign.memory_lines(args.dir)
    for line in lines:
        print(line)
    if not lines:
        print(f"{args.dir}: neither an rss.csv with samples after its first minute nor libFuzzer status lines "
              "from an INITED line on")
        return 2
    return 0


def _leaks(args) -> int:
    from . import leaks

    found = leaks.check(args.harness, args.inputs, passes=args.passes)
    print(leaks.summary(found))
    return 2 if found.error else 0 if found.ok else 1


def _coverage(args) -> int:
    from .coverage_report import measure

    measure(args.harness.split(","), args.inputs, show_missing=args.show_missing)
    return 0


def _reproduce(args) -> int:
    from .campaign import reproduce

    return reproduce(args.harness, args.inputs)


def _profile(args) -> int:
    """cProfile of a harness's check over the seeds (or files): where an execution's time goes."""
    import cProfile
    import pstats
    import time

    from . import load_harness
    from .campaign import seed_files

    files = args.inputs or seed_files()
    check = load_harness(args.harness).check
    data = [f.read_bytes() for f in files]
    for d in data:  # imports, caches, the native walk's program
        check(d)
    start = time.perf_counter()
    for _ in range(args.passes):
        for d in data:
            check(d)
    took = time.perf_counter() - start
    rate = len(data) * args.passes / took
    print(f"{args.harness}: {len(data)} inputs x {args.passes} passes, {rate:,.0f} checks a second "
          f"in plain Python (no instrumentation)")
    prof = cProfile.Profile()
    prof.enable()
    for d in data:
        check(d)
    prof.disable()
    pstats.Stats(prof).sort_stats("cumulative").print_stats(r"fxtlint|fuzz", args.top)
    return 0


def _stats(args) -> int:
    from .stats import report

    report(edges_too=not args.no_edges)
    return 0


def _merge(args) -> int:
    from .campaign import MergeError, merge_corpus

    try:
        print(f"{merge_corpus(args.harness, args.inputs.resolve())} units kept")
    except MergeError as e:
        print(f"python -m fuzz merge: error: the -merge=1 step did not run: {e}", file=sys.stderr)
        return 2
    return 0


def _land(args) -> int:
    """Replay, minimise and land each crash; exit 1 when one does not fail (it says why)."""
    import tempfile

    from .campaign import NotACrash, land_crash

    status = 0
    with tempfile.TemporaryDirectory(prefix="fxtlint-land-") as scratch:
        for crash in args.inputs:
            try:
                landed = land_crash(args.harness, crash, Path(scratch), root=args.regressions, preload=args.preload)
                print(f"{crash} -> {landed}")
            except NotACrash as e:
                print(f"python -m fuzz land: refused: {e}", file=sys.stderr)
                status = 1
    return status


# what each command runs: in this process, or the harness in its campaign environment
_IN_PROCESS = {"reproduce", "coverage", "profile", "stats"}
# ... of which those that measure coverage in this process: coverage.py must start before
# anything of fxtlint is imported (statements run at import would be missed), so the
# "fxtlint under test" line is printed once it has (coverage_report.measure)
_MEASURES_COVERAGE = {"coverage"}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fuzz", description=__doc__)
    sub = ap.add_subparsers(dest="verb", required=True)
    names = sorted(HARNESSES)

    p = sub.add_parser("run", help="run a campaign, then merge the corpus, land crashes and report coverage",
                       description="Exit status: 0 no finding; 1 a finding (a crash, a timeout, a leak, an "
                                   "input that runs out of memory alone); 2 the campaign did not complete "
                                   "(libFuzzer stopped early, ran no input, its merge or leak check did not run): a "
                                   "'campaign error' line says why; 3 memory grew over the run to libFuzzer's "
                                   "-rss_limit_mb and the input it stopped on does not reproduce it alone (not "
                                   "a crash of that input), or by more than --max-rss-growth. An error of this "
                                   "command's own code (a traceback) is a 'campaign error', exit 2.")
    p.add_argument("harness", choices=names)
    budget = p.add_mutually_exclusive_group(required=True)
    budget.add_argument("--time", type=int, help="seconds per worker (libFuzzer -max_total_time)")
    budget.add_argument("--runs", type=int, help="executions per worker (libFuzzer -runs)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (libFuzzer -jobs and -workers)")
    p.add_argument("--mutator", choices=["structure", "bytes"], default="structure")
    p.add_argument("--dir", type=Path, help="campaign directory (default fuzz/campaigns/HARNESS)")
    p.add_argument("--seeds", nargs="*", default=[], help="more seed files or directories")
    p.add_argument("--max-len", type=int, default=MAX_LEN, help="largest input in bytes (libFuzzer -max_len)")
    p.add_argument("--rss-limit-mb", type=int, default=RSS_LIMIT_MB)
    p.add_argument("--timeout", type=int, default=TIMEOUT,
                   help=f"seconds one input may take before it is a timeout (libFuzzer -timeout; default {TIMEOUT}); "
                        "wall-clock, so a loaded machine wants more")
    p.add_argument("--rss-every", type=float, default=30.0, help="seconds between memory samples")
    p.add_argument("--max-rss-growth", type=float, metavar="MB",
                   help="exit 3 when libFuzzer's rss: at the end exceeds that once the seeds were loaded by more "
                        "than MB (one worker's)")
    p.add_argument("--preload", action="store_true",
                   help="run as ClusterFuzzLite and OSS-Fuzz do in an address build: atheris's asan_with_fuzzer.so "
                        "preloaded (LD_PRELOAD), with the service's ASAN_OPTIONS (fuzz.SERVICE_ASAN_OPTIONS), then "
                        "the harness's .options ones (fuzz.asan_options: malloc_context_size=0 but for native; "
                        "an ASAN_OPTIONS in the environment is added after them)")
    p.add_argument("--no-merge", action="store_true", help="keep the corpus as the run left it")
    p.add_argument("--no-coverage", action="store_true")
    p.add_argument("--no-leaks", action="store_true", help="skip the leak check of a sanitized harness's corpus")
    p.set_defaults(func=_run)

    p = sub.add_parser("memory", help="a campaign's memory over its run, from its directory: the RSS trend of "
                                      "rss.csv and the RSS beside the corpus libFuzzer holds (what run prints)")
    p.add_argument("dir", type=Path, help="the campaign directory (run's --dir)")
    p.set_defaults(func=_memory)

    p = sub.add_parser("leaks", help="a sanitized harness's leak check: live heap over passes, LeakSanitizer at exit")
    p.add_argument("harness", choices=sorted(SANITIZED))
    p.add_argument("--passes", type=int, default=PASSES, help="passes over the inputs for the live heap")
    p.add_argument("paths", nargs="+")
    p.set_defaults(func=_leaks)

    p = sub.add_parser("coverage", help="line coverage of fxtlint's modules over corpus files")
    p.add_argument("--harness", default="lint,reader", help="comma-separated harnesses whose checks run")
    p.add_argument("--show-missing", action="store_true", help="list the line numbers no input reached")
    p.add_argument("paths", nargs="+")
    p.set_defaults(func=_coverage)

    p = sub.add_parser("stats", help="the figures fuzz/README.md quotes: seeds, statements, edges on the seeds")
    p.add_argument("--no-edges", action="store_true", help="skip the libFuzzer runs (atheris) that count edges")
    p.set_defaults(func=_stats)

    p = sub.add_parser("profile", help="checks a second and a cProfile of a harness's check over the seeds")
    p.add_argument("harness", choices=names)
    p.add_argument("--passes", type=int, default=3)
    p.add_argument("--top", type=int, default=30, help="lines of the profile")
    p.add_argument("paths", nargs="*", help="inputs instead of the seeds")
    p.set_defaults(func=_profile)

    p = sub.add_parser("reproduce", help="run a harness's check on files, in plain Python, with tracebacks")
    p.add_argument("harness", choices=names)
    p.add_argument("files", nargs="+")
    p.set_defaults(func=_reproduce)

    p = sub.add_parser("merge", help="minimise a corpus directory in place (libFuzzer -merge=1)")
    p.add_argument("harness", choices=names)
    p.add_argument("corpus")
    p.set_defaults(func=_merge)

    p = sub.add_parser("land", help="replay crash files, minimise them into tests/regressions/HARNESS/")
    p.add_argument("harness", choices=names)
    p.add_argument("crashes", nargs="+")
    p.add_argument("--preload", action="store_true", help="replay and minimise as `run --preload` ran them")
    p.add_argument("--regressions", type=Path, default=REGRESSIONS,
                   help="where tests/test_fuzz_regressions.py reads them (default tests/regressions)")
    p.set_defaults(func=_land)

    args = ap.parse_args(argv)
    from . import campaign
    from .campaign import UsageError, harness_fxtlint

    try:  # the paths first: a usage error is one line, before anything runs
        args.inputs = {
            "reproduce": lambda: campaign.check_inputs(args.harness, args.files),
            "land": lambda: campaign.check_inputs(args.harness, args.crashes, verb="land"),
            "merge": lambda: campaign.check_folder(args.corpus),
            "memory": lambda: campaign.check_folder(args.dir),
            "coverage": lambda: campaign.check_corpus(args.paths),
            "leaks": lambda: campaign.check_corpus(args.paths),
            "profile": lambda: campaign.check_corpus(args.paths) if args.paths else [],
        }.get(args.verb, lambda: None)()
        if getattr(args, "preload", False):  # the runtime to preload: refused in one line where there is none
            try:
                campaign.asan_with_fuzzer()
            except RuntimeError as e:
                raise UsageError(f"--preload: {e}") from None
    except UsageError as e:
        print(f"python -m fuzz {args.verb}: error: {e}", file=sys.stderr)
        return 2
    if args.verb == "memory":  # reads a campaign's files: no fxtlint runs
        return args.func(args)
    if args.verb in _MEASURES_COVERAGE:
        pass  # coverage_report.measure prints it, once coverage has started
    elif args.verb in _IN_PROCESS:
        from ._harness import under_test

        print(under_test(), file=sys.stderr, flush=True)
    else:
        print(harness_fxtlint(args.harness, preload=getattr(args, "preload", False)), file=sys.stderr, flush=True)
    if args.verb != "run":
        return args.func(args)
    try:
        return args.func(args)
    except Exception as e:  # an error of the campaign's own code: exit 2, not a finding's 1
        import traceback

        traceback.print_exc()
        print(f"campaign error (not a finding): python -m fuzz run stopped on an error of its own: "
              f"{type(e).__name__}: {e}")
        return 2


if __name__ == "__main__":
    sys.exit(main())
