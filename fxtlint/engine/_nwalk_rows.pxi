# The native walk's rows mode (``include``d at the end of ``_nwalk.pyx``): for ``export``
# and ``decode``, what a formatter needs of each event record the walk walks clean, with
# its refs resolved as the lint's walk resolves them, in flat rows, not an object a record.
#
# A row is ROW_WIDTH int64 words (``RowSink.take`` hands them back as bytes, file order):
# the record's index, byte offset, size in words, terminal, provider slot, tick rate (the
# provider's, as the walk reads the record), flags (ROW_KOIDS: the record's thread resolved,
# its koids in the next two words), the koids (pk, tk), then per string ref of the
# terminal (``Term.str_val``, NSTR of them) its interned id (0: the empty ref, ROW_INLINE:
# an inline text, read from the record; -1: unregistered). A record that is not an event,
# or has any finding (a layout finding, an unregistered ref, a timestamp past its limit, an
# undefined type), is not a row: it is noted (index, offset, declared size in words, tick
# rate) for the reference per-record path, as the coverage mode notes one. Memory: the
# rows and notes since the last take (the Python side takes them at each stop of the walk).

DEF ROW_HEAD = 9
DEF R_KOIDS = 1
DEF R_INLINE = -2
ROW_WIDTH = ROW_HEAD + NSTR
ROW_KOIDS = R_KOIDS
ROW_INLINE = R_INLINE


cdef class RowSink:
    """The rows and notes of one walk (``NativeWalk.collect_rows``)."""

    cdef vector[int64_t] rows
    cdef vector[int64_t] notes          # 4 words a note
    cdef public int64_t nrows

    cdef inline void note(self, int64_t index, int64_t offset, int64_t words, uint64_t rate) noexcept nogil:
        self.notes.push_back(index)
        self.notes.push_back(offset)
        self.notes.push_back(words)
        self.notes.push_back(<int64_t>rate)

    def take(self):
        """(rows, notes) since the last take, as bytes of native int64 words: ROW_WIDTH a
        row, 4 a note (index, offset, declared words, tick rate)."""
        cdef bytes r = (<char *>self.rows.data())[:8 * self.rows.size()] if self.rows.size() else b""
        cdef bytes n = (<char *>self.notes.data())[:8 * self.notes.size()] if self.notes.size() else b""
        self.rows.clear()
        self.notes.clear()
        return r, n


cdef void _row_of(NativeWalk w, Scan *S, int64_t term, int64_t cur, int64_t index) noexcept nogil:
    """The record at ``cur`` was walked: a row when it is a clean event, else a note."""
    cdef Term *T = &w.terms[term]
    cdef uint64_t *v = w.vals.data()
    cdef int64_t *p = w.pos.data()
    cdef int slot = w.current
    cdef uint64_t ref, inline_bit = w.inline_bit
    cdef int i
    cdef int64_t flags = 0
    cdef uint64_t pk = 0, tk = 0
    if T.mode != M_EVENT or w.findings.size() != w.rec_mark:
        w.rsink.note(index, 8 * cur, w.declared, w.rate[slot])
        return
    for i in range(T.nthr):  # the koids of the first thread ref that resolves (``_event_core``'s)
        ref = v[T.thr_val[i]]
        if ref == 0:
            if T.thr_nkoid[i] >= 1:
                if T.thr_nkoid[i] >= 2:
                    pk = _word(S, p[T.thr_pk[i]])
                    tk = _word(S, p[T.thr_tk[i]])
                    flags = R_KOIDS
                break
        else:
            it = w.threads.find(_key(slot, ref))
            if it != w.threads.end():
                pk = deref(it).second.pk
                tk = deref(it).second.tk
                flags = R_KOIDS
                break
    cdef size_t at = w.rsink.rows.size()
    w.rsink.rows.resize(at + ROW_HEAD + NSTR)  # (amortized: the vector keeps its capacity across takes)
    cdef int64_t *r = w.rsink.rows.data() + at
    r[0] = index
    r[1] = 8 * cur
    r[2] = w.size
    r[3] = term
    r[4] = slot
    r[5] = <int64_t>w.rate[slot]
    r[6] = flags
    r[7] = <int64_t>pk
    r[8] = <int64_t>tk
    for i in range(NSTR):
        r[ROW_HEAD + i] = 0
        if i < T.nstr:
            ref = v[T.str_val[i]]
            if ref & inline_bit:
                r[ROW_HEAD + i] = R_INLINE
            elif ref != 0:
                r[ROW_HEAD + i] = w._string(_key(slot, ref))
    w.rsink.nrows += 1
