"""The one file walker of every verb that takes paths, and the opening of a path as a
buffer (read, never mapped: a larger file is read a chunk at a time as it is walked,
``engine._file``): the same buffer is walked and rendered, so a hex view shows the
bytes that were linted.

A path named on the command line is taken as it is (even one ``--exclude`` matches,
ruff's habit); a directory gives every ``*.fxt`` inside it, in any case, recursively,
sorted, skipping hidden files and folders and those ``--exclude`` matches (by name or
path relative to the directory). A directory is one writer, named after it (a column of
a report's compatibility matrix); a file given by itself has none.
"""

from __future__ import annotations

import os

from ..engine._lint import open_buffer

STDIN = "-"
SUFFIX = ".fxt"  # what a directory walk takes, in any case
# a directory with nothing to lint: a failure (exit 2) unless ``check --allow-empty``
EMPTY_DIRECTORY = f"directory contains no {SUFFIX} files"


def _excluded(path: str, rel: str, patterns: list[str]) -> bool:
    import fnmatch  # (and with it re: a run that names its files needs neither, bench/startup.py)

    name = os.path.basename(path)
    return any(fnmatch.fnmatch(name, g) or fnmatch.fnmatch(rel, g) or fnmatch.fnmatch(path, g)
               for g in patterns)


def walk(top: str, exclude: list[str]) -> list[str]:
    """Every ``*.fxt`` under ``top`` (any case), skipping hidden and excluded folders."""
    found = []
    for root, dirs, files in os.walk(top):
        rel_root = os.path.relpath(root, top)
        keep = []
        for d in sorted(dirs):
            rel = os.path.normpath(os.path.join(rel_root, d))
            if not d.startswith(".") and not _excluded(os.path.join(root, d), rel, exclude):
                keep.append(d)
        dirs[:] = keep
        for f in files:
            path = os.path.join(root, f)
            if (f.lower().endswith(SUFFIX) and not f.startswith(".") and os.path.isfile(path)
                    and not _excluded(path, os.path.normpath(os.path.join(rel_root, f)), exclude)):
                found.append(path)
    return sorted(found)


def expand_paths(paths: list[str], exclude=()) -> tuple[list[tuple[str, str | None]], list[tuple[str, str]]]:
    """(file, writer) pairs in order, and (path, message) for paths that give none.
    ``-`` (standard input) is passed through as a file."""
    files: list[tuple[str, str | None]] = []
    failures: list[tuple[str, str]] = []
    for p in paths:
        if p == STDIN:
            files.append((p, None))
        elif os.path.isdir(p):
            found = walk(p, list(exclude))
            if found:
                writer = os.path.basename(os.path.realpath(p)) or p
                files += [(f, writer) for f in found]
            else:
                failures.append((p, EMPTY_DIRECTORY))
        elif os.path.exists(p):
            files.append((p, None))
        else:
            failures.append((p, "no such file or directory"))
    return files, failures


def opened(path: str):
    """The file to walk (``engine._lint.open_buffer``: its bytes, or a ``FileSource``
    read a chunk at a time).

    Raises OSError when the path cannot be read or changes while it is read.
    """
    return open_buffer(path)
