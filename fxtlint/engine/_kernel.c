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
#include "_screen.h"  /* the program, its validation and its interpreter (_screen.c) */


static const char *const *const OP_NAMES = SCREEN_OP_NAMES;
static const char *const *const HEADER_NAMES = SCREEN_HEADER_NAMES;

#define CAPSULE_NAME "fxtlint.engine._kernel.program"

static void free_program(PyObject *capsule)
{
    Program *P = PyCapsule_GetPointer(capsule, CAPSULE_NAME);
    if (P != NULL) {
        screen_free(P);
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
    if (P == NULL) {
        PyBuffer_Release(&b);
        return PyErr_NoMemory();
    }
    int ok = screen_load(P, b.buf, b.len / 8);
    PyBuffer_Release(&b);
    if (!ok) {
        if (P->nomem)
            PyErr_NoMemory();
        else
            PyErr_Format(PyExc_ValueError, "invalid kernel program: %s (at %lld)", P->error, (long long)P->error_at);
        PyMem_Free(P);
        return NULL;
    }
    PyObject *capsule = PyCapsule_New(P, CAPSULE_NAME, free_program);
    if (capsule == NULL) {
        screen_free(P);
        PyMem_Free(P);
    }
    return capsule;
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

/* The output buffers are the kernel's to write and then read back (order indexes starts,
 * sizes and terms): two that share a byte would let one write change what another was
 * trusted to hold, so they must not overlap one another or the trace. */
static int apart(Buffers *B)
{
    Py_buffer *all[] = {&B->buf, &B->starts, &B->sizes, &B->types, &B->terms, &B->order, &B->counts, &B->flags,
                        &B->vals, &B->pos, &B->args};
    size_t n = sizeof all / sizeof all[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            const char *a = all[i]->buf, *b = all[j]->buf;
            if (all[i]->len > 0 && all[j]->len > 0 && a < b + all[j]->len && b < a + all[i]->len) {
                PyErr_SetString(PyExc_ValueError, "scan's buffers overlap: each must be its own memory");
                return 0;
            }
        }
    return 1;
}

static int aligned(const Py_buffer *b, const char *name, unsigned size)
{
    if ((uintptr_t)b->buf % size) {
        PyErr_Format(PyExc_ValueError, "%s is not %u-byte aligned", name, size);
        return 0;
    }
    return 1;
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
        || !aligned(&B.args, "args", 8) || !apart(&B)) {
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
              B.args.len / (8 * arg_columns), 0, NULL, 0, 0, -1, 0};  /* found NULL: flag at the first check */
    int64_t wend = window_end < S.nwords ? window_end : S.nwords;
    int64_t n, at = start, at_size = 0;
    int stop;
    Py_BEGIN_ALLOW_THREADS
    n = screen_frame(&S, &at, wend, cap, B.starts.buf, B.sizes.buf, B.types.buf, B.terms.buf, &stop, &at_size);
    screen_group(n, B.terms.buf, P->nterminals, B.order.buf, B.counts.buf);
    screen_screen(&S, n, B.order.buf, B.starts.buf, B.sizes.buf, B.terms.buf, B.flags.buf, B.vals.buf, B.pos.buf);
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
