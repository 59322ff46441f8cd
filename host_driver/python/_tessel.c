/* tessel._tessel: the CPython binding of libtessel (host_driver/include/tessel.h).
 *
 * open() gives a RawDevice whose methods are the library's calls one to one. A call's struct is
 * filled from arguments named as its fields (keywords, or positions in the order of the tables
 * below); operands are buffers (the buffer protocol, C-contiguous: no numpy C API). Before the
 * library sees a buffer, its element type and length are checked against the sizes given, so no
 * argument can make the library read or write past one. The package (tessel/__init__.py) adds the
 * numpy layer: shapes, dtypes, output arrays.
 * Errors: every failure raises tessel.Error(status, message), status a tessel_status_t: EINVAL for
 * a bad argument (found here, or by the library: nothing was touched), else what the library
 * returned, with tessel_last_error() as the message.
 * Threads: each library call runs without the GIL; a lock per device serialises its calls, and
 * close() waits for the one in progress.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pythread.h>

#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tessel.h"
#include "tsl_hw.h"

/* ---- tessel.Error --------------------------------------------------------------------------- */
/* The name of a status without its TESSEL_ prefix, NULL for a code that is none. The switch has no
 * default, so -Wswitch keeps it complete; the codes are 0, -1, -2, ... (tessel.h). */
static const char *status_name(int status)
{
#define NAME(s)                                                                                          \
    case TESSEL_##s: return #s
    switch ((tessel_status_t)status) {
        NAME(OK);
        NAME(EINVAL);
        NAME(ENOMEM);
        NAME(ETIMEOUT);
        NAME(EDEVICE);
        NAME(ENODEV);
        NAME(ERANGE);
        NAME(EIO);
        NAME(EMISMATCH);
    }
#undef NAME
    return NULL;
}

/* args[i] of an Error, or None (args can be reassigned). */
static PyObject *error_arg(PyObject *self, Py_ssize_t i)
{
    PyObject *args = ((PyBaseExceptionObject *)self)->args;
    return Py_NewRef(args && PyTuple_Check(args) && PyTuple_GET_SIZE(args) > i ? PyTuple_GET_ITEM(args, i) : Py_None);
}

static PyObject *error_status(PyObject *self, void *closure)
{
    (void)closure;
    return error_arg(self, 0);
}

static PyObject *error_message(PyObject *self, void *closure)
{
    (void)closure;
    return error_arg(self, 1);
}

static const char *error_name_of(PyObject *self)
{
    PyObject *s = error_arg(self, 0);
    int overflow = 0;
    long v = PyLong_Check(s) ? PyLong_AsLongAndOverflow(s, &overflow) : 1;
    Py_DECREF(s);
    return overflow || v < INT_MIN || v > INT_MAX ? NULL : status_name((int)v);
}

static PyObject *error_name(PyObject *self, void *closure)
{
    (void)closure;
    const char *name = error_name_of(self);
    return name ? PyUnicode_FromString(name) : Py_NewRef(Py_None);
}

static int error_init(PyObject *self, PyObject *args, PyObject *kwds)
{
    int status;
    PyObject *message;
    if (!PyArg_ParseTuple(args, "iU:Error", &status, &message))
        return -1;
    if (status == TESSEL_OK || !status_name(status)) {
        PyErr_Format(PyExc_ValueError, "Error: %d is not a failing tessel_status_t", status);
        return -1;
    }
    return ((PyTypeObject *)PyExc_Exception)->tp_init(self, args, kwds);
}

static PyObject *error_str(PyObject *self)
{
    const char *name = error_name_of(self);
    PyObject *message = error_arg(self, 1), *s = PyUnicode_FromFormat("%s: %S", name ? name : "?", message);
    Py_DECREF(message);
    return s;
}

static PyGetSetDef error_getset[] = {
    {"status", error_status, NULL, "the tessel_status_t, an int (tessel.h)", NULL},
    {"name", error_name, NULL, "the status's name without TESSEL_: 'EINVAL', 'EDEVICE', ...", NULL},
    {"message", error_message, NULL, "what failed: tessel_last_error(), or the argument check's text", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* tp_base (Exception) is set by the module's init; GC, new and dealloc are inherited. */
static PyTypeObject error_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessel.Error",
    .tp_basicsize = sizeof(PyBaseExceptionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Error(status, message): a libtessel call failed, or an argument was refused before any\n"
              "call (status EINVAL). .status is the tessel_status_t, .name its name ('EINVAL'),\n"
              ".message the library's tessel_last_error() or the check's text.",
    .tp_init = error_init,
    .tp_str = error_str,
    .tp_getset = error_getset,
};

/* Raise tessel.Error(status, the PyUnicode_FromFormat text); returns NULL. */
static PyObject *fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, ap);
    va_end(ap);
    PyObject *e = msg ? PyObject_CallFunction((PyObject *)&error_type, "iN", status, msg) : NULL;
    if (e) {
        PyErr_SetObject((PyObject *)&error_type, e);
        Py_DECREF(e);
    }
    return NULL;
}

/* A failed library call: its status, and tessel_last_error() (why `dev` failed; NULL: why this
 * thread's tessel_open or tessel_f32_arg failed), or tessel_strerror() when that is empty. */
static PyObject *fail_status(tessel_status_t st, tessel_dev_t *dev)
{
    const char *why = tessel_last_error(dev);
    return fail(st, "%s", *why ? why : tessel_strerror(st));
}

/* ---- arguments -------------------------------------------------------------------------------- */
/* What an argument is converted to, and the C type it is stored as. */
typedef enum {
    K_U32,    /* uint32_t, 0..UINT32_MAX */
    K_I32,    /* int32_t */
    K_U63,    /* uint64_t, 0..LLONG_MAX: addresses, handles, byte counts */
    K_SCALE,  /* float, a scale: tessel_f32_arg(TESSEL_ARG_SCALE) checks and converts the double;
                 None gives 0, the library's "not given" */
    K_EPS,    /* float, an eps: tessel_f32_arg(TESSEL_ARG_EPS) */
    K_BOOL,   /* int, 0 or 1 */
    K_DTYPE,  /* tessel_dtype_t, by name: "int8", "bf16", "int32", "fp32" */
    K_POOL,   /* tessel_pool_kind_t, by name: "max", "avg" */
    K_EWOP,   /* tessel_eltwise_op_t, by name: "add", "mul", ..., "rsqrt", "mov" */
    K_ROWFN,  /* tessel_row_fn_t, by name: "softmax", "layernorm", "rmsnorm", "gelu", "silu", "sum" */
    K_EPI,    /* tessel_epilogue_t, by name: TESSEL_EPILOGUE_NAMES ("gelu", "add_c", ...); None gives NONE */
    K_F32,    /* float, a value (an immediate operand): any number, rounded to float32 */
    K_STR,    /* const char *, UTF-8 without NUL; None gives NULL */
    K_OBJ,    /* PyObject * (borrowed from the call's arguments); None gives NULL */
} kind_t;

typedef struct {
    const char *name;
    kind_t kind;
    size_t off;    /* in the call's struct */
    int need;      /* required */
} field_t;

#define NFIELDS(t) (sizeof(t) / sizeof((t)[0]))

/* The names of the K_DTYPE, K_POOL, K_EWOP and K_ROWFN values. */
static const struct {
    kind_t kind;
    int value;
    const char *name;
} enum_names[] = {{K_DTYPE, TESSEL_INT8, "int8"},   {K_DTYPE, TESSEL_BF16, "bf16"},    {K_DTYPE, TESSEL_INT32, "int32"},
                  {K_DTYPE, TESSEL_FP32, "fp32"},   {K_POOL, TESSEL_POOL_MAX, "max"},  {K_POOL, TESSEL_POOL_AVG, "avg"},
                  {K_EWOP, TESSEL_EW_ADD, "add"},   {K_EWOP, TESSEL_EW_MUL, "mul"},    {K_EWOP, TESSEL_EW_MAX, "max"},
                  {K_EWOP, TESSEL_EW_MIN, "min"},   {K_EWOP, TESSEL_EW_RELU, "relu"},  {K_EWOP, TESSEL_EW_EXP, "exp"},
                  {K_EWOP, TESSEL_EW_RECIP, "recip"}, {K_EWOP, TESSEL_EW_RSQRT, "rsqrt"}, {K_EWOP, TESSEL_EW_MOV, "mov"},
                  {K_ROWFN, TESSEL_ROW_SOFTMAX, "softmax"}, {K_ROWFN, TESSEL_ROW_LAYERNORM, "layernorm"},
                  {K_ROWFN, TESSEL_ROW_RMSNORM, "rmsnorm"}, {K_ROWFN, TESSEL_ROW_GELU, "gelu"},
                  {K_ROWFN, TESSEL_ROW_SILU, "silu"}, {K_ROWFN, TESSEL_ROW_SUM, "sum"}};

/* o, the name of a K_DTYPE, K_POOL, K_EWOP or K_ROWFN value, into the enum at `at`; 0, or -1 after
 * raising. */
static int store_name(void *at, const field_t *f, PyObject *o)
{
    const char *s = PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    PyErr_Clear();
    PyObject *names = PyList_New(0);
    for (size_t i = 0; names && i < NFIELDS(enum_names); i++) {
        if (enum_names[i].kind != f->kind)
            continue;
        if (s && !strcmp(s, enum_names[i].name)) {
            if (f->kind == K_DTYPE)
                *(tessel_dtype_t *)at = (tessel_dtype_t)enum_names[i].value;
            else if (f->kind == K_POOL)
                *(tessel_pool_kind_t *)at = (tessel_pool_kind_t)enum_names[i].value;
            else if (f->kind == K_ROWFN)
                *(tessel_row_fn_t *)at = (tessel_row_fn_t)enum_names[i].value;
            else
                *(tessel_eltwise_op_t *)at = (tessel_eltwise_op_t)enum_names[i].value;
            Py_DECREF(names);
            return 0;
        }
        PyObject *n = PyUnicode_FromString(enum_names[i].name);
        if (!n || PyList_Append(names, n))
            Py_CLEAR(names);
        Py_XDECREF(n);
    }
    if (names)
        fail(TESSEL_EINVAL, "%s must be one of %S, not %.80R", f->name, names, o);
    Py_XDECREF(names);
    return -1;
}

/* o as an integer in lo..hi (anything with __index__); 0, or -1 after raising. */
static int int_arg(PyObject *o, const char *name, long long lo, long long hi, long long *out)
{
    PyObject *i = PyNumber_Index(o);
    int overflow = 0;
    long long v = i ? PyLong_AsLongLongAndOverflow(i, &overflow) : 0;
    Py_XDECREF(i);
    if (!i || overflow || v < lo || v > hi) {
        PyErr_Clear();
        fail(TESSEL_EINVAL, "%s must be an integer in %lld..%lld, not %.80R", name, lo, hi, o);
        return -1;
    }
    *out = v;
    return 0;
}

static const char *const epilogue_names[TESSEL_EPILOGUE_COUNT] = TESSEL_EPILOGUE_NAMES;

/* The names of the epilogues as a tuple (None for "none"), or NULL after raising. */
static PyObject *epilogue_tuple(void)
{
    PyObject *t = PyTuple_New(TESSEL_EPILOGUE_COUNT);
    for (int i = 0; t && i < TESSEL_EPILOGUE_COUNT; i++) {
        PyObject *s = i ? PyUnicode_FromString(epilogue_names[i]) : Py_NewRef(Py_None);
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

/* o, None or the name of an epilogue, into the tessel_epilogue_t at `at`; 0, or -1 after raising. */
static int store_epilogue(void *at, const field_t *f, PyObject *o)
{
    const char *s = o == Py_None ? epilogue_names[0] : PyUnicode_Check(o) ? PyUnicode_AsUTF8(o) : NULL;
    PyErr_Clear();
    for (int i = 0; s && i < TESSEL_EPILOGUE_COUNT; i++)
        if (!strcmp(s, epilogue_names[i])) {
            *(tessel_epilogue_t *)at = (tessel_epilogue_t)i;
            return 0;
        }
    PyObject *names = epilogue_tuple();
    if (names)
        fail(TESSEL_EINVAL, "%s must be one of %S, not %.80R", f->name, names, o);
    Py_XDECREF(names);
    return -1;
}

/* Store argument `o` of field f into the struct at base; 0, or -1 after raising. */
static int store(char *base, const field_t *f, PyObject *o)
{
    void *at = base + f->off;
    long long v;
    if (f->kind == K_U32) {
        if (int_arg(o, f->name, 0, UINT32_MAX, &v))
            return -1;
        *(uint32_t *)at = (uint32_t)v;
    } else if (f->kind == K_I32) {
        if (int_arg(o, f->name, INT32_MIN, INT32_MAX, &v))
            return -1;
        *(int32_t *)at = (int32_t)v;
    } else if (f->kind == K_U63) {
        if (int_arg(o, f->name, 0, LLONG_MAX, &v))
            return -1;
        *(uint64_t *)at = (uint64_t)v;
    } else if (f->kind == K_SCALE && o == Py_None) {
        *(float *)at = 0.0f;   /* not given: the library's "none" */
    } else if (f->kind == K_SCALE || f->kind == K_EPS || f->kind == K_F32) {
        double d = PyFloat_AsDouble(o);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            fail(TESSEL_EINVAL, "%s must be a number, not %.80R", f->name, o);
            return -1;
        }
        if (f->kind == K_F32) {   /* an operand's value, as numpy's float32() rounds it */
            *(float *)at = (float)d;
            return 0;
        }
        /* the library's one rule for the argument, with its message */
        tessel_status_t st = tessel_f32_arg(f->name, d, f->kind == K_SCALE ? TESSEL_ARG_SCALE : TESSEL_ARG_EPS,
                                            (float *)at);
        if (st != TESSEL_OK) {
            fail_status(st, NULL);
            return -1;
        }
    } else if (f->kind == K_BOOL) {
        int t = PyObject_IsTrue(o);
        if (t < 0)
            return -1;
        *(int *)at = t;
    } else if (f->kind == K_STR) {
        Py_ssize_t len = 0;
        const char *s = o == Py_None ? NULL : PyUnicode_Check(o) ? PyUnicode_AsUTF8AndSize(o, &len) : NULL;
        if (o != Py_None && (!s || strlen(s) != (size_t)len)) {
            PyErr_Clear();
            fail(TESSEL_EINVAL, "%s must be a str without NUL characters, or None, not %.80R", f->name, o);
            return -1;
        }
        *(const char **)at = s;
    } else if (f->kind == K_OBJ) {
        *(PyObject **)at = o == Py_None ? NULL : o;
    } else if (f->kind == K_EPI) {
        return store_epilogue(at, f, o);
    } else {
        return store_name(at, f, o);
    }
    return 0;
}

/* Fill the struct at op from the call's arguments: positions in the order of the table, then
 * keywords; every field with `need` given. Unset fields keep their values. A table has at most
 * MAX_FIELDS fields. 0, or -1 after raising. */
#define MAX_FIELDS 32

static int fill(void *op, const field_t *f, size_t nf, const char *what, PyObject *args, PyObject *kw)
{
    unsigned char seen[MAX_FIELDS] = {0};
    Py_ssize_t npos = PyTuple_GET_SIZE(args);
    if ((size_t)npos > nf) {
        fail(TESSEL_EINVAL, "%s takes at most %zu arguments (%zd given)", what, nf, npos);
        return -1;
    }
    for (Py_ssize_t i = 0; i < npos; i++) {
        if (store(op, &f[i], PyTuple_GET_ITEM(args, i)))
            return -1;
        seen[i] = 1;
    }
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &key, &val)) {
        const char *name = PyUnicode_AsUTF8(key);
        size_t i = 0;
        while (name && i < nf && strcmp(f[i].name, name))
            i++;
        if (!name || i == nf) {
            PyErr_Clear();
            fail(TESSEL_EINVAL, "%s takes no argument %S", what, key);
            return -1;
        }
        if (seen[i]) {
            fail(TESSEL_EINVAL, "%s: %s given twice", what, name);
            return -1;
        }
        if (store(op, &f[i], val))
            return -1;
        seen[i] = 1;
    }
    for (size_t i = 0; i < nf; i++)
        if (f[i].need && !seen[i]) {
            fail(TESSEL_EINVAL, "%s needs %s", what, f[i].name);
            return -1;
        }
    return 0;
}

/* ---- buffers ---------------------------------------------------------------------------------- */
/* The host element types of the library's operands (tessel.h): int8_t, int32_t and float, with
 * their buffer formats (the struct module's, which numpy's dtypes take too). */
typedef enum { EL_I8, EL_I32, EL_F32 } elem_t;

static const struct {
    const char *name, *format;
    Py_ssize_t size;
} elems[] = {[EL_I8] = {"int8", "b", 1}, [EL_I32] = {"int32", "i", 4}, [EL_F32] = {"float32", "f", 4}};

/* The host type of values of dtype d: int8 in and out, int32 out, float for BF16 and FP32. */
static elem_t elem_of(tessel_dtype_t d)
{
    return d == TESSEL_INT8 ? EL_I8 : d == TESSEL_INT32 ? EL_I32 : EL_F32;
}

/* A buffer's format (native, or little-endian standard on a little-endian host) is el's. */
static int format_is(const Py_buffer *v, elem_t el)
{
    const char *f = v->format ? v->format : "B";
    if (*f == '@' || *f == '=' || (*f == '<' && PY_LITTLE_ENDIAN))
        f++;
    return v->itemsize == elems[el].size && !strcmp(f, elems[el].format);
}

/* The operands of one call, released together; after the first failure `failed` is set and the
 * Error raised. */
typedef struct {
    Py_buffer v[6];                /* the most a call has: x, y, mask, gamma, beta and b */
    int n, failed;
} bufs_t;

/* The product of the sizes, or UINT64_MAX when it does not fit 64 bits. */
static uint64_t count_of(const uint64_t *dims, size_t n)
{
    uint64_t c = 1;
    for (size_t i = 0; i < n; i++)
        if (__builtin_mul_overflow(c, dims[i], &c))
            return UINT64_MAX;
    return c;
}
#define COUNT(...) count_of((const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t))

/* The data of operand `what` (obj NULL: not given, NULL): a C-contiguous buffer of `count`
 * elements of type el, writable for an output. NULL after a failure (b->failed; nothing is
 * acquired once one has failed). */
static void *operand(bufs_t *b, PyObject *obj, const char *what, elem_t el, uint64_t count, int writable)
{
    if (b->failed || !obj)
        return NULL;
    Py_buffer *v = &b->v[b->n];
    if (PyObject_GetBuffer(obj, v, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0))) {
        PyErr_Clear();
        b->failed = 1;
        fail(TESSEL_EINVAL, "%s must be a C-contiguous%s buffer of %s, not %.80R", what, writable ? " writable" : "",
             elems[el].name, obj);
        return NULL;
    }
    b->n++;
    const uint64_t es = (uint64_t)elems[el].size;
    const int huge = count == UINT64_MAX || count > UINT64_MAX / es;   /* count_of's overflow, or the bytes' */
    if (huge || !format_is(v, el) || (uint64_t)v->len != count * es) {
        b->failed = 1;
        if (huge)
            fail(TESSEL_EINVAL, "%s: the sizes given do not fit 64 bits", what);
        else
            fail(TESSEL_EINVAL, "%s must hold %llu elements of %s: it holds %zd bytes of format '%s'", what,
                 (unsigned long long)count, elems[el].name, v->len, v->format ? v->format : "B");
        return NULL;
    }
    return v->buf;
}

static void bufs_release(bufs_t *b)
{
    while (b->n)
        PyBuffer_Release(&b->v[--b->n]);
}

/* ---- the device ------------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    tessel_dev_t *dev;          /* NULL once closed */
    PyThread_type_lock lock;    /* held by the call in progress */
    tessel_stats_t last;        /* what the latest call that ran commands added to the counters */
    int chip;                   /* a chip of a pod: the pod owns and closes its device */
} device_t;

static PyTypeObject device_type;

/* Take the device's lock (without the GIL while waiting for it). 0, or -1 after raising when the
 * device is closed (the lock is not held then). */
static int dev_enter(device_t *self)
{
    if (!PyThread_acquire_lock(self->lock, NOWAIT_LOCK)) {
        Py_BEGIN_ALLOW_THREADS
        PyThread_acquire_lock(self->lock, WAIT_LOCK);
        Py_END_ALLOW_THREADS
    }
    if (self->dev)
        return 0;
    PyThread_release_lock(self->lock);
    fail(TESSEL_EINVAL, "the device is closed");
    return -1;
}

/* The library call `call(dev, op)` with the device's lock held and without the GIL. counted: it
 * runs commands, and self->last becomes what it added to the counters (also when it fails).
 * 0, or -1 after raising. */
typedef tessel_status_t (*call_t)(tessel_dev_t *dev, void *op);

static int dev_call(device_t *self, call_t call, void *op, int counted)
{
    if (dev_enter(self))
        return -1;
    tessel_dev_t *dev = self->dev;
    tessel_stats_t s0 = {0}, s1 = {0};
    tessel_status_t st;
    Py_BEGIN_ALLOW_THREADS
    if (counted)
        (void)tessel_stats(dev, &s0);
    st = call(dev, op);
    if (counted)
        (void)tessel_stats(dev, &s1);
    Py_END_ALLOW_THREADS
    if (counted)
        self->last = (tessel_stats_t){.commands = s1.commands - s0.commands,
                                      .submissions = s1.submissions - s0.submissions, .cycles = s1.cycles - s0.cycles,
                                      .macs = s1.macs - s0.macs, .hbm_bytes = s1.hbm_bytes - s0.hbm_bytes,
                                      .program_cache_hits = s1.program_cache_hits - s0.program_cache_hits,
                                      .program_cache_misses = s1.program_cache_misses - s0.program_cache_misses};
    if (st != TESSEL_OK)
        fail_status(st, dev);   /* under the lock: no other call has replaced tessel_last_error() yet */
    PyThread_release_lock(self->lock);
    return st == TESSEL_OK ? 0 : -1;
}

/* None after a successful dev_call (rc 0), NULL after a failed one. */
static PyObject *result(int rc)
{
    return rc ? NULL : Py_NewRef(Py_None);
}

/* result(rc), the operands released. */
static PyObject *done(bufs_t *b, int rc)
{
    bufs_release(b);
    return result(rc);
}

/* Every method but close() fills its struct, checks its operands and runs one dev_call. */
#define METHOD(name) static PyObject *dev_##name(PyObject *pself, PyObject *args, PyObject *kw)
#define SELF ((device_t *)pself)
#define FLD(T, name, member, kind, need) {name, kind, offsetof(T, member), need}

/* ---- open, close --------------------------------------------------------------------------- */
typedef struct {
    const char *backend, *port, *firmware, *timeline;
    int check;
    tessel_dev_t *dev;
} open_op_t;

static const field_t open_fields[] = {
    FLD(open_op_t, "backend", backend, K_STR, 1),   FLD(open_op_t, "port", port, K_STR, 0),
    FLD(open_op_t, "firmware", firmware, K_STR, 0), FLD(open_op_t, "check", check, K_BOOL, 0),
    FLD(open_op_t, "timeline", timeline, K_STR, 0),
};

static PyObject *mod_open(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    open_op_t op = {0};
    if (fill(&op, open_fields, NFIELDS(open_fields), "open", args, kw))
        return NULL;
    if (!op.backend)
        return fail(TESSEL_EINVAL, "open needs a backend: 'model', 'sim' or 'uart'");
    device_t *self = PyObject_New(device_t, &device_type);
    if (!self)
        return NULL;
    self->dev = NULL;
    self->chip = 0;
    memset(&self->last, 0, sizeof self->last);
    if (!(self->lock = PyThread_allocate_lock())) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    tessel_open_opts_t oo = {.flags = op.check ? TESSEL_OPEN_CHECK : 0u, .firmware = op.firmware,
                             .timeline = op.timeline, .port = op.port};
    tessel_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = tessel_open(&op.dev, op.backend, &oo);
    Py_END_ALLOW_THREADS
    if (st != TESSEL_OK) {
        Py_DECREF(self);
        return fail_status(st, NULL);   /* this thread's, and the GIL was taken back on this thread */
    }
    self->dev = op.dev;
    return (PyObject *)self;
}

/* Close the device (once: later calls raise tessel.Error, closing again does nothing), after the
 * call in progress. */
static PyObject *dev_close(PyObject *pself, PyObject *unused)
{
    (void)unused;
    device_t *self = SELF;
    tessel_dev_t *dev;
    if (self->chip)
        return fail(TESSEL_EINVAL, "a chip of a pod closes with its pod");
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    dev = self->dev;
    self->dev = NULL;
    tessel_close(dev);   /* writes the timeline; NULL is ignored */
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

static void dev_dealloc(PyObject *pself)
{
    device_t *self = SELF;
    if (!self->chip)
        tessel_close(self->dev);
    if (self->lock)
        PyThread_free_lock(self->lock);
    PyObject_Free(self);
}

/* ---- info, stats, last_error --------------------------------------------------------------- */
static tessel_status_t call_info(tessel_dev_t *dev, void *op) { return tessel_info(dev, op); }

METHOD(info)
{
    tessel_info_t in;
    if (fill(&in, NULL, 0, "info", args, kw) || dev_call(SELF, call_info, &in, 0))
        return NULL;
    return Py_BuildValue("{s:s,s:I,s:I,s:I,s:K,s:I,s:I,s:O,s:O}", "backend", in.backend, "n", in.n, "vmem_bytes",
                         in.vmem_bytes, "acc_bytes", in.acc_bytes, "hbm_bytes", (unsigned long long)in.hbm_bytes,
                         "hbm_bytes_per_cycle", in.hbm_bytes_per_cycle, "features", in.features, "int8",
                         (in.features >> TSL_TC_CFG_FEATURES_INT8_SHIFT) & 1u ? Py_True : Py_False, "bf16",
                         (in.features >> TSL_TC_CFG_FEATURES_BF16_SHIFT) & 1u ? Py_True : Py_False);
}

static PyObject *stats_dict(const tessel_stats_t *s)
{
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "commands", (unsigned long long)s->commands, "submissions",
                         (unsigned long long)s->submissions, "cycles",
                         (unsigned long long)s->cycles, "macs", (unsigned long long)s->macs, "hbm_bytes",
                         (unsigned long long)s->hbm_bytes, "program_cache_hits",
                         (unsigned long long)s->program_cache_hits, "program_cache_misses",
                         (unsigned long long)s->program_cache_misses);
}

static tessel_status_t call_stats(tessel_dev_t *dev, void *op) { return tessel_stats(dev, op); }

/* {"last": the latest call that ran commands, "total": since open or stats_reset}, each the
 * tessel_stats_t counters. */
METHOD(stats)
{
    tessel_stats_t total;
    if (fill(&total, NULL, 0, "stats", args, kw) || dev_call(SELF, call_stats, &total, 0))
        return NULL;
    return Py_BuildValue("{s:N,s:N}", "last", stats_dict(&SELF->last), "total", stats_dict(&total));
}

static tessel_status_t call_stats_reset(tessel_dev_t *dev, void *op)
{
    memset(op, 0, sizeof(tessel_stats_t));
    tessel_stats_reset(dev);
    return TESSEL_OK;
}

METHOD(stats_reset)
{
    return result(fill(NULL, NULL, 0, "stats_reset", args, kw) || dev_call(SELF, call_stats_reset, &SELF->last, 0));
}

METHOD(last_error)
{
    if (fill(NULL, NULL, 0, "last_error", args, kw) || dev_enter(SELF))
        return NULL;
    const char *why = tessel_last_error(SELF->dev);
    PyObject *s = PyUnicode_DecodeUTF8(why, (Py_ssize_t)strlen(why), "replace");
    PyThread_release_lock(SELF->lock);
    return s;
}

/* ---- device memory and raw commands ------------------------------------------------------------ */
typedef struct {
    uint64_t bytes, align, addr;
    PyObject *data;
    void *p;
} mem_op_t;

static const field_t alloc_fields[] = {FLD(mem_op_t, "bytes", bytes, K_U63, 1),
                                       FLD(mem_op_t, "align", align, K_U63, 0)};
static const field_t free_fields[] = {FLD(mem_op_t, "addr", addr, K_U63, 1)};
static const field_t rw_fields[] = {FLD(mem_op_t, "addr", addr, K_U63, 1), FLD(mem_op_t, "data", data, K_OBJ, 1)};

static tessel_status_t call_alloc(tessel_dev_t *dev, void *op)
{
    mem_op_t *m = op;
    return tessel_alloc(dev, (size_t)m->bytes, (size_t)m->align, &m->addr);
}

static tessel_status_t call_free(tessel_dev_t *dev, void *op) { return tessel_free(dev, ((mem_op_t *)op)->addr); }

static tessel_status_t call_write(tessel_dev_t *dev, void *op)
{
    mem_op_t *m = op;
    return tessel_write(dev, m->addr, m->p, (size_t)m->bytes);
}

static tessel_status_t call_read(tessel_dev_t *dev, void *op)
{
    mem_op_t *m = op;
    return tessel_read(dev, m->p, m->addr, (size_t)m->bytes);
}

/* alloc(bytes, align=0) -> the HBM address of a new block (align 0: the library's default). */
METHOD(alloc)
{
    mem_op_t m = {0};
    if (fill(&m, alloc_fields, NFIELDS(alloc_fields), "alloc", args, kw) || dev_call(SELF, call_alloc, &m, 0))
        return NULL;
    return PyLong_FromUnsignedLongLong(m.addr);
}

METHOD(free)
{
    mem_op_t m = {0};
    return result(fill(&m, free_fields, NFIELDS(free_fields), "free", args, kw) || dev_call(SELF, call_free, &m, 0));
}

/* write(addr, data) copies the bytes of data (any C-contiguous buffer) to HBM; read(addr, data)
 * fills data (writable) from HBM. */
static PyObject *dev_rw(device_t *self, PyObject *args, PyObject *kw, int writing)
{
    mem_op_t m = {0};
    const char *what = writing ? "write" : "read";
    if (fill(&m, rw_fields, NFIELDS(rw_fields), what, args, kw))
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(m.data, &v, PyBUF_C_CONTIGUOUS | (writing ? 0 : PyBUF_WRITABLE))) {
        PyErr_Clear();
        return fail(TESSEL_EINVAL, "%s: data must be a C-contiguous%s buffer, not %.80R", what,
                    writing ? "" : " writable", m.data);
    }
    m.p = v.buf;
    m.bytes = (uint64_t)v.len;
    int rc = dev_call(self, writing ? call_write : call_read, &m, 0);
    PyBuffer_Release(&v);
    return result(rc);
}

METHOD(write) { return dev_rw(SELF, args, kw, 1); }
METHOD(read) { return dev_rw(SELF, args, kw, 0); }

typedef struct {
    tessel_cmd_t cmd;
    tessel_handle_t h;
    PyObject *timeout;
    uint32_t timeout_ms;
    tessel_completion_t cpl;
} cmd_op_t;

static tessel_status_t call_submit(tessel_dev_t *dev, void *op)
{
    cmd_op_t *c = op;
    return tessel_submit(dev, &c->cmd, &c->h);
}

static tessel_status_t call_wait(tessel_dev_t *dev, void *op)
{
    cmd_op_t *c = op;
    return tessel_wait(dev, c->h, c->timeout_ms, &c->cpl);
}

/* The 16 command words of `words` (a sequence of integers) into *cmd: 0, or -1 with the error set. */
static int words_arg(PyObject *words, tessel_cmd_t *cmd, const char *what)
{
    const size_t nw = sizeof cmd->w / sizeof cmd->w[0];
    PyObject *seq = PySequence_Fast(words, "");
    if (!seq || (size_t)PySequence_Fast_GET_SIZE(seq) != nw) {
        Py_XDECREF(seq);
        PyErr_Clear();
        fail(TESSEL_EINVAL, "%s: words must be a sequence of %zu integers", what, nw);
        return -1;
    }
    for (size_t i = 0; i < nw; i++) {
        long long v;
        if (int_arg(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), "a command word", 0, UINT32_MAX, &v)) {
            Py_DECREF(seq);
            return -1;
        }
        cmd->w[i] = (uint32_t)v;
    }
    Py_DECREF(seq);
    return 0;
}

/* submit(words) queues the 16 command words (docs/isa.md §7; TAG is set by the library) and gives
 * the command's handle. */
METHOD(submit)
{
    static const field_t f[] = {{"words", K_OBJ, 0, 1}};
    PyObject *words = NULL;
    cmd_op_t c = {0};
    if (fill(&words, f, 1, "submit", args, kw) || words_arg(words, &c.cmd, "submit"))
        return NULL;
    if (dev_call(SELF, call_submit, &c, 0))
        return NULL;
    return PyLong_FromUnsignedLongLong(c.h);
}

/* wait(handle, timeout_ms=None) -> the completion {"tag", "status", "opcode", "cycles", "detail"};
 * None waits TESSEL_TIMEOUT_AUTO. A completion with an error status raises EDEVICE. */
METHOD(wait)
{
    static const field_t f[] = {FLD(cmd_op_t, "handle", h, K_U63, 1), FLD(cmd_op_t, "timeout_ms", timeout, K_OBJ, 0)};
    cmd_op_t c = {.timeout_ms = TESSEL_TIMEOUT_AUTO};
    long long ms;
    if (fill(&c, f, NFIELDS(f), "wait", args, kw) ||
        (c.timeout && int_arg(c.timeout, "timeout_ms", 0, UINT32_MAX, &ms)))
        return NULL;
    if (c.timeout)
        c.timeout_ms = (uint32_t)ms;
    if (dev_call(SELF, call_wait, &c, 1))
        return NULL;
    return Py_BuildValue("{s:I,s:i,s:I,s:I,s:I}", "tag", c.cpl.tag, "status", (int)c.cpl.status, "opcode",
                         c.cpl.opcode, "cycles", c.cpl.cycles, "detail", c.cpl.detail);
}

/* ---- custom kernels ---------------------------------------------------------------------------- */
typedef struct {
    tessel_kernel_t k;
    PyObject *image, *args;
    uint64_t budget;
    const void *p;
    size_t bytes;
    uint32_t words[TESSEL_KERNEL_ARGS];
    unsigned nargs;
    tessel_completion_t cpl;
} kernel_op_t;

static tessel_status_t call_kernel_load(tessel_dev_t *dev, void *op)
{
    kernel_op_t *o = op;
    return tessel_kernel_load(dev, o->p, o->bytes, &o->k);
}

static tessel_status_t call_kernel_run(tessel_dev_t *dev, void *op)
{
    kernel_op_t *o = op;
    return tessel_kernel_run(dev, &o->k, o->words, o->nargs, o->budget, &o->cpl);
}

/* kernel_load(image) -> (addr, bytes): tessel_kernel_load of a buffer's bytes (a built kernel image). */
METHOD(kernel_load)
{
    static const field_t f[] = {FLD(kernel_op_t, "image", image, K_OBJ, 1)};
    kernel_op_t o = {0};
    if (fill(&o, f, NFIELDS(f), "kernel_load", args, kw))
        return NULL;
    Py_buffer v;
    if (PyObject_GetBuffer(o.image, &v, PyBUF_C_CONTIGUOUS)) {
        PyErr_Clear();
        return fail(TESSEL_EINVAL, "kernel_load: image must be a C-contiguous buffer (bytes), not %.80R", o.image);
    }
    o.p = v.buf;
    o.bytes = (size_t)v.len;
    int rc = dev_call(SELF, call_kernel_load, &o, 0);
    PyBuffer_Release(&v);
    return rc ? NULL : Py_BuildValue("(KI)", (unsigned long long)o.k.addr, o.k.bytes);
}

/* kernel_run(addr, bytes, args=(), budget=0) -> the kernel's return value: tessel_kernel_run of the
 * kernel (addr, bytes) from kernel_load, with up to TESSEL_KERNEL_ARGS integers, each a uint32 or an
 * int32 (two's complement). */
METHOD(kernel_run)
{
    static const field_t f[] = {FLD(kernel_op_t, "addr", k.addr, K_U63, 1), FLD(kernel_op_t, "bytes", k.bytes, K_U32, 1),
                                FLD(kernel_op_t, "args", args, K_OBJ, 0), FLD(kernel_op_t, "budget", budget, K_U63, 0)};
    kernel_op_t o = {0};
    if (fill(&o, f, NFIELDS(f), "kernel_run", args, kw))
        return NULL;
    if (o.args) {
        PyObject *seq = PySequence_Fast(o.args, "");
        if (!seq || (size_t)PySequence_Fast_GET_SIZE(seq) > TESSEL_KERNEL_ARGS) {
            Py_XDECREF(seq);
            PyErr_Clear();
            return fail(TESSEL_EINVAL, "kernel_run: args must be a sequence of at most %u integers", TESSEL_KERNEL_ARGS);
        }
        o.nargs = (unsigned)PySequence_Fast_GET_SIZE(seq);
        for (unsigned i = 0; i < o.nargs; i++) {
            long long v;
            if (int_arg(PySequence_Fast_GET_ITEM(seq, (Py_ssize_t)i), "a kernel argument", INT32_MIN, UINT32_MAX, &v)) {
                Py_DECREF(seq);
                return NULL;
            }
            o.words[i] = (uint32_t)v;
        }
        Py_DECREF(seq);
    }
    if (dev_call(SELF, call_kernel_run, &o, 1))
        return NULL;
    return PyLong_FromLong((long)(int32_t)o.cpl.detail);
}

/* ---- gemm and bmm ------------------------------------------------------------------------------ */
typedef struct {
    tessel_gemm_t g;
    uint32_t batch;
    PyObject *a, *b, *c, *bias;
} gemm_op_t;

/* tessel_gemm_t's fields (lda, ldb and ldc: dense, set here), then bmm's batch. */
static const field_t gemm_fields[] = {
    FLD(gemm_op_t, "a", a, K_OBJ, 1),
    FLD(gemm_op_t, "b", b, K_OBJ, 1),
    FLD(gemm_op_t, "c", c, K_OBJ, 1),
    FLD(gemm_op_t, "m", g.m, K_U32, 1),
    FLD(gemm_op_t, "n", g.n, K_U32, 1),
    FLD(gemm_op_t, "k", g.k, K_U32, 1),
    FLD(gemm_op_t, "in_dtype", g.in_dtype, K_DTYPE, 1),
    FLD(gemm_op_t, "out_dtype", g.out_dtype, K_DTYPE, 1),
    FLD(gemm_op_t, "bias", bias, K_OBJ, 0),
    FLD(gemm_op_t, "relu", g.relu, K_BOOL, 0),
    FLD(gemm_op_t, "scale", g.scale, K_SCALE, 0),
    FLD(gemm_op_t, "rq_scale", g.rq_scale, K_I32, 0),
    FLD(gemm_op_t, "rq_shift", g.rq_shift, K_U32, 0),
    FLD(gemm_op_t, "rq_zero_point", g.rq_zero_point, K_I32, 0),
    FLD(gemm_op_t, "epilogue", g.epilogue, K_EPI, 0),
    FLD(gemm_op_t, "batch", batch, K_U32, 1),
};

static tessel_status_t call_gemm(tessel_dev_t *dev, void *op) { return tessel_gemm(dev, op, NULL); }

static tessel_status_t call_bmm(tessel_dev_t *dev, void *op)
{
    gemm_op_t *o = op;
    return tessel_bmm(dev, &o->g, o->batch);
}

/* gemm: one block, bmm: `batch` blocks one after another (A batch x m x k, B batch x k x n,
 * C batch x m x n; the bias n values for all). */
static PyObject *gemm_or_bmm(device_t *self, PyObject *args, PyObject *kw, int bmm)
{
    gemm_op_t o = {.batch = 1};
    tessel_gemm_t *g = &o.g;
    if (fill(&o, gemm_fields, NFIELDS(gemm_fields) - !bmm, bmm ? "bmm" : "gemm", args, kw))
        return NULL;
    g->lda = g->k;
    g->ldb = g->n;
    g->ldc = g->n;
    const elem_t in = elem_of(g->in_dtype);
    bufs_t b = {0};
    g->a = operand(&b, o.a, "a", in, COUNT(o.batch, g->m, g->k), 0);
    g->b = operand(&b, o.b, "b", in, COUNT(o.batch, g->k, g->n), 0);
    g->c = operand(&b, o.c, "c", elem_of(g->out_dtype), COUNT(o.batch, g->m, g->n), 1);
    g->bias = operand(&b, o.bias, "bias", in == EL_I8 ? EL_I32 : EL_F32, g->n, 0);
    return done(&b, b.failed || dev_call(self, bmm ? call_bmm : call_gemm, &o, 1));
}

METHOD(gemm) { return gemm_or_bmm(SELF, args, kw, 0); }
METHOD(bmm) { return gemm_or_bmm(SELF, args, kw, 1); }

/* ---- conv2d and pool2d ----------------------------------------------------------------------- */
/* The window fields that tessel_conv2d_t and tessel_pool2d_t share, of the struct T with the
 * library's struct in its member p. */
#define WIN_FIELDS(T)                                                                                   \
    FLD(T, "batch", p.batch, K_U32, 1), FLD(T, "h", p.h, K_U32, 1), FLD(T, "w", p.w, K_U32, 1),            \
    FLD(T, "c", p.c, K_U32, 1), FLD(T, "kh", p.kh, K_U32, 1), FLD(T, "kw", p.kw, K_U32, 1),                  \
    FLD(T, "stride_h", p.stride_h, K_U32, 1), FLD(T, "stride_w", p.stride_w, K_U32, 1),                      \
    FLD(T, "pad_t", p.pad_t, K_U32, 1), FLD(T, "pad_b", p.pad_b, K_U32, 1), FLD(T, "pad_l", p.pad_l, K_U32, 1), \
    FLD(T, "pad_r", p.pad_r, K_U32, 1), FLD(T, "dil_h", p.dil_h, K_U32, 1), FLD(T, "dil_w", p.dil_w, K_U32, 1), \
    FLD(T, "in_dtype", p.in_dtype, K_DTYPE, 1), FLD(T, "out_dtype", p.out_dtype, K_DTYPE, 1),                \
    FLD(T, "x_zero_point", p.x_zero_point, K_I32, 0)

/* The output pixels of window geometry p (batch x oh x ow): 0 when the window does not fit the
 * padded input or a size is 0, which the library refuses. */
#define WIN_PIXELS(p)                                                                                   \
    COUNT((p)->batch, tessel_window_out((p)->h, (p)->pad_t, (p)->pad_b, (p)->kh, (p)->stride_h, (p)->dil_h), \
          tessel_window_out((p)->w, (p)->pad_l, (p)->pad_r, (p)->kw, (p)->stride_w, (p)->dil_w))

typedef struct {
    tessel_conv2d_t p;
    PyObject *x, *weights, *y, *bias;
} conv_op_t;

static const field_t conv_fields[] = {
    FLD(conv_op_t, "x", x, K_OBJ, 1),
    FLD(conv_op_t, "weights", weights, K_OBJ, 1),
    FLD(conv_op_t, "y", y, K_OBJ, 1),
    FLD(conv_op_t, "cout", p.cout, K_U32, 1),
    FLD(conv_op_t, "groups", p.groups, K_U32, 1),
    WIN_FIELDS(conv_op_t),
    FLD(conv_op_t, "bias", bias, K_OBJ, 0),
    FLD(conv_op_t, "relu", p.relu, K_BOOL, 0),
    FLD(conv_op_t, "scale", p.scale, K_SCALE, 0),
    FLD(conv_op_t, "rq_scale", p.rq_scale, K_I32, 0),
    FLD(conv_op_t, "rq_shift", p.rq_shift, K_U32, 0),
    FLD(conv_op_t, "rq_zero_point", p.rq_zero_point, K_I32, 0),
};

_Static_assert(NFIELDS(conv_fields) <= MAX_FIELDS, "conv2d has more fields than fill() takes");

static tessel_status_t call_conv2d(tessel_dev_t *dev, void *op) { return tessel_conv2d(dev, op, NULL); }

METHOD(conv2d)
{
    conv_op_t o = {0};
    tessel_conv2d_t *p = &o.p;
    if (fill(&o, conv_fields, NFIELDS(conv_fields), "conv2d", args, kw))
        return NULL;
    const elem_t in = elem_of(p->in_dtype);
    bufs_t b = {0};
    uint64_t pixels = WIN_PIXELS(p);
    p->x = operand(&b, o.x, "x", in, COUNT(p->batch, p->h, p->w, p->c), 0);
    /* groups 0: no weights (the library refuses it) */
    const uint64_t cg = p->groups ? p->c / p->groups : 0;
    p->weights = operand(&b, o.weights, "weights", in, COUNT(p->kh, p->kw, cg, p->cout), 0);
    p->y = operand(&b, o.y, "y", elem_of(p->out_dtype), COUNT(pixels, p->cout), 1);
    p->bias = operand(&b, o.bias, "bias", in == EL_I8 ? EL_I32 : EL_F32, p->cout, 0);
    return done(&b, b.failed || dev_call(SELF, call_conv2d, &o, 1));
}

typedef struct {
    tessel_pool2d_t p;
    PyObject *x, *y;
} pool_op_t;

static const field_t pool_fields[] = {
    FLD(pool_op_t, "kind", p.kind, K_POOL, 1),
    FLD(pool_op_t, "x", x, K_OBJ, 1),
    FLD(pool_op_t, "y", y, K_OBJ, 1),
    WIN_FIELDS(pool_op_t),
};

static tessel_status_t call_pool2d(tessel_dev_t *dev, void *op) { return tessel_pool2d(dev, op, NULL); }

METHOD(pool2d)
{
    pool_op_t o = {0};
    tessel_pool2d_t *p = &o.p;
    if (fill(&o, pool_fields, NFIELDS(pool_fields), "pool2d", args, kw))
        return NULL;
    bufs_t b = {0};
    uint64_t pixels = WIN_PIXELS(p);
    p->x = operand(&b, o.x, "x", elem_of(p->in_dtype), COUNT(p->batch, p->h, p->w, p->c), 0);
    p->y = operand(&b, o.y, "y", elem_of(p->out_dtype), COUNT(pixels, p->c), 1);
    return done(&b, b.failed || dev_call(SELF, call_pool2d, &o, 1));
}

/* ---- the row functions and the elementwise ones ---------------------------------------------- */
enum { ROW_SOFTMAX, ROW_LAYERNORM, ROW_RMSNORM, ROW_GELU, ROW_SILU, ROW_ELTWISE };

typedef struct {
    int fn;                        /* ROW_* */
    tessel_eltwise_op_t op;
    tessel_rows_t r;
    float scale, eps;
    const float *mask, *gamma, *beta, *b;
    PyObject *x_obj, *y_obj, *mask_obj, *gamma_obj, *beta_obj, *b_obj, *residual_obj;
} rows_op_t;

/* tessel_rows_t's fields (ldx and ldy: dense, set here), then each function's own. */
#define ROWS_FIELDS                                                                                      \
    FLD(rows_op_t, "x", x_obj, K_OBJ, 1), FLD(rows_op_t, "y", y_obj, K_OBJ, 1), FLD(rows_op_t, "m", r.m, K_U32, 1), \
    FLD(rows_op_t, "n", r.n, K_U32, 1), FLD(rows_op_t, "in_dtype", r.in_dtype, K_DTYPE, 1),                    \
    FLD(rows_op_t, "out_dtype", r.out_dtype, K_DTYPE, 1)
#define GAMMA_FIELDS                                                                                     \
    FLD(rows_op_t, "gamma", gamma_obj, K_OBJ, 1), FLD(rows_op_t, "eps", eps, K_EPS, 1),                   \
    FLD(rows_op_t, "residual", residual_obj, K_OBJ, 0)

static const field_t softmax_fields[] = {ROWS_FIELDS, FLD(rows_op_t, "scale", scale, K_SCALE, 0),
                                         FLD(rows_op_t, "mask", mask_obj, K_OBJ, 0)};
static const field_t layernorm_fields[] = {ROWS_FIELDS, GAMMA_FIELDS, FLD(rows_op_t, "beta", beta_obj, K_OBJ, 0)};
static const field_t rmsnorm_fields[] = {ROWS_FIELDS, GAMMA_FIELDS};
static const field_t unary_fields[] = {ROWS_FIELDS};
static const field_t eltwise_fields[] = {ROWS_FIELDS, FLD(rows_op_t, "op", op, K_EWOP, 1),
                                         FLD(rows_op_t, "b", b_obj, K_OBJ, 0)};

static const struct {
    const char *name;
    const field_t *fields;
    size_t n;
} row_fns[] = {{"softmax", softmax_fields, NFIELDS(softmax_fields)},
               {"layernorm", layernorm_fields, NFIELDS(layernorm_fields)},
               {"rmsnorm", rmsnorm_fields, NFIELDS(rmsnorm_fields)},
               {"gelu", unary_fields, NFIELDS(unary_fields)},
               {"silu", unary_fields, NFIELDS(unary_fields)},
               {"eltwise", eltwise_fields, NFIELDS(eltwise_fields)}};

static tessel_status_t call_rows(tessel_dev_t *dev, void *op)
{
    rows_op_t *o = op;
    switch (o->fn) {
    case ROW_SOFTMAX: return tessel_softmax(dev, &o->r, o->scale, o->mask, NULL);
    case ROW_LAYERNORM: return tessel_layernorm(dev, &o->r, o->gamma, o->beta, o->eps, NULL);
    case ROW_RMSNORM: return tessel_rmsnorm(dev, &o->r, o->gamma, o->eps, NULL);
    case ROW_GELU: return tessel_gelu(dev, &o->r, NULL);
    case ROW_SILU: return tessel_silu(dev, &o->r, NULL);
    default: return tessel_eltwise(dev, &o->r, o->op, o->b, NULL);
    }
}

/* x, y, the mask and b are m x n float, gamma and beta n. */
static PyObject *rows(device_t *self, PyObject *args, PyObject *kw, int fn)
{
    rows_op_t o = {.fn = fn};
    tessel_rows_t *r = &o.r;
    if (fill(&o, row_fns[fn].fields, row_fns[fn].n, row_fns[fn].name, args, kw))
        return NULL;
    r->ldx = r->n;
    r->ldy = r->n;
    const uint64_t mn = COUNT(r->m, r->n);
    bufs_t b = {0};
    r->x = operand(&b, o.x_obj, "x", EL_F32, mn, 0);
    r->y = operand(&b, o.y_obj, "y", EL_F32, mn, 1);
    o.mask = operand(&b, o.mask_obj, "mask", EL_F32, mn, 0);
    o.gamma = operand(&b, o.gamma_obj, "gamma", EL_F32, r->n, 0);
    o.beta = operand(&b, o.beta_obj, "beta", EL_F32, r->n, 0);
    o.b = operand(&b, o.b_obj, "b", EL_F32, mn, 0);
    r->residual = operand(&b, o.residual_obj, "residual", EL_F32, mn, 0);
    return done(&b, b.failed || dev_call(self, call_rows, &o, 1));
}

METHOD(softmax) { return rows(SELF, args, kw, ROW_SOFTMAX); }
METHOD(layernorm) { return rows(SELF, args, kw, ROW_LAYERNORM); }
METHOD(rmsnorm) { return rows(SELF, args, kw, ROW_RMSNORM); }
METHOD(gelu) { return rows(SELF, args, kw, ROW_GELU); }
METHOD(silu) { return rows(SELF, args, kw, ROW_SILU); }
METHOD(eltwise) { return rows(SELF, args, kw, ROW_ELTWISE); }

/* ---- attention --------------------------------------------------------------------------------- */
typedef struct {
    tessel_attention_t a;
    PyObject *q, *k, *v, *o;
} attn_op_t;

static const field_t attn_fields[] = {
    FLD(attn_op_t, "q", q, K_OBJ, 1),
    FLD(attn_op_t, "k", k, K_OBJ, 1),
    FLD(attn_op_t, "v", v, K_OBJ, 1),
    FLD(attn_op_t, "o", o, K_OBJ, 1),
    FLD(attn_op_t, "batch", a.batch, K_U32, 1),
    FLD(attn_op_t, "lq", a.lq, K_U32, 1),
    FLD(attn_op_t, "lk", a.lk, K_U32, 1),
    FLD(attn_op_t, "d", a.d, K_U32, 1),
    FLD(attn_op_t, "dv", a.dv, K_U32, 1),
    FLD(attn_op_t, "out_dtype", a.out_dtype, K_DTYPE, 1),
    FLD(attn_op_t, "scale", a.scale, K_SCALE, 0),
    FLD(attn_op_t, "causal", a.causal, K_BOOL, 0),
};

static tessel_status_t call_attention(tessel_dev_t *dev, void *op) { return tessel_attention(dev, op, NULL); }

METHOD(attention)
{
    attn_op_t o = {0};
    tessel_attention_t *a = &o.a;
    if (fill(&o, attn_fields, NFIELDS(attn_fields), "attention", args, kw))
        return NULL;
    bufs_t b = {0};
    a->q = operand(&b, o.q, "q", EL_F32, COUNT(a->batch, a->lq, a->d), 0);
    a->k = operand(&b, o.k, "k", EL_F32, COUNT(a->batch, a->lk, a->d), 0);
    a->v = operand(&b, o.v, "v", EL_F32, COUNT(a->batch, a->lk, a->dv), 0);
    a->o = operand(&b, o.o, "o", EL_F32, COUNT(a->batch, a->lq, a->dv), 1);
    return done(&b, b.failed || dev_call(SELF, call_attention, &o, 1));
}

/* ---- the types and the module ------------------------------------------------------------------ */
#define KW_METHOD(name, doc) {#name, (PyCFunction)(void (*)(void))dev_##name, METH_VARARGS | METH_KEYWORDS, doc}

/* The encoders: each method fills the library's op struct of device buffers from its arguments,
 * runs the encoder and gives the 16 words for submit() or Graph.add(). The op struct is a member
 * `g` of a struct whose member `cmd` takes the command. */
static PyObject *words_of(const tessel_cmd_t *cmd)
{
    PyObject *words = PyList_New(16);
    for (Py_ssize_t i = 0; words && i < 16; i++) {
        PyObject *v = PyLong_FromUnsignedLong(cmd->w[i]);
        if (!v) {
            Py_CLEAR(words);
            break;
        }
        PyList_SET_ITEM(words, i, v);
    }
    return words;
}

#define ENCODER(name, op_type, encoder)                                                                  \
    typedef struct {                                                                                     \
        op_type g;                                                                                       \
        tessel_cmd_t cmd;                                                                                \
    } name##_op_t;                                                                                       \
    static tessel_status_t call_##name(tessel_dev_t *dev, void *op)                                      \
    {                                                                                                    \
        name##_op_t *o = op;                                                                             \
        return encoder(dev, &o->g, &o->cmd);                                                             \
    }                                                                                                    \
    __attribute__((unused)) static PyObject *encode_##name(device_t *self, const field_t *f, size_t nf,   \
                                                           PyObject *args, PyObject *kw)               \
    {                                                                                                    \
        name##_op_t o;                                                                                   \
        memset(&o, 0, sizeof o);                                                                         \
        if (fill(&o, f, nf, #name, args, kw) || dev_call(self, call_##name, &o, 0))                      \
            return NULL;                                                                                 \
        return words_of(&o.cmd);                                                                         \
    }

ENCODER(gemm_cmd, tessel_gemm_op_t, tessel_gemm_cmd)
ENCODER(conv2d_cmd, tessel_conv2d_op_t, tessel_conv2d_cmd)
ENCODER(pool2d_cmd, tessel_pool2d_op_t, tessel_pool2d_cmd)
ENCODER(rowwise_cmd, tessel_rows_op_t, tessel_rowwise_cmd)
ENCODER(eltwise_cmd, tessel_ew_op_t, tessel_eltwise_cmd)
ENCODER(attention_cmd, tessel_attention_op_t, tessel_attention_cmd)

/* gemm_cmd(a, b, c, m, n, k, in_dtype, out_dtype, bias=0, ..., lda=0, ldb=0, ldc=0) -> the words of
 * tessel_gemm_cmd (strides in elements, 0: dense). */
METHOD(gemm_cmd)
{
    static const field_t f[] = {
        FLD(gemm_cmd_op_t, "a", g.a, K_U63, 1),           FLD(gemm_cmd_op_t, "b", g.b, K_U63, 1),
        FLD(gemm_cmd_op_t, "c", g.c, K_U63, 1),           FLD(gemm_cmd_op_t, "m", g.m, K_U32, 1),
        FLD(gemm_cmd_op_t, "n", g.n, K_U32, 1),           FLD(gemm_cmd_op_t, "k", g.k, K_U32, 1),
        FLD(gemm_cmd_op_t, "in_dtype", g.in_dtype, K_DTYPE, 1),
        FLD(gemm_cmd_op_t, "out_dtype", g.out_dtype, K_DTYPE, 1),
        FLD(gemm_cmd_op_t, "bias", g.bias, K_U63, 0),     FLD(gemm_cmd_op_t, "relu", g.relu, K_BOOL, 0),
        FLD(gemm_cmd_op_t, "scale", g.scale, K_SCALE, 0), FLD(gemm_cmd_op_t, "rq_scale", g.rq_scale, K_I32, 0),
        FLD(gemm_cmd_op_t, "rq_shift", g.rq_shift, K_U32, 0),
        FLD(gemm_cmd_op_t, "rq_zero_point", g.rq_zero_point, K_I32, 0),
        FLD(gemm_cmd_op_t, "epilogue", g.epilogue, K_EPI, 0),
        FLD(gemm_cmd_op_t, "lda", g.lda, K_U32, 0),       FLD(gemm_cmd_op_t, "ldb", g.ldb, K_U32, 0),
        FLD(gemm_cmd_op_t, "ldc", g.ldc, K_U32, 0),
    };
    return encode_gemm_cmd(SELF, f, NFIELDS(f), args, kw);
}

/* The window fields of the encoders' structs (member g), as WIN_FIELDS of the host calls'. */
#define WIN_CMD_FIELDS(T)                                                                               \
    FLD(T, "batch", g.batch, K_U32, 1), FLD(T, "h", g.h, K_U32, 1), FLD(T, "w", g.w, K_U32, 1),            \
    FLD(T, "c", g.c, K_U32, 1), FLD(T, "kh", g.kh, K_U32, 1), FLD(T, "kw", g.kw, K_U32, 1),                  \
    FLD(T, "stride_h", g.stride_h, K_U32, 1), FLD(T, "stride_w", g.stride_w, K_U32, 1),                      \
    FLD(T, "pad_t", g.pad_t, K_U32, 1), FLD(T, "pad_b", g.pad_b, K_U32, 1), FLD(T, "pad_l", g.pad_l, K_U32, 1), \
    FLD(T, "pad_r", g.pad_r, K_U32, 1), FLD(T, "dil_h", g.dil_h, K_U32, 1), FLD(T, "dil_w", g.dil_w, K_U32, 1), \
    FLD(T, "in_dtype", g.in_dtype, K_DTYPE, 1), FLD(T, "out_dtype", g.out_dtype, K_DTYPE, 1),                \
    FLD(T, "x_zero_point", g.x_zero_point, K_I32, 0)

/* conv2d_cmd(x, weights, y, cout, groups, <window>, bias=0, relu=False, scale=None, rq_*=0): the words
 * of tessel_conv2d_cmd. */
METHOD(conv2d_cmd)
{
    static const field_t f[] = {
        FLD(conv2d_cmd_op_t, "x", g.x, K_U63, 1),         FLD(conv2d_cmd_op_t, "weights", g.weights, K_U63, 1),
        FLD(conv2d_cmd_op_t, "y", g.y, K_U63, 1),         FLD(conv2d_cmd_op_t, "cout", g.cout, K_U32, 1),
        FLD(conv2d_cmd_op_t, "groups", g.groups, K_U32, 1), WIN_CMD_FIELDS(conv2d_cmd_op_t),
        FLD(conv2d_cmd_op_t, "bias", g.bias, K_U63, 0),   FLD(conv2d_cmd_op_t, "relu", g.relu, K_BOOL, 0),
        FLD(conv2d_cmd_op_t, "scale", g.scale, K_SCALE, 0),
        FLD(conv2d_cmd_op_t, "rq_scale", g.rq_scale, K_I32, 0),
        FLD(conv2d_cmd_op_t, "rq_shift", g.rq_shift, K_U32, 0),
        FLD(conv2d_cmd_op_t, "rq_zero_point", g.rq_zero_point, K_I32, 0),
    };
    _Static_assert(NFIELDS(f) <= MAX_FIELDS, "conv2d_cmd has more fields than fill() takes");
    return encode_conv2d_cmd(SELF, f, NFIELDS(f), args, kw);
}

/* pool2d_cmd(kind, x, y, <window>): the words of tessel_pool2d_cmd. */
METHOD(pool2d_cmd)
{
    static const field_t f[] = {
        FLD(pool2d_cmd_op_t, "kind", g.kind, K_POOL, 1), FLD(pool2d_cmd_op_t, "x", g.x, K_U63, 1),
        FLD(pool2d_cmd_op_t, "y", g.y, K_U63, 1), WIN_CMD_FIELDS(pool2d_cmd_op_t),
    };
    return encode_pool2d_cmd(SELF, f, NFIELDS(f), args, kw);
}

/* rowwise_cmd(fn, x, y, m, n, in_dtype, out_dtype, ldx=0, ldy=0, scale=None, mask=0, ldmask=0,
 * gamma=0, beta=0, eps=0, add_y=False): the words of tessel_rowwise_cmd. */
METHOD(rowwise_cmd)
{
    static const field_t f[] = {
        FLD(rowwise_cmd_op_t, "fn", g.fn, K_ROWFN, 1),      FLD(rowwise_cmd_op_t, "x", g.x, K_U63, 1),
        FLD(rowwise_cmd_op_t, "y", g.y, K_U63, 1),          FLD(rowwise_cmd_op_t, "m", g.m, K_U32, 1),
        FLD(rowwise_cmd_op_t, "n", g.n, K_U32, 1),          FLD(rowwise_cmd_op_t, "in_dtype", g.in_dtype, K_DTYPE, 1),
        FLD(rowwise_cmd_op_t, "out_dtype", g.out_dtype, K_DTYPE, 1),
        FLD(rowwise_cmd_op_t, "ldx", g.ldx, K_U32, 0),      FLD(rowwise_cmd_op_t, "ldy", g.ldy, K_U32, 0),
        FLD(rowwise_cmd_op_t, "scale", g.scale, K_SCALE, 0), FLD(rowwise_cmd_op_t, "mask", g.mask, K_U63, 0),
        FLD(rowwise_cmd_op_t, "ldmask", g.ldmask, K_U32, 0), FLD(rowwise_cmd_op_t, "gamma", g.gamma, K_U63, 0),
        FLD(rowwise_cmd_op_t, "beta", g.beta, K_U63, 0),    FLD(rowwise_cmd_op_t, "eps", g.eps, K_EPS, 0),
        FLD(rowwise_cmd_op_t, "add_y", g.add_y, K_BOOL, 0),
    };
    return encode_rowwise_cmd(SELF, f, NFIELDS(f), args, kw);
}

/* eltwise_cmd(op, x, y, m, n, in_dtype, out_dtype, ldx=0, ldy=0, b=0, ldb=0, b_row=False,
 * imm=None): the words of tessel_eltwise_cmd; imm given is B the scalar (b_imm). */
typedef struct {
    eltwise_cmd_op_t o;
    PyObject *imm;
} eltwise_args_t;

METHOD(eltwise_cmd)
{
    static const field_t f[] = {
        FLD(eltwise_args_t, "op", o.g.op, K_EWOP, 1),        FLD(eltwise_args_t, "x", o.g.x, K_U63, 1),
        FLD(eltwise_args_t, "y", o.g.y, K_U63, 1),           FLD(eltwise_args_t, "m", o.g.m, K_U32, 1),
        FLD(eltwise_args_t, "n", o.g.n, K_U32, 1),           FLD(eltwise_args_t, "in_dtype", o.g.in_dtype, K_DTYPE, 1),
        FLD(eltwise_args_t, "out_dtype", o.g.out_dtype, K_DTYPE, 1),
        FLD(eltwise_args_t, "ldx", o.g.ldx, K_U32, 0),       FLD(eltwise_args_t, "ldy", o.g.ldy, K_U32, 0),
        FLD(eltwise_args_t, "b", o.g.b, K_U63, 0),           FLD(eltwise_args_t, "ldb", o.g.ldb, K_U32, 0),
        FLD(eltwise_args_t, "b_row", o.g.b_row, K_BOOL, 0),  FLD(eltwise_args_t, "imm", imm, K_OBJ, 0),
    };
    static const field_t imm_field = FLD(eltwise_args_t, "imm", o.g.imm, K_F32, 1);
    eltwise_args_t a;
    memset(&a, 0, sizeof a);
    if (fill(&a, f, NFIELDS(f), "eltwise_cmd", args, kw) || (a.imm && store((char *)&a, &imm_field, a.imm)))
        return NULL;
    a.o.g.b_imm = a.imm != NULL;
    if (dev_call(SELF, call_eltwise_cmd, &a.o, 0))
        return NULL;
    return words_of(&a.o.cmd);
}

/* attention_cmd(q, k, v, o, batch, lq, lk, d, dv, out_dtype, ldq=0, ldk=0, ldv=0, ldo=0, scale=None,
 * causal=False, head_columns=False, k_rows=False): the words of tessel_attention_cmd. */
METHOD(attention_cmd)
{
    static const field_t f[] = {
        FLD(attention_cmd_op_t, "q", g.q, K_U63, 1),         FLD(attention_cmd_op_t, "k", g.k, K_U63, 1),
        FLD(attention_cmd_op_t, "v", g.v, K_U63, 1),         FLD(attention_cmd_op_t, "o", g.o, K_U63, 1),
        FLD(attention_cmd_op_t, "batch", g.batch, K_U32, 1), FLD(attention_cmd_op_t, "lq", g.lq, K_U32, 1),
        FLD(attention_cmd_op_t, "lk", g.lk, K_U32, 1),       FLD(attention_cmd_op_t, "d", g.d, K_U32, 1),
        FLD(attention_cmd_op_t, "dv", g.dv, K_U32, 1),
        FLD(attention_cmd_op_t, "out_dtype", g.out_dtype, K_DTYPE, 1),
        FLD(attention_cmd_op_t, "ldq", g.ldq, K_U32, 0),     FLD(attention_cmd_op_t, "ldk", g.ldk, K_U32, 0),
        FLD(attention_cmd_op_t, "ldv", g.ldv, K_U32, 0),     FLD(attention_cmd_op_t, "ldo", g.ldo, K_U32, 0),
        FLD(attention_cmd_op_t, "scale", g.scale, K_SCALE, 0),
        FLD(attention_cmd_op_t, "causal", g.causal, K_BOOL, 0),
        FLD(attention_cmd_op_t, "head_columns", g.head_columns, K_BOOL, 0),
        FLD(attention_cmd_op_t, "k_rows", g.k_rows, K_BOOL, 0),
    };
    return encode_attention_cmd(SELF, f, NFIELDS(f), args, kw);
}

/* ---- graphs ------------------------------------------------------------------------------------ */
/* A tessel_graph_t of a device (graph()): add(words) compiles a command into it at once (EDEVICE
 * with the firmware's status when the command is refused), submit() queues the whole graph as one
 * command and gives its handle for wait(). It keeps its device object alive. */
typedef struct {
    PyObject_HEAD
    device_t *owner;
    tessel_graph_t *g;
} graph_t;

typedef struct {
    tessel_graph_t **g;
    tessel_cmd_t cmd;
    tessel_handle_t h;
} graph_op_t;

static tessel_status_t call_graph_create(tessel_dev_t *dev, void *op)
{
    return tessel_graph_create(dev, ((graph_op_t *)op)->g);
}

static tessel_status_t call_graph_add(tessel_dev_t *dev, void *op)
{
    (void)dev;
    graph_op_t *o = op;
    return tessel_graph_add(*o->g, &o->cmd);
}

static tessel_status_t call_graph_submit(tessel_dev_t *dev, void *op)
{
    (void)dev;
    graph_op_t *o = op;
    return tessel_graph_submit(*o->g, &o->h);
}

static void graph_dealloc(PyObject *self)
{
    graph_t *g = (graph_t *)self;
    tessel_graph_destroy(g->g);
    Py_XDECREF(g->owner);
    Py_TYPE(self)->tp_free(self);
}

static PyObject *graph_add(PyObject *self, PyObject *args, PyObject *kw)
{
    static const field_t f[] = {{"words", K_OBJ, 0, 1}};
    graph_t *g = (graph_t *)self;
    PyObject *words = NULL;
    graph_op_t o = {.g = &g->g};
    if (fill(&words, f, 1, "add", args, kw) || words_arg(words, &o.cmd, "add") ||
        dev_call(g->owner, call_graph_add, &o, 0))
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *graph_submit(PyObject *self, PyObject *args, PyObject *kw)
{
    graph_t *g = (graph_t *)self;
    graph_op_t o = {.g = &g->g};
    if (fill(NULL, NULL, 0, "submit", args, kw) || dev_call(g->owner, call_graph_submit, &o, 0))
        return NULL;
    return PyLong_FromUnsignedLongLong(o.h);
}

static PyMethodDef graph_methods[] = {
    {"add", (PyCFunction)(void (*)(void))graph_add, METH_VARARGS | METH_KEYWORDS,
     "add(words): tessel_graph_add of 16 command words"},
    {"submit", (PyCFunction)(void (*)(void))graph_submit, METH_VARARGS | METH_KEYWORDS,
     "submit() -> handle: tessel_graph_submit, the graph as one command"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject graph_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessel._tessel.Graph",
    .tp_basicsize = sizeof(graph_t),
    .tp_dealloc = graph_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "A libtessel graph from RawDevice.graph(): commands compiled into one device program.",
    .tp_methods = graph_methods,
};

/* graph() -> a new empty Graph of this device. */
METHOD(graph)
{
    graph_t *g = PyObject_New(graph_t, &graph_type);
    if (!g)
        return NULL;
    g->owner = NULL;
    g->g = NULL;
    graph_op_t o = {.g = &g->g};
    if (fill(NULL, NULL, 0, "graph", args, kw) || dev_call(SELF, call_graph_create, &o, 0)) {
        Py_DECREF(g);
        return NULL;
    }
    Py_INCREF(pself);
    g->owner = SELF;
    return (PyObject *)g;
}

static PyMethodDef device_methods[] = {
    {"close", dev_close, METH_NOARGS,
     "close(): tessel_close, after the call in progress; later calls raise tessel.Error, closing again does nothing"},
    KW_METHOD(info, "info() -> dict: tessel_info (backend, n, vmem_bytes, acc_bytes, hbm_bytes, "
                    "hbm_bytes_per_cycle, features, and the int8 and bf16 feature bits)"),
    KW_METHOD(stats, "stats() -> {'last': ..., 'total': ...}: tessel_stats counters (commands, cycles, macs, "
                     "hbm_bytes) of the latest call that ran commands and since open or stats_reset"),
    KW_METHOD(stats_reset, "stats_reset(): tessel_stats_reset"),
    KW_METHOD(last_error, "last_error() -> str: tessel_last_error"),
    KW_METHOD(alloc, "alloc(bytes, align=0) -> addr: tessel_alloc (align 0: the library's default)"),
    KW_METHOD(free, "free(addr): tessel_free"),
    KW_METHOD(write, "write(addr, data): tessel_write of a C-contiguous buffer's bytes"),
    KW_METHOD(read, "read(addr, data): tessel_read into a writable C-contiguous buffer"),
    KW_METHOD(submit, "submit(words) -> handle: tessel_submit of 16 command words"),
    KW_METHOD(wait, "wait(handle, timeout_ms=None) -> completion dict: tessel_wait (None: TESSEL_TIMEOUT_AUTO)"),
    KW_METHOD(graph, "graph() -> Graph: tessel_graph_create; its add(words) and submit() -> handle"),
    KW_METHOD(gemm_cmd, "gemm_cmd(a, b, c, m, n, k, in_dtype, out_dtype, bias=0, relu=False, scale=None, "
                        "rq_scale=0, rq_shift=0, rq_zero_point=0, epilogue=None, lda=0, ldb=0, ldc=0) -> "
                        "words: tessel_gemm_cmd, the GEMM of device buffers (addresses; strides in elements, 0: "
                        "dense) as a command"),
    KW_METHOD(conv2d_cmd, "conv2d_cmd(x, weights, y, cout, groups, batch, h, w, c, kh, kw, stride_h, stride_w, "
                          "pad_t, pad_b, pad_l, pad_r, dil_h, dil_w, in_dtype, out_dtype, x_zero_point=0, bias=0, "
                          "relu=False, scale=None, rq_scale=0, rq_shift=0, rq_zero_point=0) -> words: "
                          "tessel_conv2d_cmd"),
    KW_METHOD(pool2d_cmd, "pool2d_cmd(kind, x, y, batch, h, w, c, kh, kw, stride_h, stride_w, pad_t, pad_b, pad_l, "
                          "pad_r, dil_h, dil_w, in_dtype, out_dtype, x_zero_point=0) -> words: tessel_pool2d_cmd"),
    KW_METHOD(rowwise_cmd, "rowwise_cmd(fn, x, y, m, n, in_dtype, out_dtype, ldx=0, ldy=0, scale=None, mask=0, "
                           "ldmask=0, gamma=0, beta=0, eps=0, add_y=False) -> words: tessel_rowwise_cmd; fn one of softmax, "
                           "layernorm, rmsnorm, gelu, silu, sum"),
    KW_METHOD(eltwise_cmd, "eltwise_cmd(op, x, y, m, n, in_dtype, out_dtype, ldx=0, ldy=0, b=0, ldb=0, b_row=False, "
                           "imm=None) -> words: tessel_eltwise_cmd; B a matrix (b), a row (b, b_row) or the scalar "
                           "imm"),
    KW_METHOD(attention_cmd, "attention_cmd(q, k, v, o, batch, lq, lk, d, dv, out_dtype, ldq=0, ldk=0, ldv=0, ldo=0, "
                             "scale=None, causal=False, head_columns=False, k_rows=False) -> words: "
                             "tessel_attention_cmd"),
    KW_METHOD(kernel_load, "kernel_load(image) -> (addr, bytes): tessel_kernel_load of a kernel image (bytes)"),
    KW_METHOD(kernel_run, "kernel_run(addr, bytes, args=(), budget=0) -> int: tessel_kernel_run, the kernel's "
                          "return value (args: at most 8 integers, int32 or uint32; budget: device cycles, 0 the "
                          "default); free the image with free(addr)"),
    KW_METHOD(gemm, "gemm(a, b, c, m, n, k, in_dtype, out_dtype, bias=None, relu=False, scale=None, rq_scale=0, "
                    "rq_shift=0, rq_zero_point=0, epilogue=None): tessel_gemm of dense operands (epilogue: a name "
                    "of EPILOGUES; add_c: c's values are read first)"),
    KW_METHOD(conv2d, "conv2d(x, weights, y, cout, groups, batch, h, w, c, kh, kw, stride_h, stride_w, pad_t, "
                      "pad_b, pad_l, pad_r, dil_h, dil_w, in_dtype, out_dtype, x_zero_point=0, bias=None, "
                      "relu=False, scale=None, rq_scale=0, rq_shift=0, rq_zero_point=0): tessel_conv2d"),
    KW_METHOD(pool2d, "pool2d(kind, x, y, batch, h, w, c, kh, kw, stride_h, stride_w, pad_t, pad_b, pad_l, pad_r, "
                      "dil_h, dil_w, in_dtype, out_dtype, x_zero_point=0): tessel_pool2d"),
    KW_METHOD(softmax, "softmax(x, y, m, n, in_dtype, out_dtype, scale=None, mask=None): tessel_softmax"),
    KW_METHOD(layernorm, "layernorm(x, y, m, n, in_dtype, out_dtype, gamma, eps, beta=None, residual=None): tessel_layernorm"),
    KW_METHOD(rmsnorm, "rmsnorm(x, y, m, n, in_dtype, out_dtype, gamma, eps, residual=None): tessel_rmsnorm"),
    KW_METHOD(gelu, "gelu(x, y, m, n, in_dtype, out_dtype): tessel_gelu"),
    KW_METHOD(silu, "silu(x, y, m, n, in_dtype, out_dtype): tessel_silu"),
    KW_METHOD(eltwise, "eltwise(x, y, m, n, in_dtype, out_dtype, op, b=None): tessel_eltwise, y = op(x, b) or op(x); "
                       "op one of add, mul, max, min (b m x n), relu, exp, recip, rsqrt, mov (no b)"),
    KW_METHOD(bmm, "bmm(a, b, c, m, n, k, in_dtype, out_dtype, bias=None, relu=False, scale=None, rq_scale=0, "
                   "rq_shift=0, rq_zero_point=0, epilogue=None, batch): tessel_bmm"),
    KW_METHOD(attention, "attention(q, k, v, o, batch, lq, lk, d, dv, out_dtype, scale=None, causal=False): "
                         "tessel_attention"),
    {NULL, NULL, 0, NULL}};

static PyTypeObject device_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessel._tessel.RawDevice",
    .tp_basicsize = sizeof(device_t),
    .tp_dealloc = dev_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "A libtessel device from open(): its methods are the library's calls, arguments named as the "
              "fields of their structs (host_driver/include/tessel.h), operands dense C-contiguous buffers.",
    .tp_methods = device_methods,
};

/* ---- pods (docs/pod.md) ------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    tessel_pod_t *pod;          /* NULL once closed */
    PyObject *devices;          /* a tuple of RawDevice, chip i's device at i; the pod closes them */
} pod_t;

static PyTypeObject pod_type;

/* Every chip's device lock, in chip order (a pod's call uses them all). 0, or -1 after raising (none
 * held). */
static int pod_enter(pod_t *self)
{
    Py_ssize_t n = self->pod ? PyTuple_GET_SIZE(self->devices) : 0, i = 0;
    if (!self->pod)
        return fail(TESSEL_EINVAL, "the pod is closed"), -1;
    for (; i < n; i++)
        if (dev_enter((device_t *)PyTuple_GET_ITEM(self->devices, i)))
            break;
    if (i == n)
        return 0;
    while (i--)
        PyThread_release_lock(((device_t *)PyTuple_GET_ITEM(self->devices, i))->lock);
    return -1;
}

static void pod_leave(pod_t *self)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(self->devices); i++)
        PyThread_release_lock(((device_t *)PyTuple_GET_ITEM(self->devices, i))->lock);
}

typedef struct {
    const char *backend, *topology;
    uint32_t chips, dx, dy;
} pod_open_op_t;

static const field_t pod_open_fields[] = {
    FLD(pod_open_op_t, "backend", backend, K_STR, 1), FLD(pod_open_op_t, "chips", chips, K_U32, 1),
    FLD(pod_open_op_t, "topology", topology, K_STR, 1), FLD(pod_open_op_t, "dx", dx, K_U32, 0),
    FLD(pod_open_op_t, "dy", dy, K_U32, 0),
};

static void pod_close_all(pod_t *self)
{
    for (Py_ssize_t i = 0; self->devices && i < PyTuple_GET_SIZE(self->devices); i++)
        ((device_t *)PyTuple_GET_ITEM(self->devices, i))->dev = NULL;
    tessel_pod_close(self->pod);
    self->pod = NULL;
}

static PyObject *mod_open_pod(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    pod_open_op_t op = {0};
    if (fill(&op, pod_open_fields, NFIELDS(pod_open_fields), "open_pod", args, kw))
        return NULL;
    int ring = op.topology && !strcmp(op.topology, "ring"), torus = op.topology && !strcmp(op.topology, "torus");
    if (!ring && !torus)
        return fail(TESSEL_EINVAL, "topology must be 'ring' or 'torus', not %s", op.topology ? op.topology : "None");
    pod_t *self = PyObject_New(pod_t, &pod_type);
    if (!self)
        return NULL;
    self->pod = NULL;
    self->devices = NULL;
    tessel_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = tessel_pod_open(&self->pod, op.backend, op.chips, torus ? TESSEL_POD_TORUS : TESSEL_POD_RING, op.dx, op.dy);
    Py_END_ALLOW_THREADS
    if (st != TESSEL_OK) {
        Py_DECREF(self);
        return fail(st, "%s", tessel_pod_last_error(NULL));
    }
    if (!(self->devices = PyTuple_New(op.chips))) {
        Py_DECREF(self);
        return NULL;
    }
    for (uint32_t i = 0; i < op.chips; i++) {
        device_t *d = PyObject_New(device_t, &device_type);
        if (!d || !(d->lock = PyThread_allocate_lock())) {
            if (d) {
                d->lock = NULL;
                d->dev = NULL;
                d->chip = 1;
                Py_DECREF(d);
            }
            Py_DECREF(self);
            return PyErr_NoMemory();
        }
        d->dev = tessel_pod_device(self->pod, i);
        d->chip = 1;
        memset(&d->last, 0, sizeof d->last);
        PyTuple_SET_ITEM(self->devices, i, (PyObject *)d);
    }
    return (PyObject *)self;
}

static void pod_dealloc(PyObject *pself)
{
    pod_t *self = (pod_t *)pself;
    pod_close_all(self);
    Py_XDECREF(self->devices);
    PyObject_Free(self);
}

/* close(): tessel_pod_close, after the calls in progress on it and its chips; then their calls raise. */
static PyObject *pod_close(PyObject *pself, PyObject *unused)
{
    (void)unused;
    pod_t *self = (pod_t *)pself;
    if (!self->pod)
        Py_RETURN_NONE;
    if (pod_enter(self))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    pod_close_all(self);
    Py_END_ALLOW_THREADS
    pod_leave(self);
    Py_RETURN_NONE;
}

static PyObject *pod_devices(PyObject *pself, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(((pod_t *)pself)->devices);
}

typedef struct {
    uint64_t bytes, addr;
    uint32_t chip, cycles;
    const char *kind, *op;
    tessel_collective_t c;
} pod_op_t;

/* A library call on the pod, with every chip's lock held and without the GIL: 0, or -1 after raising
 * with tessel_pod_last_error. */
static int pod_call(pod_t *self, tessel_status_t (*call)(tessel_pod_t *, pod_op_t *), pod_op_t *op)
{
    if (pod_enter(self))
        return -1;
    tessel_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = call(self->pod, op);
    Py_END_ALLOW_THREADS
    if (st != TESSEL_OK)
        fail(st, "%s", tessel_pod_last_error(self->pod));
    pod_leave(self);
    return st == TESSEL_OK ? 0 : -1;
}

static tessel_status_t call_pod_alloc(tessel_pod_t *p, pod_op_t *o) { return tessel_pod_alloc(p, o->bytes, &o->addr); }
static tessel_status_t call_pod_free(tessel_pod_t *p, pod_op_t *o) { return tessel_pod_free(p, o->addr); }
static tessel_status_t call_pod_kill(tessel_pod_t *p, pod_op_t *o) { return tessel_pod_kill(p, o->chip); }
static tessel_status_t call_pod_set_wait(tessel_pod_t *p, pod_op_t *o) { return tessel_pod_set_wait(p, o->cycles); }
static tessel_status_t call_pod_coll(tessel_pod_t *p, pod_op_t *o) { return tessel_pod_collective(p, &o->c); }

static PyObject *pod_alloc(PyObject *pself, PyObject *args, PyObject *kw)
{
    pod_op_t o = {0};
    static const field_t f[] = {FLD(pod_op_t, "bytes", bytes, K_U63, 1)};
    if (fill(&o, f, NFIELDS(f), "alloc", args, kw) || pod_call((pod_t *)pself, call_pod_alloc, &o))
        return NULL;
    return PyLong_FromUnsignedLongLong(o.addr);
}

static PyObject *pod_free(PyObject *pself, PyObject *args, PyObject *kw)
{
    pod_op_t o = {0};
    static const field_t f[] = {FLD(pod_op_t, "addr", addr, K_U63, 1)};
    return result(fill(&o, f, NFIELDS(f), "free", args, kw) || pod_call((pod_t *)pself, call_pod_free, &o));
}

static PyObject *pod_kill(PyObject *pself, PyObject *args, PyObject *kw)
{
    pod_op_t o = {0};
    static const field_t f[] = {FLD(pod_op_t, "chip", chip, K_U32, 1)};
    return result(fill(&o, f, NFIELDS(f), "kill", args, kw) || pod_call((pod_t *)pself, call_pod_kill, &o));
}

static PyObject *pod_set_wait(PyObject *pself, PyObject *args, PyObject *kw)
{
    pod_op_t o = {0};
    static const field_t f[] = {FLD(pod_op_t, "cycles", cycles, K_U32, 1)};
    return result(fill(&o, f, NFIELDS(f), "set_wait", args, kw) || pod_call((pod_t *)pself, call_pod_set_wait, &o));
}

/* The index of name s in names[n], or -1 after raising. */
static int pick(const char *what, const char *s, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (s && !strcmp(s, names[i]))
            return i;
    fail(TESSEL_EINVAL, "%s must be one of %s, ..., not %s", what, names[0], s ? s : "None");
    return -1;
}

/* collective(kind, dtype, count, in_, out, op="sum", root=0): tessel_pod_collective. */
static PyObject *pod_collective(PyObject *pself, PyObject *args, PyObject *kw)
{
    static const char *const kinds[] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast"};
    static const char *const ops[] = {"sum", "max", "min"};
    pod_op_t o = {.op = "sum"};
    static const field_t f[] = {
        FLD(pod_op_t, "kind", kind, K_STR, 1),    FLD(pod_op_t, "dtype", c.dtype, K_DTYPE, 1),
        FLD(pod_op_t, "count", c.count, K_U63, 1), FLD(pod_op_t, "in_", c.in, K_U63, 1),
        FLD(pod_op_t, "out", c.out, K_U63, 1),     FLD(pod_op_t, "op", op, K_STR, 0),
        FLD(pod_op_t, "root", c.root, K_U32, 0),
    };
    if (fill(&o, f, NFIELDS(f), "collective", args, kw))
        return NULL;
    int k = pick("kind", o.kind, kinds, 4), r = k < 0 ? -1 : pick("op", o.op, ops, 3);
    if (r < 0)
        return NULL;
    o.c.kind = (tessel_coll_t)k;
    o.c.op = (tessel_reduce_t)r;
    return result(pod_call((pod_t *)pself, call_pod_coll, &o));
}

/* stats() -> dict: tessel_pod_stats. */
static PyObject *pod_stats(PyObject *pself, PyObject *unused)
{
    (void)unused;
    pod_t *self = (pod_t *)pself;
    tessel_pod_stats_t s;
    if (pod_enter(self))
        return NULL;
    (void)tessel_pod_stats(self->pod, &s);
    pod_leave(self);
    return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K}", "collectives", (unsigned long long)s.collectives, "bytes",
                         (unsigned long long)s.bytes, "ici_bytes", (unsigned long long)s.ici_bytes, "cycles",
                         (unsigned long long)s.cycles, "model_cycles", (unsigned long long)s.model_cycles);
}

#define POD_METHOD(name, doc) {#name, (PyCFunction)(void (*)(void))pod_##name, METH_VARARGS | METH_KEYWORDS, doc}
static PyMethodDef pod_methods[] = {
    {"close", pod_close, METH_NOARGS, "close(): tessel_pod_close, its chips' devices with it"},
    {"devices", pod_devices, METH_NOARGS, "devices() -> tuple of RawDevice: chip i's device at i"},
    {"stats", pod_stats, METH_NOARGS, "stats() -> dict: tessel_pod_stats"},
    POD_METHOD(alloc, "alloc(bytes) -> addr: tessel_pod_alloc, the same HBM address on every chip"),
    POD_METHOD(free, "free(addr): tessel_pod_free"),
    POD_METHOD(kill, "kill(chip): tessel_pod_kill, a dead chip (tests)"),
    POD_METHOD(set_wait, "set_wait(cycles): tessel_pod_set_wait, the bound on every chip's SEMWAITs (sim)"),
    POD_METHOD(collective, "collective(kind, dtype, count, in_, out, op='sum', root=0): tessel_pod_collective; kind "
                           "one of all_reduce, reduce_scatter, all_gather, broadcast; op sum, max or min"),
    {NULL, NULL, 0, NULL}};

static PyTypeObject pod_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tessel._tessel.RawPod",
    .tp_basicsize = sizeof(pod_t),
    .tp_dealloc = pod_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .tp_doc = "A libtessel pod from open_pod(): chips joined by ICI and their collectives (docs/pod.md).",
    .tp_methods = pod_methods,
};

/* window_out(in, pad0, pad1, k, stride, dil) -> tessel_window_out. */
static PyObject *mod_window_out(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    typedef struct {
        uint32_t in, pad0, pad1, k, stride, dil;
    } win_op_t;
    static const field_t f[] = {FLD(win_op_t, "in", in, K_U32, 1),         FLD(win_op_t, "pad0", pad0, K_U32, 1),
                                FLD(win_op_t, "pad1", pad1, K_U32, 1),     FLD(win_op_t, "k", k, K_U32, 1),
                                FLD(win_op_t, "stride", stride, K_U32, 1), FLD(win_op_t, "dil", dil, K_U32, 1)};
    win_op_t w;
    if (fill(&w, f, NFIELDS(f), "window_out", args, kw))
        return NULL;
    return PyLong_FromUnsignedLong(tessel_window_out(w.in, w.pad0, w.pad1, w.k, w.stride, w.dil));
}

/* command(**fields) -> the 16 words of a host command (docs/isa.md §7), each field named as its
 * member of tsl_cmd_t, or of the opcode's geometry, tsl_win_t (CONV2D, POOL2D), tsl_att_t
 * (ATTENTION) or tsl_kern_t (KERNEL), in tsl_hw.h, so that the spec's layout is the only one. A
 * geometry's fields replace the command fields of their words: giving both is an error, as is an
 * unknown name or a value its field cannot hold. */
typedef struct {
    const char *name;
    int kind;        /* 0 command, 1 window, 2 attention, 3 kernel */
    size_t offset;
} cmd_field_t;

#define CMD_FIELD(m) {#m, 0, offsetof(tsl_cmd_t, m)},
#define WIN_FIELD(m) {#m, 1, offsetof(tsl_win_t, m)},
#define ATT_FIELD(m) {#m, 2, offsetof(tsl_att_t, m)},
#define KERN_FIELD(m) {#m, 3, offsetof(tsl_kern_t, m)},
static const cmd_field_t cmd_fields[] = {TSL_CMD_FIELDS(CMD_FIELD) TSL_WIN_FIELDS(WIN_FIELD) TSL_ATT_FIELDS(ATT_FIELD)
                                             TSL_KERN_FIELDS(KERN_FIELD)};
#undef CMD_FIELD
#undef WIN_FIELD
#undef ATT_FIELD
#undef KERN_FIELD

/* The words of `v` encoded as a command (kind 0) or a geometry on top of command `w`. */
static void encode_kind(int kind, const void *v, uint32_t *w)
{
    if (kind == 0)
        tsl_cmd_encode(v, w);
    else if (kind == 1)
        tsl_win_encode(v, w);
    else if (kind == 2)
        tsl_att_encode(v, w);
    else
        tsl_kern_encode(v, w);
}

typedef union {
    tsl_cmd_t cmd;
    tsl_win_t win;
    tsl_att_t att;
    tsl_kern_t kern;
} cmd_part_t;

static PyObject *mod_command(PyObject *mod, PyObject *args, PyObject *kw)
{
    (void)mod;
    if (PyTuple_GET_SIZE(args))
        return fail(TESSEL_EINVAL, "command: fields are keyword arguments");
    cmd_part_t part[4];
    memset(part, 0, sizeof part);
    uint32_t used[4] = {0};   /* the words each kind's fields touch, a bit each */
    PyObject *op = kw ? PyDict_GetItemString(kw, "opcode") : NULL, *key, *value;
    long op_v = op && PyLong_Check(op) ? PyLong_AsLong(op) : -1;
    int geometry = op_v == TSL_CMD_OP_CONV2D || op_v == TSL_CMD_OP_POOL2D ? 1
                   : op_v == TSL_CMD_OP_ATTENTION                          ? 2
                   : op_v == TSL_CMD_OP_KERNEL                             ? 3
                                                                           : 0;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &key, &value)) {
        const char *name = PyUnicode_AsUTF8(key);
        const cmd_field_t *f = NULL;
        for (size_t i = 0; name && i < NFIELDS(cmd_fields) && !f; i++)
            if (!strcmp(cmd_fields[i].name, name) && (!cmd_fields[i].kind || cmd_fields[i].kind == geometry))
                f = &cmd_fields[i];
        if (!f)
            return fail(TESSEL_EINVAL, "command: no field %.80s in a command of opcode %ld", name ? name : "?", op_v);
        long long v;
        if (int_arg(value, name, 0, UINT32_MAX, &v))
            return NULL;
        /* the field alone at all ones gives its words and its width */
        cmd_part_t one;
        uint32_t probe[TSL_PARAM_CMD_WORDS] = {0}, bits = 0;
        memset(&one, 0, sizeof one);
        *(uint32_t *)((char *)&one + f->offset) = UINT32_MAX;
        encode_kind(f->kind, &one, probe);
        for (unsigned i = 0; i < TSL_PARAM_CMD_WORDS; i++) {
            used[f->kind] |= probe[i] ? 1u << i : 0u;
            bits += (uint32_t)__builtin_popcount(probe[i]);
        }
        if (bits < 32 && (uint64_t)v >> bits)
            return fail(TESSEL_EINVAL, "command: %s = %lld does not fit its %u bits", name, v, bits);
        *(uint32_t *)((char *)&part[f->kind] + f->offset) = (uint32_t)v;
    }
    if (used[0] & used[geometry] & (geometry ? ~0u : 0u))
        return fail(TESSEL_EINVAL, "command: a window or attention field shares its word with another field given");
    uint32_t w[TSL_PARAM_CMD_WORDS];
    for (int kind = 0; kind < 4; kind++)
        if (!kind || used[kind])
            encode_kind(kind, &part[kind], w);
    PyObject *t = PyTuple_New(TSL_PARAM_CMD_WORDS);
    for (unsigned i = 0; t && i < TSL_PARAM_CMD_WORDS; i++) {
        PyObject *o = PyLong_FromUnsignedLong(w[i]);
        if (!o) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* {name: value} of an enum of tsl_hw.h, from its name function (values 0..255). */
static PyObject *enum_dict(const char *(*name_of)(uint32_t))
{
    PyObject *d = PyDict_New();
    for (uint32_t v = 0; d && v < 256; v++) {
        const char *name = name_of(v);
        PyObject *o = name ? PyLong_FromUnsignedLong(v) : NULL;
        if (name && (!o || PyDict_SetItemString(d, name, o)))
            Py_CLEAR(d);
        Py_XDECREF(o);
    }
    return d;
}

static PyMethodDef module_methods[] = {
    {"open", (PyCFunction)(void (*)(void))mod_open, METH_VARARGS | METH_KEYWORDS,
     "open(backend, port=None, firmware=None, check=False, timeline=None) -> RawDevice: tessel_open "
     "('model', 'sim' or 'uart'; check: TESSEL_OPEN_CHECK)"},
    {"open_pod", (PyCFunction)(void (*)(void))mod_open_pod, METH_VARARGS | METH_KEYWORDS,
     "open_pod(backend, chips, topology, dx=0, dy=0) -> RawPod: tessel_pod_open (topology 'ring' or 'torus')"},
    {"command", (PyCFunction)(void (*)(void))mod_command, METH_VARARGS | METH_KEYWORDS,
     "command(**fields) -> the 16 words of a host command, fields named as the members of tsl_cmd_t, "
     "tsl_win_t or tsl_att_t (tsl_hw.h); for RawDevice.submit"},
    {"window_out", (PyCFunction)(void (*)(void))mod_window_out, METH_VARARGS | METH_KEYWORDS,
     "window_out(in, pad0, pad1, k, stride, dil) -> int: tessel_window_out, 0 when the window does not fit"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, .m_name = "tessel._tessel",
    .m_doc = "The CPython binding of libtessel (host_driver/include/tessel.h); the tessel package wraps it.",
    .m_size = -1, .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__tessel(void)
{
    error_type.tp_base = (PyTypeObject *)PyExc_Exception;
    if (PyType_Ready(&error_type) || PyType_Ready(&device_type) || PyType_Ready(&graph_type) ||
        PyType_Ready(&pod_type))
        return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    int bad = PyModule_AddObjectRef(m, "Error", (PyObject *)&error_type) ||
              PyModule_AddObjectRef(m, "RawDevice", (PyObject *)&device_type);
    for (int s = TESSEL_OK; !bad && status_name(s); s--)   /* the status codes: EINVAL = -1, ... */
        bad = PyModule_AddIntConstant(m, status_name(s), s);
    /* HOST_FORMATS: the buffer format of each dtype's values on the host ({"int8": "b", ...}). */
    PyObject *formats = PyDict_New();
    for (size_t i = 0; formats && i < NFIELDS(enum_names); i++) {
        if (enum_names[i].kind != K_DTYPE)
            continue;
        PyObject *f = PyUnicode_FromString(elems[elem_of((tessel_dtype_t)enum_names[i].value)].format);
        if (!f || PyDict_SetItemString(formats, enum_names[i].name, f))
            Py_CLEAR(formats);
        Py_XDECREF(f);
    }
    bad = bad || !formats || PyModule_AddObjectRef(m, "HOST_FORMATS", formats);
    Py_XDECREF(formats);
    /* EPILOGUES: the GEMM epilogue's last steps by name, in tessel_epilogue_t's order (None first). */
    PyObject *epis = epilogue_tuple();
    bad = bad || !epis || PyModule_AddObjectRef(m, "EPILOGUES", epis);
    Py_XDECREF(epis);
    /* The spec's enums that commands take, {name: value}: CMD_OP, CMD_FLAG (bit positions), DTYPE,
     * VPU_OP, ROW_OP; and FEATURE, the bit positions of info()["features"] (TC CFG_FEATURES). */
    static const struct {
        const char *name;
        const char *(*name_of)(uint32_t);
    } enums[] = {{"CMD_OP", tsl_cmd_op_name}, {"CMD_FLAG", tsl_cmd_flag_name}, {"DTYPE", tsl_dtype_name},
                 {"VPU_OP", tsl_vpu_op_name}, {"ROW_OP", tsl_row_op_name}, {"FEATURE", tsl_feature_name}};
    for (size_t i = 0; !bad && i < NFIELDS(enums); i++) {
        PyObject *d = enum_dict(enums[i].name_of);
        bad = !d || PyModule_AddObjectRef(m, enums[i].name, d);
        Py_XDECREF(d);
    }
    if (bad) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
