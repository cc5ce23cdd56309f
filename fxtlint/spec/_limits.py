"""The engines' tunables in one frozen value, passed down from ``lint_buffer``.

Windows bound how much of the file and how many records are processed at once;
caps bound the pairing engine's memory on adversarial input. Tests that need tiny
windows pass a ``Limits``; nothing patches module globals (h11 passes
``max_incomplete_event_size`` the same way).
"""

from __future__ import annotations

from ._errors import FxtError
from ._frozen import F, Frozen

# the fast path's batch keys hold a record's index within its batch in this many bits
MAX_PAIRING_WINDOW = 1 << 20


class Limits(Frozen):
    """The windows and caps of every engine (this module's docstring); frozen."""

    # read by no engine since the numpy column path went (issue 33): kept so that a caller
    # passing it still works
    window_words: int
    pairing_window: int  # records per pairing batch: disorder within it is resolved
    max_stack: int  # open durations kept per thread
    max_live: int  # live async ids, and live flow ids, kept
    max_scan: int  # how deep an unmatched end looks for its begin: keeps ends O(1)
    _spec = (F("window_words", 1 << 21), F("pairing_window", 1 << 16), F("max_stack", 1 << 16),
             F("max_live", 1 << 16), F("max_scan", 64))

    def __init__(self, window_words: int = 1 << 21, pairing_window: int = 1 << 16, max_stack: int = 1 << 16,
                 max_live: int = 1 << 16, max_scan: int = 64):
        self.__dict__.update(window_words=window_words, pairing_window=pairing_window, max_stack=max_stack,
                             max_live=max_live, max_scan=max_scan)
        for name in self.__match_args__:
            v = self.__dict__[name]
            if not isinstance(v, int) or v < 1:
                raise FxtError(f"Limits.{name} = {v!r} does not fit: allowed 1 .. (an int)")
        if self.pairing_window > MAX_PAIRING_WINDOW:
            raise FxtError(f"Limits.pairing_window = {self.pairing_window} does not fit: "
                           f"allowed 1 .. {MAX_PAIRING_WINDOW}")
        if self.max_live < 8:
            raise FxtError(f"Limits.max_live = {self.max_live} does not fit: allowed 8 .. (an int)")


DEFAULT_LIMITS = Limits()
