"""Benchmark: the native walk's own pass (``NativeWalk.run``) on clean inputs, this tree
against a baseline checkout, in one run.

    python bench/walk_ab.py --baseline DIR [--rounds 5]

``DIR`` is another checkout of fxtlint with its extensions built in place (as for
``fuzz_ab.py``). The inputs: the seeds of ``corpus/seeds`` that lint clean, grown to 16 KB
as ``fuzz_speed`` grows them (mostly table records: provider, string and thread records),
and a synthetic events trace (``make_trace.py``) of 16 KB and of 2 MB (whole records).
Each tree times, in a process of its own (the trees taking turns ``--rounds`` times, each
input's best kept), a fresh ``NativeWalk`` (as a lint makes one) and its ``run`` over the
whole input, with no rendering, no pairing and no report: the walk's fixed cost and its
cost per byte, apart from the rest of a lint. Printed per input and tree: microseconds,
MB/s, and the ratio baseline / this tree.
"""

from __future__ import annotations

import argparse
import json
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def child(tree: str, inputs_path: str, reps: int) -> None:
    """The best time of a fresh walk's run over each input, with the fxtlint of ``tree``."""
    sys.path.insert(0, tree)
    from fxtlint.engine import _nwalk, _walk_native
    from fxtlint.engine._provider_state import ProviderState

    assert Path(_nwalk.__file__).resolve().is_relative_to(Path(tree).resolve()), _nwalk.__file__
    inputs = json.loads(Path(inputs_path).read_text())
    plan = _walk_native._loaded(_nwalk, False)
    out = []
    for hexdata in inputs:
        data = bytes.fromhex(hexdata)
        n = max(3, reps * 16384 // max(len(data), 1))
        best = float("inf")
        for _ in range(n):
            t = time.perf_counter()
            nw = _nwalk.NativeWalk(plan, _walk_native.Mirror(ProviderState()), False)
            nw.layout = True
            nw.run(data, 0, 0, 1 << 62)
            best = min(best, time.perf_counter() - t)
        out.append(best)
    print(json.dumps(out))


def whole_records(data: bytes, size: int) -> bytes:
    off = 0
    while off + 8 <= len(data):
        (h,) = struct.unpack_from("<Q", data, off)
        n = 8 * ((h >> 4) & (0xFFFFFFFF if h & 0xF == 15 else 0xFFF))
        if n == 0 or off + n > size:
            break
        off += n
    return data[:off]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, type=Path, help="a checkout with its extensions built in place")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--reps", type=int, default=50, help="runs of a 16 KB input per round (fewer for larger)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return 0
    sys.path.insert(0, str(REPO / "bench"))
    sys.path.insert(0, str(REPO))
    import make_trace
    from fuzz_speed import MAX_LEN, grown

    import fxtlint

    named = []
    for p in sorted((REPO / "corpus" / "seeds").iterdir()):
        if p.suffix == ".fxt":
            data = grown(p.read_bytes(), MAX_LEN)
            report = fxtlint.lint_bytes(data)
            if not report.counts and report.format == "trace" and report.records > 500:
                named.append((p.stem, data))
    named = named[:6]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "events.fxt"
        make_trace.generate(path, 2, workload="events")
        events = path.read_bytes()
    named += [("events 16 KB", whole_records(events, 16384)), ("events 2 MB", whole_records(events, 2 << 20))]
    trees = {"baseline": str(args.baseline.resolve()), "this tree": str(REPO)}
    best: dict = {}
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump([d.hex() for _, d in named], f)
        f.flush()
        for _ in range(args.rounds):
            for name, tree in trees.items():
                out = subprocess.run([sys.executable, __file__, "--baseline", tree, "--child", tree, f.name,
                                      str(args.reps)], check=True, capture_output=True, text=True, cwd=tree).stdout
                got = json.loads(out.splitlines()[-1])
                prev = best.get(name)
                best[name] = got if prev is None else [min(a, b) for a, b in zip(prev, got)]
    print(f"a fresh NativeWalk and its run over each clean input, best of {args.rounds} rounds, the trees "
          "taking turns:")
    print(f"  {'input':22} {'bytes':>9} {'baseline us':>12} {'MB/s':>7} {'this tree us':>13} {'MB/s':>7} "
          f"{'baseline / this':>16}")
    for i, (name, data) in enumerate(named):
        b, t = best["baseline"][i], best["this tree"][i]
        print(f"  {name:22} {len(data):9,} {1e6 * b:12.1f} {len(data) / b / 1e6:7.0f} {1e6 * t:13.1f} "
              f"{len(data) / t / 1e6:7.0f} {b / t:15.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
