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
