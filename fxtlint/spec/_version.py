"""The tool's name and version, for renderers and the CLI (below every layer, so none
of them imports the package face for it)."""

from __future__ import annotations

import os

TOOL_NAME = "fxtlint"
__version__ = "0.1.0"
# the project's home (its repository, README and docs/): the SARIF driver's informationUri;
# pyproject.toml's [project.urls] Homepage holds the same (a test keeps them equal)
HOME_URL = "https://github.com/fxtlint/fxtlint"


def tool_version() -> str:
    """The installed distribution's version, else this source tree's. An installed wheel
    says it in the name of its one ``fxtlint-VERSION.dist-info`` folder beside the package,
    read without importing ``importlib.metadata`` (a third of a small lint's start-up when
    it writes JSON); anywhere else (an editable install, a checkout) the metadata says it."""
    version = _dist_info_version(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    if version is not None:
        return version
    from importlib import metadata

    try:
        return metadata.version(TOOL_NAME)
    except metadata.PackageNotFoundError:
        return __version__


def _dist_info_version(folder: str) -> str | None:
    """VERSION of the one ``fxtlint-VERSION.dist-info`` folder in ``folder`` (None: none, or several)."""
    prefix, suffix = f"{TOOL_NAME}-", ".dist-info"
    try:
        found = [n for n in os.listdir(folder) if n.startswith(prefix) and n.endswith(suffix)]
    except OSError:
        return None
    if len(found) != 1 or not os.path.isfile(os.path.join(folder, found[0], "METADATA")):
        return None
    return found[0][len(prefix):-len(suffix)]
