"""A progress bar for linting that takes more than about a second, on a terminal only.

The bar appears after ``delay`` seconds (a timer starts rich's live display, which then
animates on its own thread while the lint runs), advances by bytes as files finish, and
leaves nothing behind when done (``transient``). Machine output is never touched: the
bar goes to the terminal's console, and nowhere when that is not a terminal.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

DELAY = 1.0  # seconds of work before a bar is worth showing


@contextmanager
def progress_bar(console: Console, total_bytes: int, *, enabled: bool = True, delay: float = DELAY):
    """Yield ``advance(done_bytes, total_bytes)``; draw a bar on ``console`` if the
    work outlasts ``delay`` and ``console`` is a terminal."""
    if not enabled or not console.is_terminal:
        yield lambda done, total: None
        return
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn  # a terminal's only

    progress = Progress(
        TextColumn("linting"), BarColumn(), DownloadColumn(), TimeElapsedColumn(),
        console=console, transient=True,
    )
    task = progress.add_task("lint", total=total_bytes or None)
    lock = threading.Lock()
    state = {"started": False, "finished": False}

    def start() -> None:
        with lock:
            if not state["finished"]:
                progress.start()
                state["started"] = True

    timer = threading.Timer(delay, start)
    timer.daemon = True
    timer.start()

    def advance(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total or None)

    try:
        yield advance
    finally:
        timer.cancel()
        with lock:
            state["finished"] = True
            if state["started"]:
                progress.stop()
