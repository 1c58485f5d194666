/* gramwright's compiled mask core: the bitset fills and the trie walk's inner loop.
 *
 * The pure-Python engine (``bitset.py``, ``masks.py``, ``local_masks.py``) is the reference; this
 * module computes the same bits. It reads numpy arrays through the buffer protocol (no numpy
 * headers: the sdist builds with the Python headers alone) and works without the GIL wherever it
 * touches only those buffers: a batch's rows are filled by native threads, each row the union of
 * its parts (bitsets OR-ed word by word, token ids set bit by bit).
 *
 * Bitsets are the peers' layout: 32-bit words, bit i % 32 of word i / 32 set when token i is in.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * One row: the union of some bitsets and some token ids, written over ``out``.
 */
typedef struct {
    const uint32_t **sets; /* bitsets to OR, each ``words`` long (or shorter: ``set_len``) */
    Py_ssize_t *set_len;
    Py_ssize_t nsets;
    const int32_t **ids; /* token-id arrays to set */
    Py_ssize_t *ids_len;
    Py_ssize_t nids;
    uint32_t *out;
    Py_ssize_t words;
    int bad; /* an id out of range: reported after the threads joined */
} Row;

static void fill_row(Row *row) {
    uint32_t *out = row->out;
    Py_ssize_t words = row->words;
    if (row->nsets == 0) {
        memset(out, 0, (size_t)words * 4);
    } else {
        Py_ssize_t n0 = row->set_len[0] < words ? row->set_len[0] : words;
        memmove(out, row->sets[0], (size_t)n0 * 4); /* out may be sets[0] itself */
        if (n0 < words) memset(out + n0, 0, (size_t)(words - n0) * 4);
        for (Py_ssize_t s = 1; s < row->nsets; s++) {
            const uint32_t *src = row->sets[s];
            Py_ssize_t n = row->set_len[s] < words ? row->set_len[s] : words;
            for (Py_ssize_t w = 0; w < n; w++) out[w] |= src[w];
        }
    }
    uint64_t limit = (uint64_t)words * 32;
    for (Py_ssize_t k = 0; k < row->nids; k++) {
        const int32_t *ids = row->ids[k];
        for (Py_ssize_t i = 0; i < row->ids_len[k]; i++) {
            int32_t t = ids[i];
            if (t < 0 || (uint64_t)t >= limit) {
                row->bad = 1;
                continue;
            }
            out[t >> 5] |= (uint32_t)1 << (t & 31);
        }
    }
}

typedef struct {
    Row *rows;
    Py_ssize_t start, step, count;
} Slice;

static void *fill_slice(void *arg) {
    Slice *s = (Slice *)arg;
    for (Py_ssize_t r = s->start; r < s->count; r += s->step) fill_row(&s->rows[r]);
    return NULL;
}

/* Fill every row, on ``threads`` native threads (the caller's among them), the GIL released. */
static void fill_rows(Row *rows, Py_ssize_t count, int threads) {
    if (threads > count) threads = (int)count;
    if (threads < 1) threads = 1;
    Py_BEGIN_ALLOW_THREADS
    if (threads == 1) {
        for (Py_ssize_t r = 0; r < count; r++) fill_row(&rows[r]);
    } else {
        pthread_t tids[64];
        Slice slices[64];
        if (threads > 64) threads = 64;
        int started = 0;
        for (int t = 0; t < threads; t++) {
            slices[t].rows = rows;
            slices[t].start = t;
            slices[t].step = threads;
            slices[t].count = count;
        }
        for (int t = 1; t < threads; t++) {
            if (pthread_create(&tids[t], NULL, fill_slice, &slices[t]) != 0) break;
            started = t;
        }
        if (started < threads - 1) {
            /* a thread could not start: the rows it would have filled are filled here */
            for (int t = started + 1; t < threads; t++) fill_slice(&slices[t]);
        }
        fill_slice(&slices[0]);
        for (int t = 1; t <= started; t++) pthread_join(tids[t], NULL);
    }
    Py_END_ALLOW_THREADS
}

/* ---------------------------------------------------------------------------------------------
 * Buffers: every view taken is kept until the end of a call, in chunks that never move (a view's
 * address is handed out, and an exporter may point into it).
 */
#define CHUNK 64
typedef struct Chunk {
    Py_buffer views[CHUNK];
    struct Chunk *next;
} Chunk;

typedef struct {
    Chunk *head;
    Py_ssize_t used; /* views used in ``head`` */
} Views;

static int views_push(Views *v, PyObject *obj, int flags, Py_ssize_t itemsize, Py_buffer **got) {
    if (v->head == NULL || v->used == CHUNK) {
        Chunk *c = PyMem_Malloc(sizeof(Chunk));
        if (!c) {
            PyErr_NoMemory();
            return -1;
        }
        c->next = v->head;
        v->head = c;
        v->used = 0;
    }
    Py_buffer *view = &v->head->views[v->used];
    if (PyObject_GetBuffer(obj, view, flags | PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    v->used++;
    if (view->itemsize != itemsize) {
        PyErr_Format(PyExc_TypeError, "expected %zd-byte items, got %zd-byte ones", itemsize,
                     view->itemsize);
        return -1;
    }
    *got = view;
    return 0;
}

static void views_free(Views *v) {
    Py_ssize_t n = v->used;
    for (Chunk *c = v->head; c != NULL;) {
        for (Py_ssize_t i = 0; i < n; i++) PyBuffer_Release(&c->views[i]);
        Chunk *next = c->next;
        PyMem_Free(c);
        c = next;
        n = CHUNK; /* every older chunk is full */
    }
}

/* One row's parts from Python: ``bitsets`` a sequence of 4-byte-item arrays, ``ids`` a sequence
 * of int32 arrays (either may be empty). The pointers are stored in ``ptrs``/``lens`` (allocated
 * here, freed by the caller). */
static int row_parts(Views *v, PyObject *bitsets, PyObject *ids, Row *row, void **alloc) {
    PyObject *bs = PySequence_Fast(bitsets, "bitsets must be a sequence");
    if (!bs) return -1;
    PyObject *is = PySequence_Fast(ids, "ids must be a sequence");
    if (!is) {
        Py_DECREF(bs);
        return -1;
    }
    Py_ssize_t nb = PySequence_Fast_GET_SIZE(bs), ni = PySequence_Fast_GET_SIZE(is);
    void *mem = PyMem_Malloc((size_t)(nb + ni + 1) * (sizeof(void *) + sizeof(Py_ssize_t)));
    if (!mem) {
        Py_DECREF(bs);
        Py_DECREF(is);
        PyErr_NoMemory();
        return -1;
    }
    *alloc = mem;
    row->sets = (const uint32_t **)mem;
    row->ids = (const int32_t **)((void **)mem + nb);
    row->set_len = (Py_ssize_t *)((void **)mem + nb + ni + 1);
    row->ids_len = row->set_len + nb;
    row->nsets = nb;
    row->nids = ni;
    row->bad = 0;
    int rc = 0;
    for (Py_ssize_t i = 0; i < nb && rc == 0; i++) {
        Py_buffer *view;
        rc = views_push(v, PySequence_Fast_GET_ITEM(bs, i), PyBUF_SIMPLE, 4, &view);
        if (rc == 0) {
            row->sets[i] = (const uint32_t *)view->buf;
            row->set_len[i] = view->len / 4;
        }
    }
    for (Py_ssize_t i = 0; i < ni && rc == 0; i++) {
        Py_buffer *view;
        rc = views_push(v, PySequence_Fast_GET_ITEM(is, i), PyBUF_SIMPLE, 4, &view);
        if (rc == 0) {
            row->ids[i] = (const int32_t *)view->buf;
            row->ids_len[i] = view->len / 4;
        }
    }
    Py_DECREF(bs);
    Py_DECREF(is);
    return rc;
}

static PyObject *bad_id(void) {
    PyErr_SetString(PyExc_ValueError, "a token id is outside the bitset");
    return NULL;
}

PyDoc_STRVAR(union_into_doc,
             "union_into(out, bitsets, ids)\n\n"
             "Write the union of ``bitsets`` (4-byte-item arrays) and the bits of ``ids`` (int32 "
             "arrays) over ``out`` (a writable 4-byte-item array), the GIL released.");

static PyObject *union_into(PyObject *self, PyObject *args) {
    PyObject *out_obj, *bitsets, *ids;
    if (!PyArg_ParseTuple(args, "OOO", &out_obj, &bitsets, &ids)) return NULL;
    Views v = {0};
    void *alloc = NULL;
    Row row;
    Py_buffer *out;
    PyObject *result = NULL;
    if (views_push(&v, out_obj, PyBUF_WRITABLE, 4, &out) < 0) goto done;
    if (row_parts(&v, bitsets, ids, &row, &alloc) < 0) goto done;
    row.out = (uint32_t *)out->buf;
    row.words = out->len / 4;
    fill_rows(&row, 1, 1);
    if (row.bad) {
        bad_id();
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    PyMem_Free(alloc);
    views_free(&v);
    return result;
}

PyDoc_STRVAR(fill_batch_doc,
             "fill_batch(out, rows, threads)\n\n"
             "``out``: a writable C-contiguous (batch, words) array of 4-byte items; ``rows``: per "
             "row of ``out`` (at most batch of them), a pair (bitsets, ids) whose union is written "
             "over that row. Rows are filled on ``threads`` native threads, the GIL released.");

static PyObject *fill_batch(PyObject *self, PyObject *args) {
    PyObject *out_obj, *rows_obj;
    int threads;
    if (!PyArg_ParseTuple(args, "OOi", &out_obj, &rows_obj, &threads)) return NULL;
    Views v = {0};
    PyObject *result = NULL, *rows_seq = NULL;
    Row *rows = NULL;
    void **allocs = NULL;
    Py_ssize_t count = 0, made = 0;
    Py_buffer *out;
    if (views_push(&v, out_obj, PyBUF_WRITABLE | PyBUF_ND, 4, &out) < 0) goto done;
    if (out->ndim != 2) {
        PyErr_SetString(PyExc_ValueError, "out must be two-dimensional (batch, words)");
        goto done;
    }
    Py_ssize_t batch = out->shape[0], words = out->shape[1];
    rows_seq = PySequence_Fast(rows_obj, "rows must be a sequence");
    if (!rows_seq) goto done;
    count = PySequence_Fast_GET_SIZE(rows_seq);
    if (count > batch) {
        PyErr_Format(PyExc_ValueError, "%zd rows for a bitset of %zd", count, batch);
        goto done;
    }
    rows = PyMem_Calloc((size_t)(count ? count : 1), sizeof(Row));
    allocs = PyMem_Calloc((size_t)(count ? count : 1), sizeof(void *));
    if (!rows || !allocs) {
        PyErr_NoMemory();
        goto done;
    }
    for (; made < count; made++) {
        PyObject *pair = PySequence_Fast_GET_ITEM(rows_seq, made);
        PyObject *bitsets, *ids;
        if (!PyArg_ParseTuple(pair, "OO", &bitsets, &ids)) goto done;
        if (row_parts(&v, bitsets, ids, &rows[made], &allocs[made]) < 0) {
            made++;
            goto done;
        }
        rows[made].out = (uint32_t *)out->buf + made * words;
        rows[made].words = words;
    }
    fill_rows(rows, count, threads);
    for (Py_ssize_t r = 0; r < count; r++) {
        if (rows[r].bad) {
            bad_id();
            goto done;
        }
    }
    result = Py_NewRef(Py_None);
done:
    if (allocs)
        for (Py_ssize_t r = 0; r < made; r++) PyMem_Free(allocs[r]);
    PyMem_Free(allocs);
    PyMem_Free(rows);
    Py_XDECREF(rows_seq);
    views_free(&v);
    return result;
}

PyDoc_STRVAR(contains_doc,
             "contains(words, ids, out)\n\n"
             "Per id of ``ids`` (int32), whether its bit is set in ``words``: written to ``out`` "
             "(a writable one-byte-item array as long as ids), the GIL released.");

static PyObject *contains(PyObject *self, PyObject *args) {
    PyObject *w_obj, *i_obj, *o_obj;
    if (!PyArg_ParseTuple(args, "OOO", &w_obj, &i_obj, &o_obj)) return NULL;
    Views v = {0};
    PyObject *result = NULL;
    Py_buffer *w, *ids, *out;
    if (views_push(&v, w_obj, PyBUF_SIMPLE, 4, &w) < 0) goto done;
    if (views_push(&v, i_obj, PyBUF_SIMPLE, 4, &ids) < 0) goto done;
    if (views_push(&v, o_obj, PyBUF_WRITABLE, 1, &out) < 0) goto done;
    Py_ssize_t n = ids->len / 4, words = w->len / 4;
    if (out->len < n) {
        PyErr_SetString(PyExc_ValueError, "out is shorter than ids");
        goto done;
    }
    const uint32_t *wp = (const uint32_t *)w->buf;
    const int32_t *ip = (const int32_t *)ids->buf;
    uint8_t *op = (uint8_t *)out->buf;
    int bad = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int32_t t = ip[i];
        if (t < 0 || (t >> 5) >= words) {
            bad = 1;
            op[i] = 0;
            continue;
        }
        op[i] = (uint8_t)((wp[t >> 5] >> (t & 31)) & 1);
    }
    Py_END_ALLOW_THREADS
    if (bad) {
        bad_id();
        goto done;
    }
    result = Py_NewRef(Py_None);
done:
    views_free(&v);
    return result;
}

static PyMethodDef methods[] = {
    {"union_into", union_into, METH_VARARGS, union_into_doc},
    {"fill_batch", fill_batch, METH_VARARGS, fill_batch_doc},
    {"contains", contains, METH_VARARGS, contains_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_native", "gramwright's compiled mask core (see engine/native.py).", -1,
    methods,
};

PyMODINIT_FUNC PyInit__native(void) { return PyModule_Create(&module); }
