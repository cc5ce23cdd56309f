# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True, initializedcheck=False
# distutils: language = c++
"""fxtlint.engine._nwalk: the native walk (issue 32, stages 2 to 5).

One pass in file order over a trace, little- or big-endian (``swap``: its words read
byte-swapped where the host's order differs), or a structured-log stream: frame each
record by its declared size (a large trace record by its 32-bit one; a log record by
its header's size field, whatever its type), screen it with the program
``_kernel_program`` compiles from the spec tables (``_screen.c``, the kernel's own
interpreter; a log's program screens every record as the log record), then its
semantic tail from the tables' roles (``_walk_native.plan``; a log record has none):

- a record with an ``effect`` (provider info, provider section, initialization, string,
  thread) is carried out on the walk's own tables, keyed by (provider slot, index), and
  mirrored into the Python ``ProviderState`` (``mirror``): registrations, not records,
  cost a Python call, one each (a string record with text not interned yet: interned and
  registered in one, ``registers_text``); a lint's walk (``direct_tables``: the plain
  mirror) writes its string and thread registrations and interned texts into the state
  itself, and calls the mirror only for a change of provider;
- an event's string refs (its own and its arguments'), thread refs are looked up, its
  timestamps checked against its provider's limit (``max_ticks``, exact in 128 bits),
  and its pairing row written (``take_row_block``: ``_pairrow.h``'s rows, the compiled
  pairing engine's own layout), in ``RecordChecker.check``'s order and with its choices
  (``_event_core``, one copy for both the GIL-free loop and the GIL path). An
  unregistered string or thread ref and a timestamp past the limit are diagnostics rows
  (``take_findings``: rule, record, field, value, provider) and the record goes on as
  the reference goes on (no pairing row when its thread, or a named kind's category or
  name, did not resolve); ``_walk_native`` renders each row with ``_semantic``'s builders.
  So are a table record's findings (a provider section for a provider never named, a
  tick rate of 0, index 0, an empty string, a registration that changes a value: the
  effect is carried out as ``ProviderState`` carries it out) and a repeated magic record.

The layout checks the screen makes are finding rows too where the declared size stands
(``layout``: the lint's reading): the screen runs in lint mode (``_screen.h``'s ``found``),
writes a row for a word whose field checks fail (reserved and always-zero bits, constants,
enum values), a text with bad padding, length, NUL or UTF-8, an argument with anything
wrong inside it (or an undefined or, in a log, not allowed type, or a log's string ref
or name), the words after the content and a kind check that holds, and reads on where
the reference reader reads on; an
undefined type or subtype is a row and the record is skipped by its size (``M_UNDEFINED``).
``_walk_native`` renders each record's rows with the reference decoder's own steps
(``_reader.report_layout``); where a well-formed header follows a trace record's content,
its FOUND_END row holds FR004's framing decision, taken here (``_frame_after``: the
header's kind, whether recovery reads on from it, the records the size swallows,
``swallowed_at``), which the decoder's step takes for its own; a copy of a record walked before (the same terminal, size,
bytes and layout rows) has its layout rows said in one F_COPY row (``_copied``), or, once
the linter noted what such a copy says (``note_copy``; a row, ``note_row``; an undefined
record, ``note_undefined``), as one place in a block (``take_moved``: slot, offset, record
index), no row at all. A table record's effect is carried out as ``ProviderState``
carries it out (a string record whose text is not UTF-8 interned as its bytes, a
provider named by a name that is not text keeping the name it had), and a table record
that changes nothing the mirror holds costs no Python call. A counter's argument that is
not numeric is a row (EV001, with the text its name ref was registered as then), and so
is the provider event's check that holds (EV003: ``F_DROPPED``, with whether a provider
info record had named the provider).

Content past a record's size (a word, a text, an argument's header, an argument size of
0 or past the record) is the screen's last row of the record (``FOUND_OVER``), and the
walk takes the reader's framing decision (``_screen``: ``_reader.resync_offset``'s
definition, ``_content_end`` and ``_reach``): a trace record whose records framed from its
content's end reach further than those from its declared end is walked at its content's
size with a FOUND_SHORT row (ST001); otherwise, and always in a structured-log stream, its
declared size stands and it is cut short there: it means nothing and registers nothing
(``_cut_short``: a provider info record still names its provider).

A record the walk cannot read on from by itself (on a growing stream: a trace record
whose content runs past its size, whose framing may depend on bytes still to come, and a
row whose message reads past its record; a kind it leaves to the reference) stops the
walk *before anything of it is applied*: ``run`` returns HANDBACK and Python decodes it
with the reference reader, reports through the rules, and hands its effect back
(``set_current``, ``announce``, ``set_rate``, ``set_string``, ``set_thread``). So every
message is written by the reference's code.

In its slice mode (``slicing``, ``rewrite/_slice_walk``: the strict walk, a flagged record
handed back) it notes for the piece in force what each record it walks reads (the string
and thread registrations read before the piece registers them again, the koids its
threads name, the pointers naming a userspace object kept in their process
(``_note_pointers``), the providers it is read under, its first and last instants, its bytes)
and follows what is open (``_follow``: ``rewrite/_open.OpenEvents.follow``'s steps, a
thread's running complete event too, ``_follow_complete``; the
pairing rows written only with ``slice_rows``, for the pieces' lint riding the cut,
``rewrite/_slice_ride``), and it hands back every record that decides something: no
piece yet (``hold``), one that would make a --split-size piece's file larger (``cut_size``:
its body, and at most what is written around it, ``_over``), a
--split-time record at or past its provider's cut tick or the first with a timestamp
(``span_on``, ``span_wait``), and the terminals the slicer names (``set_stop_terms``).
The slicer's record-by-record pass takes those, through the calls that note and follow
on the walk's tables (``use_*``, ``registered``, ``named_now``, ``took``, ``follow``).
For a time range (``range_on``) a run is on one side of the range: it hands back a
record whose timestamp is outside that side's ticks (``set_range_ticks``, per provider
slot) and, as the slicer asks, one that sets reader state or pairs (``range_state``,
``range_pairs``); outside the range it takes nothing into the piece (``take_off``,
``note_off``) and, after it, follows nothing (``follow_off``) and reads no event's refs
(``core_off``: a trace's time range is read so too). ``owed_state`` gives the ends owed,
with ``open_state``, for a pass to follow on from the walk's.

The walk reads the buffer only through a view it holds for the whole of ``run``; every
word is read at a position checked against the record's end, and every record's end
against the buffer.
"""

from libc.stdint cimport int64_t, uint64_t, int32_t, uint8_t
from cpython.buffer cimport PyBUF_WRITABLE
from cpython.bytes cimport PyBytes_FromStringAndSize
from libcpp.vector cimport vector
from libcpp.string cimport string
from libc.string cimport memcmp, memcpy

cdef extern from *:
    uint64_t _bswap64 "__builtin_bswap64"(uint64_t x) nogil

from libcpp.unordered_map cimport unordered_map
from libcpp.unordered_set cimport unordered_set
from libcpp.map cimport map as cmap
from libcpp.pair cimport pair
from cython.operator cimport dereference as deref

import sys

cdef bint _HOST_BIG = sys.byteorder == "big"  # (read once: a walk's construction is a small lint's fixed cost)

cdef extern from "_pairrow.h":
    ctypedef struct fxt_pair_row:
        int64_t kind, thread
        uint64_t process
        int64_t cat, name
        uint64_t ts, id, end
        int64_t offset, index, size
        uint64_t rate, rr
    uint64_t fxt_reading_rate(uint64_t rate) nogil

cdef extern from "_screen.h":
    ctypedef struct Program:
        int64_t *code
        int64_t length
        uint64_t type_lo, type_mask, arg_type_lo, arg_type_mask, arg_size_lo, arg_size_mask
        int64_t nvals, npos, narg_vals, narg_pos, nterminals
        uint64_t inline_bit, max_string, far
        const int64_t *sizes
        const int64_t *roots
        const int64_t *args
        int64_t *term_pc
        const char *error
        int64_t error_at
        int nomem
    ctypedef struct Scan:
        const Program *P
        const unsigned char *buf
        int64_t nwords
        int64_t nbytes
        int swap
        int64_t *args
        int64_t arg_columns, nargs, argcap, row
        int64_t *found
        int64_t nfound, foundcap, fields_at, end_at
    int screen_load(Program *P, const int64_t *code, int64_t length) nogil
    void screen_free(Program *P) nogil
    int screen_run(Scan *S, int64_t pc, uint64_t cur, int64_t p, int64_t end, uint64_t *vals, int64_t *pos) nogil
    int word_in(const Scan *S, int64_t p, int64_t end, uint64_t *w) nogil
    enum:
        NODE_SELECT
        NODE_TERMINAL
        MAX_DEPTH
        ARG_ROW_HEAD
        MAX_SLOTS
        FOUND_COLUMNS
        FOUND_STREAM
        FOUND_END
        FOUND_ARG
        FOUND_KIND
        FOUND_OVER
        FOUND_NUMERIC
        FOUND_SHORT
        BAD_UTF8
        BAD_PADDING

cdef extern from *:
    """
    /* The largest tick count whose nanosecond value fits in 64 bits at `rate` (rate > 0):
     * ceil(2^64 * rate / 10^9) - 1, at most 2^64 - 1 (spec/_time.max_ticks), in 128 bits. */
    static inline uint64_t fxt_max_ticks(uint64_t rate) {
        unsigned __int128 num = ((unsigned __int128)rate) << 64;
        unsigned __int128 q = (num + 999999999u) / 1000000000u - 1;
        uint64_t cap = ~(uint64_t)0;
        return q > (unsigned __int128)cap ? cap : (uint64_t)q;
    }
    /* is ticks a at rate ra strictly before ticks b at rate rb (``spec._time.before``: exact) */
    static inline int fxt_before(uint64_t a, uint64_t ra, uint64_t b, uint64_t rb) {
        if (ra == rb) return a < b;
        return (unsigned __int128)a * fxt_reading_rate(rb) < (unsigned __int128)b * fxt_reading_rate(ra);
    }
    """
    uint64_t fxt_max_ticks(uint64_t rate) nogil
    bint fxt_before(uint64_t a, uint64_t ra, uint64_t b, uint64_t rb) nogil

cdef extern from * nogil:
    """
    #include <vector>
    namespace nslice {
    /* slice: an open async operation or flow (its begin's order in ``seq``) */
    struct OpenItem { uint64_t pk, tk, ident; int64_t cat, name; int64_t seq; int slot; };
    static inline uint64_t mix64(uint64_t x) {
        x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 27; x *= 0x94d049bb133111ebULL;
        x ^= x >> 31; return x;
    }
    /* The open items of one kind, keyed by what the item holds: a flow by its id (FLOW), an
     * async operation by (process koid, category, name, id). Open addressing, linear probing,
     * deletion by backward shift: no allocation per begin or end (a begin and its end are
     * an insert and an erase of one slot). */
    template <int FLOW> struct OpenMap {
        std::vector<OpenItem> items;
        std::vector<unsigned char> used;
        size_t mask = 0, count = 0;
        static bool same(const OpenItem& a, const OpenItem& b) {
            return a.ident == b.ident && (FLOW || (a.pk == b.pk && a.cat == b.cat && a.name == b.name));
        }
        static size_t hash(const OpenItem& k) {
            return FLOW ? mix64(k.ident)
                        : mix64(k.pk ^ mix64((uint64_t)k.cat ^ mix64((uint64_t)k.name ^ mix64(k.ident))));
        }
        size_t size() const { return count; }
        size_t capacity() const { return used.size(); }
        bool used_at(size_t i) const { return used[i] != 0; }
        OpenItem* at(size_t i) { return &items[i]; }
        /* the slot holding k's key, or SIZE_MAX */
        size_t find(const OpenItem& k) const {
            if (!count) return SIZE_MAX;
            for (size_t i = hash(k) & mask; used[i]; i = (i + 1) & mask)
                if (same(items[i], k)) return i;
            return SIZE_MAX;
        }
        /* the slot of k's key, made (k written there, ``fresh``) where there was none */
        size_t put(const OpenItem& k, int* fresh) {
            if ((count + 1) * 2 > used.size()) grow();
            size_t i = hash(k) & mask;
            for (; used[i]; i = (i + 1) & mask)
                if (same(items[i], k)) { *fresh = 0; return i; }
            used[i] = 1; items[i] = k; ++count;
            *fresh = 1;
            return i;
        }
        void grow() {
            size_t cap = used.empty() ? 16 : used.size() * 2;
            std::vector<OpenItem> oi; std::vector<unsigned char> ou;
            oi.swap(items); ou.swap(used);
            items.resize(cap); used.assign(cap, 0);
            mask = cap - 1;
            count = 0;
            int fresh;
            for (size_t i = 0; i < ou.size(); ++i) if (ou[i]) put(oi[i], &fresh);
        }
        void erase(size_t i) {
            used[i] = 0;
            --count;
            for (size_t j = (i + 1) & mask; used[j]; j = (j + 1) & mask) {
                size_t ideal = hash(items[j]) & mask;
                /* items[j] moves to the hole at i where its probe passes through i */
                bool through = i <= j ? (ideal <= i || ideal > j) : (ideal <= i && ideal > j);
                if (through) {
                    items[i] = items[j]; used[i] = 1; used[j] = 0;
                    i = j;
                }
            }
        }
    };
    typedef OpenMap<0> AsyncOpen;
    typedef OpenMap<1> FlowOpen;
    }
    """
    ctypedef struct OpenItem "nslice::OpenItem":   # slice: an open async operation or flow
        uint64_t pk, tk, ident
        int64_t cat, name
        int64_t seq           # the order of its begin (``open_state``'s order)
        int slot
    cdef cppclass OpenMap "nslice::AsyncOpen":
        size_t size()
        size_t capacity()
        bint used_at(size_t i)
        OpenItem *at(size_t i)
        size_t find(const OpenItem& k)
        size_t put(const OpenItem& k, int *fresh)
        void erase(size_t i)
    cdef cppclass FlowMap "nslice::FlowOpen":
        size_t size()
        size_t capacity()
        bint used_at(size_t i)
        OpenItem *at(size_t i)
        size_t find(const OpenItem& k)
        size_t put(const OpenItem& k, int *fresh)
        void erase(size_t i)


# how a run stopped (``_walk_native`` reads the same values)
cpdef enum Stop:
    DONE = 0       # the record index reached the window's end
    HANDBACK = 1   # the record at (cur, index, size) goes to the reference reader
    ZERO = 2       # a header of size 0 at cur
    PAST_END = 3   # the record at cur (size words) ends past the buffer
    END = 4        # no whole word left
    SLOW = 5       # (inside run only) the record at cur needs Python: taken again with the GIL

# what a diagnostics row of the walk says (``take_findings``; ``_walk_native`` renders each
# through ``_semantic``'s builders, the reference's): RF001, RF002, TM003
cpdef enum Find:
    F_STRING = 1   # an unregistered string ref (the record's field, or an argument's)
    F_THREAD = 2   # an unregistered thread ref
    F_TICKS = 3    # a timestamp past the provider's tick limit
    F_MAGIC = 4    # a repeated magic record (MG003)
    F_UNANNOUNCED = 5   # a provider section for a provider no provider info named (PR002)
    F_RATE_ZERO = 6     # a tick rate of 0 (TM001)
    F_INDEX_ZERO = 7    # a string (field 0) or thread (field 1) record registering index 0
    F_STRING_EMPTY = 8  # a string record registering the empty string
    F_CHANGED = 9       # a string (field 0) or thread (field 1) registered again with another value
    F_LAYOUT = 10       # the screen's finding (field: its kind, FOUND_*; rate: the check's pc; at: its
                        # position, bytes; value; arg_type: a stream's problems; arg: the argument;
                        # old0: a kind check's second value; old1: a FOUND_NUMERIC argument's name,
                        # the interned id + 1 of the text its ref was registered as then, 0 none);
                        # FOUND_SHORT (the walk's): at, the content's end, value the declared words
    F_UNDEFINED = 11    # an undefined record type or subtype: the reader reports it and skips the record
    F_DROPPED = 12      # a provider event saying the buffer filled (EV003; value: the provider id,
                        # field: a provider info record had named it)
    F_COPY = 13         # a copy of a record walked before (same terminal, size, bytes, layout rows):
                        # its layout rows in one row (value: the first copy's id, ``_copied``)

# the pairing rows' columns, in the order of a row (``take_row_tuples``, and ``_pairrow.h``'s
# fields before its reading rate); ``_walk_native`` checks them against ``_pairing.COLUMNS``
ROWS = ("kind", "thread", "process", "cat", "name", "ts", "id", "end", "offset", "index", "size", "rate")
# the bytes of one row of ``take_row_block`` (the compiled pairing engine checks its own)
ROW_BYTES = sizeof(fxt_pair_row)

# what a terminal's records are to the walk (``_walk_native.plan`` writes these)
cpdef enum Mode:
    M_REFERENCE = 0
    M_EVENT = 1
    M_NAMES_PROVIDER = 2
    M_SWITCHES_PROVIDER = 3
    M_SETS_TICK_RATE = 4
    M_REGISTERS_STRING = 5
    M_REGISTERS_THREAD = 6
    M_SETS_BYTE_ORDER = 7   # the magic record: its byte order was read before the walk
    M_UNDEFINED = 8         # an undefined type or subtype: reported and skipped by its size
    M_PROVIDER_EVENT = 9    # the provider event: its kind check that holds says records were dropped

DEF NSTR = 4
DEF NTHR = 2
DEF NTS = 4
DEF NARGREF = 2
DEF U64MAX = 0xFFFFFFFFFFFFFFFF
DEF CACHE_BITS = 12               # a direct-mapped cache of string-table entries in front of the map, at most
DEF CACHE_BITS0 = 6               # ... at first: it grows with the table (a small trace's walk allocates little)
DEF TEXT_BITS = 6                 # a direct-mapped cache of texts in front of ``text_ids`` (``_known_text``)
DEF TEXT_FROM = 32                # ... made after this many texts were asked
DEF RELEASE_WORDS = 1 << 13       # the GIL is released for a stretch of at least this many words left ...
DEF RELEASE_RECORDS = 64          # ... once the last stretch walked without Python had this many records
DEF KEY_BITS = 16                 # a table key: provider slot << KEY_BITS | index (``_key``)
DEF WATCHED_MAX = 8               # threads a walk watches at most (``NativeWalk.watch_thread``)
DEF COPY_RECORD = 4096            # the largest record whose copies the walk says in one row (``_copied``) ...
DEF COPY_KEYS = 4096              # ... and how many distinct such records it knows at most
DEF RESYNC_DEPTH = 8              # records framed ahead to compare two framings (``_reader.RESYNC_DEPTH``)
# (``_walk_native`` checks it against the reader's)
RESYNC = RESYNC_DEPTH

cdef struct Term:
    int mode
    int nstr
    int str_val[NSTR]
    int str_pos[NSTR]     # the inline text's position slot (-1: none)
    int str_role[NSTR]    # 1 category, 2 name (the pairing row's), 0 other
    int nthr
    int thr_val[NTHR]
    int thr_nkoid[NTHR]   # koid words an inline ref stands for (0: none)
    int thr_pk[NTHR]      # their position slots
    int thr_tk[NTHR]
    int nts
    int ts_val[NTS]
    int pair_kind         # -1: no pairing row
    int pair_named        # the kind pairs by category and name (NAMED_KINDS)
    int pair_complete     # the id word is a complete event's end
    int pair_id           # value slot of the id word (-1: none, 0)
    int pair_ts           # value slot of the timestamp
    int f_pid             # effects: value slots (-1: none)
    int f_index
    int f_len
    int f_pos             # position slot of the effect's text
    int f_pk
    int f_tk
    int f_rate
    uint64_t zero_mask    # the header bits the leaf's fields say must be zero (a well-formed header)

cdef struct Finding:
    int rule              # F_STRING, F_THREAD, F_TICKS
    int term              # the record's terminal
    int field             # which of the term's string refs, thread refs, timestamps; an argument's ref
    int arg               # the argument's ordinal (-1: the record's own field)
    int arg_type
    int slot              # the provider slot the record was read under
    int64_t index, offset, size, at   # the record (bytes); the argument's header word (bytes)
    uint64_t value        # the ref, the ticks, the provider id, or a registration's index
    uint64_t rate         # the provider's tick rate (F_TICKS)
    uint64_t old0, old1, new0, new1   # F_CHANGED: the interned ids (a string's), or the koids (a thread's)

DEF CAP_KEYS = 26  # 2 * (F_DROPPED + 1): an F_COPY row is never capped natively
# the keys of the rows the per-rule cap may drop natively (``set_bound``)
CAP_KEY_COUNT = CAP_KEYS


cdef inline int _cap_key(const Finding *f) noexcept nogil:
    """The cap key of a diagnostics row whose rule the row alone says: ``2 * rule + (field
    != 0)`` for a table's or a ref's row, ``2 * F_LAYOUT`` for a FOUND_SHORT row (ST001);
    -1 for any other (a layout row's rules are the decoder's; a repeated magic record the
    screen found wrong reports only when its constants hold; a provider event's bookkeeping
    and an undefined record's kind are kept whatever the cap says)."""
    if f.rule == F_LAYOUT:
        return 2 * F_LAYOUT if f.field == FOUND_SHORT else -1
    if f.rule == F_UNDEFINED or f.rule == F_DROPPED or f.rule == F_COPY or (f.rule == F_MAGIC and f.value != 0):
        return -1
    return 2 * f.rule + (1 if f.field != 0 else 0)


cdef struct OpenDur:       # slice: an open duration (its category, name, provider slot)
    int64_t cat, name
    int slot

cdef struct RunningComplete:   # slice: a thread's complete event with the latest end (its end, at its rate)
    uint64_t end, rate
    int64_t cat, name
    int slot

ctypedef pair[pair[uint64_t, uint64_t], pair[int64_t, int64_t]] DurKey   # (koids), (category, name)
ctypedef pair[pair[uint64_t, int64_t], pair[int64_t, uint64_t]] AsyncKey  # (process koid, category), (name, id)

cdef struct ThreadEntry:
    uint64_t pk
    uint64_t tk
    int64_t gid           # interned pair id, -1 until a pairing row needs it


cdef class Plan:
    """The validated program and the semantic plan of each of its terminals: built once per
    process (``_walk_native.plan``), shared by every walk."""

    cdef Program P
    cdef bint loaded
    cdef vector[Term] terms
    cdef vector[int] argref          # per argument type: NARGREF value slots (-1: none)
    cdef uint64_t name_lo, name_mask # an argument header's name ref
    cdef bint log                    # a structured-log stream's program

    def __cinit__(self):
        self.loaded = False

    def __init__(self, code, terms, argrefs, name_field, bint log=False):
        """``code``: the program (int64, ``compile_program(log)``); ``terms``: per terminal
        ordinal a dict of ``Term``'s fields (``_walk_native.plan``); ``argrefs``: per
        argument type its string-ref value slots; ``name_field``: (lo, mask) of an argument
        header's name ref; ``log``: the program reads a structured-log stream."""
        self.name_lo, self.name_mask = name_field
        self.log = log
        if self.name_lo > 63:
            raise ValueError("an argument name field out of range")
        cdef const int64_t[::1] c = code
        if c.shape[0] == 0 or not screen_load(&self.P, &c[0], c.shape[0]):
            if self.P.nomem:
                raise MemoryError()
            why = self.P.error.decode() if self.P.error != NULL else "empty"
            raise ValueError(f"invalid kernel program: {why} (at {self.P.error_at})")
        self.loaded = True
        if len(terms) != self.P.nterminals:
            raise ValueError("one semantic plan per terminal of the program")
        cdef Term t
        for d in terms:
            _validate(d, self.P.nvals, self.P.npos)
            t = d
            self.terms.push_back(t)
        self.argref.assign((self.P.arg_type_mask + 1) * NARGREF, -1)
        for ty, slots in argrefs.items():
            if not 0 <= ty <= self.P.arg_type_mask:
                raise ValueError("an argument type out of range")
            for k, s in enumerate(slots[:NARGREF]):
                if not 0 <= s < self.P.narg_vals:
                    raise ValueError("an argument's string-ref slot is out of range")
                self.argref[ty * NARGREF + k] = s

    def __dealloc__(self):
        if self.loaded:
            screen_free(&self.P)


cdef class RowBlock:
    """Pairing rows moved out of the walk (``take_row_block``): a read-only bytes-like object
    (the buffer protocol) over ``_pairrow.h`` rows, which the pairing engine copies in."""
    cdef vector[fxt_pair_row] rows
    cdef Py_ssize_t nbytes
    cdef Py_ssize_t one

    def __len__(self):
        return self.rows.size()

    def __getbuffer__(self, Py_buffer *buf, int flags):
        if flags & PyBUF_WRITABLE:
            raise BufferError("a block of pairing rows is read-only")
        self.one = 1
        buf.buf = <void *>self.rows.data()
        buf.len = self.nbytes
        buf.itemsize = 1
        buf.format = "B"
        buf.ndim = 1
        buf.shape = &self.nbytes
        buf.strides = &self.one
        buf.suboffsets = NULL
        buf.readonly = 1
        buf.internal = NULL
        buf.obj = self

    def __releasebuffer__(self, Py_buffer *buf):
        pass


include "_nwalk_coverage.pxi"


cdef class NativeWalk:
    """The walk's native state over one trace; ``run`` walks it from a given record."""

    cdef Plan plan                   # holds what P, terms and argref point into
    cdef const Program *P
    cdef Term *terms
    cdef const int *argref
    cdef int swap
    cdef vector[uint64_t] vals
    cdef vector[int64_t] pos
    cdef vector[int64_t] args
    cdef int64_t argcap
    cdef vector[int64_t] found        # the screen's finding rows of the record (FOUND_COLUMNS each)
    cdef int64_t foundcap
    cdef size_t rec_mark              # the findings before the record being walked
    # the layout checks are finding rows (the lint's declared-size reading); False: a record
    # the screen flags goes to the reference whole
    cdef public bint layout
    # the buffer is whole: a finding whose message reads past its record (the words after a
    # record's content, a stream's padding, an argument's; a kind check's, which decodes the
    # record's fields) can be rendered; False on a
    # growing stream, where such a record goes to the reference (which waits for the bytes)
    cdef public bint lookahead
    cdef uint64_t inline_bit
    cdef uint64_t name_lo, name_mask  # an argument header's name ref
    cdef bint log                     # a structured-log stream (its records are never framed anew)
    # providers: slot 0 is the provider before any provider record (id None)
    cdef unordered_map[uint64_t, int] slot_of
    cdef vector[uint64_t] rate
    cdef vector[uint64_t] limit
    cdef vector[uint8_t] announced
    cdef vector[string] names         # per slot: the name the walk last gave the mirror
    cdef vector[uint8_t] named        # ... while it is still the provider's (0: not known)
    cdef int current
    cdef unordered_map[uint64_t, int64_t] strings      # _key(slot, index) -> interned id
    cdef unordered_map[uint64_t, ThreadEntry] threads  # _key(slot, index) -> koids
    cdef unordered_map[string, int64_t] text_ids       # the interner, as far as the walk has asked it
    cdef vector[string] tc_text       # ``_known_text``'s cache: a text the map answered, by its hash ...
    cdef vector[int64_t] tc_gid       # ... and its id (-1: none; both empty until TEXT_FROM texts were asked)
    cdef int tc_asked
    cdef cmap[pair[uint64_t, uint64_t], int64_t] pair_ids
    cdef uint64_t last_pk, last_tk    # the last pair looked up, and its id (-1: none yet)
    cdef int64_t last_pair
    # the string entries looked up lately: written through on every registration, so an
    # entry here is the map's (keys never leave the map)
    cdef vector[uint64_t] ckey
    cdef vector[int64_t] cval
    cdef int cbits                    # the cache holds 2^cbits entries
    # per terminal: records walked natively; and the terminals counted since the last take, in
    # the order first met (``take_counts`` reads those, not every terminal)
    cdef vector[int64_t] counts
    cdef vector[int] counted
    # the pairing rows since the last take
    cdef vector[fxt_pair_row] rows
    # the diagnostics rows since the last take (``take_findings``)
    cdef vector[Finding] findings
    # FR004's framing decision, taken by the walk where a well-formed header follows a trace
    # record's content (``_frame_after``): the records it swallowed, (terminal, offset in
    # bytes) each, their place given by the FOUND_END row (``new1``, ``old1``); those of the
    # last take are kept until the next (``take_findings``, ``swallowed_at``)
    cdef vector[int64_t] swallow, swallow_taken
    # the per-rule cap, as the linter's sink last said it (``set_bound``): per row rule
    # (``_cap_key``), the (offset, record index) past which its diagnostic can never be kept
    # (offset -1: none yet); ``take_findings`` counts such rows (``take_capped``) and hands
    # none of them to Python
    cdef vector[int64_t] cap_off, cap_idx, capped
    cdef bint capping
    # the lint's copies of a bad record (``_copied``, while ``copying``): the records walked
    # with layout rows, by their key (the rows, positions from the record's start, terminal,
    # size and bytes) -> the first copy's id; a copy met again is one F_COPY row
    cdef public bint copying
    cdef unordered_map[string, int64_t] copies
    # the places said natively (``note_copy``, ``note_row``): per copy id, the slot the linter
    # noted its diagnostics under (-1: none); a row's key (``_key_finding``) -> its slot; the
    # places met since the last take, (slot, offset, index) each (``take_moved``), per slot
    # how many, and the slots met
    cdef vector[int] copy_slot
    # per copy id noted with questions (``note_copy``): what its decoder asked of the bytes after
    # it, four int64 each (what: 0 ``kind``, 1 ``after``, 2 ``early``; its positions from the
    # record's start in bytes; the answer's kind id, -1 for None), asked again of each copy
    # (``_answers_hold``: a copy whose answers differ is an F_COPY row); ``kind_ids``: each
    # terminal's kind id (``set_kind_ids``: one id per kind name)
    cdef vector[vector[int64_t]] copy_q
    cdef vector[int64_t] kind_ids
    cdef int64_t qsize                # (``_kind_b``'s: the size in words of the header it read)
    cdef unordered_map[string, int] row_slot
    # while ``placing`` (the linter notes what it says): ``run`` stops (DONE) after a record
    # whose copy or row the linter may note next (``stop_soon``): a copy of a record not noted,
    # three times per id at most (``copy_stopped``), a row met again and not noted, until it was
    # met four times (``row_slot``: -1 - the times met, for a row not noted), so the rest of
    # their copies are places
    cdef public bint placing
    cdef bint stop_soon
    cdef public bint repeated         # a run stopped so (the linter notes from then on; it clears it)
    # the sink's per-rule cap (0: not told): ``run`` stops too after the record at which a cap
    # key's rows since the walk began (``handed``, not those it dropped itself) reach it, so the
    # sink's bound is set there and told back (``set_bound``) before the rows after it are walked
    cdef public int64_t rule_cap
    cdef int64_t handed[CAP_KEYS]     # (zeroed with the object: no allocation for a small lint)
    cdef vector[uint8_t] copy_stopped
    cdef vector[int64_t] moved
    cdef vector[int64_t] moved_n
    cdef vector[int] moved_slots
    # ``run`` stops (DONE) before a record once this many diagnostics rows wait to be taken
    # (0: never), so that the rows of a flood of one defect reach the cap's bound early
    cdef public int64_t take_at
    # provider id per slot (slot 0's is None: the provider before any provider record)
    cdef vector[uint64_t] pid_of
    # what ``_event_core`` last needed Python for: a koid pair, or a text
    cdef bint need_pair
    cdef uint64_t need_pk, need_tk
    cdef const unsigned char *need_text
    cdef uint64_t need_len
    # where the last run stopped (``size``: the stopping record's declared size; inside a run,
    # the size the record being walked is read at: its content's end when it was framed anew)
    cdef public int64_t cur, index, size
    cdef int64_t declared             # the declared size of the record being walked
    cdef int64_t framed_at            # a record ``_fast`` framed and left to ``_slow`` (its word; -1: none) ...
    cdef int64_t framed_term          # ... and its terminal: ``_slow`` does not frame it again
    # the byte offset of the file's first magic record (-1: none): a later one is repeated
    cdef public int64_t magic_at
    cdef public object mirror
    # the mirror's tables written by the walk itself (``direct_tables``: every mirror's state,
    # by the table steps below, the one copy of them): the state's interner (its ids and
    # values) and the current provider's string and thread tables (read again whenever the
    # current provider changes)
    cdef object d_state
    # the mirror's methods its class overrides to be told of a step (``Mirror.told``, as
    # ``H_*`` bits): those are called (and carry the step out by the same steps), the rest
    # are not (a lint's plain mirror: none is called)
    cdef readonly int hooks
    cdef dict d_ids, d_strings, d_threads     # (typed: an assignment of anything else raises)
    cdef list d_values

    # -- slice (``rewrite/_slice_walk``): what the piece in force reads, and what is open --
    cdef public bint slicing          # note what each walked record reads, follow what is open
    cdef public int64_t dur_scan      # how deep a duration end looks for its begin (the lint's max_scan)
    cdef public bint slice_rows       # ... and write the pairing rows (the pieces' lint riding the cut)
    cdef public bint hold             # no piece yet: every record is handed back
    cdef public int64_t piece_bytes   # the piece's body: bytes of the records it took
    cdef public int64_t piece_records
    cdef public int64_t cut_size      # --split-size: hand back a record that would make the file larger (0: none)
    cdef public bint span_on          # --split-time: hand back a record at or past its provider's cut tick
    cdef public bint span_wait        # ... and every record with a timestamp until the span starts
    cdef vector[uint8_t] stop_term    # per terminal: always handed back
    cdef vector[uint64_t] cut_tick    # per slot (0 for a slot made since: handed back, then set)
    cdef bint has_first
    cdef uint64_t first_ts, first_rate, last_ts, last_rate
    # every record's instant in file order, the piece's or not (``_Slicer._instant``): an
    # instant before the latest one read sets ``went_back`` (the walk's whole run, not a piece's)
    cdef public bint went_back
    cdef bint has_latest
    cdef uint64_t latest_ts, latest_rate
    cdef unordered_map[uint64_t, int64_t] used_str            # key -> interned id at its first read
    cdef unordered_map[uint64_t, pair[uint64_t, uint64_t]] used_thr   # key -> koids at its first read
    cdef unordered_set[uint64_t] reg_str, reg_thr, koid_set
    cdef vector[int] used_slots       # providers the piece's records are read under, in order of first use
    cdef vector[uint8_t] slot_used, slot_named
    # direct-mapped caches of 2^CACHE_BITS entries in front of the sets below, allocated by
    # the first piece_reset (a slice's walk only: a lint's walk allocates none of them)
    cdef vector[uint64_t] ukey        # string keys noted in this piece (a hit is noted)
    cdef vector[uint64_t] tkey        # thread keys
    cdef vector[uint64_t] kpk         # koid pairs
    cdef vector[uint64_t] ktk
    # the thread ref (its key and koids) an event the walk took last noted (``_note_refs``): the
    # next event of the same thread notes nothing again (the piece's sets only grow: a no-op)
    cdef uint64_t memo_key, memo_pk, memo_tk
    # what is open (``rewrite/_open.OpenEvents.follow``, natively): durations per thread
    # (threads in order of first sight), async operations and flows in order of their begin
    cdef cmap[pair[uint64_t, uint64_t], int] dur_index
    cdef vector[pair[uint64_t, uint64_t]] dur_koids
    cdef vector[vector[OpenDur]] dur_stacks
    cdef OpenMap asyncs               # (one slot per open item, its begin's order in it: no allocation)
    cdef FlowMap flows
    # per thread (koids), the complete event with the latest end (``OpenEvents.completes``)
    cdef cmap[pair[uint64_t, uint64_t], RunningComplete] completes
    # userspace objects (``_slice_pass._Slicer._pointers``): (process koid, pointer) of those
    # kept, and of those the piece's records refer to by a pointer argument
    cdef cmap[pair[uint64_t, uint64_t], int64_t] ptr_known    # -> its bytes in a prefix
    cdef cmap[pair[uint64_t, uint64_t], uint8_t] ptr_used
    # --split-size (``_slice_pass._Slicer._overhead``, ``_adds``): the bytes a piece's file
    # holds besides its body, as the slicer counts them: ``extra_base`` (the magic record,
    # every provider's records, sections back: the slicer's), ``piece_extra`` (what the
    # piece's records read from before it, and what it begins) and ``open_extra`` (an end
    # for each thing open), each noted entry counted once, as it is first noted
    cdef public int64_t extra_base, piece_extra, open_extra
    cdef vector[int64_t] gcost        # per interned string id: its String record's bytes (0: not told)
    cdef unordered_map[uint64_t, int64_t] kcost   # koid -> its kernel object's bytes in a prefix
    cdef int64_t cost_thread, cost_dur, cost_async, cost_flow, cost_unknown
    cdef int64_t _max_user            # the largest userspace object kept, in a prefix
    # the largest String record and kernel object told (``_far``: an upper bound of ``_adds``)
    cdef int64_t max_gcost, max_kcost
    cdef int ptr_type, ptr_slot       # the pointer argument's type and its value's slot (-1: none)
    cdef int64_t seq
    cdef int last_dur                 # the thread index of the last duration followed (-1: none)
    cdef cmap[DurKey, int64_t] owed_d
    cdef cmap[AsyncKey, int64_t] owed_a
    cdef cmap[uint64_t, int64_t] owed_f
    # -- slice, a time range (``rewrite/_slice_walk``): what a run takes, follows and hands back --
    cdef public bint range_on         # (with span_on) hand back a record whose instant is not on the run's side
    cdef public bint range_state      # ... and a record that sets reader state (an open piece keeps it)
    cdef public bint range_pairs      # ... and a pairing event (before the range, a piece open: the pass follows it)
    cdef public bint take_off         # the run's records are not the piece's (no bytes, instants or providers noted)
    cdef public bint note_off         # what they read is not noted
    cdef public bint follow_off       # what is open is not followed (``follow`` from Python still is)
    cdef public bint core_off         # an event's refs are not read at all (no findings, notes or following)
    cdef vector[uint64_t] range_lo    # per slot: the run side's first and last ticks (lo > hi: none;
    cdef vector[uint64_t] range_hi    # a slot made since they were set: none)

    # -- coverage (report: ``_walk_coverage``, ``_nwalk_coverage.pxi``): each record walked, counted --
    cdef Coverage cov
    cdef bint covering
    # -- rows (export, decode: ``_walk_rows``, ``_nwalk_rows.pxi``): each event walked clean, a row --
    cdef RowSink rsink
    cdef bint rowing
    # -- watched threads (repair: ``rewrite/_continue``, the records reading a placeholder thread) --
    cdef uint64_t wkey[WATCHED_MAX]                  # _key(slot, index) of each watched thread
    cdef uint8_t wstate[WATCHED_MAX]                 # ... 1: read since the last take, | 2: registered since
    cdef int nwatched                                # (a few: compared in turn, no lookup per ref)
    cdef int64_t watched_records                     # records that read a watched thread since the last take
    cdef int64_t watched_last                        # the index of the last record counted (a record walked
                                                     # again, ``_event``'s loop, is counted once)
    cdef int64_t watched_from                        # the first record index watched

    def __init__(self, Plan plan not None, mirror, bint big=False):
        """A walk of one trace (or structured-log stream: ``plan`` says which) with ``plan``;
        ``mirror``: the Python side of the tables (``_walk_native.Mirror``: its state is
        written by the walk itself, its methods a subclass overrides are called as it
        is told of each step, ``Mirror.told``); ``big``: the
        trace is big-endian (its words are read byte-swapped where the host's order differs;
        text is bytes, read as it is in either order)."""
        self.plan = plan
        self.P = &plan.P
        self.terms = plan.terms.data()
        self.argref = plan.argref.data()
        self.swap = 1 if _HOST_BIG != big else 0
        self.inline_bit = self.P.inline_bit
        self.name_lo = plan.name_lo
        self.name_mask = plan.name_mask
        self.log = plan.log
        self.last_pair = -1
        self.magic_at = -1
        self.cbits = CACHE_BITS0
        self.ckey.assign(1 << CACHE_BITS0, U64MAX)  # no key: a provider slot below 2^(64 - KEY_BITS) - 1 never makes it
        self.cval.assign(1 << CACHE_BITS0, 0)
        self.vals.assign(max(self.P.nvals, 1), 0)
        self.pos.assign(max(self.P.npos, 1), 0)
        self.argcap = 8  # (grown, and the record screened again, where one has more: ``_walk_one``)
        self.args.assign(self.argcap * (ARG_ROW_HEAD + self.P.narg_vals + self.P.narg_pos), 0)
        self.counts.assign(self.P.nterminals, 0)
        self.foundcap = 4  # (grown as ``argcap`` is)
        self.found.assign(self.foundcap * FOUND_COLUMNS, 0)
        self.layout = False
        self.lookahead = True
        # (room for a few providers and terminals counted between takes: a small trace's first
        # provider and kinds reallocate nothing)
        self.rate.reserve(4)
        self.limit.reserve(4)
        self.announced.reserve(4)
        self.names.reserve(4)
        self.named.reserve(4)
        self.pid_of.reserve(4)
        self.counted.reserve(16)
        self.rate.push_back(1000000000)
        self.limit.push_back(U64MAX)
        self.announced.push_back(0)
        self.names.push_back(string())
        self.named.push_back(0)
        self.pid_of.push_back(0)
        self.current = 0
        self.mirror = mirror
        told = mirror.told
        self.hooks = _hook_bits(told) if told else 0
        self._direct(mirror.state)
        self.last_dur = -1
        self.ptr_type = -1
        # (no piece_reset: its caches and per-slot and per-terminal vectors are a slice's,
        # allocated by its first piece_reset or set_stop_terms; a lint's walk never pays for them)

    # -- the tables, as the reference reader leaves them after a record it decoded ----
    cdef int _slot(self, object pid) except -1:
        if pid is None:
            return 0
        return self._slot_of(pid)

    cdef int _slot_of(self, uint64_t key) except -1:
        """``_slot`` of a provider id (not None), with no Python int made."""
        it = self.slot_of.find(key)
        if it != self.slot_of.end():
            return deref(it).second
        cdef int s = <int>self.rate.size()
        self.slot_of[key] = s
        self.pid_of.push_back(key)
        self.rate.push_back(1000000000)
        self.limit.push_back(U64MAX)
        self.announced.push_back(0)
        self.names.push_back(string())
        self.named.push_back(0)
        if not self.slot_used.empty():  # (a slice's: sized by its first piece_reset)
            self.cut_tick.push_back(0)
            self.slot_used.push_back(0)
            self.slot_named.push_back(0)
        return s

    def set_current(self, pid):
        """The current provider is ``pid`` (None: the provider before any provider record)."""
        self.current = self._slot(pid)
        self._current_tables()

    def announce(self, pid):
        """A provider info record named ``pid`` (by a name the walk does not know)."""
        cdef int s = self._slot(pid)
        self.announced[s] = 1
        self.named[s] = 0

    def direct_tables(self, state):
        """Carry the tables' steps out on ``state`` (a ``ProviderState``: the mirror's, as
        ``__init__`` does) without calling the mirror: its interner, its providers and its
        current provider's string and thread tables are written here by the table steps
        (``_interned``, ``_names_on``, ``_switch_on``, ``_rate_on``: the one copy, which
        ``Mirror``'s methods call too), no Python call per registration; the mirror is
        called only for the steps its class overrides (``hooks``: the slicer's, repair's)."""
        if state is not self.d_state:
            self._direct(state)

    cdef int _direct(self, state) except -1:
        self.d_state = state
        self.d_ids = state.strings.ids
        self.d_values = state.strings.values
        return self._current_tables()

    cdef int _current_tables(self) except -1:
        """The current provider's tables, read again from the state (after the mirror or the
        reference changed the current provider)."""
        cur = self.d_state.current
        self.d_strings = cur.strings
        self.d_threads = cur.threads
        return 0

    cdef int64_t _intern_direct(self, const unsigned char *b, uint64_t n) except -1:
        """Text interned in the state's interner (``Interner.__call__``'s steps): its id.
        Screened text is valid UTF-8 ("replace" only where another thread rewrote the bytes
        of a bytearray after the screen: never an exception out of the lint)."""
        return _interned(self.d_ids, self.d_values, (<const char *>b)[:n].decode("utf-8", "replace"))

    def set_rate(self, uint64_t rate, uint64_t limit):
        """The current provider's tick rate and largest timestamp that converts."""
        self.rate[self.current] = rate
        self.limit[self.current] = limit

    def set_string(self, uint64_t index, int64_t gid):
        self._put_string(_key(self.current, index), gid)

    cdef inline void _put_string(self, uint64_t key, int64_t gid) noexcept:
        self.strings[key] = gid
        if self.strings.size() > (<size_t>1 << self.cbits) and self.cbits < CACHE_BITS:
            # the table outgrew the cache: a larger one, empty (it fills as refs are looked up)
            self.cbits = min(self.cbits + 3, CACHE_BITS)
            self.ckey.assign(<size_t>1 << self.cbits, U64MAX)
            self.cval.assign(<size_t>1 << self.cbits, 0)
        cdef unsigned h = _slot_hash(key, self.cbits)
        self.ckey[h] = key
        self.cval[h] = gid

    cdef inline int64_t _string(self, uint64_t key) noexcept nogil:
        """The interned id registered under ``key`` (-1: none)."""
        cdef unsigned h = _slot_hash(key, self.cbits)
        if self.ckey[h] == key:
            return self.cval[h]
        it = self.strings.find(key)
        if it == self.strings.end():
            return -1
        self.ckey[h] = key
        self.cval[h] = deref(it).second
        return deref(it).second

    def set_thread(self, uint64_t index, uint64_t pk, uint64_t tk):
        cdef ThreadEntry e
        e.pk = pk
        e.tk = tk
        e.gid = -1
        self.threads[_key(self.current, index)] = e

    def watch_thread(self, pid, uint64_t index, int64_t since):
        """Count the records from index ``since`` on that read thread ``index`` of provider
        ``pid`` (registered or not) until a registration of it (``take_watched``): repair's
        placeholder threads, read by OUT's lint (``rewrite/_continue``). False (nothing
        watched) where ``WATCHED_MAX`` are watched already."""
        if self.nwatched == WATCHED_MAX:
            return False
        self.wkey[self.nwatched] = _key(self._slot(pid), index)
        self.wstate[self.nwatched] = 0
        self.nwatched += 1
        self.watched_last = -1
        self.watched_from = since
        return True

    def take_watched(self):
        """(records that read a watched thread, {(provider id, index) read}) since the last
        take; a thread registered since is watched no more."""
        hit = set()
        cdef int k
        for k in range(self.nwatched):
            if self.wstate[k] & 1:
                hit.add((self._pid(<int>(self.wkey[k] >> KEY_BITS)), self.wkey[k] & ((1 << KEY_BITS) - 1)))
                self.wstate[k] &= 2
        n, self.watched_records = self.watched_records, 0
        return n, hit

    cdef inline void _unwatch(self, uint64_t key) noexcept nogil:
        """A registration of a watched thread: its refs from here on are not counted."""
        cdef int k
        for k in range(self.nwatched):
            if self.wkey[k] == key:
                self.wstate[k] |= 2

    cdef inline void _watch_hit(self, uint64_t key, int64_t index) noexcept nogil:
        """A ref to the thread ``key`` read by record ``index``: counted when it is watched
        (and not registered since), the record once."""
        cdef int k
        if index < self.watched_from:
            return
        for k in range(self.nwatched):
            if self.wkey[k] == key and not self.wstate[k] & 2:
                self.wstate[k] |= 1
                if self.watched_last != index:
                    self.watched_last = index
                    self.watched_records += 1

    # -- the results ----------------------------------------------------------------
    def take_counts(self):
        """{terminal ordinal: records walked natively} since the last call (the terminals in the
        order first met)."""
        out = {}
        for k in self.counted:
            out[k] = self.counts[k]
            self.counts[k] = 0
        self.counted.clear()
        return out

    def pending_rows(self):
        return self.rows.size()

    def take_row_tuples(self):
        """The pairing rows since the last take, one tuple each (``_pairing.Batch.add``'s
        arguments: for the Python pairing loop, where the compiled engine is not built)."""
        cdef fxt_pair_row *r
        out = []
        for i in range(<Py_ssize_t>self.rows.size()):
            r = &self.rows[i]
            out.append((r.kind, r.thread, r.process, r.cat, r.name, r.ts, r.id, r.end, r.offset, r.index, r.size,
                        r.rate))
        self.rows.clear()
        return out

    def take_findings(self):
        """The diagnostics rows since the last take, in file order, one tuple each: (rule
        (``Find``), terminal, field (which of the terminal's string refs, thread refs or
        timestamps; an argument's: which of its type's string refs), argument ordinal (-1:
        the record's own field), argument type, record index, offset, size (bytes), the
        argument's offset (bytes), the ref, ticks, provider id or registered index, the tick
        rate, the provider id (None before any provider record), and a changed registration's
        old and new values (two words each)). A row the per-rule cap drops (``set_bound``)
        is counted (``take_capped``), not handed over."""
        cdef Finding *f
        cdef int k
        out = []
        self.swallow_taken.swap(self.swallow)  # (what this take's FOUND_END rows point into)
        self.swallow.clear()
        for i in range(<Py_ssize_t>self.findings.size()):
            f = &self.findings[i]
            if self.capping and self._capped(f):
                self.capped[_cap_key(f)] += 1
                continue
            out.append((f.rule, f.term, f.field, f.arg, f.arg_type, f.index, f.offset, f.size, f.at, f.value,
                        f.rate, self.pid_of[f.slot] if f.slot else None, f.old0, f.old1, f.new0, f.new1))
        self.findings.clear()
        return out

    cdef inline bint _capped(self, const Finding *f) noexcept nogil:
        """Whether the per-rule cap drops the row (``set_bound``: past its rule's bound)."""
        cdef int k = _cap_key(f)
        return k >= 0 and self.cap_off[k] >= 0 and (
            f.offset > self.cap_off[k] or (f.offset == self.cap_off[k] and f.index > self.cap_idx[k]))

    def swallowed_at(self, int64_t start, int64_t n, kinds):
        """The records a FOUND_END row's framing decision says its record swallowed
        (``_frame_after``: ``start`` its ``new1``, ``n`` its count), ((kind, offset in bytes),
        ...), each kind ``kinds[terminal]``, from the rows of the last ``take_findings``."""
        cdef int64_t k, t
        if start < 0 or n < 0 or 2 * (start + n) > <int64_t>self.swallow_taken.size():
            raise ValueError(f"no swallowed records {start} + {n}")
        out = []
        for k in range(start, start + n):
            t = self.swallow_taken[2 * k]
            if t < 0 or t >= len(kinds):
                raise ValueError(f"no terminal {t} among the kinds")
            out.append((kinds[t], self.swallow_taken[2 * k + 1]))
        return tuple(out)

    def set_bound(self, int key, int64_t offset, int64_t index):
        """The per-rule cap of the rows of ``key`` (``_cap_key``: ``2 * rule + (field != 0)``;
        ``2 * F_LAYOUT`` for a FOUND_SHORT row, ST001): the linter's sink keeps no diagnostic
        of it past (``offset``, ``index``), and will keep none there whatever comes later (a
        bound only moves back: ``_result.DiagnosticSink``), so ``take_findings`` counts the
        rows past it instead of handing them over."""
        if key < 0 or key >= CAP_KEYS or offset < 0:
            raise ValueError(f"no cap key {key} or bound ({offset}, {index})")
        if not self.capping:
            self.cap_off.assign(CAP_KEYS, -1)
            self.cap_idx.assign(CAP_KEYS, 0)
            self.capped.assign(CAP_KEYS, 0)
            self.capping = True
        self.cap_off[key] = offset
        self.cap_idx[key] = index

    def take_capped(self):
        """[(cap key, rows the cap dropped)] since the last take."""
        cdef int k
        out = []
        if self.capping:
            for k in range(CAP_KEYS):
                if self.capped[k]:
                    out.append((k, self.capped[k]))
                    self.capped[k] = 0
        return out

    def note_copy(self, int64_t ident, int slot, questions=()):
        """The diagnostics of the copies of record id ``ident`` (an F_COPY row's value) are
        known to the linter, noted under ``slot``: the walk's later copies of it write no
        F_COPY row but a place, (slot, offset, record index), in the block ``take_moved``
        hands over (the linter's sink says them in one call: ``_walk_native``). ``questions``:
        what the decoder asked of the bytes after the record, four ints each (``copy_q``'s;
        kind ids as ``set_kind_ids`` gave them): a later copy is a place only where each
        has the same answer there (``_answers_hold``), else an F_COPY row, and the run
        does not stop after it (``refuse_copy``'s)."""
        cdef vector[int64_t] q
        if ident < 0 or ident >= <int64_t>self.copies.size() or slot < 0:
            raise ValueError(f"no copy id {ident} or slot {slot}")
        for v in questions:
            q.push_back(v)
        if q.size() % 4:
            raise ValueError("questions of four ints each")
        for k in range(0, <int64_t>q.size(), 4):
            # (positions within a copyable record's reach: no offset arithmetic overflows)
            if q[k] < 0 or q[k] > 2 or q[k + 3] < -1 or not (0 <= q[k + 1] <= 2 * COPY_RECORD) \
                    or not (0 <= q[k + 2] <= 2 * COPY_RECORD):
                raise ValueError(f"no question {list(q)[k:k + 4]}")
        if <int64_t>self.copy_slot.size() <= ident:
            self.copy_slot.resize(ident + 1, -1)
        self.copy_slot[ident] = slot
        if q.size():
            if <int64_t>self.copy_q.size() <= ident:
                self.copy_q.resize(ident + 1)
            self.copy_q[ident] = q
            if <int64_t>self.copy_stopped.size() <= ident:
                self.copy_stopped.resize(ident + 1, 0)
            self.copy_stopped[ident] = 3  # (a copy answered otherwise: its row, no stop)
        if <int64_t>self.moved_n.size() <= slot:
            self.moved_n.resize(slot + 1, 0)

    def set_kind_ids(self, ids):
        """Each terminal's kind id (one id per kind name: ``note_copy``'s answers)."""
        self.kind_ids.clear()
        for v in ids:
            self.kind_ids.push_back(v)

    cdef int64_t _kind_b(self, Scan *S, int64_t at) noexcept nogil:
        """``_reader.header_kind`` of the word at byte ``at`` (any alignment), as a kind id
        (-1: None), with the terminal in ``self.qterm``; -2 where no word is there."""
        cdef uint64_t h = 0, t, size
        cdef const int64_t *node
        cdef int depth = 0
        if at < 0 or at > S.nbytes - 8:
            return -2
        memcpy(&h, S.buf + at, 8)
        if S.swap:
            h = _bswap64(h)
        t = (h >> self.P.type_lo) & self.P.type_mask
        size = (h >> <uint64_t>self.P.sizes[2 * t]) & <uint64_t>self.P.sizes[2 * t + 1]
        if size == 0 or size > <uint64_t>((S.nbytes - at) // 8):
            return -1
        node = self.P.code + self.P.roots[t]
        while node[0] == NODE_SELECT and depth < MAX_DEPTH:
            node = self.P.code + node[4 + ((h >> <uint64_t>node[1]) & <uint64_t>node[2])]
            depth += 1
        if node[0] != NODE_TERMINAL or self.terms[node[1]].mode == M_UNDEFINED or h & self.terms[node[1]].zero_mask:
            return -1
        self.qsize = <int64_t>size
        return self.kind_ids[node[1]] if node[1] < <int64_t>self.kind_ids.size() else -3

    cdef int _reach_b(self, Scan *S, int64_t at) noexcept nogil:
        """``_reach`` from byte ``at`` (any alignment): ``_reader._chain``'s reach."""
        cdef int n = 0
        cdef int64_t k
        while n < RESYNC_DEPTH:
            if at > S.nbytes - 8:
                return RESYNC_DEPTH if at == S.nbytes - S.nbytes % 8 else n
            k = self._kind_b(S, at)
            if k < 0:
                break
            n += 1
            at += 8 * self.qsize
        return n

    cdef bint _answers_hold(self, Scan *S, int64_t ident, int64_t off) noexcept nogil:
        """Whether each question noted of copy id ``ident`` (``copy_q``) has its answer for the
        copy at byte ``off`` (``_reader.answers_hold``: ``_kind_at``, ``_after``, ``_early``)."""
        cdef size_t k
        cdef int64_t what, a, got
        if ident >= <int64_t>self.copy_q.size():
            return True
        for k in range(0, self.copy_q[ident].size(), 4):
            what = self.copy_q[ident][k]
            a = off + self.copy_q[ident][k + 1]
            got = self._kind_b(S, a)
            if got == -3:
                return False  # (a kind with no id: never, asked as the linter asks it)
            if what == 0:  # ``kind``: the word is there (the decoder read it)
                if got == -2:
                    return False
            elif what == 2:  # ``early``: a well-formed header whose chain reaches further
                if got >= 0 and self._reach_b(S, a) <= self._reach_b(S, off + self.copy_q[ident][k + 2]):
                    got = -1
            if got < 0:
                got = -1
            if got != self.copy_q[ident][k + 3]:
                return False
        return True

    def refuse_copy(self, int64_t ident):
        """The linter will note no diagnostics of the copies of record id ``ident`` (its decoder
        reads past it, or asks what follows): ``run`` no longer stops after them."""
        if ident < 0 or ident >= <int64_t>self.copies.size():
            raise ValueError(f"no copy id {ident}")
        if <int64_t>self.copy_stopped.size() <= ident:
            self.copy_stopped.resize(ident + 1, 0)
        self.copy_stopped[ident] = 3

    def note_undefined(self, int64_t term, int64_t size, const unsigned char[::1] header, int slot):
        """An undefined record's diagnostics are known to the linter, noted under ``slot``, for
        every such record of terminal ``term``, ``size`` bytes and this header word (8 bytes, as
        the trace holds it: all the reader reads of it): the walk's later such records are places
        in ``take_moved``'s block, not F_UNDEFINED rows. False: not noted (COPY_KEYS rows noted)."""
        cdef string k
        if slot < 0 or header.shape[0] != 8:
            raise ValueError(f"no header word of 8 bytes or slot {slot}")
        _key_undefined(&k, term, size, &header[0])
        return self._note_slot(k, slot)

    def note_row(self, key, int slot):
        """A diagnostics row's diagnostic is known to the linter, noted under ``slot``, for
        every row with ``key`` (``_walk_native._row_key``'s: rule, terminal, field, argument,
        argument type, size, the argument's offset from its record's or ``at``, value, rate,
        provider id, old and new values): the walk's later such rows, one of a string ref,
        thread ref, timestamp or table record's findings (not a repeated magic record's, a
        provider event's or an undefined record's), are places in ``take_moved``'s block, not
        rows. False: not noted (a provider the walk does not know, or COPY_KEYS rows noted)."""
        cdef Finding f
        cdef string k
        if slot < 0 or len(key) != 14:
            raise ValueError(f"no row key {key!r} or slot {slot}")
        rule = key[0]
        if rule < F_STRING or rule > F_CHANGED or rule == F_MAGIC:
            return False
        pid = key[9]
        if pid is None:
            f.slot = 0
        else:
            it = self.slot_of.find(<uint64_t>pid)
            if it == self.slot_of.end():
                return False
            f.slot = deref(it).second
        f.rule, f.term, f.field, f.arg, f.arg_type = rule, key[1], key[2], key[3], key[4]
        f.size, f.at, f.value, f.rate = key[5], key[6], key[7], key[8]
        f.old0, f.old1, f.new0, f.new1 = key[10], key[11], key[12], key[13]
        f.offset = 0  # (``at`` is the argument's offset from its record's already)
        _key_finding(&k, &f)
        return self._note_slot(k, slot)

    cdef bint _note_slot(self, const string& k, int slot):
        """Row key ``k`` noted under ``slot`` (``note_undefined``'s, ``note_row``'s); False where
        COPY_KEYS keys are noted and ``k`` is not one of them."""
        if <int64_t>self.row_slot.size() >= COPY_KEYS and self.row_slot.find(k) == self.row_slot.end():
            return False
        self.row_slot[k] = slot
        if <int64_t>self.moved_n.size() <= slot:
            self.moved_n.resize(slot + 1, 0)
        return True

    def take_moved(self):
        """The places said natively since the last take (``note_copy``, ``note_row``), in file
        order: (a block of (slot, offset, record index) triples, native int64s, as bytes;
        {slot: places}), or None: none."""
        cdef size_t n = self.moved.size()
        cdef int s
        if n == 0:
            return None
        block = PyBytes_FromStringAndSize(<const char *>self.moved.data(), <Py_ssize_t>(n * sizeof(int64_t)))
        per = {}
        for s in self.moved_slots:
            per[s] = self.moved_n[s]
            self.moved_n[s] = 0
        self.moved.clear()
        self.moved_slots.clear()
        return block, per

    cdef inline void _move(self, int slot, int64_t offset, int64_t index) noexcept nogil:
        """A place said natively: its diagnostics are those noted under ``slot``."""
        self.moved.push_back(slot)
        self.moved.push_back(offset)
        self.moved.push_back(index)
        if self.moved_n[slot] == 0:
            self.moved_slots.push_back(slot)
        self.moved_n[slot] += 1

    def take_row_block(self):
        """The pairing rows since the last take as one ``RowBlock`` of ``_pairrow.h`` rows
        (``ROW_BYTES`` each), moved out of the walk without a copy: what the compiled pairing
        engine copies in whole (``_pairing.Batch.add_block``), with no Python object per row."""
        cdef RowBlock out = RowBlock.__new__(RowBlock)
        cdef size_t n = self.rows.size()
        out.rows.swap(self.rows)
        self.rows.reserve(n)  # the next rows of the window: address space, no page touched yet
        out.nbytes = n * sizeof(fxt_pair_row)
        return out

    # -- slice: the piece in force and what is open (``rewrite/_slice_walk``) -------------
    def set_stop_terms(self, terms):
        """The terminals whose records a slice always hands back (``_slice_walk``)."""
        cdef int t
        self.stop_term.assign(self.P.nterminals, 0)
        for t in terms:
            self.stop_term[t] = 1

    def slot_rates(self):
        """The tick rate of each provider slot (slot 0: the provider before any provider record)."""
        return [self.rate[s] for s in range(<int>self.rate.size())]

    def set_cut_ticks(self, ticks):
        """--split-time: per slot, the first tick of the next piece."""
        cdef int s
        for s in range(min(len(ticks), <int>self.cut_tick.size())):
            self.cut_tick[s] = ticks[s]

    def piece_reset(self):
        """A new piece: nothing read, registered or used in it yet."""
        cdef int i
        self.piece_bytes = self.piece_records = 0
        self.has_first = False
        self.first_ts = self.first_rate = self.last_ts = self.last_rate = 0
        self.used_str.clear()
        self.used_thr.clear()
        self.reg_str.clear()
        self.reg_thr.clear()
        self.koid_set.clear()
        self.used_slots.clear()
        # (the slice's per-slot vectors, made at its first piece: one entry per slot, as
        # ``_slot`` keeps them from then on; a cut tick of 0 for a slot it has not set)
        self.cut_tick.resize(self.rate.size(), 0)
        self.slot_used.resize(self.rate.size(), 0)
        self.slot_named.resize(self.rate.size(), 0)
        if self.stop_term.empty():
            self.stop_term.assign(self.P.nterminals, 0)
        for i in range(<int>self.slot_used.size()):
            self.slot_used[i] = 0
            self.slot_named[i] = 0
        self.ukey.assign(<size_t>1 << CACHE_BITS, U64MAX)
        self.tkey.assign(<size_t>1 << CACHE_BITS, U64MAX)
        self.kpk.assign(<size_t>1 << CACHE_BITS, U64MAX)
        self.ktk.assign(<size_t>1 << CACHE_BITS, U64MAX)
        self.memo_key = U64MAX  # (no key is U64MAX: a slot and an index of a few bits each)
        self.ptr_used.clear()
        self.piece_extra = 0

    cdef inline object _pid(self, int s):
        return self.pid_of[s] if s else None

    def piece_state(self):
        """What the piece in force read, as ``_slice._Piece`` holds it: (strings {provider id:
        {index: interned id}}, threads {provider id: {index: koids}}, koids, providers used in
        order, providers named before use, records, bytes, first instant, last instant)."""
        strings: dict = {}
        threads: dict = {}
        for kv in self.used_str:
            strings.setdefault(self._pid(<int>(kv.first >> KEY_BITS)), {})[kv.first & ((1 << KEY_BITS) - 1)] = kv.second
        for kt in self.used_thr:
            threads.setdefault(self._pid(<int>(kt.first >> KEY_BITS)), {})[kt.first & ((1 << KEY_BITS) - 1)] = \
                (kt.second.first, kt.second.second)
        koids = {k for k in self.koid_set}
        used = [self._pid(s) for s in self.used_slots]
        named = {self._pid(s) for s in range(<int>self.slot_named.size()) if self.slot_named[s]}
        first = (self.first_ts, self.first_rate) if self.has_first else None
        last = (self.last_ts, self.last_rate) if self.has_first else None
        return strings, threads, koids, used, named, self.piece_records, self.piece_bytes, first, last

    def use_provider(self):
        """A record the reference's pass took, read under the current provider."""
        self._use_slot(self.current)

    def use_string(self, uint64_t ref):
        """A string ref a record the reference's pass took reads (noted when registered)."""
        cdef int64_t gid = self._string(_key(self.current, ref))
        if gid >= 0:
            self._use_string(_key(self.current, ref), gid)

    def use_thread(self, uint64_t ref, uint64_t pk, uint64_t tk):
        self._use_thread(_key(self.current, ref), pk, tk)

    def use_koids(self, koids):
        for k in koids:
            if self.koid_set.insert(<uint64_t>k).second:
                self.piece_extra += self._kcost(<uint64_t>k)

    def set_pointer_arg(self, int ty, int slot):
        """The pointer argument's type and its value's slot in an argument row."""
        self.ptr_type, self.ptr_slot = ty, slot

    def user_object(self, uint64_t pk, uint64_t ptr, int64_t cost):
        """A userspace object kept (``cost``: its bytes in a prefix): a pointer argument naming
        it in its process is noted."""
        self.ptr_known[pair[uint64_t, uint64_t](pk, ptr)] = cost
        self._max_user = max(self._max_user, cost)

    def use_pointer(self, uint64_t pk, uint64_t ptr):
        """A pointer to a userspace object kept, read by a record the reference's pass took."""
        self._use_pointer(pair[uint64_t, uint64_t](pk, ptr))

    cdef inline void _use_pointer(self, pair[uint64_t, uint64_t] key) noexcept nogil:
        it = self.ptr_known.find(key)
        if it != self.ptr_known.end() and self.ptr_used.insert(pair[pair[uint64_t, uint64_t], uint8_t](key, 1)).second:
            self.piece_extra += deref(it).second

    # -- --split-size: what a piece's file holds besides its body --------------------
    def set_costs(self, int64_t thread, int64_t dur, int64_t async_, int64_t flow, int64_t unknown):
        """The bytes of a Thread record, of the end a cut writes for an open duration, async
        operation and flow (their texts aside), and of a String record not told."""
        self.cost_thread, self.cost_dur, self.cost_async, self.cost_flow = thread, dur, async_, flow
        self.cost_unknown = unknown
        self.max_gcost = max(self.max_gcost, unknown, 8)

    def string_cost(self, int64_t gid, int64_t cost):
        """The String record of interned string ``gid`` takes ``cost`` bytes (told once)."""
        if gid < 0:
            return
        if <size_t>gid >= self.gcost.size():
            self.gcost.resize(gid + 1 + (gid >> 2), 0)
        if self.gcost[gid] == 0:
            self.gcost[gid] = cost
            self.max_gcost = max(self.max_gcost, cost)

    def noted_string(self, uint64_t ref):
        """Whether the piece noted (or registered) string ``ref`` of the current provider."""
        return bool(self.reg_str.count(_key(self.current, ref)) or self.used_str.count(_key(self.current, ref)))

    def noted_thread(self, uint64_t ref):
        return bool(self.reg_thr.count(_key(self.current, ref)) or self.used_thr.count(_key(self.current, ref)))

    def noted_koid(self, uint64_t koid):
        return bool(self.koid_set.count(koid))

    def noted_pointer(self, uint64_t pk, uint64_t ptr):
        return bool(self.ptr_used.count(pair[uint64_t, uint64_t](pk, ptr)))

    def object_cost(self, uint64_t koid, int64_t cost):
        """The kernel object kept for ``koid`` takes ``cost`` bytes in a prefix."""
        self.kcost[koid] = cost
        self.max_kcost = max(self.max_kcost, cost)

    cdef inline int64_t _gcost(self, int64_t gid) noexcept nogil:
        if gid >= 0 and <size_t>gid < self.gcost.size() and self.gcost[gid] > 0:
            return self.gcost[gid]
        return self.cost_unknown

    cdef inline int64_t _kcost(self, uint64_t koid) noexcept nogil:
        it = self.kcost.find(koid)
        return deref(it).second if it != self.kcost.end() else 0

    cdef inline int64_t _open_cost(self, int kind, int64_t cat, int64_t name) noexcept nogil:
        """The end a cut writes for an open thing (``kind``: its begin's), with its texts."""
        cdef int64_t base = self.cost_dur if kind == 0 else (self.cost_async if kind == 3 else self.cost_flow)
        return base + self._gcost(cat) - 8 + self._gcost(name) - 8

    cdef inline bint _over(self, int64_t adds) noexcept nogil:
        """The piece's file with the record being walked (``adds``: what it may add besides its
        bytes) would be larger than --split-size: the slicer decides."""
        return self.cut_size > 0 and self.piece_bytes > 0 and \
            self.piece_bytes + 8 * self.size + self.extra_base + self.piece_extra + self.open_extra + adds \
            > self.cut_size

    cdef inline bint _far(self, Scan *S, Term *T) noexcept nogil:
        """--split-size: the record being walked cannot reach the cut whatever it adds (an
        upper bound of ``_adds`` from the largest costs told: each string ref a String
        record, each thread ref a Thread record and two kernel objects, each pointer the
        largest userspace object, a begin its end with the longest texts), so ``_adds``
        need not be counted: ``_over`` of the bound is false, and ``_over`` grows with ``adds``."""
        cdef int64_t g = self.max_gcost
        cdef int64_t bound = (T.nstr + NARGREF * S.nargs) * g + T.nthr * (2 * self.max_kcost + self.cost_thread)
        if not self.ptr_known.empty():
            bound += S.nargs * self._max_user
        if T.pair_kind == 0 or T.pair_kind == 3 or T.pair_kind == 6:
            bound += max(self.cost_dur, max(self.cost_async, self.cost_flow)) + 2 * max(g, 8 + ((<int64_t>(self.inline_bit - 1) + 7) & ~7))
        return not self._over(bound)

    cdef int64_t _adds(self, Scan *S, Term *T, int64_t *ids) noexcept nogil:
        """At most what an event adds to the bytes around the piece's body (``_Slicer._adds``:
        the entries it notes first, an end for what it begins), before it is noted."""
        cdef uint64_t *v = self.vals.data()
        cdef int64_t *p = self.pos.data()
        cdef int slot = self.current
        cdef uint64_t ref, pk, tk, inline_bit = self.inline_bit
        cdef int64_t n = 0, a, gid, cat = 0, name = 0
        cdef int64_t *row
        cdef int i, k, ty, s
        for i in range(T.nstr):
            ref = v[T.str_val[i]]
            if ref != 0 and not (ref & inline_bit) and ids[i] >= 0 and not self.reg_str.count(_key(slot, ref)) \
                    and not self.used_str.count(_key(slot, ref)):
                n += self._gcost(ids[i])
        if not self.ptr_known.empty():
            for a in range(S.nargs):
                if S.args[a * S.arg_columns + 2] == self.ptr_type:
                    n += self._max_user
        n += self._arg_strings(S, False)
        for i in range(T.nthr):
            ref = v[T.thr_val[i]]
            if ref == 0:
                if T.thr_nkoid[i] >= 2:
                    n += self._new_koid(_word(S, p[T.thr_pk[i]])) + self._new_koid(_word(S, p[T.thr_tk[i]]))
            else:
                it = self.threads.find(_key(slot, ref))
                if it != self.threads.end():
                    n += self._new_koid(deref(it).second.pk) + self._new_koid(deref(it).second.tk)
                    if not self.reg_thr.count(_key(slot, ref)) and not self.used_thr.count(_key(slot, ref)):
                        n += self.cost_thread
        if T.pair_kind == 0 or T.pair_kind == 3 or T.pair_kind == 6:
            for i in range(T.nstr):
                if T.str_role[i] == 0:
                    continue
                ref = v[T.str_val[i]]
                if ref & inline_bit:
                    gid = 8 + ((<int64_t>(ref & (inline_bit - 1)) + 7) & ~7)
                else:
                    gid = self._gcost(ids[i]) if ids[i] >= 0 else 8
                if T.str_role[i] == 1:
                    cat = gid
                else:
                    name = gid
            n += (self.cost_dur if T.pair_kind == 0 else (self.cost_async if T.pair_kind == 3 else self.cost_flow)) + \
                cat + name
        return n

    cdef inline int64_t _new_koid(self, uint64_t koid) noexcept nogil:
        return 0 if self.koid_set.count(koid) else self._kcost(koid)

    def piece_pointers(self):
        """(process koid, pointer) of the userspace objects kept the piece's records refer to."""
        return {(kv.first.first, kv.first.second) for kv in self.ptr_used}

    def registered(self, bint thread, uint64_t idx):
        """A registration the reference's pass took in the piece (current provider)."""
        if thread:
            self.reg_thr.insert(_key(self.current, idx))
        else:
            self.reg_str.insert(_key(self.current, idx))

    def named_now(self, pid):
        """A provider info record the reference's pass took in the piece named ``pid``."""
        cdef int s = self._slot(pid)
        if not self.slot_used[s]:
            self.slot_named[s] = 1

    def took(self, int64_t nbytes, bint has_ts, uint64_t ts, uint64_t rate):
        """A record the reference's pass wrote to the piece's body."""
        self.piece_bytes += nbytes
        self.piece_records += 1
        if has_ts:
            self._instant(ts, rate)

    def follow(self, int kind, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, uint64_t ident):
        """A pairing event the reference's pass read (``OpenEvents.follow``), under the current provider."""
        cdef bint off = self.follow_off
        self.follow_off = False
        self._follow(kind, pk, tk, cat, name, ident, self.current)
        self.follow_off = off

    def open_state(self):
        """What is open: ([(koids, [(category id, name id, provider id), ...]) per thread, in
        order of first sight], [((process koid, category id, name id, id), koids, provider
        id) per async operation], [(id, koids, category id, name id, provider id) per flow],
        [(koids, end, rate, category id, name id, provider id) per thread's complete event
        with the latest end])."""
        durs = []
        for i in range(<int>self.dur_koids.size()):
            durs.append(((self.dur_koids[i].first, self.dur_koids[i].second),
                         [(d.cat, d.name, self._pid(d.slot)) for d in self.dur_stacks[i]]))
        cdef size_t k
        cdef OpenItem o
        asyncs = []
        for k in range(self.asyncs.capacity()):
            if self.asyncs.used_at(k):
                o = self.asyncs.at(k)[0]
                asyncs.append((o.seq, ((o.pk, o.cat, o.name, o.ident), (o.pk, o.tk), self._pid(o.slot))))
        flows = []
        for k in range(self.flows.capacity()):
            if self.flows.used_at(k):
                o = self.flows.at(k)[0]
                flows.append((o.seq, (o.ident, (o.pk, o.tk), o.cat, o.name, self._pid(o.slot))))
        asyncs.sort()  # (in order of their begins: the seqs are distinct)
        flows.sort()
        completes = [((kv.first.first, kv.first.second), kv.second.end, kv.second.rate, kv.second.cat,
                      kv.second.name, self._pid(kv.second.slot)) for kv in self.completes]
        return durs, [a for _, a in asyncs], [f for _, f in flows], completes

    def latest(self):
        """The latest instant read, (ticks, rate), or None (``_Slicer._latest``)."""
        return (self.latest_ts, self.latest_rate) if self.has_latest else None

    cdef inline bint _span_cut(self, Term *T) noexcept nogil:
        """The record just screened starts the span or cuts (the reference's pass takes it)."""
        if self.range_on:
            return self._range_back(T)
        if T.nts == 0:
            return False
        if self.span_wait:
            return True
        return self.piece_bytes > 0 and self.vals[T.ts_val[0]] >= self.cut_tick[self.current]

    # -- slice, a time range: the run's side (``rewrite/_slice_walk.WalkSlicer._range_run``) --
    def set_range_ticks(self, lo, hi):
        """Per slot, the first and last tick of the run's side of the range (before, inside
        or after it, at the slot's rate): a record with a timestamp outside is handed back."""
        self.range_lo.assign(len(lo), 1)
        self.range_hi.assign(len(lo), 0)
        cdef Py_ssize_t s
        for s in range(min(len(lo), len(hi))):
            self.range_lo[s] = lo[s]
            self.range_hi[s] = hi[s]

    def owed_state(self):
        """The ends met before a begin they could match (``OpenEvents._owed``): ([(koids,
        category id, name id, count)], [((process koid, category id, name id, id), count)],
        [(flow id, count)])."""
        durs = [((kv.first.first.first, kv.first.first.second), kv.first.second.first, kv.first.second.second,
                 kv.second) for kv in self.owed_d]
        asyncs = [((kv.first.first.first, kv.first.first.second, kv.first.second.first, kv.first.second.second),
                   kv.second) for kv in self.owed_a]
        flows = [(kv.first, kv.second) for kv in self.owed_f]
        return durs, asyncs, flows

    cdef inline bint _range_back(self, Term *T) noexcept nogil:
        """The record just screened goes to the reference's pass: its instant is not on the
        run's side, it sets reader state (``range_state``), or it pairs (``range_pairs``)."""
        if T.nts == 0:
            return self.range_state and T.mode != M_EVENT
        if self.range_pairs and T.pair_kind >= 0:
            return True
        if <size_t>self.current >= self.range_lo.size():
            return True
        cdef uint64_t ts = self.vals[T.ts_val[0]]
        return ts < self.range_lo[self.current] or ts > self.range_hi[self.current]

    cdef inline void _instant(self, uint64_t ts, uint64_t rate) noexcept nogil:
        """The piece's first and last instants (``_slice._earlier``, ``_later``: exact)."""
        if not self.has_first:
            self.has_first = True
            self.first_ts = self.last_ts = ts
            self.first_rate = self.last_rate = rate
            return
        if fxt_before(ts, rate, self.first_ts, self.first_rate):
            self.first_ts, self.first_rate = ts, rate
        if fxt_before(self.last_ts, self.last_rate, ts, rate):
            self.last_ts, self.last_rate = ts, rate

    cdef inline void _use_slot(self, int s) noexcept nogil:
        if not self.slot_used[s] and not self.slot_named[s]:
            self.slot_used[s] = 1
            self.used_slots.push_back(s)

    cdef inline void _in_order(self, uint64_t ts, uint64_t rate) noexcept nogil:
        """A record's instant, in file order (``_Slicer._instant``)."""
        if self.has_latest and fxt_before(ts, rate, self.latest_ts, self.latest_rate):
            self.went_back = True
        elif not self.has_latest or fxt_before(self.latest_ts, self.latest_rate, ts, rate):
            self.has_latest = True
            self.latest_ts, self.latest_rate = ts, rate

    def instant(self, uint64_t ts, uint64_t rate):
        """A record the reference's pass read (``_Slicer._instant``)."""
        self._in_order(ts, rate)

    cdef inline void _took(self, Term *T, int slot, int64_t size) noexcept nogil:
        """A record the walk took into the piece (read under ``slot``), or walked past. (At
        the rate of the instants it compares with, the ticks alone: ``fxt_before``'s own
        first case, without its calls.)"""
        cdef uint64_t ts = 0, rate = 0
        if T.nts:
            ts = self.vals[T.ts_val[0]]
            rate = self.rate[slot]
            if self.has_latest and rate == self.latest_rate:
                if ts < self.latest_ts:
                    self.went_back = True
                elif ts > self.latest_ts:
                    self.latest_ts = ts
            else:
                self._in_order(ts, rate)
        if self.take_off:
            return
        self.piece_bytes += 8 * size
        self.piece_records += 1
        if T.mode != M_NAMES_PROVIDER and T.mode != M_SWITCHES_PROVIDER and not self.slot_used[slot]:
            self._use_slot(slot)
        if T.nts:
            if self.has_first and rate == self.first_rate and rate == self.last_rate:
                if ts < self.first_ts:
                    self.first_ts = ts
                if ts > self.last_ts:
                    self.last_ts = ts
            else:
                self._instant(ts, rate)

    cdef inline void _use_string(self, uint64_t key, int64_t gid) noexcept nogil:
        if self.ukey.empty():  # (no piece_reset yet: not a slice's walk)
            return
        cdef unsigned h = _slot_hash(key, CACHE_BITS)
        if self.ukey[h] != key:  # (a hit is noted: the test inline, the note a call)
            self._use_string_new(key, gid, h)

    cdef void _use_string_new(self, uint64_t key, int64_t gid, unsigned h) noexcept nogil:
        self.ukey[h] = key
        if self.reg_str.count(key):
            return
        if self.used_str.insert(pair[uint64_t, int64_t](key, gid)).second:  # (the first read's value stays)
            self.piece_extra += self._gcost(gid)

    cdef inline void _use_thread(self, uint64_t key, uint64_t pk, uint64_t tk) noexcept nogil:
        if self.ukey.empty():  # (no piece_reset yet: not a slice's walk)
            return
        cdef unsigned h = _slot_hash(key, CACHE_BITS)
        if self.tkey[h] == key:
            return
        self.tkey[h] = key
        if self.reg_thr.count(key):
            return
        if self.used_thr.insert(pair[uint64_t, pair[uint64_t, uint64_t]](key, pair[uint64_t, uint64_t](pk, tk))).second:
            self.piece_extra += self.cost_thread

    cdef inline void _use_koids(self, uint64_t pk, uint64_t tk) noexcept nogil:
        if self.ukey.empty():  # (no piece_reset yet: not a slice's walk)
            return
        cdef unsigned h = _slot_hash(pk * <uint64_t>0x100000001B3 ^ tk, CACHE_BITS)
        if self.kpk[h] == pk and self.ktk[h] == tk:
            return
        self.kpk[h] = pk
        self.ktk[h] = tk
        if self.koid_set.insert(pk).second:
            self.piece_extra += self._kcost(pk)
        if self.koid_set.insert(tk).second:
            self.piece_extra += self._kcost(tk)

    cdef inline int64_t _arg_strings(self, Scan *S, bint note) noexcept nogil:
        """The registered string refs of the arguments of the record just screened: noted as
        read by the piece (``note``: ``_note_refs``), else the bytes their String records
        add to the piece's file where the piece has neither registered nor read them
        (``_adds``)."""
        cdef int slot = self.current
        cdef uint64_t ref, key
        cdef int64_t a, gid, n = 0
        cdef int64_t *row
        cdef int k, ty, s
        for a in range(S.nargs):
            row = S.args + a * S.arg_columns
            ty = <int>row[2]
            for k in range(NARGREF):
                s = self.argref[ty * NARGREF + k]
                if s < 0:
                    break
                ref = <uint64_t>row[ARG_ROW_HEAD + s]
                if ref == 0 or ref & self.inline_bit:
                    continue
                key = _key(slot, ref)
                if note and self.ukey.size() and self.ukey[_slot_hash(key, CACHE_BITS)] == key:
                    continue  # noted already in this piece (``_use_string``'s cache): no lookup
                gid = self._string(key)
                if gid < 0:
                    continue
                if note:
                    self._use_string(key, gid)
                elif not self.reg_str.count(key) and not self.used_str.count(key):
                    n += self._gcost(gid)
        return n

    cdef void _note_refs(self, Scan *S, Term *T, int64_t *ids, uint64_t e_ref, ThreadEntry *e) noexcept nogil:
        """What an event the walk took reads of the tables (``_slice._Slicer._note_refs``):
        its string refs registered and not registered in the piece, its thread refs' koids,
        and its registered thread refs not registered in the piece (``e``: the entry of thread
        ref ``e_ref`` that ``_event_core`` found for this record, not looked up again)."""
        if self.note_off:
            return
        cdef uint64_t *v = self.vals.data()
        cdef int slot = self.current
        cdef uint64_t ref, inline_bit = self.inline_bit
        cdef int i
        for i in range(T.nstr):
            ref = v[T.str_val[i]]
            if ref != 0 and not (ref & inline_bit) and ids[i] >= 0:
                self._use_string(_key(slot, ref), ids[i])
        if S.nargs:
            self._arg_strings(S, True)
        # (an event whose one thread ref is the one the event before noted, and no userspace
        # object kept: nothing more to note, ``_note_threads``' own first test)
        if e is NULL or T.nthr != 1 or _key(slot, e_ref) != self.memo_key or e.pk != self.memo_pk \
                or e.tk != self.memo_tk or not self.ptr_known.empty():
            self._note_threads(S, T, e_ref, e)

    cdef void _note_threads(self, Scan *S, Term *T, uint64_t e_ref, ThreadEntry *e) noexcept nogil:
        """``_note_refs``' thread refs and pointers."""
        cdef uint64_t *v = self.vals.data()
        cdef int64_t *p = self.pos.data()
        cdef int slot = self.current
        cdef uint64_t ref, key
        cdef int i
        for i in range(T.nthr):
            ref = v[T.thr_val[i]]
            if ref == 0:
                if T.thr_nkoid[i] >= 2:
                    self._use_koids(_word(S, p[T.thr_pk[i]]), _word(S, p[T.thr_tk[i]]))
            elif e is not NULL and ref == e_ref:
                key = _key(slot, ref)
                if key == self.memo_key and e.pk == self.memo_pk and e.tk == self.memo_tk:
                    continue  # (noted by the event before: its sets hold it)
                self._use_koids(e.pk, e.tk)
                self._use_thread(key, e.pk, e.tk)
                if not self.ukey.empty():
                    self.memo_key, self.memo_pk, self.memo_tk = key, e.pk, e.tk
            else:
                it = self.threads.find(_key(slot, ref))
                if it != self.threads.end():
                    self._use_koids(deref(it).second.pk, deref(it).second.tk)
                    self._use_thread(_key(slot, ref), deref(it).second.pk, deref(it).second.tk)
        if not self.ptr_known.empty():
            self._note_pointers(S, T)

    cdef void _note_pointers(self, Scan *S, Term *T) noexcept nogil:
        """The pointer arguments of an event the walk took that name a userspace object kept,
        in the process of its first thread ref that resolves (``_Slicer._pointers``)."""
        cdef uint64_t *v = self.vals.data()
        cdef int64_t *p = self.pos.data()
        cdef uint64_t ref, pk = 0
        cdef bint found = False
        cdef int i
        cdef int64_t a
        cdef int64_t *row
        cdef pair[uint64_t, uint64_t] key
        for i in range(T.nthr):
            ref = v[T.thr_val[i]]
            if ref == 0:
                if T.thr_nkoid[i] >= 2:
                    pk = _word(S, p[T.thr_pk[i]])
                    found = True
                    break
            else:
                it = self.threads.find(_key(self.current, ref))
                if it != self.threads.end():
                    pk = deref(it).second.pk
                    found = True
                    break
        if not found or self.ptr_type < 0:
            return
        for a in range(S.nargs):
            row = S.args + a * S.arg_columns
            if <int>row[2] == self.ptr_type:
                self._use_pointer(pair[uint64_t, uint64_t](pk, <uint64_t>row[ARG_ROW_HEAD + self.ptr_slot]))

    cdef inline void _follow(self, int kind, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, uint64_t ident,
                             int slot) noexcept nogil:
        """``OpenEvents.follow``: a begin opens (or pays an end met before it), an end closes
        the innermost duration of its thread, its async operation, its flow (or is owed).
        (One function per kind: a call builds only the values its own kind uses.)"""
        if self.follow_off:
            return
        if kind == 0 or kind == 1:  # duration begin, end
            self._follow_dur(kind, pk, tk, cat, name, slot)
        elif kind == 2:  # a complete event: ``ident`` is its end
            self._follow_complete(pk, tk, cat, name, ident, slot)
        elif kind == 3 or kind == 5:  # async begin, end
            self._follow_async(kind, pk, tk, cat, name, ident, slot)
        elif kind == 6 or kind == 8:  # flow begin, end: keyed by id alone
            self._follow_flow(kind, pk, tk, cat, name, ident, slot)

    cdef void _follow_dur(self, int kind, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, int slot) noexcept nogil:
        cdef pair[uint64_t, uint64_t] koids = pair[uint64_t, uint64_t](pk, tk)
        cdef int i
        cdef OpenDur d
        cdef DurKey dk
        cdef int64_t n, depth
        if self.last_dur >= 0 and self.dur_koids[self.last_dur] == koids:
            i = self.last_dur  # (the thread of the event before, most often)
        else:
            f = self.dur_index.find(koids)
            if f == self.dur_index.end():
                i = <int>self.dur_koids.size()
                self.dur_index[koids] = i
                self.dur_koids.push_back(koids)
                self.dur_stacks.push_back(vector[OpenDur]())
            else:
                i = deref(f).second
            self.last_dur = i
        if kind == 0:
            if self.owed_d.size():
                dk = DurKey(koids, pair[int64_t, int64_t](cat, name))
                o = self.owed_d.find(dk)
                if o != self.owed_d.end() and deref(o).second > 0:
                    self.owed_d[dk] -= 1  # (by the map: an iterator's deref is a copy in Cython)
                    return
            d.cat = cat
            d.name = name
            d.slot = slot
            self.dur_stacks[i].push_back(d)
            self.open_extra += self._open_cost(0, cat, name)
        elif self.dur_stacks[i].size():
            n = <int64_t>self.dur_stacks[i].size()
            if self.dur_stacks[i].back().cat != cat or self.dur_stacks[i].back().name != name:
                # (``OpenEvents.follow``'s: the lint's reading, the innermost begin of its name
                # within ``dur_scan`` levels under the top closed with the begins above it)
                depth = n - 2
                while depth > n - 2 - self.dur_scan and depth >= 0:
                    if self.dur_stacks[i][depth].cat == cat and self.dur_stacks[i][depth].name == name:
                        while <int64_t>self.dur_stacks[i].size() > depth + 1:
                            self.open_extra -= self._open_cost(0, self.dur_stacks[i].back().cat,
                                                               self.dur_stacks[i].back().name)
                            self.dur_stacks[i].pop_back()
                        break
                    depth -= 1
            self.open_extra -= self._open_cost(0, self.dur_stacks[i].back().cat, self.dur_stacks[i].back().name)
            self.dur_stacks[i].pop_back()
        else:
            self.owed_d[DurKey(koids, pair[int64_t, int64_t](cat, name))] += 1

    cdef void _follow_complete(self, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, uint64_t end,
                               int slot) noexcept nogil:
        """A complete event ending at ``end`` (at its provider's rate): its thread's running one
        where it ends later than the one before (``OpenEvents.follow``)."""
        cdef pair[uint64_t, uint64_t] koids = pair[uint64_t, uint64_t](pk, tk)
        cdef RunningComplete c
        cdef uint64_t rate = self.rate[slot]
        f = self.completes.find(koids)
        if f != self.completes.end() and not fxt_before(deref(f).second.end, deref(f).second.rate, end, rate):
            return
        c.end, c.rate, c.cat, c.name, c.slot = end, rate, cat, name, slot
        self.completes[koids] = c

    cdef void _follow_async(self, int kind, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, uint64_t ident,
                            int slot) noexcept nogil:
        cdef OpenItem it
        cdef OpenItem *o
        cdef int fresh = 0
        cdef size_t at
        it.pk, it.tk, it.ident, it.cat, it.name, it.slot = pk, tk, ident, cat, name, slot
        it.seq = self.seq
        if kind == 3:
            if self.owed_a.size():
                ak = AsyncKey(pair[uint64_t, int64_t](pk, cat), pair[int64_t, uint64_t](name, ident))
                oa = self.owed_a.find(ak)
                if oa != self.owed_a.end() and deref(oa).second > 0:
                    self.owed_a[ak] -= 1
                    return
            at = self.asyncs.put(it, &fresh)
            if fresh:
                self.seq += 1
                self.open_extra += self._open_cost(3, cat, name)
            else:
                o = self.asyncs.at(at)
                it.seq = o.seq  # (a dict's key keeps its place)
                o[0] = it
        else:
            at = self.asyncs.find(it)
            if at != <size_t>U64MAX:
                self.open_extra -= self._open_cost(3, cat, name)  # (its key holds its texts)
                self.asyncs.erase(at)
            else:
                self.owed_a[AsyncKey(pair[uint64_t, int64_t](pk, cat), pair[int64_t, uint64_t](name, ident))] += 1

    cdef void _follow_flow(self, int kind, uint64_t pk, uint64_t tk, int64_t cat, int64_t name, uint64_t ident,
                           int slot) noexcept nogil:
        cdef OpenItem it
        cdef OpenItem *o
        cdef int fresh = 0
        cdef size_t at
        it.pk, it.tk, it.ident, it.cat, it.name, it.slot = pk, tk, ident, cat, name, slot
        it.seq = self.seq
        if kind == 6:
            if self.owed_f.size():
                o2 = self.owed_f.find(ident)
                if o2 != self.owed_f.end() and deref(o2).second > 0:
                    self.owed_f[ident] -= 1
                    return
            at = self.flows.put(it, &fresh)
            if fresh:
                self.seq += 1
            else:
                o = self.flows.at(at)
                self.open_extra -= self._open_cost(6, o.cat, o.name)
                it.seq = o.seq  # (a dict's key keeps its place)
                o[0] = it
            self.open_extra += self._open_cost(6, cat, name)
        else:
            at = self.flows.find(it)
            if at != <size_t>U64MAX:
                o = self.flows.at(at)
                self.open_extra -= self._open_cost(6, o.cat, o.name)
                self.flows.erase(at)
            else:
                self.owed_f[ident] += 1

    # -- coverage (report): ``_nwalk_coverage.pxi``'s counters, fed each record walked ----
    def cover(self, Coverage cov):
        """Count each record the walk walks into ``cov`` (None: count nothing)."""
        if cov is not None:
            cov.check(self.P)
        self.cov = cov
        self.covering = cov is not None

    # -- rows (export, decode): ``_nwalk_rows.pxi``'s rows, one each event walked clean --
    def collect_rows(self, RowSink sink):
        """A row (or a note) into ``sink`` for each record the walk walks (None: none)."""
        if sink is not None:
            sink.check(self.P)  # (the export's plan, laid out for this walk's program)
        self.rsink = sink
        self.rowing = sink is not None

    cdef void _cover(self, Scan *S, int64_t term, int64_t cur, int64_t index) noexcept nogil:
        """The record at ``cur`` was walked: counted, or noted for the reference decoder
        when the screen found something in its layout (or its type is undefined)."""
        cdef bint noted = False
        cdef size_t k
        cdef int rule
        for k in range(self.rec_mark, self.findings.size()):
            rule = self.findings[k].rule
            if rule == F_LAYOUT or rule == F_UNDEFINED:
                noted = True
                break
        if noted:  # (an undefined type's record was never screened: its rows are not read)
            self.cov.count(NULL, NULL, 0, 0, <int>term, index, cur, self.size, self.declared,
                           self.rate[self.current], True)
        else:
            self.cov.count(self.vals.data(), S.args, S.nargs, S.arg_columns, <int>term, index, cur, self.size,
                           self.declared, self.rate[self.current], False)

    # -- interning (the Python interner is the one id space) ----------------------------
    cdef int64_t _text_id(self, const unsigned char *b, uint64_t n) except -1:
        cdef string key = string(<const char *>b, n)
        it = self.text_ids.find(key)
        if it != self.text_ids.end():
            return deref(it).second
        cdef int64_t gid
        if self.hooks & H_INTERN:
            gid = self.mirror.intern((<const char *>b)[:n])
        else:
            gid = self._intern_direct(b, n)
        self.text_ids[key] = gid
        return gid

    cdef int64_t _known_text(self, const unsigned char *b, uint64_t n) except -2 nogil:
        """The interned id of text the walk has interned before (-1: not yet). A text the map
        answered is kept in a direct-mapped cache by its hash (``_text_slot``): the same
        name registered again and again costs a compare, not a string made and hashed (an
        id, once given to a text, never changes: ``text_ids`` only grows)."""
        cdef unsigned slot
        if self.tc_gid.empty():
            if self.tc_asked < TEXT_FROM:  # (a small trace's few texts: the map alone, no cache made)
                self.tc_asked += 1
                it = self.text_ids.find(string(<const char *>b, n))
                return -1 if it == self.text_ids.end() else deref(it).second
            self.tc_gid.assign(1 << TEXT_BITS, -1)
            self.tc_text.resize(1 << TEXT_BITS)
        slot = _text_slot(b, n)
        if self.tc_gid[slot] >= 0 and self.tc_text[slot].size() == n \
                and (n == 0 or memcmp(self.tc_text[slot].data(), b, n) == 0):
            return self.tc_gid[slot]
        it = self.text_ids.find(string(<const char *>b, n))
        if it == self.text_ids.end():
            return -1
        self.tc_text[slot].assign(<const char *>b, n)
        self.tc_gid[slot] = deref(it).second
        return deref(it).second

    cdef int64_t _known_pair(self, uint64_t pk, uint64_t tk) noexcept nogil:
        """The interned id of a koid pair the walk has interned before (-1: not yet)."""
        if self.last_pair >= 0 and pk == self.last_pk and tk == self.last_tk:
            return self.last_pair
        it = self.pair_ids.find(pair[uint64_t, uint64_t](pk, tk))
        if it == self.pair_ids.end():
            return -1
        self.last_pair = deref(it).second
        self.last_pk = pk
        self.last_tk = tk
        return self.last_pair

    cdef int64_t _pair_id(self, uint64_t pk, uint64_t tk) except -1:
        if self.last_pair >= 0 and pk == self.last_pk and tk == self.last_tk:
            return self.last_pair
        self.last_pair = self._pair_lookup(pk, tk)
        self.last_pk = pk
        self.last_tk = tk
        return self.last_pair

    cdef int64_t _pair_lookup(self, uint64_t pk, uint64_t tk) except -1:
        cdef pair[uint64_t, uint64_t] key = pair[uint64_t, uint64_t](pk, tk)
        it = self.pair_ids.find(key)
        if it != self.pair_ids.end():
            return deref(it).second
        cdef int64_t gid
        if self.hooks & H_THREAD:
            gid = self.mirror.thread(pk, tk)
        else:
            gid = _thread_on(self.d_state, pk, tk)
        self.pair_ids[key] = gid
        return gid

    # -- the walk ----------------------------------------------------------------------
    def drive(self, lint, buf, int64_t cur, int64_t index, int64_t pw, kinds, dict counts):
        """``_walk_native.WholeLint._walk``'s loop over whole bytes, compiled: ``run`` from the
        record at word ``cur`` (index ``index``) one pairing window (``pw`` records) at a time,
        each stop taken as ``NativeLint._take`` takes it (the linter's pending batch fed at a
        new window, ``lint.pairs.flush_to``; the run's first record noted, ``lint._index``):
        the records walked counted in ``counts`` by kind (``kinds``: each terminal's, as
        ``take_counts`` hands them), the rest by ``lint._take_rows()`` where the stop left
        any (diagnostics rows, a copy met again, places, pairing rows) or the sink's cap bounds
        a rule. Returns the first stop that is not DONE (END, HANDBACK, PAST_END, ZERO), with
        ``cur``, ``index`` and ``size`` set as ``run`` leaves them. (Python renders the rows
        and decodes a record handed back: a small lint's loop costs no Python frame a stop.)"""
        cdef int status
        cdef int k
        cdef size_t i
        while True:
            pairs = lint.pairs
            if pairs is not None:
                pairs.flush_to(index)  # a new pairing window: the last one is fed
            lint._index = index
            status = self._walk_from(buf, cur, index, (index // pw + 1) * pw)
            cur = self.cur
            index = self.index
            for i in range(self.counted.size()):  # (``take_counts``, by kind)
                k = self.counted[i]
                kind = kinds[k]
                counts[kind] = counts.get(kind, 0) + self.counts[k]
                self.counts[k] = 0
            self.counted.clear()
            if self.findings.size() or self.repeated or self.moved.size() or self.rows.size() or lint.sink._bound:
                lint._take_rows()
            if status != DONE:
                return status

    def run(self, buf, int64_t cur, int64_t index, int64_t stop_index):
        """``_walk_from`` (below), from Python."""
        return self._walk_from(buf, cur, index, stop_index)

    cdef int _walk_from(self, buf, int64_t cur, int64_t index, int64_t stop_index) except -1:
        """Walk ``buf`` from the record at word ``cur`` (its index ``index``) until the
        index reaches ``stop_index`` or a record needs Python; returns how it stopped
        (DONE, HANDBACK, ZERO, PAST_END, END) and leaves ``cur``, ``index`` and ``size``
        (the stopping record's declared size) set. DONE before ``stop_index`` too once
        ``take_at`` diagnostics rows wait (where it is set), or the rows mode's direct lines fill their buffer.

        The walk holds a view of ``buf`` throughout and releases the GIL while it runs on
        events whose refs and ids it knows; a record that needs Python (a table record, a
        name or koid pair seen for the first time) is taken again with the GIL. The GIL is
        released only where that can pay: for a stretch with at least ``RELEASE_WORDS``
        words left, after a stretch without Python of at least ``RELEASE_RECORDS`` records
        (a small buffer, or table records one after the other, are walked holding it: a
        release and a take cost more than such a stretch)."""
        cdef const unsigned char[::1] view = buf
        cdef int64_t nwords = view.shape[0] // 8
        cdef Scan S
        S.P = self.P
        S.buf = &view[0] if view.shape[0] else NULL
        S.nwords = nwords
        S.nbytes = view.shape[0]
        S.swap = self.swap
        S.arg_columns = ARG_ROW_HEAD + self.P.narg_vals + self.P.narg_pos
        S.row = 0
        cdef int status = DONE
        cdef int64_t before
        cdef bint release = True  # (the first stretch: as long as the buffer allows)
        self.framed_at = -1
        try:
            while True:
                before = index
                if release and nwords - cur >= RELEASE_WORDS:
                    with nogil:
                        status = self._fast(&S, &cur, &index, stop_index, nwords)
                else:
                    status = self._fast(&S, &cur, &index, stop_index, nwords)
                release = index - before >= RELEASE_RECORDS
                if status != SLOW:
                    break
                status = self._slow(&S, &cur, &index, stop_index, nwords)
                if status >= 0:
                    break
        finally:
            self.cur = cur
            self.index = index
        return status

    cdef int _frame(self, Scan *S, int64_t cur, int64_t nwords, int64_t *term) noexcept nogil:
        """Frame the record at ``cur`` (``self.size``) and find its terminal: -1 when it has
        one the walk screens, else how the walk stops there."""
        cdef uint64_t h = 0, t, size
        cdef const int64_t *node
        cdef int depth = 0, mode
        word_in(S, cur, nwords, &h)
        t = (h >> self.P.type_lo) & self.P.type_mask
        size = (h >> <uint64_t>self.P.sizes[2 * t]) & <uint64_t>self.P.sizes[2 * t + 1]
        self.size = <int64_t>size
        self.declared = <int64_t>size
        if size == 0:
            return ZERO
        if size > <uint64_t>(nwords - cur):
            return PAST_END
        node = self.P.code + self.P.roots[t]
        while node[0] == NODE_SELECT and depth < MAX_DEPTH:
            node = self.P.code + node[4 + ((h >> <uint64_t>node[1]) & <uint64_t>node[2])]
            depth += 1
        if node[0] != NODE_TERMINAL:
            return HANDBACK
        term[0] = node[1]
        if self.terms[term[0]].mode == M_UNDEFINED:
            return -1 if self.layout else HANDBACK
        if self.P.term_pc[term[0]] < 0 or self.terms[term[0]].mode == M_REFERENCE:
            return HANDBACK
        if self.slicing:
            # slice: the reference's pass takes it (a cut, a piece opened, a kernel object...);
            # an event's --split-size check is ``_event_core``'s (``_over`` of what it adds,
            # at least its bytes), or ``_fast``'s and ``_slow``'s for one cut short
            mode = self.terms[term[0]].mode
            if self.hold or self.stop_term[term[0]] or ((mode != M_EVENT or self.core_off) and self._over(
                    8 * self.size + 24 if mode == M_NAMES_PROVIDER or mode == M_SWITCHES_PROVIDER else 0)):
                return HANDBACK
        return -1

    cdef int _run(self, Scan *S, int64_t pc, uint64_t h, int64_t cur, int64_t end) noexcept nogil:
        """The screen of the record at ``cur`` (header ``h``) read up to ``end``, its argument
        and finding rows written afresh: 1 clean, 0 flagged."""
        S.args = self.args.data()
        S.argcap = self.argcap
        S.nargs = 0
        S.found = self.found.data() if self.layout else NULL
        S.foundcap = self.foundcap
        S.nfound = 0
        S.fields_at = -1
        return screen_run(S, pc, h, cur + 1, end, self.vals.data(), self.pos.data())

    cdef int64_t _content_end(self, Scan *S, int64_t pc, uint64_t h, int64_t cur) noexcept nogil:
        """Where the content of the record at ``cur`` ends when nothing but the buffer's last
        whole word bounds it, -1 when it does not fit there either (``_reader._content_end``):
        what its size should have said. Its rows and arguments are only counted: the rows
        of the screen before stay as they are."""
        cdef int64_t nfound = S.nfound, nargs = S.nargs, fields_at = S.fields_at
        S.foundcap = 0
        S.argcap = 0
        S.nfound = 0
        S.nargs = 0
        S.fields_at = -1
        cdef int ok = screen_run(S, pc, h, cur + 1, S.nwords, self.vals.data(), self.pos.data())
        cdef int64_t at = S.end_at
        S.nfound = nfound
        S.nargs = nargs
        S.fields_at = fields_at
        S.foundcap = self.foundcap
        S.argcap = self.argcap
        return at if ok else -1

    cdef int64_t _well_formed(self, Scan *S, int64_t at) noexcept nogil:
        """The size of the record whose header is the word at ``at`` when it is a well-formed
        header (``_reader.header_kind``: a defined type and subtype, the bits its fields say
        must be zero clear, a size that is not 0 and fits in the buffer), else 0."""
        cdef int64_t term
        return self._header_term(S, at, &term)

    cdef int64_t _header_term(self, Scan *S, int64_t at, int64_t *term) noexcept nogil:
        """``_well_formed``, with the header's terminal in ``term`` where it is one."""
        cdef uint64_t h = 0, t, size
        cdef const int64_t *node
        cdef int depth = 0
        if at < 0 or at >= S.nwords:
            return 0
        word_in(S, at, S.nwords, &h)
        t = (h >> self.P.type_lo) & self.P.type_mask
        size = (h >> <uint64_t>self.P.sizes[2 * t]) & <uint64_t>self.P.sizes[2 * t + 1]
        if size == 0 or size > <uint64_t>(S.nwords - at):
            return 0
        node = self.P.code + self.P.roots[t]
        while node[0] == NODE_SELECT and depth < MAX_DEPTH:
            node = self.P.code + node[4 + ((h >> <uint64_t>node[1]) & <uint64_t>node[2])]
            depth += 1
        if node[0] != NODE_TERMINAL or self.terms[node[1]].mode == M_UNDEFINED or h & self.terms[node[1]].zero_mask:
            return 0
        term[0] = node[1]
        return <int64_t>size

    cdef bint _frames_exactly(self, Scan *S, int64_t at, int64_t end) noexcept nogil:
        """Whether well-formed records, at most RESYNC_DEPTH of them, frame one after the
        other from word ``at`` to exactly ``end`` (``_reader._frames_exactly``)."""
        cdef int k
        cdef int64_t size
        for k in range(RESYNC_DEPTH):
            if at == end:
                return True
            if at > end or at >= S.nwords:
                return False
            size = self._well_formed(S, at)
            if size == 0:
                return False
            at += size
        return at == end

    cdef int _frame_after(self, Scan *S, Finding *f, int64_t p, int64_t end) except -1 nogil:
        """A trace record's FOUND_END row (its content ends at word ``p``, its declared size
        at ``end``) when the word at ``p`` is a well-formed header: FR004's framing decision,
        as the reader takes it (``_reader._after_content``): ``old0`` the header's terminal + 1,
        ``old1`` bit 0 whether recovery reads on from ``p`` (``resync_offset``'s answer: the
        records framed from there reach further than those from ``end``, or frame exactly to
        it), bit 1 whether ``end`` falls inside the last record swallowed, bits 2 on how many
        it swallowed (``swallowed``: the well-formed records framed from ``p`` that start
        before ``end``, RESYNC_DEPTH at most), ``new1`` where they start in ``swallow``;
        ``value`` the content's end in bytes (a framing decision names positions: no two such
        records are copies, ``_copied``). Nothing where no header follows (``old0`` 0)."""
        cdef int64_t kind = -1, term = -1, size, at = p, n = 0, start
        if self._header_term(S, p, &kind) == 0:
            return 0
        start = <int64_t>self.swallow.size() // 2
        while at < end and n < RESYNC_DEPTH and at < S.nwords:
            size = self._header_term(S, at, &term)
            if size == 0:
                break
            self.swallow.push_back(term)
            self.swallow.push_back(8 * at)
            n += 1
            at += size
        f.old0 = <uint64_t>(kind + 1)
        f.old1 = <uint64_t>((1 if self._reach(S, p) > self._reach(S, end) or self._frames_exactly(S, p, end) else 0)
                            | (2 if n > 0 and at > end else 0) | (n << 2))
        f.new1 = <uint64_t>start
        f.value = <uint64_t>(8 * p)
        return 0

    cdef int _reach(self, Scan *S, int64_t at) noexcept nogil:
        """How far the well-formed records framed one after the other from word ``at`` reach
        (``_reader._chain``): their number, at most RESYNC_DEPTH; RESYNC_DEPTH when they end
        at the buffer's last whole word (the file's end counts as all)."""
        cdef int n = 0
        cdef int64_t size
        while n < RESYNC_DEPTH:
            if at >= S.nwords:
                return RESYNC_DEPTH if at == S.nwords else n
            size = self._well_formed(S, at)
            if size == 0:
                break
            n += 1
            at += size
        return n

    cdef int _screen(self, Scan *S, int64_t term, int64_t cur, int64_t index) noexcept nogil:
        """Screen the framed record: 1 clean (its layout findings written as rows), 3 cut
        short (its content runs past its declared size and the declared size stands: its
        rows up to there, the last one saying where; the reader decodes it no further), 0
        for the reference, 2 more arguments or findings than the tables hold.

        A trace record whose content runs past its declared size is framed anew at its
        content's end when the records framed from there reach further than those framed
        from its declared end (``_reader.resync_offset``; its content's end is past the
        declared one, so that is the one comparison that can hold): it is walked at that
        size (``self.size``), clean, with a FOUND_SHORT row (ST001, after its layout rows),
        and the walk goes on from there, as ``decode_record`` reads it."""
        cdef uint64_t h = 0
        cdef int64_t k, pc = self.P.term_pc[term], content_end = -1
        cdef int64_t *row
        cdef int64_t gid
        cdef uint64_t a, ref
        cdef Finding f
        word_in(S, cur, S.nwords, &h)
        self.size = self.declared
        cdef int clean = self._run(S, pc, h, cur, cur + self.size)
        if S.nargs > S.argcap or S.nfound > S.foundcap:
            return 2
        if not clean:
            if not self.layout:
                return 0  # the kernel's flagging: a flagged record is the reference's
            if not self.log:  # (a log record's declared size always stands)
                if not self.lookahead:
                    return 0  # a growing stream: where to read on may need bytes still to come
                content_end = self._content_end(S, pc, h, cur)
                if content_end > 0 and self._reach(S, content_end) > self._reach(S, cur + self.size):
                    self.size = content_end - cur
                    clean = self._run(S, pc, h, cur, content_end)
                    if S.nargs > S.argcap or S.nfound > S.foundcap:
                        return 2
                    if not clean:  # (its content ends there: never flagged again)
                        self.size = self.declared
                        return 0
                else:
                    content_end = -1
        if not self.lookahead:
            for k in range(S.nfound):
                row = S.found + k * FOUND_COLUMNS
                if row[0] == FOUND_END or row[0] == FOUND_ARG or row[0] == FOUND_NUMERIC or \
                        (row[0] == FOUND_KIND and self.terms[term].mode != M_PROVIDER_EVENT) or \
                        (row[0] == FOUND_STREAM and row[4] & BAD_PADDING):
                    self.size = self.declared
                    return 0
        for k in range(S.nfound):
            row = S.found + k * FOUND_COLUMNS
            if row[0] == FOUND_NUMERIC and not clean:
                continue  # a record cut short means nothing: its arguments are not checked
            f.rule = F_LAYOUT
            f.term = <int>term
            f.field = <int>row[0]
            f.arg = <int>row[5]
            f.arg_type = <int>row[4]
            f.slot = self.current
            f.index = index
            f.offset = 8 * cur
            f.size = 8 * self.size
            f.at = 8 * row[2]
            f.value = <uint64_t>row[3]
            f.rate = <uint64_t>row[1]
            f.old0 = <uint64_t>row[4]  # a kind check's second value
            f.old1 = f.new0 = f.new1 = 0
            if row[0] == FOUND_END and not self.log and self.lookahead:
                self._frame_after(S, &f, row[2], cur + self.size)  # (FR004's framing decision)
            if row[0] == FOUND_NUMERIC:
                # the argument's name as the tables hold it now (EV001 names it by its text)
                a = _word(S, row[2])
                ref = (a >> self.name_lo) & self.name_mask
                if ref != 0 and not (ref & self.inline_bit):
                    gid = self._string(_key(self.current, ref))
                    f.old1 = <uint64_t>(gid + 1)
            self.findings.push_back(f)
        if content_end > 0:
            f.rule = F_LAYOUT
            f.term = <int>term
            f.field = FOUND_SHORT
            f.arg = -1
            f.arg_type = 0
            f.slot = self.current
            f.index = index
            f.offset = 8 * cur
            f.size = 8 * self.size
            f.at = 8 * content_end
            f.value = <uint64_t>self.declared
            f.rate = 0
            f.old0 = f.old1 = f.new0 = f.new1 = 0
            self.findings.push_back(f)
        return 1 if clean else 3

    cdef bint _bad_text(self, Scan *S) noexcept nogil:
        """The record just screened has a text that is not UTF-8 (a layout finding row)."""
        cdef size_t k
        for k in range(self.rec_mark, self.findings.size()):
            if self.findings[k].rule == F_LAYOUT and self.findings[k].arg < 0 and self.findings[k].arg_type & BAD_UTF8:
                return True
        return False

    cdef int _fast(self, Scan *S, int64_t *pcur, int64_t *pindex, int64_t stop_index,
                   int64_t nwords) except -1 nogil:
        """The walk without the GIL, over events it needs no Python for; SLOW at the first
        record that does (nothing of it applied)."""
        cdef int64_t cur = pcur[0], index = pindex[0], term = 0
        cdef int status, got, core
        while True:
            if self._due(index, stop_index):
                self.stop_soon = False
                status = DONE
                break
            if cur >= nwords:
                status = END
                break
            status = self._frame(S, cur, nwords, &term)
            if status >= 0:
                break
            self.rec_mark = self.findings.size()
            if self.rowing and self.rsink.hands_back(term):  # (the export's, the decoding's: ``_slow`` hands it back)
                status = SLOW
                break
            if self.terms[term].mode == M_UNDEFINED:
                self._find(F_UNDEFINED, &self.terms[term], 0, -1, 0, 0, index, cur, self.size, 0, 0)
                if self.placing:
                    self._undefined_moved(S, term, cur)
                if self.covering:
                    self._cover(S, term, cur, index)
                if self.rowing:
                    _row_of(self, S, term, cur, index)
                index += 1
                cur += self.size
                continue
            if self.terms[term].mode != M_EVENT:
                # (a table record, a magic record...: ``_slow`` walks it, framed here)
                self.framed_at = cur
                self.framed_term = term
                status = SLOW
                break
            got = self._screen(S, term, cur, index)
            if got == 2:
                self.findings.resize(self.rec_mark)
                status = SLOW
                break
            if got == 0:
                self.findings.resize(self.rec_mark)
                status = HANDBACK
                break
            # (cut short, got 3: an event that did not decode says nothing about meaning)
            if got == 1 and self.span_on and self._span_cut(&self.terms[term]):
                self.findings.resize(self.rec_mark)
                status = HANDBACK
                break
            if self.slicing and (got == 3 or self.size != self.declared) and self._over(8 * (self.declared - self.size)):
                # (--split-size at its declared size, as ``_frame`` checked it before: ``_frame``
                # leaves an event's check to the core, which reads a record at the size it is walked at)
                self.findings.resize(self.rec_mark)
                self.size = self.declared
                status = HANDBACK
                break
            core = self._event_core(S, &self.terms[term], cur, index, self.size) if got == 1 else 1
            if core >= 2:
                self.findings.resize(self.rec_mark)
                self.size = self.declared
                status = SLOW if core == 2 else HANDBACK  # (3: --split-size, the slicer decides)
                break
            if self.slicing:
                self._took(&self.terms[term], self.current, self.size)
            if self.covering:
                self._cover(S, term, cur, index)
            if self.rowing:
                _row_of(self, S, term, cur, index)
            if (self.copying or self.placing) and self.findings.size() > self.rec_mark:
                self._copied(S, term, cur)
            if self.counts[term] == 0:
                self.counted.push_back(<int>term)
            self.counts[term] += 1
            index += 1
            cur += self.size
        pcur[0] = cur
        pindex[0] = index
        return status

    cdef inline bint _due(self, int64_t index, int64_t stop_index) noexcept nogil:
        """Whether the walk stops (DONE) before the record ``index``: the run's last index
        reached, a stop asked for, ``take_at`` rows waiting, the rows mode's buffer full."""
        return index >= stop_index or self.stop_soon \
            or (self.take_at and <int64_t>(self.findings.size() + self.moved.size() // 3) >= self.take_at) \
            or (self.rowing and self.rsink.full())  # (the decoding's direct lines taken while in cache)

    cdef int _slow(self, Scan *S, int64_t *pcur, int64_t *pindex, int64_t stop_index, int64_t nwords) except -2:
        """The record at ``cur`` with the GIL (``_slow_one``), then the records after it that
        ``_fast`` would hand back here one by one (table records, a magic record...: framed
        once, walked here, no return to ``_fast`` between them): -1 when the walk goes on
        with ``_fast`` (at an event, an undefined record, or a stop ``_fast`` says: DONE, END),
        else how the walk stops there."""
        cdef int status = self._slow_one(S, pcur, pindex, nwords)
        cdef int64_t term = 0
        cdef int mode
        while status == -1:
            if self._due(pindex[0], stop_index) or pcur[0] >= nwords:
                break  # (``_fast`` says DONE or END there)
            status = self._frame(S, pcur[0], nwords, &term)
            if status >= 0:
                return status  # (as ``_fast`` returns it: ZERO, PAST_END, HANDBACK)
            mode = self.terms[term].mode
            if mode == M_EVENT or mode == M_UNDEFINED:
                self.framed_at = -1
                return -1  # (``_fast``'s: framed there again)
            self.framed_at = pcur[0]
            self.framed_term = term
            status = self._slow_one(S, pcur, pindex, nwords)
        return status

    cdef int _slow_one(self, Scan *S, int64_t *pcur, int64_t *pindex, int64_t nwords) except -2:
        """The record at ``cur`` with the GIL: -1 when it was walked (the walk goes on),
        else how the walk stops there."""
        cdef int64_t cur = pcur[0], term = 0
        cdef int status
        if self.framed_at == cur:
            # framed by ``_fast`` just before (``self.size`` and ``declared`` as it left them)
            term = self.framed_term
            self.framed_at = -1
        else:
            status = self._frame(S, cur, nwords, &term)
            if status >= 0:
                return status
        self.rec_mark = self.findings.size()
        if self.rowing and self.rsink.hands_back(term):  # (the export's, the decoding's: read by the tables as they are at it)
            self.size = self.declared
            return HANDBACK
        if self.terms[term].mode == M_UNDEFINED:
            self._find(F_UNDEFINED, &self.terms[term], 0, -1, 0, 0, pindex[0], cur, self.size, 0, 0)
            if self.placing:
                self._undefined_moved(S, term, cur)
            if self.covering:
                self._cover(S, term, cur, pindex[0])
            if self.rowing:
                _row_of(self, S, term, cur, pindex[0])
            pindex[0] += 1
            pcur[0] = cur + self.size
            return -1
        cdef int got = self._screen(S, term, cur, pindex[0])
        while got == 2:
            if S.nargs > S.argcap:
                self.argcap = 2 * S.nargs
                self.args.resize(self.argcap * S.arg_columns)
            if S.nfound > S.foundcap:
                self.foundcap = 2 * S.nfound
                self.found.resize(self.foundcap * FOUND_COLUMNS)
            got = self._screen(S, term, cur, pindex[0])
        if got == 1 and self.span_on and self._span_cut(&self.terms[term]):
            self.findings.resize(self.rec_mark)
            self.size = self.declared
            return HANDBACK
        if self.slicing and self.terms[term].mode == M_EVENT and not self.core_off and \
                (got == 3 or self.size != self.declared) and self._over(8 * (self.declared - self.size)):
            self.findings.resize(self.rec_mark)  # (--split-size at its declared size: as in ``_fast``)
            self.size = self.declared
            return HANDBACK
        cdef int slot = self.current  # (the provider the record is read under, before its effect)
        if not got or not (self._cut_short(term) if got == 3 else self._tail(S, term, cur, pindex[0], self.size)):
            self.findings.resize(self.rec_mark)
            self.size = self.declared  # (the reference frames it itself)
            return HANDBACK
        if self.slicing:
            self._took(&self.terms[term], slot, self.size)
        if self.covering:
            self._cover(S, term, cur, pindex[0])
        if self.rowing:
            _row_of(self, S, term, cur, pindex[0])
        if (self.copying or self.placing) and self.findings.size() > self.rec_mark:
            self._copied(S, term, cur)
        if self.counts[term] == 0:
            self.counted.push_back(<int>term)
        self.counts[term] += 1
        pindex[0] += 1
        pcur[0] = cur + self.size
        return -1

    cdef bint _tail(self, Scan *S, int64_t term, int64_t cur, int64_t index, int64_t size) except -1:
        """The record's semantic tail: False (nothing applied) when Python must take it."""
        cdef Term *T = &self.terms[term]
        cdef int mode = T.mode
        if mode == M_EVENT:
            return self._event(S, T, cur, index, size)
        cdef uint64_t *v = self.vals.data()
        cdef int64_t *p = self.pos.data()
        cdef uint64_t key, idx, n, rate, pid
        cdef int64_t gid, old
        cdef int s
        cdef Finding *f
        cdef const unsigned char *text_at
        cdef size_t k
        if mode == M_PROVIDER_EVENT:
            # its kind check that holds (the buffer filled): records were dropped, said with
            # whether a provider info record had named the provider (``LintState.provider_event``)
            pid = v[T.f_pid]
            it = self.slot_of.find(pid)
            for k in range(self.rec_mark, self.findings.size()):
                f = &self.findings[k]
                if f.rule == F_LAYOUT and f.field == FOUND_KIND:
                    f.rule = F_DROPPED
                    f.value = pid
                    f.field = 1 if it != self.slot_of.end() and self.announced[deref(it).second] else 0
            return True
        if mode == M_SETS_BYTE_ORDER:
            # a magic record after the first record, not the file's first magic: repeated when
            # well-formed (``_reader.after_record``): a clean one is; one the screen found wrong
            # (value 1) is when its constants hold, which the row's rendering reads
            if index > 0 and 8 * cur != self.magic_at:
                self._find(F_MAGIC, T, 0, -1, 0, 0, index, cur, size, 1 if self.findings.size() > self.rec_mark else 0,
                           0)
            return True
        if mode == M_NAMES_PROVIDER and self._bad_text(S):
            return self._name_unread(v[T.f_pid])  # a name that is not text names the provider no name
        if mode == M_NAMES_PROVIDER:
            pid = v[T.f_pid]
            n = v[T.f_len]
            s = self._slot_of(pid)
            if self.slicing and not self.slot_used[s]:
                self.slot_named[s] = 1  # named in the piece before it was used: its own info
            text = string(<const char *>(S.buf + 8 * p[T.f_pos]), n)
            # a record that changes nothing the mirror holds costs no Python call: here a
            # provider named again by the name it has (a switch to it, at most)
            if self.announced[s] and self.named[s] and self.names[s] == text:
                return self._switch(s, pid)
            self.announced[s] = 1
            self.current = s
            if self.hooks & H_NAMES:
                self.mirror.names_provider(pid, text)
            else:
                _names_on(self.d_state, pid, text)
            self._current_tables()
            self.names[s] = text
            self.named[s] = 1
            return True
        if mode == M_SWITCHES_PROVIDER:
            pid = v[T.f_pid]
            s = self._slot_of(pid)
            self._switch(s, pid)
            if not self.announced[s]:
                self._find(F_UNANNOUNCED, T, 0, -1, 0, 0, index, cur, size, pid, 0)
            return True
        if mode == M_SETS_TICK_RATE:
            rate = v[T.f_rate]
            if rate == 0:
                self._find(F_RATE_ZERO, T, 0, -1, 0, 0, index, cur, size, 0, 0)
            if rate == self.rate[self.current]:
                return True  # restated: the limit is the one the mirror holds
            self.rate[self.current] = rate
            # a rate of 0 converts nothing: no timestamp is said to overflow (``ProviderState``)
            self.limit[self.current] = fxt_max_ticks(rate) if rate else U64MAX
            if self.hooks & H_RATE:
                self.mirror.sets_tick_rate(rate, self.limit[self.current])
            else:
                _rate_on(self.d_state, rate, self.limit[self.current])
            return True
        if mode == M_REGISTERS_STRING:
            idx = v[T.f_index]
            n = v[T.f_len]
            if idx == 0:  # index 0 is always the empty string: nothing is registered
                self._find(F_INDEX_ZERO, T, 0, -1, 0, 0, index, cur, size, 0, 0)
                return True
            if self.slicing:
                self.reg_str.insert(_key(self.current, idx))
            key = _key(self.current, idx)
            old = self._string(key)
            if self._bad_text(S):
                # interned as the bytes it is, as the reference's ``ProviderState`` does, and
                # registered
                raw = (<const char *>(S.buf + 8 * p[T.f_pos]))[:n]
                if self.hooks & H_BYTES:
                    gid = self.mirror.registers_bytes(idx, raw)
                else:
                    gid = _interned(self.d_ids, self.d_values, raw)
                    self.d_strings[idx] = gid
                if old != gid:
                    self._put_string(key, gid)
            else:
                text_at = S.buf + 8 * p[T.f_pos] if n else S.buf  # (no text: no position read)
                gid = self._known_text(text_at, n)
                if gid < 0:  # text the walk has not interned yet: interned and registered
                    if self.hooks & H_TEXT:
                        gid = self.mirror.registers_text(idx, (<const char *>text_at)[:n])
                    else:
                        gid = self._intern_direct(text_at, n)
                        self.d_strings[idx] = gid
                    self.text_ids[string(<const char *>text_at, n)] = gid
                    if old != gid:
                        self._put_string(key, gid)
                elif old != gid:  # (restated: nothing to do)
                    self._put_string(key, gid)
                    if self.hooks & H_STRING:
                        self.mirror.registers_string(idx, gid)
                    else:
                        self.d_strings[idx] = gid
            if n == 0:
                self._find(F_STRING_EMPTY, T, 0, -1, 0, 0, index, cur, size, idx, 0)
            if old >= 0 and old != gid:
                self._find(F_CHANGED, T, 0, -1, 0, 0, index, cur, size, idx, 0)
                self._changed(old, 0, gid, 0)
            return True
        if mode == M_REGISTERS_THREAD:
            idx = v[T.f_index]
            if idx == 0:  # thread ref 0 means an inline thread: nothing is registered
                self._find(F_INDEX_ZERO, T, 1, -1, 0, 0, index, cur, size, 0, 0)
                return True
            if self.slicing:
                self.reg_thr.insert(_key(self.current, idx))
            key = _key(self.current, idx)
            if self.nwatched and index >= self.watched_from:
                self._unwatch(key)  # (a registration ends a watch, even of the same koids)
            it2 = self.threads.find(key)
            if it2 == self.threads.end():
                self.set_thread(idx, v[T.f_pk], v[T.f_tk])
            elif deref(it2).second.pk != v[T.f_pk] or deref(it2).second.tk != v[T.f_tk]:
                self._find(F_CHANGED, T, 1, -1, 0, 0, index, cur, size, idx, 0)
                self._changed(deref(it2).second.pk, deref(it2).second.tk, v[T.f_pk], v[T.f_tk])
                self.set_thread(idx, v[T.f_pk], v[T.f_tk])
            else:
                return True  # the same koids again: nothing to tell the mirror
            return self._keep_thread(idx, v[T.f_pk], v[T.f_tk])
        return False

    cdef bint _cut_short(self, int64_t term) except -1:
        """The semantic tail of a record cut short by its declared size (its content runs past
        it): a record that did not decode means nothing and registers nothing
        (``RecordChecker``, ``ProviderState``), but a provider info record still names its
        provider, by no name (its name was not read). False: the reference's."""
        cdef int mode = self.terms[term].mode
        if mode == M_EVENT or mode == M_SETS_TICK_RATE or mode == M_REGISTERS_STRING or mode == M_REGISTERS_THREAD:
            return True
        if mode == M_NAMES_PROVIDER:
            return self._name_unread(self.vals[self.terms[term].f_pid])
        return False  # (no other kind has a body to run past its size)

    cdef bint _name_unread(self, uint64_t pid) except -1:
        """A provider info record whose name is not text, or was not read: its provider is
        announced and current, its name as it was (``ProviderState._names_provider``)."""
        cdef int s = self._slot_of(pid)
        if self.announced[s] and s == self.current:
            return True  # nothing the mirror holds changes
        self.announced[s] = 1
        self.current = s
        if self.hooks & H_NAMES:
            self.mirror.names_provider(pid, None)
        else:
            _names_on(self.d_state, pid, None)
        self._current_tables()
        return True

    cdef inline void _changed(self, uint64_t old0, uint64_t old1, uint64_t new0, uint64_t new1) noexcept:
        """The old and new values of the F_CHANGED row just written."""
        cdef Finding *f = &self.findings.back()
        f.old0 = old0
        f.old1 = old1
        f.new0 = new0
        f.new1 = new1

    cdef bint _switch(self, int s, uint64_t pid) except -1:
        """Provider ``s`` (id ``pid``) becomes the current one (the mirror is told only of
        a change)."""
        if s != self.current:
            self.current = s
            if self.hooks & H_SWITCHES:
                self.mirror.switches_provider(pid)
            else:
                _switch_on(self.d_state, pid)
            self._current_tables()
        return True

    cdef bint _keep_thread(self, uint64_t idx, uint64_t pk, uint64_t tk) except -1:
        if self.hooks & H_THREAD_REG:
            self.mirror.registers_thread(idx, pk, tk)
        else:
            self.d_threads[idx] = (pk, tk)
        return True

    cdef bint _event(self, Scan *S, Term *T, int64_t cur, int64_t index, int64_t size) except -1:
        """``_event_core`` with the GIL: what it needs Python for (a name or koid pair not
        seen yet) is interned, and the record walked again, until it is walked."""
        cdef int core
        while True:
            core = self._event_core(S, T, cur, index, size)
            if core == 1:
                break
            if core == 3:
                return False  # (--split-size: the slicer decides, nothing of it applied)
            if self.need_pair:
                self._pair_id(self.need_pk, self.need_tk)
            else:
                self._text_id(self.need_text, self.need_len)
        return True

    cdef int _event_core(self, Scan *S, Term *T, int64_t cur, int64_t index, int64_t size) except -1 nogil:
        """An event's semantic tail, the steps of ``RecordChecker.check`` in its order: an
        unregistered string or thread ref and a timestamp past the limit are written as
        findings and the record goes on, as the reference goes on. 1 walked; 2 it needs
        Python (``need_*``: a name or koid pair not interned yet), nothing of it applied; 3 (a
        slice's --split-size: ``_over``) the slicer decides, nothing of it applied."""
        cdef uint64_t *v = self.vals.data()
        cdef int64_t *p = self.pos.data()
        cdef int slot = self.current
        cdef uint64_t ref, inline_bit = self.inline_bit
        cdef int i, k, ty, s
        cdef int64_t a
        cdef int64_t *row
        cdef int64_t cat = -1, name = -1, gid, thread = -1
        cdef uint64_t pk = 0, tk = 0
        cdef bint found = False     # the first thread ref that resolved (the reference's koids)
        cdef bint have_koids = False
        cdef ThreadEntry *e = NULL
        cdef uint64_t e_ref = 0
        cdef int64_t ids[NSTR]
        cdef size_t n0 = self.findings.size()
        if self.core_off:  # (slice: nothing an event reads matters to the run)
            return 1
        # 1. string refs: the record's, then its arguments'
        for i in range(T.nstr):
            ref = v[T.str_val[i]]
            ids[i] = 0
            if ref != 0 and not (ref & inline_bit):
                ids[i] = self._string(_key(slot, ref))
                if ids[i] < 0:
                    self._find(F_STRING, T, i, -1, 0, 0, index, cur, size, ref, 0)
        for a in range(S.nargs):
            row = S.args + a * S.arg_columns
            ty = <int>row[2]
            for k in range(NARGREF):
                s = self.argref[ty * NARGREF + k]
                if s < 0:
                    break
                ref = <uint64_t>row[ARG_ROW_HEAD + s]
                if ref != 0 and not (ref & inline_bit) and self._string(_key(slot, ref)) < 0:
                    self._find(F_STRING, T, k, <int>row[1], ty, 8 * row[3], index, cur, size, ref, 0)
        # 2. thread refs: each one registered; the koids of the first that resolves
        for i in range(T.nthr):
            ref = v[T.thr_val[i]]
            if ref == 0:
                if not found and T.thr_nkoid[i] >= 1:
                    found = True
                    if T.thr_nkoid[i] >= 2:
                        pk = _word(S, p[T.thr_pk[i]])
                        tk = _word(S, p[T.thr_tk[i]])
                        have_koids = True
            else:
                it = self.threads.find(_key(slot, ref))
                if self.nwatched:
                    self._watch_hit(_key(slot, ref), index)
                if it == self.threads.end():
                    self._find(F_THREAD, T, i, -1, 0, 0, index, cur, size, ref, 0)
                elif not found:
                    found = True
                    e = &deref(it).second
                    e_ref = ref
                    pk = e.pk
                    tk = e.tk
                    have_koids = True
        # 3. timestamps that convert at the provider's rate
        for i in range(T.nts):
            if v[T.ts_val[i]] > self.limit[slot]:
                self._find(F_TICKS, T, i, -1, 0, 0, index, cur, size, v[T.ts_val[i]], self.rate[slot])
        if self.slicing:
            if self.cut_size > 0 and not self._far(S, T) and self._over(self._adds(S, T, ids)):
                self.findings.resize(n0)
                return 3  # (--split-size: the slicer decides, nothing of it noted)
            self._note_refs(S, T, ids, e_ref, e)
        # 4. the pairing row: its thread resolved (and its category and name for a named kind)
        if T.pair_kind < 0 or not have_koids:
            return 1
        for i in range(T.nstr):
            if T.str_role[i] == 0:
                continue
            ref = v[T.str_val[i]]
            if ref & inline_bit:
                gid = self._known_text(S.buf + 8 * p[T.str_pos[i]], ref & (inline_bit - 1))
                if gid < 0:
                    self.need_pair = False
                    self.need_text = S.buf + 8 * p[T.str_pos[i]]
                    self.need_len = ref & (inline_bit - 1)
                    self.findings.resize(n0)
                    return 2
            else:
                gid = ids[i]  # 0 for the empty ref, -1 unregistered, else its entry
            if T.str_role[i] == 1:
                cat = gid
            else:
                name = gid
        if self.slicing and not self.slice_rows:  # what is open, followed (no pairing row)
            if cat >= 0 and name >= 0:
                self._follow(T.pair_kind, pk, tk, cat, name, v[T.pair_id] if T.pair_id >= 0 else 0, slot)
            return 1
        if T.pair_named and (cat < 0 or name < 0):
            return 1
        if e is not NULL and e.gid >= 0:
            thread = e.gid
        else:
            thread = self._known_pair(pk, tk)
            if thread < 0:
                self.need_pair = True
                self.need_pk = pk
                self.need_tk = tk
                self.findings.resize(n0)
                return 2
            if e is not NULL:
                e.gid = thread
        if self.slicing and cat >= 0 and name >= 0 and not self.follow_off:
            # (``slice_rows``: followed once its thread is interned; ``_follow``'s kinds, called directly)
            if T.pair_kind <= 1:
                self._follow_dur(T.pair_kind, pk, tk, cat, name, slot)
            elif T.pair_kind == 2:
                self._follow_complete(pk, tk, cat, name, v[T.pair_id] if T.pair_id >= 0 else 0, slot)
            elif T.pair_kind == 3 or T.pair_kind == 5:
                self._follow_async(T.pair_kind, pk, tk, cat, name, v[T.pair_id] if T.pair_id >= 0 else 0, slot)
            elif T.pair_kind == 6 or T.pair_kind == 8:
                self._follow_flow(T.pair_kind, pk, tk, cat, name, v[T.pair_id] if T.pair_id >= 0 else 0, slot)
        self._push_row(T, v, thread, pk, cat, name, cur, index, size)
        return 1

    # -- a record's copies (the lint's: ``_walk_native.NativeLint._copy``) ---------------
    cdef int _copied(self, Scan *S, int64_t term, int64_t cur) except -1 nogil:
        """The record just walked at ``cur`` (its rows from ``rec_mark``), when ``copying``:
        a record of at most COPY_RECORD bytes whose layout rows (not a kind check's, not
        EV001's; a FOUND_SHORT row too: ST001's question of the header after the content is
        asked again of each copy, ``_answers_hold``) are those of a record
        walked before with the same terminal, size and bytes (``_copy_key``) has its layout
        rows replaced by one F_COPY row in the place of the first (value: the first copy's
        id; its other rows, a kind check's, EV001's, its semantic rows, stay where they are),
        or, where the linter noted what the copies of that id say (``note_copy``), by one
        place in the block and no row (``_move``); the first copy's layout rows say its id
        (``new0``: the id + 1), until COPY_KEYS records are known. Before that, while
        ``placing``: the record's rows counted against the sink's cap (``_count_caps``) and
        those the linter noted made places (``_rows_moved``)."""
        cdef string key
        cdef size_t k, first = 0
        cdef Finding *f
        cdef int n = 0
        cdef int64_t off = 8 * cur, size = 8 * self.size, ident
        if self.rule_cap:
            self._count_caps()
        if self.placing:
            self._rows_moved()
            if self.findings.size() == self.rec_mark:
                return 0
        if size > COPY_RECORD or not self.copying:
            return 0
        for k in range(self.rec_mark, self.findings.size()):
            f = &self.findings[k]
            if f.rule != F_LAYOUT or f.field == FOUND_KIND or f.field == FOUND_NUMERIC:
                continue
            if f.offset != off or f.size != size:
                return 0
            if n == 0:
                first = k
            n += 1
            _key_row(&key, f.field, f.arg, f.arg_type, f.at - off, f.value, f.rate)
        if n == 0:
            return 0
        _key_tail(&key, term, size, S.buf + off)
        it = self.copies.find(key)
        if it == self.copies.end():
            if <int64_t>self.copies.size() >= COPY_KEYS:
                return 0
            ident = <int64_t>self.copies.size()
            self.copies[key] = ident
            for k in range(first, self.findings.size()):
                f = &self.findings[k]
                if f.rule == F_LAYOUT and f.field != FOUND_KIND and f.field != FOUND_NUMERIC:
                    f.new0 = <uint64_t>(ident + 1)
            return 0
        ident = deref(it).second
        if ident < <int64_t>self.copy_slot.size() and self.copy_slot[ident] >= 0 \
                and self._answers_hold(S, ident, off):
            # its diagnostics noted by the linter: a place in the block, its layout rows gone
            self._move(self.copy_slot[ident], off, self.findings[first].index)
            self._drop_layout_rows(first)
            return 0
        if self.placing and (ident >= <int64_t>self.copy_stopped.size() or self.copy_stopped[ident] < 3):
            # a copy not noted: the linter decodes it and may note it (``note_copy``) before the next
            if <int64_t>self.copy_stopped.size() <= ident:
                self.copy_stopped.resize(ident + 1, 0)
            self.copy_stopped[ident] += 1
            self.stop_soon = self.repeated = True
        f = &self.findings[first]
        f.rule = F_COPY
        f.value = <uint64_t>ident
        f.at = off
        f.rate = 0
        f.new0 = 0
        self._drop_layout_rows(first + 1)
        return 0

    cdef void _drop_layout_rows(self, size_t first) noexcept nogil:
        """The findings from ``first`` on without their layout rows (a copy's, said by its
        F_COPY row or its place; its kind checks and arguments that are not numeric kept)."""
        cdef size_t w = first, k
        cdef Finding *f
        for k in range(first, self.findings.size()):
            f = &self.findings[k]
            if f.rule == F_LAYOUT and f.field != FOUND_KIND and f.field != FOUND_NUMERIC:
                continue
            if w != k:
                self.findings[w] = self.findings[k]
            w += 1
        self.findings.resize(w)

    cdef void _undefined_moved(self, Scan *S, int64_t term, int64_t cur) noexcept nogil:
        """The F_UNDEFINED row just written, a place in the block where the linter noted such a
        record (``note_undefined``: its terminal, size and header word); met again and not noted,
        the run stops after it (``stop_soon``), as ``_rows_moved`` does for a row."""
        cdef string key
        _key_undefined(&key, term, 8 * self.size, S.buf + 8 * cur)
        it = self.row_slot.find(key)
        if it == self.row_slot.end():
            if <int64_t>self.row_slot.size() < COPY_KEYS:
                self.row_slot[key] = -2  # (met once)
        elif deref(it).second >= 0:
            self._move(deref(it).second, 8 * cur, self.findings.back().index)
            self.findings.pop_back()
        elif deref(it).second > -5:
            deref(it).second -= 1
            self.stop_soon = self.repeated = True

    cdef void _count_caps(self) noexcept nogil:
        """The record's rows whose rule the row alone says (``_cap_key``), counted; the run
        stops after the record at which a key's count reaches ``rule_cap``."""
        cdef size_t k
        cdef int c
        for k in range(self.rec_mark, self.findings.size()):
            c = _cap_key(&self.findings[k])
            if c >= 0 and not (self.capping and self._capped(&self.findings[k])):
                self.handed[c] += 1
                if self.handed[c] == self.rule_cap:
                    self.stop_soon = True

    cdef void _rows_moved(self) noexcept nogil:
        """The record's rows noted by the linter (``note_row``) made places in the block; one
        met again and not noted asks the run to stop after the record (``stop_soon``). A row
        the per-rule cap drops (``set_bound``) stays a row: ``take_findings`` counts it."""
        cdef string key
        cdef size_t k, w = self.rec_mark
        cdef Finding *f
        for k in range(self.rec_mark, self.findings.size()):
            f = &self.findings[k]
            if f.rule <= F_CHANGED and f.rule != F_MAGIC and not (self.capping and self._capped(f)):
                key.clear()
                _key_finding(&key, f)
                it = self.row_slot.find(key)
                if it == self.row_slot.end():
                    if <int64_t>self.row_slot.size() < COPY_KEYS:
                        self.row_slot[key] = -2  # (met once)
                elif deref(it).second >= 0:
                    self._move(deref(it).second, f.offset, f.index)
                    continue
                elif deref(it).second > -5:
                    # met again, not noted: the linter may note it (``note_row``) before the next
                    deref(it).second -= 1
                    self.stop_soon = self.repeated = True
            if w != k:
                self.findings[w] = self.findings[k]
            w += 1
        self.findings.resize(w)

    cdef inline void _find(self, int rule, Term *T, int field, int arg, int arg_type, int64_t at, int64_t index,
                           int64_t cur, int64_t size, uint64_t value, uint64_t rate) noexcept nogil:
        """A diagnostics row of the record at ``cur`` (``size`` words)."""
        cdef Finding f
        f.rule = rule
        f.term = <int>(T - self.terms)
        f.field = field
        f.arg = arg
        f.arg_type = arg_type
        f.slot = self.current
        f.index = index
        f.offset = 8 * cur
        f.size = 8 * size
        f.at = at
        f.value = value
        f.rate = rate
        f.old0 = f.old1 = f.new0 = f.new1 = 0
        self.findings.push_back(f)

    cdef inline void _push_row(self, Term *T, const uint64_t *v, int64_t thread, uint64_t pk, int64_t cat,
                               int64_t name, int64_t cur, int64_t index, int64_t size) noexcept nogil:
        """The event's pairing row (its id word is a complete event's end)."""
        cdef fxt_pair_row r
        cdef uint64_t word = v[T.pair_id] if T.pair_id >= 0 else 0
        r.kind = T.pair_kind
        r.thread = thread
        r.process = pk
        r.cat = cat
        r.name = name
        r.ts = v[T.pair_ts]
        r.id = 0 if T.pair_complete else word
        r.end = word if T.pair_complete else 0
        r.offset = 8 * cur
        r.index = index
        r.size = 8 * size
        r.rate = self.rate[self.current]
        r.rr = fxt_reading_rate(r.rate)
        self.rows.push_back(r)


# -- the table steps: the one copy of what a registration does to a ``ProviderState`` (the
# walk's, with no call of the mirror, and ``_walk_native.Mirror``'s methods', which call the
# functions below: a subclass told of a step carries it out by them). ``ProviderState.apply``,
# the reference's, is the specification (tests/test_nwalk.py holds them to it).

# the mirror's methods a subclass may override to be told of a step (``Mirror.told``)
cdef enum:
    H_INTERN = 1
    H_INTERN_BYTES = 2
    H_THREAD = 4
    H_NAMES = 8
    H_SWITCHES = 16
    H_RATE = 32
    H_STRING = 64
    H_THREAD_REG = 128
    H_TEXT = 256
    H_BYTES = 512

HOOKS = {"intern": H_INTERN, "intern_bytes": H_INTERN_BYTES, "thread": H_THREAD, "names_provider": H_NAMES,
         "switches_provider": H_SWITCHES, "sets_tick_rate": H_RATE, "registers_string": H_STRING,
         "registers_thread": H_THREAD_REG, "registers_text": H_TEXT, "registers_bytes": H_BYTES}


cdef int _hook_bits(told) except -1:
    cdef int bits = 0
    for name in told:
        bits |= HOOKS[name]
    return bits


cdef int64_t _interned(dict ids, list values, value) except -1:
    """``value``'s id in the interner of ``ids`` and ``values`` (``Interner.__call__``'s steps)."""
    got = ids.get(value)
    if got is not None:
        return got
    cdef int64_t gid = len(values)
    ids[value] = gid
    values.append(value)
    return gid


cdef int64_t _thread_on(state, uint64_t pk, uint64_t tk) except -1:
    """A koid pair interned in the state's thread interner (``ProviderState.threads``, made
    by the state at the first)."""
    threads = state._threads
    if threads is None:
        threads = state.threads
    return _interned(threads.ids, threads.values, (pk, tk))


cdef int _names_on(state, uint64_t pid, name) except -1:
    """A provider info record: ``pid`` announced and current, named ``name`` (bytes: text,
    read as UTF-8 with replacement; None: its name as it was)."""
    state.announced.add(pid)
    p = state.providers.get(pid)
    if p is None:
        p = state.provider(pid)
    state.current = p
    if name is not None:
        p.name = (<bytes>name).decode("utf-8", "replace")
    return 0


cdef int _switch_on(state, uint64_t pid) except -1:
    """A provider section record: ``pid`` current (made where it is new)."""
    p = state.providers.get(pid)
    state.current = state.provider(pid) if p is None else p
    return 0


cdef int _rate_on(state, uint64_t rate, uint64_t limit) except -1:
    """An initialization record: the current provider's tick rate and largest timestamp that converts."""
    p = state.current
    p.rate = rate
    p.max_ticks = limit
    return 0


def intern_text(state, raw):
    """Screened text (bytes) interned in ``state``'s interner: its id (``Mirror.intern``)."""
    return _interned(state.strings.ids, state.strings.values, bytes(raw).decode("utf-8", "replace"))


def intern_bytes(state, raw):
    """Text that is not UTF-8 interned as the bytes it is (``Mirror.intern_bytes``)."""
    return _interned(state.strings.ids, state.strings.values, bytes(raw))


def intern_thread(state, uint64_t pk, uint64_t tk):
    """A koid pair interned (``Mirror.thread``)."""
    return _thread_on(state, pk, tk)


def names_provider(state, uint64_t pid, name):
    _names_on(state, pid, name)


def switches_provider(state, uint64_t pid):
    _switch_on(state, pid)


def sets_tick_rate(state, uint64_t rate, uint64_t limit):
    _rate_on(state, rate, limit)


def registers_string(state, uint64_t idx, int64_t gid):
    (<dict?>state.current.strings)[idx] = gid


def registers_thread(state, uint64_t idx, uint64_t pk, uint64_t tk):
    (<dict?>state.current.threads)[idx] = (pk, tk)


cdef inline uint64_t _key(int slot, uint64_t index) noexcept nogil:
    """The tables' key of ``index`` under provider ``slot`` (a string index has 15 bits, a
    thread index 8: both below ``KEY_BITS``)."""
    return (<uint64_t>slot << KEY_BITS) | index


cdef inline unsigned _slot_hash(uint64_t key, int bits) noexcept nogil:
    return <unsigned>((key * <uint64_t>0x9E3779B97F4A7C15) >> (64 - bits))


cdef inline int _key_row(string *key, int64_t kind, int64_t arg, int64_t arg_type, int64_t at, uint64_t value,
                         uint64_t pc) except -1 nogil:
    """A layout row's part of a copy's key (``NativeWalk._copied``): all the row says
    but where its record is."""
    cdef int64_t w[6]
    w[0] = kind
    w[1] = arg
    w[2] = arg_type
    w[3] = at
    w[4] = <int64_t>value
    w[5] = <int64_t>pc
    key.append(<const char *>w, sizeof(w))
    return 0


cdef inline void _key_finding(string *key, const Finding *f) noexcept nogil:
    """A diagnostics row's key (``note_row``): all it says but where its record is (an
    argument's offset from its record's), as ``_walk_native._row_key`` reads it."""
    cdef int64_t w[14]
    w[0] = f.rule
    w[1] = f.term
    w[2] = f.field
    w[3] = f.arg
    w[4] = f.arg_type
    w[5] = f.size
    w[6] = f.at - f.offset if f.arg >= 0 else f.at
    w[7] = <int64_t>f.value
    w[8] = <int64_t>f.rate
    w[9] = f.slot
    w[10] = <int64_t>f.old0
    w[11] = <int64_t>f.old1
    w[12] = <int64_t>f.new0
    w[13] = <int64_t>f.new1
    key.append(<const char *>w, sizeof(w))


cdef inline void _key_undefined(string *key, int64_t term, int64_t size, const unsigned char *header) noexcept nogil:
    """An undefined record's key (``note_undefined``): F_UNDEFINED, its terminal, its size in
    bytes and its header word's bytes (a row's key, ``_key_finding``, is longer)."""
    cdef int64_t w[3]
    w[0] = F_UNDEFINED
    w[1] = term
    w[2] = size
    key.append(<const char *>w, sizeof(w))
    key.append(<const char *>header, 8)


cdef inline unsigned _text_slot(const unsigned char *b, uint64_t n) noexcept nogil:
    """``_known_text``'s cache slot of the ``n`` bytes at ``b``: a hash of its length and of its
    first and last eight bytes (no byte read outside them)."""
    cdef uint64_t w = 0, z = 0
    if n >= 8:
        memcpy(&w, b, 8)
        memcpy(&z, b + n - 8, 8)
    elif n:
        memcpy(&w, b, n)
    return <unsigned>(((w ^ (z * <uint64_t>0x9E3779B97F4A7C15) ^ n) * <uint64_t>0x9E3779B97F4A7C15) >> (64 - TEXT_BITS))


cdef inline int _key_tail(string *key, int64_t term, int64_t size, const unsigned char *b) except -1 nogil:
    """A copy's key after its rows: its terminal, its size and its ``size`` bytes."""
    cdef int64_t w[2]
    w[0] = -1 - term  # (no row's kind is negative: the rows end here)
    w[1] = size
    key.append(<const char *>w, sizeof(w))
    key.append(<const char *>b, <size_t>size)
    return 0


cdef inline uint64_t _word(Scan *S, int64_t p) noexcept nogil:
    """A word the screen has proved inside its record (a position it wrote)."""
    cdef uint64_t w = 0
    word_in(S, p, S.nwords, &w)
    return w


def _validate(d, nv, np_):
    """A terminal's plan names only slots the program has (the walk indexes with them)."""
    def val(x):
        if not -1 <= x < nv:
            raise ValueError("a value slot is out of range")

    def posn(x):
        if not -1 <= x < np_:
            raise ValueError("a position slot is out of range")

    if not (0 <= d["nstr"] <= NSTR and 0 <= d["nthr"] <= NTHR and 0 <= d["nts"] <= NTS):
        raise ValueError("a semantic plan with more refs than the walk holds")
    if len(d["str_val"]) != NSTR or len(d["thr_val"]) != NTHR or len(d["ts_val"]) != NTS:
        raise ValueError("a semantic plan's lists have the walk's lengths")
    for i in range(d["nstr"]):
        val(d["str_val"][i])
        posn(d["str_pos"][i])
        if d["str_val"][i] < 0 or (d["str_role"][i] and d["str_pos"][i] < 0):
            raise ValueError("a string ref without its slots")
    for i in range(d["nthr"]):
        val(d["thr_val"][i])
        posn(d["thr_pk"][i])
        posn(d["thr_tk"][i])
        if d["thr_val"][i] < 0 or (d["thr_nkoid"][i] >= 2 and (d["thr_pk"][i] < 0 or d["thr_tk"][i] < 0)):
            raise ValueError("a thread ref without its slots")
    for i in range(d["nts"]):
        if not 0 <= d["ts_val"][i] < nv:
            raise ValueError("a timestamp without its value slot")
    for k in ("pair_id", "pair_ts", "f_pid", "f_index", "f_len", "f_pk", "f_tk", "f_rate"):
        val(d[k])
    posn(d["f_pos"])
    if d["pair_kind"] >= 0 and d["pair_ts"] < 0:
        raise ValueError("a pairing row without its timestamp")
    need = {M_NAMES_PROVIDER: ("f_pid", "f_len", "f_pos"), M_SWITCHES_PROVIDER: ("f_pid",),
            M_SETS_TICK_RATE: ("f_rate",), M_REGISTERS_STRING: ("f_index", "f_len", "f_pos"),
            M_REGISTERS_THREAD: ("f_index", "f_pk", "f_tk")}.get(d["mode"], ())
    if any(d[k] < 0 for k in need):
        raise ValueError("an effect without its field slots")


def limit_of(uint64_t rate):
    """The walk's largest convertible timestamp at ``rate`` (> 0): ``spec._time.max_ticks``'s."""
    if rate == 0:
        raise ValueError("a rate of 0 converts nothing")
    return fxt_max_ticks(rate)


include "_nwalk_rows.pxi"
