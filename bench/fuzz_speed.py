"""Benchmark: how fast the lint harness's body runs, and its slowest inputs.

    python bench/fuzz_speed.py [--passes 3] [--corpus corpus/seeds] [--mutated 400] [--engine E]

``fuzz_lint``'s check (``fuzz/fuzz_lint.py``: the native walk, the reference, the native
walk again for determinism, and the input as a log stream) is what a fuzzer runs per
input; without libFuzzer and instrumentation its rate is an upper bound of the campaign's.
Printed:

1. executions a second of the check over the seed corpus (every file, ``--passes`` times);
2. each hostile input of ``fuzz/slow_inputs.py`` at 16 KB (every record a
   resynchronisation): the check's time, each engine's lint time (the reference, and the
   native walk where ``fxtlint --version`` says it is built), and microseconds a byte;
   and the slowest of them. Issue 26: no input of up to 16 KB over 100 ms on either engine;
3. the lint of mutated inputs of up to 16 KB (``--mutated`` of them, drawn with a fixed
   seed by the campaign's own structure-aware mutator, ``fuzz/mutator.py``, from the seeds
   grown to 16 KB, plus the hostile inputs), with the default engine (``--engine``: another):
   the mean and the worst per input. Issue 32: natively at most 0.2 ms on average and 10 ms
   at worst;
4. the lint harness under libFuzzer, plain (atheris's own libFuzzer) and preloaded as the
   fuzzing service runs it (``python -m fuzz run --preload``: asan_with_fuzzer.so, the
   service's ASAN_OPTIONS, then the harness's .options ones: ``malloc_context_size=0``),
   the same ``--libfuzzer`` executions each (the seeds, or ``--sixteen``'s inputs, then
   mutations, ``-seed=1``), one after the other in this run: executions per CPU second of
   each and their ratio (issue 34: the preloaded run within 3x of the plain), and
   libFuzzer's slowest unit of each (wall-clock, whole seconds; issue 34: none over 2 s).
   ``--preload-options OPTS`` (repeatable) adds a run for each, preloaded with ASan options
   ``OPTS`` after those (``malloc_context_size=30``: the service's allocation stacks back),
   and its ratio to the plain run.

Times are this process's CPU time (``time.process_time``: on an idle machine the wall time;
on a shared one the other processes' work does not inflate it), the best of ``--passes``.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import fxtlint  # noqa: E402
from fuzz import load_harness  # noqa: E402
from fuzz.slow_inputs import BUILDERS, MAX_LEN  # noqa: E402
from fxtlint.engine import _native  # noqa: E402

LIMIT_MS = 100.0  # issue 26: an input of up to 16 KB on either engine
MEAN_TARGET_MS, WORST_TARGET_MS = 0.2, 10.0  # issue 32: a mutated 16 KB input, natively


def best(fn, data: bytes, passes: int) -> float:
    t_best = float("inf")
    for _ in range(passes):
        t = time.process_time()
        fn(data)
        t_best = min(t_best, time.process_time() - t)
    return t_best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--corpus", type=Path, default=REPO / "corpus" / "seeds")
    ap.add_argument("--sixteen", action="store_true",
                    help="the libFuzzer runs start from 24 inputs of about 16 KB instead of --corpus: the hostile "
                         "inputs and the 20 largest of draw_mutated(seeds, 400) (the campaign's input size)")
    ap.add_argument("--mutated", type=int, default=400, help="mutated 16 KB inputs linted (default 400; 0: none)")
    ap.add_argument("--engine", default=None, help="the engine of the mutated inputs' lint (default: the default)")
    ap.add_argument("--libfuzzer", type=int, default=600, metavar="RUNS",
                    help="executions of the harness under libFuzzer, plain and preloaded (default 600; 0: none)")
    ap.add_argument("--preload-options", action="append", default=None, metavar="OPTS",
                    help="one more run under libFuzzer, preloaded with these ASan options after the service's "
                         "(repeatable: a run for each)")
    args = ap.parse_args(argv)
    check = load_harness("lint").check
    seeds = [p.read_bytes() for p in sorted(args.corpus.iterdir()) if p.is_file()]
    check(seeds[0])  # warm: the imports and the tables
    t = time.process_time()
    for _ in range(args.passes):
        for data in seeds:
            check(data)
    rate = args.passes * len(seeds) / (time.process_time() - t)
    print(f"fuzz_lint check ({_native.describe()}): {rate:.0f} executions a second over {len(seeds)} seeds "
          f"({args.corpus.name}, {args.passes} passes)")
    print(f"hostile inputs of {MAX_LEN} bytes at most (fuzz/slow_inputs.py), CPU time, best of {args.passes}:")
    print(f"  {'input':26} {'bytes':>6} {'records':>7} {'check ms':>9} {'reference ms':>13} {'walk ms':>11} "
          f"{'us/byte':>8}")
    worst = (0.0, "", 0)
    for name, make in BUILDERS.items():
        data = make()
        records = fxtlint.lint_bytes(data, engine="reference").records
        c = best(check, data, args.passes)
        ref = best(lambda d: fxtlint.lint_bytes(d, engine="reference"), data, args.passes)
        col = best(lambda d: fxtlint.lint_bytes(d, engine="walk"), data, args.passes)
        slowest = max(ref, col)
        print(f"  {name:26} {len(data):6} {records:7} {1e3 * c:9.1f} {1e3 * ref:13.1f} {1e3 * col:11.1f} "
              f"{1e6 * slowest / len(data):8.2f}")
        worst = max(worst, (slowest, name, len(data)))
    t_worst, name, size = worst
    print(f"slowest input on either engine: {name}, {1e3 * t_worst:.1f} ms, {1e6 * t_worst / size:.2f} us a byte "
          f"(limit {LIMIT_MS:.0f} ms: {'met' if 1e3 * t_worst <= LIMIT_MS else 'not met'})")
    if args.mutated:
        mutated_inputs(seeds, args.mutated, args.engine, args.passes)
    if args.libfuzzer:
        import importlib.util

        if importlib.util.find_spec("atheris") is None:
            print("the lint harness under libFuzzer: skipped, atheris is not installed here "
                  "(pip install '.[fuzz]'; --libfuzzer 0 leaves it out)")
        else:
            if args.sixteen:
                import tempfile

                with tempfile.TemporaryDirectory() as tmp:
                    plain_and_preloaded(sixteen(seeds, Path(tmp) / "sixteen"), args.libfuzzer, args.preload_options)
            else:
                plain_and_preloaded(args.corpus, args.libfuzzer, args.preload_options)
    return 0


def under_libfuzzer(corpus: Path, runs: int, *, preload: bool, options: str | None = None) -> tuple[int, float, int]:
    """(executions, CPU seconds, slowest unit in s) of the lint harness under libFuzzer
    (``options``: ASan options after the service's, preloaded)."""
    import os
    import re
    import tempfile

    from fuzz.campaign import libfuzzer, parse_log, waited

    before = os.environ.get("ASAN_OPTIONS")
    if options:  # (``preload_env`` puts the environment's after the service's: these win)
        os.environ["ASAN_OPTIONS"] = ":".join(filter(None, [before, options]))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "corpus").mkdir()
            log = Path(tmp) / "log"
            with log.open("w") as fh:
                proc = libfuzzer("lint", f"-runs={runs}", "-seed=1", "-max_len=16384", "-print_final_stats=1",
                                 Path(tmp) / "corpus", corpus, cwd=tmp, log=fh, preload=preload)
                status, cpu = waited(proc)
            text = log.read_text(errors="replace")
    finally:
        if options:
            if before is None:
                os.environ.pop("ASAN_OPTIONS", None)
            else:
                os.environ["ASAN_OPTIONS"] = before
    if status != 0:
        raise RuntimeError(f"the lint harness exited {status}:\n{text[-2000:]}")
    slowest = re.search(r"^stat::slowest_unit_time_sec:\s+(\d+)", text, re.M)
    return parse_log(text)[0], cpu, int(slowest[1]) if slowest else -1


def plain_and_preloaded(corpus: Path, runs: int, options: list[str] | None = None) -> None:
    plain = under_libfuzzer(corpus, runs, preload=False)
    pre = under_libfuzzer(corpus, runs, preload=True)
    rate_plain, rate_pre = plain[0] / plain[1], pre[0] / pre[1]
    print(f"lint harness under libFuzzer, {runs} executions each ({corpus.name}, then mutations; -seed=1), "
          "executions per CPU second:")
    print(f"  plain {rate_plain:.1f} ({plain[0]} in {plain[1]:.1f} s, slowest unit {plain[2]} s); preloaded "
          f"{rate_pre:.1f} ({pre[0]} in {pre[1]:.1f} s, slowest unit {pre[2]} s): plain/preloaded "
          f"{rate_plain / rate_pre:.2f}x (target <= 3x: {'met' if rate_plain / rate_pre <= 3 else 'not met'}; "
          f"slowest unit <= 2 s: {'met' if max(plain[2], pre[2]) <= 2 else 'not met'})")
    for each in options or []:
        extra = under_libfuzzer(corpus, runs, preload=True, options=each)
        rate = extra[0] / extra[1]
        print(f"  preloaded with {each}: {rate:.1f} ({extra[0]} in {extra[1]:.1f} s, slowest unit {extra[2]} s): "
              f"plain/that {rate_plain / rate:.2f}x", flush=True)


def sixteen(seeds: list[bytes], folder: Path) -> Path:
    """``folder`` holding the hostile inputs and the 20 largest of ``draw_mutated(seeds,
    400)`` (the first drawn first among equals), each named by its place in the draw: inputs
    the size of a campaign's, for the runs under libFuzzer (``--sixteen``)."""
    inputs = draw_mutated(seeds, 400)
    hostile = len(BUILDERS)
    largest = sorted(range(hostile, len(inputs)), key=lambda i: (-len(inputs[i]), i))[:20]
    folder.mkdir()
    for i in [*range(hostile), *largest]:
        (folder / f"{i:03d}").write_bytes(inputs[i])
    return folder


def grown(data: bytes, size: int) -> bytes:
    """``data`` repeated (its records after its first, which is the magic record where it
    has one) up to ``size`` bytes: a seed the size of the campaign's inputs."""
    body = data[8:] if len(data) > 8 else data
    out = bytearray(data)
    while body and len(out) + len(body) <= size:
        out += body
    return bytes(out)


def draw_mutated(seeds: list[bytes], count: int) -> list[bytes]:
    """The hostile inputs, then ``count`` mutated inputs of up to ``MAX_LEN`` bytes drawn
    with a fixed seed (``bench/fuzz_ab.py`` lints the same ones)."""
    from fuzz.mutator import mutate

    rng = random.Random(0)

    def byte_mutate(data: bytes, max_size: int) -> bytes:
        """libFuzzer's share of byte-level changes, without libFuzzer: a few bytes set at random."""
        out = bytearray(data[:max_size])
        for _ in range(rng.randint(1, 8)):
            if out:
                out[rng.randrange(len(out))] = rng.randrange(256)
        return bytes(out)

    inputs = [make() for make in BUILDERS.values()]
    for i in range(count):
        base = grown(seeds[i % len(seeds)], MAX_LEN)
        # one to three rounds of the mutator, as a campaign's inputs are mutants of mutants
        for round_ in range(1 + i % 3):
            base = mutate(base, MAX_LEN, seed=1000 * i + round_, byte_mutate=byte_mutate)[:MAX_LEN]
        inputs.append(base)
    return inputs


def mutated_inputs(seeds: list[bytes], count: int, engine: str | None, passes: int) -> None:
    """The lint's time per mutated input of up to ``MAX_LEN`` bytes: mean and worst."""
    inputs = draw_mutated(seeds, count)
    lint = (lambda d: fxtlint.lint_bytes(d)) if engine is None else (lambda d: fxtlint.lint_bytes(d, engine=engine))
    times = [best(lint, data, passes) for data in inputs]
    mean = 1e3 * sum(times) / len(times)
    worst_ms, worst_i = max((1e3 * t, i) for i, t in enumerate(times))
    size = sum(map(len, inputs)) / len(inputs)
    print(f"lint of {len(inputs)} mutated inputs (mean {size:,.0f} bytes, at most {MAX_LEN}; engine "
          f"{engine or 'default'}, {_native.describe()}), CPU time, best of {passes}:")
    print(f"  mean {mean:.3f} ms (target <= {MEAN_TARGET_MS} ms: {'met' if mean <= MEAN_TARGET_MS else 'not met'}); "
          f"worst {worst_ms:.2f} ms, input {worst_i} of {len(inputs[worst_i])} bytes "
          f"(target <= {WORST_TARGET_MS:g} ms: {'met' if worst_ms <= WORST_TARGET_MS else 'not met'})")


if __name__ == "__main__":
    sys.exit(main())
