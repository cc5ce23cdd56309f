"""Value classes without ``@dataclass`` at import: ``Struct`` and ``Frozen``.

``@dataclass`` compiles each class's methods from source when the class is made, and
``import dataclasses`` brings ``inspect`` (with ``dis``, ``ast`` and ``tokenize``): on
this machine about 30 ms, a third of what ``fxtlint FILE`` took beyond ``python -c pass``
(bench/startup.py). The value classes a small lint makes (the spec tables' nodes, the
limits, the rules, diagnostics and reports) are these instead. A class lists its fields
in ``_spec`` (``F``: a name and what ``dataclasses.field`` would say of it) and writes its
``__init__``; the base gives what the dataclass gave:

- equality over the compared fields (an object equals only one of its own class), their
  ``repr``, and ``__match_args__``;
- ``Frozen``: attributes that cannot be assigned (``dataclasses.FrozenInstanceError``)
  and a hash over the hashed fields; ``Struct`` (mutable): no hash, as a dataclass with
  equality has none;
- ``dataclasses.fields``, ``replace``, ``asdict`` and ``is_dataclass`` work on them: the
  first time one asks for ``__dataclass_fields__``, the class's fields are made by
  ``dataclasses`` itself (a dataclass of the same fields, made then and kept), so
  ``dataclasses`` is imported by the code that uses it, never by a lint.

The attributes live in the instance's ``__dict__``, as a dataclass's do (an ``__init__``
fills it with ``self.__dict__.update``), so pickling, copying and
``functools.cached_property`` work as they did.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing at run time
if TYPE_CHECKING:
    from dataclasses import Field
    from typing import Any, ClassVar

_MISSING = object()


class F:
    """One field: its name, its default (or ``factory``, called for each object), and
    whether ``__init__`` takes it, ``repr`` shows it, equality compares it and the hash
    covers it (None: as it compares), as ``dataclasses.field`` says them."""

    __slots__ = ("name", "default", "factory", "init", "repr", "compare", "hash")

    def __init__(self, name: str, default=_MISSING, *, factory=None, init: bool = True, repr: bool = True,
                 compare: bool = True, hash: bool | None = None):
        self.name, self.default, self.factory = name, default, factory
        self.init, self.repr, self.compare, self.hash = init, repr, compare, hash


class _Dataclass:
    """``cls.__dataclass_fields__`` (and ``__dataclass_params__``): those of a dataclass of
    the same fields, made by ``dataclasses`` from ``cls._spec`` on first use and kept (per
    class, here: not on the class, where a subclass would find its base's)."""

    def __init__(self, attribute: str, made: dict):
        self.attribute = attribute
        self.made = made  # class -> its dataclass twin (one dict for both attributes)

    def __get__(self, obj, cls):
        twin = self.made.get(cls)
        if twin is None:
            import dataclasses

            fields = []
            for f in cls._spec:
                options: dict = {"init": f.init, "repr": f.repr, "compare": f.compare, "hash": f.hash}
                if f.factory is not None:
                    options["default_factory"] = f.factory
                elif f.default is not _MISSING:
                    options["default"] = f.default
                fields.append((f.name, "object", dataclasses.field(**options)))
            # (fields with defaults after fields without cannot be made: the spec's order
            # follows that rule, as the dataclass's did)
            twin = self.made[cls] = dataclasses.make_dataclass(cls.__name__, fields, frozen=cls._frozen)
        return getattr(twin, self.attribute)


class Struct:
    """A mutable value class (a ``@dataclass`` with ``eq``, without ``frozen``)."""

    _spec: tuple[F, ...] = ()
    _frozen = False
    # derived from _spec when the class is made
    _compared: tuple[str, ...] = ()
    _hashed: tuple[str, ...] = ()
    _shown: tuple[str, ...] = ()
    __match_args__: tuple[str, ...] = ()
    if TYPE_CHECKING:  # what dataclasses.replace and fields ask of a dataclass
        __dataclass_fields__: ClassVar[dict[str, Field[Any]]]
    else:
        _twins: dict = {}
        __dataclass_fields__ = _Dataclass("__dataclass_fields__", _twins)
        __dataclass_params__ = _Dataclass("__dataclass_params__", _twins)  # (what a dataclass subclass asks)
    __hash__ = None  # type: ignore[assignment]  # (equality without frozen: unhashable, as a dataclass)

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        spec = cls._spec
        cls._compared = tuple(f.name for f in spec if f.compare)
        cls._hashed = tuple(f.name for f in spec if (f.compare if f.hash is None else f.hash))
        cls._shown = tuple(f.name for f in spec if f.repr)
        cls.__match_args__ = tuple(f.name for f in spec if f.init)  # type: ignore[misc]

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            a, b = self.__dict__, other.__dict__
            return tuple(a[n] for n in self._compared) == tuple(b[n] for n in self._compared)
        return NotImplemented

    def __repr__(self) -> str:
        d = self.__dict__
        return f"{self.__class__.__qualname__}({', '.join(f'{name}={d[name]!r}' for name in self._shown)})"


class Frozen(Struct):
    """A frozen value class (``@dataclass(frozen=True)``): hashable, never assigned."""

    _frozen = True

    def __hash__(self) -> int:  # type: ignore[override]  # (Struct's is None)
        d = self.__dict__
        return hash(tuple(d[n] for n in self._hashed))

    def __setattr__(self, name: str, value) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")


class BuiltWhenRead:
    """A field of a value class built at its first read from what the object holds under
    ``pending`` (``build(fields, held)`` fills the object's ``__dict__``, this field among
    what it fills), then kept there and ``pending`` dropped. A non-data
    descriptor: once kept (or given to ``__init__``), an attribute like any other, read at
    full speed (a ``__getattr__`` or a property would slow every attribute's read or write).
    Two threads that read it at once both build: equal values, the later's kept."""

    __slots__ = ("name", "pending", "build")

    def __init__(self, name: str, pending: str, build):
        self.name, self.pending, self.build = name, pending, build

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        fields = obj.__dict__
        held = fields.get(self.pending)
        if held is not None:
            self.build(fields, held)
            fields.pop(self.pending, None)  # (another thread may have built them meanwhile)
        if self.name in fields:
            return fields[self.name]
        raise AttributeError(f"{type(obj).__name__!r} object has no attribute {self.name!r}")
