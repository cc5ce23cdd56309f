/* One pairing row as the native walk writes it and the compiled pairing engine reads it
 * (_nwalk.pyx, _npairing.pyx): _pairing.COLUMNS in their order, then the reading rate
 * (spec/_time.reading_rate: a rate of 0 is read at 1 GHz). Plain C, no CPython API: the
 * walk hands a window's rows to the engine as one block of these. */
#ifndef FXTLINT_PAIRROW_H
#define FXTLINT_PAIRROW_H

#include <stdint.h>

typedef struct fxt_pair_row {
    int64_t kind, thread;
    uint64_t process;
    int64_t cat, name;
    uint64_t ts, id, end;
    int64_t offset, index, size;
    uint64_t rate, rr;
} fxt_pair_row;

/* the rate an instant is read at (spec/_time.reading_rate) */
static inline uint64_t fxt_reading_rate(uint64_t rate) { return rate ? rate : 1000000000ULL; }

#endif
