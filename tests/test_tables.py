"""The spec tables cover every type the spec names: the spec's own text is the oracle."""

from __future__ import annotations

import re

import pytest

from conftest import SPEC_DIR
from fxtlint import tables
from fxtlint.spec._tables import Field

T = tables()

# The current revision (Chinese) names every type as "<kind> = N"; v1 (English) as "(<kind> type = N)".
ZH_KINDS = {
    "记录类型": "record",
    "实参类型": "argument",
    "事件类型": "event",
    "活动类型": "event",
    "元数据类型": "metadata",
    "轨迹信息类型": "trace_info",
    "调度事件记录类型": "scheduling",
    "上下文切换记录类型": "scheduling",
    "大型类型": "large",
    "Blob 格式": "blob_format",
}
EN_KINDS = {
    "record type": "record",
    "argument type": "argument",
    "event type": "event",
    "metadata type": "metadata",
    "trace info type": "trace_info",
    "large type": "large",
    "blob format": "blob_format",
}


def spec_types() -> dict[str, set[int]]:
    assert SPEC_DIR.is_dir(), f"spec copies missing at {SPEC_DIR}"
    found: dict[str, set[int]] = {}
    zh = (SPEC_DIR / "trace-format.current.zh.txt").read_text("utf-8")
    for word, kind in ZH_KINDS.items():
        for m in re.finditer(re.escape(word) + r" = (\d+)", zh):
            found.setdefault(kind, set()).add(int(m.group(1)))
    en = (SPEC_DIR / "trace-format.v1.en.md").read_text("utf-8")
    for word, kind in EN_KINDS.items():
        for m in re.finditer(r"\b" + re.escape(word) + r" = (\d+)", en):
            found.setdefault(kind, set()).add(int(m.group(1)))
    return found


def table_types() -> dict[str, set[int]]:
    rec = T.records
    by_name = {lay.name: lay for lay in rec.values()}
    return {
        "record": set(rec),
        "argument": set(T.arguments),
        "event": set(by_name["event"].variants),
        "metadata": set(by_name["metadata"].variants),
        "trace_info": set(by_name["metadata"].variants[4].variants),
        "scheduling": set(by_name["scheduling"].variants),
        "large": set(by_name["large"].variants),
        "blob_format": set(by_name["large"].variants[0].variants),
    }


def test_spec_text_names_types_of_every_kind():
    found = spec_types()
    assert set(found) == set(table_types()), "the spec scan found no types of some kind"


@pytest.mark.parametrize("kind", sorted(set(EN_KINDS.values()) | set(ZH_KINDS.values())))
def test_tables_cover_every_type_the_spec_names(kind):
    assert spec_types()[kind] <= table_types()[kind]


def test_tables_define_no_type_the_spec_does_not_name():
    found = spec_types()
    for kind, values in table_types().items():
        assert values <= found[kind], kind


def test_undefined_record_and_argument_types_are_the_rest():
    assert set(T.undefined_record_types) | set(T.records) == set(range(16))
    assert set(T.undefined_argument_types) | set(T.arguments) == set(range(16))


def test_enumerations_hold_what_the_spec_lists():
    assert SPEC_DIR.is_dir(), f"spec copies missing at {SPEC_DIR}"
    zh = (SPEC_DIR / "trace-format.current.zh.txt").read_text("utf-8")
    blob = {int(v, 16) for v in re.findall(r"TRACE_BLOB_TYPE_\w+\s*=\s*(0x[0-9a-f]+)", zh)}
    blob |= {int(v, 16) for v in re.findall(r"TRACE_BLOB_TYPE_PERFETTO =\s*(0x[0-9a-f]+)", zh)}
    assert blob == set(T.enums["blob_type"]) == {1, 2, 3}
    assert T.enums["thread_state"] == {0: "new", 1: "running", 2: "suspended", 3: "blocked", 4: "dying", 5: "dead"}
    readme = (SPEC_DIR / "README.md").read_text("utf-8")
    sev = {int(v, 16) for v in re.findall(r"(?:TRACE|DEBUG|INFO|WARN|ERROR|FATAL) (0x[0-9A-Fa-f]+)", readme)}
    assert sev == set(T.enums["severity"])


def _word_fields(layout):
    yield "header", [f for f in layout.full_fields]
    for it in layout.full_body:
        if it.fields:
            yield it.name, list(it.fields)


@pytest.mark.parametrize("leaf", list(T.record_leaves()) + list(T.arguments.values()) + [T.log_record],
                         ids=lambda lay: lay.name)
def test_every_bit_of_every_header_word_is_described_exactly_once(leaf):
    """A field map with a gap or an overlap is a transcription error."""
    for word, flds in _word_fields(leaf):
        bits = [0] * 64
        for f in flds:
            for b in range(f.lo, f.hi + 1):
                bits[b] += 1
        assert max(bits) == 1, f"{leaf.name} {word}: overlapping fields"
        assert min(bits) == 1, f"{leaf.name} {word}: bits {[i for i, c in enumerate(bits) if not c]} undescribed"


def test_field_get_and_put_round_trip_signed_values():
    f = Field("v", 32, 63, signed=True)
    assert f.get(f.put(-5)) == -5
    assert f.get(f.put(7)) == 7


def test_structured_log_limit_is_implied_by_the_size_field():
    """A 12-bit size caps a record at 32,760 bytes: the 32 KiB limit needs no rule of its own."""
    size = next(f for f in T.log_record.full_fields if f.role == "size")
    assert 8 * size.mask <= T.log_max_record_bytes


def test_installed_package_ships_the_tables():
    """A wheel carries spec-tables inside the package; CI tests such an install."""
    import os
    from pathlib import Path

    import fxtlint
    from fxtlint.spec._tables import _tables_dir

    pkg = Path(fxtlint.__file__).resolve().parent
    repo = Path(__file__).resolve().parent.parent
    installed = pkg != repo / "fxtlint"
    if os.environ.get("FXTLINT_EXPECT_INSTALLED") == "1":
        assert installed, f"tests ran against the source tree at {pkg}, not an installed package"
    if installed:
        assert _tables_dir().resolve() == pkg / "spec_tables"
        assert (_tables_dir() / "records.toml").is_file()


# -- the loader is strict: a typo must not silently turn a check off ----------------------
def _files_with(mutate):
    import copy
    import tomllib

    from fxtlint.spec._tables import _tables_dir

    files = {}
    for name in ("records.toml", "arguments.toml", "enums.toml", "structured-log.toml"):
        with open(_tables_dir() / name, "rb") as fh:
            files[name] = tomllib.load(fh)
    files = copy.deepcopy(files)
    mutate(files)
    return files


def _string_record(files):
    return next(r for r in files["records.toml"]["record"] if r["name"] == "string")


BROKEN_TABLES = [
    ("misspelt field key", lambda f: _string_record(f)["fields"][-1].update(reserverd=True), "reserverd"),
    ("misspelt layout key", lambda f: _string_record(f).update(extensibel=False), "extensibel"),
    ("unknown body item kind", lambda f: _string_record(f)["body"].append({"wordz": "x"}), "exactly one kind"),
    ("unknown item key", lambda f: _string_record(f)["body"][0].update(lenght="x"), "lenght"),
    ("unknown role", lambda f: _string_record(f)["fields"][0].update(role="string_idx"), "string_idx"),
    ("checked field without its rule", lambda f: _string_record(f)["fields"][-1].pop("rule"), "must name its rule"),
    ("unknown pairing role", lambda f: next(v for r in f["records.toml"]["record"] for v in r.get("variant", ())
                                            if v["name"] == "duration_begin").update(pairing="start"), "start"),
    ("unknown enumeration", lambda f: next(r for r in f["records.toml"]["record"] if r["name"] == "blob")
     ["fields"][3].update(enum="blob_kinds"), "blob_kinds"),
    ("unknown top-level key", lambda f: f["records.toml"].update(max_strings=3), "max_strings"),
    ("unknown effect", lambda f: _string_record(f).update(effect="registers_strings"), "registers_strings"),
    ("effect on a layout with variants",
     lambda f: next(r for r in f["records.toml"]["record"] if r["name"] == "event").update(effect="sets_tick_rate"),
     "leaf layout"),
    ("event group not listed", lambda f: next(v for r in f["records.toml"]["record"] for v in r.get("variant", ())
                                              if v["name"] == "instant").update(group="points"), "points"),
    ("listed event group no event names", lambda f: f["records.toml"]["event_groups"].append("samples"), "samples"),
]


@pytest.mark.parametrize("mutate,needle", [(m, n) for _, m, n in BROKEN_TABLES], ids=[c for c, _, _ in BROKEN_TABLES])
def test_loader_rejects_what_the_layout_language_does_not_define(mutate, needle):
    from fxtlint.spec._tables import TableError, build_tables

    with pytest.raises(TableError, match=needle):
        build_tables(_files_with(mutate))


def test_loader_accepts_the_shipped_tables():
    from fxtlint.spec._tables import build_tables

    t = build_tables(_files_with(lambda f: None))
    assert len(list(t.record_leaves())) == len(list(T.record_leaves()))


def test_reserverd_typo_in_a_toml_file_fails_to_load(tmp_path):
    import tomllib

    from fxtlint.spec._tables import TableError, _field

    doc = tomllib.loads('f = { name = "reserved", bits = [48, 63], reserverd = true }')
    with pytest.raises(TableError, match="reserverd"):
        _field(doc["f"])


def test_every_body_item_class_needs_a_handler():
    from fxtlint.spec._tables import ITEM_CLASSES, TableError, WordItem, check_dispatch

    with pytest.raises(TableError, match="no handler"):
        check_dispatch({c: None for c in ITEM_CLASSES if c is not WordItem}, "a reader")
    assert len(check_dispatch({c: None for c in ITEM_CLASSES}, "a reader")) == len(ITEM_CLASSES)


def test_every_checked_field_names_a_registered_rule():
    from fxtlint.rules import REGISTRY

    for lay in [*T.record_leaves(), *T.arguments.values(), T.log_record]:
        for f in lay.all_fields():
            assert f.checked == (f.rule is not None), (lay.name, f.name)
            for code in (f.rule, f.rule_between):
                assert code is None or code in REGISTRY, (lay.name, f.name, code)


# The lint of a few traces by the fxtlint on PYTHONPATH (a copy whose tables were edited):
# the reference engine, so that no native walk compiled for other tables is loaded (the
# copy holds none)
_LINT_SCRIPT = """
import json
import fxtlint
from fxtlint import build as B
from fxtlint.rules import _ex as X

traces = {
    "begin, end": X.preamble(B.event("duration_begin", 1), B.event("duration_end", 2)),
    "async begin, end": X.preamble(B.event("async_begin", 1, id=7), B.event("async_end", 2, id=7)),
    "instant with a string": X.preamble(B.event("instant", 1, args=[B.arg("string", 1, "s")])),
    "counter with a double": X.preamble(B.event("counter", 1, id=1, args=[B.arg("double", 1, 0.5)])),
}
print(json.dumps({name: sorted(fxtlint.lint_bytes(data, engine="reference").counts)
                  for name, data in traces.items()}))
"""


def _lint_with_tables(tmp_path, edits=()) -> dict:
    """What ``_LINT_SCRIPT`` reports (rule codes per trace) with a copy of the package
    whose tables ``edits`` changed: (table file, old text, new text), each old text once."""
    import json
    import os
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    import fxtlint
    from fxtlint.spec._tables import _tables_dir

    pkg, tables_dir = Path(fxtlint.__file__).resolve().parent, _tables_dir().resolve()
    shutil.copytree(pkg, tmp_path / "fxtlint", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    if tables_dir.is_relative_to(pkg):  # an installed package carries its tables
        copy = tmp_path / "fxtlint" / tables_dir.relative_to(pkg)
    else:  # a checkout: the tables beside the package
        copy = tmp_path / tables_dir.name
        shutil.copytree(tables_dir, copy)
    for fname, old, new in edits:
        text = (copy / fname).read_text("utf-8")
        assert text.count(old) == 1, (fname, old)
        (copy / fname).write_text(text.replace(old, new), "utf-8")
    env = dict(os.environ, PYTHONPATH=str(tmp_path), FXTLINT_ENGINE="reference")
    proc = subprocess.run([sys.executable, "-c", _LINT_SCRIPT], cwd=tmp_path, env=env, check=False,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_spec_facts_are_table_roles_the_code_follows(tmp_path):
    """Pairing roles, numeric argument types and the events whose arguments must be
    numeric come from the tables: edited in a copy, both engines follow the copy."""
    assert _lint_with_tables(tmp_path / "as-is") == {
        "begin, end": [], "async begin, end": [], "instant with a string": [], "counter with a double": []}
    edited = _lint_with_tables(tmp_path / "edited", [
        # begin and end swapped: the trace now ends before it begins, and stays open
        ("records.toml", 'group = "durations"\n  pairing = "begin"', 'group = "durations"\n  pairing = "end"'),
        ("records.toml", 'name = "duration_end"\n  group = "durations"\n  pairing = "end"',
         'name = "duration_end"\n  group = "durations"\n  pairing = "begin"'),
        # an async end that is an instant: the operation stays open
        ("records.toml", 'group = "async"\n  pairing = "async_end"', 'group = "async"\n  pairing = "async_instant"'),
        # instants must carry numbers; a double is no longer one
        ("records.toml", 'name = "instant"\n', 'name = "instant"\n  numeric_args = true\n'),
        ("arguments.toml", 'name = "double"\nnumeric = true\n', 'name = "double"\n'),
    ])
    assert edited == {"begin, end": ["PR001", "PR004"], "async begin, end": ["PR004"],
                      "instant with a string": ["EV001"], "counter with a double": ["EV001"]}


# -- the look-ups code reads the tables through -------------------------------------------
def test_header_field_by_role_is_the_one_field_with_that_role():
    from fxtlint.spec._tables import TableError, by_role

    t = tables()
    assert t.field(role="size") == next(f for f in t.header if f.name == "size")
    assert t.field(role="string_ref", of="argument").name == "name"
    with pytest.raises(TableError, match="0 fields have role 'string_ref'"):
        t.field(role="string_ref")
    with pytest.raises(TableError, match="no 'blob' header"):
        t.field(role="size", of="blob")
    twice = (Field("a", 0, 3, role="type"), Field("b", 4, 7, role="type"))
    with pytest.raises(TableError, match="2 fields have role 'type'"):
        by_role(twice, "type", "test")


def test_leaf_and_layout_field_by_name_or_role():
    from fxtlint.spec._tables import TableError

    t = tables()
    string = t.leaf("string")
    assert string.type == 2 and string.name == "string"
    assert string.field(role="string_index") is string.field("index")
    assert t.leaf("event.instant").field(role="type") is t.field(role="type")
    assert t.root("event").variants[0] is t.leaf("event.instant")
    assert t.argument("int64").type == 3
    for bad in (lambda: t.leaf("event"), lambda: t.leaf("strin"), lambda: t.root("evnt"), lambda: t.argument("int"),
                lambda: string.field(role="thread_ref")):
        with pytest.raises(TableError):
            bad()


def test_a_fields_values_are_its_constant_its_enumeration_or_its_range():
    from fxtlint.spec._tables import TableError

    t = tables()
    magic = t.leaf("metadata.trace_info.magic").field("magic")
    assert t.values(magic) == (0x16547846,)
    with pytest.raises(TableError, match="too many values"):
        t.undefined_values(magic)
    sl_type = t.log_record.field(role="type")
    assert t.undefined_values(sl_type) == tuple(v for v in range(16) if v != 9)
    blob_type = t.leaf("blob").field("blob_type")
    assert t.values(blob_type) == (1, 2, 3)
    assert t.undefined_values(blob_type) == (0, *range(4, 256))
    index = t.leaf("thread").field("index")
    assert t.values(index) == range(256) and t.undefined_values(index) == ()
    assert t.values(t.log_record.field("severity")) == (0x10, 0x20, 0x30, 0x40, 0x50, 0x60)


def test_event_groups_name_every_grouped_event_once_in_the_listed_order():
    t = tables()
    assert list(t.event_groups) == ["durations", "async", "flows", "counters", "instants"]
    grouped = [k for kinds in t.event_groups.values() for k in kinds]
    assert sorted(grouped) == sorted(lf.name for lf in t.root("event").leaves())


def test_an_enumeration_value_by_name_and_a_miss():
    from fxtlint.spec._tables import TableError

    t = tables()
    assert t.enums["thread_state"][t.value_of("thread_state", "running")] == "running"
    for enum, name in (("thread_state", "sprinting"), ("no_such_enum", "running")):
        with pytest.raises(TableError, match="has no value named"):
            t.value_of(enum, name)


# -- the parsed tables' cache (``parsed_tables``): used only for the bytes it was parsed from --
def _parsed_by_tomllib(directory) -> dict:
    import tomllib

    from fxtlint.spec._tables import TABLE_FILES

    return {name: tomllib.loads((directory / name).read_text("utf-8")) for name in TABLE_FILES}


@pytest.fixture
def table_copy(tmp_path):
    """A copy of the table files and a cache path of its own."""
    import shutil

    from fxtlint.spec._tables import TABLE_FILES, _tables_dir

    tables_dir = tmp_path / "tables"
    tables_dir.mkdir()
    for name in TABLE_FILES:
        shutil.copy(_tables_dir() / name, tables_dir / name)
    return tables_dir, str(tmp_path / "cache" / "tables.marshal")


def _no_toml(monkeypatch):
    """Parsing TOML now fails: what is returned comes from the cache."""
    import tomllib

    def refuse(*a, **k):
        raise AssertionError("parsed the TOML: the cache was not used")

    monkeypatch.setattr(tomllib, "loads", refuse)


def test_the_cache_is_written_on_first_use_and_read_after(table_copy, monkeypatch):
    import os

    from fxtlint.spec._tables import parsed_tables

    tables_dir, cache = table_copy
    first = parsed_tables(tables_dir, cache)
    assert first == _parsed_by_tomllib(tables_dir)
    assert os.path.isfile(cache)
    _no_toml(monkeypatch)
    assert parsed_tables(tables_dir, cache) == first


def test_the_cache_is_not_used_once_a_table_file_changed(table_copy, monkeypatch):
    """An edit of one table file (same length, one value) is seen at once; the cache is
    rewritten from the new bytes, and that one is used from then on."""
    from fxtlint.spec._tables import parsed_tables

    tables_dir, cache = table_copy
    parsed_tables(tables_dir, cache)
    path = tables_dir / "records.toml"
    text = path.read_text("utf-8")
    assert text.count("max_arguments = 15") == 1
    path.write_text(text.replace("max_arguments = 15", "max_arguments = 14"), "utf-8")
    again = parsed_tables(tables_dir, cache)
    assert again["records.toml"]["max_arguments"] == 14
    assert again == _parsed_by_tomllib(tables_dir)
    _no_toml(monkeypatch)
    assert parsed_tables(tables_dir, cache)["records.toml"]["max_arguments"] == 14


@pytest.mark.parametrize("content", [b"", b"not marshal", b"\xe9" * 40], ids=["empty", "text", "garbage"])
def test_a_broken_cache_is_parsed_again_and_replaced(table_copy, content):
    import marshal
    import os

    from fxtlint.spec._tables import parsed_tables

    tables_dir, cache = table_copy
    os.makedirs(os.path.dirname(cache))
    with open(cache, "wb") as fh:
        fh.write(content)
    assert parsed_tables(tables_dir, cache) == _parsed_by_tomllib(tables_dir)
    with open(cache, "rb") as fh:
        assert marshal.loads(fh.read())[2] == _parsed_by_tomllib(tables_dir)


def test_an_unwritable_cache_place_only_costs_a_parse(table_copy):
    from fxtlint.spec._tables import parsed_tables

    tables_dir, _ = table_copy
    (tables_dir / "a-file").write_bytes(b"")
    cache = str(tables_dir / "a-file" / "tables.marshal")  # its folder is a file
    assert parsed_tables(tables_dir, cache) == _parsed_by_tomllib(tables_dir)


def test_the_tables_every_module_uses_are_those_of_the_toml():
    """``tables()`` (from the cache, when there is one) equals the tables compiled from the
    TOML parsed here."""
    from fxtlint.spec._tables import _tables_dir, build_tables

    assert build_tables(_parsed_by_tomllib(_tables_dir())) == T
