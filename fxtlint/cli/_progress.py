"""A progress bar for work that takes more than about a second, on a terminal only:
``check``'s lint, and the bytes read of one input by ``repair``, ``slice``, ``export``,
``decode`` and ``report`` (``reading_bar``).

The bar appears after ``delay`` seconds (a timer starts rich's live display, which then
animates on its own thread while the lint runs), advances by bytes as files finish, and
leaves nothing behind when done (``transient``). Machine output is never touched: the
bar goes to the terminal's console, and nowhere when that is not a terminal.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from rich.console import Console

DELAY = 1.0  # seconds of work before a bar is worth showing


@contextmanager
def progress_bar(console: Console, total_bytes: int, *, enabled: bool = True, delay: float = DELAY,
                 label: str = "linting"):
    """Yield ``advance(done_bytes, total_bytes)``; draw a bar named ``label`` on
    ``console`` if the work outlasts ``delay`` and ``console`` is a terminal."""
    if not enabled or not console.is_terminal:
        yield lambda done, total: None
        return
    import threading  # (a terminal's only, as rich is)

    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

    progress = Progress(
        TextColumn(label), BarColumn(), DownloadColumn(), TimeElapsedColumn(),
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


@contextmanager
def reading_bar(label: str, *, enabled: bool = True, console: Console | None = None, delay: float = DELAY):
    """``progress_bar`` of one input's bytes read, for a verb that writes its own output:
    drawn on standard error (``console``), and only when standard output is a terminal
    too (a verb whose output goes to a file or a pipe draws nothing)."""
    on = enabled and _is_terminal(sys.stdout)
    console = console if console is not None or not on else stderr_console()
    if console is None:  # no terminal to draw on: rich is not even imported
        yield lambda done, total: None
        return
    with progress_bar(console, 0, enabled=on, delay=delay, label=label) as advance:
        yield advance


def stderr_console():
    """A console on stderr for the progress bar; None where rich would not call stderr a
    terminal (not a tty, neither TTY_COMPATIBLE nor FORCE_COLOR set), so that machine
    output to a pipe never imports rich. Unsure (isatty fails): rich decides."""
    if not ("TTY_COMPATIBLE" in os.environ or "FORCE_COLOR" in os.environ):
        try:
            if sys.stderr is None or not sys.stderr.isatty():
                return None
        except (AttributeError, OSError, ValueError):
            pass
    from rich.console import Console

    return Console(stderr=True)


def _is_terminal(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def counting(source, advance):
    """``source`` (a ``FileSource``, read a chunk at a time) telling ``advance(done, total)``
    the bytes read after each read; anything else (bytes read whole) as it is."""
    from ..engine._file import FileSource

    if not isinstance(source, FileSource):
        return source
    read = source.readinto

    def readinto(view) -> int:
        got = read(view)
        advance(source.fh.tell(), len(source))
        return got

    source.readinto = readinto  # type: ignore[method-assign]
    return source
