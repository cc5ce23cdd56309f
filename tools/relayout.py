"""Move fxtlint's flat private modules into layer subpackages (issue 15, item 1).

Run at a checkout's root, on a clean work tree or not:

    python tools/relayout.py            # apply: git mv + rewrite imports and paths
    python tools/relayout.py --dry-run  # print the plan, change nothing

Deterministic and idempotent: a second run finds nothing to move and nothing to
rewrite and says so. It refuses to change anything (exit 1) when ``fxtlint/`` holds a
flat module that ``MOVES`` does not map: add it to the table and run it again.

What it does, in order:
1. creates the layer subpackages with an ``__init__.py`` docstring (``LAYERS``);
2. rewrites, in every tracked or new text file, each reference to a moved module:
   intra-package imports as relative imports right for the file's new place
   (``from ..engine._reader import x``), absolute ones (``from fxtlint._x import``,
   ``import fxtlint._x``, ``"fxtlint._x.attr"``, ``python -m fxtlint._x``) and paths
   (``fxtlint/_x.py``, ``fxtlint/_kernel.c``) to the new names;
3. ``git mv``s each module; a moved module one folder deeper that finds the checkout
   with ``Path(__file__).resolve().parent.parent`` gets ``parents[2]``.

Code changes that are not renames (merging ``_pairing_vec`` into ``_pairing``,
``_version``, ``_build``, the table facts under ``_roles``, ``fuzz/seeds.py``) are the
commit before the one that added this script: cherry-pick it first.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

PKG = "fxtlint"

# layer subpackage -> the docstring of its __init__.py (bottom layer first)
LAYERS = {
    "spec": "What the spec says, loaded from spec-tables/: the strict table loader, the\n"
            "roles derived from it, the record model, the encoder, the builders, the limits,\n"
            "the errors and the tool's version. Imports nothing else of fxtlint.",
    "rules": None,  # exists: the rule registry keeps its own docstring
    "engine": "Reading and linting a buffer: framing and the recovering reader, the column\n"
              "screen and the native kernel, lookups, provider state, semantics and pairing,\n"
              "the walk every verb shares, the lint entry points and their result, the\n"
              "parallel runner, hex excerpts and JSON text helpers. Reports through the\n"
              "rules' ``Rule.at``; imports spec and rules only.",
    "writer_report": "The writer's conformance report: which record kinds and rules a trace\n"
                     "exercised (coverage, rule scope) and the expectations it is held to.",
    "export": "Export of a linted trace to other formats (Trace Event Format JSON).",
    "reader_suite": "Grading readers: the canonical decoding, the spec's verdict for each\n"
                    "malformed case, and the runner that plays the suite against a reader.",
    "render": "Everything that turns results into text: terminal, JSON, JSON Lines, SARIF,\n"
              "GitHub and JUnit output, the writer report's Markdown and HTML, the reader\n"
              "matrix, rule docs.",
    "cli": None,  # exists: the command line keeps its own docstring
}

# flat module (fxtlint/<name>.py, or .c for the kernel) -> its new dotted place under fxtlint
MOVES = {
    # spec
    "_errors": "spec._errors",
    "_tables": "spec._tables",
    "_roles": "spec._roles",
    "_model": "spec._model",
    "_encoder": "spec._encoder",
    "_build": "spec._build",
    "_limits": "spec._limits",
    "_version": "spec._version",
    # rules
    "_diagnostics": "rules._diagnostics",
    "_selection": "rules._selection",
    "_mutations": "rules._mutations",
    "_rule_scope": "rules._rule_scope",
    # engine
    "_reader": "engine._reader",
    "_columns": "engine._columns",
    "_scan": "engine._scan",
    "_lookups": "engine._lookups",
    "_provider_state": "engine._provider_state",
    "_semantic": "engine._semantic",
    "_pairing": "engine._pairing",
    "_walk": "engine._walk",
    "_fast": "engine._fast",
    "_lint": "engine._lint",
    "_report": "engine._result",  # the lint result (FileReport, DiagnosticSink)
    "_parallel": "engine._parallel",
    "_hexview": "engine._hexview",  # byte windows as text: renderers, the writer report and -j excerpts
    "_jsontext": "engine._jsontext",  # shared by export and the canonical decoding
    "_kernel": "engine._kernel",
    "_kernel_program": "engine._kernel_program",
    "_kernel_screen": "engine._kernel_screen",
    "_native": "engine._native",
    "_walk_batches": "engine._walk_batches",  # merge-kernel: walks that show the kernel's batches
    "_stream_buffer": "engine._stream_buffer",  # issue 18: a stream's bytes at their offsets
    "_feeder": "engine._feeder",  # issue 18: the walk driven window by window
    "_stream_lint": "engine._stream_lint",  # issue 18: the incremental reader and linter
    "_kind_checks": "engine._kind_checks",  # issue 15: per-kind predicates both engines evaluate
    # consumers, side by side
    "_coverage": "writer_report._coverage",
    "_expect": "writer_report._expect",
    "_conformance_report": "writer_report._conformance_report",
    "_export_tef": "export._export_tef",
    "_canonical": "reader_suite._canonical",
    "_reader_verdicts": "reader_suite._reader_verdicts",
    "_conformance": "reader_suite._runner",  # plays the suite against a reader
    # render
    "_render_rich": "render._render_rich",
    "_render_json": "render._render_json",
    "_render_jsonl": "render._render_jsonl",
    "_render_sarif": "render._render_sarif",
    "_render_github": "render._render_github",
    "_render_junit": "render._render_junit",
    "_report_markdown": "render._report_markdown",
    "_report_html": "render._report_html",
    "_report_words": "render._report_words",
    "_conformance_render": "render._reader_matrix",
    "_docs": "render._docs",
    # the CLI's own
    "_config": "cli._config",
    "_baseline": "cli._baseline",
}

FACES = {"__init__", "__main__", "build", "strategies", "testing"}  # stay flat: the public API
SUFFIXES = (".py", ".c")
SKIP_FILES = {"tools/relayout.py", "tests/test_relayout.py"}  # they spell the old names on purpose
# literal rewrites the module-name rules cannot see (globs over the old flat names)
TEXT_FIXES = {
    '"*/fxtlint/_render_*"': '"*/fxtlint/render/_render_*"',
    "fxtlint/*.so": "fxtlint/engine/*.so",  # the kernel built in place (.gitignore)
    # _native: a failed `from . import _kernel` names the package the kernel is missing from
    '("fxtlint", "fxtlint.engine._kernel")': '("fxtlint.engine", "fxtlint.engine._kernel")',
}
PARENT_PARENT = re.compile(r"(__file__\)\.resolve\(\))\.parent\.parent(?![.\w\[])")


def full(name: str) -> str:
    return f"{PKG}.{name}"


OLD_TO_NEW = {full(old): full(new) for old, new in MOVES.items()}


def new_module(mod: str) -> str:
    """``mod``'s name after the moves (itself when it does not move)."""
    for old, new in OLD_TO_NEW.items():
        if mod == old or mod.startswith(old + "."):
            return new + mod[len(old):]
    return mod


def git(*args: str) -> str:
    return subprocess.run(["git", *args], check=True, capture_output=True, text=True).stdout


def flat_modules(root: Path) -> dict[str, Path]:
    """Flat private modules of the package today: name -> file."""
    found = {}
    for p in sorted((root / PKG).iterdir()):
        if p.is_file() and p.suffix in SUFFIXES and p.stem not in FACES:
            found.setdefault(p.stem, p)
    return found


def module_of(rel: Path) -> tuple[str, str]:
    """(module, package) of a .py file's path relative to the root."""
    parts = list(rel.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


def relative(from_pkg: str, target: str) -> str:
    """``target`` as the module part of a relative import written in ``from_pkg``."""
    a, b = from_pkg.split("."), target.split(".")
    common = 0
    while common < min(len(a), len(b)) and a[common] == b[common]:
        common += 1
    return "." * (len(a) - common + 1) + ".".join(b[common:])


def import_text(module: str, names: list[ast.alias]) -> str:
    return f"from {module} import " + ", ".join(n.name + (f" as {n.asname}" if n.asname else "") for n in names)


def rewrite_imports(text: str, rel: Path, dest_pkg: str | None) -> str:
    """Imports of moved modules in one Python file, for the file's place after the moves.

    ``dest_pkg``: the package the file will be in when it belongs to fxtlint (its
    imports are then written relative), else None (absolute imports)."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    _, pkg = module_of(rel)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom):
            continue
        if node.level:
            base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
            target = ".".join(base + ([node.module] if node.module else []))
        elif node.module and (node.module == PKG or node.module.startswith(PKG + ".")):
            target = node.module
        else:
            continue
        if target != PKG and not target.startswith(PKG + "."):
            continue
        # group the imported names by the module they come from after the moves: a name
        # that is itself a moved module (``from . import _reader``) goes with its new parent
        groups: dict[str, list[ast.alias]] = {}
        names_moved = False
        for alias in node.names:
            sub = f"{target}.{alias.name}"
            if sub in OLD_TO_NEW:  # the name is a moved module, not an attribute
                sub = OLD_TO_NEW[sub]
                names_moved = True
                parent, leaf = sub.rsplit(".", 1)
                asname = alias.asname or (alias.name if leaf != alias.name else None)
                groups.setdefault(parent, []).append(ast.alias(name=leaf, asname=asname))
            else:
                groups.setdefault(new_module(target), []).append(alias)
        # relative inside the package (as the package writes them), absolute elsewhere
        written = [(relative(dest_pkg, mod) if dest_pkg is not None and node.level else mod, names)
                   for mod, names in groups.items()]
        spelled_now = "." * node.level + (node.module or "")
        if not names_moved and written[0][0] == spelled_now:
            continue
        start = offsets[node.lineno - 1] + node.col_offset
        end = offsets[node.end_lineno - 1] + node.end_col_offset
        old = text[start:end]
        if not names_moved:
            # only the module moved: keep the statement's own layout of names
            new = re.sub(r"^from\s+\S+\s+import", f"from {written[0][0]} import", old, count=1)
        else:
            indent = " " * node.col_offset
            new = ("\n" + indent).join(import_text(m, n) for m, n in written)
        edits.append((start, end, new))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


# every moved module's name in one alternation, longest first: one pass over a text per
# form (dotted, path) instead of one per module (a generated C++ file is megabytes)
_OLD = "|".join(re.escape(m) for m in sorted(MOVES, key=len, reverse=True))
_DOTTED = re.compile(rf"(?<![\w.]){PKG}\.({_OLD})(?![\w])")
_PATH = re.compile(rf"(?<![\w]){PKG}/({_OLD})(?![\w])")


def rewrite_names(text: str) -> str:
    """Dotted module names and paths of moved modules, in any text."""
    if PKG in text:
        text = _DOTTED.sub(lambda m: f"{PKG}.{MOVES[m.group(1)]}", text)
        text = _PATH.sub(lambda m: f"{PKG}/{MOVES[m.group(1)].replace('.', '/')}", text)
    for old, new in TEXT_FIXES.items():
        text = text.replace(old, new)
    return text


def text_files(root: Path) -> list[Path]:
    listed = git("ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    out = []
    for name in sorted(set(filter(None, listed))):
        p = root / name
        if name in SKIP_FILES or not p.is_file() or p.is_symlink():
            continue
        data = p.read_bytes()
        if b"\0" in data:
            continue
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append(Path(name))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    args = ap.parse_args(argv)
    root = Path.cwd()
    if not (root / PKG / "__init__.py").is_file():
        print(f"relayout: run me at a checkout's root ({PKG}/__init__.py not found)", file=sys.stderr)
        return 2

    flat = flat_modules(root)
    unknown = sorted(n for n in flat if n not in MOVES)
    if unknown:
        print("relayout: UNMAPPED FLAT MODULES, nothing was changed:", file=sys.stderr)
        for n in unknown:
            print(f"relayout:   {flat[n].relative_to(root)}  -> add it to MOVES in tools/relayout.py",
                  file=sys.stderr)
        return 1

    # file moves: old path -> new path (every suffix a module has: _kernel.c, or .py)
    moves: dict[Path, Path] = {}
    for name in sorted(flat):
        dest = Path(PKG, *MOVES[name].split("."))
        for suffix in SUFFIXES:
            src = Path(PKG, name + suffix)
            if (root / src).exists():
                moves[src] = dest.with_suffix(suffix)
    missing = sorted(n for n in MOVES if n not in flat and not any(
        (root / PKG / Path(*MOVES[n].split("."))).with_suffix(s).exists() for s in SUFFIXES))

    creates = [Path(PKG, layer, "__init__.py") for layer, doc in LAYERS.items()
               if doc is not None and not (root / PKG / layer / "__init__.py").exists()]

    rewrites: dict[Path, str] = {}
    for rel in text_files(root):
        text = (root / rel).read_text("utf-8")
        new = text
        if rel.suffix == ".py":
            inside = rel.parts[0] == PKG
            dest = moves.get(rel, rel)
            dest_pkg = module_of(dest)[1] if inside else None
            new = rewrite_imports(new, rel, dest_pkg)
            if rel in moves and len(dest.parts) > len(rel.parts):
                new = PARENT_PARENT.sub(r"\1.parents[2]", new)
        new = rewrite_names(new)
        if new != text:
            rewrites[rel] = new

    for c in creates:
        print(f"create   {c}")
    for src, dst in moves.items():
        print(f"move     {src} -> {dst}")
    for rel in rewrites:
        print(f"rewrite  {rel}")
    for n in missing:
        print(f"skip     {PKG}/{n}.*: not on this branch")
    if not (creates or moves or rewrites):
        print("relayout: nothing to do (already laid out)")
        return 0
    if args.dry_run:
        return 0

    for c in creates:
        (root / c).parent.mkdir(parents=True, exist_ok=True)
        doc = LAYERS[c.parent.name]
        (root / c).write_text(f'"""{doc}\n"""\n')
    for rel, text in rewrites.items():
        (root / rel).write_text(text, "utf-8")
    for src, dst in moves.items():
        git("mv", str(src), str(dst))
    for c in creates:
        git("add", str(c))
    for so in sorted((root / PKG).glob("_*.so")) + sorted((root / PKG).glob("_*.pyd")):
        print(f"relayout: STALE BUILD PRODUCT {so.relative_to(root)}: delete it and rebuild the kernel "
              f"(pip install -e .); it is not loaded from its old place", file=sys.stderr)
    print(f"relayout: {len(creates)} packages created, {len(moves)} files moved, {len(rewrites)} files rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
