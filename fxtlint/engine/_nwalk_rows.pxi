# The native walk's rows mode (``include``d at the end of ``_nwalk.pyx``): for ``export``
# and ``decode``, what a formatter needs of each event record the walk walks clean, with
# its refs resolved as the lint's walk resolves them, in flat rows, not an object a record.
#
# A row is ROW_WIDTH int64 words (``RowSink.take`` hands them back as bytes, file order):
# the record's index, byte offset, size in words, terminal, provider slot, tick rate (the
# provider's, as the walk reads the record), flags (ROW_KOIDS: the record's thread resolved,
# its koids in the next two words), the koids (pk, tk), then per string ref of the
# terminal (``Term.str_val``, NSTR of them) its interned id (0: the empty ref, ROW_INLINE:
# an inline text, read from the record; -1: unregistered), then (the export's: written
# when a plan is loaded, ``export_plan``) the timestamp, the second value the export prints
# (a complete event's end, a counter's, an async operation's or a flow's id), where its
# arguments start (in ``argw``, ARGW words each: type, name id, name text, value, value
# text) and how many, the provider id, the first of the row's side words (the decoding's,
# in ``dv``: per key of its kind that is no string ref, a thread ref's three words, a
# field's or word's value, a stream's text kept in ``blob``; ``decode_plan``), and per
# string ref its text: an inline text kept in ``blob``
# (offset << 24 | length) or an unregistered ref's index. A record that is not an event,
# or has any finding (a layout finding, an unregistered ref, a timestamp past its limit, an
# undefined type), is not a row: it is noted (index, offset, declared size in words, tick
# rate) for the reference per-record path, as the coverage mode notes one.
#
# The export's and the decoding's plan (``export_plan``: per terminal what is done with it,
# ExportAct; per argument type how its value prints, ArgKind) changes that: an event is a
# row even with unregistered refs or timestamps past their limit (the export prints those
# as the reference does, the decoding says them as errors), a kernel object is a row whose
# names ``format`` tells (the export's), a record with no output is counted (the export's
# ``not_exported``) or nothing (a table record), a record of another kind is noted or
# handed back, and a table record met while records are noted is handed back (a note is
# decoded with the tables as they are at the next stop: they must not change in between).
# The decoding's plan (``decode_plan``, ``_canonical._row_plan``) makes a row of every record
# of a kind the canonical decoding prints (its keys from the tables: DecodeHow, ``DOp``).
# ``format`` writes the rows' Trace Event JSON, ``format_decode`` their canonical lines,
# byte for byte ``json.dumps`` of the reference's objects, into one buffer, ``db``, written by
# pointer (room made for a row's pieces of fixed length at once, for each text as it comes),
# the lines of noted records put between (``append_line``), and handed out as a view
# (``text_view``): no copy through a Python object. Numbers, clocks and doubles are written
# here (integer arithmetic; a double's shortest digits by ``std::to_chars``), not by Python.
# Memory: the rows, notes, argument words, side words, inline texts and text since the last
# take (the Python side takes them at each stop of the walk), the thread koids met (``first``
# is told each one's first row) and the interned strings' JSON texts (``ttext``).

cimport cython
from libc.math cimport isfinite
from libc.stdlib cimport free, realloc
from libc.string cimport memcmp, memcpy, strlen

DEF ROW_HEAD = 9
DEF R_KOIDS = 1
DEF R_UNRES = 2     # the decoding's: a ref of the row resolves to nothing (``format_decode`` says which)
DEF R_INLINE = -2
DEF R_MORE = 7      # after the ids: timestamp, second value, first argument, argument count, provider id,
                    # the row's first side word (the decoding's: ``dv``), where its line goes among the
                    # direct lines (the decoding's: ``wb``'s length when it was made)
DEF R_CUT = ROW_HEAD + NSTR + 6
DEF NOSTOP = 1 << 62  # ``format_decode``'s stop when no record is in error
DEF KCACHE = 64   # koid texts kept (``_direct``'s)
DEF PAD = 32       # bytes a fixed copy (``_put32``) reads and writes past a short text
DEF PREFIX = 256   # a direct line's text up to its first key, kept per terminal when it fits
DEF DIRECT_VIEW = 1 << 15  # a stretch of direct lines this long handed out as a view, a shorter one copied
DEF WB_TAKE = 1 << 20  # the walk stops once the direct lines fill this many bytes (``full``): taken while in
                       # the processor's cache (decode sched 500 MB: 2.17 s against 2.37, 4 pairs)
DEF ROWS_TAKE = 4096   # ... or this many rows wait (the texts they need told to the walk at the stop)
DEF FLUSH_AT = 1 << 18  # the text handed out (``format``'s ``flush``) once it holds this many bytes
DEF XFIXED = 320    # room for an exported event's pieces of fixed length (keys, clocks, koids, ids)
DEF ARGW = 5        # an argument's words: type, name id, name text, value, value text
DEF R_TEXT = ROW_HEAD + NSTR + R_MORE   # the string refs' texts
DEF R_WIDTH = R_TEXT + NSTR
ROW_WIDTH = R_WIDTH
ROW_KOIDS = R_KOIDS
ROW_INLINE = R_INLINE
ROW_ARGW = ARGW


cpdef enum ExportAct:  # what the export does with a terminal's records
    X_NOTE = 0      # noted: the reference decodes it (a thread record, an undefined type)
    X_ROW = 1       # an event the Trace Event Format has: a row, formatted here
    X_COUNT = 2     # a kind with no Trace Event: counted (``Export.not_exported``)
    X_NONE = 3      # nothing exported, nothing counted (a table record)
    X_BACK = 4      # handed back: read with the tables as they are at it
    X_NAMES = 5     # a kernel object: a row, the names it gives told to Python (``format``'s ``named``)


cpdef enum ArgKind:  # how an argument's value prints
    XA_UNDEFINED = 0
    XA_NULL = 1
    XA_SIGNED = 2    # ``width`` bits, sign-extended (64: a word read as int64)
    XA_UNSIGNED = 3
    XA_DOUBLE = 4
    XA_STRING = 5
    XA_POINTER = 6
    XA_BOOL = 7
    XA_BLOB = 8      # the value slot: the blob's byte length


cdef struct XTerm:
    int act
    int ph           # the phase letter (0: none)
    int ts, v2       # value slots: the timestamp, the second value (-1: none)
    int iname, icat  # which of the terminal's string refs are the name and the category


cpdef enum DecodeHow:  # how the canonical decoding writes one key of a record (``_canonical._row_plan``)
    D_STRING = 0     # a string ref (``a``: which of the terminal's)
    D_THREAD = 1     # a thread ref (``a``: its value slot; ``b``, ``c``: its inline koid words' position
                     # slots; ``nk`` keys, ``k0``, ``k1``: 0 process_koid, 1 thread_koid): 3 side words
    D_NUMBER = 2     # a header field (``a``: its value slot, ``b`` its width, ``c`` signed): a number
    D_WORD = 3       # a word (``a``, ``c`` signed; ``nk`` 1: a koid, its text kept): a decimal string
    D_DOUBLE = 4     # a word read as a double
    D_TEXT = 5       # a UTF-8 stream (``a``: its position slot, ``b``: its length's value slot): a string
    D_HEX = 6        # a binary stream: its bytes in hex
    D_ARGS = 7       # the arguments


cdef struct DOp:
    int how
    int a, b, c
    int nk, k0, k1
    size_t key, nkey   # its key's text (", \"name\": ") in ``dtext``


cdef struct XArg:
    int kind
    int koid         # a koid (a thread's process, when named "process")
    int width
    int name, npos   # the name ref's value slot, its inline text's position slot
    int val, vpos    # the value's slot (a string's ref), a value text's position slot (-1: none)


cdef extern from *:
    """
    static const char fxt_digits2[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";

    /* ``x`` in decimal at p (20 bytes at most): its length from its bit length (no loop of
     * divisions), then two digits a step from the last; returns the end. */
    static inline __attribute__((always_inline)) char *fxt_pu64(char *p, uint64_t x) {
        static const uint64_t p10[20] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
            10000000ull, 100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
            10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
            100000000000000000ull, 1000000000000000000ull, 10000000000000000000ull};
        int t, n;
        char *e;
        if (x < 10) {
            p[0] = (char)('0' + x);
            return p + 1;
        }
        t = ((64 - __builtin_clzll(x)) * 1233) >> 12;
        n = t + 1 - (x < p10[t]);
        e = p + n;
        p = e;
        while (x >= 100) {
            uint64_t q = x / 100;
            unsigned r = (unsigned)(x - 100 * q);
            p -= 2;
            memcpy(p, fxt_digits2 + 2 * r, 2);
            x = q;
        }
        if (x >= 10) {
            p -= 2;
            memcpy(p, fxt_digits2 + 2 * x, 2);
        } else {
            p[-1] = (char)('0' + x);
        }
        return e;
    }

    /* ``json.dumps(spec._time.ticks_to_us(ticks, rate))`` into out (64 bytes), rate > 0: its
     * length, or -1 where it is a float whose shortest repr may be shorter than its exact
     * decimal (the caller asks Python). An exact quotient is the integer; otherwise, where
     * 10^6 * 10^d (d <= 3) is a multiple of the rate, the value is the decimal m / 10^d, and
     * a decimal of at most 15 significant digits, 10^-4 or more, is its float's repr. */
    static int fxt_us_text(uint64_t ticks, uint64_t rate, char *out) {
        unsigned __int128 num = (unsigned __int128)ticks * 1000000u, q;
        char tmp[48];
        int n = 0, len = 0, d;
        uint64_t scale = 1000000u, p10 = 1, m, r;
        if (num % rate == 0) {
            q = num / rate;
            do { tmp[n++] = (char)('0' + (int)(q % 10)); q /= 10; } while (q);
            while (n) out[len++] = tmp[--n];
            return len;
        }
        for (d = 1; d <= 3; d++) {
            scale *= 10;
            p10 *= 10;
            if (scale % rate == 0)
                break;
        }
        if (d > 3 || (unsigned __int128)ticks * (scale / rate) >= 1000000000000000ull)
            return -1;
        m = ticks * (scale / rate);
        r = m % p10;
        m /= p10;
        do { tmp[n++] = (char)('0' + (int)(m % 10)); m /= 10; } while (m);
        while (n) out[len++] = tmp[--n];
        out[len++] = '.';
        for (n = d - 1; n >= 0; n--) { tmp[n] = (char)('0' + (int)(r % 10)); r /= 10; }
        while (d > 0 && tmp[d - 1] == '0') d--;
        for (n = 0; n < d; n++) out[len++] = tmp[n];
        return len;
    }
    """
    int fxt_us_text(uint64_t ticks, uint64_t rate, char *out)

cdef extern from *:
    """
    /* fxt_us_text's common case: the rate's exact decimals known (``d`` digits, factor
     * ``f`` = 10^(6+d) / rate; d < 0: none) and the value below 10^15 / 10^d (``lim`` =
     * (10^15 - 1) / f, worked out with ``f``: no division by a variable here); 64-bit only,
     * the whole part by fxt_pu64. */
    static inline int fxt_us_fast(uint64_t ticks, int d, uint64_t f, uint64_t lim, char *out) {
        char tmp[4];
        int n, len;
        uint64_t m, q, r = 0;
        if (d < 0 || ticks > lim)
            return -1;
        m = ticks * f;
        switch (d) {
        case 0: q = m; break;
        case 1: q = m / 10; r = m % 10; break;
        case 2: q = m / 100; r = m % 100; break;
        default: q = m / 1000; r = m % 1000; break;
        }
        len = (int)(fxt_pu64(out, q) - out);
        if (r) {
            out[len++] = '.';
            for (n = d - 1; n >= 0; n--) { tmp[n] = (char)('0' + (int)(r % 10)); r /= 10; }
            while (d > 0 && tmp[d - 1] == '0') d--;
            for (n = 0; n < d; n++) out[len++] = tmp[n];
        }
        return len;
    }
    """
    int fxt_us_fast(uint64_t ticks, int d, uint64_t f, uint64_t lim, char *out)

cdef extern from *:
    """
    #include <charconv>
    /* ``repr(x)`` of a finite double (Python's float repr: its shortest round-trip digits,
     * fixed notation for a decimal point position in (-4, 16], else d[.ddd]e+XX) into out
     * (32 bytes): its length, or -1 (the caller asks Python). The digits are
     * ``std::to_chars``' shortest round-trip (the nearest of the shortest, as dtoa's mode 0
     * gives ``repr``), laid out as ``PyOS_double_to_string(x, 'r', 0, Py_DTSF_ADD_DOT_0)``. */
    static int fxt_repr_double(double x, char *out) {
        char tmp[48], digits[24];
        int nd = 0, len = 0, ex = 0, neg = 0, decpt, i;
        std::to_chars_result res = std::to_chars(tmp, tmp + sizeof tmp, x, std::chars_format::scientific);
        const char *s = tmp, *end = res.ptr;
        if (res.ec != std::errc())
            return -1;
        if (s < end && *s == '-') { out[len++] = '-'; s++; }
        for (; s < end && *s != 'e'; s++)
            if (*s != '.') {
                if (nd >= 20) return -1;
                digits[nd++] = *s;
            }
        if (s >= end || nd == 0) return -1;
        s++;
        if (s < end && (*s == '-' || *s == '+')) { neg = *s == '-'; s++; }
        for (; s < end; s++) ex = 10 * ex + (*s - '0');
        decpt = (neg ? -ex : ex) + 1;
        if (decpt > -4 && decpt <= 16) {
            if (decpt <= 0) {
                out[len++] = '0';
                out[len++] = '.';
                for (i = decpt; i < 0; i++) out[len++] = '0';
                for (i = 0; i < nd; i++) out[len++] = digits[i];
            } else if (decpt >= nd) {
                for (i = 0; i < nd; i++) out[len++] = digits[i];
                for (i = nd; i < decpt; i++) out[len++] = '0';
                out[len++] = '.';
                out[len++] = '0';
            } else {
                for (i = 0; i < decpt; i++) out[len++] = digits[i];
                out[len++] = '.';
                for (i = decpt; i < nd; i++) out[len++] = digits[i];
            }
        } else {
            out[len++] = digits[0];
            if (nd > 1) {
                out[len++] = '.';
                for (i = 1; i < nd; i++) out[len++] = digits[i];
            }
            out[len++] = 'e';
            ex = decpt - 1;
            out[len++] = ex < 0 ? '-' : '+';
            if (ex < 0) ex = -ex;
            if (ex >= 100) { out[len++] = (char)('0' + ex / 100); ex %= 100; out[len++] = (char)('0' + ex / 10); }
            else out[len++] = (char)('0' + ex / 10);
            out[len++] = (char)('0' + ex % 10);
        }
        return len;
    }
    """
    int fxt_repr_double(double x, char *out) nogil


cdef extern from *:
    """
    #include <new>
    #include <stdlib.h>
    /* A growing array of words whose ``resize`` is inline and zeroes nothing (its writer writes
     * every word: the rows, argument and side words), its room kept across ``clear``. */
    struct fxt_words {
        int64_t *p;
        size_t n, cap;
        fxt_words() : p(NULL), n(0), cap(0) {}
        ~fxt_words() { free(p); }
        fxt_words(const fxt_words &) = delete;
        fxt_words &operator=(const fxt_words &) = delete;
        size_t size() const { return n; }
        int64_t *data() { return p; }
        bool empty() const { return n == 0; }
        void clear() { n = 0; }
        void grow(size_t m) {
            size_t c = cap ? 2 * cap : 4096;
            void *q;
            while (c < m) c *= 2;
            q = realloc(p, c * sizeof(int64_t));
            if (q == NULL) throw std::bad_alloc();
            p = (int64_t *)q;
            cap = c;
        }
        void resize(size_t m) {
            if (m > cap) grow(m);
            n = m;
        }
    };

    /* ``n`` bytes from s to p, the short ones (keys, numbers, most texts) by fixed-size
     * moves the compiler inlines, not a call; returns the end. */
    static inline __attribute__((always_inline)) char *fxt_put(char *p, const char *s, size_t n) {
        if (n <= 16) {
            if (n >= 8) {
                uint64_t a, b;
                memcpy(&a, s, 8);
                memcpy(&b, s + n - 8, 8);
                memcpy(p, &a, 8);
                memcpy(p + n - 8, &b, 8);
            } else if (n >= 4) {
                uint32_t a, b;
                memcpy(&a, s, 4);
                memcpy(&b, s + n - 4, 4);
                memcpy(p, &a, 4);
                memcpy(p + n - 4, &b, 4);
            } else if (n) {
                char a = s[0], b = s[n / 2], c = s[n - 1];
                p[0] = a;
                p[n / 2] = b;
                p[n - 1] = c;
            }
        } else if (n <= 32) {
            char a[16], b[16];
            memcpy(a, s, 16);
            memcpy(b, s + n - 16, 16);
            memcpy(p, a, 16);
            memcpy(p + n - 16, b, 16);
        } else {
            memcpy(p, s, n);
        }
        return p + n;
    }

    /* ``n`` bytes from s to p in 32-byte moves: room for n + 32 at p, and s readable as far
     * (a text followed by at least 32 bytes of its buffer: ``PAD``); returns p + n. */
    static inline __attribute__((always_inline)) char *fxt_putc(char *p, const char *s, size_t n) {
        size_t i = 0;
        do {
            char a[16], b[16];
            memcpy(a, s + i, 16);
            memcpy(b, s + i + 16, 16);
            memcpy(p + i, a, 16);
            memcpy(p + i + 16, b, 16);
            i += 32;
        } while (i < n);
        return p + n;
    }

    static inline __attribute__((always_inline)) char *fxt_pi64(char *p, int64_t x) {
        if (x < 0) {
            *p = '-';
            return fxt_pu64(p + 1, (uint64_t)0 - (uint64_t)x);
        }
        return fxt_pu64(p, (uint64_t)x);
    }

    /* A header field of ``width`` bits as a number (sign-extended when ``sign``). */
    static inline __attribute__((always_inline)) char *fxt_dnumber(char *p, uint64_t raw, int width, int sign) {
        if (width < 64) {
            raw &= ((uint64_t)1 << width) - 1;
            if (sign && raw >> (width - 1))
                raw |= ~(((uint64_t)1 << width) - 1);
        }
        return sign ? fxt_pi64(p, (int64_t)raw) : fxt_pu64(p, raw);
    }

    /* A word as a decimal string. */
    static inline __attribute__((always_inline)) char *fxt_dword(char *p, uint64_t raw, int sign) {
        *p = '"';
        p = sign ? fxt_pi64(p + 1, (int64_t)raw) : fxt_pu64(p + 1, raw);
        *p = '"';
        return p + 1;
    }

    """
    char *_dnumber "fxt_dnumber"(char *p, uint64_t raw, int width, bint signed) noexcept nogil  # (a field)
    char *_dword "fxt_dword"(char *p, uint64_t raw, bint signed) noexcept nogil  # (a word: a decimal string)
    char *_putc "fxt_putc"(char *p, const char *s, size_t n) noexcept nogil  # (``PAD`` past both ends)
    char *_pu64 "fxt_pu64"(char *p, uint64_t x) noexcept nogil  # ``x`` in decimal at ``p`` (20 bytes at most)
    cdef cppclass fxt_words:
        size_t size() noexcept nogil
        int64_t *data() noexcept nogil
        void resize(size_t) except + nogil
        void clear() noexcept nogil
        bint empty() noexcept nogil
    char *_put "fxt_put"(char *p, const char *s, size_t n) noexcept nogil  # ``n`` bytes from ``s`` at ``p``


cdef extern from "Python.h":
    object PyMemoryView_FromMemory(char *mem, Py_ssize_t size, int flags)
    int PyBUF_READ
    char *PyOS_double_to_string(double val, char format_code, int precision, int flags, int *ptype) except NULL
    int Py_DTSF_ADD_DOT_0
    void PyMem_Free(void *p)


@cython.final  # (its methods called directly, the short ones inlined: no vtable)
cdef class RowSink:
    """The rows and notes of one walk (``NativeWalk.collect_rows``)."""

    cdef fxt_words rows                 # (grown by resize, not zeroed: every word written)
    cdef vector[int64_t] notes          # 4 words a note
    cdef public int64_t nrows
    # -- the export's and the decoding's (``export_plan``) --
    cdef bint exporting
    cdef public bint decoding           # the canonical decoding's rows: a blob argument's bytes kept too
    cdef vector[XTerm] xterms
    cdef vector[XArg] xargs
    cdef fxt_words argw
    cdef string blob                    # the rows' inline texts
    cdef vector[int64_t] counted        # per terminal: its records counted (X_COUNT)
    cdef size_t done                    # rows formatted
    cdef string scratch
    cdef vector[size_t] cuts
    cdef int64_t nout
    cdef unordered_set[uint64_t] seen   # thread koids met in a row
    cdef uint64_t last_tid              # the last row's thread koid (``tid_known``: one written)
    cdef bint tid_known
    cdef int64_t phases[128]
    cdef int64_t skipped[4]             # unregistered string refs, thread refs, rate 0, undefined argument types
    cdef uint64_t us_rate, us_factor    # the last tick rate a timestamp was written at, its exact decimals
    cdef uint64_t us_limit              # (the ticks past which ``fxt_us_fast`` leaves them)
    cdef int us_digits
    cdef object terms_plan, args_plan   # (until ``check`` lays them out for the walk's program)
    # -- the canonical decoding's (``decode_plan``) --
    cdef vector[DOp] dops               # per terminal its keys' ops, from ``dfirst[term]`` to ``dfirst[term + 1]``
    cdef vector[int] dfirst
    cdef vector[int] dwords             # per terminal: the side words of its rows
    cdef vector[size_t] dhead           # per terminal: its text up to the provider in ``dtext`` (offset, length)
    cdef vector[size_t] dargname        # per argument type: ', "type": ' its JSON name ', "value": ' in
                                        # ``dtext`` (offset, length)
    cdef string dtext
    cdef fxt_words dv                   # the rows' side words
    cdef vector[size_t] dfixed          # per terminal: room for its rows' pieces of fixed length
    cdef vector[char] dstreams          # per terminal: its keys hold a stream (``_streams_fit`` asks)
    cdef char *db                       # the decoding's text since the last take: ``dlen`` bytes of ``dcap``
    cdef size_t dlen, dcap
    cdef string ttext                   # the interned strings' JSON texts (``format_decode``'s ``texts``), ...
    cdef vector[size_t] toff            # ... where each starts (one more: the end)
    cdef object dplan, dlabels          # (the ops until ``check``; each op's field name, for an error)
    # -- the decoding's direct lines (``direct_lines``: written as the walk walks a record) --
    cdef bint direct
    cdef public int64_t ndirect         # the lines written so (of ``nrows``)
    cdef char *wb                       # the direct lines since the last take, each after ",\n": ``wlen`` of
    cdef size_t wlen, wcap, wpos        # ``wcap`` bytes, handed out up to ``wpos``
    cdef vector[int64_t] ncut           # per note: ``wlen`` when it was noted (where its line goes)
    cdef string ptxt                    # the providers' texts (``provs``), per provider id in ``ppid``
    cdef vector[int64_t] ppid           # (provider id, offset, length) each
    cdef int64_t wpid                   # the last provider a direct line named, its text in ``ptxt``:
    cdef size_t wpoff, wplen            # (``wplen`` 0: none looked up)
    cdef string wpre                    # per terminal (PREFIX bytes each): its direct line's text up to
    cdef vector[int64_t] wprepid        # its first key, for provider ``wprepid[term]``, ``wprelen[term]``
    cdef vector[size_t] wprelen         # bytes (0: none)
    cdef uint64_t kkey[KCACHE]          # a koid's text as a word's value (``DOp.nk`` 1), by the koid's
    cdef char ktxt[KCACHE][32]          # hash (``klen`` 0: none): written once, copied after (koids
    cdef unsigned char klen[KCACHE]     # repeat, from record to record)

    def __dealloc__(self):
        free(self.db)
        free(self.wb)

    cdef inline void note(self, int64_t index, int64_t offset, int64_t words, uint64_t rate) noexcept nogil:
        self.notes.push_back(index)
        self.notes.push_back(offset)
        self.notes.push_back(words)
        self.notes.push_back(<int64_t>rate)
        self.ncut.push_back(<int64_t>self.wlen)

    def take(self):
        """(rows, notes) since the last take, as bytes of native int64 words: ROW_WIDTH a
        row, 4 a note (index, offset, declared words, tick rate)."""
        cdef bytes r = (<char *>self.rows.data())[:8 * self.rows.size()] if self.rows.size() else b""
        cdef bytes n = (<char *>self.notes.data())[:8 * self.notes.size()] if self.notes.size() else b""
        self.rows.clear()
        self.notes.clear()
        self.ncut.clear()
        self.argw.clear()
        self.blob.clear()
        self.dv.clear()
        self.done = 0
        return r, n

    # -- the export ---------------------------------------------------------------------
    def export_plan(self, terms, args):
        """The export's plan: per terminal a dict of ``XTerm``'s fields, per argument type (a
        list by type) one of ``XArg``'s; checked against the walk's program when it is
        collected (``check``)."""
        self.terms_plan = list(terms)
        self.args_plan = list(args)
        self.exporting = True
        for i in range(128):
            self.phases[i] = 0
        for i in range(4):
            self.skipped[i] = 0

    def decode_plan(self, ops, heads, argnames):
        """The canonical decoding's plan (after ``export_plan``): per terminal the list of its
        keys, each a dict of ``DOp``'s fields (but ``key``, ``nkey``) with ``text`` (the key's
        text) and ``label`` (the field's name, as an error names it); per terminal its text
        up to the provider; per argument type its JSON name. Checked with the export's."""
        self.dplan = (list(ops), list(heads), list(argnames))
        self.decoding = True

    cdef int _check_decode(self, const Program *P) except -1:
        """The decoding's plan names only slots ``P`` has, and lays it out."""
        cdef DOp d
        cdef int words
        cdef size_t fixed
        cdef bint streams
        cdef bytes t
        ops, heads, argnames = self.dplan
        if len(ops) != P.nterminals or len(heads) != P.nterminals or self.dfirst.size():
            raise ValueError("a decoding plan for another program, or for a walk before")
        self.dlabels = []
        for term in range(P.nterminals):
            self.dfirst.push_back(<int>self.dops.size())
            words = 0
            fixed = 1  # (the closing brace)
            streams = False
            for x in ops[term]:
                d.how, d.a, d.b, d.c = x["how"], x.get("a", -1), x.get("b", -1), x.get("c", 0)
                d.nk, d.k0, d.k1 = x.get("nk", 0), x.get("k0", 0), x.get("k1", 0)
                if not ((d.how == D_STRING and 0 <= d.a < NSTR)
                        or (d.how == D_THREAD and 0 <= d.a < P.nvals and -1 <= d.b < P.npos and -1 <= d.c < P.npos
                            and 0 <= d.nk <= 2 and 0 <= d.k0 <= 1 and 0 <= d.k1 <= 1)
                        or (d.how == D_NUMBER and 0 <= d.a < P.nvals and 1 <= d.b <= 64)
                        or ((d.how == D_WORD or d.how == D_DOUBLE) and 0 <= d.a < P.nvals)
                        or ((d.how == D_TEXT or d.how == D_HEX) and 0 <= d.a < P.npos and 0 <= d.b < P.nvals)
                        or d.how == D_ARGS):
                    raise ValueError("a decoding plan's key out of range")
                words += 3 if d.how == D_THREAD else 0 if d.how == D_STRING or d.how == D_ARGS else 1
                streams = streams or d.how == D_TEXT or d.how == D_HEX
                # (a thread's koids: 96 bytes at most; a number, word or double: 40; the empty
                # text, the empty list, a stream's quotes: 2; texts and arguments: room as they come)
                fixed += len(x["text"]) + (96 if d.how == D_THREAD else 40 if d.how in (D_NUMBER, D_WORD, D_DOUBLE)
                                           else 2)
                t = x["text"]
                d.key = self.dtext.size()
                d.nkey = len(t)
                self.dtext.append(<const char *>t, len(t))
                self.dops.push_back(d)
                self.dlabels.append(x["label"])
            self.dwords.push_back(words)
            self.dfixed.push_back(fixed)
            self.dstreams.push_back(streams)
            t = heads[term]
            self.dhead.push_back(self.dtext.size())
            self.dhead.push_back(len(t))
            self.dtext.append(<const char *>t, len(t))
        self.dfirst.push_back(<int>self.dops.size())
        for i in range(<int64_t>P.arg_type_mask + 1):
            t = b', "type": ' + (argnames[i] if i < len(argnames) else b"") + b', "value": '
            self.dargname.push_back(self.dtext.size())
            self.dargname.push_back(len(t))
            self.dtext.append(<const char *>t, len(t))
        self.dtext.append(<size_t>PAD, <char>0)  # (``_put32`` reads that far past a key)
        self.dplan = None
        return 0

    cdef int check(self, const Program *P) except -1:
        """The export's plan names only terminals, slots and argument types ``P`` has."""
        cdef XTerm t
        cdef XArg a
        cdef int64_t i
        if not self.exporting:
            return 0
        if len(self.terms_plan) != P.nterminals or self.xterms.size():
            raise ValueError("an export plan for another program, or for a walk before")
        for d in self.terms_plan:
            t = d
            if not (0 <= t.act <= X_NAMES and 0 <= t.ph < 128 and -1 <= t.ts < P.nvals and -1 <= t.v2 < P.nvals
                    and 0 <= t.iname < NSTR and 0 <= t.icat < NSTR):
                raise ValueError("an export plan's terminal out of range")
            self.xterms.push_back(t)
        for i in range(<int64_t>P.arg_type_mask + 1):
            a.kind = XA_UNDEFINED
            a.koid = 0
            a.width = 64
            a.name = a.npos = a.val = a.vpos = -1
            if i < len(self.args_plan) and self.args_plan[i] is not None:
                a = self.args_plan[i]
                if not (0 <= a.kind <= XA_BLOB and 1 <= a.width <= 64 and 0 <= a.name < P.narg_vals
                        and 0 <= a.npos < P.narg_pos and -1 <= a.val < P.narg_vals and -1 <= a.vpos < P.narg_pos
                        and (a.val >= 0 or a.kind == XA_NULL) and (a.vpos >= 0 or a.kind != XA_STRING)):
                    raise ValueError("an export plan's argument type out of range")
            self.xargs.push_back(a)
        self.counted.assign(self.xterms.size(), 0)
        if self.dplan is not None:
            self._check_decode(P)
        return 0

    cdef inline bint full(self) noexcept nogil:
        """The direct lines fill ``WB_TAKE`` bytes, or ``ROWS_TAKE`` rows wait: the walk stops
        there (``_fast``), so that the lines are handed out while in cache, and what the rows
        wait for (a string interned since the last stop: its text) is told to the walk."""
        return self.direct and (self.wlen >= WB_TAKE or self.rows.size() >= ROWS_TAKE * R_WIDTH)

    cdef inline bint hands_back(self, int64_t term) noexcept nogil:
        """The walk stops before a record of ``term``: one to hand back, or a table record
        while records are noted (a noted record is decoded with the tables as they are at
        the stop: no table changes between it and the stop)."""
        return self.exporting and (self.xterms[term].act == X_BACK or
                                   (self.xterms[term].act == X_NONE and self.notes.size() != 0))

    def take_notes(self, bint cuts=False):
        """The records noted since the last take, in file order: (index, offset, declared
        words, tick rate) each, and with ``cuts`` where its line goes among the direct
        lines (``direct_to``)."""
        cdef size_t k
        if cuts:
            out = [(self.notes[k], self.notes[k + 1], self.notes[k + 2], <uint64_t>self.notes[k + 3],
                    self.ncut[k // 4]) for k in range(0, self.notes.size(), 4)]
        else:
            out = [(self.notes[k], self.notes[k + 1], self.notes[k + 2], <uint64_t>self.notes[k + 3])
                   for k in range(0, self.notes.size(), 4)]
        self.notes.clear()
        self.ncut.clear()
        return out

    def clear_rows(self):
        """Every row formatted: the rows, their argument words and texts, the direct lines
        let go."""
        self.rows.clear()
        self.argw.clear()
        self.blob.clear()
        self.dv.clear()
        self.done = 0
        self.wlen = self.wpos = 0

    def append_line(self, bytes line):
        """The decoding's: a line written elsewhere (a noted record's), after the lines
        ``format_decode`` wrote so far."""
        self._room(len(line) + 2)
        if self.nout:
            memcpy(self.db + self.dlen, b",\n", 2)
            self.dlen += 2
        self.nout += 1
        memcpy(self.db + self.dlen, <const char *>line, len(line))
        self.dlen += len(line)

    def text_view(self):
        """The decoding's: a read-only view of the text written since the last take (None:
        none), valid until the next write or ``clear_text``: written out without a copy."""
        if not self.dlen:
            return None
        return PyMemoryView_FromMemory(self.db, <Py_ssize_t>self.dlen, PyBUF_READ)

    def clear_text(self):
        self.dlen = 0
        self.nout = 0

    cdef int _flush(self, flush) except -1:
        """The text so far handed to ``flush`` as a read-only view (released after), then let
        go: the text buffer stays about ``FLUSH_AT`` bytes, in the processor's cache."""
        view = PyMemoryView_FromMemory(self.db, <Py_ssize_t>self.dlen, PyBUF_READ)
        try:
            flush(view)
        finally:
            view.release()
        self.dlen = 0
        self.nout = 0
        return 0

    # -- the decoding's direct lines ------------------------------------------------------
    def direct_lines(self, list texts, dict provs):
        """The decoding's rows written as the walk walks them (``_direct``) where what their
        lines need is known here: the interned strings' JSON texts (``texts``, copied to
        ``ttext``) and the providers' texts (``provs``, as ``format_decode`` has them). A
        record whose line needs any other (a string interned since, a provider not in
        ``provs``), or that is no line (a ref to nothing), is a row as before, formatted at
        the take. Told again at each take and wherever a provider's text may change."""
        cdef bytes t
        if not self.dfirst.size():
            raise ValueError("direct lines asked of a sink whose decoding plan is not laid out (collect_rows)")
        self._sync_texts(texts)
        self.ptxt.clear()
        self.ppid.clear()
        for pid, t in provs.items():
            self.ppid.push_back(<int64_t>pid)
            self.ppid.push_back(<int64_t>self.ptxt.size())
            self.ppid.push_back(len(t))
            self.ptxt.append(<const char *>t, len(t))
        self.wplen = 0
        self.wprelen.assign(self.dhead.size() // 2, 0)
        self.wprepid.assign(self.dhead.size() // 2, 0)
        self.wpre.assign(PREFIX * (self.dhead.size() // 2) + PAD, <char>0)
        if self.wb == NULL:
            self.wb = <char *>realloc(NULL, 1 << 16)
            if self.wb == NULL:
                raise MemoryError()
            self.wcap = 1 << 16
        self.direct = True

    cdef inline bint _provider(self, int64_t pid) noexcept nogil:
        """The text of provider ``pid`` known (``wpoff``, ``wplen``)."""
        cdef size_t k
        if self.wplen and pid == self.wpid:
            return True
        for k in range(0, self.ppid.size(), 3):
            if self.ppid[k] == pid:
                self.wpid = pid
                self.wpoff = <size_t>self.ppid[k + 1]
                self.wplen = <size_t>self.ppid[k + 2]
                return self.wplen != 0
        return False

    def direct_to(self, int64_t cut, bint alive, flush=None):
        """``_direct_to``: the direct lines up to ``cut`` (-1: all of them)."""
        self._direct_to(cut, alive, flush)

    cdef int _direct_to(self, int64_t cut, bint alive, flush) except -1:
        """The direct lines before ``cut`` (an offset in ``wb``: where a row's or a noted
        record's line goes; -1: the end) not yet handed out, after the text written so far
        (``alive``: else let go, a record before them being in error): a long stretch
        handed to ``flush`` as a view (the text before it first), a short one copied."""
        cdef size_t end = self.wlen if cut < 0 or <size_t>cut > self.wlen else <size_t>cut
        cdef size_t n
        cdef const char *s
        if end <= self.wpos:
            return 0
        s = self.wb + self.wpos
        n = end - self.wpos
        self.wpos = end
        if not alive:
            return 0
        if n >= DIRECT_VIEW and flush is not None:
            if self.dlen:
                self._flush(flush)
            view = PyMemoryView_FromMemory(<char *>s + 2, <Py_ssize_t>(n - 2), PyBUF_READ)  # (its first ",\n" not)
            try:
                flush(view)
            finally:
                view.release()
            return 0
        self._room(n)
        if not self.nout:
            s += 2
            n -= 2
        memcpy(self.db + self.dlen, s, n)
        self.dlen += n
        self.nout += 1
        return 0

    def take_counts(self):
        """What the rows and counts came to since the last take: ({phase: events},
        (unregistered string refs, events on an unregistered thread ref, events at tick
        rate 0, arguments of an undefined type), {terminal: records counted})."""
        cdef int i
        phases = {chr(i): self.phases[i] for i in range(128) if self.phases[i]}
        skipped = (self.skipped[0], self.skipped[1], self.skipped[2], self.skipped[3])
        counted = {i: self.counted[i] for i in range(<int>self.counted.size()) if self.counted[i]}
        for i in range(128):
            self.phases[i] = 0
        for i in range(4):
            self.skipped[i] = 0
        for i in range(<int>self.counted.size()):
            self.counted[i] = 0
        return phases, skipped, counted

    cdef void _text(self, string *o, int64_t gid, int64_t word, list texts) except *:
        """A string ref's JSON text: "" (the empty ref), an inline text, an interned one
        (``texts[gid]``, its ``json.dumps``), or an unregistered ref's stand-in."""
        cdef bytes t
        if gid == 0:
            o.append(b'""')
        elif gid == R_INLINE:
            _json_text(o, self.blob.data() + (word >> 24), <size_t>(word & 0xFFFFFF))
        elif gid < 0:
            self.skipped[0] += 1
            o.append(b'"<string #')
            _u64(o, <uint64_t>word)
            o.append(b'>"')
        else:
            if gid >= len(texts):
                raise ValueError("an interned id past the texts")
            t = texts[gid]
            o.append(<const char *>t, len(t))

    cdef inline char *_at(self, char *p, size_t n) except NULL:
        """Room for ``n`` more bytes after ``p`` in ``db``: where to go on writing (``db``
        may have moved)."""
        self.dlen = <size_t>(p - self.db)
        if self.dcap - self.dlen < n:
            self._room(n)
        return self.db + self.dlen

    cdef int _sync_texts(self, list texts) except -1:
        """The interned strings' JSON texts (``texts``) not yet in ``ttext`` copied there
        (they only grow)."""
        cdef bytes t
        if not self.toff.size():
            self.toff.push_back(0)
        if self.toff.size() > <size_t>len(texts):
            return 0
        self.ttext.resize(self.toff.back())  # (its padding, ``PAD``, after the new ones)
        while self.toff.size() <= <size_t>len(texts):
            t = texts[self.toff.size() - 1]
            self.ttext.append(<const char *>t, len(t))
            self.toff.push_back(self.ttext.size())
        self.ttext.append(<size_t>PAD, <char>0)
        return 0

    cdef char *_xtext(self, char *p, int64_t gid, int64_t word) except NULL:
        """The export's string ref at ``p`` (``_ptext``; an unregistered ref's stand-in counted)."""
        if gid == -1:
            self.skipped[0] += 1
        elif gid >= <int64_t>self.toff.size() - 1:
            raise ValueError("an interned id past the texts")
        return self._ptext(p, gid, word)

    cdef char *_xvalue(self, char *p, const XArg *A, const int64_t *a) except NULL:
        """An argument's value as ``json.dumps`` writes the reference's (``_arg_value``), at
        ``p`` (64 bytes of room made for a value of fixed length; a text makes its own)."""
        cdef uint64_t raw = <uint64_t>a[3]
        cdef int width = A.width
        cdef double x
        if A.kind == XA_NULL:
            return _put(p, b"null", 4)
        if A.kind == XA_SIGNED:
            if width < 64:
                raw &= ((<uint64_t>1) << width) - 1
                if raw >> (width - 1):
                    raw |= ~(((<uint64_t>1) << width) - 1)
            return _pi64(p, <int64_t>raw)
        if A.kind == XA_UNSIGNED:
            return _pu64(p, raw)
        if A.kind == XA_DOUBLE:
            memcpy(&x, &raw, 8)
            if isfinite(x):
                return _pdouble(p, x)
            return _put(p, b'"nan"', 5) if x != x else _put(p, b'"inf"', 5) if x > 0 else _put(p, b'"-inf"', 6)
        if A.kind == XA_STRING:
            return self._xtext(p, a[3], a[4])
        if A.kind == XA_POINTER:
            p = _put(p, b'"0x', 3)
            p = _phex64(p, raw)
            return _put(p, b'"', 1)
        if A.kind == XA_BOOL:
            return _put(p, b"true", 4) if raw else _put(p, b"false", 5)
        p = _put(p, b'"<blob, ', 8)  # XA_BLOB
        p = _pu64(p, raw)
        return _put(p, b' bytes>"', 8)

    cdef char *_us(self, char *p, uint64_t ticks, uint64_t rate, us) except NULL:
        """``json.dumps(ticks_to_us(ticks, rate))`` at ``p`` (64 bytes of room made): exact
        integer arithmetic (``fxt_us_fast``, ``fxt_us_text``), else ``us(ticks, rate)``."""
        cdef int n, d
        cdef uint64_t scale = 1000000
        cdef bytes b
        if rate != self.us_rate:  # (the rate's exact decimals: once per rate met in a row)
            self.us_rate = rate
            self.us_digits = -1
            for d in range(4):
                if scale % rate == 0:
                    self.us_digits = d
                    self.us_factor = scale // rate
                    self.us_limit = 999999999999999 // self.us_factor
                    break
                scale *= 10
        n = fxt_us_fast(ticks, self.us_digits, self.us_factor, self.us_limit, p)
        if n < 0:
            n = fxt_us_text(ticks, rate, p)
        if n >= 0:
            return p + n
        b = us(ticks, rate).encode()
        p = self._at(p, len(b) + 64)
        return _put(p, <const char *>b, len(b))

    cdef void _named(self, const int64_t *r, const XTerm *X, list texts, list named) except *:
        """A kernel object's row: what it names, as ``Exporter.event`` reads it."""
        cdef const int64_t *a
        cdef int k
        cdef int64_t at = r[ROW_HEAD + NSTR + 2]
        self.scratch.clear()
        self._text(&self.scratch, r[ROW_HEAD + X.iname], r[R_TEXT + X.iname], texts)
        name = self.scratch.data()[:self.scratch.size()]
        parents = []
        for k in range(<int>r[ROW_HEAD + NSTR + 3]):
            a = self.argw.data() + (at + k) * ARGW
            if a[0] < 0 or not self.xargs[a[0]].koid or a[1] == -1:
                continue
            self.scratch.clear()
            self._text(&self.scratch, a[1], a[2], texts)
            if self.scratch == b'"process"':
                parents.append(<uint64_t>a[3])
        named.append((r[0], <uint64_t>r[ROW_HEAD + NSTR], <uint64_t>r[ROW_HEAD + NSTR + 1], name, parents))

    cdef char *_once_a_name(self, char *p, int kept) except NULL:
        """The arguments written at ``cuts`` (per argument: its name's start and end, its
        value's end, offsets in ``db``), ``p`` their end: where a name is given twice, written
        again as a dict makes them (its last value at its first place). Returns the end."""
        cdef const size_t *c = self.cuts.data()
        cdef int k, i, j, m = 0
        cdef size_t base
        cdef const char *s
        for k in range(1, kept):
            if _earlier3(self.db, c, 0, k) >= 0:
                break
        else:
            return p  # (every name once: as written)
        base = c[0]
        self.scratch.assign(self.db + base, <size_t>(p - self.db) - base)
        s = self.scratch.data()
        p = self.db + base  # (the text only shrinks: each name and value written once at most)
        for k in range(kept):
            if _earlier3(s, c, base, k) >= 0:
                continue  # written at its first place
            j = k
            for i in range(k + 1, kept):
                if _same3(s, c, base, k, i):
                    j = i
            if m:
                p = _put(p, b", ", 2)
            m += 1
            p = _put(p, s + c[3 * k] - base, c[3 * k + 1] - c[3 * k])
            p = _put(p, b": ", 2)
            p = _put(p, s + c[3 * j + 1] + 2 - base, c[3 * j + 2] - c[3 * j + 1] - 2)
        return p

    def format(self, int64_t below, list texts, list first, us, list named, flush=None):
        """Write the Trace Event JSON of the rows not yet written whose records come before
        record ``below`` into ``db`` (after its text so far, ",\\n" between events;
        ``text_view``), by pointer, room made for a row's pieces of fixed length at once and
        for each text as it comes (``texts[gid]``: an interned string's JSON text; ``first``
        gets (index, thread koid, process koid) of each thread's first row; ``us(ticks,
        rate)``: the text of a timestamp not written here; ``named`` gets each kernel object's
        (index, koid, object type, name, process koids of its koid arguments named
        "process"), its name a JSON text, an unregistered ref's stand-in counted; ``flush``:
        given the text's view before a row once it holds ``FLUSH_AT`` bytes). Returns the rows
        it went past."""
        cdef size_t n = self.rows.size() // R_WIDTH, start = self.done
        cdef const int64_t *r
        cdef const int64_t *a
        cdef const XTerm *X
        cdef const XArg *A
        cdef char *p
        cdef uint64_t ticks, rate, end, tid, v2
        cdef int ph, k, nargs, kept
        cdef int64_t at
        self._sync_texts(texts)
        while self.done < n:
            r = self.rows.data() + self.done * R_WIDTH
            if r[0] >= below:
                break
            if self.dlen >= FLUSH_AT and flush is not None:
                self._flush(flush)
            self.done += 1
            X = &self.xterms[r[3]]
            if X.act == X_NAMES:
                self._named(r, X, texts, named)
                continue
            if not (r[6] & R_KOIDS):
                self.skipped[1] += 1
                continue
            rate = <uint64_t>r[5]
            if rate == 0:
                self.skipped[2] += 1
                continue
            tid = <uint64_t>r[8]
            if not self.tid_known or tid != self.last_tid:  # (a thread's first row: once per run of its rows)
                if self.seen.insert(tid).second:
                    first.append((r[0], tid, <uint64_t>r[7]))
                self.last_tid = tid
                self.tid_known = True
            ph = X.ph
            p = self._at(self.db + self.dlen, XFIXED)
            if self.nout:
                p = _put(p, b",\n", 2)
            self.nout += 1
            p = _put(p, b'{"name": ', 9)
            p = self._xtext(p, r[ROW_HEAD + X.iname], r[R_TEXT + X.iname])
            p = self._at(p, XFIXED)
            p = _put(p, b', "cat": ', 9)
            p = self._xtext(p, r[ROW_HEAD + X.icat], r[R_TEXT + X.icat])
            p = self._at(p, XFIXED)  # (the rest of the row but its arguments)
            p = _put(p, b', "ph": "', 9)
            p[0] = <char>ph
            p = _put(p + 1, b'", "ts": ', 9)
            ticks = <uint64_t>r[ROW_HEAD + NSTR]
            p = self._us(p, ticks, rate, us)
            p = _put(p, b', "pid": ', 9)
            p = _pu64(p, <uint64_t>r[7])
            p = _put(p, b', "tid": ', 9)
            p = _pu64(p, tid)
            v2 = <uint64_t>r[ROW_HEAD + NSTR + 1]
            if ph == c'X':
                end = v2 - ticks if v2 > ticks else 0
                p = _put(p, b', "dur": ', 9)
                p = self._us(p, end, rate, us)
            elif ph == c'i':
                p = _put(p, b', "s": "t"', 10)
            elif ph == c'C':
                if v2:
                    p = _put(p, b', "id": "0x', 11)
                    p = _phex64(p, v2)
                    p = _put(p, b'"', 1)
            elif ph == c'b' or ph == c'n' or ph == c'e' or ph == c's' or ph == c't' or ph == c'f':
                p = _put(p, b', "id": "0x', 11)
                p = _phex64(p, v2)
                if ph == c's' or ph == c't' or ph == c'f':
                    p = _put(p, b'", "bp": "e"', 12)
                else:
                    p = _put(p, b'"', 1)
            # the arguments, written as they come (``cuts``: each one's name and value), then
            # written again as a dict makes them where a name is given twice (``_once_a_name``)
            nargs = <int>r[ROW_HEAD + NSTR + 3]
            at = r[ROW_HEAD + NSTR + 2]
            self.cuts.clear()
            kept = 0
            for k in range(nargs):
                a = self.argw.data() + (at + k) * ARGW
                if a[0] < 0:
                    self.skipped[3] += 1
                    continue
                A = &self.xargs[a[0]]
                p = self._at(p, 16)
                p = _put(p, b", ", 2) if kept else _put(p, b', "args": {', 11)
                kept += 1
                self.cuts.push_back(<size_t>(p - self.db))
                p = self._xtext(p, a[1], a[2])
                self.cuts.push_back(<size_t>(p - self.db))
                p = self._at(p, 72)
                p = _put(p, b": ", 2)
                p = self._xvalue(p, A, a)
                self.cuts.push_back(<size_t>(p - self.db))
            p = self._at(p, 16)
            if kept:
                p = self._once_a_name(p, kept)
                p = _put(p, b"}", 1)
            elif ph == c'C':
                p = _put(p, b', "args": {}', 12)
            p = _put(p, b"}", 1)
            self.dlen = <size_t>(p - self.db)
            self.phases[ph] += 1
        return self.done - start


    # -- the canonical decoding ---------------------------------------------------------
    cdef inline int _room(self, size_t n) except -1:
        """Room for ``n`` more bytes in the decoding's text (``db``)."""
        if self.dcap - self.dlen >= n:
            return 0
        return self._grow(n)

    cdef int _grow(self, size_t n) except -1:
        cdef size_t cap
        cdef char *got
        cap = max(2 * self.dcap, self.dlen + n, <size_t>(1 << 16))
        got = <char *>realloc(self.db, cap)
        if got == NULL:
            raise MemoryError()
        self.db = got
        self.dcap = cap
        return 0

    cdef char *_ptext(self, char *p, int64_t gid, int64_t word) except NULL:
        """``_text`` for the decoding, at ``p`` in ``db`` (room made for it): an interned
        string's text from ``ttext``. Returns where it ends (``db`` may have moved)."""
        cdef size_t n
        cdef const char *src
        if gid == 0:
            return _put(p, b'""', 2)
        self.dlen = <size_t>(p - self.db)
        if gid == R_INLINE:
            n = <size_t>(word & 0xFFFFFF)
            self._room(6 * n + 2)
            return _pjson(self.db + self.dlen, self.blob.data() + (word >> 24), n)
        if 0 < gid < <int64_t>self.toff.size() - 1:
            n = self.toff[gid + 1] - self.toff[gid]
            self._room(n)
            return _put(self.db + self.dlen, self.ttext.data() + self.toff[gid], n)
        self._room(48)  # (an unregistered ref: its row is an error, never written)
        p = _put(self.db + self.dlen, b'"<string #', 10)
        p = _pu64(p, <uint64_t>word)
        return _put(p, b'>"', 2)

    cdef char *_pvalue(self, char *p, const XArg *A, const int64_t *a) except NULL:
        """An argument's value as the canonical decoding writes it (``_canonical``'s
        ``argument_value``: ``_avalue``; a text or a blob's bytes in hex), at ``p`` (64 bytes
        of room made for a value of fixed length)."""
        cdef size_t n
        cdef char *q
        cdef double x
        if A.kind == XA_STRING:
            return self._ptext(p, a[3], a[4])
        if A.kind == XA_BLOB:  # its bytes in hex
            n = <size_t>(a[4] & 0xFFFFFF)
            self.dlen = <size_t>(p - self.db)
            self._room(2 * n + 2)
            return _phex(self.db + self.dlen, <const unsigned char *>self.blob.data() + (a[4] >> 24), n)
        q = _avalue(p, A, <uint64_t>a[3])
        if q == NULL:  # (a double whose digits ``fxt_repr_double`` leaves to Python)
            memcpy(&x, &a[3], 8)
            q = _pdouble(p, x)
        return q

    cdef str _decode_error(self, const int64_t *r, const int64_t *side):
        """The message of the row's first ref to nothing, in key order (as the reference's
        canonicaliser meets it), or None."""
        cdef int j, k
        cdef const DOp *D
        cdef const int64_t *a
        cdef int64_t term = r[3]
        for j in range(self.dfirst[term], self.dfirst[term + 1]):
            D = &self.dops[j]
            if D.how == D_STRING:
                if r[ROW_HEAD + D.a] == -1:
                    return f"string ref {<uint64_t>r[R_TEXT + D.a]} ({self.dlabels[j]}) is not registered"
            elif D.how == D_THREAD:
                if side[0] == 0:
                    return f"thread ref {<uint64_t>side[1]} ({self.dlabels[j]}) is not registered"
                side += 3
            elif D.how == D_ARGS:
                for k in range(<int>r[ROW_HEAD + NSTR + 3]):
                    a = self.argw.data() + (r[ROW_HEAD + NSTR + 2] + k) * ARGW
                    if a[0] < 0:
                        continue
                    if a[1] == -1:
                        return f"string ref {<uint64_t>a[2]} (argument name) is not registered"
                    if self.xargs[a[0]].kind == XA_STRING and a[3] == -1:
                        return f"string ref {<uint64_t>a[4]} (argument value) is not registered"
            else:
                side += 1
        return None

    def format_decode(self, int64_t below, int64_t stop, list texts, dict provs, list errors, flush=None):
        """Write the canonical JSON of the rows not yet written whose records come before
        record ``below`` and ``stop`` (the first record in error), as ``_canonical``'s
        ``Canonical.record`` writes each, key by key as ``decode_plan`` says: its kind, then
        ``provs[pid]`` (-1: none) the provider's text, then its fields, into ``db`` (room made
        for a row's pieces of fixed length at once, for each text as it comes). A row with a
        ref to nothing is not written: (index, offset, message) goes to ``errors``, as the
        reference's canonicaliser says it (its first such ref, in key order), and no later row
        is written (``flush``: as ``format``'s). Returns the stop."""
        cdef size_t n = self.rows.size() // R_WIDTH
        cdef const int64_t *r
        cdef const int64_t *a
        cdef const int64_t *side
        cdef const DOp *D
        cdef const XArg *A
        cdef const char *dt = self.dtext.data()
        cdef char *p
        cdef char *q
        cdef int j, k, nargs, m
        cdef int64_t at, pid, last_pid = -2, index, term
        cdef double x
        cdef size_t nb
        cdef bytes prov = b""
        cdef str err
        cdef bint moved = False
        self._sync_texts(texts)
        while self.done < n:
            r = self.rows.data() + self.done * R_WIDTH
            index = r[0]
            if index >= below:
                break
            if self.dlen >= FLUSH_AT and flush is not None:
                self._flush(flush)
            self.done += 1
            if self.direct:  # (the direct lines before it, while no record before them is in error)
                self._direct_to(r[R_CUT], stop >= NOSTOP, flush)
            term = r[3]
            side = self.dv.data() + r[ROW_HEAD + NSTR + 5]
            err = self._decode_error(r, side) if r[6] & R_UNRES else None
            if err is not None:
                errors.append((index, r[1], f"record {index} at {r[1]:#x}: {err}"))
                if index < stop:
                    stop = index
                continue
            if index >= stop:
                continue
            pid = r[ROW_HEAD + NSTR + 4]
            if pid != last_pid:
                prov = provs[pid]
                last_pid = pid
            # room for the row's pieces of fixed length: its kind and keys, the provider,
            # numbers (24 bytes each), a thread's koids; the arguments' and texts' as they come
            self._room(self.dhead[2 * term + 1] + len(prov) + self.dfixed[term] + 2)
            p = self.db + self.dlen
            if self.nout:
                p = _put(p, b",\n", 2)
            self.nout += 1
            p = _put(p, dt + self.dhead[2 * term], self.dhead[2 * term + 1])
            p = _put(p, <const char *>prov, len(prov))
            for j in range(self.dfirst[term], self.dfirst[term + 1]):
                D = &self.dops[j]
                p = _put(p, dt + D.key, D.nkey)
                if D.how == D_STRING:
                    p = self._ptext(p, r[ROW_HEAD + D.a], r[R_TEXT + D.a])
                    moved = True
                elif D.how == D_THREAD:
                    p = _dthread(p, D, <uint64_t>side[1], <uint64_t>side[2])
                    side += 3
                elif D.how == D_NUMBER:
                    p = _dnumber(p, <uint64_t>side[0], D.b, D.c)
                    side += 1
                elif D.how == D_WORD:
                    p = _dword(p, <uint64_t>side[0], D.c)
                    side += 1
                elif D.how == D_DOUBLE:
                    q = _ddouble(p, <uint64_t>side[0])
                    if q == NULL:
                        memcpy(&x, &side[0], 8)
                        q = _pdouble(p, x)
                    p = q
                    side += 1
                elif D.how == D_TEXT or D.how == D_HEX:
                    nb = <size_t>(side[0] & 0xFFFFFF)
                    self.dlen = <size_t>(p - self.db)
                    self._room(6 * nb + 2)
                    p = self.db + self.dlen
                    if D.how == D_TEXT:
                        p = _pjson(p, self.blob.data() + (side[0] >> 24), nb)
                    else:
                        p = _phex(p, <const unsigned char *>self.blob.data() + (side[0] >> 24), nb)
                    side += 1
                    moved = True
                else:  # D_ARGS
                    p[0] = b'['
                    p += 1
                    nargs = <int>r[ROW_HEAD + NSTR + 3]
                    at = r[ROW_HEAD + NSTR + 2]
                    m = 0
                    for k in range(nargs):
                        a = self.argw.data() + (at + k) * ARGW
                        if a[0] < 0:
                            continue  # an undefined argument type: skipped by its size
                        A = &self.xargs[a[0]]
                        self.dlen = <size_t>(p - self.db)
                        self._room(128 + self.dargname[2 * a[0] + 1])
                        p = self.db + self.dlen
                        if m:
                            p = _put(p, b", ", 2)
                        m += 1
                        p = _put(p, b'{"name": ', 9)
                        p = self._ptext(p, a[1], a[2])
                        self.dlen = <size_t>(p - self.db)
                        self._room(128 + self.dargname[2 * a[0] + 1])
                        p = self.db + self.dlen
                        p = _put(p, dt + self.dargname[2 * a[0]], self.dargname[2 * a[0] + 1])
                        p = self._pvalue(p, A, a)
                        self.dlen = <size_t>(p - self.db)
                        self._room(4)  # (its closing brace, the list's)
                        p = self.db + self.dlen
                        p[0] = b'}'
                        p += 1
                    p[0] = b']'
                    p += 1
                    moved = True
                if moved:  # (room for the keys and fixed pieces left, after a text that used it up)
                    moved = False
                    if self.dcap - <size_t>(p - self.db) < self.dfixed[term] + 2:
                        self.dlen = <size_t>(p - self.db)
                        self._room(self.dfixed[term] + 2)
                        p = self.db + self.dlen
            p[0] = b'}'
            p += 1
            self.dlen = <size_t>(p - self.db)
        return stop

cdef inline bint _same3(const char *s, const size_t *c, size_t base, int x, int y) noexcept:
    """Do arguments ``x`` and ``y`` have the same name text? (``c``: 3 offsets an argument,
    its name's start and end, its value's end; ``s``: the text from offset ``base``)"""
    cdef size_t nx = c[3 * x + 1] - c[3 * x], ny = c[3 * y + 1] - c[3 * y]
    return nx == ny and memcmp(s + c[3 * x] - base, s + c[3 * y] - base, nx) == 0


cdef inline int _earlier3(const char *s, const size_t *c, size_t base, int x) noexcept:
    """The first argument before ``x`` named as ``x`` is (-1: none)."""
    cdef int i
    for i in range(x):
        if _same3(s, c, base, x, i):
            return i
    return -1


cdef const char *_DIGITS2 = (b"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                             b"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                             b"8081828384858687888990919293949596979899")


cdef inline void _u64(string *o, uint64_t x) noexcept:
    """``x`` in decimal, two digits a step."""
    cdef char buf[24]
    cdef int i = 24
    cdef uint64_t q
    while x >= 100:
        q = x // 100
        i -= 2
        memcpy(buf + i, _DIGITS2 + 2 * (x - 100 * q), 2)
        x = q
    if x >= 10:
        i -= 2
        memcpy(buf + i, _DIGITS2 + 2 * x, 2)
    else:
        i -= 1
        buf[i] = <char>(48 + x)
    o.append(buf + i, 24 - i)


def _decimal(uint64_t x):
    """``_pu64``'s text of ``x``, as bytes: for the tests, against ``str``."""
    cdef char buf[24]
    return buf[:_pu64(buf, x) - buf]


cdef inline char *_phex64(char *p, uint64_t x) noexcept nogil:
    """``x`` in lower-case hex, no leading zeros, at ``p`` (16 bytes at most)."""
    cdef int n = 1
    cdef uint64_t y = x >> 4
    cdef char *e
    while y:
        n += 1
        y >>= 4
    e = p + n
    while n:
        n -= 1
        p[n] = b"0123456789abcdef"[x & 15]
        x >>= 4
    return e


cdef inline char *_pi64(char *p, int64_t x) noexcept nogil:
    if x < 0:
        p[0] = b'-'
        return _pu64(p + 1, <uint64_t>0 - <uint64_t>x)
    return _pu64(p, <uint64_t>x)


cdef char *_pdouble(char *p, double x) except NULL:
    """``repr(x)`` of a finite double at ``p`` (32 bytes of room): ``fxt_repr_double``, or
    Python's own formatting where that declines."""
    cdef int n = fxt_repr_double(x, p)
    cdef char *s
    cdef size_t k
    if n >= 0:
        return p + n
    s = PyOS_double_to_string(x, b'r', 0, Py_DTSF_ADD_DOT_0, NULL)
    k = strlen(s)
    p = _put(p, s, k if k <= 32 else 32)  # (a double's repr: 24 bytes at most)
    PyMem_Free(s)
    return p


cdef inline char *_ddouble(char *p, uint64_t raw) noexcept nogil:
    """A word read as a double: a number, or "NaN", "Infinity", "-Infinity" (NULL: digits
    ``fxt_repr_double`` leaves to Python, ``_pdouble``)."""
    cdef double x
    cdef int n
    memcpy(&x, &raw, 8)
    if not isfinite(x):
        return _put(p, b'"NaN"', 5) if x != x else _put(p, b'"Infinity"', 10) if x > 0 \
            else _put(p, b'"-Infinity"', 11)
    n = fxt_repr_double(x, p)
    return p + n if n >= 0 else NULL


cdef inline char *_dthread(char *p, const DOp *D, uint64_t a0, uint64_t a1) noexcept nogil:
    """A thread's koids (``a0``, ``a1``: its keys' values, ``D.nk`` of them) as an object of
    decimal strings (96 bytes at most)."""
    cdef int q
    if D.nk == 0:
        return _put(p, b"{}", 2)
    for q in range(D.nk):
        p = _put(p, b'{"', 2) if q == 0 else _put(p, b'", "', 4)
        if (D.k0 if q == 0 else D.k1) == 0:
            p = _put(p, b'process_koid": "', 16)
        else:
            p = _put(p, b'thread_koid": "', 15)
        p = _pu64(p, a0 if q == 0 else a1)
    return _put(p, b'"}', 2)


cdef inline char *_avalue(char *p, const XArg *A, uint64_t raw) noexcept nogil:
    """An argument's value of fixed length as the canonical decoding writes it
    (``_canonical``'s ``argument_value``: a header field a number, a word a decimal string, a
    double ``_ddouble``, a bool, null), 64 bytes at most (NULL: ``_ddouble``'s, or a text
    or a blob, written by its caller)."""
    if A.kind == XA_NULL:
        return _put(p, b"null", 4)
    if A.kind == XA_SIGNED or A.kind == XA_UNSIGNED or A.kind == XA_POINTER:
        return _dnumber(p, raw, A.width, A.kind == XA_SIGNED) if A.width < 64 \
            else _dword(p, raw, A.kind == XA_SIGNED)
    if A.kind == XA_DOUBLE:
        return _ddouble(p, raw)
    if A.kind == XA_BOOL:
        return _put(p, b"true", 4) if raw else _put(p, b"false", 5)
    return NULL


def _repr_double(double x):
    """``_pdouble``'s text of a finite ``x``, as bytes: for the tests, against ``repr``."""
    cdef char buf[32]
    return buf[:_pdouble(buf, x) - buf]


cdef inline char *_phex(char *p, const unsigned char *b, size_t n) noexcept nogil:
    """Bytes in hex, quoted, at ``p`` (2n + 2 bytes)."""
    cdef size_t i
    p[0] = b'"'
    p += 1
    for i in range(n):
        p[0] = b"0123456789abcdef"[b[i] >> 4]
        p[1] = b"0123456789abcdef"[b[i] & 15]
        p += 2
    p[0] = b'"'
    return p + 1


cdef inline char *_pjson(char *p, const char *s, size_t n) noexcept nogil:
    """``json.dumps(text, ensure_ascii=False)`` of the UTF-8 bytes ``s`` written at ``p``
    (6n + 2 bytes at most); returns the end."""
    cdef size_t i, run = 0
    cdef unsigned char c
    p[0] = b'"'
    p += 1
    for i in range(n):
        c = <unsigned char>s[i]
        if c >= 0x20 and c != 0x22 and c != 0x5C:
            continue
        memcpy(p, s + run, i - run)
        p += i - run
        run = i + 1
        if c == 0x22:
            p = _put(p, b'\\"', 2)
        elif c == 0x5C:
            p = _put(p, b'\\\\', 2)
        elif c == 0x0A:
            p = _put(p, b'\\n', 2)
        elif c == 0x0D:
            p = _put(p, b'\\r', 2)
        elif c == 0x09:
            p = _put(p, b'\\t', 2)
        elif c == 0x08:
            p = _put(p, b'\\b', 2)
        elif c == 0x0C:
            p = _put(p, b'\\f', 2)
        else:
            p = _put(p, b'\\u00', 4)
            p[0] = b"0123456789abcdef"[c >> 4]
            p[1] = b"0123456789abcdef"[c & 15]
            p += 2
    memcpy(p, s + run, n - run)
    p += n - run
    p[0] = b'"'
    return p + 1


cdef void _json_text(string *o, const char *s, size_t n) noexcept:
    """``json.dumps(text, ensure_ascii=False)`` of UTF-8 bytes (the screen proved them UTF-8):
    quotes and backslashes escaped, control characters too, the rest as it is; appended to
    ``o`` by ``_pjson`` (room for its worst case made first, the string cut to what it wrote)."""
    cdef size_t at = o.size()
    o.resize(at + 6 * n + 2)
    cdef char *start = <char *>o.data()  # (C++17: a string's data is writable)
    cdef char *end = _pjson(start + at, s, n)
    o.resize(<size_t>(end - start))


cdef inline int64_t _keep_text(RowSink k, Scan *S, int64_t pos, uint64_t n) noexcept nogil:
    """An inline text of ``n`` bytes at word ``pos``, kept in the sink's ``blob``."""
    cdef int64_t off = <int64_t>k.blob.size()
    if pos >= 0 and 0 < n <= 0xFFFFFF:
        k.blob.append(<const char *>S.buf + 8 * pos, n)
    else:
        n = 0
    return (off << 24) | <int64_t>n


cdef inline void _ref_of(NativeWalk w, int slot, uint64_t ref, int64_t pos, Scan *S, int64_t *gid,
                         int64_t *text) noexcept nogil:
    """A string ref's id (0 empty, R_INLINE, the interned id, -1 unregistered) and text word."""
    text[0] = 0
    if ref == 0:
        gid[0] = 0
    elif ref & w.inline_bit:
        gid[0] = R_INLINE
        text[0] = _keep_text(w.rsink, S, pos, ref & (w.inline_bit - 1))
    else:
        gid[0] = w._string(_key(slot, ref))
        if gid[0] < 0:
            gid[0] = -1
            text[0] = <int64_t>ref


cdef void _row_of(NativeWalk w, Scan *S, int64_t term, int64_t cur, int64_t index) noexcept nogil:
    """The record at ``cur`` was walked: a row when it is a clean event, else a note (the
    export's plan: as it says)."""
    cdef Term *T = &w.terms[term]
    cdef uint64_t *v = w.vals.data()
    cdef int64_t *p = w.pos.data()
    cdef int slot = w.current
    cdef uint64_t ref, inline_bit = w.inline_bit
    cdef int i, rule
    cdef int64_t flags = 0
    cdef uint64_t pk = 0, tk = 0
    cdef const XTerm *X = NULL
    cdef size_t k
    if w.rsink.exporting:
        X = &w.rsink.xterms[term]
        if X.act == X_NONE:
            return
        if X.act == X_COUNT:
            w.rsink.counted.data()[term] += 1
            return
        if (X.act != X_ROW and X.act != X_NAMES) or (T.mode != M_EVENT and T.mode != M_PROVIDER_EVENT):
            w.rsink.note(index, 8 * cur, w.declared, w.rate[slot])
            return
        for k in range(w.rec_mark, w.findings.size()):  # (what the export prints as the reference does)
            rule = w.findings[k].rule
            if rule != F_STRING and rule != F_THREAD and rule != F_TICKS:
                w.rsink.note(index, 8 * cur, w.declared, w.rate[slot])
                return
        if w.rsink.dfirst.size() and w.rsink.dstreams[term] and not _streams_fit(w, term):
            w.rsink.note(index, 8 * cur, w.declared, w.rate[slot])
            return
    elif T.mode != M_EVENT or w.findings.size() != w.rec_mark:
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
    if X != NULL and w.rsink.direct and _direct(w, w.rsink, S, T, term, slot, flags, pk, tk):
        w.rsink.nrows += 1
        w.rsink.ndirect += 1
        return
    cdef size_t at = w.rsink.rows.size()
    w.rsink.rows.resize(at + R_TEXT + NSTR)  # (amortized: the vector keeps its capacity across takes)
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
    if X == NULL:
        for i in range(NSTR):
            r[ROW_HEAD + i] = 0
            r[R_TEXT + i] = 0
            if i < T.nstr:
                ref = v[T.str_val[i]]
                if ref & inline_bit:
                    r[ROW_HEAD + i] = R_INLINE
                elif ref != 0:
                    r[ROW_HEAD + i] = w._string(_key(slot, ref))
        for i in range(R_MORE):
            r[ROW_HEAD + NSTR + i] = 0
        w.rsink.nrows += 1
        return
    if not flags and T.nthr:  # (unresolved: the ref, for the decoding's message)
        r[7] = <int64_t>v[T.thr_val[0]]
    for i in range(NSTR):
        r[ROW_HEAD + i] = 0
        r[R_TEXT + i] = 0
        if i < T.nstr:
            _ref_of(w, slot, v[T.str_val[i]], p[T.str_pos[i]] if T.str_pos[i] >= 0 else -1, S,
                    &r[ROW_HEAD + i], &r[R_TEXT + i])
    r[ROW_HEAD + NSTR] = <int64_t>v[X.ts] if X.ts >= 0 else 0
    r[ROW_HEAD + NSTR + 1] = <int64_t>v[X.v2] if X.v2 >= 0 else 0
    r[ROW_HEAD + NSTR + 2] = <int64_t>(w.rsink.argw.size() // ARGW)
    r[ROW_HEAD + NSTR + 3] = S.nargs
    r[ROW_HEAD + NSTR + 4] = <int64_t>w.pid_of[slot] if slot else -1
    r[ROW_HEAD + NSTR + 5] = 0
    r[R_CUT] = <int64_t>w.rsink.wlen
    cdef bint unres = False
    if w.rsink.dfirst.size():
        r[ROW_HEAD + NSTR + 5] = _side_words(w, S, T, term, slot, flags, pk, tk, &unres)
        for i in range(T.nstr):
            unres |= r[ROW_HEAD + i] == -1
    cdef int64_t a, ty, npv = w.P.narg_vals
    cdef const int64_t *row
    cdef const XArg *A
    cdef size_t aw
    cdef int64_t *o
    for a in range(S.nargs):
        row = S.args + a * S.arg_columns
        ty = row[2]
        aw = w.rsink.argw.size()
        w.rsink.argw.resize(aw + ARGW)
        o = w.rsink.argw.data() + aw
        o[0] = ty if 0 <= ty < <int64_t>w.rsink.xargs.size() else -1
        o[1] = o[2] = o[3] = o[4] = 0
        if o[0] < 0 or w.rsink.xargs[o[0]].kind == XA_UNDEFINED:
            o[0] = -1  # (an undefined type: the export skips it, and says so)
            continue
        A = &w.rsink.xargs[o[0]]
        _ref_of(w, slot, <uint64_t>row[ARG_ROW_HEAD + A.name], row[ARG_ROW_HEAD + npv + A.npos], S, &o[1], &o[2])
        if A.kind == XA_STRING:
            _ref_of(w, slot, <uint64_t>row[ARG_ROW_HEAD + A.val], row[ARG_ROW_HEAD + npv + A.vpos], S, &o[3], &o[4])
        elif A.val >= 0:
            o[3] = row[ARG_ROW_HEAD + A.val]
            if A.kind == XA_BLOB and w.rsink.decoding and A.vpos >= 0:
                o[4] = _keep_text(w.rsink, S, row[ARG_ROW_HEAD + npv + A.vpos], <uint64_t>o[3])
        unres |= o[1] == -1 or (A.kind == XA_STRING and o[3] == -1)
    if unres:
        w.rsink.rows.data()[at + 6] |= R_UNRES
    w.rsink.nrows += 1


cdef inline char *_wat(RowSink k, char *p, size_t n) noexcept nogil:
    """Room for ``n`` more bytes after ``p`` in ``wb``: where to go on writing (``wb`` may
    have moved; NULL: no memory)."""
    cdef size_t at = <size_t>(p - k.wb), cap
    cdef char *got
    if k.wcap - at >= n:
        return p
    cap = 2 * k.wcap
    if cap < at + n:
        cap = at + n
    got = <char *>realloc(k.wb, cap)
    if got == NULL:
        return NULL
    k.wb = got
    k.wcap = cap
    return got + at


cdef inline char *_wtext(RowSink k, NativeWalk w, Scan *S, char *p, int slot, uint64_t ref,
                         int64_t pos) noexcept nogil:
    """A string ref's JSON text at ``p`` in ``wb`` (room made for it), as ``_ref_of`` and
    ``_ptext`` write a row's; NULL where the line is left to a row (a ref to nothing, a string
    whose text ``direct_lines`` has not copied yet, no memory)."""
    cdef int64_t gid
    cdef size_t n
    if ref == 0:
        return _put(p, b'""', 2)
    if ref & w.inline_bit:
        n = <size_t>(ref & (w.inline_bit - 1))
        if pos < 0 or n == 0:
            return _put(p, b'""', 2)
        if n > 0xFFFFFF:
            return NULL
        p = _wat(k, p, 6 * n + 2)
        if p == NULL:
            return NULL
        return _pjson(p, <const char *>S.buf + 8 * pos, n)
    gid = w._string(_key(slot, ref))
    if gid == 0:
        return _put(p, b'""', 2)
    if gid < 0 or gid >= <int64_t>k.toff.size() - 1:
        return NULL
    n = k.toff[gid + 1] - k.toff[gid]
    p = _wat(k, p, n + PAD)
    if p == NULL:
        return NULL
    return _putc(p, k.ttext.data() + k.toff[gid], n)


cdef inline char *_wbytes(RowSink k, Scan *S, char *p, int64_t pos, uint64_t n, bint hex) noexcept nogil:
    """A stream's or a blob argument's bytes (``_keep_text``'s: none where it keeps none) as
    a text or in hex, at ``p`` in ``wb``; NULL as ``_wtext``."""
    if pos < 0 or n == 0:
        return _put(p, b'""', 2)
    if n > 0xFFFFFF:
        return NULL
    p = _wat(k, p, 6 * n + 2)
    if p == NULL:
        return NULL
    if hex:
        return _phex(p, <const unsigned char *>S.buf + 8 * pos, <size_t>n)
    return _pjson(p, <const char *>S.buf + 8 * pos, <size_t>n)


cdef bint _direct(NativeWalk w, RowSink k, Scan *S, const Term *T, int64_t term, int slot, int64_t flags,
                  uint64_t pk0, uint64_t tk0) noexcept nogil:
    """The decoding's line of the record just walked written now, at the end of ``wb`` (after
    ",\n"), from the walk's values and the record's bytes: ``format_decode``'s line of its row
    (the same keys in the same order, each written by the same function), without the row.
    False (nothing written) where it is left to a row: a ref that resolves to nothing, a text
    or provider not known here (``direct_lines``), a double Python writes, no memory. Room is
    made once for the pieces of fixed length (``dfixed``), again after each text."""
    cdef const uint64_t *v = w.vals.data()
    cdef const int64_t *pp = w.pos.data()
    cdef const char *dt = k.dtext.data()
    cdef const DOp *D
    cdef const XArg *A
    cdef const int64_t *row
    cdef int64_t pid = <int64_t>w.pid_of[slot] if slot else -1
    cdef int64_t ty, npv = w.P.narg_vals
    cdef uint64_t ref, a0, a1
    cdef int j, a, m, h
    cdef size_t nhead = k.dhead[2 * term + 1], npre = k.wprelen[term], fixed = k.dfixed[term] + PAD
    cdef char *p
    cdef char *q
    cdef char *pre = <char *>k.wpre.data() + PREFIX * term
    if not npre or k.wprepid[term] != pid:  # (its text up to the first key, kept for its provider)
        if not k._provider(pid):
            return False
        npre = 2 + nhead + k.wplen
        if npre + PAD > PREFIX:
            return False
        memcpy(pre, b",\n", 2)
        memcpy(pre + 2, dt + k.dhead[2 * term], nhead)
        memcpy(pre + 2 + nhead, k.ptxt.data() + k.wpoff, k.wplen)
        k.wprelen[term] = npre
        k.wprepid[term] = pid
    p = _wat(k, k.wb + k.wlen, npre + fixed)
    if p == NULL:
        return False
    p = _putc(p, pre, npre)
    for j in range(k.dfirst[term], k.dfirst[term + 1]):
        D = &k.dops[j]
        p = _putc(p, dt + D.key, D.nkey)
        if D.how == D_NUMBER:
            p = _dnumber(p, v[D.a], D.b, D.c)
        elif D.how == D_WORD:
            if D.nk and not D.c:  # a koid: its text as written the last time
                h = <int>((v[D.a] * <uint64_t>0x9E3779B97F4A7C15) >> 58)
                if k.klen[h] and k.kkey[h] == v[D.a]:
                    p = _putc(p, k.ktxt[h], k.klen[h])
                else:
                    q = _dword(p, v[D.a], D.c)
                    k.kkey[h] = v[D.a]
                    k.klen[h] = <unsigned char>(q - p)
                    memcpy(k.ktxt[h], p, <size_t>(q - p))
                    p = q
            else:
                p = _dword(p, v[D.a], D.c)
        elif D.how == D_THREAD:  # (``_side_words``' reading)
            ref = v[D.a]
            if T.nthr == 1 and T.thr_nkoid[0] == 2 and T.thr_val[0] == D.a:
                if not flags & R_KOIDS:
                    return False
                a0 = pk0 if D.k0 == 0 else tk0
                a1 = pk0 if D.k1 == 0 else tk0
            elif ref == 0:
                a0 = _word(S, pp[D.b]) if D.b >= 0 and pp[D.b] >= 0 else 0
                a1 = _word(S, pp[D.c]) if D.c >= 0 and pp[D.c] >= 0 else 0
            else:
                it = w.threads.find(_key(slot, ref))
                if it == w.threads.end():
                    return False
                a0 = deref(it).second.pk if D.k0 == 0 else deref(it).second.tk
                a1 = deref(it).second.pk if D.k1 == 0 else deref(it).second.tk
            p = _dthread(p, D, a0, a1)
        elif D.how == D_DOUBLE:
            p = _ddouble(p, v[D.a])
            if p == NULL:
                return False
        else:
            if D.how == D_STRING:
                if D.a < T.nstr:
                    p = _wtext(k, w, S, p, slot, v[T.str_val[D.a]], pp[T.str_pos[D.a]] if T.str_pos[D.a] >= 0 else -1)
                else:
                    p = _put(p, b'""', 2)
            elif D.how == D_TEXT or D.how == D_HEX:
                p = _wbytes(k, S, p, pp[D.a], v[D.b], D.how == D_HEX)
            else:  # D_ARGS
                p = _wargs(w, k, S, p, slot, npv)
            if p == NULL:
                return False
            p = _wat(k, p, fixed)  # (room for the rest of fixed length again, after a text)
            if p == NULL:
                return False
    p[0] = b'}'
    k.wlen = <size_t>(p + 1 - k.wb)
    return True


cdef char *_wargs(NativeWalk w, RowSink k, Scan *S, char *p, int slot, int64_t npv) noexcept nogil:
    """``_direct``'s arguments: the list ``format_decode`` writes of a row's (NULL as ``_wtext``)."""
    cdef const XArg *A
    cdef const int64_t *row
    cdef const char *dt = k.dtext.data()
    cdef int64_t ty
    cdef int a, m = 0
    p[0] = b'['
    p += 1
    for a in range(S.nargs):
        row = S.args + a * S.arg_columns
        ty = row[2]
        if not 0 <= ty < <int64_t>k.xargs.size() or k.xargs[ty].kind == XA_UNDEFINED:
            continue  # an undefined argument type: skipped by its size
        A = &k.xargs[ty]
        p = _wat(k, p, 128 + k.dargname[2 * ty + 1])
        if p == NULL:
            return NULL
        if m:
            p = _put(p, b', {"name": ', 11)
        else:
            p = _put(p, b'{"name": ', 9)
        m += 1
        p = _wtext(k, w, S, p, slot, <uint64_t>row[ARG_ROW_HEAD + A.name], row[ARG_ROW_HEAD + npv + A.npos])
        if p == NULL:
            return NULL
        p = _wat(k, p, 128 + k.dargname[2 * ty + 1])
        if p == NULL:
            return NULL
        p = _putc(p, dt + k.dargname[2 * ty], k.dargname[2 * ty + 1])
        if A.kind == XA_STRING:
            p = _wtext(k, w, S, p, slot, <uint64_t>row[ARG_ROW_HEAD + A.val], row[ARG_ROW_HEAD + npv + A.vpos])
        elif A.kind == XA_BLOB:
            p = _wbytes(k, S, p, row[ARG_ROW_HEAD + npv + A.vpos] if A.vpos >= 0 else -1,
                        <uint64_t>row[ARG_ROW_HEAD + A.val], True)
        else:
            p = _avalue(p, A, <uint64_t>row[ARG_ROW_HEAD + A.val] if A.val >= 0 else 0)
        if p == NULL:
            return NULL
        p = _wat(k, p, 4)  # (its closing brace, the list's)
        if p == NULL:
            return NULL
        p[0] = b'}'
        p += 1
    p[0] = b']'
    return p + 1


cdef inline bint _streams_fit(NativeWalk w, int64_t term) noexcept nogil:
    """The decoding's streams of the record just walked are short enough to be kept."""
    cdef int j
    for j in range(w.rsink.dfirst[term], w.rsink.dfirst[term + 1]):
        if (w.rsink.dops[j].how == D_TEXT or w.rsink.dops[j].how == D_HEX) and w.vals[w.rsink.dops[j].b] > 0xFFFFFF:
            return False
    return True


cdef int64_t _side_words(NativeWalk w, Scan *S, const Term *T, int64_t term, int slot, int64_t flags,
                         uint64_t pk0, uint64_t tk0, bint *unres) noexcept nogil:
    """The decoding's words of the record just walked (``decode_plan``'s ops of ``term``)
    appended to ``dv``: a thread ref's (resolved, then its keys' koids; unregistered: 0, the
    ref, and ``unres`` set), a field's or a word's value, a stream's text kept in ``blob``.
    Returns the first. (A kind with one thread ref of two koid words: the row's koids,
    ``flags``, ``pk0``, ``tk0``, are that ref's.)"""
    cdef size_t at = w.rsink.dv.size()
    cdef int j
    cdef const DOp *D
    cdef uint64_t ref, pk, tk
    cdef const uint64_t *v = w.vals.data()
    cdef const int64_t *p = w.pos.data()
    w.rsink.dv.resize(at + w.rsink.dwords[term])
    cdef int64_t *o = w.rsink.dv.data() + at
    for j in range(w.rsink.dfirst[term], w.rsink.dfirst[term + 1]):
        D = &w.rsink.dops[j]
        if D.how == D_THREAD:
            ref = v[D.a]
            if T.nthr == 1 and T.thr_nkoid[0] == 2 and T.thr_val[0] == D.a:
                o[0] = 1 if flags & R_KOIDS else 0
                o[1] = <int64_t>(pk0 if D.k0 == 0 else tk0) if o[0] else <int64_t>ref
                o[2] = <int64_t>(pk0 if D.k1 == 0 else tk0) if o[0] else 0
                unres[0] |= o[0] == 0
            elif ref == 0:  # inline: its koid words
                o[0] = 1
                o[1] = <int64_t>_word(S, p[D.b]) if D.b >= 0 and p[D.b] >= 0 else 0
                o[2] = <int64_t>_word(S, p[D.c]) if D.c >= 0 and p[D.c] >= 0 else 0
            else:
                it = w.threads.find(_key(slot, ref))
                if it != w.threads.end():
                    pk = deref(it).second.pk
                    tk = deref(it).second.tk
                    o[0] = 1
                    o[1] = <int64_t>(pk if D.k0 == 0 else tk)
                    o[2] = <int64_t>(pk if D.k1 == 0 else tk)
                else:
                    o[0] = 0
                    o[1] = <int64_t>ref
                    o[2] = 0
                    unres[0] = True
            o += 3
        elif D.how == D_NUMBER or D.how == D_WORD or D.how == D_DOUBLE:
            o[0] = <int64_t>v[D.a]
            o += 1
        elif D.how == D_TEXT or D.how == D_HEX:
            o[0] = _keep_text(w.rsink, S, p[D.a], v[D.b])
            o += 1
    return <int64_t>at
