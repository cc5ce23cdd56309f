"""``spec/_frozen``: the value classes a small lint makes are not dataclasses at import
(bench/startup.py), and behave as the dataclasses they were: equality over the compared
fields, hash over the hashed ones, repr, frozen attributes, and ``dataclasses.fields``,
``replace``, ``asdict`` and pickling."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

import fxtlint
from fxtlint.cli._config import Config
from fxtlint.engine._hexview import Row
from fxtlint.engine._result import DiagnosticSink, FileReport
from fxtlint.rules import all_rules
from fxtlint.rules._diagnostics import Diagnostic, Severity
from fxtlint.spec._frozen import F, Frozen, Struct
from fxtlint.spec._limits import Limits
from fxtlint.spec._model import Argument, Record


def _diag(**kw):
    base = dict(offset=8, record_index=1, code="ZZ001", message="m", severity=Severity.ERROR, span=(8, 16),
                record_size=16, details={"found": 3})
    return Diagnostic(**{**base, **kw})


def test_a_frozen_value_compares_hashes_and_shows_its_fields():
    d = _diag()
    assert d == _diag() and hash(d) == hash(_diag())
    assert d != _diag(span=(8, 12)) and d != _diag(details={"found": 4})
    assert hash(d) == hash(_diag(details={"found": 4}))  # details: compared, never hashed
    assert repr(d) == ("Diagnostic(offset=8, record_index=1, code='ZZ001', message='m', severity=<Severity.ERROR: 2>, "
                       "span=(8, 16), record_size=16, details={'found': 3})")
    assert d != (8, 1) and d.__eq__(object()) is NotImplemented
    with pytest.raises(dataclasses.FrozenInstanceError):
        d.code = "X"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del d.code
    assert Diagnostic.__match_args__ == ("offset", "record_index", "code", "message", "severity", "span",
                                         "record_size", "details")


def test_fields_left_out_of_equality_are_left_out_of_the_hash_and_kept_in_the_repr():
    a = Record(type=0, kind="metadata.unknown", fields={"x": 1}, offset=0, index=0)
    b = Record(type=0, kind="metadata.unknown", fields={"x": 1}, offset=64, index=9)
    assert a == b and hash(a) == hash(b) and "offset=64" in repr(b)
    rule = all_rules()[0]
    assert "required=" not in repr(rule) and "mutation=" in repr(rule)


def test_dataclasses_functions_work_on_them():
    d = _diag()
    assert dataclasses.is_dataclass(d) and dataclasses.is_dataclass(Diagnostic)
    assert [f.name for f in dataclasses.fields(d)] == list(Diagnostic.__match_args__)
    moved = dataclasses.replace(d, offset=16)
    assert type(moved) is Diagnostic and moved.offset == 16 and moved.details == d.details
    assert dataclasses.asdict(d)["span"] == (8, 16)
    rec = Record(type=0, kind="metadata.unknown", fields={"x": 1}, offset=8)
    again = dataclasses.replace(rec, fields={"x": 2})
    assert again.fields == {"x": 2} and again.offset == 8 and type(again.fields).__name__ == "FrozenMap"
    limits = dataclasses.replace(Limits(), max_scan=3)
    assert limits == Limits(max_scan=3) and [f.name for f in dataclasses.fields(Limits)][-1] == "max_scan"
    rule = all_rules()[0]
    renamed = dataclasses.replace(rule, name="other-name")
    assert renamed.required == rule.required and renamed != rule
    with pytest.raises(ValueError):  # not a field __init__ takes, as the dataclass said
        dataclasses.replace(rule, required=frozenset())
    with pytest.raises(fxtlint.FxtError):  # __init__ checks, as __post_init__ did
        dataclasses.replace(Limits(), max_live=2)


def test_they_pickle_and_copy():
    d = _diag()
    assert pickle.loads(pickle.dumps(d)) == d
    report = FileReport("p", "trace", 1, 8, "little", [d], {"ZZ001": 1}, {"error": 1, "warning": 0, "info": 0})
    assert pickle.loads(pickle.dumps(report)) == report and copy.deepcopy(report) == report
    t = fxtlint.tables()
    assert copy.deepcopy(t.header) == t.header and hash(t.header)
    assert pickle.loads(pickle.dumps(Config())) == Config()
    assert pickle.loads(pickle.dumps(Row(0, "00", ((0, 2),)))) == Row(0, "00", ((0, 2),))
    arg = Argument(type=1, kind="int32", fields={"value": 5})
    assert pickle.loads(pickle.dumps(arg)) == arg


def test_a_mutable_struct_compares_and_is_not_hashable():
    a, b = DiagnosticSink(), DiagnosticSink()
    assert a == b
    b.add(_diag())
    assert a != b and b.counts == {"ZZ001": 1}
    with pytest.raises(TypeError):
        hash(a)
    with pytest.raises(ValueError):
        DiagnosticSink(per_rule_cap=0)
    assert repr(DiagnosticSink()).startswith("DiagnosticSink(per_rule_cap=200, severity_overrides={}, ")


def test_a_severity_override_makes_a_new_diagnostic():
    sink = DiagnosticSink(severity_overrides={"ZZ001": Severity.WARNING})
    sink.add(_diag())
    assert sink.kept == [_diag(severity=Severity.WARNING)]


def test_a_class_of_its_own():
    class Pair(Frozen):
        _spec = (F("a"), F("b", 2, compare=False), F("c", factory=list, init=False, repr=False, compare=False))

        def __init__(self, a, b=2):
            self.__dict__.update(a=a, b=b, c=[])

    class Box(Struct):
        _spec = (F("v"),)

        def __init__(self, v):
            self.v = v

    assert Pair(1, 2) == Pair(1, 3) and hash(Pair(1, 2)) == hash(Pair(1, 3))
    assert repr(Pair(1)).endswith("<locals>.Pair(a=1, b=2)")
    assert [f.name for f in dataclasses.fields(Pair)] == ["a", "b", "c"] and Pair.__match_args__ == ("a", "b")
    assert dataclasses.replace(Pair(1), b=5).b == 5
    box = Box(1)
    box.v = 2
    assert box == Box(2) and Box.__hash__ is None


def test_a_dataclass_may_derive_from_one():
    @dataclasses.dataclass(frozen=True)
    class Noted(Diagnostic):
        note: str = ""

    n = Noted(8, 1, "ZZ001", "m", Severity.ERROR, note="n")
    assert [f.name for f in dataclasses.fields(n)][-2:] == ["details", "note"] and n.note == "n"
    assert Diagnostic.__dataclass_params__.frozen
    # its bases' fields (Frozen's and Struct's: none) were asked for: every class keeps its own
    assert dataclasses.replace(Record(type=0, kind="metadata.unknown"), raw=b"x").raw == b"x"
    assert dataclasses.fields(Limits)[0].name == "window_words" and not dataclasses.fields(Struct)


def test_a_field_built_when_read_is_built_once_then_kept():
    from fxtlint.spec._frozen import BuiltWhenRead

    built = []

    def build(fields, held):
        built.append(held)
        fields["a"], fields["b"] = held * 2, held * 3

    class Lazy:
        a = BuiltWhenRead("a", "_pending", build)
        b = BuiltWhenRead("b", "_pending", build)

    x = Lazy()
    x._pending = 5
    assert (x.a, x.b, x.a) == (10, 15, 10) and built == [5]  # both built at the first read, once
    assert "_pending" not in vars(x) and vars(x) == {"a": 10, "b": 15}
    given = Lazy()
    given.a = 1  # given: an attribute like any other, nothing built
    assert given.a == 1 and built == [5]
    assert isinstance(Lazy.a, BuiltWhenRead)
    with pytest.raises(AttributeError, match="'Lazy' object has no attribute 'b'"):
        getattr(given, "b")  # noqa: B009 (the read is the point)
