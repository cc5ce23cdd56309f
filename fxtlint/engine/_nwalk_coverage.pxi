# The native walk's coverage mode (``include``d by ``_nwalk.pyx``): what ``report``'s
# ``CoverageCollector`` counts, counted for the records the lint's walk proves clean.
#
# ``_walk_coverage`` builds the plan from the spec tables' roles (per terminal: the value
# slots of its string refs, thread refs, timestamps and the enumeration the coverage counts
# by; per argument type: its string refs' slots) and reads the counters out by name. A
# record the walk walks with a layout finding (the screen's rows, an undefined type) is
# not counted here: it is noted (index, offset, declared size, the tick rate it is read at)
# and the reference decoder reads it (``take_notes``), as are the records the walk hands
# back. Memory: counters per terminal and argument type, one entry per tick rate and per
# enumeration value met, the five largest records, the notes since the last take.

DEF COV_TOP = 5
DEF COV_SMALL = 256  # an enumeration's values below this are counted in an array (the map above it)  # the largest records kept (``_coverage.LARGEST_KEPT``: checked by ``_walk_coverage``)
TOP_KEPT = COV_TOP

cdef struct CovTerm:
    int decode            # 1: always noted (more refs than the walk holds): the reference counts it
    int nstr
    int str_val[NSTR]     # the record's own string refs (value slots)
    int nthr
    int thr_val[NTHR]
    int nts
    int ts_val[NTS]
    int enum_val          # the enumeration it is counted by (-1: none)

cdef struct CovTime:      # per tick rate: the least and greatest ticks of the records read at it
    uint64_t rate, lo, hi

cdef struct CovTop:       # one of the largest records
    int64_t size, index, offset
    int term

cdef struct CovNote:      # a record the reference decoder counts
    int64_t index, offset, words
    uint64_t rate


cimport cython


@cython.final  # (its methods called directly, not through a table: the walk's hot path)
cdef class Coverage:
    """The coverage counters of one walk (``NativeWalk.cover``)."""

    cdef vector[CovTerm] terms
    cdef vector[int] argref            # per argument type: NARGREF value slots (-1: none)
    cdef uint64_t inline_bit
    cdef vector[int64_t] records, nbytes, inline_records
    cdef vector[int64_t] args          # per argument type
    cdef int64_t sref[3]               # string refs: empty, inline, indexed
    cdef int64_t tref[2]               # thread refs: inline, indexed
    cdef cmap[pair[int, uint64_t], int64_t] enums
    cdef vector[int64_t] enum_small    # per terminal counted by an enumeration: COV_SMALL counters
    cdef vector[int64_t] enum_base     # per terminal: where its counters start (-1: none)
    cdef vector[CovTime] times
    cdef CovTop top[COV_TOP]
    cdef int ntop
    cdef vector[CovNote] notes
    cdef size_t last_time              # the entry of the last record's tick rate

    cdef object argrefs                # (until ``check`` lays them out for the walk's program)

    def __init__(self, terms, argrefs):
        """``terms``: per terminal ordinal a dict of ``CovTerm``'s fields; ``argrefs``: per
        argument type its string-ref value slots."""
        cdef CovTerm t
        for d in terms:
            if not (0 <= d["nstr"] <= NSTR and 0 <= d["nthr"] <= NTHR and 0 <= d["nts"] <= NTS) or \
                    len(d["str_val"]) != NSTR or len(d["thr_val"]) != NTHR or len(d["ts_val"]) != NTS:
                raise ValueError("a coverage plan with more refs than the walk holds")
            t = d
            self.enum_base.push_back(<int64_t>self.enum_small.size() if t.enum_val >= 0 else -1)
            if t.enum_val >= 0:
                self.enum_small.resize(self.enum_small.size() + COV_SMALL, 0)
            self.terms.push_back(t)
        self.argrefs = dict(argrefs)
        self.records.assign(self.terms.size(), 0)
        self.nbytes.assign(self.terms.size(), 0)
        self.inline_records.assign(self.terms.size(), 0)
        self.sref[0] = self.sref[1] = self.sref[2] = 0
        self.tref[0] = self.tref[1] = 0
        self.ntop = 0
        self.last_time = 0

    cdef int check(self, const Program *P) except -1:
        """The plan names only terminals, slots and argument types the walk's program has;
        its argument counters are laid out for them (once: a plan serves one walk)."""
        cdef size_t i
        cdef int k
        cdef int64_t arg_types = <int64_t>P.arg_type_mask + 1
        if <int64_t>self.terms.size() != P.nterminals or self.args.size():
            raise ValueError("a coverage plan for another program, or for a walk before")
        for i in range(self.terms.size()):
            t = self.terms[i]
            for k in range(t.nstr):
                if not 0 <= t.str_val[k] < P.nvals:
                    raise ValueError("a string ref's slot is out of range")
            for k in range(t.nthr):
                if not 0 <= t.thr_val[k] < P.nvals:
                    raise ValueError("a thread ref's slot is out of range")
            for k in range(t.nts):
                if not 0 <= t.ts_val[k] < P.nvals:
                    raise ValueError("a timestamp's slot is out of range")
            if not -1 <= t.enum_val < P.nvals:
                raise ValueError("an enumeration's slot is out of range")
        self.argref.assign(arg_types * NARGREF, -1)
        for ty, slots in self.argrefs.items():
            if not 0 <= ty < arg_types or len(slots) > NARGREF:
                raise ValueError("an argument type or its string refs out of range")
            for k, s in enumerate(slots):
                if not 0 <= s < P.narg_vals:
                    raise ValueError("an argument's string-ref slot is out of range")
                self.argref[ty * NARGREF + k] = s
        self.args.assign(arg_types, 0)
        self.inline_bit = P.inline_bit
        return 0

    cdef inline void _string_ref(self, uint64_t ref) noexcept nogil:
        # empty (0), inline (1) or indexed (2), without a branch to mispredict
        self.sref[(ref != 0) * (2 - ((ref & self.inline_bit) != 0))] += 1

    cdef inline void count(self, const uint64_t *v, const int64_t *args, int64_t nargs, int64_t arg_columns, int term,
                    int64_t index, int64_t cur, int64_t words, int64_t declared, uint64_t rate,
                    bint noted) noexcept nogil:
        """The record at word ``cur`` (``words`` long as the walk read it, ``declared`` as its
        header says), walked under tick rate ``rate``; ``noted``: it has a layout finding."""
        cdef CovTerm *T = &self.terms[term]
        cdef CovNote n
        cdef int i, k, ty, s
        cdef int64_t a, size = 8 * words
        cdef const int64_t *row
        cdef uint64_t ref, lo, hi
        cdef bint inline = False
        if noted or T.decode:
            n.index = index
            n.offset = 8 * cur
            n.words = declared
            n.rate = rate
            self.notes.push_back(n)
            return
        self.records[term] += 1
        self.nbytes[term] += size
        self._keep_largest(size, index, 8 * cur, term)
        for i in range(T.nstr):
            ref = v[T.str_val[i]]
            self._string_ref(ref)
            inline |= (ref & self.inline_bit) != 0
        self.inline_records[term] += inline
        for i in range(T.nthr):
            self.tref[v[T.thr_val[i]] != 0] += 1
        for a in range(nargs):
            row = args + a * arg_columns
            ty = <int>row[2]
            self.args[ty] += 1
            for k in range(NARGREF):
                s = self.argref[ty * NARGREF + k]
                if s < 0:
                    break
                self._string_ref(<uint64_t>row[ARG_ROW_HEAD + s])
        if T.enum_val >= 0:
            if v[T.enum_val] < COV_SMALL:
                self.enum_small[self.enum_base[term] + <int64_t>v[T.enum_val]] += 1
            else:
                self.enums[pair[int, uint64_t](term, v[T.enum_val])] += 1
        if T.nts:
            lo = hi = v[T.ts_val[0]]
            for i in range(1, T.nts):
                lo = min(lo, v[T.ts_val[i]])
                hi = max(hi, v[T.ts_val[i]])
            self._time(rate, lo, hi)

    cdef inline void _time(self, uint64_t rate, uint64_t lo, uint64_t hi) noexcept nogil:
        cdef size_t i = self.last_time
        cdef CovTime e
        if i < self.times.size() and self.times[i].rate == rate:  # (most often: the last record's rate)
            if lo < self.times[i].lo:
                self.times[i].lo = lo
            if hi > self.times[i].hi:
                self.times[i].hi = hi
            return
        for i in range(self.times.size()):  # (one entry per tick rate met: a few)
            if self.times[i].rate == rate:
                self.last_time = i
                if lo < self.times[i].lo:
                    self.times[i].lo = lo
                if hi > self.times[i].hi:
                    self.times[i].hi = hi
                return
        e.rate, e.lo, e.hi = rate, lo, hi
        self.last_time = self.times.size()
        self.times.push_back(e)

    cdef inline void _keep_largest(self, int64_t size, int64_t index, int64_t offset, int term) noexcept nogil:
        """The five largest records, larger first, the earlier first among equals (records
        come in file order: a later one of a size kept is not kept)."""
        cdef int i
        if self.ntop == COV_TOP and size <= self.top[COV_TOP - 1].size:
            return
        i = self.ntop if self.ntop < COV_TOP else COV_TOP - 1
        while i > 0 and self.top[i - 1].size < size:
            self.top[i] = self.top[i - 1]
            i -= 1
        self.top[i].size = size
        self.top[i].index = index
        self.top[i].offset = offset
        self.top[i].term = term
        if self.ntop < COV_TOP:
            self.ntop += 1

    def take_notes(self):
        """The records noted since the last take, in file order: (index, offset, declared
        words, tick rate) each."""
        out = [(n.index, n.offset, n.words, n.rate) for n in self.notes]
        self.notes.clear()
        return out

    def counts(self):
        """What was counted: a dict of per-terminal lists (records, bytes, records with an
        inline string ref), per-argument-type counts, string refs (empty, inline, indexed),
        thread refs (inline, indexed), {(terminal, value): records} of the enumerations,
        [(rate, least ticks, greatest ticks)], and the largest records [(bytes, index,
        offset, terminal)], larger first."""
        cdef dict enums = {(kv.first.first, kv.first.second): kv.second for kv in self.enums}
        cdef int t
        cdef int64_t x
        for t in range(<int>self.terms.size()):
            if self.enum_base[t] >= 0:
                for x in range(COV_SMALL):
                    if self.enum_small[self.enum_base[t] + x]:
                        enums[t, x] = self.enum_small[self.enum_base[t] + x]
        return {
            "records": list(self.records), "bytes": list(self.nbytes), "inline": list(self.inline_records),
            "args": list(self.args), "string_refs": (self.sref[0], self.sref[1], self.sref[2]),
            "thread_refs": (self.tref[0], self.tref[1]),
            "enums": enums,
            "times": [(e.rate, e.lo, e.hi) for e in self.times],
            "largest": [(self.top[i].size, self.top[i].index, self.top[i].offset, self.top[i].term)
                        for i in range(self.ntop)],
        }
