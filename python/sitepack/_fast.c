/* sitepack._fast: the compiled per-site and flat-batch reads of the Python package (docs/python.md "The
 * compiled reader"). Optional: without it (no compiler or Python.h at install, SITEPACK_PURE_PYTHON=1, an
 * import error) the package reads the same rows in pure Python with identical results and exceptions.
 *
 * Two types, both subclassed in Python (dataset.py):
 *   Reader    base of dataset._CompiledDataset (with Dataset): ds[i] in C (mp_subscript), the flat gather
 *             of get_sites_flat (_gather), set up by _fast_init from the arrays Dataset.__init__ mapped
 *             (numpy views of the read-only mmap at each dataset's file offset) and closed by _fast_close.
 *   SiteBase  base of dataset._CompiledSite (with Site): positions, elements, flags, n_ligand, n_atoms as C
 *             getters; Site's Python methods (ligand, residues, atoms(), to_rdkit ...) read _ds, index.
 * And one function: radius_edges, the radius edges of graph batches (sitepack.graph, docs/python.md "Graphs").
 * Nothing here reads the file by itself: every address comes from an ndarray this module holds a reference
 * to (so the mapping outlives every read), every atom row is checked against that array's row count, and
 * every site index against the site count. No HDF5 call, no numpy call per site but the array allocation.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

/** A parameter that the CPython slot signature requires and this function does not read (-Wextra clean). */
#define SP_UNUSED(x) (void)(x)

/** ABI of this module as dataset.py expects it: an extension of another version is not used. */
#define SP_FAST_ABI 2

/** One mapped /atoms column: the ndarray (owned reference), its first byte, rows and bytes per row. */
typedef struct {
    PyArrayObject *arr;
    const char *base;
    Py_ssize_t rows;
    Py_ssize_t row_bytes;
} Column;

typedef struct {
    PyObject_HEAD
    int ready;                 /* _fast_init succeeded and _fast_close not called */
    Py_ssize_t n_sites;
    PyArrayObject *ap_arr;     /* /sites/atom_ptr in memory: int64 (n_sites + 1,), checked CSR */
    const int64_t *ap;
    PyArrayObject *nlig_arr;   /* /sites/n_ligand in memory: int32 (n_sites,) */
    const int32_t *nlig;
    Column pos, elem, flags;   /* atoms/position (A, 3) float32, element (A,) uint8, flags (A,) uint16 */
    PyObject *path;            /* the Dataset's path (str or bytes), for messages */
    PyTypeObject *site_type;   /* dataset._CompiledSite: a subclass of SiteBase */
} Reader;

typedef struct {
    PyObject_HEAD
    Reader *ds;                /* owned; also the Python Dataset (_ds) */
    Py_ssize_t index, a0, a1;  /* row of /sites; its atom rows a0..a1 (0 <= a0 <= a1 <= atoms rows) */
} SiteBase;

static PyTypeObject ReaderType;
static PyTypeObject SiteBaseType;

/* ---- helpers ---- */

/** Ask the CPU to start loading the first @p len bytes (at most 1 KiB) at @p p: a site's rows sit at a random
 *  place of a mapping of gigabytes, and the copy that follows (or the next sites' work) overlaps the wait. */
static inline void prefetch_rows(const char *p, Py_ssize_t len)
{
    if (len > 1024)
        len = 1024;
    for (Py_ssize_t o = 0; o < len; o += 64)
        __builtin_prefetch(p + o);
}

static PyObject *closed_error(Reader *r)
{
    if (r->path)
        PyErr_Format(PyExc_ValueError, "%S: the dataset is closed", r->path);
    else
        PyErr_SetString(PyExc_ValueError, "the dataset is closed");
    return NULL;
}

/** Take @p obj as a C-contiguous ndarray of @p ndim dimensions (0: any number from 1) whose rows are
 *  @p row_bytes bytes (0: any), @p name for the message; fills @p c with a new reference. Returns 0, or -1
 *  with TypeError / ValueError. */
static int column_from(PyObject *obj, const char *name, int ndim, Py_ssize_t row_bytes, Column *c)
{
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "_fast: %s is not a numpy array", name);
        return -1;
    }
    PyArrayObject *a = (PyArrayObject *)obj;
    if (ndim == 0)
        ndim = PyArray_NDIM(a) >= 1 ? PyArray_NDIM(a) : 1;
    if (PyArray_NDIM(a) != ndim || !PyArray_IS_C_CONTIGUOUS(a)) {
        PyErr_Format(PyExc_ValueError, "_fast: %s is not a C-contiguous %d-D array", name, ndim);
        return -1;
    }
    Py_ssize_t rb = PyArray_ITEMSIZE(a);
    for (int d = 1; d < ndim; d++)
        rb *= PyArray_DIM(a, d);
    if (row_bytes && rb != row_bytes) {
        PyErr_Format(PyExc_ValueError, "_fast: %s has %zd bytes a row, expected %zd", name, rb, row_bytes);
        return -1;
    }
    Py_INCREF(obj);
    c->arr = a;
    c->base = PyArray_BYTES(a);
    c->rows = PyArray_DIM(a, 0);
    c->row_bytes = rb;
    return 0;
}

static void reader_release(Reader *r)
{
    r->ready = 0;
    r->ap = NULL;
    r->nlig = NULL;
    Py_CLEAR(r->ap_arr);
    Py_CLEAR(r->nlig_arr);
    Py_CLEAR(r->pos.arr);
    Py_CLEAR(r->elem.arr);
    Py_CLEAR(r->flags.arr);
    r->pos.base = r->elem.base = r->flags.base = NULL;
    r->pos.rows = r->elem.rows = r->flags.rows = 0;
}

/* ---- Reader ---- */

static PyObject *reader_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    SP_UNUSED(args);
    SP_UNUSED(kwds);
    /* the arguments are Dataset.__init__'s (path, ...): taken there */
    return type->tp_alloc(type, 0);
}

static int reader_traverse(Reader *r, visitproc visit, void *arg)
{
    Py_VISIT(r->ap_arr);
    Py_VISIT(r->nlig_arr);
    Py_VISIT(r->pos.arr);
    Py_VISIT(r->elem.arr);
    Py_VISIT(r->flags.arr);
    Py_VISIT(r->path);
    Py_VISIT((PyObject *)r->site_type);
    return 0;
}

static int reader_clear(Reader *r)
{
    reader_release(r);
    Py_CLEAR(r->path);
    Py_CLEAR(r->site_type);
    return 0;
}

static void reader_dealloc(Reader *r)
{
    PyTypeObject *tp = Py_TYPE(r);
    PyObject_GC_UnTrack(r);
    reader_clear(r);
    tp->tp_free((PyObject *)r);
}

/** Validate @p ap (int64 (n + 1,) in memory) as a CSR pointer over @p atoms rows: starts at 0, never
 *  decreases, ends at @p atoms. Returns 0, or -1 with ValueError. */
static int check_atom_ptr(const int64_t *ap, Py_ssize_t n, Py_ssize_t atoms)
{
    if (ap[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "_fast: atom_ptr[0] is not 0");
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (ap[i + 1] < ap[i]) {
            PyErr_Format(PyExc_ValueError, "_fast: atom_ptr decreases at row %zd", i);
            return -1;
        }
    if (ap[n] != atoms) {
        PyErr_Format(PyExc_ValueError, "_fast: atom_ptr ends at %lld, the atom columns have %zd rows",
                     (long long)ap[n], atoms);
        return -1;
    }
    return 0;
}

/** Reader._fast_init(path, site_type, atom_ptr, n_ligand, position, element, flags): take the arrays
 *  Dataset.__init__ mapped and validated. atom_ptr: int64 (N + 1,), n_ligand: int32 (N,) (both in memory);
 *  position (A, 3) float32, element (A,) uint8, flags (A,) uint16 (views of the mapping, C-contiguous);
 *  site_type: a subclass of SiteBase, the type of ds[i]. Holds a reference to each until _fast_close.
 *  Raises TypeError / ValueError when an array is not of that shape and type or atom_ptr is not a CSR
 *  pointer over A rows (open() has checked it: a defence, never reached on a file open() accepts). */
static PyObject *reader_init(Reader *r, PyObject *args)
{
    PyObject *path, *stype, *ap, *nl, *pos, *el, *fl;
    if (!PyArg_ParseTuple(args, "OO!O!O!OOO:_fast_init", &path, &PyType_Type, &stype, &PyArray_Type, &ap,
                          &PyArray_Type, &nl, &pos, &el, &fl))
        return NULL;
    if (!PyType_IsSubtype((PyTypeObject *)stype, &SiteBaseType)) {
        PyErr_SetString(PyExc_TypeError, "_fast_init: site_type is not a subclass of SiteBase");
        return NULL;
    }
    reader_release(r);
    PyArrayObject *apa = (PyArrayObject *)ap, *nla = (PyArrayObject *)nl;
    if (PyArray_TYPE(apa) != NPY_INT64 || PyArray_NDIM(apa) != 1 || !PyArray_IS_C_CONTIGUOUS(apa) ||
        PyArray_DIM(apa, 0) < 1 || PyArray_TYPE(nla) != NPY_INT32 || PyArray_NDIM(nla) != 1 ||
        !PyArray_IS_C_CONTIGUOUS(nla) || PyArray_DIM(nla, 0) != PyArray_DIM(apa, 0) - 1) {
        PyErr_SetString(PyExc_ValueError, "_fast_init: atom_ptr must be int64 (N + 1,), n_ligand int32 (N,)");
        return NULL;
    }
    if (column_from(pos, "position", 2, 12, &r->pos) || column_from(el, "element", 1, 1, &r->elem) ||
        column_from(fl, "flags", 1, 2, &r->flags))
        goto fail;
    if (PyArray_TYPE(r->pos.arr) != NPY_FLOAT32 || PyArray_TYPE(r->elem.arr) != NPY_UINT8 ||
        PyArray_TYPE(r->flags.arr) != NPY_UINT16) {
        PyErr_SetString(PyExc_ValueError, "_fast_init: position, element, flags must be float32, uint8, uint16");
        goto fail;
    }
    Py_ssize_t n = PyArray_DIM(nla, 0);
    if (r->elem.rows != r->pos.rows || r->flags.rows != r->pos.rows ||
        check_atom_ptr((const int64_t *)PyArray_DATA(apa), n, r->pos.rows))
        goto fail;
    Py_INCREF(ap);
    Py_INCREF(nl);
    r->ap_arr = apa;
    r->nlig_arr = nla;
    r->ap = (const int64_t *)PyArray_DATA(apa);
    r->nlig = (const int32_t *)PyArray_DATA(nla);
    r->n_sites = n;
    Py_INCREF(path);
    Py_XSETREF(r->path, path);
    Py_INCREF(stype);
    Py_XSETREF(r->site_type, (PyTypeObject *)stype);
    r->ready = 1;
    Py_RETURN_NONE;
fail:
    reader_release(r);
    return NULL;
}

/** Reader._fast_close(): drop the arrays (the mapping can then be closed); later reads raise ValueError
 *  "PATH: the dataset is closed", as the pure-Python path does. */
static PyObject *reader_close(Reader *r, PyObject *unused)
{
    SP_UNUSED(unused);
    reader_release(r);
    Py_RETURN_NONE;
}

/** ds[i]: a Site (site_type) of row i. An int in [-N, N) is served here; anything else (another type, a
 *  value out of range, an int too large for Py_ssize_t) goes to Dataset._site_index, which returns the row
 *  or raises the pure-Python path's TypeError / SiteIndexError, so both paths raise the same. */
static PyObject *reader_getitem(Reader *r, PyObject *key)
{
    if (!r->ready)
        return closed_error(r);
    Py_ssize_t n = r->n_sites, i = -1;
    int fast = 0;
    if (PyLong_CheckExact(key)) {
        int overflow = 0;
        long long v = PyLong_AsLongLongAndOverflow(key, &overflow);
        if (!overflow && v >= -(long long)n && v < (long long)n) {
            i = (Py_ssize_t)(v < 0 ? v + n : v);
            fast = 1;
        }
    }
    if (!fast) {
        PyObject *row = PyObject_CallMethod((PyObject *)r, "_site_index", "(O)", key);
        if (!row)
            return NULL;
        i = PyLong_AsSsize_t(row);
        Py_DECREF(row);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        if (!r->ready)   /* _site_index is Python: it could have closed the dataset */
            return closed_error(r);
        if (i < 0 || i >= n) {
            PyErr_Format(PyExc_IndexError, "%S: site index %zd out of range [0, %zd)", r->path, i, n);
            return NULL;
        }
    }
    SiteBase *s = (SiteBase *)r->site_type->tp_alloc(r->site_type, 0);
    if (!s)
        return NULL;
    Py_INCREF(r);
    s->ds = r;
    s->index = i;
    s->a0 = (Py_ssize_t)r->ap[i];
    s->a1 = (Py_ssize_t)r->ap[i + 1];
    /* the caller's next step is most likely .positions / .elements / .n_ligand (a training loader's):
       their loads start now, under the interpreter's work in between (rows checked: a1 <= the columns' rows) */
    if (s->a1 <= r->pos.rows) {
        prefetch_rows(r->pos.base + s->a0 * 12, (s->a1 - s->a0) * 12);
        prefetch_rows(r->elem.base + s->a0, s->a1 - s->a0);
    }
    __builtin_prefetch(r->nlig + i);
    return (PyObject *)s;
}

/** A new C-contiguous array of rows a0..a1 of column @p c: shape (a1 - a0,) + the column's tail, the
 *  column's dtype. Rows outside the column: IndexError (never for a site of a checked atom_ptr). */
static PyObject *copy_rows(const Column *c, Py_ssize_t a0, Py_ssize_t a1)
{
    if (a0 < 0 || a1 < a0 || a1 > c->rows) {
        PyErr_Format(PyExc_IndexError, "_fast: atom rows %zd..%zd outside the column's %zd", a0, a1, c->rows);
        return NULL;
    }
    int nd = PyArray_NDIM(c->arr);
    npy_intp dims[NPY_MAXDIMS];
    dims[0] = a1 - a0;
    for (int d = 1; d < nd; d++)
        dims[d] = PyArray_DIM(c->arr, d);
    PyArray_Descr *dt = PyArray_DESCR(c->arr);
    Py_INCREF(dt);
    PyObject *out = PyArray_NewFromDescr(&PyArray_Type, dt, nd, dims, NULL, NULL, 0, NULL);
    if (out && a1 > a0)
        memcpy(PyArray_BYTES((PyArrayObject *)out), c->base + a0 * c->row_bytes, (size_t)((a1 - a0) * c->row_bytes));
    return out;
}

/* ---- Reader._gather: get_sites_flat's atom rows ---- */

/** Per-site atom rows of @p idx (int64 (k,), each in [0, N)): n (k,) int64 and offsets (k + 1,) int64, new
 *  arrays in @p n_out, @p off_out, and each site's first atom row in @p a0 (k,) (the caller's buffer).
 *  Returns 0, or -1 with IndexError (an index outside [0, N)) or MemoryError. */
static int site_blocks(Reader *r, const int64_t *idx, Py_ssize_t k, int64_t *a0, PyObject **n_out,
                       PyObject **off_out)
{
    npy_intp dk = k, dk1 = k + 1;
    PyObject *na = PyArray_SimpleNew(1, &dk, NPY_INT64), *oa = PyArray_SimpleNew(1, &dk1, NPY_INT64);
    if (!na || !oa)
        goto fail;
    int64_t *n = (int64_t *)PyArray_DATA((PyArrayObject *)na), *off = (int64_t *)PyArray_DATA((PyArrayObject *)oa);
    off[0] = 0;
    for (Py_ssize_t j = 0; j < k; j++) {
        int64_t i = idx[j];
        if (i < 0 || i >= r->n_sites) {
            PyErr_Format(PyExc_IndexError, "%S: site index %lld out of range [0, %zd) at position %zd", r->path,
                         (long long)i, r->n_sites, j);
            goto fail;
        }
        if (j + 16 < k && idx[j + 16] >= 0 && idx[j + 16] < r->n_sites)
            __builtin_prefetch(r->ap + idx[j + 16]);
        a0[j] = r->ap[i];
        n[j] = r->ap[i + 1] - a0[j];
        off[j + 1] = off[j] + n[j];
    }
    *n_out = na;
    *off_out = oa;
    return 0;
fail:
    Py_XDECREF(na);
    Py_XDECREF(oa);
    return -1;
}

/** The atom rows of @p k sites (site j: rows a0[j] .. a0[j] + n[j]) from column @p c, concatenated: a new
 *  (total,) + tail array of the column's dtype; one memcpy per site, the rows of site j + 8 prefetched.
 *  Returns NULL with IndexError when a site's rows pass the column's end. */
static PyObject *gather_column(const Column *c, const int64_t *a0, const int64_t *n, Py_ssize_t k,
                               int64_t total)
{
    int nd = PyArray_NDIM(c->arr);
    npy_intp dims[NPY_MAXDIMS];
    dims[0] = (npy_intp)total;
    for (int d = 1; d < nd; d++)
        dims[d] = PyArray_DIM(c->arr, d);
    PyArray_Descr *dt = PyArray_DESCR(c->arr);
    Py_INCREF(dt);
    PyObject *out = PyArray_NewFromDescr(&PyArray_Type, dt, nd, dims, NULL, NULL, 0, NULL);
    if (!out)
        return NULL;
    char *dst = PyArray_BYTES((PyArrayObject *)out);
    const Py_ssize_t rb = c->row_bytes;
    for (Py_ssize_t j = 0; j < k; j++) {
        if (a0[j] + n[j] > c->rows) {
            PyErr_Format(PyExc_IndexError, "_fast: atom rows %lld..%lld outside the column's %zd",
                         (long long)a0[j], (long long)(a0[j] + n[j]), c->rows);
            Py_DECREF(out);
            return NULL;
        }
        if (j + 8 < k && a0[j + 8] + n[j + 8] <= c->rows)
            prefetch_rows(c->base + a0[j + 8] * rb, n[j + 8] * rb);
        size_t len = (size_t)(n[j] * rb);
        memcpy(dst, c->base + a0[j] * rb, len);
        dst += len;
    }
    return out;
}

/** Reader._gather(idx, columns) -> (n, offsets, [arrays]): get_sites_flat's atom rows in one C loop.
 *  @p idx: site rows, int64 (k,) (any integer array is converted; get_sites_flat passes them checked and
 *  wrapped into [0, N)); @p columns: a sequence of /atoms columns (C-contiguous ndarrays with as many rows as
 *  atom_ptr's last value, e.g. the mapped views). Returns n (k,) int64 atoms of each site, offsets (k + 1,)
 *  int64, and for each column a new (offsets[-1],) + tail array of its dtype holding the sites' rows in
 *  request order. Raises ValueError when closed, IndexError for an index outside [0, N), TypeError /
 *  ValueError for a column that is not such an array. */
static PyObject *reader_gather(Reader *r, PyObject *args)
{
    PyObject *idx_obj, *cols_obj;
    if (!PyArg_ParseTuple(args, "OO:_gather", &idx_obj, &cols_obj))
        return NULL;
    if (!r->ready)
        return closed_error(r);
    PyArrayObject *idx = (PyArrayObject *)PyArray_FROM_OTF(idx_obj, NPY_INT64, NPY_ARRAY_IN_ARRAY);
    if (!idx)
        return NULL;
    PyObject *seq = PySequence_Fast(cols_obj, "_gather: columns must be a sequence"), *n = NULL, *off = NULL;
    PyObject *outs = NULL, *res = NULL;
    int64_t *a0 = NULL;
    if (!seq)
        goto done;
    Py_ssize_t k = PyArray_SIZE(idx), nc = PySequence_Fast_GET_SIZE(seq);
    const int64_t *ix = (const int64_t *)PyArray_DATA(idx);
    a0 = PyMem_Malloc((size_t)(k > 0 ? k : 1) * sizeof *a0);
    if (!a0) {
        PyErr_NoMemory();
        goto done;
    }
    if (site_blocks(r, ix, k, a0, &n, &off))
        goto done;
    const int64_t *na = (const int64_t *)PyArray_DATA((PyArrayObject *)n);
    int64_t total = ((const int64_t *)PyArray_DATA((PyArrayObject *)off))[k];
    outs = PyList_New(nc);
    if (!outs)
        goto done;
    for (Py_ssize_t f = 0; f < nc; f++) {
        Column c = {0};
        if (column_from(PySequence_Fast_GET_ITEM(seq, f), "an atom column", 0, 0, &c) < 0)
            goto done;
        PyObject *a = gather_column(&c, a0, na, k, total);
        Py_DECREF(c.arr);
        if (!a)
            goto done;
        PyList_SET_ITEM(outs, f, a);
    }
    res = PyTuple_Pack(3, n, off, outs);
done:
    PyMem_Free(a0);
    Py_DECREF(idx);
    Py_XDECREF(seq);
    Py_XDECREF(n);
    Py_XDECREF(off);
    Py_XDECREF(outs);
    return res;
}

static PyMethodDef reader_methods[] = {
    {"_fast_init", (PyCFunction)reader_init, METH_VARARGS,
     "_fast_init(path, site_type, atom_ptr, n_ligand, position, element, flags): take the mapped arrays"},
    {"_fast_close", (PyCFunction)reader_close, METH_NOARGS, "_fast_close(): drop the arrays"},
    {"_gather", (PyCFunction)reader_gather, METH_VARARGS,
     "_gather(idx, columns) -> (n, offsets, [arrays]): the atom rows of sites idx of each column"},
    {NULL, NULL, 0, NULL}};

static PyMappingMethods reader_mapping = {0, (binaryfunc)reader_getitem, 0};

static PyTypeObject ReaderType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sitepack._fast.Reader",
    .tp_doc = "Base of the compiled Dataset: ds[i] and the flat gather in C (sitepack/_fast.c).",
    .tp_basicsize = sizeof(Reader),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = reader_new,
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_traverse = (traverseproc)reader_traverse,
    .tp_clear = (inquiry)reader_clear,
    .tp_as_mapping = &reader_mapping,
    .tp_methods = reader_methods,
};

/* ---- SiteBase ---- */

static int site_traverse(SiteBase *s, visitproc visit, void *arg)
{
    Py_VISIT((PyObject *)s->ds);
    return 0;
}

static int site_clear(SiteBase *s)
{
    Py_CLEAR(s->ds);
    return 0;
}

static void site_dealloc(SiteBase *s)
{
    PyTypeObject *tp = Py_TYPE(s);
    PyObject_GC_UnTrack(s);
    Py_CLEAR(s->ds);
    tp->tp_free((PyObject *)s);
}

static PyObject *site_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    SP_UNUSED(type);
    SP_UNUSED(args);
    SP_UNUSED(kwds);
    PyErr_SetString(PyExc_TypeError, "a compiled Site comes from ds[i]");
    return NULL;
}

/** The reader of a site, or NULL with ValueError once its dataset is closed. */
static Reader *site_reader(SiteBase *s)
{
    if (!s->ds || !s->ds->ready) {
        if (s->ds)
            closed_error(s->ds);
        else
            PyErr_SetString(PyExc_ValueError, "the dataset is closed");
        return NULL;
    }
    return s->ds;
}

/** Site.positions: (n_atoms, 3) float32, Å, a new array (a copy of the site's rows). */
static PyObject *site_positions(SiteBase *s, void *unused)
{
    SP_UNUSED(unused);
    Reader *r = site_reader(s);
    return r ? copy_rows(&r->pos, s->a0, s->a1) : NULL;
}

/** Site.elements: (n_atoms,) uint8 atomic numbers, a new array. */
static PyObject *site_elements(SiteBase *s, void *unused)
{
    SP_UNUSED(unused);
    Reader *r = site_reader(s);
    return r ? copy_rows(&r->elem, s->a0, s->a1) : NULL;
}

/** Site.flags: (n_atoms,) uint16 atom flag bits, a new array. */
static PyObject *site_flags(SiteBase *s, void *unused)
{
    SP_UNUSED(unused);
    Reader *r = site_reader(s);
    return r ? copy_rows(&r->flags, s->a0, s->a1) : NULL;
}

/** Site.n_ligand: int, the site's first n_ligand atoms are the ligand's. */
static PyObject *site_n_ligand(SiteBase *s, void *unused)
{
    SP_UNUSED(unused);
    Reader *r = site_reader(s);
    if (!r)
        return NULL;
    if (s->index < 0 || s->index >= r->n_sites) {
        PyErr_Format(PyExc_IndexError, "_fast: site %zd outside [0, %zd)", s->index, r->n_sites);
        return NULL;
    }
    return PyLong_FromLong((long)r->nlig[s->index]);
}

/** Site.n_atoms: int, atoms of the site's block (valid after the close too, as in pure Python). */
static PyObject *site_n_atoms(SiteBase *s, void *unused)
{
    SP_UNUSED(unused);
    return PyLong_FromSsize_t(s->a1 - s->a0);
}

static PyGetSetDef site_getset[] = {
    {"positions", (getter)site_positions, NULL, "(n_atoms, 3) float32, Å: Cartesian coordinates (a copy)", NULL},
    {"elements", (getter)site_elements, NULL, "(n_atoms,) uint8: atomic numbers, 0 unknown (a copy)", NULL},
    {"flags", (getter)site_flags, NULL, "(n_atoms,) uint16: atom flag bits, sitepack.ATOM_FLAGS (a copy)", NULL},
    {"n_ligand", (getter)site_n_ligand, NULL, "int: ligand atoms, the first n_ligand rows of every atom array",
     NULL},
    {"n_atoms", (getter)site_n_atoms, NULL, "int: atoms of the site's block", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef site_members[] = {
    {"_ds", T_OBJECT, offsetof(SiteBase, ds), READONLY, "the Dataset"},
    {"index", T_PYSSIZET, offsetof(SiteBase, index), READONLY, "int: row of /sites"},
    {"_a0", T_PYSSIZET, offsetof(SiteBase, a0), READONLY, "first atom row"},
    {"_a1", T_PYSSIZET, offsetof(SiteBase, a1), READONLY, "atom row after the last"},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject SiteBaseType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sitepack._fast.SiteBase",
    .tp_doc = "Base of the compiled Site: the atom arrays and counts as C getters (sitepack/_fast.c).",
    .tp_basicsize = sizeof(SiteBase),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_new = site_new,
    .tp_dealloc = (destructor)site_dealloc,
    .tp_traverse = (traverseproc)site_traverse,
    .tp_clear = (inquiry)site_clear,
    .tp_getset = site_getset,
    .tp_members = site_members,
};

/* ---- radius_edges: the atom pairs within r of each sample of a graph batch ---- */

/** A growing list of (src, dst, dist) edges. */
typedef struct {
    int64_t *src, *dst;
    float *dist;
    Py_ssize_t n, cap;
} EdgeList;

/** Append one edge; 0, or -1 with MemoryError. */
static int edge_push(EdgeList *e, int64_t s, int64_t d, double dist)
{
    if (e->n == e->cap) {
        Py_ssize_t cap = e->cap ? 2 * e->cap : 1024;
        int64_t *ns = PyMem_Realloc(e->src, (size_t)cap * sizeof *ns);
        if (ns)
            e->src = ns;
        int64_t *nd = ns ? PyMem_Realloc(e->dst, (size_t)cap * sizeof *nd) : NULL;
        if (nd)
            e->dst = nd;
        float *nf = nd ? PyMem_Realloc(e->dist, (size_t)cap * sizeof *nf) : NULL;
        if (!nf) {
            PyErr_NoMemory();
            return -1;
        }
        e->dist = nf;
        e->cap = cap;
    }
    e->src[e->n] = s;
    e->dst[e->n] = d;
    e->dist[e->n] = (float)dist;
    e->n++;
    return 0;
}

/** The squared distance of rows i and j of the (A, 3) float32 positions @p p, in double, in this order of
 *  operations: ((dx * dx + dy * dy) + dz * dz), dx = x_i - x_j in double (the pure-Python path's numpy
 *  expression, so both paths keep the same pairs; no contraction into fused multiply-adds: -ffp-contract=off). */
static inline double dist2(const float *p, int64_t i, int64_t j)
{
    double dx = (double)p[3 * i] - (double)p[3 * j];
    double dy = (double)p[3 * i + 1] - (double)p[3 * j + 1];
    double dz = (double)p[3 * i + 2] - (double)p[3 * j + 2];
    double xx = dx * dx, yy = dy * dy, zz = dz * dz;
    return (xx + yy) + zz;
}

/** The pairs of one sample (rows a0 .. a0 + n, its first nl the ligand's) with d2 <= r2, in row-major order:
 *  ligand mode (all_pairs 0): i ligand, j not; all pairs: i < j. Returns 0 or -1 (MemoryError). */
static int sample_pairs(const float *p, int64_t a0, int64_t n, int64_t nl, double r2, int all_pairs, EdgeList *e)
{
    int64_t i_end = all_pairs ? a0 + n : a0 + nl;
    for (int64_t i = a0; i < i_end; i++) {
        for (int64_t j = all_pairs ? i + 1 : a0 + nl; j < a0 + n; j++) {
            double d2 = dist2(p, i, j);
            if (d2 <= r2 && edge_push(e, i, j, sqrt(d2)))
                return -1;
        }
    }
    return 0;
}

/** A new 1-D array of @p n items of @p type from @p src (copied). */
static PyObject *array_from(const void *src, Py_ssize_t n, int type, size_t item)
{
    npy_intp d = n;
    PyObject *a = PyArray_SimpleNew(1, &d, type);
    if (a && n)
        memcpy(PyArray_DATA((PyArrayObject *)a), src, (size_t)n * item);
    return a;
}

/** The ndarray @p obj as C-contiguous of @p type and @p ndim dims (a new reference), or NULL with an error. */
static PyArrayObject *as_array(PyObject *obj, int type, int ndim, const char *name)
{
    PyArrayObject *a = (PyArrayObject *)PyArray_FROM_OTF(obj, type, NPY_ARRAY_IN_ARRAY);
    if (a && PyArray_NDIM(a) != ndim) {
        PyErr_Format(PyExc_ValueError, "radius_edges: %s must have %d dimensions", name, ndim);
        Py_CLEAR(a);
    }
    return a;
}

/** Check the radius_edges arguments: positions (A, 3), offsets (k + 1,) from 0, never decreasing, ending
 *  at most at A, n_ligand (k,) each in [0, n of its sample]. 0, or -1 with ValueError. */
static int radius_args_ok(PyArrayObject *pos, PyArrayObject *off, PyArrayObject *nl)
{
    Py_ssize_t k = PyArray_DIM(nl, 0);
    const int64_t *o = PyArray_DATA(off), *l = PyArray_DATA(nl);
    if (PyArray_DIM(pos, 1) != 3 || PyArray_DIM(off, 0) != k + 1 || o[0] != 0) {
        PyErr_SetString(PyExc_ValueError, "radius_edges: positions must be (A, 3), offsets (k + 1,) from 0, "
                        "n_ligand (k,)");
        return -1;
    }
    for (Py_ssize_t j = 0; j < k; j++)
        if (o[j + 1] < o[j] || o[j + 1] > PyArray_DIM(pos, 0) || l[j] < 0 || l[j] > o[j + 1] - o[j]) {
            PyErr_Format(PyExc_ValueError, "radius_edges: sample %zd: rows %lld..%lld, n_ligand %lld do not fit "
                         "the %zd positions", j, (long long)o[j], (long long)o[j + 1], (long long)l[j],
                         (Py_ssize_t)PyArray_DIM(pos, 0));
            return -1;
        }
    return 0;
}

/** radius_edges(positions, offsets, n_ligand, r, all_pairs) -> (src, dst, dist, counts): the pairs within
 *  @p r Å of each sample of a batch. positions (A, 3) float32 Å; offsets (k + 1,) int64, sample j's rows
 *  offsets[j]..offsets[j + 1]; n_ligand (k,) int64, its first rows the ligand's; all_pairs false: ligand atom
 *  i - non-ligand atom j of the same sample, true: every i < j of the sample; a pair is kept when
 *  ((dx^2 + dy^2) + dz^2) <= r^2 in double. Returns src, dst (E,) int64 batch rows, dist (E,) float32 Å
 *  (sqrt of that sum, rounded once), counts (k,) int64 edges of each sample, in sample order then row-major.
 *  Raises ValueError for arrays of other shapes, MemoryError. */
static PyObject *radius_edges(PyObject *self, PyObject *args)
{
    SP_UNUSED(self);
    PyObject *po, *oo, *lo, *res = NULL;
    double r;
    int all_pairs;
    if (!PyArg_ParseTuple(args, "OOOdp:radius_edges", &po, &oo, &lo, &r, &all_pairs))
        return NULL;
    PyArrayObject *pos = as_array(po, NPY_FLOAT32, 2, "positions"), *off = NULL, *nl = NULL;
    off = pos ? as_array(oo, NPY_INT64, 1, "offsets") : NULL;
    nl = off ? as_array(lo, NPY_INT64, 1, "n_ligand") : NULL;
    EdgeList e = {0};
    PyObject *counts = NULL;
    if (!nl || radius_args_ok(pos, off, nl))
        goto done;
    Py_ssize_t k = PyArray_DIM(nl, 0);
    const int64_t *o = PyArray_DATA(off), *l = PyArray_DATA(nl);
    npy_intp dk = k;
    counts = PyArray_SimpleNew(1, &dk, NPY_INT64);
    if (!counts)
        goto done;
    int64_t *c = PyArray_DATA((PyArrayObject *)counts);
    const float *p = PyArray_DATA(pos);
    for (Py_ssize_t j = 0; j < k; j++) {
        Py_ssize_t before = e.n;
        if (sample_pairs(p, o[j], o[j + 1] - o[j], l[j], r * r, all_pairs, &e))
            goto done;
        c[j] = e.n - before;
    }
    PyObject *s = array_from(e.src, e.n, NPY_INT64, 8), *d = array_from(e.dst, e.n, NPY_INT64, 8);
    PyObject *f = array_from(e.dist, e.n, NPY_FLOAT32, 4);
    if (s && d && f)
        res = PyTuple_Pack(4, s, d, f, counts);
    Py_XDECREF(s);
    Py_XDECREF(d);
    Py_XDECREF(f);
done:
    PyMem_Free(e.src);
    PyMem_Free(e.dst);
    PyMem_Free(e.dist);
    Py_XDECREF(counts);
    Py_XDECREF(pos);
    Py_XDECREF(off);
    Py_XDECREF(nl);
    return res;
}

static PyMethodDef module_methods[] = {
    {"radius_edges", radius_edges, METH_VARARGS,
     "radius_edges(positions, offsets, n_ligand, r, all_pairs) -> (src, dst, dist, counts): pairs within r"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef fast_module = {
    PyModuleDef_HEAD_INIT, "sitepack._fast",
    "The compiled reader of sitepack (ds[i] and get_sites_flat's gather in C); optional, see docs/python.md.",
    -1, module_methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__fast(void)
{
    import_array();
    if (PyType_Ready(&ReaderType) < 0 || PyType_Ready(&SiteBaseType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&fast_module);
    if (!m)
        return NULL;
    Py_INCREF(&ReaderType);
    Py_INCREF(&SiteBaseType);
    if (PyModule_AddObject(m, "Reader", (PyObject *)&ReaderType) < 0 ||
        PyModule_AddObject(m, "SiteBase", (PyObject *)&SiteBaseType) < 0 ||
        PyModule_AddIntConstant(m, "ABI", SP_FAST_ABI) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
