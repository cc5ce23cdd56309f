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
compiled code, nor does a finding: each is kept as a native row (``Found``: its variant,
record and integer parameters, interned string ids among them; ``_note``), the per-rule cap
asked first from the sink's bounds as the window began (past a bound: counted), and the
window's rows are handed to the sink in one call (``add_found``: held as a block, each
diagnostic built by its rule when the report's are read, ``Findings.made``), sooner where a
rule would reach its cap (``room``: the finding that reaches it said alone, as one by one).
With a listener or an override each finding is handed over as it is found, and where
``emit`` is no sink's each is made and emitted in the same order.
"""

from libc.stdint cimport int32_t, int64_t, uint32_t, uint64_t
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

    // n whole rows appended from a block of bytes as the native walk wrote them (_pairrow.h's
    // layout), copied once: a resize first would zero them only to copy over them
    static void append_rows(std::vector<Row>& rows, const unsigned char* blk, size_t n) {
        if (!n) return;
        // (a trivially copyable row: insert over a range of the block's rows is a memmove)
        const Row* first = reinterpret_cast<const Row*>(blk);
        rows.insert(rows.end(), first, first + n);
    }

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
    void append_rows "npair::append_rows"(vector[Row]&, const unsigned char*, size_t) except +


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


# a finding as the loop makes it: its variant (the rule and the words of its parameters),
# its record and up to seven integer parameters (interned string ids, ids, offsets, times)
cdef struct Found:
    int64_t what
    int64_t offset, index, size
    uint64_t p[7]

# the variants of a finding (``Found.what``) and each one's rule (``_RULE_OF``, by slot)
cdef enum:
    F_REUSED_ASYNC = 0     # id, name, first
    F_REUSED_FLOW = 1      # id, name, first
    F_ASYNC_INSTANT = 2    # id, name, cat (async without begin)
    F_ASYNC_END = 3        # id, name, cat
    F_FLOW_OUTSIDE = 4     # id
    F_FLOW_STEP = 5        # id (flow without begin)
    F_FLOW_END = 6         # id
    F_OVERFLOW = 7         # bit, limit
    F_END_NO_BEGIN = 8     # cat, name, before first begin, mode given
    F_NEVER_ENDED = 9      # cat, name, end offset
    F_MISMATCH = 10        # cat, name, bcat, bname, begin offset
    F_EARLY = 11           # cat, name, begin offset, ts, begin ts, rate, begin rate
    F_OPEN_DURATION = 12   # cat, name, cut short
    F_OPEN_ASYNC = 13      # cat, name, id, cut short
    F_OPEN_FLOW = 14       # id, cut short
    N_VARIANTS = 15

# the rules the engine reports (a slot each) and each variant's slot
_RULES = (R.id_begin_reused, R.async_without_begin, R.flow_outside_duration, R.flow_without_begin,
          R.pairing_state_overflow, R.duration_end_without_begin, R.duration_never_ended, R.duration_end_mismatch,
          R.unterminated_at_end)
cdef enum:
    N_RULES = 9
cdef int _SLOT[15]
_SLOT[:] = [0, 0, 1, 1, 2, 3, 3, 4, 5, 6, 7, 7, 8, 8, 8]


cdef class Findings:
    """One feed's (or finish's) findings, handed to the sink in one call (``DiagnosticSink.add_found``):
    rows of integers, each diagnostic built by its rule from them when read (``made``: the same
    rule, parameters and order as a finding said one by one), or said one by one (``each``)."""

    cdef vector[Found] rows
    cdef object strings
    cdef Py_ssize_t nstr  # the interned strings there were when found (a later one is not read)
    cdef cbool mode_given

    def __len__(self):
        return self.rows.size()

    cdef object _s(self, uint64_t gid):
        cdef int64_t g = <int64_t>gid
        return self.strings[g] if 0 <= g < self.nstr else "?"

    cdef tuple _said(self, Found* f):
        """(rule, its parameters) of a finding: the reference's dict, word for word."""
        cdef int64_t v = f.what
        rule = _RULES[_SLOT[v]]
        if v == F_REUSED_ASYNC or v == F_REUSED_FLOW:
            params = dict(what="async" if v == F_REUSED_ASYNC else "flow", id=f.p[0], name=self._s(f.p[1]),
                          first=<int64_t>f.p[2])
        elif v == F_ASYNC_INSTANT or v == F_ASYNC_END:
            params = dict(what="instant" if v == F_ASYNC_INSTANT else "end", id=f.p[0], name=self._s(f.p[1]),
                          cat=self._s(f.p[2]))
        elif v == F_FLOW_OUTSIDE:
            params = dict(id=f.p[0])
        elif v == F_FLOW_STEP or v == F_FLOW_END:
            params = dict(what="step" if v == F_FLOW_STEP else "end", id=f.p[0])
        elif v == F_OVERFLOW:
            what = ("duration stack" if f.p[0] == OVER_STACK else "live async ids" if f.p[0] == OVER_ASYNC
                    else "live flow ids")
            params = dict(what=what, limit=<int64_t>f.p[1])
        elif v == F_END_NO_BEGIN:
            params = dict(cat=self._s(f.p[0]), name=self._s(f.p[1]), before_first_begin=f.p[2] != 0,
                          mode_given=f.p[3] != 0)
        elif v == F_NEVER_ENDED:
            params = dict(cat=self._s(f.p[0]), name=self._s(f.p[1]), end_offset=<int64_t>f.p[2])
        elif v == F_MISMATCH:
            params = dict(cat=self._s(f.p[0]), name=self._s(f.p[1]), bcat=self._s(f.p[2]), bname=self._s(f.p[3]),
                          begin_offset=<int64_t>f.p[4])
        elif v == F_EARLY:
            cat, name = self._s(f.p[0]), self._s(f.p[1])
            params = dict(cat=cat, name=name, bcat=cat, bname=name, begin_offset=<int64_t>f.p[2], ts=f.p[3],
                          begin_ts=f.p[4], rate=f.p[5], begin_rate=f.p[6])
        elif v == F_OPEN_DURATION:
            params = dict(what="duration", detail=f"{self._s(f.p[0])}/{self._s(f.p[1])}", cut_short=f.p[2] != 0)
        elif v == F_OPEN_ASYNC:
            params = dict(what="async operation", detail=f"{self._s(f.p[0])}/{self._s(f.p[1])} id {<object>f.p[2]:#x}",
                          cut_short=f.p[3] != 0)
        else:
            params = dict(what="flow", detail=f"id {<object>f.p[0]:#x}", cut_short=f.p[1] != 0)
        return rule, params

    def each(self) -> list:
        """Its findings in order, each (rule, offset, record index, record size, parameters)."""
        cdef size_t i
        cdef Found* f
        out = []
        for i in range(self.rows.size()):
            f = &self.rows[i]
            rule, params = self._said(f)
            out.append((rule, f.offset, f.index, f.size, params))
        return out

    def made(self, str code) -> list:
        """The diagnostics of its findings of rule ``code``, in order (``_result._Found``)."""
        cdef size_t i
        cdef Found* f
        out = []
        for i in range(self.rows.size()):
            f = &self.rows[i]
            if _RULES[_SLOT[f.what]].code == code:
                rule, params = self._said(f)
                out.append(rule.at(f.offset, f.index, None, f.size, **params))
        return out

    def __deepcopy__(self, memo):
        return self  # (not changed once handed over)



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
    # the sink (None: ``emit`` is another callable), its ignored codes as rule slots and, per
    # slot, the cap's bound as the window began (``_bounds``): a finding past it is counted
    # (``dropped``), ``ignored`` not kept; the others are kept (``found``) and handed to the
    # sink in one call (``add_found``) at the end of the window or ``finish``
    cdef object sink
    cdef cbool ignored[N_RULES]
    cdef cbool has_bound[N_RULES]
    cdef int64_t bound_off[N_RULES]
    cdef int64_t bound_index[N_RULES]
    cdef int64_t dropped[N_RULES]
    # per slot: the findings kept since the last hand-over, and how many it may keep before it
    # hands them over (one short of the rule's cap: held by the sink as one block; 1 where each
    # is said one by one: a bound set, a listener, an override, or ``emit`` no sink's)
    cdef int64_t pending[N_RULES]
    cdef int64_t room[N_RULES]
    cdef Findings found
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
        self.sink = sink
        self.skips = None if sink is None else sink.skips
        cdef int i
        for i in range(N_RULES):
            self.ignored[i] = sink is not None and _RULES[i].code in sink.ignored
            self.has_bound[i] = False
            self.dropped[i] = 0
            self.pending[i] = 0
            self.room[i] = 1
        self.strings = strings
        self.limits = limits
        self.buffering_mode = buffering_mode
        self.circular = buffering_mode == "circular"
        self.max_stack = _cap(limits.max_stack)
        self.max_live = _cap(limits.max_live)
        self.max_scan = _cap(limits.max_scan)
        self._flow_began = False
        self.over = 0
        self.found = self._findings()

    cdef Findings _findings(self):
        cdef Findings f = Findings.__new__(Findings)
        f.strings = self.strings
        f.mode_given = self.buffering_mode is not None
        return f

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
            append_rows(self.rows, &blk[0], n)
        return 0

    cdef int _run(self) except -1:
        """The reference's loop over the window in (time, record index) order."""
        order_rows(self.rows, self.perm)
        self._bounds()
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
                        self._note(F_REUSED_ASYNC, r.offset, r.index, r.size, r.id, r.name, w.offset)
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
                        self._note(F_ASYNC_INSTANT if k == ASYNC_INSTANT else F_ASYNC_END, r.offset, r.index,
                                   r.size, r.id, r.name, r.cat)
            elif FLOW_BEGIN <= k <= FLOW_END:
                s = self.threads.find(r.thread)
                if s < 0 or (self.threads.all[s].stack.empty() and (
                        not self.threads.all[s].has_complete
                        or time_lt(self.threads.all[s].cend_ticks, self.threads.all[s].cend_rr, r.ts, r.rr))):
                    self._note(F_FLOW_OUTSIDE, r.offset, r.index, r.size, r.id)
                if k == FLOW_BEGIN:
                    self._flow_began = True
                    if self.flows_.pop(r.id, &w):
                        self._note(F_REUSED_FLOW, r.offset, r.index, r.size, r.id, r.name, w.offset)
                    elif <int64_t>self.flows_.size() >= self.max_live:
                        self._overflow(OVER_FLOW, r.offset, r.index, r.size, self.max_live)
                        self.flows_.drop_oldest(self.max_live // 8)
                    w.offset, w.index, w.size = r.offset, r.index, r.size
                    self.flows_.put(r.id, w)
                    continue
                live = self.flows_.has(r.id) if k == FLOW_STEP else self.flows_.pop(r.id, &w)
                if not live and not (self.circular and not self._flow_began):
                    self._note(F_FLOW_STEP if k == FLOW_STEP else F_FLOW_END, r.offset, r.index, r.size, r.id)
        self.rows.clear()
        self.perm.clear()
        self._hand()
        return 0

    cdef inline Row* _row(self, size_t j):
        """The window's ``j``-th row in (time, record index) order."""
        return &self.rows[self.perm[j]] if self.perm.size() else &self.rows[j]

    cdef int _bounds(self) except -1:
        """Each rule's bound as the sink has it now and the room left under its cap (``room``).
        A bound only moves back: a finding past it now is dropped whatever comes later. None
        is read where a listener is told each finding or an override re-grades it: then (and
        for an ``emit`` that is no sink's) each finding is handed over as it is found."""
        cdef int i
        cdef Py_ssize_t left
        sink = self.sink
        if sink is None or sink.listener is not None or sink.severity_overrides:
            for i in range(N_RULES):
                self.has_bound[i] = False
                self.room[i] = 1
            return 0
        bounds, kept, cap = sink._bound, sink._kept, sink.per_rule_cap
        for i in range(N_RULES):
            code = _RULES[i].code
            b = bounds.get(code) if bounds else None
            self.has_bound[i] = b is not None
            if b is not None:
                self.bound_off[i], self.bound_index[i] = b
                self.room[i] = 1
                continue
            lst = kept.get(code)
            left = cap - 1 - (0 if lst is None else len(lst))
            self.room[i] = left if left > 1 else 1
        return 0

    cdef int _note(self, int64_t what, int64_t offset, int64_t index, int64_t size, uint64_t p0=0, uint64_t p1=0,
                   uint64_t p2=0, uint64_t p3=0, uint64_t p4=0, uint64_t p5=0, uint64_t p6=0) except -1:
        """A finding kept (``found``), unless its code is ignored or it lies past its rule's
        bound (counted, ``dropped``: what ``skips`` would say of it, asked natively)."""
        cdef int i = _SLOT[what]
        if self.ignored[i]:
            return 0
        if self.has_bound[i] and (offset > self.bound_off[i]
                                  or (offset == self.bound_off[i] and index > self.bound_index[i])):
            self.dropped[i] += 1
            return 0
        cdef Found f
        f.what, f.offset, f.index, f.size = what, offset, index, size
        f.p[0], f.p[1], f.p[2], f.p[3], f.p[4], f.p[5], f.p[6] = p0, p1, p2, p3, p4, p5, p6
        self.found.rows.push_back(f)
        self.pending[i] += 1
        if self.pending[i] >= self.room[i]:  # (held as a block up to one short of the cap)
            self._hand()
            self._bounds()
        return 0

    cdef int _hand(self) except -1:
        """The window's (or ``finish``'s) findings to the sink in one call (``add_found``: each
        rule's count, kept as the block, built when read) and those dropped counted, one call
        per rule; or each made and emitted, in order, where ``emit`` is no sink's."""
        cdef int i
        cdef size_t j
        cdef int64_t n[N_RULES]
        cdef int64_t last_off[N_RULES]
        cdef int64_t last_index[N_RULES]
        cdef Found* f
        sink = self.sink
        for i in range(N_RULES):
            if self.dropped[i]:
                sink.dropped(_RULES[i], self.dropped[i])
                self.dropped[i] = 0
            self.pending[i] = 0
        cdef Findings found = self.found
        if found.rows.empty():
            return 0
        self.found = self._findings()
        found.nstr = len(self.strings)
        if sink is None:
            for rule, offset, index, size, params in found.each():
                self.emit(rule.at(offset, index, record_size=size, **params))
            return 0
        for i in range(N_RULES):
            n[i] = 0
        for j in range(found.rows.size()):
            f = &found.rows[j]
            i = _SLOT[f.what]
            if n[i] == 0 or f.offset > last_off[i] or (f.offset == last_off[i] and f.index > last_index[i]):
                last_off[i], last_index[i] = f.offset, f.index
            n[i] += 1
        counts = {}
        for i in range(N_RULES):
            if n[i]:
                counts[_RULES[i].code] = (_RULES[i], n[i], (last_off[i], last_index[i]))
        sink.add_found(found, counts)
        return 0

    cdef int _overflow(self, int bit, int64_t offset, int64_t index, int64_t size, int64_t limit) except -1:
        if not self.over & bit:
            self.over |= bit
            self._note(F_OVERFLOW, offset, index, size, bit, limit)
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
                self._note(F_END_NO_BEGIN, r.offset, r.index, r.size, r.cat, r.name, first,
                           self.buffering_mode is not None)
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
                    self._note(F_NEVER_ENDED, o.offset, o.index, o.size, o.cat, o.name, r.offset)
                st.pop_back()
                return 0
            depth -= 1
        if self._early_end(j, early):
            return 0
        self.threads.all[s].stack.pop_back()
        self._note(F_MISMATCH, r.offset, r.index, r.size, r.cat, r.name, top.cat, top.name, top.offset)
        return 0

    cdef int _early_end(self, size_t j, Early* early) except -1:
        """PR002 in timestamps for an end whose own begin is stamped after it (True), if it has one."""
        cdef int64_t b = early.begin_of(j, BEGIN)
        if b < 0:
            return False
        cdef Row* r = self._row(j)
        cdef Row* rb = self._row(b)
        self.threads.all[self.threads.get(r.thread)].began = True
        self._note(F_EARLY, r.offset, r.index, r.size, r.cat, r.name, rb.offset, r.ts, rb.ts, r.rate, rb.rate)
        return True

    def finish(self, cut_short=False, dropped_at=None) -> None:
        """Report what is still open when the trace ends (``_pairing.PairingEngine.finish``)."""
        if dropped_at is None or self.buffering_mode is None:
            dropped_at = -1
        cdef int64_t drop = dropped_at
        cdef cbool short = bool(cut_short)
        self._bounds()
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
                self._note(F_OPEN_DURATION, e.offset, e.index, e.size, e.cat, e.name, short)
        cdef Where w
        cdef AsyncKey k
        for i in range(self.asyncs_.head, self.asyncs_.slots.size()):
            if not self.asyncs_.slots[i].alive:
                continue
            w = self.asyncs_.slots[i].where
            k = self.asyncs_.slots[i].key
            if w.index < drop:
                continue
            self._note(F_OPEN_ASYNC, w.offset, w.index, w.size, k.cat, k.name, k.id, short)
        cdef uint64_t fid
        for i in range(self.flows_.head, self.flows_.slots.size()):
            if not self.flows_.slots[i].alive:
                continue
            w = self.flows_.slots[i].where
            fid = self.flows_.slots[i].key
            if w.index < drop:
                continue
            self._note(F_OPEN_FLOW, w.offset, w.index, w.size, fid, short)
        self._hand()

    # -- a copy (``rewrite/_continue``: IN's lint finished on a copy of its state at a framing stop) --
    def __deepcopy__(self, memo):
        """A copy of this engine: its C++ state (stacks, live ids, scopes, the window's rows)
        copied by value, its Python references (``emit``, ``strings``, the sink and its ``skips``,
        ``limits``) taken through ``memo`` (``copy.deepcopy``:
        the copy reports to the copied sink)."""
        from copy import deepcopy

        cdef PairingEngine c = PairingEngine.__new__(PairingEngine)
        memo[id(self)] = c
        c.emit = deepcopy(self.emit, memo)
        c.strings = deepcopy(self.strings, memo)
        c.limits = deepcopy(self.limits, memo)
        c.buffering_mode = self.buffering_mode
        c.skips = deepcopy(self.skips, memo)
        c.sink = deepcopy(self.sink, memo)
        c.ignored = self.ignored
        c.has_bound = self.has_bound
        c.bound_off, c.bound_index, c.dropped = self.bound_off, self.bound_index, self.dropped
        c.pending, c.room = self.pending, self.room
        c.found = c._findings()  # (empty between calls: each hands its findings over)
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
