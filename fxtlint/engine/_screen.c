/*
 * The screen (see _screen.h): the program's validation and its interpreter, in plain C,
 * compiled into the native walk (_nwalk.pyx). (It was the native kernel's, _kernel.c,
 * before the walk; the kernel and its phases over a window went with the column engine.)
 */
#include <stdlib.h>
#include "_screen.h"

/* ------------------------------------------------------------------------------------
 * Loading a program: check every index it holds once, so the interpreter needs no
 * checks on the program itself (only on the trace).
 */
static int in(int64_t v, int64_t lo, int64_t hi) { return v >= lo && v < hi; }

static int bad_program(const Program *P, const char *why, int64_t at)
{
    Program *Q = (Program *)P;  /* the error fields are the one thing a check writes */
    Q->error = why;
    Q->error_at = at;
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
            return bad_program(P, "an instruction's operands are out of range", pc);
    }
    return bad_program(P, "a code run has no end", pc);
}

/* The dispatch tree: nodes in preorder, each child after its parent, so it has no cycle;
 * every root (one per record type, ntypes of them from roots) is a node. */
static int check_nodes(Program *P, int64_t lo, int64_t hi, const int64_t *roots, int64_t ntypes)
{
    const int64_t *c = P->code;
    char *starts = calloc((size_t)(hi - lo) + 1, 1);
    int ok = 1;
    if (starts == NULL) {
        P->nomem = 1;
        return bad_program(P, "out of memory", 0);
    }
    /* first pass: where nodes start, and each node's own fields */
    for (int64_t i = lo; ok && i < hi;) {
        if (i + 4 > hi) {
            ok = bad_program(P, "a node runs past the node table", i);
            break;
        }
        starts[i - lo] = 1;
        if (c[i] == NODE_TERMINAL) {
            if (!in(c[i + 1], 0, P->nterminals) || (c[i + 2] != -1 && !check_code(P, c[i + 2], 0)))
                ok = P->error != NULL ? 0 : bad_program(P, "a terminal is invalid", i);
            else
                P->term_pc[c[i + 1]] = c[i + 2];
            i += 4;
        } else if (c[i] == NODE_SELECT) {
            if (!in(c[i + 1], 0, 64) || !in(c[i + 2], 0, 256) || c[i + 2] + 5 > hi - i)
                ok = bad_program(P, "a select node is invalid", i);
            i += 4 + (ok ? c[i + 2] + 1 : 0);
        } else {
            ok = bad_program(P, "a node of unknown kind", i);
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
                ok = bad_program(P, "a child is not a later node", i);
        }
        i += 4 + c[i + 2] + 1;
    }
    for (int64_t t = 0; ok && t < ntypes; t++)
        if (!in(roots[t], lo, hi) || !starts[roots[t] - lo])
            ok = bad_program(P, "a root is not a node", t);
    free(starts);
    return ok;
}

static int check_program(Program *P)
{
    const int64_t *c = P->code;
    int64_t n = P->length;
    if (n < N_HEADER || c[H_MAGIC] != PROGRAM_MAGIC || c[H_LENGTH] != n)
        return bad_program(P, "not a program of this screen's format", 0);
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
        return bad_program(P, "a header value is out of range", 0);
    int64_t ntypes = (int64_t)P->type_mask + 1, nargs = (int64_t)P->arg_type_mask + 1;
    int64_t sizes = c[H_SIZES], roots = c[H_ROOTS], nodes = c[H_NODES], nodes_end = c[H_NODES_END];
    int64_t args = c[H_ARGS];
    if (!in(sizes, N_HEADER, n) || 2 * ntypes > n - sizes || !in(roots, N_HEADER, n) || ntypes > n - roots
        || !in(nodes, N_HEADER, n + 1) || !in(nodes_end, nodes, n + 1) || !in(args, N_HEADER, n)
        || 3 * nargs > n - args)
        return bad_program(P, "a table lies outside the program", 0);
    P->sizes = c + sizes;
    P->roots = c + roots;
    P->args = c + args;
    for (int64_t t = 0; t < ntypes; t++)
        if (!in(P->sizes[2 * t], 0, 64))
            return bad_program(P, "a size field is out of range", sizes + 2 * t);
    if (P->nterminals > n)
        return bad_program(P, "more terminals than the program holds", 0);
    P->term_pc = malloc(sizeof(int64_t) * (size_t)(P->nterminals + 1));
    if (P->term_pc == NULL) {
        P->nomem = 1;
        return bad_program(P, "out of memory", 0);
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


int screen_load(Program *P, const int64_t *code, int64_t length)
{
    P->error = NULL;
    P->code = NULL;
    P->term_pc = NULL;
    if (length <= 0)
        return bad_program(P, "a program is a non-empty array of int64", 0);
    P->code = malloc(sizeof(int64_t) * (size_t)length);
    if (P->code == NULL) {
        P->nomem = 1;
        return bad_program(P, "out of memory", 0);
    }
    memcpy(P->code, code, sizeof(int64_t) * (size_t)length);
    P->length = length;
    if (!check_program(P)) {
        const char *why = P->error;
        int64_t at = P->error_at;
        screen_free(P);
        P->error = why;
        P->error_at = at;
        return 0;
    }
    return 1;
}

void screen_free(Program *P)
{
    free(P->term_pc);
    free(P->code);
    P->term_pc = NULL;
    P->code = NULL;
}

/* ------------------------------------------------------------------------------------
 * Reading the trace: the only two places that touch its bytes.
 */


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
        if (n - i < 8) {  /* the last bytes of an ASCII run, in one word (a short text: all of it) */
            uint64_t w = 0;
            memcpy(&w, s + i, (size_t)(n - i));
            if (!(w & 0x8080808080808080ULL))
                break;
        }
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

/* The bits of a word (loaded in host order) holding its bytes from the tail-th on. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTES_FROM(tail) (~0ULL >> (8 * (tail)))
#else
#define BYTES_FROM(tail) (~0ULL << (8 * (tail)))
#endif

/* A stream of len bytes at *p: 0 when it does not fit by end (or is longer than far),
 * else 1 with *p after it and *bad the problems the reference reports and reads on from:
 * padding not zero, and for text a length over the limit, a counted NUL, invalid UTF-8.
 * In flagging mode (S->found NULL: the walk's recovery reading) it stops at the first problem. */
static int stream_check(const Scan *S, int64_t *p, int64_t end, uint64_t len, int text, int *bad)
{
    const Program *P = S->P;
    *bad = 0;
    if (len > P->far)
        return 0;
    uint64_t nw = (len + 7) >> 3;
    const unsigned char *b = bytes_in(S, *p, nw, end);
    if (b == NULL)
        return 0;
    if (len & 7) {  /* the last word's bytes after the stream: padding, zero */
        uint64_t last;
        memcpy(&last, b + 8 * (nw - 1), 8);
        if (last & BYTES_FROM(len & 7)) {
            *bad |= BAD_PADDING;
            if (S->found == NULL)
                return 1;
        }
    }
    if (text) {
        if (len > P->max_string)
            *bad |= BAD_LONG;
        if (len && b[len - 1] == 0)
            *bad |= BAD_NUL;
        if (*bad && S->found == NULL)
            return 1;
        if (!utf8_valid(b, len))
            *bad |= BAD_UTF8;
    }
    *p += (int64_t)nw;
    return 1;
}

/* A finding row (lint mode): written while the table has room, counted always. */
static void note(Scan *S, int64_t kind, int64_t pc, int64_t pos, int64_t value, int64_t mask, int64_t arg)
{
    if (kind == FOUND_FIELDS) {
        if (pos == S->fields_at)
            return;  /* the word's field checks are one row */
        S->fields_at = pos;
    }
    if (S->nfound < S->foundcap) {
        int64_t *row = S->found + FOUND_COLUMNS * S->nfound;
        row[0] = kind;
        row[1] = pc;
        row[2] = pos;
        row[3] = value;
        row[4] = mask;
        row[5] = arg;
    }
    S->nfound++;
}

/* Lint mode: the content runs past its end at pos (the item at pc: its length, count or
 * reference in value; arg, the argument whose header is there, or -1), the row's last; the
 * flagging mode writes nothing. */
static void over(Scan *S, int64_t pc, int64_t pos, int64_t value, int64_t arg)
{
    if (S->found != NULL)
        note(S, FOUND_OVER, pc, pos, value, 0, arg);
}

/* A string or stream item of n units at *pp (text: its bytes are text), read past:
 * 0 when it runs past end (lint mode: a row saying where) or, in flagging mode,
 * when its content fails a check (lint mode: a FOUND_STREAM row, and the screen goes on);
 * value: the item's length field as the row reports it. */
static int stream_item(Scan *S, int64_t pc, int64_t *pp, int64_t end, uint64_t n, int text, int64_t value)
{
    int64_t at = *pp;
    int bad;
    if (!stream_check(S, pp, end, n, text, &bad)) {
        over(S, pc, at, value, -1);
        return 0;
    }
    if (bad) {
        if (S->found == NULL)
            return 0;
        note(S, FOUND_STREAM, pc, at, value, bad, -1);
    }
    return 1;
}

/* ------------------------------------------------------------------------------------
 * The interpreter. run() returns 1 when the code ran to an end at exactly `end`, 0 when
 * the row is flagged: at the first check that fails, as nothing after it can unflag it.
 */


/* The argument row of argument k (type t, header word at p) of the row being screened: the
 * next one of the table, or `spare` when the table is full (the row is only counted); its
 * head written, its values and positions zeroed. */
static int64_t *arg_row(Scan *S, int64_t *spare, int64_t k, int64_t t, int64_t p)
{
    const Program *P = S->P;
    int64_t *row = S->nargs < S->argcap ? S->args + S->arg_columns * S->nargs : spare;
    row[0] = S->row;
    row[1] = k;
    row[2] = t;
    row[3] = p;
    memset(row + ARG_ROW_HEAD, 0, sizeof row[0] * (size_t)(P->narg_vals + P->narg_pos));
    return row;
}

/* The argument list at *pp (the args instruction at pc): each argument's code runs on its
 * own values and positions, kept in its argument row (the caller drops the rows of a record
 * it flags). When the table is full the rows are only counted, and the caller scans again
 * with room. */
static int walk_args(Scan *S, int64_t pc, int64_t *pp, int64_t end, int counted, uint64_t count, int numeric_only)
{
    const Program *P = S->P;
    int64_t p = *pp;
    int64_t spare[ARG_ROW_HEAD + MAX_ARG_VALS + MAX_ARG_POS];
    for (uint64_t k = 0; counted ? k < count : p < end; k++) {
        uint64_t a;
        /* a header past the end, a size of 0 or past the end: the reader stops there */
        if (!word_in(S, p, end, &a)) {
            over(S, pc, p, counted ? (int64_t)count : -1, (int64_t)k);
            return 0;
        }
        uint64_t t = (a >> P->arg_type_lo) & P->arg_type_mask;
        uint64_t n = (a >> P->arg_size_lo) & P->arg_size_mask;
        if (n == 0 || n > (uint64_t)(end - p)) {
            over(S, pc, p, counted ? (int64_t)count : -1, (int64_t)k);
            return 0;
        }
        const int64_t *entry = P->args + 3 * t;  /* pc, allowed, numeric */
        if (S->found != NULL) {
            /* lint mode: an undefined or (in a log) not allowed type, and anything wrong inside
             * the argument (its fields, its text, its size: the reader reads on after it; a
             * log's string refs and name) is one row, the argument's, which the reference's
             * argument decoder renders; a counter's argument that is not numeric is a row of
             * its own (EV001, a semantic check: rendered after the record's refs) */
            int64_t mark = S->nfound, keep = S->fields_at;
            int bad = entry[0] < 0 || !entry[1];
            if (entry[0] >= 0) {
                int64_t *row = arg_row(S, spare, (int64_t)k, (int64_t)t, p);
                if (!screen_run(S, entry[0], a, p + 1, p + (int64_t)n, (uint64_t *)(row + ARG_ROW_HEAD),
                                row + ARG_ROW_HEAD + P->narg_vals))
                    bad = 1;
                S->nargs++;  /* its fields are read: its refs are checked */
            }
            if (bad || S->nfound != mark) {
                S->nfound = mark;
                S->fields_at = keep;
                note(S, FOUND_ARG, -1, p, (int64_t)t, 0, (int64_t)k);
            }
            if (numeric_only && !entry[2])
                note(S, FOUND_NUMERIC, -1, p, (int64_t)t, 0, (int64_t)k);
            p += (int64_t)n;
            continue;
        }
        if (entry[0] < 0 || !entry[1] || (numeric_only && !entry[2]))
            return 0;
        int64_t *row = arg_row(S, spare, (int64_t)k, (int64_t)t, p);
        if (!screen_run(S, entry[0], a, p + 1, p + (int64_t)n, (uint64_t *)(row + ARG_ROW_HEAD),
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

int screen_run(Scan *S, int64_t pc, uint64_t cur, int64_t p, int64_t end, uint64_t *vals, int64_t *pos)
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
            S->end_at = p;
            if (p < end && S->found != NULL) {  /* words after the content: the reader reads on */
                note(S, FOUND_END, ins - code, p, 0, 0, -1);
                return 1;
            }
            return p == end;
        TARGET(OP_WORD):
            if (!word_in(S, p, end, &cur)) {
                over(S, ins - code, p, 0, -1);
                return 0;
            }
            if (a >= 0)
                pos[a] = p;
            p++;
            NEXT();
        TARGET(OP_STORE):
            vals[a] = cur;
            NEXT();
        TARGET(OP_ZERO):
            if (cur & (uint64_t)a) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_FIELDS, ins - code, p - 1, 0, 0, -1);
            }
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
            if (vals[a] != (uint64_t)b) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_FIELDS, ins - code, p - 1, 0, 0, -1);
            }
            NEXT();
        TARGET(OP_ENUM):
            if (vals[a] >= (uint64_t)ins[3] || !code[b + (int64_t)vals[a]]) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_FIELDS, ins - code, p - 1, 0, 0, -1);
            }
            NEXT();
        TARGET(OP_INLINE_WORD):
            if (b >= 0)
                pos[b] = p;
            if (vals[a] == 0) {
                if (p >= end) {
                    over(S, ins - code, p, 0, -1);
                    return 0;
                }
                p++;
            }
            NEXT();
        TARGET(OP_STRING):
            if (b >= 0)
                pos[b] = p;
            if ((vals[a] & P->inline_bit)
                && !stream_item(S, ins - code, &p, end, vals[a] & (P->inline_bit - 1), 1, (int64_t)vals[a]))
                return 0;
            NEXT();
        TARGET(OP_STREAM):
            if (ins[3] >= 0)
                pos[ins[3]] = p;
            if (!stream_item(S, ins - code, &p, end, vals[a], (int)b, (int64_t)vals[a]))
                return 0;
            NEXT();
        TARGET(OP_ARGS):
            if (!walk_args(S, ins - code, &p, end, a >= 0, a >= 0 ? vals[a] : 0, (int)b))
                return 0;
            NEXT();
        TARGET(OP_LOGREF):
            /* a log's strings are inline only, and its arguments have names; in lint mode a
             * row inside the argument (its row, the argument's: the reference's decoder says
             * all of it, SL005 and SL006 with the rest) */
            if ((vals[a] != 0 && !(vals[a] & P->inline_bit))
                || (b == LOG_NAME && (vals[a] == 0 || vals[a] == P->inline_bit))) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_ARG, ins - code, p, 0, 0, -1);
            }
            NEXT();
        TARGET(OP_LESS):
            if (vals[a] < vals[b]) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_KIND, ins - code, p, (int64_t)vals[a], (int64_t)vals[b], -1);
            }
            NEXT();
        TARGET(OP_EQUAL):
            if (vals[a] == (uint64_t)b) {
                if (S->found == NULL)
                    return 0;
                note(S, FOUND_KIND, ins - code, p, (int64_t)vals[a], 0, -1);
            }
            NEXT();
        default:  /* unreachable: load() checked every op */
            return 0;
        }
    }
}
