"""Pairing of a well-formed batch as array operations; anything else goes to the loop.

``feed_clean(engine, batch)`` proves, with numpy, that the engine's loop would report
nothing for the batch, and then leaves the engine in the state the loop would have
left it in (duration stacks, latest complete-event ends, live async and flow ids, in
the same insertion order). If the proof fails it changes nothing and returns False,
and the engine runs its loop. ``tests/test_pairing.py`` holds the two to the same
diagnostics and state on drawn batches.

Durations are parenthesis matching: per thread, with the carried stack prepended as
virtual begins, the depth after each event never drops below zero, and a begin at
depth d pairs with the next end that leaves depth d - 1; grouped by (thread, depth)
the pairs are adjacent. Async and flow ids are per-key state machines:
begin (instant|step)* end, begin again only after an end.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from ._pairing import (ASYNC_BEGIN, ASYNC_END, ASYNC_INSTANT, BEGIN, COMPLETE, END, FLOW_BEGIN, FLOW_END,
                       FLOW_KINDS, FLOW_STEP, lexorder)

_IS_FLOW = np.zeros(max(FLOW_KINDS) + 1, bool)  # by pairing kind: a flow event's?
_IS_FLOW[sorted(FLOW_KINDS)] = True


def _is_flow(kind):
    return _IS_FLOW[np.minimum(kind, len(_IS_FLOW) - 1)] & (kind >= 0)


def _segments(*keys):
    """Boolean array: True where a row starts a new run of equal keys (rows already sorted)."""
    n = len(keys[0])
    start = np.zeros(n, bool)
    if n:
        start[0] = True
        for k in keys:
            start[1:] |= k[1:] != k[:-1]
    return start


def _states(kind, begin, middle, end, keys, pos, carried: int):
    """Check one family of id events (async or flow) and find its final live keys.

    Rows 0..carried-1 are the live ids carried in (virtual begins). Returns None if
    the loop would report anything, else (sorted row order, last row per key mask).
    """
    order = lexorder(*keys, pos)
    k = kind[order]
    start = _segments(*(x[order] for x in keys))
    prev = np.empty_like(k)
    prev[1:] = k[:-1]
    ok_begin = start | (prev == end)
    ok_other = ~start & ((prev == begin) | (prev == middle))
    is_b = k == begin
    if not np.all(np.where(is_b, ok_begin, ok_other)):
        return None
    last = np.zeros(len(k), bool)
    if len(k):
        last[:-1] = start[1:]
        last[-1] = True
    return order, last


def feed_clean(engine, cols: dict) -> bool:
    """``cols``: the batch's columns (``Batch.columns()``)."""
    sort = engine.order(cols["ts"], cols["index"])
    n = len(sort)
    kind = cols["kind"][sort]
    thread = cols["thread"][sort]
    process = cols["process"][sort]
    cat = cols["cat"][sort]
    name = cols["name"][sort]
    ids = cols["id"][sort]
    complete_ends = cols["end"][sort]
    pos = np.arange(n, dtype=np.int64)

    # ---- durations and flow enclosure, per thread ---------------------------------
    dur = (kind == BEGIN) | (kind == END)
    flow = _is_flow(kind)
    rows = np.nonzero(dur | flow)[0]
    # thread keys are small interned ids (>= 0): counted, not sorted
    threads_here = np.flatnonzero(np.bincount(thread[rows])).tolist() if len(rows) else []
    # only the top of a carried stack can be reached: as many entries as the thread
    # has ends here; the rest stays below untouched (and keeps every batch O(its size))
    ends = np.nonzero(kind == END)[0]
    n_ends = np.bincount(thread[ends])
    t_ends = np.flatnonzero(n_ends)
    reach = dict(zip(t_ends.tolist(), n_ends[t_ends].tolist()))
    carried = []
    hidden = {}
    for t in threads_here:
        st = engine.stacks.get(t, ())
        k = min(len(st), reach.get(t, 0))
        hidden[t] = len(st) - k
        carried.extend((t, st[i]) for i in range(len(st) - k, len(st)))
    nv = len(carried)
    s_thread = np.concatenate([np.asarray([t for t, _ in carried], np.int64), thread[rows]])
    s_pos = np.concatenate([np.arange(-nv, 0, dtype=np.int64), pos[rows]])
    s_kind = np.concatenate([np.full(nv, BEGIN, np.int64), kind[rows]])
    s_cat = np.concatenate([np.asarray([e[0] for _, e in carried], np.int64), cat[rows]])
    s_name = np.concatenate([np.asarray([e[1] for _, e in carried], np.int64), name[rows]])
    o = lexorder(s_thread, s_pos)
    s_thread, s_pos, s_kind, s_cat, s_name = s_thread[o], s_pos[o], s_kind[o], s_cat[o], s_name[o]
    delta = np.where(s_kind == BEGIN, 1, np.where(s_kind == END, -1, 0))
    cs = np.cumsum(delta)
    start = _segments(s_thread)
    starts = np.nonzero(start)[0]
    lens = np.diff(np.append(starts, len(s_thread)))
    depth = cs - np.repeat((cs - delta)[starts], lens)
    depth += np.repeat(np.asarray([hidden[t] for t in s_thread[starts].tolist()], np.int64), lens)
    if len(depth) and (np.any(depth < np.repeat(np.asarray([hidden[t] for t in s_thread[starts].tolist()],
                                                         np.int64), lens)) or depth.max() > engine.limits.max_stack):
        return False
    sflow = _is_flow(s_kind)
    if np.any(sflow & (depth <= 0)):
        return False  # no open duration: the loop decides (a complete event may enclose it)
    be = ~sflow
    level = np.where(s_kind == BEGIN, depth, depth + 1)[be]
    bt, bp, bk, bc, bn = s_thread[be], s_pos[be], s_kind[be], s_cat[be], s_name[be]
    o2 = lexorder(bt, level, bp)
    bt, bk, bc, bn, lv, bp = bt[o2], bk[o2], bc[o2], bn[o2], level[o2], bp[o2]
    is_end = bk == END
    e_at = np.nonzero(is_end)[0]
    if len(e_at):
        q = e_at - 1
        if (q.min() < 0 or np.any(bk[q] != BEGIN) or np.any(bt[q] != bt[e_at]) or np.any(lv[q] != lv[e_at])
                or np.any(bc[q] != bc[e_at]) or np.any(bn[q] != bn[e_at])):
            return False
    closed = np.zeros(len(bk), bool)
    closed[e_at - 1] = True
    open_b = np.nonzero((bk == BEGIN) & ~closed)[0]  # sorted by thread, then level: stack order

    # ---- async and flow ids ----------------------------------------------------------
    families = []
    for live, begin, middle, end, keyfn in (
        (engine.asyncs, ASYNC_BEGIN, ASYNC_INSTANT, ASYNC_END, lambda r: (process[r], cat[r], name[r], ids[r])),
        (engine.flows, FLOW_BEGIN, FLOW_STEP, FLOW_END, lambda r: (ids[r],)),
    ):
        r = np.nonzero((kind >= begin) & (kind <= end))[0]
        if not len(r):
            families.append(None)
            continue
        if len(live) + int(np.count_nonzero(kind[r] == begin)) >= engine.limits.max_live or len(live) > n:
            return False  # near the cap, or more carried ids than events: the loop is cheaper
        carried_keys = list(live)
        nc = len(carried_keys)
        kcols = [np.asarray(c, np.uint64) for c in zip(*carried_keys)] if nc else []
        own = keyfn(r)
        keys = tuple(np.concatenate([kcols[i].astype(own[i].dtype), own[i]]) if nc else own[i]
                     for i in range(len(own)))
        f_kind = np.concatenate([np.full(nc, begin, np.int64), kind[r]])
        f_pos = np.concatenate([np.arange(-nc, 0, dtype=np.int64), r])
        got = _states(f_kind, begin, middle, end, keys, f_pos, nc)
        if got is None:
            return False
        families.append((live, begin, end, keys, f_kind, f_pos, nc, carried_keys, got))

    # ---- proven clean: leave the engine as the loop would ------------------------------
    offset = cols["offset"][sort]
    index_s = cols["index"][sort]
    size = cols["size"][sort]
    vpos = bp[open_b]
    entries_t = bt[open_b].tolist()
    ent = []
    for t_, c_, n_, p_ in zip(entries_t, bc[open_b].tolist(), bn[open_b].tolist(), vpos.tolist()):
        if p_ < 0:
            ent.append((t_, carried[p_ + nv][1]))
        else:
            ent.append((t_, (c_, n_, int(offset[p_]), int(index_s[p_]), int(size[p_]))))
    for t in threads_here:
        st = engine.stacks.get(t)
        if st is not None:
            for _ in range(len(st) - hidden[t]):
                st.pop()
    for t, e in ent:
        st = engine.stacks.get(t)
        if st is None:
            st = engine.stacks[t] = deque(maxlen=engine.limits.max_stack)
        st.append(e)
    comp = np.nonzero(kind == COMPLETE)[0]
    if len(comp):
        ct = thread[comp]
        ce = complete_ends[comp]
        o3 = np.lexsort((ce, ct))
        lastc = np.ones(len(o3), bool)
        lastc[:-1] = ct[o3][1:] != ct[o3][:-1]
        for t, e in zip(ct[o3][lastc].tolist(), ce[o3][lastc].tolist()):
            if e > engine.complete_end.get(t, -1):
                engine.complete_end[t] = e
    for fam in families:
        if fam is None:
            continue
        live, begin, end, keys, f_kind, f_pos, nc, carried_keys, (order, last) = fam
        # per key: its last row, and its last begin
        k_sorted = f_kind[order]
        p_sorted = f_pos[order]
        key_start = _segments(*(x[order] for x in keys))
        seg = np.cumsum(key_start) - 1
        b_rows = np.nonzero(k_sorted == begin)[0]
        last_b = np.full(int(seg[-1]) + 1, -1, np.int64)
        last_b[seg[b_rows]] = b_rows  # b_rows ascend: the last write per key wins
        last_rows = np.nonzero(last)[0]
        live_end = k_sorted[last_rows] != end
        lb = last_b[seg[last_rows]]
        lb_pos = p_sorted[lb]
        # keys that ended, or were begun again here, leave the table; those live at the
        # end and begun here enter it in the order of their last begin
        first_rows = np.nonzero(key_start)[0]  # a carried key's virtual begin sorts first
        was_live = p_sorted[first_rows] < 0
        for i in np.nonzero(was_live & (~live_end | (lb_pos >= 0)))[0].tolist():
            live.pop(carried_keys[int(p_sorted[first_rows[i]]) + nc], None)
        enter = np.nonzero(live_end & (lb_pos >= 0))[0]
        enter = enter[np.argsort(lb_pos[enter], kind="stable")]
        for i in enter.tolist():
            row = int(order[lb[i]])
            key = tuple(int(x[row]) for x in keys)
            p = int(lb_pos[i])
            live[key] = (int(offset[p]), int(index_s[p]), int(size[p]))
    return True
