"""What a campaign starts from, shared by the local campaign (campaign.py) and the
service's build (build_seeds.py): the seed traces and the FXT dictionary."""

from __future__ import annotations

from pathlib import Path

from . import MAX_LEN, REPO

SEEDS = (REPO / "corpus" / "seeds", REPO / "corpus" / "golden")
SEED_SUFFIXES = (".fxt", ".log")
DICT = "fxt.dict"  # the dictionary's file name beside a campaign's corpus


def seed_files(extra=(), *, max_len: int | None = MAX_LEN) -> list[Path]:
    """The repository's seed traces and golden examples (FXT and log files only), plus ``extra``
    files or directories; none longer than ``max_len`` (libFuzzer would only read its first
    ``max_len`` bytes, and a megabyte input under instrumentation outlasts a timeout)."""
    out = []
    for d in (*SEEDS, *map(Path, extra)):
        files = [d] if d.is_file() else sorted(d.iterdir()) if d.is_dir() else []
        out += [f for f in files if f.is_file() and (f.suffix in SEED_SUFFIXES or d in map(Path, extra))
                and (max_len is None or f.stat().st_size <= max_len)]
    return out


def dictionary_tokens() -> list[bytes]:
    """FXT tokens from the spec tables: the magic record both ways, every record kind's and
    argument type's header word (size 1, selectors set), and inline string ref lengths."""
    import fxtlint
    from fxtlint import Argument, Record

    T = fxtlint.tables()
    toks = [T.magic_word.to_bytes(8, "little"), T.magic_word.to_bytes(8, "big")]
    for leaf in T.record_leaves():
        try:
            toks.append(fxtlint.encode_record(Record(leaf.type, leaf.name, {}))[:8])
        except (fxtlint.EncodeError, ValueError, KeyError):
            continue
    for a in T.arguments.values():
        toks.append(fxtlint.encode_argument(Argument(a.type, a.name, {}))[:8])
    toks += [(T.string_inline_bit | n).to_bytes(2, "little") for n in (1, 3, 8, 0x7FFF)]
    toks.append(bytes(8))  # a zero word: reserved fields and padding
    return list(dict.fromkeys(toks))


def write_dictionary(path: Path) -> Path:
    lines = [f'fxt_{i}="' + "".join(f"\\x{b:02x}" for b in tok) + '"' for i, tok in enumerate(dictionary_tokens())]
    Path(path).write_text("# FXT tokens from fxtlint's spec tables (fuzz/seeds.py)\n" + "\n".join(lines) + "\n")
    return Path(path)
