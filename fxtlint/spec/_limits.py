"""The engines' tunables in one frozen value, passed down from ``lint_buffer``.

Windows bound how much of the file and how many records are processed at once;
caps bound the pairing engine's memory on adversarial input. Tests that need tiny
windows pass a ``Limits``; nothing patches module globals (h11 passes
``max_incomplete_event_size`` the same way).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ._errors import FxtError

# the fast path's batch keys hold a record's index within its batch in this many bits
MAX_PAIRING_WINDOW = 1 << 20


@dataclass(frozen=True)
class Limits:
    window_words: int = 1 << 21  # 16 MiB of file per fast-path window
    pairing_window: int = 1 << 16  # records per pairing batch: disorder within it is resolved
    max_stack: int = 1 << 16  # open durations kept per thread
    max_live: int = 1 << 16  # live async ids, and live flow ids, kept
    max_scan: int = 64  # how deep an unmatched end looks for its begin: keeps ends O(1)

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, int) or v < 1:
                raise FxtError(f"Limits.{f.name} = {v!r} does not fit: allowed 1 .. (an int)")
        if self.pairing_window > MAX_PAIRING_WINDOW:
            raise FxtError(f"Limits.pairing_window = {self.pairing_window} does not fit: "
                           f"allowed 1 .. {MAX_PAIRING_WINDOW}")
        if self.max_live < 8:
            raise FxtError(f"Limits.max_live = {self.max_live} does not fit: allowed 8 .. (an int)")


DEFAULT_LIMITS = Limits()
