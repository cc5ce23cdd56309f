"""Settings from ``[tool.fxtlint]`` in pyproject.toml, found upward from a directory.

The same names as the command-line options (``select``, ``ignore``, ``severity``,
``fail-on``, ``exit-zero``, ``statistics``, ``exclude``, ``output-format``,
``input-format``, ``max-per-rule``, ``baseline``, ``quiet``, ``no-hex``); an option
given on the command line wins. The first pyproject.toml found going up from the
current directory is used, whether or not it has a ``[tool.fxtlint]`` table (as ruff
does), so a project's settings never leak in from a parent project.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..spec._frozen import F, Frozen

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)
if TYPE_CHECKING:
    from pathlib import Path

FILENAME = "pyproject.toml"

# setting -> the type(s) it accepts (lists also accept one comma-separated string)
_KINDS: dict[str, tuple] = {
    "select": (list, str),
    "ignore": (list, str),
    "severity": (dict, list, str),
    "fail-on": (str,),
    "exit-zero": (bool,),
    "statistics": (bool,),
    "exclude": (list, str),
    "output-format": (str,),
    "input-format": (str,),
    "max-per-rule": (int,),
    "baseline": (str,),
    "quiet": (bool,),
    "no-hex": (bool,),
    "buffering-mode": (str,),
}


class ConfigError(ValueError):
    """A pyproject.toml that cannot be read, or a setting of the wrong name or type."""


class Config(Frozen):
    """The settings of one pyproject.toml's ``[tool.fxtlint]`` (frozen)."""

    path: Path | None  # the pyproject.toml read, None when there is none
    settings: dict  # option name (underscores) -> value
    _spec = (F("path", None), F("settings", factory=dict))

    def __init__(self, path: Path | None = None, settings: dict | None = None):
        self.__dict__.update(path=path, settings={} if settings is None else settings)

    def get(self, name: str, default=None):
        return self.settings.get(name, default)

    def resolve_path(self, value: str) -> str:
        """A path setting is relative to the pyproject.toml that holds it."""
        if self.path is None or os.path.isabs(value):
            return value
        return str(self.path.parent / value)


def find(start: str | os.PathLike | None = None) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` (default: the current directory)."""
    for d in folders(os.path.realpath(start if start is not None else os.getcwd())):
        candidate = os.path.join(d, FILENAME)
        if os.path.isfile(candidate):
            from pathlib import Path  # (os.path above: a run with no pyproject.toml needs no pathlib)

            return Path(candidate)
    return None


def folders(here: str) -> Iterator[str]:
    """``here`` (an absolute path), then each folder above it up to the root."""
    while True:
        yield here
        parent = os.path.dirname(here)
        if parent == here:
            return
        here = parent


def parse(table: dict, where: str = FILENAME) -> dict:
    """Check ``[tool.fxtlint]``'s keys and types; returns option name -> value."""
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: [tool.fxtlint] must be a table")
    out = {}
    for key, value in table.items():
        kinds = _KINDS.get(key)
        if kinds is None:
            known = ", ".join(sorted(_KINDS))
            raise ConfigError(f"{where}: unknown setting {key!r} in [tool.fxtlint] (known: {known})")
        if (isinstance(value, bool) and bool not in kinds) or not isinstance(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise ConfigError(f"{where}: [tool.fxtlint] {key} must be a {names}, not {value!r}")
        out[key.replace("-", "_")] = value
    return out


def load(start: str | os.PathLike | None = None) -> Config:
    """The settings that apply in ``start`` (empty when no pyproject.toml is found)."""
    path = find(start)
    if path is None:
        return Config()
    import tomllib as _toml  # only where there is a pyproject.toml to read

    try:
        with open(path, "rb") as fh:
            data = _toml.load(fh)
    except (OSError, ValueError) as e:  # TOMLDecodeError is a ValueError
        raise ConfigError(f"{path}: {e}") from None
    table = data.get("tool", {}).get("fxtlint", {})
    return Config(path=path, settings=parse(table, str(path)))
