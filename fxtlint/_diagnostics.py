"""Diagnostics as data: severities, the Rule declaration, and the Diagnostic it makes.

A rule owns its code, name, default severity, one message template and its docs.
Everything that reports a problem does it through ``Rule.at(...)``; renderers only
ever see ``Diagnostic`` values (glTF-Validator's issue families, ruff's registry).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable


class Severity(enum.IntEnum):
    INFO = 0
    WARNING = 1
    ERROR = 2

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def parse(cls, text: str) -> "Severity":
        return cls[text.strip().upper()]


@dataclass(frozen=True)
class Example:
    """A minimal archive for a rule's docs and tests: ``build`` returns its bytes.

    ``input_format`` says how it must be linted ("trace" or "log").
    """

    caption: str
    build: Callable[[], bytes]
    input_format: str = "trace"


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: Severity
    message: str
    what: str
    why: str
    bad: Example
    good: Example
    spec: str
    status: str = "stable"

    def at(
        self,
        offset: int,
        record_index: int,
        span: tuple[int, int] | None = None,
        record_size: int | None = None,
        **params: object,
    ) -> "Diagnostic":
        """The diagnostic this rule reports for a record at ``offset``.

        ``span`` is the absolute byte range of the offending field and ``record_size``
        the record's length in bytes as far as the file holds it, for the hex view.
        """
        return Diagnostic(
            code=self.code,
            severity=self.severity,
            offset=offset,
            record_index=record_index,
            message=self.message.format(**params),
            span=span,
            record_size=record_size,
        )


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding, with exactly one location: the byte offset of its record."""

    offset: int
    record_index: int
    code: str
    message: str
    severity: Severity = field(compare=False)
    span: tuple[int, int] | None = field(default=None, compare=False)
    record_size: int | None = field(default=None, compare=False)

    def to_json(self) -> dict:
        out = {
            "code": self.code,
            "severity": self.severity.label,
            "offset": self.offset,
            "record_index": self.record_index,
            "message": self.message,
        }
        if self.span is not None:
            out["span"] = list(self.span)
        if self.record_size is not None:
            out["record_size"] = self.record_size
        return out
