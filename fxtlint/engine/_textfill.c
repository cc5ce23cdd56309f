/*
 * fxtlint.engine._textfill: the rows of a JSON text template, written straight into bytes.
 *
 * The export and the canonical decoding write each row of a batch as a template (fixed
 * texts) with columns in its slots (fxtlint/engine/_jsontext.py). The pure path builds a
 * str per row and joins them; this writes every row of a batch into one UTF-8 buffer,
 * each followed by a row end (",\n" between JSON array items), and returns the buffer and
 * where each row ends: no Python object per row. fill_rows() writes the rows of several
 * templates in any order in one pass (a batch's kinds in file order); gather() copies rows of
 * buffers already written into one, in any order (a table's order).
 *
 * Slot forms (a tuple, its first item the tag):
 *   (TEXTS, list of str)                     row i: the list's item i (None: no text, for a
 *                                            row the caller drops)
 *   (CODED, codes int64[n], list of str)     row i: table[codes[i]]
 *   (CODED_ROWS, codes int64[n], (bytes, ends int64[m]))
 *                                            row i: row codes[i] of a buffer this module wrote
 *   (SIGNED, int64[n]) / (UNSIGNED, uint64[n])
 *                                            row i: the integer in decimal
 *
 * Memory safety: every length, code and row end is checked against what it indexes before
 * anything is read or written; a bad one raises ValueError. The output grows as needed, so a
 * row of any length fits. A call takes all its arguments first, then checks them, then writes:
 * whatever can run the caller's Python code (an int's __index__ for a form or a count, a
 * buffer's exporter) runs while taking, and what that code could change afterwards is either
 * held where it cannot (the lists' items copied into tuples of our own) or checked only once
 * nothing of the caller's runs any more (the contents of the columns and row ends). So no
 * argument is checked and then changed before it is used.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

enum { TEXTS, CODED, CODED_ROWS, SIGNED, UNSIGNED, N_FORMS };

/* -- a growing output buffer: the bytes object returned, resized in place (no last copy) -- */
typedef struct {
    PyObject *obj; /* a bytes object of cap bytes, or NULL */
    char *p;
    Py_ssize_t len, cap;
} Out;

static int reserve(Out *o, Py_ssize_t more)
{
    if (more > PY_SSIZE_T_MAX - o->len) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t need = o->len + more;
    if (need <= o->cap)
        return 0;
    Py_ssize_t cap = o->cap > 0 ? o->cap : 256;
    while (cap < need)
        cap = cap > PY_SSIZE_T_MAX / 2 ? need : 2 * cap;
    if (o->obj == NULL)
        o->obj = PyBytes_FromStringAndSize(NULL, cap);
    else if (_PyBytes_Resize(&o->obj, cap) < 0)
        o->obj = NULL; /* _PyBytes_Resize freed it */
    if (o->obj == NULL)
        return -1;
    o->p = PyBytes_AS_STRING(o->obj);
    o->cap = cap;
    return 0;
}

static inline int put(Out *o, const char *s, Py_ssize_t n)
{
    if (n == 0)
        return 0;
    if (reserve(o, n) < 0)
        return -1;
    memcpy(o->p + o->len, s, (size_t)n);
    o->len += n;
    return 0;
}

static const char DIGITS[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* v in decimal, a minus first when negative */
static int put_int(Out *o, uint64_t v, int negative)
{
    char tmp[24];
    int at = (int)sizeof tmp;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        tmp[--at] = DIGITS[d + 1];
        tmp[--at] = DIGITS[d];
    }
    if (v >= 10) {
        tmp[--at] = DIGITS[2 * v + 1];
        tmp[--at] = DIGITS[2 * v];
    } else {
        tmp[--at] = (char)('0' + v);
    }
    if (negative)
        tmp[--at] = '-';
    return put(o, tmp + at, (Py_ssize_t)sizeof tmp - at);
}

/* -- rows buffers: bytes and the int64 end of each row -- */
typedef struct {
    const char *data;
    Py_ssize_t len;
    Py_buffer ends; /* ends.buf: int64[n], each within [previous end, len] */
    Py_ssize_t n;
} RowsView;

static int int64_buffer(PyObject *obj, Py_buffer *b, Py_ssize_t *n, const char *what)
{
    if (PyObject_GetBuffer(obj, b, PyBUF_C_CONTIGUOUS) < 0)
        return -1;
    if (b->len % 8 != 0 || (b->itemsize != 8 && b->itemsize != 1) || (uintptr_t)b->buf % 8 != 0) {
        PyErr_Format(PyExc_ValueError, "%s: an aligned buffer of 8-byte integers is needed", what);
        PyBuffer_Release(b);
        return -1;
    }
    *n = b->len / 8;
    return 0;
}

/* A slot's column: a one-dimensional buffer of 8-byte integers, any stride (a column of a
 * numpy table need not be copied first); item i at p + i * stride. */
typedef struct {
    Py_buffer view;
    const char *p;
    Py_ssize_t stride, n;
} Column;

static int column_of(PyObject *obj, Column *c)
{
    if (PyObject_GetBuffer(obj, &c->view, PyBUF_STRIDES) < 0)
        return -1;
    const Py_buffer *b = &c->view;
    if (b->ndim != 1 || b->itemsize != 8 || (uintptr_t)b->buf % 8 != 0 || b->strides[0] % 8 != 0) {
        PyErr_SetString(PyExc_ValueError, "a slot's column: an aligned buffer of 8-byte integers is needed");
        PyBuffer_Release(&c->view);
        return -1;
    }
    c->p = b->buf;
    c->stride = b->strides[0];
    c->n = b->shape[0];
    return 0;
}

static inline int64_t item_of(const Column *c, Py_ssize_t i)
{
    int64_t v;
    memcpy(&v, c->p + i * c->stride, sizeof v);
    return v;
}

/* An order of rows: row rows[j] of piece which[j], each checked against its piece's count. */
typedef struct {
    Column which, rows;
    Py_ssize_t m;
} Order;

static void release_order(Order *q)
{
    if (q->which.view.obj != NULL)
        PyBuffer_Release(&q->which.view);
    if (q->rows.view.obj != NULL)
        PyBuffer_Release(&q->rows.view);
}

static int take_order(PyObject *which, PyObject *rows, Order *q)
{
    if (column_of(which, &q->which) < 0 || column_of(rows, &q->rows) < 0)
        return -1;
    if (q->rows.n != q->which.n) {
        PyErr_SetString(PyExc_ValueError, "which and rows differ in length");
        return -1;
    }
    q->m = q->which.n;
    return 0;
}

/* each row of the order is one of its piece's (once every argument is taken) */
static int check_order(const Order *q, const Py_ssize_t *counts, Py_ssize_t pieces)
{
    for (Py_ssize_t j = 0; j < q->m; j++) {
        int64_t w = item_of(&q->which, j), r = item_of(&q->rows, j);
        if (w < 0 || w >= pieces || r < 0 || r >= counts[w]) {
            PyErr_Format(PyExc_ValueError, "row %lld of piece %lld is not there", (long long)r, (long long)w);
            return -1;
        }
    }
    return 0;
}

/* Take (bytes, ends): the bytes (immutable, held by the tuple) and the ends' buffer; nothing to
 * release on failure. Checked by check_rows once every argument is taken. */
static int take_rows(PyObject *pair, RowsView *r)
{
    r->ends.obj = NULL;
    PyObject *data, *ends;
    if (!PyTuple_Check(pair) || !PyArg_ParseTuple(pair, "SO;rows: (bytes, ends)", &data, &ends))
        return -1;
    r->data = PyBytes_AS_STRING(data);
    r->len = PyBytes_GET_SIZE(data);
    return int64_buffer(ends, &r->ends, &r->n, "rows' ends");
}

/* the ends rise within the bytes */
static int check_rows(const RowsView *r)
{
    const int64_t *e = r->ends.buf;
    int64_t last = 0;
    for (Py_ssize_t i = 0; i < r->n; i++) {
        if (e[i] < last || e[i] > r->len) {
            PyErr_SetString(PyExc_ValueError, "rows' ends do not rise within their bytes");
            return -1;
        }
        last = e[i];
    }
    return 0;
}

static inline int put_row(Out *o, const RowsView *r, int64_t i)
{
    const int64_t *e = r->ends.buf;
    int64_t lo = i > 0 ? e[i - 1] : 0;
    return put(o, r->data + lo, (Py_ssize_t)(e[i] - lo));
}

/* -- fill -- */
typedef struct {
    int form;
    PyObject *items;     /* TEXTS: the texts, CODED: the table; a tuple of our own (a copy of
                          * the caller's list, which the caller's code may change) */
    Column values;       /* CODED, CODED_ROWS: the codes; SIGNED, UNSIGNED: the integers */
    const char **texts;  /* CODED: the table's UTF-8 texts */
    Py_ssize_t *lengths;
    Py_ssize_t ntable;
    RowsView rows;       /* CODED_ROWS: the table */
} Slot;

static void release_slot(Slot *s)
{
    Py_CLEAR(s->items);
    if (s->values.view.obj != NULL)
        PyBuffer_Release(&s->values.view);
    if (s->rows.ends.obj != NULL)
        PyBuffer_Release(&s->rows.ends);
    PyMem_Free(s->texts);
    PyMem_Free(s->lengths);
}

/* Take a slot (form, ...): convert its form, copy its lists, take its buffers; nothing is
 * checked that the caller's code could change later (check_slot does that). The slot tuple
 * lives (in the template's tuple of slots) for the call. */
static int take_slot(PyObject *t, Slot *s)
{
    memset(s, 0, sizeof *s);
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 2) {
        PyErr_SetString(PyExc_TypeError, "a slot is a tuple (form, ...)");
        return -1;
    }
    long form = PyLong_AsLong(PyTuple_GET_ITEM(t, 0)); /* may run the form's __index__ */
    if (form == -1 && PyErr_Occurred())
        return -1;
    if (form < 0 || form >= N_FORMS || PyTuple_GET_SIZE(t) != (form == TEXTS || form >= SIGNED ? 2 : 3)) {
        PyErr_Format(PyExc_ValueError, "slot form %ld with %zd items does not fit", form, PyTuple_GET_SIZE(t));
        return -1;
    }
    s->form = (int)form;
    PyObject *a = PyTuple_GET_ITEM(t, 1);
    if (form == TEXTS) {
        if (!PyList_Check(a)) {
            PyErr_SetString(PyExc_ValueError, "a slot of texts must be a list of str");
            return -1;
        }
        return (s->items = PyList_AsTuple(a)) == NULL ? -1 : 0;
    }
    if (column_of(a, &s->values) < 0)
        return -1;
    if (form >= SIGNED)
        return 0;
    PyObject *table = PyTuple_GET_ITEM(t, 2);
    if (form == CODED_ROWS)
        return take_rows(table, &s->rows);
    if (!PyList_Check(table)) {
        PyErr_SetString(PyExc_TypeError, "a coded slot's table must be a list of str");
        return -1;
    }
    return (s->items = PyList_AsTuple(table)) == NULL ? -1 : 0;
}

/* A slot taken, checked over n rows: its length, its table's texts, every code within its
 * table. Runs none of the caller's code, as nothing after it does. */
static int check_slot(Slot *s, Py_ssize_t n)
{
    if (s->form == TEXTS) {
        if (PyTuple_GET_SIZE(s->items) != n) {
            PyErr_Format(PyExc_ValueError, "a slot of texts must be a list of %zd str", n);
            return -1;
        }
        return 0;
    }
    if (s->values.n != n) {
        PyErr_Format(PyExc_ValueError, "a slot's column has %zd rows, not %zd", s->values.n, n);
        return -1;
    }
    if (s->form >= SIGNED)
        return 0;
    if (s->form == CODED_ROWS) {
        if (check_rows(&s->rows) < 0)
            return -1;
        s->ntable = s->rows.n;
    } else {
        s->ntable = PyTuple_GET_SIZE(s->items);
        s->texts = PyMem_Calloc((size_t)s->ntable + 1, sizeof *s->texts);
        s->lengths = PyMem_Calloc((size_t)s->ntable + 1, sizeof *s->lengths);
        if (s->texts == NULL || s->lengths == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < s->ntable; i++) {
            PyObject *x = PyTuple_GET_ITEM(s->items, i);
            if (!PyUnicode_Check(x)) {
                PyErr_SetString(PyExc_TypeError, "a coded slot's table must be a list of str");
                return -1;
            }
            /* the table's tuple (and so x) is ours for the whole call */
            if ((s->texts[i] = PyUnicode_AsUTF8AndSize(x, &s->lengths[i])) == NULL)
                return -1;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = item_of(&s->values, i);
        if (c < 0 || c >= s->ntable) {
            PyErr_Format(PyExc_ValueError, "code %lld of row %zd is outside its table of %zd", (long long)c, i,
                         s->ntable);
            return -1;
        }
    }
    return 0;
}

static int put_slot(Out *o, const Slot *s, Py_ssize_t i)
{
    switch (s->form) {
    case TEXTS: {
        PyObject *x = PyTuple_GET_ITEM(s->items, i);
        Py_ssize_t len;
        const char *u;
        if (x == Py_None)
            return 0; /* a row its consumer drops (a ref to nothing): no text */
        if (!PyUnicode_Check(x)) {
            PyErr_Format(PyExc_TypeError, "row %zd of a slot of texts is not a str", i);
            return -1;
        }
        if ((u = PyUnicode_AsUTF8AndSize(x, &len)) == NULL)
            return -1;
        return put(o, u, len);
    }
    case CODED: {
        int64_t c = item_of(&s->values, i);
        return put(o, s->texts[c], s->lengths[c]);
    }
    case CODED_ROWS:
        return put_row(o, &s->rows, item_of(&s->values, i));
    case SIGNED: {
        int64_t v = item_of(&s->values, i);
        return put_int(o, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
    }
    default:
        return put_int(o, (uint64_t)item_of(&s->values, i), 0);
    }
}

/* (bytes, ends as bytes) of the output, which is taken over */
static PyObject *finish(Out *o, int64_t *ends, Py_ssize_t n)
{
    PyObject *data = o->obj;
    o->obj = NULL;
    if (data == NULL)
        data = PyBytes_FromStringAndSize(NULL, 0);
    else if (_PyBytes_Resize(&data, o->len) < 0)
        data = NULL;
    PyObject *e = PyBytes_FromStringAndSize((const char *)ends, n * (Py_ssize_t)sizeof *ends);
    PyMem_Free(ends);
    if (data == NULL || e == NULL) {
        Py_XDECREF(data);
        Py_XDECREF(e);
        return NULL;
    }
    return Py_BuildValue("(NN)", data, e);
}

/* -- a template: its parts (bytes, one more than the slots) and slots over n rows -- */
typedef struct {
    PyObject *parts; /* a tuple of bytes: our copy of the caller's list */
    PyObject *slots; /* a tuple of slot tuples: our copy of the caller's list */
    Slot *S;
    Py_ssize_t k, n, taken, fixed;
} Template;

static void release_template(Template *t)
{
    for (Py_ssize_t j = 0; j < t->taken; j++)
        release_slot(&t->S[j]);
    PyMem_Free(t->S);
    t->S = NULL;
    t->taken = 0;
    Py_CLEAR(t->parts);
    Py_CLEAR(t->slots);
}

/* Take parts and slots (lists, copied) over n rows, each slot taken (check_template checks
 * them); release_template releases what was taken, whether this fails or not. */
static int take_template(PyObject *parts, PyObject *slots, Py_ssize_t n, Template *t)
{
    memset(t, 0, sizeof *t);
    if (!PyList_Check(parts) || !PyList_Check(slots)) {
        PyErr_SetString(PyExc_TypeError, "a template: parts and slots are lists");
        return -1;
    }
    if ((t->parts = PyList_AsTuple(parts)) == NULL || (t->slots = PyList_AsTuple(slots)) == NULL)
        return -1;
    Py_ssize_t k = PyTuple_GET_SIZE(t->slots);
    if (n < 0 || n > PY_SSIZE_T_MAX / 16 || PyTuple_GET_SIZE(t->parts) != k + 1) {
        PyErr_SetString(PyExc_ValueError, "a template: 0 <= n < 2**59 and one part more than the slots");
        return -1;
    }
    for (Py_ssize_t j = 0; j <= k; j++) {
        if (!PyBytes_Check(PyTuple_GET_ITEM(t->parts, j))) {
            PyErr_SetString(PyExc_TypeError, "a template's parts must be bytes");
            return -1;
        }
        t->fixed += PyBytes_GET_SIZE(PyTuple_GET_ITEM(t->parts, j));
    }
    t->k = k;
    t->n = n;
    if ((t->S = PyMem_Calloc((size_t)k + 1, sizeof *t->S)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (; t->taken < k; t->taken++)
        if (take_slot(PyTuple_GET_ITEM(t->slots, t->taken), &t->S[t->taken]) < 0) {
            release_slot(&t->S[t->taken]);
            return -1;
        }
    return 0;
}

/* every slot of a template taken, checked over its rows */
static int check_template(Template *t)
{
    for (Py_ssize_t j = 0; j < t->k; j++)
        if (check_slot(&t->S[j], t->n) < 0)
            return -1;
    return 0;
}

static int write_row(Out *o, const Template *t, Py_ssize_t i, const char *end, Py_ssize_t endlen)
{
    for (Py_ssize_t j = 0; j < t->k; j++) {
        PyObject *p = PyTuple_GET_ITEM(t->parts, j);
        if (put(o, PyBytes_AS_STRING(p), PyBytes_GET_SIZE(p)) < 0 || put_slot(o, &t->S[j], i) < 0)
            return -1;
    }
    PyObject *p = PyTuple_GET_ITEM(t->parts, t->k);
    if (put(o, PyBytes_AS_STRING(p), PyBytes_GET_SIZE(p)) < 0 || put(o, end, endlen) < 0)
        return -1;
    return 0;
}

/* a first guess of the output: the fixed text and eight bytes a slot; put() grows it when short */
static int first_guess(Out *o, Py_ssize_t rows, Py_ssize_t per_row)
{
    return reserve(o, rows < PY_SSIZE_T_MAX / 4 / (per_row + 1) ? rows * (per_row + 1) : 256);
}

PyDoc_STRVAR(fill_doc,
"fill(parts, slots, n, end) -> (bytes, ends)\n\n"
"n rows parts[0] + slot0 + parts[1] + ... + parts[-1] + end in UTF-8 (parts: bytes, one more\n"
"than the slots; slots: see the module's forms), and the int64 end of each row, as bytes.");

static PyObject *textfill_fill(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *parts, *slots;
    Py_ssize_t n;
    const char *end;
    Py_ssize_t endlen;
    if (!PyArg_ParseTuple(args, "O!O!ny#", &PyList_Type, &parts, &PyList_Type, &slots, &n, &end, &endlen))
        return NULL;
    /* n is converted (its __index__ has run); take the template, then check it */
    Template t = {0};
    int64_t *ends = NULL;
    Out o = {NULL, NULL, 0, 0};
    PyObject *result = NULL;
    if (take_template(parts, slots, n, &t) < 0 || check_template(&t) < 0)
        goto done;
    if ((ends = PyMem_Malloc((size_t)n * sizeof *ends + 1)) == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (first_guess(&o, n, t.fixed + endlen + 8 * t.k) < 0)
        goto done;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (write_row(&o, &t, i, end, endlen) < 0)
            goto done;
        ends[i] = o.len;
    }
    result = finish(&o, ends, n);
    ends = NULL;
done:
    release_template(&t);
    PyMem_Free(ends);
    Py_XDECREF(o.obj);
    return result;
}

PyDoc_STRVAR(fill_rows_doc,
"fill_rows(templates, which, rows) -> (bytes, ends)\n\n"
"Row rows[j] of template which[j], for each j, one after another (templates: (parts, slots,\n"
"n) as fill takes them, a row end in the last part; which and rows: int64 buffers of one\n"
"length): several templates' rows merged in one pass, and the int64 end of each row, as bytes.");

/* The rows of order q one after another: row r of piece w written by T[w] (a template) or
 * copied from P[w] (rows already written); (bytes, ends) */
static PyObject *write_order(const Order *q, const Template *T, const RowsView *P, Py_ssize_t guess)
{
    Out o = {NULL, NULL, 0, 0};
    int64_t *ends = PyMem_Malloc((size_t)q->m * sizeof *ends + 1);
    if (ends == NULL)
        return PyErr_NoMemory();
    if (reserve(&o, guess > 0 ? guess : 1) < 0)
        goto fail;
    for (Py_ssize_t j = 0; j < q->m; j++) {
        int64_t w = item_of(&q->which, j), r = item_of(&q->rows, j);
        if ((T != NULL ? write_row(&o, &T[w], r, "", 0) : put_row(&o, &P[w], r)) < 0)
            goto fail;
        ends[j] = o.len;
    }
    return finish(&o, ends, q->m);
fail:
    PyMem_Free(ends);
    Py_XDECREF(o.obj);
    return NULL;
}

PyDoc_STRVAR(gather_doc,
"gather(pieces, which, rows) -> (bytes, ends)\n\n"
"Row rows[j] of piece which[j], for each j, one after another (pieces: (bytes, ends) pairs\n"
"that fill or gather wrote; which and rows: int64 buffers of one length), and the int64\n"
"end of each row, as bytes.");

/* A template (parts, slots, n) of fill_rows' list taken, n its rows (converted first: its
 * __index__ may run); release_template releases it, whether this fails or not */
static int take_template_item(PyObject *item, Template *t, Py_ssize_t *n)
{
    PyObject *parts, *slots;
    memset(t, 0, sizeof *t);
    if (!PyTuple_Check(item) || !PyArg_ParseTuple(item, "OOn;a template: (parts, slots, n)", &parts, &slots, n))
        return -1;
    return take_template(parts, slots, *n, t);
}

/* fill_rows (templates: a list of templates) and gather (else: a list of rows already written),
 * one prologue for both: hold the list, take each piece and the order, then check them all
 * (no code of the caller's runs after the first check), then write */
static PyObject *write_pieces(PyObject *args, int templates)
{
    PyObject *list, *which, *rows;
    if (!PyArg_ParseTuple(args, "O!OO", &PyList_Type, &list, &which, &rows))
        return NULL;
    PyObject *held = PyList_AsTuple(list); /* its items live for the call */
    if (held == NULL)
        return NULL;
    Py_ssize_t np_ = PyTuple_GET_SIZE(held), taken = 0, guess = 0;
    Template *T = templates ? PyMem_Calloc((size_t)np_ + 1, sizeof *T) : NULL;
    RowsView *P = templates ? NULL : PyMem_Calloc((size_t)np_ + 1, sizeof *P);
    Py_ssize_t *counts = PyMem_Calloc((size_t)np_ + 1, sizeof *counts);
    Order q = {0};
    PyObject *result = NULL;
    if ((T == NULL && P == NULL) || counts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* take: everything that may run the caller's code (an n's __index__, a slot form's) */
    while (taken < np_) {
        PyObject *item = PyTuple_GET_ITEM(held, taken);
        int failed = templates ? take_template_item(item, &T[taken], &counts[taken]) : take_rows(item, &P[taken]);
        taken++; /* released below, taken whole or in part */
        if (failed < 0)
            goto done;
    }
    if (take_order(which, rows, &q) < 0)
        goto done;
    /* check: nothing of the caller's runs from here on */
    for (Py_ssize_t j = 0; j < np_; j++) {
        if (templates) {
            if (check_template(&T[j]) < 0)
                goto done;
            if (T[j].fixed + 8 * T[j].k > guess) /* the longest fixed text and 8 bytes a slot */
                guess = T[j].fixed + 8 * T[j].k;
        } else {
            if (check_rows(&P[j]) < 0)
                goto done;
            counts[j] = P[j].n;
            guess += P[j].len;
        }
    }
    if (check_order(&q, counts, np_) < 0)
        goto done;
    if (templates) /* a first guess: the longest row q.m times; put() grows it when short */
        guess = q.m < PY_SSIZE_T_MAX / 4 / (guess + 1) ? q.m * (guess + 1) : 256;
    result = write_order(&q, T, P, guess);
done:
    release_order(&q);
    for (Py_ssize_t j = 0; j < taken; j++) {
        if (templates)
            release_template(&T[j]);
        else if (P[j].ends.obj != NULL)
            PyBuffer_Release(&P[j].ends);
    }
    PyMem_Free(T);
    PyMem_Free(P);
    PyMem_Free(counts);
    Py_DECREF(held);
    return result;
}

static PyObject *textfill_fill_rows(PyObject *Py_UNUSED(self), PyObject *args)
{
    return write_pieces(args, 1);
}

static PyObject *textfill_gather(PyObject *Py_UNUSED(self), PyObject *args)
{
    return write_pieces(args, 0);
}

PyDoc_STRVAR(tune_allocator_doc,
"tune_allocator() -> bool\n\n"
"Tell glibc's malloc to reuse freed blocks below 64 MB instead of mapping fresh pages for\n"
"each: a batch's text and columns are tens of MB, made and freed batch after batch, and\n"
"fresh pages cost a page fault per 4 KiB written (a fifth of decode's time). Process-wide,\n"
"so only the command line calls it (a library user's process is not ours to tune). True\n"
"where it took effect (glibc), False elsewhere.");

static PyObject *textfill_tune_allocator(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
#ifdef __GLIBC__
    if (mallopt(M_MMAP_THRESHOLD, 64 << 20) && mallopt(M_TRIM_THRESHOLD, 128 << 20))
        Py_RETURN_TRUE;
#endif
    Py_RETURN_FALSE;
}

static PyMethodDef methods[] = {
    {"fill", textfill_fill, METH_VARARGS, fill_doc},
    {"fill_rows", textfill_fill_rows, METH_VARARGS, fill_rows_doc},
    {"gather", textfill_gather, METH_VARARGS, gather_doc},
    {"tune_allocator", textfill_tune_allocator, METH_NOARGS, tune_allocator_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "fxtlint.engine._textfill",
    "JSON text templates filled from columns into one bytes buffer per batch (see _jsontext).",
    -1, methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__textfill(void)
{
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    if (PyModule_AddIntConstant(m, "TEXTS", TEXTS) < 0 || PyModule_AddIntConstant(m, "CODED", CODED) < 0
        || PyModule_AddIntConstant(m, "CODED_ROWS", CODED_ROWS) < 0
        || PyModule_AddIntConstant(m, "SIGNED", SIGNED) < 0 || PyModule_AddIntConstant(m, "UNSIGNED", UNSIGNED) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
