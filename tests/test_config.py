"""``_config``: ``[tool.fxtlint]`` found upward from a directory, each setting checked by
name and type, each refusal with its passing twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from fxtlint.cli._config import Config, ConfigError, find, load, parse


def _project(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pyproject.toml"
    path.write_text(text, "utf-8")
    return path


def test_the_nearest_pyproject_is_used_even_without_a_fxtlint_table(tmp_path):
    outer = _project(tmp_path, '[tool.fxtlint]\nselect = ["PR"]\n')
    inner = _project(tmp_path / "sub", "[project]\nname = 'x'\n")
    deep = tmp_path / "sub" / "a" / "b"
    deep.mkdir(parents=True)
    assert find(deep) == inner
    assert load(deep) == Config(path=inner, settings={})  # the parent project's settings do not leak in
    other = tmp_path / "other"
    other.mkdir()
    assert find(other) == outer and load(other).settings == {"select": ["PR"]}


def test_no_pyproject_gives_no_settings(tmp_path, monkeypatch):
    from fxtlint.cli import _config

    monkeypatch.setattr(_config, "folders", lambda here: iter([here]))  # stop at tmp_path, not the machine's root
    assert find(tmp_path) is None and load(tmp_path) == Config()


def test_the_search_goes_up_to_the_root():
    from fxtlint.cli._config import folders

    assert list(folders("/a/b/c")) == ["/a/b/c", "/a/b", "/a", "/"]
    assert list(folders("/")) == ["/"]


def test_settings_take_the_option_names_with_underscores(tmp_path):
    _project(tmp_path, '[tool.fxtlint]\nfail-on = "warning"\nmax-per-rule = 5\nno-hex = true\nseverity = "PR=info"\n')
    assert load(tmp_path).settings == {"fail_on": "warning", "max_per_rule": 5, "no_hex": True, "severity": "PR=info"}


@pytest.mark.parametrize("table,match", [
    ({"selec": ["PR"]}, "unknown setting 'selec' in \\[tool.fxtlint\\]"),
    ({"max-per-rule": True}, "max-per-rule must be a int, not True"),  # a bool is not an int here
    ({"max-per-rule": "5"}, "max-per-rule must be a int, not '5'"),
    ({"exit-zero": 1}, "exit-zero must be a bool, not 1"),
    ({"select": {"PR": 1}}, "select must be a list or str"),
])
def test_a_setting_of_the_wrong_name_or_type_is_refused(table, match):
    with pytest.raises(ConfigError, match=match):
        parse(table)


@pytest.mark.parametrize("table", [{"select": ["PR"]}, {"select": "PR,RB"}, {"max-per-rule": 5},
                                   {"exit-zero": True}, {"severity": {"PR": "info"}}])
def test_the_twins_of_the_refused_settings_are_read(table):
    assert list(parse(table).values()) == list(table.values())


def test_a_fxtlint_entry_that_is_not_a_table_is_refused(tmp_path):
    _project(tmp_path, '[tool]\nfxtlint = "PR"\n')
    with pytest.raises(ConfigError, match="must be a table"):
        load(tmp_path)


def test_a_pyproject_that_is_not_toml_names_the_file(tmp_path):
    path = _project(tmp_path, "[tool.fxtlint\n")
    with pytest.raises(ConfigError, match=str(path).replace("\\", "\\\\")):
        load(tmp_path)


def test_a_path_setting_is_relative_to_its_pyproject(tmp_path):
    config = Config(path=tmp_path / "pyproject.toml")
    assert config.resolve_path("base.json") == str(tmp_path / "base.json")
    assert config.resolve_path("/abs/base.json") == "/abs/base.json"
    assert Config().resolve_path("base.json") == "base.json"
