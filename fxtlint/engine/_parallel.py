"""Lint several files in parallel processes, with the same reports as a serial run.

    reports = lint_paths(paths, jobs=4, progress=lambda done, total: ...)

Each path is linted by ``lint_path`` in a worker process (``ProcessPoolExecutor``);
reports come back in input order, so output is identical to linting the paths one
after the other. ``progress`` is called in the parent with (bytes done, bytes total)
after each file, for a progress bar the CLI can draw (rich); a file that fails to
open is returned as the ``OSError`` it raised, in its place, so one unreadable path
does not hide the others' reports. With ``excerpts=True`` each report comes with the
``_hexview.Excerpts`` its hex views need, copied from the buffer that was linted.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from ._hexview import Excerpts
from ._lint import lint_buffer, open_buffer
from ._result import DiagnosticSink

Progress = Callable[[int, int], None]


def _size(path) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


def _lint_one(path, input_format: str, sink_options: dict, engine: str | None, excerpts: bool,
              buffering_mode: str | None = None):
    try:
        with open_buffer(path) as buf:
            report = lint_buffer(buf, input_format=input_format, path=path,
                                 sink=DiagnosticSink(**sink_options), engine=engine, buffering_mode=buffering_mode)
            return (report, Excerpts(buf, report.diagnostics)) if excerpts else report
    except OSError as e:
        return (e, None) if excerpts else e


def lint_paths(paths: Sequence, *, jobs: int = 1, input_format: str = "auto", sink_options: dict | None = None,
               engine: str | None = None, progress: Progress | None = None, excerpts: bool = False,
               buffering_mode: str | None = None) -> list:
    """Lint ``paths`` with up to ``jobs`` worker processes (1: in this process).

    ``sink_options`` are keyword arguments of ``DiagnosticSink`` for each file
    (``per_rule_cap``, ``severity_overrides``, ``ignored``). Returns one FileReport, or
    the OSError that opening it raised, per path, in input order; with ``excerpts``,
    (that, its ``Excerpts`` or None) pairs."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    paths = [os.fspath(p) for p in paths]
    sink_options = dict(sink_options or {})
    sizes = [_size(p) for p in paths]
    total = sum(sizes)
    done = 0
    out: list = [None] * len(paths)
    if jobs == 1 or len(paths) < 2:
        for i, p in enumerate(paths):
            out[i] = _lint_one(p, input_format, sink_options, engine, excerpts, buffering_mode)
            done += sizes[i]
            if progress is not None:
                progress(done, total)
        return out
    # imported here: multiprocessing's import costs a one-file lint a third of its start-up
    from concurrent.futures import ProcessPoolExecutor, as_completed

    with ProcessPoolExecutor(max_workers=min(jobs, len(paths))) as pool:
        futures = {pool.submit(_lint_one, p, input_format, sink_options, engine, excerpts, buffering_mode): i
                   for i, p in enumerate(paths)}
        for fut in as_completed(futures):
            i = futures[fut]
            out[i] = fut.result()
            done += sizes[i]
            if progress is not None:
                progress(done, total)
    return out
