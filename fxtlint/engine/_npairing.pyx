# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""The pairing engine compiled (Cython 3, C++ mode): ``_pairing.PairingEngine``'s loop.

The same interface and the same verdicts as the reference engine (``_pairing``), which is
the specification: ``feed(batch)`` takes a ``_pairing.Batch`` (rows added one by one,
column chunks, the native walk's row blocks, or any of them together) or ``feed_columns(...)`` the columns themselves, and ``finish``
reports what is still open. Every diagnostic is made by the same rule, with the same
parameters, in the same order as the reference engine's loop makes it
(``tests/test_npairing.py`` holds the two to it).

What it keeps, in C++: per thread (interned id) a slot with its duration stack (a vector
whose front is dropped lazily at ``max_stack``), whether it has had a begin, and its
latest complete-event end as an instant (ticks, reading rate); live async and flow ids
in insertion-ordered maps (a vector of slots plus a hash index: dropping the oldest
eighth at ``max_live`` is O(1) amortised, as a deleted key is a dead slot swept when
half the slots are dead). A window is ordered by (time, record index) only when it is out
of order; instants compare exactly, cross-multiplied in 128 bits (``spec/_time``: t1/r1 <
t2/r2 iff t1*r2 < t2*r1, a rate of 0 read as the default). A clean trace never leaves
compiled code: Python is called only for a finding, kept by the sink as a row (``add_at``:
its diagnostic built by its rule when the report's are read; the per-rule cap asked first,
from the sink's bounds, ``_dropped``), or made and emitted where ``emit`` is no sink's.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memcpy
from libcpp cimport bool as cbool
from libcpp.vector cimport vector

from .. import rules as R
from ..spec._limits import DEFAULT_LIMITS
from ._result import sink_of
from ..spec._time import time_key

cdef extern from *:
    """
    #include <cstdint>
    #include <vector>
    #include <unordered_map>
    #include <algorithm>
    #include "_pairrow.h"

    namespace npair {

    typedef unsigned __int128 u128;

    static inline uint64_t mix64(uint64_t x) {
        x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27; x *= 0x94d049bb133111ebULL;
        x ^= x >> 31; return x;
    }

    // spec/_time.reading_rate: a rate of 0 converts nothing; its ticks are read at 1 GHz
    static inline uint64_t reading_rate(uint64_t rate) { return fxt_reading_rate(rate); }

    // is ticks t1 at reading rate r1 strictly before t2 at r2? exact: t1/r1 < t2/r2
    static inline bool time_lt(uint64_t t1, uint64_t r1, uint64_t t2, uint64_t r2) {
        if (r1 == r2) return t1 < t2;
        return (u128)t1 * r2 < (u128)t2 * r1;
    }

    // one pairing row (_pairing.COLUMNS), rr its reading rate: the native walk's layout (_pairrow.h)
    typedef fxt_pair_row Row;

    // a row before another in (time, record index) order
    static inline bool row_before(const Row& a, const Row& b) {
        if (time_lt(a.ts, a.rr, b.ts, b.rr)) return true;
        if (time_lt(b.ts, b.rr, a.ts, a.rr)) return false;
        return a.index < b.index;
    }

    // the window's positions (``perm``) in (time, record index) order, as the reference's stable sort of the
    // concatenated rows orders it. A window comes in chunks (one per record layout), each
    // in file order: its rows are first put in record-index order (scattered by index,
    // O(n), when the indexes are distinct and dense), then the ascending runs left are
    // merged pairwise (stably), so a window in time order costs a pass or two
    static void order_rows(const std::vector<Row>& rows, std::vector<uint32_t>& perm) {
        size_t n = rows.size();
        perm.clear();  // empty: the rows are in order as they are
        bool ordered = true;
        int64_t lo = n ? rows[0].index : 0, hi = lo;
        for (size_t i = 0; i + 1 < n; ++i) {
            if (row_before(rows[i + 1], rows[i])) ordered = false;
            lo = std::min(lo, rows[i + 1].index);
            hi = std::max(hi, rows[i + 1].index);
        }
        if (ordered) return;
        perm.resize(n);
        std::vector<uint32_t> buf(n);
        for (size_t p = 0; p < n; ++p) perm[p] = (uint32_t)p;
        if ((uint64_t)hi - (uint64_t)lo < 4 * (uint64_t)n) {
            std::vector<int32_t> at((size_t)((uint64_t)hi - (uint64_t)lo) + 1, -1);
            bool distinct = true;
            for (size_t p = 0; p < n && distinct; ++p) {
                int32_t& a = at[(size_t)((uint64_t)rows[p].index - (uint64_t)lo)];
                if (a >= 0) distinct = false;
                a = (int32_t)p;
            }
            if (distinct) {  // (with distinct indexes the order is one: stability is moot)
                size_t q = 0;
                for (int32_t a : at) if (a >= 0) perm[q++] = (uint32_t)a;
            }
        }
        auto before = [&rows](uint32_t a, uint32_t b) { return row_before(rows[a], rows[b]); };
        std::vector<size_t> runs{0};
        for (size_t i = 0; i + 1 < n; ++i)
            if (before(perm[i + 1], perm[i])) runs.push_back(i + 1);
        runs.push_back(n);
        while (runs.size() > 2) {
            std::vector<size_t> merged{0};
            for (size_t i = 0; i + 1 < runs.size(); i += 2) {
                if (i + 2 < runs.size()) {
                    std::merge(perm.begin() + runs[i], perm.begin() + runs[i + 1], perm.begin() + runs[i + 1],
                               perm.begin() + runs[i + 2], buf.begin() + runs[i], before);
                    merged.push_back(runs[i + 2]);
                } else {
                    std::copy(perm.begin() + runs[i], perm.begin() + runs[i + 1], buf.begin() + runs[i]);
                    merged.push_back(runs[i + 1]);
                }
            }
            perm.swap(buf);
            runs.swap(merged);
        }
    }

    struct Entry { int64_t cat, name, offset, index, size; };  // an open duration begin
    struct Where { int64_t offset, index, size; };  // where a live id was begun

    // a duration stack: a vector whose front is dropped lazily (the deque(maxlen) of the
    // reference); an empty one allocates nothing
    struct Stack {
        std::vector<Entry> v;
        size_t lo = 0;
        size_t size() const { return v.size() - lo; }
        bool empty() const { return v.size() == lo; }
        const Entry& at(size_t i) const { return v[lo + i]; }
        const Entry& back() const { return v.back(); }
        void push_back(const Entry& e) { v.push_back(e); }
        void pop_back() { v.pop_back(); if (v.size() == lo) { v.clear(); lo = 0; } }
        void pop_front() {
            if (++lo == v.size()) { v.clear(); lo = 0; }
            else if (lo > 64 && lo > v.size() / 2) { v.erase(v.begin(), v.begin() + lo); lo = 0; }
        }
    };

    struct ThreadState {
        int64_t thread = 0;
        bool began = false;        // has had a duration begin (the reference's ``began``)
        bool has_stack = false;    // its stack exists (the reference's ``stacks`` keys)
        bool has_complete = false;
        uint64_t cend_ticks = 0, cend_rr = 0;  // latest complete-event end
        Stack stack;
    };

    // per interned thread id: its slot (dense for small ids, hashed otherwise)
    struct Threads {
        std::vector<ThreadState> all;
        std::vector<int32_t> dense;
        std::unordered_map<int64_t, int32_t> sparse;
        static const int64_t DENSE = 1 << 20;
        int32_t find(int64_t t) const {
            if (t >= 0 && t < DENSE) return t < (int64_t)dense.size() ? dense[t] : -1;
            auto it = sparse.find(t);
            return it == sparse.end() ? -1 : it->second;
        }
        int32_t get(int64_t t) {
            int32_t s = find(t);
            if (s >= 0) return s;
            s = (int32_t)all.size();
            all.emplace_back();
            all.back().thread = t;
            if (t >= 0 && t < DENSE) {
                if (t >= (int64_t)dense.size()) dense.resize(std::max<size_t>((size_t)t + 1, dense.size() * 2), -1);
                dense[t] = s;
            } else {
                sparse[t] = s;
            }
            return s;
        }
    };

    struct AsyncKey {
        uint64_t process; int64_t cat, name; uint64_t id;
        bool operator==(const AsyncKey& o) const {
            return process == o.process && cat == o.cat && name == o.name && id == o.id;
        }
    };
    struct AsyncHash {
        size_t operator()(const AsyncKey& k) const {
            return mix64(k.process ^ mix64((uint64_t)k.cat ^ mix64((uint64_t)k.name ^ mix64(k.id))));
        }
    };
    struct Scope {  // an async scope: (process, category, name)
        uint64_t process; int64_t cat, name;
        bool operator==(const Scope& o) const { return process == o.process && cat == o.cat && name == o.name; }
    };
    struct ScopeHash {
        size_t operator()(const Scope& k) const {
            return mix64(k.process ^ mix64((uint64_t)k.cat ^ mix64((uint64_t)k.name)));
        }
    };
    struct DurKey {  // a duration's (thread, category, name)
        int64_t t, c, n;
        bool operator==(const DurKey& o) const { return t == o.t && c == o.c && n == o.n; }
    };
    struct DurHash {
        size_t operator()(const DurKey& k) const {
            return mix64((uint64_t)k.t ^ mix64((uint64_t)k.c ^ mix64((uint64_t)k.n)));
        }
    };
    struct IdHash { size_t operator()(uint64_t k) const { return mix64(k); } };

    // an open-addressing hash index (linear probing, deletion by backward shift): key ->
    // a size_t; no allocation per key
    template <class K, class H> struct Flat {
        std::vector<K> keys;
        std::vector<size_t> vals;
        std::vector<unsigned char> used;
        size_t mask = 0, count = 0;
        H hash;
        size_t size() const { return count; }
        size_t slot(const K& k) const {  // the slot holding k, or SIZE_MAX
            if (!count) return SIZE_MAX;
            for (size_t i = hash(k) & mask; used[i]; i = (i + 1) & mask)
                if (keys[i] == k) return i;
            return SIZE_MAX;
        }
        void grow() {
            size_t cap = keys.empty() ? 16 : keys.size() * 2;
            std::vector<K> ok; std::vector<size_t> ov; std::vector<unsigned char> ou;
            ok.swap(keys); ov.swap(vals); ou.swap(used);
            keys.resize(cap); vals.resize(cap); used.assign(cap, 0);
            mask = cap - 1;
            count = 0;
            for (size_t i = 0; i < ou.size(); ++i) if (ou[i]) set(ok[i], ov[i]);
        }
        void set(const K& k, size_t v) {  // insert or overwrite
            if ((count + 1) * 2 > keys.size()) grow();
            size_t i = hash(k) & mask;
            for (; used[i]; i = (i + 1) & mask)
                if (keys[i] == k) { vals[i] = v; return; }
            used[i] = 1; keys[i] = k; vals[i] = v; ++count;
        }
        void erase_slot(size_t i) {
            used[i] = 0;
            --count;
            for (size_t j = (i + 1) & mask; used[j]; j = (j + 1) & mask) {
                size_t ideal = hash(keys[j]) & mask;
                // keys[j] may move to the hole at i when its probe passes through i
                bool through = i <= j ? (ideal <= i || ideal > j) : (ideal <= i && ideal > j);
                if (through) {
                    keys[i] = keys[j]; vals[i] = vals[j]; used[i] = 1; used[j] = 0;
                    i = j;
                }
            }
        }
        void erase(const K& k) { size_t i = slot(k); if (i != SIZE_MAX) erase_slot(i); }
    };

    // live ids in insertion order: a key's slot, dead once popped or dropped
    template <class K, class H> struct Live {
        struct Slot { K key; Where where; bool alive; };
        std::vector<Slot> slots;
        size_t head = 0;  // every slot before it is dead
        Flat<K, H> at;
        size_t size() const { return at.size(); }
        bool has(const K& k) const { return at.slot(k) != SIZE_MAX; }
        bool pop(const K& k, Where* w) {
            size_t i = at.slot(k);
            if (i == SIZE_MAX) return false;
            Slot& s = slots[at.vals[i]];
            *w = s.where;
            s.alive = false;
            at.erase_slot(i);
            tidy();
            return true;
        }
        void put(const K& k, const Where& w) { at.set(k, slots.size()); slots.push_back(Slot{k, w, true}); }
        void drop_oldest(size_t n) {
            while (n && head < slots.size()) {
                Slot& s = slots[head++];
                if (s.alive) { s.alive = false; at.erase(s.key); --n; }
            }
            tidy();
        }
        void tidy() {
            size_t dead = slots.size() - at.size();
            if (dead > 64 && dead > at.size()) {
                size_t w = 0;
                for (size_t i = head; i < slots.size(); ++i) {
                    if (slots[i].alive) { slots[w] = slots[i]; at.set(slots[w].key, w); ++w; }
                }
                slots.resize(w);
                head = 0;
            }
        }
    };
    typedef Live<AsyncKey, AsyncHash> AsyncLive;
    typedef Live<uint64_t, IdHash> FlowLive;
    typedef AsyncLive::Slot AsyncSlot;
    typedef FlowLive::Slot FlowSlot;
    struct ScopeSet {  // the async scopes that have had a begin
        Flat<Scope, ScopeHash> at;
        size_t count(const Scope& k) const { return at.slot(k) != SIZE_MAX; }
        void insert(const Scope& k) { if (at.slot(k) == SIZE_MAX) at.set(k, 0); }
    };
    static std::vector<Scope> scopes_of(const ScopeSet& s) {
        std::vector<Scope> out;
        for (size_t i = 0; i < s.at.used.size(); ++i) if (s.at.used[i]) out.push_back(s.at.keys[i]);
        return out;
    }

    // a window's begins that an end stamped before them pairs with (_pairing._EarlyEnds):
    // indexed on first use; an end looks at most max_scan of its key's later begins
    struct Early {
        const std::vector<Row>* rows = nullptr;
        const std::vector<uint32_t>* perm = nullptr;  // (time, index) order; empty: as they are
        int64_t max_scan = 0;
        const Row& row(size_t p) const { return perm->empty() ? (*rows)[p] : (*rows)[(*perm)[p]]; }
        bool built = false;
        std::unordered_map<DurKey, std::vector<uint32_t>, DurHash> begins;
        std::vector<char> used;
        size_t n_used = 0;
        bool is_used(size_t j) const { return n_used && used[j]; }
        int64_t begin_of(size_t j, int64_t begin_kind) {
            size_t n = rows->size();
            if (!built) {
                built = true;
                used.assign(n, 0);
                for (size_t p = 0; p < n; ++p) {
                    const Row& b = row(p);
                    if (b.kind == begin_kind) begins[DurKey{b.thread, b.cat, b.name}].push_back((uint32_t)p);
                }
            }
            const Row& e = row(j);
            auto it = begins.find(DurKey{e.thread, e.cat, e.name});
            if (it == begins.end()) return -1;
            const std::vector<uint32_t>& later = it->second;
            size_t at = std::upper_bound(later.begin(), later.end(), (uint32_t)j) - later.begin();
            size_t stop = at + (size_t)max_scan < later.size() ? at + (size_t)max_scan : later.size();
            for (size_t q = at; q < stop; ++q) {
                uint32_t p = later[q];
                if (!used[p] && row(p).index < e.index) {
                    used[p] = 1;
                    ++n_used;
                    return p;
                }
            }
            return -1;
        }
    };

    }  // namespace npair
    """
    cdef cppclass Row "npair::Row":
        int64_t kind, thread
        uint64_t process
        int64_t cat, name
        uint64_t ts, id, end
        int64_t offset, index, size
        uint64_t rate, rr

    cdef cppclass Entry "npair::Entry":
        int64_t cat, name, offset, index, size

    cdef cppclass Where "npair::Where":
        int64_t offset, index, size

    cdef cppclass Stack "npair::Stack":
        size_t size()
        cbool empty()
        const Entry& at(size_t)
        const Entry& back()
        void push_back(const Entry&)
        void pop_back()
        void pop_front()

    cdef cppclass ThreadState "npair::ThreadState":
        int64_t thread
        cbool began, has_stack, has_complete
        uint64_t cend_ticks, cend_rr
        Stack stack

    cdef cppclass Threads "npair::Threads":
        vector[ThreadState] all
        int32_t find(int64_t)
        int32_t get(int64_t)

    cdef cppclass AsyncKey "npair::AsyncKey":
        uint64_t process
        int64_t cat, name
        uint64_t id

    cdef cppclass Scope "npair::Scope":
        uint64_t process
        int64_t cat, name

    cdef cppclass ScopeSet "npair::ScopeSet":
        size_t count(const Scope&)
        void insert(const Scope&)

    cdef cppclass AsyncSlot "npair::AsyncSlot":
        AsyncKey key
        Where where
        cbool alive

    cdef cppclass FlowSlot "npair::FlowSlot":
        uint64_t key
        Where where
        cbool alive

    cdef cppclass AsyncLive "npair::AsyncLive":
        vector[AsyncSlot] slots
        size_t head
        size_t size()
        cbool has(const AsyncKey&)
        cbool pop(const AsyncKey&, Where*)
        void put(const AsyncKey&, const Where&)
        void drop_oldest(size_t)

    cdef cppclass FlowLive "npair::FlowLive":
        vector[FlowSlot] slots
        size_t head
        size_t size()
        cbool has(uint64_t)
        cbool pop(uint64_t, Where*)
        void put(uint64_t, const Where&)
        void drop_oldest(size_t)

    cdef cppclass Early "npair::Early":
        const vector[Row]* rows
        const vector[uint32_t]* perm
        int64_t max_scan
        cbool is_used(size_t)
        int64_t begin_of(size_t, int64_t)

    vector[Scope] scopes_of "npair::scopes_of"(const ScopeSet&)
    uint64_t reading_rate "npair::reading_rate"(uint64_t)
    cbool time_lt "npair::time_lt"(uint64_t, uint64_t, uint64_t, uint64_t)
    void order_rows "npair::order_rows"(const vector[Row]&, vector[uint32_t]&) except +


# the engine's event kinds (``_pairing.PairKind``; the tests hold the numbers equal)
cdef enum:
    BEGIN = 0
    END = 1
    COMPLETE = 2
    ASYNC_BEGIN = 3
    ASYNC_INSTANT = 4
    ASYNC_END = 5
    FLOW_BEGIN = 6
    FLOW_STEP = 7
    FLOW_END = 8

# the numbers above by name: the engine choice checks them against ``_pairing.PairKind``
KINDS = {"BEGIN": BEGIN, "END": END, "COMPLETE": COMPLETE, "ASYNC_BEGIN": ASYNC_BEGIN, "ASYNC_INSTANT": ASYNC_INSTANT,
         "ASYNC_END": ASYNC_END, "FLOW_BEGIN": FLOW_BEGIN, "FLOW_STEP": FLOW_STEP, "FLOW_END": FLOW_END}

# overflow kinds, reported once each (the reference's ``overflowed`` words)
cdef enum:
    OVER_STACK = 1
    OVER_ASYNC = 2
    OVER_FLOW = 4

_OVERFLOW_WORDS = ((OVER_STACK, "duration stack"), (OVER_ASYNC, "live async ids"), (OVER_FLOW, "live flow ids"))
cdef int64_t _CAP = 1 << 62  # a limit beyond this is no limit


cdef inline int64_t _cap(object v):
    return _CAP if v > _CAP else v


# the bytes of one row of a block (``_pairrow.h``, the native walk's ``take_row_block``)
ROW_BYTES = sizeof(Row)


cdef class PairingEngine:
    """Matches begins with ends; ``strings`` maps interned string ids back to text
    (``_pairing.PairingEngine``'s interface)."""

    # the native walk hands this engine its rows as blocks of this many bytes each
    # (``_pairing.Batch.add_block``); the Python engine has no such attribute
    ROW_BLOCK_BYTES = ROW_BYTES


    cdef readonly object emit, strings, limits, buffering_mode
    # the sink's ``skips`` (``_result.skipper``): a diagnostic the cap would drop is counted, not built
    cdef public object skips
    # the sink's ``add_at`` (a finding kept as a row, built when read), its bounds and ignored
    # codes (``_dropped``: the cap asked natively where it keeps the finding); None: another ``emit``
    cdef object add_at, bounds, ignored
    cdef readonly cbool circular
    cdef int64_t max_stack, max_live, max_scan
    cdef Threads threads
    cdef vector[int32_t] stack_order  # thread slots in the order their stacks were made
    cdef ScopeSet began_scopes
    cdef cbool _flow_began
    cdef int over
    cdef AsyncLive asyncs_
    cdef FlowLive flows_
    cdef vector[Row] rows  # the window, as it came
    cdef vector[uint32_t] perm  # its (time, record index) order; empty: as it came

    def __init__(self, emit, strings, limits=DEFAULT_LIMITS, *, buffering_mode=None):
        self.emit = emit
        sink = sink_of(emit)
        self.skips = None if sink is None else sink.skips
        self.add_at = None if sink is None else sink.add_at
        self.bounds = None if sink is None else sink._bound
        self.ignored = None if sink is None else sink.ignored
        self.strings = strings
        self.limits = limits
        self.buffering_mode = buffering_mode
        self.circular = buffering_mode == "circular"
        self.max_stack = _cap(limits.max_stack)
        self.max_live = _cap(limits.max_live)
        self.max_scan = _cap(limits.max_scan)
        self._flow_began = False
        self.over = 0

    # -- the reference's state, as Python values (snapshots, for tests and tools) -------
    @property
    def stacks(self) -> dict:
        """Per thread with a stack (in the order they were made): its open begins, bottom
        first, each (category, name, offset, index, size)."""
        out = {}
        cdef int32_t s
        cdef size_t i
        for s in self.stack_order:
            st = &self.threads.all[s].stack
            out[self.threads.all[s].thread] = [(st.at(i).cat, st.at(i).name, st.at(i).offset, st.at(i).index,
                                                st.at(i).size) for i in range(st.size())]
        return out

    @property
    def complete_end(self) -> dict:
        """Per thread: the latest end of a complete event seen (its ``time_key``)."""
        cdef size_t s
        return {self.threads.all[s].thread: time_key(self.threads.all[s].cend_ticks, self.threads.all[s].cend_rr)
                for s in range(self.threads.all.size()) if self.threads.all[s].has_complete}

    @property
    def began(self) -> set:
        cdef size_t s
        return {self.threads.all[s].thread for s in range(self.threads.all.size()) if self.threads.all[s].began}

    @property
    def began_async(self) -> set:
        """The async scopes (process, category, name) that have had a begin."""
        return {(x.process, x.cat, x.name) for x in scopes_of(self.began_scopes)}

    @property
    def flow_began(self) -> bool:
        return self._flow_began

    @property
    def overflowed(self) -> set:
        return {word for bit, word in _OVERFLOW_WORDS if self.over & bit}

    @property
    def asyncs(self) -> dict:
        """Live async ids in the order they were begun: (process, category, name, id) ->
        (offset, index, size)."""
        cdef size_t i
        out = {}
        for i in range(self.asyncs_.head, self.asyncs_.slots.size()):
            if self.asyncs_.slots[i].alive:
                k = &self.asyncs_.slots[i].key
                w = &self.asyncs_.slots[i].where
                out[(k.process, k.cat, k.name, k.id)] = (w.offset, w.index, w.size)
        return out

    @property
    def flows(self) -> dict:
        """Live flow ids in the order they were begun: (id,) -> (offset, index, size)."""
        cdef size_t i
        out = {}
        for i in range(self.flows_.head, self.flows_.slots.size()):
            if self.flows_.slots[i].alive:
                w = &self.flows_.slots[i].where
                out[(self.flows_.slots[i].key,)] = (w.offset, w.index, w.size)
        return out

    # -- feeding ----------------------------------------------------------------------------
    def feed(self, b) -> None:
        """Pair one window (a ``_pairing.Batch``): its blocks of rows, then its rows added
        one by one, ordered by (time, record index)."""
        if not len(b):
            return
        self.rows.clear()
        self.rows.reserve(len(b))  # once: a reserve per chunk would copy the window again each time
        for blk in b._blocks:
            self._take_block(blk)
        cdef Row r
        for row in b._rows:
            (r.kind, r.thread, r.process, r.cat, r.name, r.ts, r.id, r.end, r.offset, r.index, r.size,
             r.rate) = row
            r.rr = reading_rate(r.rate)
            self.rows.push_back(r)
        self._run()

    def feed_columns(self, kind, thread, process, cat, name, ts, id, end, offset, index, size, rate) -> None:
        """Pair one window given as columns (``_pairing.COLUMNS``' names and order; int64
        kind, thread, cat, name, offset, index and size, uint64 the others; any buffer: a
        compiled caller passes typed memoryviews of its own vectors, no numpy needed)."""
        self.rows.clear()
        self.rows.reserve(len(kind))
        self._take(kind, thread, process, cat, name, ts, id, end, offset, index, size, rate)
        if self.rows.size():
            self._run()

    cdef int _take(self, const int64_t[:] kind, const int64_t[:] thread, const uint64_t[:] process,
                   const int64_t[:] cat, const int64_t[:] name, const uint64_t[:] ts, const uint64_t[:] ids,
                   const uint64_t[:] end, const int64_t[:] offset, const int64_t[:] index, const int64_t[:] size,
                   const uint64_t[:] rate) except -1:
        cdef Py_ssize_t n = kind.shape[0], j
        if not (thread.shape[0] == process.shape[0] == cat.shape[0] == name.shape[0] == ts.shape[0] == ids.shape[0]
                == end.shape[0] == offset.shape[0] == index.shape[0] == size.shape[0] == rate.shape[0] == n):
            raise ValueError("pairing columns of different lengths")
        cdef Row r
        for j in range(n):
            r.kind = kind[j]
            r.thread = thread[j]
            r.process = process[j]
            r.cat = cat[j]
            r.name = name[j]
            r.ts = ts[j]
            r.id = ids[j]
            r.end = end[j]
            r.offset = offset[j]
            r.index = index[j]
            r.size = size[j]
            r.rate = rate[j]
            r.rr = reading_rate(r.rate)
            self.rows.push_back(r)
        return 0

    cdef int _take_block(self, const unsigned char[::1] blk) except -1:
        """Rows as the native walk wrote them (``_pairrow.h``: this engine's ``Row``), copied in whole."""
        cdef size_t nbytes = blk.shape[0], n = nbytes // sizeof(Row), old = self.rows.size()
        if n * sizeof(Row) != nbytes:
            raise ValueError("a block of pairing rows that is not whole rows")
        if n:
            self.rows.resize(old + n)
            memcpy(&self.rows[old], &blk[0], nbytes)
        return 0

    cdef int _run(self) except -1:
        """The reference's loop over the window in (time, record index) order."""
        order_rows(self.rows, self.perm)
        cdef Early early
        early.rows = &self.rows
        early.perm = &self.perm
        early.max_scan = self.max_scan
        cdef size_t j, n = self.rows.size()
        cdef Row* r
        cdef int32_t s
        cdef ThreadState* th
        cdef Entry e
        cdef Stack* st
        cdef AsyncKey ak
        cdef Scope scope
        cdef Where w
        cdef cbool live
        cdef int64_t k
        for j in range(n):
            r = self._row(j)
            k = r.kind
            if k == BEGIN:
                if early.is_used(j):
                    continue  # paired already with an end stamped before it
                s = self.threads.get(r.thread)
                th = &self.threads.all[s]
                th.began = True
                if not th.has_stack:
                    th.has_stack = True
                    self.stack_order.push_back(s)
                elif <int64_t>th.stack.size() == self.max_stack:
                    self._overflow(OVER_STACK, r.offset, r.index, r.size, self.max_stack)
                    th = &self.threads.all[s]
                e.cat, e.name, e.offset, e.index, e.size = r.cat, r.name, r.offset, r.index, r.size
                th.stack.push_back(e)
                if <int64_t>th.stack.size() > self.max_stack:
                    th.stack.pop_front()  # deque(maxlen=max_stack): the oldest falls off
            elif k == END:
                s = self.threads.find(r.thread)
                if s >= 0:
                    st = &self.threads.all[s].stack
                    if not st.empty() and st.back().cat == r.cat and st.back().name == r.name:
                        st.pop_back()
                        continue
                self._unmatched_end(s, j, &early)
            elif k == COMPLETE:
                s = self.threads.get(r.thread)
                th = &self.threads.all[s]
                if not th.has_complete or time_lt(th.cend_ticks, th.cend_rr, r.end, r.rr):
                    th.has_complete = True
                    th.cend_ticks = r.end
                    th.cend_rr = r.rr
            elif ASYNC_BEGIN <= k <= ASYNC_END:
                ak.process, ak.cat, ak.name, ak.id = r.process, r.cat, r.name, r.id
                if k == ASYNC_BEGIN:
                    scope.process, scope.cat, scope.name = r.process, r.cat, r.name
                    self.began_scopes.insert(scope)
                    if self.asyncs_.pop(ak, &w):
                        if not self._dropped(R.id_begin_reused, r.offset, r.index):
                            self._say(R.id_begin_reused, r.offset, r.index, r.size,
                                      dict(what="async", id=r.id, name=self._s(r.name), first=w.offset))
                    elif <int64_t>self.asyncs_.size() >= self.max_live:
                        self._overflow(OVER_ASYNC, r.offset, r.index, r.size, self.max_live)
                        self.asyncs_.drop_oldest(self.max_live // 8)
                    w.offset, w.index, w.size = r.offset, r.index, r.size
                    self.asyncs_.put(ak, w)
                    continue
                live = self.asyncs_.has(ak) if k == ASYNC_INSTANT else self.asyncs_.pop(ak, &w)
                if not live:
                    scope.process, scope.cat, scope.name = r.process, r.cat, r.name
                    if not (self.circular and not self.began_scopes.count(scope)):
                        if not self._dropped(R.async_without_begin, r.offset, r.index):
                            self._say(R.async_without_begin, r.offset, r.index, r.size,
                                      dict(what="instant" if k == ASYNC_INSTANT else "end", id=r.id,
                                           name=self._s(r.name), cat=self._s(r.cat)))
            elif FLOW_BEGIN <= k <= FLOW_END:
                s = self.threads.find(r.thread)
                if s < 0 or (self.threads.all[s].stack.empty() and (
                        not self.threads.all[s].has_complete
                        or time_lt(self.threads.all[s].cend_ticks, self.threads.all[s].cend_rr, r.ts, r.rr))):
                    if not self._dropped(R.flow_outside_duration, r.offset, r.index):
                        self._say(R.flow_outside_duration, r.offset, r.index, r.size, dict(id=r.id))
                if k == FLOW_BEGIN:
                    self._flow_began = True
                    if self.flows_.pop(r.id, &w):
                        if not self._dropped(R.id_begin_reused, r.offset, r.index):
                            self._say(R.id_begin_reused, r.offset, r.index, r.size,
                                      dict(what="flow", id=r.id, name=self._s(r.name), first=w.offset))
                    elif <int64_t>self.flows_.size() >= self.max_live:
                        self._overflow(OVER_FLOW, r.offset, r.index, r.size, self.max_live)
                        self.flows_.drop_oldest(self.max_live // 8)
                    w.offset, w.index, w.size = r.offset, r.index, r.size
                    self.flows_.put(r.id, w)
                    continue
                live = self.flows_.has(r.id) if k == FLOW_STEP else self.flows_.pop(r.id, &w)
                if not live and not (self.circular and not self._flow_began):
                    if not self._dropped(R.flow_without_begin, r.offset, r.index):
                        self._say(R.flow_without_begin, r.offset, r.index, r.size,
                                  dict(what="step" if k == FLOW_STEP else "end", id=r.id))
        self.rows.clear()
        self.perm.clear()
        return 0

    cdef inline Row* _row(self, size_t j):
        """The window's ``j``-th row in (time, record index) order."""
        return &self.rows[self.perm[j]] if self.perm.size() else &self.rows[j]

    cdef object _s(self, int64_t gid):
        strings = self.strings
        return strings[gid] if 0 <= gid < len(strings) else "?"

    cdef int _dropped(self, rule, int64_t offset, int64_t index) except -1:
        """Whether the cap drops a finding of ``rule`` at (``offset``, ``index``) (then counted:
        ``skips``), asked before its parameters are worked out; the sink's bound is read here
        and ``skips`` called only where it may drop (the usual finding costs no Python call)."""
        if self.skips is None:
            return False
        code = rule.code
        if code not in self.ignored:
            bound = self.bounds.get(code)
            if bound is None or (offset, index) <= bound:
                return False
        return self.skips(rule, offset, index)

    cdef int _say(self, rule, int64_t offset, int64_t index, int64_t size, dict params) except -1:
        """The finding ``rule.at(offset, index, record_size=size, **params)``, the cap asked
        (``_dropped``): a row of the sink (``add_at``) or a diagnostic emitted."""
        if self.add_at is not None:
            self.add_at(rule, offset, index, size, params)
        else:
            self.emit(rule.at(offset, index, record_size=size, **params))
        return 0

    cdef int _overflow(self, int bit, int64_t offset, int64_t index, int64_t size, int64_t limit) except -1:
        if not self.over & bit:
            self.over |= bit
            what = "duration stack" if bit == OVER_STACK else "live async ids" if bit == OVER_ASYNC else "live flow ids"
            if not self._dropped(R.pairing_state_overflow, offset, index):
                self._say(R.pairing_state_overflow, offset, index, size, dict(what=what, limit=limit))
        return 0

    cdef int _unmatched_end(self, int32_t s, size_t j, Early* early) except -1:
        """A duration end (row ``j``) that does not close the top of its thread's stack
        (``_pairing.PairingEngine._unmatched_end``)."""
        cdef Row* r = self._row(j)
        cdef Stack* st
        cdef Entry top, o
        cdef Py_ssize_t depth, lo
        cdef cbool first
        if s < 0 or self.threads.all[s].stack.empty():
            if self._early_end(j, early):
                return 0
            s = self.threads.find(r.thread)
            first = s < 0 or not self.threads.all[s].began
            if not (first and self.circular):
                if not self._dropped(R.duration_end_without_begin, r.offset, r.index):
                    self._say(R.duration_end_without_begin, r.offset, r.index, r.size,
                              dict(cat=self._s(r.cat), name=self._s(r.name), before_first_begin=first,
                                   mode_given=self.buffering_mode is not None))
            return 0
        st = &self.threads.all[s].stack
        top = st.back()
        lo = max(-1, <Py_ssize_t>st.size() - 2 - self.max_scan)
        depth = <Py_ssize_t>st.size() - 2
        # an outer begin of the same name: the begins above it were never ended
        while depth > lo:
            if st.at(depth).cat == r.cat and st.at(depth).name == r.name:
                while <Py_ssize_t>st.size() > depth + 1:
                    o = st.back()
                    st.pop_back()
                    if not self._dropped(R.duration_never_ended, o.offset, o.index):
                        self._say(R.duration_never_ended, o.offset, o.index, o.size,
                                  dict(cat=self._s(o.cat), name=self._s(o.name), end_offset=r.offset))
                    st = &self.threads.all[s].stack
                st.pop_back()
                return 0
            depth -= 1
        if self._early_end(j, early):
            return 0
        self.threads.all[s].stack.pop_back()
        if not self._dropped(R.duration_end_mismatch, r.offset, r.index):
            self._say(R.duration_end_mismatch, r.offset, r.index, r.size,
                      dict(cat=self._s(r.cat), name=self._s(r.name), bcat=self._s(top.cat), bname=self._s(top.name),
                           begin_offset=top.offset))
        return 0

    cdef int _early_end(self, size_t j, Early* early) except -1:
        """PR002 in timestamps for an end whose own begin is stamped after it (True), if it has one."""
        cdef int64_t b = early.begin_of(j, BEGIN)
        if b < 0:
            return False
        cdef Row* r = self._row(j)
        cdef Row* rb = self._row(b)
        self.threads.all[self.threads.get(r.thread)].began = True
        if not self._dropped(R.duration_end_mismatch, r.offset, r.index):
            self._say(R.duration_end_mismatch, r.offset, r.index, r.size,
                      dict(cat=self._s(r.cat), name=self._s(r.name), bcat=self._s(r.cat), bname=self._s(r.name),
                           begin_offset=rb.offset, ts=r.ts, begin_ts=rb.ts, rate=r.rate, begin_rate=rb.rate))
        return True

    def finish(self, cut_short=False, dropped_at=None) -> None:
        """Report what is still open when the trace ends (``_pairing.PairingEngine.finish``)."""
        if dropped_at is None or self.buffering_mode is None:
            dropped_at = -1
        cdef int64_t drop = dropped_at
        cdef int32_t s
        cdef size_t i
        cdef Entry e
        cdef Stack* st
        for s in self.stack_order:
            st = &self.threads.all[s].stack
            for i in range(st.size()):
                e = st.at(i)
                if e.index < drop:
                    continue
                if not self._dropped(R.unterminated_at_end, e.offset, e.index):
                    self._say(R.unterminated_at_end, e.offset, e.index, e.size,
                              dict(what="duration", detail=f"{self._s(e.cat)}/{self._s(e.name)}",
                                   cut_short=cut_short))
                st = &self.threads.all[s].stack
        cdef Where w
        cdef AsyncKey k
        for i in range(self.asyncs_.head, self.asyncs_.slots.size()):
            if not self.asyncs_.slots[i].alive:
                continue
            w = self.asyncs_.slots[i].where
            k = self.asyncs_.slots[i].key
            if w.index < drop:
                continue
            if not self._dropped(R.unterminated_at_end, w.offset, w.index):
                self._say(R.unterminated_at_end, w.offset, w.index, w.size,
                          dict(what="async operation",
                               detail=f"{self._s(k.cat)}/{self._s(k.name)} id {<object>k.id:#x}",
                               cut_short=cut_short))
        cdef uint64_t fid
        for i in range(self.flows_.head, self.flows_.slots.size()):
            if not self.flows_.slots[i].alive:
                continue
            w = self.flows_.slots[i].where
            fid = self.flows_.slots[i].key
            if w.index < drop:
                continue
            if not self._dropped(R.unterminated_at_end, w.offset, w.index):
                self._say(R.unterminated_at_end, w.offset, w.index, w.size,
                          dict(what="flow", detail=f"id {<object>fid:#x}", cut_short=cut_short))

    # -- a copy (``rewrite/_continue``: IN's lint finished on a copy of its state at a framing stop) --
    def __deepcopy__(self, memo):
        """A copy of this engine: its C++ state (stacks, live ids, scopes, the window's rows)
        copied by value, its Python references (``emit``, ``strings``, the sink's ``skips``,
        ``add_at``, bounds and ignored codes, ``limits``) taken through ``memo`` (``copy.deepcopy``:
        the copy reports to the copied sink)."""
        from copy import deepcopy

        cdef PairingEngine c = PairingEngine.__new__(PairingEngine)
        memo[id(self)] = c
        c.emit = deepcopy(self.emit, memo)
        c.strings = deepcopy(self.strings, memo)
        c.limits = deepcopy(self.limits, memo)
        c.buffering_mode = self.buffering_mode
        c.skips = deepcopy(self.skips, memo)
        c.add_at = deepcopy(self.add_at, memo)
        c.bounds = deepcopy(self.bounds, memo)
        c.ignored = deepcopy(self.ignored, memo)
        c.circular = self.circular
        c.max_stack, c.max_live, c.max_scan = self.max_stack, self.max_live, self.max_scan
        c.threads = self.threads
        c.stack_order = self.stack_order
        c.began_scopes = self.began_scopes
        c._flow_began = self._flow_began
        c.over = self.over
        c.asyncs_ = self.asyncs_
        c.flows_ = self.flows_
        c.rows = self.rows
        c.perm = self.perm
        return c
