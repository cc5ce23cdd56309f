"""Time in a trace: ticks read through their provider's tick rate, the one reading of time.

A timestamp is a 64-bit count of ticks; what it means is the tick rate in effect for
its provider at that record: the trace format's Initialization Record "provides
parameters needed to interpret the records which follow" and gives the "number of ticks
per second"; "in absence of this record, the reader may assume that 1 tick is 1
nanosecond"; and a reader of an archive "must maintain state separately for each
provider's traces (such as the initialization data, ...)". Two providers need not share
a clock, and one provider may change its rate mid-trace.

So an instant is ``(ticks, rate)``, and every consumer reads it here: the lint's pairing
and ordering checks, the Trace Event export (``ticks_to_us``), the writer's report
(``ticks_to_ns``), repair and slice (``ticks_at``). Comparisons are exact: ``time_key``
is an integer that orders instants exactly as their real times order (no float, whose
53 bits cannot tell two instants 0.5 µs apart at ticks near 2^64).
"""

from __future__ import annotations

import functools

TYPE_CHECKING = False  # typing's, without importing typing at run time (bench/startup.py)

if TYPE_CHECKING:
    from fractions import Fraction  # imported where a value is made: the lint's start-up needs none

NS_PER_S = 10**9
US_PER_S = 10**6
U64 = 1 << 64
# "In absence of this record, the reader may assume that 1 tick is 1 nanosecond."
DEFAULT_RATE = NS_PER_S
# time_key's scale: two distinct instants t1/r1 != t2/r2 (ticks and rates below 2^64)
# differ by at least 1/(r1*r2) > 2^-128 s, so their keys (floor of t * 2^128 / r) differ
_KEY_SHIFT = 128


def reading_rate(rate: int) -> int:
    """The rate ticks are read at. A rate of 0 (TM001) converts nothing: to order and pair
    its events they are read at the spec's default, 1 tick per nanosecond."""
    return rate if rate > 0 else DEFAULT_RATE


def time_key(ticks: int, rate: int) -> int:
    """An integer that orders instants exactly as their times (seconds = ticks / rate):
    equal instants get equal keys, and any two of different times keep their order."""
    return (ticks << _KEY_SHIFT) // reading_rate(rate)


def order_keys(ticks: list[int], rates: list[int]) -> list[int]:
    """``time_key`` of each row; the ticks themselves when every row has one rate (the
    same order, without the big integers)."""
    if not rates or all(r == rates[0] for r in rates):
        return ticks
    return [time_key(t, r) for t, r in zip(ticks, rates)]


def before(ticks: int, rate: int, other_ticks: int, other_rate: int) -> bool:
    """Is the first instant strictly before the second? Exact: cross-multiplied."""
    return ticks * reading_rate(other_rate) < other_ticks * reading_rate(rate)


def seconds(ticks: int, rate: int) -> Fraction:
    """The instant's time in seconds, exactly."""
    from fractions import Fraction

    return Fraction(ticks, reading_rate(rate))


def ticks_to_us(ticks: int, rate: int) -> int | float:
    """Microseconds (the Trace Event Format's ``ts``), an int when exact, else the
    correctly rounded float. ``rate`` must not be 0 (such events are not exported)."""
    num = ticks * US_PER_S
    if num % rate == 0:
        return num // rate
    return num / rate


def ticks_to_ns(ticks: int, rate: int) -> int:
    """Whole nanoseconds, rounded down (a rate of 0 reads ticks as nanoseconds)."""
    return ticks * NS_PER_S // reading_rate(rate)


def ticks_at(time_s: Fraction, rate: int, *, up: bool = False) -> int:
    """The tick of ``rate`` at ``time_s`` seconds: the last tick at or before it, or with
    ``up`` the first at or after it (a cut's bounds: ``--from`` rounds up, ``--to`` down)."""
    exact = time_s * reading_rate(rate)
    whole = exact.numerator // exact.denominator
    return whole + 1 if up and whole != exact else whole


def max_ticks(rate: int) -> int:
    """The largest tick count whose nanosecond value fits in 64 bits at ``rate``."""
    # ticks * 1e9 // rate < 2^64  <=>  ticks < ceil(2^64 * rate / 1e9); ticks are 64-bit
    return min(-(-U64 * rate // NS_PER_S) - 1, U64 - 1)


# -- words -------------------------------------------------------------------------------
_RATE_UNITS = ((10**9, "GHz"), (10**6, "MHz"), (10**3, "kHz"), (1, "Hz"))


@functools.cache
def _time_units() -> tuple[tuple[Fraction, str], ...]:
    from fractions import Fraction

    return ((Fraction(1), "s"), (Fraction(1, 10**3), "ms"), (Fraction(1, 10**6), "µs"), (Fraction(1, 10**9), "ns"))


def _decimal(value: Fraction, places: int) -> str | None:
    """``value`` in decimal with thousands separators when it has at most ``places``
    digits after the point, else None."""
    scaled = value * 10**places
    if scaled.denominator != 1:
        return None
    whole, frac = divmod(scaled.numerator, 10**places)
    digits = f"{frac:0{places}d}".rstrip("0") if places else ""
    return f"{whole:,}" + (f".{digits}" if digits else "")


def rate_text(rate: int) -> str:
    """'1 kHz', '19.2 MHz', '1,000 GHz'; '0 ticks/s' for the rate that converts nothing."""
    from fractions import Fraction

    if rate <= 0:
        return "0 ticks/s"
    for scale, unit in _RATE_UNITS:
        # a prefix where the rate reads as a short number (below 1,000 of it, but for the
        # largest, and with at most 3 decimals); else the plain count: '999,999,937 Hz'
        if rate >= scale and (rate < 1000 * scale or scale == _RATE_UNITS[0][0]):
            text = _decimal(Fraction(rate, scale), 3)
            if text is not None:
                return f"{text} {unit}"
    return f"{rate:,} Hz"


def duration_text(time_s: Fraction) -> str:
    """'2 ms', '1.0005 ms', '18,446,744,073.709551615 s'; an approximate value (9
    significant digits) starts with '~'."""
    if time_s == 0:
        return "0 s"
    for scale, unit in _time_units():
        if abs(time_s) >= scale or unit == "ns":
            value = time_s / scale
            text = _decimal(value, 9)
            return f"{text} {unit}" if text is not None else f"~{float(value):.9g} {unit}"
    raise AssertionError("unreachable")  # pragma: no cover - "ns" ends the loop


def instant_text(ticks: int, rate: int) -> str:
    """'tick 2 of 1 kHz (2 ms)': an instant in the trace's own terms."""
    if rate <= 0:
        return f"tick {ticks:,} of {rate_text(rate)} (read as {duration_text(seconds(ticks, rate))})"
    return f"tick {ticks:,} of {rate_text(rate)} ({duration_text(seconds(ticks, rate))})"
