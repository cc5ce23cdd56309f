"""docs/rules.md is generated from the registry: drift fails here (and in CI).

Fix a failure with ``python -m fxtlint.render._docs --write`` and commit the result.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from pathlib import Path

import pytest

from fxtlint.render import _docs
from fxtlint.rules._diagnostics import Example, Rule, Severity

RULES_MD = Path(__file__).resolve().parents[1] / "docs" / "rules.md"  # the checkout's, even
# when fxtlint is imported from an installed wheel
# The whole page, generated once for the module: each generation lints every rule's
# examples (PR012's 65,537 nested begins among them), seconds each
_page = functools.cache(_docs.generate)


def test_rules_md_matches_registry():
    assert RULES_MD.read_text(encoding="utf-8") == _page(), (
        "docs/rules.md is stale: run `python -m fxtlint.render._docs --write`"
    )


def test_every_rule_documented_with_both_verdicts():
    """The failing example shows its rule's finding; the passing one shows none."""
    text = _page()
    for rule in _docs.registry():
        section = text.split(f"\n## {rule.code} {rule.name}\n", 1)[1].split("\n## ", 1)[0]
        failing, passing = section.split("### Passing example", 1)
        assert f"\n> {rule.severity.label}[{rule.code}]: " in failing, rule.code
        assert f"fxtlint does not report {rule.code} here." in passing, rule.code


FAKE = Rule(
    code="ZZ001", name="fake-defect", severity=Severity.WARNING, message="bad {thing}",
    what="  Checks a fake thing.\n", why="Fake things mislead.",
    bad=Example("eight bytes", lambda: bytes(range(8))),
    good=Example("nothing", lambda: b"", input_format="log"),
    spec="Section 0",
    params=("thing",),
    scope=("file",),
    no_mutation="a fake rule",
)


def test_rule_markdown_sections():
    assert _docs.rule_markdown(FAKE) == (
        "## ZZ001 fake-defect\n\n"
        "- Severity: warning\n"
        "- Status: stable\n"
        "- Message: bad {thing}\n\n"
        "### What it checks\n\nChecks a fake thing.\n\n"
        "### Why it matters\n\nFake things mislead.\n\n"
        "### Failing example\n\n"
        "eight bytes (input format: trace, 8 bytes)\n\n"
        "```text\n"
        "00000000  00 01 02 03 04 05 06 07" + " " * 25 + "  |........|\n"
        "```\n\n"
        "fxtlint does not report ZZ001 here.\n\n"
        "### Passing example\n\n"
        "nothing (input format: log, 0 bytes)\n\n"
        "```text\n(empty)\n```\n\n"
        "fxtlint does not report ZZ001 here.\n\n"
        "### Spec reference\n\nSection 0\n"
    )


def test_generate_index_and_anchors():
    text = _docs.generate([FAKE])
    assert text.startswith("# fxtlint rules\n\n" + _docs.GENERATED_NOTE + "\n\n1 rule. ")
    assert "| [ZZ001](#zz001-fake-defect) | fake-defect | warning | stable |" in text.splitlines()
    assert text.endswith("Section 0\n")
    assert _docs.generate([]).count("\n## ") == 0


@pytest.mark.parametrize(
    "code, name, expected",
    [("ST004", "string-too-long", "st004-string-too-long"), ("A_1", "x.y", "a_1-xy")],
)
def test_anchor(code, name, expected):
    assert _docs.anchor(dataclasses.replace(FAKE, code=code, name=name)) == expected


def test_check_and_write(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(_docs, "generate", _page)  # the page once: this test is about --check and --write
    path = tmp_path / "rules.md"
    assert _docs.main(["--check", "--path", str(path)]) == 1  # missing counts as stale
    path.write_text("# old\n", encoding="utf-8")
    assert _docs.main(["--check", "--path", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "-# old" in out and "is stale" in err
    assert _docs.main(["--write", "--path", str(path)]) == 0
    assert path.read_text(encoding="utf-8") == _docs.generate()
    assert _docs.main(["--check", "--path", str(path)]) == 0


def test_check_or_write_is_required(capsys):
    with pytest.raises(SystemExit) as e:
        _docs.main([])
    assert e.value.code == 2


def test_docs_reference_every_registered_code_once():
    text = RULES_MD.read_text(encoding="utf-8")
    headings = re.findall(r"^## (\S+) ", text, flags=re.M)
    assert headings == [r.code for r in _docs.registry()]
