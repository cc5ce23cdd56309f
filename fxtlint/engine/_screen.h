/*
 * The screen: the interpreter of the program fxtlint/engine/_kernel_program.py compiles from
 * the spec tables, in plain C (no CPython API), compiled into the native walk (_nwalk.pyx),
 * so that a harness can fuzz it on its own.
 *
 * screen_load validates a program once (every index, slot and table it names lies inside
 * it) and keeps a copy; screen_run screens one record (or argument) with it. Every read of
 * the trace goes through word_in()/bytes_in(), which check the position against the
 * record's end; a record's end is checked against the buffer when the walk frames it.
 */
#ifndef FXTLINT_SCREEN_H
#define FXTLINT_SCREEN_H
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -- the instruction set: _kernel_program.OPS lists the same names in this order -- */
enum {
    OP_END, OP_WORD, OP_STORE, OP_ZERO, OP_FIELD, OP_FIELDS, OP_CONST, OP_ENUM, OP_INLINE_WORD,
    OP_STRING, OP_STREAM, OP_ARGS, OP_LOGREF, OP_LESS, OP_EQUAL, N_OPS
};
static const char *const SCREEN_OP_NAMES[N_OPS] = {
    "end", "word", "store", "zero", "field", "fields", "const", "enum", "inline_word",
    "string", "stream", "args", "logref", "less", "equal",
};

/* -- the program header: _kernel_program.HEADER lists the same names in this order -- */
enum {
    H_MAGIC, H_LENGTH, H_TYPE_LO, H_TYPE_MASK, H_ARG_TYPE_LO, H_ARG_TYPE_MASK, H_ARG_SIZE_LO,
    H_ARG_SIZE_MASK, H_NVALS, H_NPOS, H_NARG_VALS, H_NARG_POS, H_INLINE_BIT, H_MAX_STRING, H_FAR,
    H_SIZES, H_ROOTS, H_NODES, H_NODES_END, H_ARGS, H_NTERMINALS, N_HEADER
};
static const char *const SCREEN_HEADER_NAMES[N_HEADER] = {
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


typedef struct {
    int64_t *code;  /* the validated program: our own copy */
    int64_t length;
    uint64_t type_lo, type_mask, arg_type_lo, arg_type_mask, arg_size_lo, arg_size_mask;
    int64_t nvals, npos, narg_vals, narg_pos, nterminals;
    uint64_t inline_bit, max_string, far;
    const int64_t *sizes, *roots, *args;
    int64_t *term_pc;  /* per terminal ordinal: its code, -1 for rows that are only framed */
    const char *error;  /* why load failed (NULL: it did not), and where */
    int64_t error_at;
    int nomem;  /* load failed for want of memory */
} Program;


typedef struct {
    const Program *P;
    const unsigned char *buf;
    int64_t nwords;   /* whole words in the buffer */
    int64_t nbytes;   /* the buffer's bytes (a last word may be partial) */
    int swap;         /* the trace's byte order is not the host's */
    int64_t *args;    /* argument rows of arg_columns each (ARG_ROW_HEAD, values, positions) */
    int64_t arg_columns, nargs, argcap;
    int64_t row;      /* the row being screened, as written in argument rows */
    /* Lint mode (the native walk; NULL: flagging mode, the first check that fails
     * flags the row): a check the reference reader reports and reads on from is written as a
     * finding row of FOUND_COLUMNS (FOUND_HEAD: kind, pc, position, value, mask, argument) and
     * the screen goes on where the reader goes on; a kind check that holds is a row
     * (FOUND_KIND: its two values), and so is a counter's argument that is not numeric
     * (FOUND_NUMERIC: its type), both rendered after the record's semantic rows. Only
     * content past the record (a word, a text, an argument's header, or an argument size
     * of 0 or past the record: where the reader stops decoding it) still flags the row,
     * its last row saying where (FOUND_OVER: the item's pc, position, its length, count
     * or reference, the argument). When the table is full the rows are only counted. */
    int64_t *found;
    int64_t nfound, foundcap;
    int64_t fields_at;  /* the word whose field checks were last written (one row a word) */
    int64_t end_at;     /* where the content ended at the last `end` run: the record's, after
                           its arguments' (what the native walk frames a short record by) */
} Scan;

/* A finding row's kind (lint mode). FOUND_SHORT is the native walk's own row (a record
 * framed anew at its content's end), never the screen's. */
enum { FOUND_FIELDS = 1, FOUND_STREAM = 2, FOUND_END = 3, FOUND_ARG = 4, FOUND_KIND = 5, FOUND_OVER = 6,
       FOUND_NUMERIC = 7, FOUND_SHORT = 8 };
#define FOUND_COLUMNS 6
/* a stream's problems (a FOUND_STREAM row's mask) */
enum { BAD_PADDING = 1, BAD_LONG = 2, BAD_NUL = 4, BAD_UTF8 = 8 };

/* Validate the program code[0..length) and keep a copy in *P (zeroed by the caller).
 * 1 on success; 0 with P->error (and P->error_at, or P->nomem) set, nothing kept. */
int screen_load(Program *P, const int64_t *code, int64_t length);
/* Free what screen_load kept (safe on a zeroed or failed Program). */
void screen_free(Program *P);
/* Screen from pc: 1 when the code ran to an end at exactly `end`, 0 when the row is flagged. */
int screen_run(Scan *S, int64_t pc, uint64_t cur, int64_t p, int64_t end, uint64_t *vals, int64_t *pos);
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

#ifdef __cplusplus
}
#endif
#endif
