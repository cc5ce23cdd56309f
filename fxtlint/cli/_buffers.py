"""Open a path as a buffer (memory-mapped when it can be) for the verbs that lint files:
the same buffer is linted and rendered, so a hex view shows the bytes that were linted."""

from __future__ import annotations

import os
from pathlib import Path

from .._lint import open_buffer


def expand(paths: list[str], pattern: str = "*.fxt") -> tuple[list[tuple[str, str | None]], list[tuple[str, str]]]:
    """(file, writer) pairs in order, and (path, message) for paths that give none.

    A directory is one writer, named after it; its files are every ``pattern`` inside.
    A file given by itself has no writer (it is its own column in a matrix).
    """
    files: list[tuple[str, str | None]] = []
    failures: list[tuple[str, str]] = []
    for p in paths:
        if os.path.isdir(p):
            found = sorted(str(f) for f in Path(p).rglob(pattern) if f.is_file())
            if found:
                writer = Path(p).resolve().name or p
                files += [(f, writer) for f in found]
            else:
                failures.append((p, f"directory contains no {pattern} files"))
        elif os.path.exists(p):
            files.append((p, None))
        else:
            failures.append((p, "no such file or directory"))
    return files, failures


def opened(path: str):
    """The file's bytes, mapped read-only (read whole for empty files and pipes).

    Raises OSError when the path cannot be read.
    """
    return open_buffer(path)
