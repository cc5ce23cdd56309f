"""``Frozen``: a frozen record class without ``dataclasses`` (the spec tables' nodes).

The tables' nine node classes were frozen dataclasses, and ``@dataclass`` compiles each
class's methods from source when the class is made: a tenth of a small lint's start-up,
with the import of ``dataclasses`` (and ``inspect``) that it needs (bench/startup.py).
A ``Frozen`` subclass writes its ``__init__`` and lists its ``_fields``; this base gives
what the dataclass gave: equality and hashing over those fields (an object equals only
one of its own class), their ``repr``, and attributes that cannot be assigned
(``dataclasses.FrozenInstanceError``, as before). The attributes live in the instance's
``__dict__``, as a dataclass's do, so pickling, copying and ``functools.cached_property``
work as they did.
"""

from __future__ import annotations


class Frozen:
    _fields: tuple[str, ...] = ()  # compared, hashed and shown by repr, in this order

    def _key(self) -> tuple:
        d = self.__dict__
        return tuple(d[name] for name in self._fields)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        d = self.__dict__
        return f"{self.__class__.__qualname__}({', '.join(f'{name}={d[name]!r}' for name in self._fields)})"

    def __setattr__(self, name: str, value) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        from dataclasses import FrozenInstanceError

        raise FrozenInstanceError(f"cannot delete field {name!r}")
