"""Provider tables as each row of a batch sees them, looked up as arrays: the column
path's (export and decode read string refs, thread refs and tick rates of clean rows
through it; the lint and report never take the column path).

The walk decodes every record with an effect on the reference path, and
``ProviderState`` stamps each change with its record index and the value it replaced (``History``).
A clean row then sees: the latest stamped change of its (provider, index) before it
in the batch; else the value before the batch: the replaced value of the batch's
first change of that key, or the provider's table itself. Each provider's table is
cached as two sorted arrays, rebuilt only after a batch that changed it, so a lookup
is a few ``searchsorted`` calls and memory follows the tables, never providers x
indexes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..spec._limits import MAX_PAIRING_WINDOW
from ._provider_state import History, ProviderState

if TYPE_CHECKING:
    import numpy as np
else:
    from ._numpy import np  # imported on first use: the per-record path needs no array

REL_BITS = 20  # keys hold a record's index within its batch in the low bits
# a batch never crosses a pairing window (``_scan``), so its rows' positions fit
assert MAX_PAIRING_WINDOW <= 1 << REL_BITS


def latest(keys, order, qkeys, shift):
    """For each query key, the position in ``keys`` of the latest key below it that
    shares its prefix (key >> shift), or -1. ``order`` sorts ``keys``."""
    if not len(keys):
        return np.full(len(qkeys), -1, np.int64)
    sk = keys[order]
    j = np.searchsorted(sk, qkeys) - 1
    jc = np.maximum(j, 0)
    hit = (j >= 0) & ((sk[jc] >> shift) == (qkeys >> shift))
    return np.where(hit, order[jc], -1)


def _find(keys, values, q, dense=None):
    """``values`` at the positions of ``q`` in the sorted ``keys``; -1 where absent.
    ``dense``: the same table as an array indexed by key (-1 where absent), if any: one
    gather instead of a binary search per query."""
    if dense is not None:
        return np.where(q < len(dense), dense[np.minimum(q, len(dense) - 1)], -1)
    if not len(keys):
        return np.full(len(q), -1, np.int64)
    j = np.minimum(np.searchsorted(keys, q), len(keys) - 1)
    return np.where(keys[j] == q, values[j], -1)


# a table is also kept as an array indexed by key when that array is no more than this
# many times the table (plus a few entries): writers number their strings and threads
# from 1 up, and a gather is several times cheaper than a binary search
DENSE_SLACK, DENSE_MIN = 4, 64


class TableCache:
    """Per provider and table ("strings", "threads"): sorted index and value arrays, and
    the dense array where it is small (``DENSE_SLACK``)."""

    def __init__(self, state: ProviderState):
        self.state = state
        self.arrays: dict = {}

    def get(self, provider, which: str):
        key = (id(provider), which)
        got = self.arrays.get(key)
        if got is None or got[0] is not provider:
            table = getattr(provider, which)
            idx = np.fromiter(table.keys(), np.int64, len(table))
            if which == "threads":
                vals = np.asarray([self.state.threads(k) for k in table.values()], np.int64)
            else:
                vals = np.fromiter(table.values(), np.int64, len(table))
            order = np.argsort(idx)
            idx, vals = idx[order], vals[order]
            dense = None
            if len(idx) and idx[0] >= 0 and idx[-1] < DENSE_SLACK * len(idx) + DENSE_MIN:
                dense = np.full(int(idx[-1]) + 1, -1, np.int64)
                dense[idx] = vals
            got = self.arrays[key] = (provider, idx, vals, dense)
        return got[1:]

    def changed(self, hist: History) -> None:
        """Forget the tables a batch changed."""
        for entries, which in ((hist.strings, "strings"), (hist.threads, "threads")):
            for p in {id(e[1]) for e in entries}:
                self.arrays.pop((p, which), None)


class Lookups:
    """The lookups of one batch (``index0``: its first record index)."""

    def __init__(self, state: ProviderState, cache: TableCache, start, hist: History, index0: int):
        slot_of: dict = {start: 0}
        for _, p, _ in hist.providers:
            slot_of.setdefault(p, len(slot_of))
        self.by_slot = list(slot_of)
        self.slot_of = slot_of
        self.sw_idx = np.asarray([i - index0 for i, _, _ in hist.providers], np.int64)
        self.sw_slot = np.asarray([slot_of[p] for _, p, _ in hist.providers], np.int64)
        self.index0 = index0
        self.state = state
        self.cache = cache
        self.hist = hist
        self._changes: dict = {}

    def slots(self, rel):
        """The provider slot current at each row (``rel``: index within the batch)."""
        if not len(self.sw_idx):
            return np.zeros(len(rel), np.int64)
        j = np.searchsorted(self.sw_idx, rel) - 1
        return np.where(j >= 0, self.sw_slot[np.maximum(j, 0)], 0)

    def _stamped(self, which: str, bits: int):
        got = self._changes.get(which)
        if got is None:
            entries = getattr(self.hist, which)
            intern = self.state.threads if which == "threads" else (lambda v: v)
            keys = np.asarray([((self.slot_of[p] << bits | k) << REL_BITS) | (i - self.index0)
                               for i, p, k, _, _ in entries], np.int64)
            vals = np.asarray([intern(v) for _, _, _, v, _ in entries], np.int64)
            first: dict = {}
            for _, p, k, _, old in entries:
                first.setdefault((self.slot_of[p] << bits) | k, -1 if old is None else intern(old))
            fk = np.asarray(sorted(first), np.int64)
            fv = np.asarray([first[k] for k in fk.tolist()], np.int64)
            got = self._changes[which] = (np.argsort(keys, kind="stable"), keys, vals, fk, fv)
        return got

    def lookup(self, which: str, bits: int, ref, where):
        """Per row: the interned string id or thread id ``ref`` names; -1 when unregistered.
        ``where()``: the rows' (provider slot, index within the batch), asked for only
        when the batch changed the tables or switched providers."""
        order, keys, vals, fk, fv = self._stamped(which, bits)
        if not len(keys) and len(self.by_slot) == 1:  # no change in the batch: the tables as they stand
            tk, tv, dense = self.cache.get(self.by_slot[0], which)
            return _find(tk, tv, ref, dense)
        slot, rel = where()
        j = latest(keys, order, ((slot << bits | ref) << REL_BITS) | rel, REL_BITS)
        out = np.where(j >= 0, vals[np.maximum(j, 0)] if len(vals) else -1, -1)
        before = np.nonzero(j < 0)[0]
        if len(before):
            sk = (slot[before] << bits) | ref[before]
            changed = _find(fk, np.arange(len(fk)), sk)
            res = np.where(changed >= 0, fv[np.maximum(changed, 0)] if len(fv) else -1, -1)
            unchanged = changed < 0
            slots = np.unique(slot[before][unchanged]).tolist() if len(self.by_slot) > 1 else [0]
            for sl in slots:
                m = unchanged & (slot[before] == sl)
                tk, tv, dense = self.cache.get(self.by_slot[sl], which)
                res[m] = _find(tk, tv, ref[before][m], dense)
            out[before] = res
        return out

    def limits(self, slot, rel):
        """Per row: the largest timestamp that converts, and a position in the list of rates."""
        rates = self.hist.rates
        keys = np.asarray([(self.slot_of[p] << REL_BITS) | (i - self.index0) for i, p, _, _, _ in rates], np.int64)
        values = [(mt, rt) for _, _, mt, rt, _ in rates]
        first: dict = {}
        for _, p, _, _, old in rates:
            first.setdefault(self.slot_of[p], old)
        start = []
        for sl, p in enumerate(self.by_slot):
            start.append(len(values))
            values.append(first.get(sl, (p.max_ticks, p.rate)))
        j = latest(keys, np.argsort(keys, kind="stable"), (slot << REL_BITS) | rel, REL_BITS)
        pos = np.where(j >= 0, j, np.asarray(start, np.int64)[slot])
        limit = np.asarray([v[0] for v in values], np.uint64)[pos]
        return limit, pos, [v[1] for v in values]
