/*
 * fxtlint.engine._kernel: frame a window of an FXT buffer and screen every record in one pass.
 *
 * The kernel knows no record layout. It interprets a *program* that
 * fxtlint/engine/_kernel_program.py compiles from the spec tables: a record-type dispatch
 * tree and, per leaf layout and per argument type, a straight run of small
 * instructions (read a word, extract a field, check a mask, a constant or an
 * enumeration, walk a stream or an argument list). A layout added to spec-tables/
 * is screened here with no change to this file.
 *
 * What "screen" means is the column engine's (fxtlint/engine/_columns.py): a row is flagged
 * the moment anything the reference decoder could report is possible, and flagged
 * rows go to that decoder, which builds every message. For rows left clean the kernel
 * writes the columns the walk's consumers read: field and word values, word positions,
 * and a row per argument with its own values and positions.
 *
 * Memory safety: the program is validated once (every index, slot and table it names
 * lies inside it) when it is loaded, and every read of the trace goes through
 * word_in()/bytes_in(), which check the position against the record's end; a record's
 * end is checked against the buffer when it is framed. Nothing is read outside the
 * buffer, and nothing past a record's end while screening it.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* -- the instruction set: _kernel_program.OPS lists the same names in this order -- */
enum {
    OP_END, OP_WORD, OP_STORE, OP_ZERO, OP_FIELD, OP_FIELDS, OP_CONST, OP_ENUM, OP_INLINE_WORD,
    OP_STRING, OP_STREAM, OP_ARGS, OP_LOGREF, OP_LESS, OP_EQUAL, N_OPS
};
static const char *const OP_NAMES[N_OPS] = {
    "end", "word", "store", "zero", "field", "fields", "const", "enum", "inline_word",
    "string", "stream", "args", "logref", "less", "equal",
};

/* -- the program header: _kernel_program.HEADER lists the same names in this order -- */
enum {
    H_MAGIC, H_LENGTH, H_TYPE_LO, H_TYPE_MASK, H_ARG_TYPE_LO, H_ARG_TYPE_MASK, H_ARG_SIZE_LO,
    H_ARG_SIZE_MASK, H_NVALS, H_NPOS, H_NARG_VALS, H_NARG_POS, H_INLINE_BIT, H_MAX_STRING, H_FAR,
    H_SIZES, H_ROOTS, H_NODES, H_NODES_END, H_ARGS, H_NTERMINALS, N_HEADER
};
static const char *const HEADER_NAMES[N_HEADER] = {
    "magic", "length", "type_lo", "type_mask", "arg_type_lo", "arg_type_mask", "arg_size_lo",
    "arg_size_mask", "nvals", "npos", "narg_vals", "narg_pos", "inline_bit", "max_string", "far",
    "sizes", "roots", "nodes", "nodes_end", "args", "nterminals",
};

#define PROGRAM_MAGIC 0x46584B3100000004LL
#define NODE_SELECT 0
#define NODE_TERMINAL 1
#define MAX_SLOTS 256    /* values or positions per row */
#define MAX_ARG_VALS 64  /* values of one argument: a stack array */
#define MAX_ARG_POS 16   /* positions inside one argument: a stack array */
#define MAX_DEPTH 32     /* select nodes on any path of the dispatch tree */
#define LOG_INLINE 1     /* logref: a log's strings are inline (or empty) */
#define LOG_NAME 2       /* logref: ... and a log argument's name is not empty */
#define ARG_ROW_HEAD 4   /* an argument row: record position, argument, type, header word, then
                            narg_vals values and narg_pos positions */

/* How a scan ended. */
enum { STOP_WINDOW, STOP_FULL, STOP_ZERO, STOP_PAST_END, STOP_ARGS_FULL };

#define CAPSULE_NAME "fxtlint.engine._kernel.program"

/* The walk is a chain of dependent loads (each header gives the next one's place), and
 * the screen revisits headers in group order: both wait on memory unless the next
 * lines are asked for early. A prefetch is a hint that reads nothing (it cannot fault);
 * these distances measured best on bench/kernel_bench.py's workloads. */
#if defined(__GNUC__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif
#define PREFETCH_WORDS 128   /* framing: 1 KiB ahead of the header being read */
#define PREFETCH_RECORDS 8   /* screening: the header 8 positions on */

typedef struct {
    int64_t *code;  /* the validated program: our own copy */
    int64_t length;
    uint64_t type_lo, type_mask, arg_type_lo, arg_type_mask, arg_size_lo, arg_size_mask;
    int64_t nvals, npos, narg_vals, narg_pos, nterminals;
    uint64_t inline_bit, max_string, far;
    const int64_t *sizes, *roots, *args;
    int64_t *term_pc;  /* per terminal ordinal: its code, -1 for rows that are only framed */
} Program;

/* ------------------------------------------------------------------------------------
 * Loading a program: check every index it holds once, so the interpreter needs no
 * checks on the program itself (only on the trace).
 */
static int in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v < hi; }

static int bad_program(const char *why, int64_t at)
{
    PyErr_Format(PyExc_ValueError, "invalid kernel program: %s (at %lld)", why, (long long)at);
    return 0;
}

/* Walk the code run starting at pc until its end; arg: argument code (own value and
 * position slots, logref allowed, args not). */
static int check_code(const Program *P, int64_t pc, int arg)
{
    const int64_t *c = P->code;
    int64_t nv = arg ? P->narg_vals : P->nvals, np = arg ? P->narg_pos : P->npos;
    for (; pc >= 0 && pc <= P->length - 4; pc += 4) {  /* no pc + 4: pc may be any int64 */
        int64_t op = c[pc], a = c[pc + 1], b = c[pc + 2], cc = c[pc + 3];
        int ok = 1;
        switch (op) {
        case OP_END:
            return 1;
        case OP_WORD:
            ok = in(a, -1, np);
            break;
        case OP_STORE:
        case OP_ZERO:
            ok = op == OP_ZERO || in(a, 0, nv);
            break;
        case OP_FIELD:
            ok = in(a, 0, nv) && in(b, 0, 64);
            break;
        case OP_FIELDS:  /* the next a instructions are fields (each checked in its turn) */
            ok = a >= 1 && a <= (P->length - pc) / 4 - 1;
            for (int64_t k = 1; ok && k <= a; k++)
                ok = c[pc + 4 * k] == OP_FIELD;
            break;
        case OP_CONST:
        case OP_EQUAL:
            ok = in(a, 0, nv);
            break;
        case OP_STREAM:
            ok = in(a, 0, nv) && in(cc, -1, np);
            break;
        case OP_ENUM:
            ok = in(a, 0, nv) && b >= 0 && cc >= 0 && cc <= P->length && b <= P->length - cc;
            break;
        case OP_INLINE_WORD:
        case OP_STRING:
            ok = in(a, 0, nv) && in(b, -1, np);
            break;
        case OP_ARGS:
            ok = !arg && in(a, -1, nv);
            break;
        case OP_LOGREF:
            ok = arg && in(a, 0, nv) && in(b, LOG_INLINE, LOG_NAME + 1);
            break;
        case OP_LESS:
            ok = in(a, 0, nv) && in(b, 0, nv);
            break;
        default:
            ok = 0;
        }
        if (!ok)
            return bad_program("an instruction's operands are out of range", pc);
    }
    return bad_program("a code run has no end", pc);
}

/* The dispatch tree: nodes in preorder, each child after its parent, so it has no cycle;
 * every root (one per record type, ntypes of them from roots) is a node. */
static int check_nodes(Program *P, int64_t lo, int64_t hi, const int64_t *roots, int64_t ntypes)
{
    const int64_t *c = P->code;
    char *starts = calloc((size_t)(hi - lo) + 1, 1);
    int ok = 1;
    if (starts == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    /* first pass: where nodes start, and each node's own fields */
    for (int64_t i = lo; ok && i < hi;) {
        if (i + 4 > hi) {
            ok = bad_program("a node runs past the node table", i);
            break;
        }
        starts[i - lo] = 1;
        if (c[i] == NODE_TERMINAL) {
            if (!in(c[i + 1], 0, P->nterminals) || (c[i + 2] != -1 && !check_code(P, c[i + 2], 0)))
                ok = PyErr_Occurred() ? 0 : bad_program("a terminal is invalid", i);
            else
                P->term_pc[c[i + 1]] = c[i + 2];
            i += 4;
        } else if (c[i] == NODE_SELECT) {
            if (!in(c[i + 1], 0, 64) || !in(c[i + 2], 0, 256) || c[i + 2] + 5 > hi - i)
                ok = bad_program("a select node is invalid", i);
            i += 4 + (ok ? c[i + 2] + 1 : 0);
        } else {
            ok = bad_program("a node of unknown kind", i);
        }
    }
    /* second pass: every child is a node after its parent */
    for (int64_t i = lo; ok && i < hi;) {
        if (c[i] == NODE_TERMINAL) {
            i += 4;
            continue;
        }
        for (int64_t k = 0; ok && k <= c[i + 2]; k++) {
            int64_t child = c[i + 4 + k];
            if (!in(child, i + 1, hi) || !starts[child - lo])
                ok = bad_program("a child is not a later node", i);
        }
        i += 4 + c[i + 2] + 1;
    }
    for (int64_t t = 0; ok && t < ntypes; t++)
        if (!in(roots[t], lo, hi) || !starts[roots[t] - lo])
            ok = bad_program("a root is not a node", t);
    free(starts);
    return ok;
}

static int check_program(Program *P)
{
    const int64_t *c = P->code;
    int64_t n = P->length;
    if (n < N_HEADER || c[H_MAGIC] != PROGRAM_MAGIC || c[H_LENGTH] != n)
        return bad_program("not a program of this kernel's format", 0);
    P->type_lo = (uint64_t)c[H_TYPE_LO];
    P->type_mask = (uint64_t)c[H_TYPE_MASK];
    P->arg_type_lo = (uint64_t)c[H_ARG_TYPE_LO];
    P->arg_type_mask = (uint64_t)c[H_ARG_TYPE_MASK];
    P->arg_size_lo = (uint64_t)c[H_ARG_SIZE_LO];
    P->arg_size_mask = (uint64_t)c[H_ARG_SIZE_MASK];
    P->nvals = c[H_NVALS];
    P->npos = c[H_NPOS];
    P->narg_vals = c[H_NARG_VALS];
    P->narg_pos = c[H_NARG_POS];
    P->nterminals = c[H_NTERMINALS];
    P->inline_bit = (uint64_t)c[H_INLINE_BIT];
    P->max_string = (uint64_t)c[H_MAX_STRING];
    P->far = (uint64_t)c[H_FAR];
    if (P->type_lo > 63 || P->type_mask > 255 || P->arg_type_lo > 63 || P->arg_type_mask > 255
        || P->arg_size_lo > 63 || !in(P->nvals, 0, MAX_SLOTS + 1) || !in(P->npos, 0, MAX_SLOTS + 1)
        || !in(P->narg_vals, 0, MAX_ARG_VALS + 1) || !in(P->narg_pos, 0, MAX_ARG_POS + 1) || P->nterminals < 0
        || P->inline_bit == 0 || (P->inline_bit & (P->inline_bit - 1)) || P->inline_bit >> 62
        || P->far > ((uint64_t)1 << 60))
        return bad_program("a header value is out of range", 0);
    int64_t ntypes = (int64_t)P->type_mask + 1, nargs = (int64_t)P->arg_type_mask + 1;
    int64_t sizes = c[H_SIZES], roots = c[H_ROOTS], nodes = c[H_NODES], nodes_end = c[H_NODES_END];
    int64_t args = c[H_ARGS];
    if (!in(sizes, N_HEADER, n) || 2 * ntypes > n - sizes || !in(roots, N_HEADER, n) || ntypes > n - roots
        || !in(nodes, N_HEADER, n + 1) || !in(nodes_end, nodes, n + 1) || !in(args, N_HEADER, n)
        || 3 * nargs > n - args)
        return bad_program("a table lies outside the program", 0);
    P->sizes = c + sizes;
    P->roots = c + roots;
    P->args = c + args;
    for (int64_t t = 0; t < ntypes; t++)
        if (!in(P->sizes[2 * t], 0, 64))
            return bad_program("a size field is out of range", sizes + 2 * t);
    if (P->nterminals > n)
        return bad_program("more terminals than the program holds", 0);
    P->term_pc = PyMem_Malloc(sizeof(int64_t) * (size_t)(P->nterminals + 1));
    if (P->term_pc == NULL) {
        PyErr_NoMemory();
        return 0;
    }
    for (int64_t k = 0; k < P->nterminals; k++)
        P->term_pc[k] = -1;
    if (!check_nodes(P, nodes, nodes_end, P->roots, ntypes))
        return 0;
    for (int64_t t = 0; t < nargs; t++) {
        int64_t pc = P->args[3 * t];
        if (pc != -1 && !check_code(P, pc, 1))
            return 0;
    }
    return 1;
}

static void free_program(PyObject *capsule)
{
    Program *P = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (P != NULL) {
        PyMem_Free(P->term_pc);
        PyMem_Free(P->code);
        PyMem_Free(P);
    }
}

PyDoc_STRVAR(load_doc,
"load(program) -> capsule\n\n"
"Validate a program (a C-contiguous buffer of int64, from _kernel_program) and keep a copy\n"
"of it for scan(). Raises ValueError on a program that names anything outside itself.");

static PyObject *kernel_load(PyObject *Py_UNUSED(self), PyObject *arg)
{
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (b.len % 8 || b.len == 0) {
        PyBuffer_Release(&b);
        PyErr_SetString(PyExc_ValueError, "a program is a non-empty array of int64");
        return NULL;
    }
    Program *P = PyMem_Calloc(1, sizeof(Program));
    int64_t *code = PyMem_Malloc((size_t)b.len);
    if (P == NULL || code == NULL) {
        PyMem_Free(P);
        PyMem_Free(code);
        PyBuffer_Release(&b);
        return PyErr_NoMemory();
    }
    memcpy(code, b.buf, (size_t)b.len);
    P->code = code;
    P->length = b.len / 8;
    PyBuffer_Release(&b);
    if (!check_program(P)) {
        PyMem_Free(P->term_pc);
        PyMem_Free(code);
        PyMem_Free(P);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(P, CAPSULE_NAME, free_program);
    if (capsule == NULL) {
        PyMem_Free(P->term_pc);
        PyMem_Free(code);
        PyMem_Free(P);
    }
    return capsule;
}

/* ------------------------------------------------------------------------------------
 * Reading the trace: the only two places that touch its bytes.
 */
typedef struct {
    const Program *P;
    const unsigned char *buf;
    int64_t nwords;   /* whole words in the buffer */
    int swap;         /* the trace's byte order is not the host's */
    int utf8;         /* 1: validate UTF-8; 0: flag any byte >= 0x80 (the column engine's test) */
    int64_t *args;    /* argument rows of arg_columns each (ARG_ROW_HEAD, values, positions) */
    int64_t arg_columns, nargs, argcap;
    int64_t row;      /* the row being screened, as written in argument rows */
} Scan;

/* The word at p, if p lies before end (which never exceeds the buffer's words). */
static inline int word_in(const Scan *S, int64_t p, int64_t end, uint64_t *w)
{
    if (p < 0 || p >= end)
        return 0;
    memcpy(w, S->buf + 8 * p, 8);
    if (S->swap)
        *w = __builtin_bswap64(*w);
    return 1;
}

/* The n words from p, if they end by end. */
static inline const unsigned char *bytes_in(const Scan *S, int64_t p, uint64_t n, int64_t end)
{
    if (p < 0 || p > end || n > (uint64_t)(end - p))
        return NULL;
    return S->buf + 8 * p;
}

/* ------------------------------------------------------------------------------------
 * Text: the reference decodes with Python's strict UTF-8 decoder; this accepts exactly
 * what it accepts (Unicode Table 3-7: no overlong forms, no surrogates, nothing past
 * U+10FFFF).
 */
static int utf8_valid(const unsigned char *s, uint64_t n)
{
    uint64_t i = 0;
    while (i < n) {
        while (i + 8 <= n) {  /* ASCII runs eight bytes at a time */
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (w & 0x8080808080808080ULL)
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        unsigned need, lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF) {
            need = 1;
        } else if (c >= 0xE0 && c <= 0xEF) {
            need = 2;
            lo = c == 0xE0 ? 0xA0 : 0x80;
            hi = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            need = 3;
            lo = c == 0xF0 ? 0x90 : 0x80;
            hi = c == 0xF4 ? 0x8F : 0xBF;
        } else {
            return 0;
        }
        if (n - i <= need)
            return 0;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (unsigned k = 2; k <= need; k++)
            if ((s[i + k] & 0xC0) != 0x80)
                return 0;
        i += need + 1;
    }
    return 1;
}

/* No byte >= 0x80 in the n words at s (the column engine's plain-ASCII test). */
static int ascii_only(const unsigned char *s, uint64_t nw)
{
    uint64_t acc = 0;
    for (uint64_t i = 0; i < nw; i++) {
        uint64_t w;
        memcpy(&w, s + 8 * i, 8);
        acc |= w;
    }
    return (acc & 0x8080808080808080ULL) == 0;
}

/* The bits of a word (loaded in host order) holding its bytes from the tail-th on. */
#if PY_BIG_ENDIAN
#define BYTES_FROM(tail) (~0ULL >> (8 * (tail)))
#else
#define BYTES_FROM(tail) (~0ULL << (8 * (tail)))
#endif

/* A stream of len bytes at *p: it fits by end, its padding is zero, and text is within
 * the length limit, does not end in NUL (a counted C terminator) and decodes. */
static int stream_ok(const Scan *S, int64_t *p, int64_t end, uint64_t len, int text)
{
    const Program *P = S->P;
    if (len > P->far)
        return 0;
    uint64_t nw = (len + 7) >> 3;
    const unsigned char *b = bytes_in(S, *p, nw, end);
    if (b == NULL)
        return 0;
    if (len & 7) {  /* the last word's bytes after the stream: padding, zero */
        uint64_t last;
        memcpy(&last, b + 8 * (nw - 1), 8);
        if (last & BYTES_FROM(len & 7))
            return 0;
    }
    if (text) {
        if (len > P->max_string || (len && b[len - 1] == 0))
            return 0;
        /* the padding is zero, so whole words can be tested */
        if (!(S->utf8 ? utf8_valid(b, len) : ascii_only(b, nw)))
            return 0;
    }
    *p += (int64_t)nw;
    return 1;
}

/* ------------------------------------------------------------------------------------
 * The interpreter. run() returns 1 when the code ran to an end at exactly `end`, 0 when
 * the row is flagged: at the first check that fails, as nothing after it can unflag it.
 */
static int run(Scan *S, int64_t pc, uint64_t cur, int64_t p, int64_t end, uint64_t *vals, int64_t *pos);

/* The argument list at *pp: each argument's code runs on its own values and positions,
 * kept in its argument row (the caller drops the rows of a record it flags). When the
 * table is full the rows are only counted, and the caller scans again with room. */
static int walk_args(Scan *S, int64_t *pp, int64_t end, int counted, uint64_t count, int numeric_only)
{
    const Program *P = S->P;
    int64_t p = *pp;
    int64_t spare[ARG_ROW_HEAD + MAX_ARG_VALS + MAX_ARG_POS];
    for (uint64_t k = 0; counted ? k < count : p < end; k++) {
        uint64_t a;
        if (!word_in(S, p, end, &a))
            return 0;
        uint64_t t = (a >> P->arg_type_lo) & P->arg_type_mask;
        uint64_t n = (a >> P->arg_size_lo) & P->arg_size_mask;
        if (n == 0 || n > (uint64_t)(end - p))
            return 0;
        const int64_t *entry = P->args + 3 * t;  /* pc, allowed, numeric */
        if (entry[0] < 0 || !entry[1] || (numeric_only && !entry[2]))
            return 0;
        int64_t *row = S->nargs < S->argcap ? S->args + S->arg_columns * S->nargs : spare;
        row[0] = S->row;
        row[1] = (int64_t)k;
        row[2] = (int64_t)t;
        row[3] = p;
        memset(row + ARG_ROW_HEAD, 0, sizeof row[0] * (size_t)(P->narg_vals + P->narg_pos));
        if (!run(S, entry[0], a, p + 1, p + (int64_t)n, (uint64_t *)(row + ARG_ROW_HEAD),
                 row + ARG_ROW_HEAD + P->narg_vals))
            return 0;
        S->nargs++;
        p += (int64_t)n;
    }
    *pp = p;
    return 1;
}

/* Dispatch: GCC and clang jump from each instruction straight to the next one's code
 * (one indirect jump per instruction, each predicted on its own, as CPython's ceval
 * does); other compilers take the switch. load() checked every op, so both stay in range. */
#if defined(__GNUC__)
#define TARGET(op) case op: L_##op
#define NEXT() do { ins += 4; a = ins[1]; b = ins[2]; goto *targets[ins[0]]; } while (0)
#else
#define TARGET(op) case op
#define NEXT() { ins += 4; continue; }
#endif

static int run(Scan *S, int64_t pc, uint64_t cur, int64_t p, int64_t end, uint64_t *vals, int64_t *pos)
{
#if defined(__GNUC__)
    static const void *const targets[N_OPS] = {
        &&L_OP_END, &&L_OP_WORD, &&L_OP_STORE, &&L_OP_ZERO, &&L_OP_FIELD, &&L_OP_FIELDS, &&L_OP_CONST,
        &&L_OP_ENUM, &&L_OP_INLINE_WORD, &&L_OP_STRING, &&L_OP_STREAM, &&L_OP_ARGS, &&L_OP_LOGREF, &&L_OP_LESS,
        &&L_OP_EQUAL,
    };
#endif
    const Program *P = S->P;
    const int64_t *code = P->code;
    const int64_t *ins = code + pc;
    for (;;) {
        int64_t a = ins[1], b = ins[2];
        switch (ins[0]) {
        TARGET(OP_END):
            return p == end;
        TARGET(OP_WORD):
            if (!word_in(S, p, end, &cur))
                return 0;
            if (a >= 0)
                pos[a] = p;
            p++;
            NEXT();
        TARGET(OP_STORE):
            vals[a] = cur;
            NEXT();
        TARGET(OP_ZERO):
            if (cur & (uint64_t)a)
                return 0;
            NEXT();
        TARGET(OP_FIELD):
            vals[a] = (cur >> b) & (uint64_t)ins[3];
            NEXT();
        TARGET(OP_FIELDS):  /* a field instructions in one go: one dispatch, not a */
            for (const int64_t *f = ins + 4, *last = ins + 4 * a; f <= last; f += 4)
                vals[f[1]] = (cur >> f[2]) & (uint64_t)f[3];
            ins += 4 * a;
            NEXT();
        TARGET(OP_CONST):
            if (vals[a] != (uint64_t)b)
                return 0;
            NEXT();
        TARGET(OP_ENUM):
            if (vals[a] >= (uint64_t)ins[3] || !code[b + (int64_t)vals[a]])
                return 0;
            NEXT();
        TARGET(OP_INLINE_WORD):
            if (b >= 0)
                pos[b] = p;
            if (vals[a] == 0) {
                if (p >= end)
                    return 0;
                p++;
            }
            NEXT();
        TARGET(OP_STRING):
            if (b >= 0)
                pos[b] = p;
            if ((vals[a] & P->inline_bit) && !stream_ok(S, &p, end, vals[a] & (P->inline_bit - 1), 1))
                return 0;
            NEXT();
        TARGET(OP_STREAM):
            if (ins[3] >= 0)
                pos[ins[3]] = p;
            if (!stream_ok(S, &p, end, vals[a], (int)b))
                return 0;
            NEXT();
        TARGET(OP_ARGS):
            if (!walk_args(S, &p, end, a >= 0, a >= 0 ? vals[a] : 0, (int)b))
                return 0;
            NEXT();
        TARGET(OP_LOGREF):
            if (vals[a] != 0 && !(vals[a] & P->inline_bit))
                return 0;  /* a log's strings are inline only */
            if (b == LOG_NAME && (vals[a] == 0 || vals[a] == P->inline_bit))
                return 0;  /* and its arguments have names */
            NEXT();
        TARGET(OP_LESS):
            if (vals[a] < vals[b])
                return 0;
            NEXT();
        TARGET(OP_EQUAL):
            if (vals[a] == (uint64_t)b)
                return 0;
            NEXT();
        default:  /* unreachable: load() checked every op */
            return 0;
        }
    }
}

/* ------------------------------------------------------------------------------------
 * scan(): the header walk of fxtlint/engine/_scan.py (frame, scan_window), then each record
 * screened, its outputs grouped by terminal so that each group's columns are one
 * contiguous block (the Python side slices them, it does not gather).
 */
typedef struct {
    Py_buffer buf, starts, sizes, types, terms, order, counts, flags, vals, pos, args;
} Buffers;

static void release(Buffers *B)
{
    Py_buffer *all[] = {&B->buf, &B->starts, &B->sizes, &B->types, &B->terms, &B->order, &B->counts, &B->flags,
                        &B->vals, &B->pos, &B->args};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (all[i]->obj != NULL)
            PyBuffer_Release(all[i]);
}

static int aligned(const Py_buffer *b, const char *name, unsigned size)
{
    if ((uintptr_t)b->buf % size) {
        PyErr_Format(PyExc_ValueError, "%s is not %u-byte aligned", name, size);
        return 0;
    }
    return 1;
}

/* Phase 1: frame records from word *at while they start before wend, at most cap of
 * them; *at ends where framing stopped (the next record, or the header that stops it). */
static int64_t frame(const Scan *S, int64_t *at, int64_t wend, int64_t cap, int64_t *starts, int64_t *sizes,
                     int64_t *types, int32_t *terms, int *stop, int64_t *at_size)
{
    const Program *P = S->P;
    int64_t n = 0, i = *at;
    *stop = STOP_WINDOW;
    while (i < wend) {
        if (n == cap) {
            *stop = STOP_FULL;
            break;
        }
        uint64_t h = 0;
        if (i + PREFETCH_WORDS < S->nwords)
            PREFETCH(S->buf + 8 * (i + PREFETCH_WORDS));
        word_in(S, i, wend, &h);  /* i < wend <= nwords */
        uint64_t t = (h >> P->type_lo) & P->type_mask;
        uint64_t size = (h >> P->sizes[2 * t]) & (uint64_t)P->sizes[2 * t + 1];
        if (size == 0) {
            *stop = STOP_ZERO;
            break;
        }
        if (size > (uint64_t)(S->nwords - i)) {
            *stop = STOP_PAST_END;
            *at_size = (int64_t)size;
            break;
        }
        /* down the dispatch tree to a terminal (children come after parents: no cycle) */
        const int64_t *node = P->code + P->roots[t];
        for (int depth = 0; node[0] == NODE_SELECT && depth < MAX_DEPTH; depth++)
            node = P->code + node[4 + ((h >> node[1]) & (uint64_t)node[2])];
        starts[n] = i;
        sizes[n] = (int64_t)size;
        types[n] = (int64_t)t;
        terms[n] = node[0] == NODE_TERMINAL ? (int32_t)node[1] : -1;
        n++;
        i += (int64_t)size;
    }
    *at = i;
    return n;
}

/* Phase 2: group records by terminal with a counting sort (stable: file order within a
 * group; records without a terminal go last): order[position] = record. counts ends as
 * records per terminal. */
static void group(int64_t n, const int32_t *terms, int64_t nterminals, int64_t *order, int64_t *counts)
{
    memset(counts, 0, sizeof counts[0] * (size_t)nterminals);
    for (int64_t r = 0; r < n; r++)
        if (terms[r] >= 0)
            counts[terms[r]]++;
    int64_t next = 0;
    for (int64_t k = 0; k < nterminals; k++) {  /* counts -> first positions */
        int64_t c = counts[k];
        counts[k] = next;
        next += c;
    }
    for (int64_t r = 0; r < n; r++)
        order[terms[r] >= 0 ? counts[terms[r]]++ : next++] = r;
    for (int64_t k = nterminals - 1; k > 0; k--)  /* positions after each group -> counts */
        counts[k] -= counts[k - 1];
}

/* Phase 3: screen each record, position by position, so that each group's columns and
 * argument refs come out as one block. (Screening in file order instead, writing at each
 * record's position, measured no faster.) */
static void screen(Scan *S, int64_t n, const int64_t *order, const int64_t *starts, const int64_t *sizes,
                   const int32_t *terms, uint8_t *flags, uint64_t *vals, int64_t *pos)
{
    const Program *P = S->P;
    for (int64_t k = 0; k < n; k++) {
        int64_t r = order[k];
        int clean = 0;
        if (k + PREFETCH_RECORDS < n)
            PREFETCH(S->buf + 8 * starts[order[k + PREFETCH_RECORDS]]);
        int64_t pc = terms[r] >= 0 ? P->term_pc[terms[r]] : -1;
        if (pc >= 0) {
            uint64_t h = 0;
            word_in(S, starts[r], S->nwords, &h);
            int64_t mark = S->nargs;
            S->row = k;
            clean = run(S, pc, h, starts[r] + 1, starts[r] + sizes[r], vals + k * P->nvals, pos + k * P->npos);
            if (!clean)
                S->nargs = mark;  /* argument rows are kept for clean records only */
        }
        flags[k] = !clean;
    }
}

PyDoc_STRVAR(scan_doc,
"scan(program, buf, big, utf8, start, window_end,\n"
"     starts, sizes, types, terms, order, counts, flags, vals, pos, args) -> (n, nargs, stop, at, at_size)\n\n"
"Frame records from word `start` of `buf` while a record starts before word `window_end`,\n"
"at most as many as the outputs hold, then screen each. Outputs (writable, C-contiguous),\n"
"cap = their capacity in records:\n"
"  by record, in file order: starts, sizes, types int64[cap]; terms int32[cap] (terminal\n"
"    ordinal, -1 if the dispatch tree is deeper than the kernel walks);\n"
"  grouped by terminal (ordinal ascending, file order within): order int64[cap] (the record\n"
"    of each position), counts int64[nterminals] (positions per terminal); flags uint8[cap]\n"
"    (1: not proven clean; always 1 for terminals without code), vals uint64[cap, nvals],\n"
"    pos int64[cap, npos]; args int64[argcap, 4 + narg_vals + narg_pos]: a row per argument\n"
"    of a clean record, in position order: (position, argument index, argument type, header\n"
"    word, its values (uint64 bits), its word positions), slots as _kernel_program.ArgLeaf.\n"
"The scan may start at any word (a walk that resynchronises frames anew from there).\n"
"stop: 0 the window is done (at: the next record), 1 outputs full (at: the next record),\n"
"2 a size of 0 at word `at`, 3 the record at word `at` (at_size words) ends past the buffer,\n"
"4 args full: nargs is the capacity needed; call again with a larger args (n records were\n"
"framed, their screen is incomplete).");

static PyObject *kernel_scan(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *capsule;
    int big, utf8;
    Py_ssize_t start, window_end;
    Buffers B;
    memset(&B, 0, sizeof B);
    /* Every argument is converted here, before any is checked: the only calls that can run the
     * caller's code ("p"'s __bool__, "n"'s __index__, a buffer's exporter) are this parse's, and
     * the buffers it takes stay exported (so unresized) until release(). */
    if (!PyArg_ParseTuple(args, "Oy*ppnnw*w*w*w*w*w*w*w*w*w*:scan", &capsule, &B.buf, &big, &utf8, &start,
                          &window_end, &B.starts, &B.sizes, &B.types, &B.terms, &B.order, &B.counts, &B.flags,
                          &B.vals, &B.pos, &B.args)) {
        release(&B);
        return NULL;
    }
    Program *P = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (P == NULL || !aligned(&B.starts, "starts", 8) || !aligned(&B.sizes, "sizes", 8)
        || !aligned(&B.types, "types", 8) || !aligned(&B.terms, "terms", 4) || !aligned(&B.order, "order", 8)
        || !aligned(&B.counts, "counts", 8) || !aligned(&B.vals, "vals", 8) || !aligned(&B.pos, "pos", 8)
        || !aligned(&B.args, "args", 8)) {
        release(&B);
        return NULL;
    }
    if (start < 0 || B.counts.len / 8 < P->nterminals) {
        release(&B);
        PyErr_SetString(PyExc_ValueError, "start is negative, or counts holds fewer than nterminals");
        return NULL;
    }
    int64_t cap = B.starts.len / 8;
    if (B.sizes.len / 8 < cap) cap = B.sizes.len / 8;
    if (B.types.len / 8 < cap) cap = B.types.len / 8;
    if (B.terms.len / 4 < cap) cap = B.terms.len / 4;
    if (B.order.len / 8 < cap) cap = B.order.len / 8;
    if (B.flags.len < cap) cap = B.flags.len;
    if (P->nvals && B.vals.len / (8 * P->nvals) < cap) cap = B.vals.len / (8 * P->nvals);
    if (P->npos && B.pos.len / (8 * P->npos) < cap) cap = B.pos.len / (8 * P->npos);

    int64_t arg_columns = ARG_ROW_HEAD + P->narg_vals + P->narg_pos;
    Scan S = {P, B.buf.buf, B.buf.len / 8, big != PY_BIG_ENDIAN, utf8, B.args.buf, arg_columns, 0,
              B.args.len / (8 * arg_columns), 0};
    int64_t wend = window_end < S.nwords ? window_end : S.nwords;
    int64_t n, at = start, at_size = 0;
    int stop;
    Py_BEGIN_ALLOW_THREADS
    n = frame(&S, &at, wend, cap, B.starts.buf, B.sizes.buf, B.types.buf, B.terms.buf, &stop, &at_size);
    group(n, B.terms.buf, P->nterminals, B.order.buf, B.counts.buf);
    screen(&S, n, B.order.buf, B.starts.buf, B.sizes.buf, B.terms.buf, B.flags.buf, B.vals.buf, B.pos.buf);
    Py_END_ALLOW_THREADS
    if (S.nargs > S.argcap)
        stop = STOP_ARGS_FULL;
    release(&B);
    return Py_BuildValue("(LLiLL)", (long long)n, (long long)S.nargs, stop, (long long)at, (long long)at_size);
}

static PyObject *names_tuple(const char *const *names, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t != NULL && i < n; i++) {
        PyObject *s = PyUnicode_FromString(names[i]);
        if (s == NULL) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

static PyMethodDef methods[] = {
    {"load", kernel_load, METH_O, load_doc},
    {"scan", kernel_scan, METH_VARARGS, scan_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fxtlint.engine._kernel",
    "The native screen: frames FXT records and screens each with a program compiled from the spec tables.",
    -1, methods, NULL, NULL, NULL, NULL,
};

/* Add a new reference under name, and drop it (PyModule_Add of Python 3.13). */
static int add(PyObject *m, const char *name, PyObject *value)
{
    int r = value == NULL ? -1 : PyModule_AddObjectRef(m, name, value);
    Py_XDECREF(value);
    return r;
}

PyMODINIT_FUNC PyInit__kernel(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (add(m, "OPS", names_tuple(OP_NAMES, N_OPS)) < 0
        || add(m, "HEADER", names_tuple(HEADER_NAMES, N_HEADER)) < 0
        || PyModule_AddIntConstant(m, "ARG_ROW_HEAD", ARG_ROW_HEAD) < 0
        || PyModule_AddIntConstant(m, "MAX_ARG_VALS", MAX_ARG_VALS) < 0
        || PyModule_AddIntConstant(m, "MAX_ARG_POS", MAX_ARG_POS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
