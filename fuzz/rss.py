"""Sample the resident memory of a process tree over time (Linux /proc)."""

from __future__ import annotations

import threading
import time
from pathlib import Path


def _status(pid: int) -> dict[str, int]:
    out = {}
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                out[key] = int(rest.split()[0])  # kB
    except (OSError, ValueError, IndexError):
        pass
    return out


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids


def tree(pid: int) -> list[int]:
    todo, seen = [pid], []
    while todo:
        p = todo.pop()
        seen.append(p)
        todo += _children(p)
    return seen


class Sampler:
    """Every ``every`` seconds, append ``elapsed_s,pid,rss_mb,hwm_mb`` for each process of
    the tree under ``pid`` to ``path`` (CSV). ``peak_mb`` is the largest VmHWM seen."""

    def __init__(self, pid: int, path: Path, every: float = 30.0):
        self.pid, self.path, self.every = pid, Path(path), every
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> Sampler:
        self.path.write_text("elapsed_s,pid,rss_mb,hwm_mb\n")
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def sample(self, elapsed: float) -> None:
        rows = []
        for p in tree(self.pid):
            st = _status(p)
            if st:
                rss, hwm = st.get("VmRSS", 0) / 1024, st.get("VmHWM", 0) / 1024
                self.peak_mb = max(self.peak_mb, hwm)
                rows.append(f"{elapsed:.0f},{p},{rss:.1f},{hwm:.1f}\n")
        with self.path.open("a") as fh:
            fh.writelines(rows)

    def _run(self) -> None:
        start = time.monotonic()
        while True:
            self.sample(time.monotonic() - start)
            if self._stop.wait(self.every):
                self.sample(time.monotonic() - start)
                return


def slope(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``(x, y)`` points; None for fewer than two distinct x."""
    n = len(points)
    if n < 2:
        return None
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    sxx = sum((x - mx) ** 2 for x, _ in points)
    if not sxx:
        return None
    return sum((x - mx) * (y - my) for x, y in points) / sxx


def tree_rss(path: Path) -> list[tuple[float, float]]:
    """``(elapsed s, MB)`` from a Sampler's CSV: the resident memory of the whole tree at each
    sample (the processes' sum); rows that do not parse are left out."""
    total: dict[float, float] = {}
    try:
        lines = Path(path).read_text().splitlines()[1:]
    except OSError:
        return []
    for line in lines:
        parts = line.split(",")
        try:
            at, mb = float(parts[0]), float(parts[2])
        except (IndexError, ValueError):
            continue
        total[at] = total.get(at, 0.0) + mb
    return sorted(total.items())


def thirds(points: list[tuple[float, float]], after: float) -> list[list[tuple[float, float]]]:
    """The points from ``after`` on, cut into three stretches of equal x range (the cuts shared)."""
    kept = [p for p in points if p[0] >= after]
    if len(kept) < 2:
        return []
    lo, hi = kept[0][0], kept[-1][0]
    cuts = [lo + (hi - lo) * k / 3 for k in range(4)]
    return [[p for p in kept if cuts[k] <= p[0] <= cuts[k + 1]] for k in range(3)]


def trend_line(path: Path, *, after: float = 60.0) -> str | None:
    """One line: the tree's RSS slope in MB a minute over each third of the run from ``after``
    seconds on (the seeds are loaded by then), and over the whole; None with too few samples."""
    points = tree_rss(path)
    parts = thirds(points, after)
    slopes = [slope(p) for p in parts]
    whole = slope([p for p in points if p[0] >= after])
    if whole is None or any(s is None for s in slopes):
        return None
    span = [f"{int(p[0][0])}-{int(p[-1][0])} s" for p in parts]
    each = ", ".join(f"{s * 60:+.2f} ({w})" for s, w in zip(slopes, span) if s is not None)
    return (f"RSS trend (rss.csv, least squares, from {after:.0f} s): {whole * 60:+.2f} MB a minute over the run; "
            f"by thirds {each}")
