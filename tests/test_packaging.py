"""What the package promises beyond its code: type information, the pre-commit hook,
and a README library example that runs and lints clean."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

import fxtlint

REPO = Path(__file__).resolve().parent.parent


def test_py_typed_is_in_the_package():
    # resources looks in the imported package: the installed wheel when CI installs it
    assert resources.files("fxtlint").joinpath("py.typed").is_file()


def test_pre_commit_hook_runs_check_on_fxt_files():
    text = (REPO / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert re.search(r"^- id: fxtlint$", text, re.M)
    assert re.search(r"^  entry: fxtlint check$", text, re.M)
    assert re.search(r"^  language: python$", text, re.M)
    pattern = re.search(r"^  files: '(.+)'$", text, re.M).group(1)
    for name, hit in (("a/trace.fxt", True), ("T.FXT", True), ("trace.fxt.bak", False), ("x.json", False)):
        assert bool(re.search(pattern, name)) is hit, name


def _readme() -> str:
    return (REPO / "README.md").read_text("utf-8")


def _resolve(dotted: str):
    """``fxtlint.a.b``: the longest importable module prefix, then attributes."""
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def test_readme_names_only_public_api():
    """Users are told to call what the public faces export: every dotted ``fxtlint.`` name
    in the README resolves, with no private segment, and no private name is cited."""
    text = _readme()
    names = set(re.findall(r"\bfxtlint(?:\.\w+)+", text)) - {"fxtlint.sarif"}  # a file name
    assert "fxtlint.lint_paths" in names and "fxtlint.testing" in names
    for name in sorted(names):
        assert not any(p.startswith("_") and not p.startswith("__") for p in name.split(".")), name
        _resolve(name)
    # a private module or name cited in code spans (`_reader.resync_offset`, `fxtlint/x/_y.py`)
    private = [span for span in re.findall(r"`([^`\n]+)`", text) if re.search(r"(?:^|[^\w])_[a-z]", span)]
    assert private == []


def test_readme_says_how_to_install_without_the_registry():
    """fxtlint is not on PyPI: the README installs it from a git URL or a checkout."""
    text = _readme()
    install = text.split("## Install", 1)[1].split("\n## ", 1)[0]
    commands = [line.split("#")[0].strip() for line in
                re.search(r"```sh\n(.*?)```", install, re.S).group(1).splitlines()]
    assert any(c.startswith('pip install "git+https://') for c in commands)
    assert any(c.startswith("pip install /") for c in commands)
    # the bare registry name appears once, saying that it does not install
    assert [m.start() for m in re.finditer(r"pip install fxtlint\b", text)] == [
        text.index("`pip install fxtlint` finds nothing") + 1]


def test_readme_pre_commit_block_is_copyable():
    """A YAML block to paste: the project's repository, a rev that exists (a branch: there
    are no tags yet), and the hook id .pre-commit-hooks.yaml declares."""
    from fxtlint.spec._version import HOME_URL

    block = re.search(r"```yaml\n(.*?)```", _readme(), re.S).group(1)
    fields = dict(re.findall(r"^\s*-?\s*(repo|rev|id): (\S+)", block, re.M))
    hooks = (REPO / ".pre-commit-hooks.yaml").read_text("utf-8")
    assert fields == {"repo": HOME_URL, "rev": "main", "id": re.search(r"^- id: (\S+)$", hooks, re.M).group(1)}
    assert block.startswith("repos:\n") and "<" not in block


def readme_library_example() -> str:
    text = (REPO / "README.md").read_text("utf-8")
    section = text.split("## As a library", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_readme_library_example_runs_and_lints_clean(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(readme_library_example(), "README.md", "exec"), scope)
    data = scope["data"]
    assert fxtlint.lint_bytes(data).diagnostics == []
    assert scope["report"].counts == {}


def test_readme_example_check_can_fail(tmp_path, monkeypatch):
    """Without its thread record the example's event has an unregistered thread (RF002)."""
    monkeypatch.chdir(tmp_path)
    broken = readme_library_example().replace("B.thread(1, 10, 11),", "")
    assert "B.thread" not in broken
    with pytest.raises(AssertionError):
        exec(compile(broken, "README.md", "exec"), {})


def test_readme_pyproject_example_is_valid_settings(tmp_path, monkeypatch, capsys):
    from fxtlint import build as B
    from fxtlint.cli import main

    text = (REPO / "README.md").read_text("utf-8")
    toml = re.search(r"```toml\n(.*?)```", text, re.S).group(1)
    (tmp_path / "pyproject.toml").write_text(toml, encoding="utf-8")
    (tmp_path / "fxtlint-baseline.json").write_text('{"fxtlint_baseline": 1, "files": {}}', encoding="utf-8")
    # a flow never ended (PR004, ignored) and a NUL-terminated name (ST008, a warning: fails)
    (tmp_path / "t.fxt").write_bytes(B.archive(B.magic(), B.string(1, "c"), B.thread(1, 2, 3),
                                               B.event("instant", 5, category=1, name="n\0")))
    monkeypatch.chdir(tmp_path)
    assert main(["t.fxt", "--output-format", "json"]) == 1
    assert "ST008" in capsys.readouterr().out
    assert main(["t.fxt", "--isolated", "--quiet"]) == 0


def test_the_conformance_suite_ships_with_the_package(tmp_path, monkeypatch, capsys):
    """Outside a checkout `fxtlint conformance run` grades on the suite inside the
    package; CI runs this against the installed wheel (FXTLINT_EXPECT_INSTALLED=1)."""
    import os

    from fxtlint.cli import main
    from fxtlint.reader_suite._runner import default_suite, load_results, load_suite

    pkg = Path(fxtlint.__file__).resolve().parent
    installed = pkg != REPO / "fxtlint"
    if os.environ.get("FXTLINT_EXPECT_INSTALLED") == "1":
        assert installed, f"tests ran against the source tree at {pkg}, not an installed package"
    if installed:
        assert default_suite() == pkg / "conformance-suite"
    ids = [c.id for c in load_suite(REPO / "corpus" / "conformance")]
    assert [c.id for c in load_suite(default_suite())] == ids
    monkeypatch.chdir(tmp_path)  # no corpus/ here
    assert main(["conformance", "run", "--reader", "false", "--json", "r.json", "--no-progress"]) == 1
    assert len(load_results(tmp_path / "r.json")["cases"]) == len(ids)
    assert "passes none of the" in capsys.readouterr().err


def test_wheel_and_sdist_take_the_suite_and_the_tables():
    """setup.py copies each checkout folder of PACKAGED into the wheel's package and
    MANIFEST.in puts it in the sdist (.ci/install_check builds both and looks inside)."""
    import ast

    tree = ast.parse((REPO / "setup.py").read_text("utf-8"))
    packaged = next(ast.literal_eval(n.value) for n in tree.body
                    if isinstance(n, ast.Assign) and [t.id for t in n.targets] == ["PACKAGED"])
    assert packaged == {"spec-tables": "fxtlint/spec_tables", "corpus/conformance": "fxtlint/conformance-suite"}
    manifest = (REPO / "MANIFEST.in").read_text("utf-8").splitlines()
    for folder in packaged:
        assert f"graft {folder}" in manifest
