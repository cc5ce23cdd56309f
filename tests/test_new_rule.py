"""Adding a rule touches its declaration, its check and its golden case, nothing else.

The test adds a rule to a copy of the package (a warning for a kernel object of type
none, reported by a per-kind check) and holds every registry that reads the rules to
it: registered and exported by name, scoped, mutated, given a reader verdict, reported
the same by both engines, with a golden case written by ``tests/golden.py``. A list
of codes kept by hand anywhere else would leave the new rule out and fail here.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

DECLARATION = '''kernel_object_type_none = Rule(
    code="EV904",
    name="kernel-object-type-none",
    severity=W,
    scope=("kind:kernel_object",),
    reader_reason="well-formed",
    mutation=M.append(B.kernel_object(1, 0, 1)),
    message="kernel object {koid} has object type 0 (none)",
    params=("koid",),
    what="A Kernel Object record whose object type is ZX_OBJ_TYPE_NONE (0).",
    why="The record names an object but not its kind.",
    bad=Example("a kernel object of type none", lambda: X.preamble(B.kernel_object(7, 0, "obj"))),
    good=Example("a kernel object of type process", lambda: X.preamble(B.kernel_object(7, 1, "obj"))),
    spec="Kernel Object Record: object type",
)

'''

CHECK = '''    if name == "kernel_object":
        out.append(KindCheck("equal", "object_type", 0, R.kernel_object_type_none, lambda f: {"koid": f["koid"]}))
'''

# what the copy must say about the new rule once it is declared and checked
PROBE = '''
import fxtlint
from fxtlint import build as B, rules
from fxtlint.rules._mutations import MUTATIONS
from fxtlint.reader_suite._reader_verdicts import RULES
from fxtlint.rules._rule_scope import SCOPES

rule = rules.get("EV904")
assert rule is rules.kernel_object_type_none and "kernel_object_type_none" in rules.__all__
assert SCOPES["EV904"] == ("kind:kernel_object",) and RULES["EV904"] == "well-formed"
for engine in ("fast", "reference"):
    assert fxtlint.lint_bytes(rule.bad.build(), engine=engine).counts == {"EV904": 1}, engine
    assert fxtlint.lint_bytes(rule.good.build(), engine=engine).counts == {}, engine
recs = [B.magic(), B.string(1, "a"), B.thread(1, 2, 3)]
mutated = dict(MUTATIONS)["EV904"](recs, None)
assert fxtlint.lint_bytes(mutated).counts == {"EV904": 1}
print("ok")
'''

COPIED = ("fxtlint", "spec-tables", "corpus/golden", "tests/golden.py", "tests/writer_traces.py")


def _digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def _insert(path: Path, before: str, text: str) -> None:
    source = path.read_text("utf-8")
    assert source.count(before) == 1, before
    path.write_text(source.replace(before, text + before), "utf-8")


def test_a_new_rule_is_its_declaration_its_check_and_its_golden_case(tmp_path):
    for part in COPIED:
        src, dst = REPO / part, tmp_path / part
        if src.is_dir():
            shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            dst.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dst)
    before = _digests(tmp_path)

    _insert(tmp_path / "fxtlint/rules/semantic.py", "records_dropped = Rule(\n", DECLARATION)
    _insert(tmp_path / "fxtlint/engine/_kind_checks.py", "    return tuple(out)\n", CHECK)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    run = {"cwd": tmp_path, "env": env, "capture_output": True, "text": True, "timeout": 600, "check": False}
    written = subprocess.run([sys.executable, "tests/golden.py", "--rewrite"], **run)
    assert written.returncode == 0, written.stderr

    after = _digests(tmp_path)
    touched = sorted(p for p in after if before.get(p) != after[p])
    assert touched == [
        "corpus/golden/EV904-kernel-object-type-none.fxt",
        "corpus/golden/EV904-kernel-object-type-none.fxt.report.json",
        "fxtlint/engine/_kind_checks.py",
        "fxtlint/rules/semantic.py",
    ]
    probe = subprocess.run([sys.executable, "-c", PROBE], **run)
    assert probe.returncode == 0 and probe.stdout.strip() == "ok", probe.stderr
