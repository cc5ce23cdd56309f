"""Mutations of valid archives, each paired with the rule code it must trip, read from
the rules' declarations (``Rule.mutation``; the helpers are ``fxtlint.rules._mutate``).

A rule's mutation draws through a ``pick``; here it is Hypothesis's ``draw``, so the
strategies (``mutated_archives``, ``mutated_log_streams``) shrink mutations like any
other draw.
"""

from __future__ import annotations

from hypothesis import strategies as st

from . import all_rules


class _Pick:
    """What a mutation may draw, from a Hypothesis ``draw``."""

    __slots__ = ("draw",)

    def __init__(self, draw):
        self.draw = draw

    def integers(self, lo: int, hi: int) -> int:
        return self.draw(st.integers(lo, hi))

    def sampled_from(self, values):
        return self.draw(st.sampled_from(tuple(values)))


def _trace_mutation(mutate):
    return lambda recs, draw: mutate(recs, _Pick(draw))


def _log_mutation(mutate):
    return lambda draw: mutate((), _Pick(draw))


_MUTABLE = [r for r in all_rules() if r.mutation is not None]
# (code, mutate(records, draw) -> bytes) for trace rules, in code order
MUTATIONS = [(r.code, _trace_mutation(r.mutation)) for r in _MUTABLE if r.bad.input_format == "trace"]
# (code, mutate(draw) -> bytes) for structured-log rules: each builds a whole stream
LOG_MUTATIONS = [(r.code, _log_mutation(r.mutation)) for r in _MUTABLE if r.bad.input_format == "log"]
# rules no single small mutation trips, and why
EXEMPT: dict[str, str] = {r.code: r.no_mutation for r in all_rules() if r.no_mutation is not None}
# the only other rules a mutation may trip besides its own
COMPANIONS: dict[str, set[str]] = {r.code: set(r.also_trips) for r in _MUTABLE if r.also_trips}
