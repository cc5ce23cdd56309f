"""Decoded records and arguments: plain frozen values, named after the spec tables.

``fields`` holds every header field and body word by its table name, as raw integers
(string and thread refs stay refs); ``strings`` holds the inline streams by name (str
for valid UTF-8 text, bytes for binary payloads or text that is not UTF-8). Sizes,
stream lengths and inline ref lengths are recomputed by the encoder, so a record built
by hand may leave them out.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Argument:
    type: int
    kind: str  # the table name ("int32", "string", ...) or "unknown"
    fields: dict = field(default_factory=dict)
    strings: dict = field(default_factory=dict)
    extra_words: tuple[int, ...] = ()
    raw: bytes = b""  # the undecoded body of an unknown argument type
    offset: int = field(default=-1, compare=False)  # byte offset of its header, when read

    @property
    def name(self) -> str | int:
        """The inline name, or the string index of an indexed name (0: empty)."""
        return self.strings.get("name", self.fields.get("name", 0))

    @property
    def value(self):
        if self.kind == "string":
            return self.strings.get("value", self.fields.get("value", 0))
        if self.kind == "blob":
            return self.strings.get("payload", b"")
        if self.kind == "bool":
            return bool(self.fields.get("value", 0))
        return self.fields.get("value")


@dataclass(frozen=True)
class Record:
    type: int
    kind: str  # dotted table name, e.g. "event.duration_begin"; "unknown" when undefined
    fields: dict = field(default_factory=dict)
    strings: dict = field(default_factory=dict)
    args: tuple[Argument, ...] = ()
    extra_words: tuple[int, ...] = ()
    raw: bytes = b""  # the undecoded body of an undefined record type or subtype
    offset: int = field(default=-1, compare=False)
    index: int = field(default=-1, compare=False)
    size_words: int = field(default=0, compare=False)
    complete: bool = field(default=True, compare=False)  # False when decoding stopped early

    @property
    def end(self) -> int:
        return self.offset + 8 * self.size_words
