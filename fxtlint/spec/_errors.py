"""The library's one error type, for values a caller gave that do not fit.

The reader never raises (malformed bytes become diagnostics); everything else that
refuses its input (the builder, the encoder, a rule declaration) raises ``FxtError``
with a message naming the field and what it allows. Any other exception out of
fxtlint is a bug (h11's ``LocalProtocolError`` habit).
"""

from __future__ import annotations


class FxtError(ValueError):
    """A value that does not fit: names the field and the allowed range or values."""


def out_of_range(field: str, value: object, lo: int, hi: int) -> FxtError:
    """The error for ``value`` outside [lo, hi] in ``field``."""
    return FxtError(f"{field} = {value!r} does not fit: allowed {lo} .. {hi}")
