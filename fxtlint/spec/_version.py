"""The tool's name and version, for renderers and the CLI (below every layer, so none
of them imports the package face for it)."""

from __future__ import annotations

TOOL_NAME = "fxtlint"
__version__ = "0.1.0"
# the project's home (its repository, README and docs/): the SARIF driver's informationUri;
# pyproject.toml's [project.urls] Homepage holds the same (a test keeps them equal)
HOME_URL = "https://github.com/fxtlint/fxtlint"


def tool_version() -> str:
    """The installed distribution's version, else this source tree's."""
    from importlib import metadata

    try:
        return metadata.version(TOOL_NAME)
    except metadata.PackageNotFoundError:
        return __version__
