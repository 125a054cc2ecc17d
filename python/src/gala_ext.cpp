// gala._ext: the C API of gala, mirrored for Python with nanobind. One class or function per
// C object or call (Context, Buffer, the batched dense routines, QPSolver, QPSettings with one
// property per row of the settings table), one enum per C enum, and one place (check) that
// turns a gala status into an exception of gala._errors with gala's message. Conversions of
// Python inputs (shapes, layouts, CSC matrices, defaults) live in the Python package.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gala/gala.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ----------------------------------------------------------------------------- errors

// The one place a gala status becomes a Python exception: gala._errors.error_for(status,
// message) builds it (its class follows the status: ValueError for bad arguments, the
// DeviceError family for device failures, ...).
[[noreturn]] void raise_status(gala_status st, const gala_context *ctx)
{
    nb::object errors = nb::module_::import_("gala._errors");
    nb::object exc = errors.attr("error_for")(int(st), std::string(gala_last_error(ctx)));
    PyErr_SetObject((PyObject *)Py_TYPE(exc.ptr()), exc.ptr());
    throw nb::python_error();
}

inline void check(gala_status st, const gala_context *ctx)
{
    if (st != GALA_OK) raise_status(st, ctx);
}

// Numerical outcomes of a batched factorization are reported per matrix in info; only the
// other statuses are errors of the call.
inline void check_numeric(gala_status st, const gala_context *ctx)
{
    if (st == GALA_ERR_NOT_POSITIVE_DEFINITE || st == GALA_ERR_SINGULAR || st == GALA_ERR_NOT_FINITE)
        return;
    check(st, ctx);
}

[[noreturn]] void value_error(const std::string &msg)
{
    throw nb::value_error(msg.c_str());
}

// ----------------------------------------------------------------------------- context

struct Context {
    gala_context *ctx = nullptr;
    uintptr_t stream = 0; // the caller's CUDA stream (options.native_stream), 0: the context's own
    ~Context()
    {
        if (ctx) gala_context_destroy(ctx);
    }
};

gala_backend backend_of(const std::string &name)
{
    if (name == "auto") return GALA_BACKEND_AUTO;
    if (name == "opencl") return GALA_BACKEND_OPENCL;
    if (name == "cuda") return GALA_BACKEND_CUDA;
    if (name == "host") return GALA_BACKEND_HOST;
    value_error("backend: '" + name + "' is not one of auto, opencl, cuda, host");
}

void context_init(Context *self, const std::string &backend, std::optional<std::string> platform,
                  std::optional<std::string> device, uintptr_t stream, bool use_environment,
                  bool profiling)
{
    gala_context_options o;
    gala_context_options_default(&o);
    o.backend = backend_of(backend);
    o.platform = platform ? platform->c_str() : nullptr;
    o.device = device ? device->c_str() : nullptr;
    o.use_environment = use_environment ? 1 : 0;
    o.profiling = profiling ? 1 : 0;
    o.native_stream = reinterpret_cast<void *>(stream);
    new (self) Context();
    self->stream = stream;
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_context_create(&o, &self->ctx);
    }
    check(st, nullptr);
}

nb::dict device_info(const Context &c)
{
    gala_device_info i;
    check(gala_context_info(c.ctx, &i), c.ctx);
    nb::dict d;
    d["backend"] = std::string(i.backend_name);
    d["platform"] = std::string(i.platform_name);
    d["name"] = std::string(i.device_name);
    d["vendor"] = std::string(i.vendor_name);
    d["driver_version"] = std::string(i.driver_version);
    d["device_version"] = std::string(i.device_version);
    d["is_gpu"] = bool(i.is_gpu);
    d["compute_units"] = i.compute_units;
    d["global_mem_bytes"] = i.global_mem_bytes;
    d["max_alloc_bytes"] = i.max_alloc_bytes;
    d["local_mem_bytes"] = i.local_mem_bytes;
    d["max_work_group_size"] = i.max_work_group_size;
    d["subgroup_size"] = i.subgroup_size;
    d["fp64"] = bool(i.fp64);
    return d;
}

nb::dict context_stats(const Context &c)
{
    gala_stats s;
    check(gala_context_stats(c.ctx, &s), c.ctx);
    nb::dict d;
    d["programs_built"] = s.programs_built;
    d["programs_from_cache"] = s.programs_from_cache;
    d["kernels_launched"] = s.kernels_launched;
    d["buffers_live"] = s.buffers_live;
    d["bytes_live"] = s.bytes_live;
    return d;
}

// The tuning dtype of gala_tune_set / gala_tune_get: None (no particular precision),
// "float32" or "float64".
gala_dtype tune_dtype(const nb::object &dtype)
{
    if (dtype.is_none()) return (gala_dtype)0;
    const std::string d = nb::cast<std::string>(nb::str(dtype));
    if (d == "float32") return GALA_FLOAT;
    if (d == "float64") return GALA_DOUBLE;
    value_error("dtype: '" + d + "' is not one of None, float32, float64");
}

void context_tune_set(Context &c, const std::string &key, long value, const nb::object &dtype)
{
    check(gala_tune_set(c.ctx, key.c_str(), tune_dtype(dtype), value), c.ctx);
}

long context_tune_get(const Context &c, const std::string &key, const nb::object &dtype)
{
    long v = 0;
    check(gala_tune_get(c.ctx, key.c_str(), tune_dtype(dtype), &v), c.ctx);
    return v;
}

std::vector<nb::dict> device_list()
{
    int count = 0;
    check(gala_device_list(nullptr, 0, &count), nullptr);
    std::vector<gala_device_desc> v((size_t)count);
    if (count > 0) check(gala_device_list(v.data(), count, &count), nullptr);
    std::vector<nb::dict> out;
    for (int k = 0; k < count && k < (int)v.size(); ++k) {
        nb::dict d;
        d["backend"] = std::string(gala_backend_name(v[k].backend));
        d["platform_index"] = v[k].platform_index;
        d["device_index"] = v[k].device_index;
        d["is_gpu"] = bool(v[k].is_gpu);
        d["platform"] = std::string(v[k].platform_name);
        d["name"] = std::string(v[k].device_name);
        out.push_back(d);
    }
    return out;
}

// ----------------------------------------------------------------------------- buffers

using AnyArray = nb::ndarray<nb::ro>;

gala_dtype dtype_of(const nb::dlpack::dtype &t)
{
    if (t == nb::dtype<float>()) return GALA_FLOAT;
    if (t == nb::dtype<double>()) return GALA_DOUBLE;
    if (t == nb::dtype<int32_t>()) return GALA_INT;
    return (gala_dtype)0;
}

// A gala buffer, either allocated by gala or wrapping an array's memory (which it keeps
// alive). Its context is kept alive too, since buffers must be freed before the context.
struct Buffer {
    gala_buffer *buf = nullptr;
    nb::object context; // the Context
    nb::object keep;    // the wrapped array, or None
    ~Buffer()
    {
        if (buf) gala_buffer_free(buf);
    }
    gala_context *ctx() const { return nb::cast<Context &>(context).ctx; }
    // The live buffer, or ValueError naming it once free() was called.
    gala_buffer *get(const std::string &name) const
    {
        if (!buf) throw nb::value_error((name + ": the buffer has been freed").c_str());
        return buf;
    }
};

// Elements of a contiguous array (C or Fortran order), or -1 when it is not contiguous.
long long contiguous_count(const AnyArray &a)
{
    size_t n = 1;
    for (size_t i = 0; i < a.ndim(); ++i) n *= a.shape(i);
    if (n <= 1) return (long long)n;
    int64_t expect = 1;
    bool c = true, f = true;
    for (size_t i = a.ndim(); i-- > 0;) {
        if (a.shape(i) != 1 && a.stride(i) != expect) c = false;
        expect *= (int64_t)a.shape(i);
    }
    expect = 1;
    for (size_t i = 0; i < a.ndim(); ++i) {
        if (a.shape(i) != 1 && a.stride(i) != expect) f = false;
        expect *= (int64_t)a.shape(i);
    }
    return (c || f) ? (long long)n : -1;
}

Context &context_arg(nb::handle context)
{
    if (!nb::isinstance<Context>(context)) throw nb::type_error("context: expected a gala.Context");
    return nb::cast<Context &>(context);
}

Buffer *buffer_create(nb::object context, const std::string &dtype, size_t count)
{
    Context &c = context_arg(context);
    gala_dtype dt = dtype == "float32" ? GALA_FLOAT
                    : dtype == "float64" ? GALA_DOUBLE
                    : dtype == "int32" ? GALA_INT
                                       : (gala_dtype)0;
    if (!dt) value_error("dtype: '" + dtype + "' is not one of float32, float64, int32");
    auto b = std::make_unique<Buffer>();
    const gala_status st = gala_buffer_create(c.ctx, dt, count, &b->buf);
    if (st != GALA_OK) {
        // gala's message with the argument named: "count = N (dtype): <message>"
        nb::object exc = nb::module_::import_("gala._errors").attr("error_for")(
            int(st), "count = " + std::to_string(count) + " (" + dtype + "): " + gala_last_error(c.ctx));
        PyErr_SetObject((PyObject *)Py_TYPE(exc.ptr()), exc.ptr());
        throw nb::python_error();
    }
    b->context = context;
    return b.release();
}

// Wrap an array's memory: host memory on the host backend, CUDA memory on the CUDA backend
// (the device must be the context's). The array must be contiguous, and writable unless
// readonly is set (then gala must only read the buffer: the caller's promise).
Buffer *buffer_wrap(nb::object context, nb::handle array_obj, const std::string &name, bool readonly)
{
    Context &c = context_arg(context);
    AnyArray a;
    if (!nb::try_cast(array_obj, a))
        value_error(name + ": not an array (NumPy, PyTorch, CuPy, JAX or another DLPack or "
                           "buffer-protocol array)");
    if (!readonly) {
        nb::ndarray<> w;
        if (!nb::try_cast(array_obj, w))
            value_error(name + ": the array is read-only (pass readonly=True for a buffer that "
                               "gala only reads)");
    }
    gala_device_info di;
    check(gala_context_info(c.ctx, &di), c.ctx);
    const int dev = a.device_type();
    if (di.backend == GALA_BACKEND_HOST && dev != nb::device::cpu::value)
        value_error(name + ": the array is not in host memory, and the context is the host backend");
    if (di.backend == GALA_BACKEND_CUDA && dev != nb::device::cuda::value &&
        dev != nb::device::cuda_managed::value)
        value_error(name + ": the array is not in CUDA memory, and the context is the CUDA backend");
    if (di.backend == GALA_BACKEND_OPENCL)
        value_error(name + ": OpenCL contexts cannot use an array's memory directly (copy it "
                           "with Buffer.write)");
    gala_dtype dt = dtype_of(a.dtype());
    if (!dt) value_error(name + ": dtype must be float32, float64 or int32");
    long long n = contiguous_count(a);
    if (n < 0) value_error(name + ": the array must be contiguous");
    if (n == 0) value_error(name + ": the array is empty");
    if ((uintptr_t)a.data() % (a.dtype().bits / 8) != 0)
        value_error(name + ": the array's memory is not aligned to its element size");
    auto b = std::make_unique<Buffer>();
    check(gala_buffer_wrap(c.ctx, dt, (size_t)n, const_cast<void *>(a.data()), &b->buf), c.ctx);
    b->context = context;
    b->keep = nb::borrow(array_obj);
    return b.release();
}

void host_span_check(gala_buffer *buf, size_t offset, size_t count, const char *fn)
{
    const size_t have = gala_buffer_count(buf);
    if (offset > have || count > have - offset)
        value_error(std::string(fn) + ": offset " + std::to_string(offset) + " + " +
                    std::to_string(count) + " elements run past the buffer of " +
                    std::to_string(have));
}

std::string dtype_str(const nb::dlpack::dtype &t)
{
    const char *k = t.code == (uint8_t)nb::dlpack::dtype_code::Float ? "float"
                    : t.code == (uint8_t)nb::dlpack::dtype_code::Int ? "int"
                    : t.code == (uint8_t)nb::dlpack::dtype_code::UInt ? "uint"
                    : t.code == (uint8_t)nb::dlpack::dtype_code::Complex ? "complex"
                    : t.code == (uint8_t)nb::dlpack::dtype_code::Bool ? "bool"
                                                                       : "other";
    return std::string(k) + std::to_string((int)t.bits);
}

void same_dtype(const nb::dlpack::dtype &t, gala_buffer *buf, const char *what)
{
    if (dtype_of(t) != gala_buffer_dtype(buf))
        value_error(std::string(what) + ": dtype " + dtype_str(t) + " differs from the buffer's " +
                    gala_dtype_name(gala_buffer_dtype(buf)));
}

// src is read through a contiguous copy where it is not contiguous (nanobind converts it);
// dst must be the caller's own C-contiguous, writable array (noconvert: a converted copy
// would take the data and be dropped).
void buffer_write(Buffer &b, size_t offset, nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu> src)
{
    gala_buffer *buf = b.get("Buffer.write");
    same_dtype(src.dtype(), buf, "src");
    host_span_check(buf, offset, src.size(), "Buffer.write");
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_buffer_write(buf, offset, src.size(), src.data());
    }
    check(st, b.ctx());
}

void buffer_read(const Buffer &b, size_t offset, nb::ndarray<nb::c_contig, nb::device::cpu> dst)
{
    gala_buffer *buf = b.get("Buffer.read");
    same_dtype(dst.dtype(), buf, "dst");
    host_span_check(buf, offset, dst.size(), "Buffer.read");
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_buffer_read(buf, offset, dst.size(), dst.data());
    }
    check(st, b.ctx());
}

// ----------------------------------------------------------------------------- dense routines

using IntOut = nb::ndarray<nb::numpy, int32_t, nb::ndim<1>>;

IntOut int_array(size_t n)
{
    int32_t *p = new int32_t[n ? n : 1]();
    nb::capsule owner(p, [](void *q) noexcept { delete[] (int32_t *)q; });
    return IntOut(p, {n}, owner);
}

// A buffer argument of a dense routine: live, and of the context the call runs on (the C
// library checks the latter too; here the message names the Python argument).
gala_buffer *dense_buf(const Context &c, const Buffer &b, const char *name)
{
    gala_buffer *buf = b.get(name);
    if (nb::cast<Context &>(b.context).ctx != c.ctx)
        value_error(std::string(name) + ": a buffer of another context than the one given");
    return buf;
}

void check_batch(int batch)
{
    if (batch < 0) value_error("batch = " + std::to_string(batch) + " < 0");
}

IntOut potrf_batched(Context &c, int uplo, int n, Buffer &A, size_t a_off, int lda, size_t a_stride,
                     int batch)
{
    dense_buf(c, A, "A");
    check_batch(batch);
    IntOut info = int_array((size_t)batch);
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_potrf_batched(c.ctx, (gala_uplo)uplo, n, A.buf, a_off, lda, a_stride, batch,
                                info.data());
    }
    check_numeric(st, c.ctx);
    return info;
}

void potrs_batched(Context &c, int uplo, int n, int nrhs, const Buffer &A, size_t a_off, int lda,
                   size_t a_stride, Buffer &B, size_t b_off, int ldb, size_t b_stride, int batch)
{
    dense_buf(c, A, "A");
    dense_buf(c, B, "B");
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_potrs_batched(c.ctx, (gala_uplo)uplo, n, nrhs, A.buf, a_off, lda, a_stride, B.buf,
                                b_off, ldb, b_stride, batch);
        if (st == GALA_OK) st = gala_finish(c.ctx);
    }
    check(st, c.ctx);
}

IntOut potri_batched(Context &c, int uplo, int n, Buffer &A, size_t a_off, int lda, size_t a_stride,
                     int batch)
{
    dense_buf(c, A, "A");
    check_batch(batch);
    IntOut info = int_array((size_t)batch);
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_potri_batched(c.ctx, (gala_uplo)uplo, n, A.buf, a_off, lda, a_stride, batch,
                                info.data());
    }
    check_numeric(st, c.ctx);
    return info;
}

IntOut trtri_batched(Context &c, int uplo, int diag, int n, const Buffer &A, size_t a_off, int lda,
                     size_t a_stride, Buffer &B, size_t b_off, int ldb, size_t b_stride, int batch)
{
    dense_buf(c, A, "A");
    dense_buf(c, B, "B");
    check_batch(batch);
    IntOut info = int_array((size_t)batch);
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_trtri_batched(c.ctx, (gala_uplo)uplo, (gala_diag)diag, n, A.buf, a_off, lda,
                                a_stride, B.buf, b_off, ldb, b_stride, batch, info.data());
    }
    check_numeric(st, c.ctx);
    return info;
}

std::tuple<IntOut, IntOut> ldlt_batched(Context &c, int uplo, int n, Buffer &A, size_t a_off, int lda,
                                        size_t a_stride, int batch)
{
    dense_buf(c, A, "A");
    check_batch(batch);
    IntOut info = int_array((size_t)batch), inertia = int_array(2 * (size_t)batch);
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_ldlt_batched(c.ctx, (gala_uplo)uplo, n, A.buf, a_off, lda, a_stride, batch,
                               info.data(), inertia.data());
    }
    check_numeric(st, c.ctx);
    return {info, inertia};
}

// ----------------------------------------------------------------------------- QP solver

// The settings struct: one property per row of GALA_QP_SETTINGS, checked on assignment
// against the table (gala_qp_settings_set), ints for BOOL, INT and ENUM rows.
template <int K> struct py_type {
    using type = int;
};
template <> struct py_type<GALA_QP_SETTING_REAL> {
    using type = double;
};

enum {
#define QS_INDEX_(kind, ctype, name, ...) QS_##name,
    GALA_QP_SETTINGS(QS_INDEX_)
#undef QS_INDEX_
    QS_COUNT
};

// A setting's value from Python: an int, float, bool or NumPy scalar (not a string, None or
// a sequence), as the double gala_qp_settings_set checks against the table (range, and
// integral for int, bool and enum rows).
double setting_value(nb::handle v, const char *name)
{
    PyObject *o = v.ptr();
    bool number = PyLong_Check(o) || PyFloat_Check(o);
    if (!number && o != Py_None && !PyUnicode_Check(o) && !PyBytes_Check(o) &&
        !PyByteArray_Check(o) && !PyList_Check(o) && !PyTuple_Check(o) && !PyDict_Check(o) &&
        (PyObject_HasAttrString(o, "__float__") || PyIndex_Check(o))) {
        number = true; // NumPy scalars and 0-D arrays; not arrays of one or more dimensions
        if (PyObject_HasAttrString(o, "ndim")) {
            nb::object nd = v.attr("ndim");
            number = PyLong_Check(nd.ptr()) && PyLong_AsLong(nd.ptr()) == 0;
        }
    }
    if (!number)
        throw nb::type_error((std::string(name) + ": expected a number, got " +
                              nb::cast<std::string>(nb::str(nb::handle((PyObject *)Py_TYPE(o)).attr("__name__"))))
                                 .c_str());
    const double d = PyFloat_Check(o) ? PyFloat_AS_DOUBLE(o) : PyFloat_AsDouble(o);
    if (d == -1.0 && PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            value_error(std::string(name) + ": " + nb::cast<std::string>(nb::repr(v)) + " is out of range");
        }
        throw nb::python_error();
    }
    return d;
}

void bind_settings(nb::module_ &m)
{
    auto cls = nb::class_<gala_qp_settings>(m, "QPSettings",
                                            "gala_qp_settings: one attribute per row of the "
                                            "settings table (gala.qp_settings_table())");
    cls.def("__init__", [](gala_qp_settings *s) {
        new (s) gala_qp_settings();
        gala_qp_settings_default(s);
    });
#define QS_BIND_(kind, ctype, name, def, lo, hi, flags, cli, choices, help)                         \
    cls.def_prop_rw(                                                                               \
        #name,                                                                                     \
        [](const gala_qp_settings &s) { return (py_type<GALA_QP_SETTING_##kind>::type)s.name; },   \
        [](gala_qp_settings &s, nb::handle v) {                                                    \
            check(gala_qp_settings_set(&s, QS_##name, setting_value(v, #name)), nullptr);          \
        },                                                                                         \
        help);
    GALA_QP_SETTINGS(QS_BIND_)
#undef QS_BIND_
    cls.def("__copy__", [](const gala_qp_settings &s) { return s; });
    // Assigning a name that is not a setting raises gala._errors.UnknownSettingError (a
    // ValueError and an AttributeError) instead of a bare AttributeError.
    cls.def(
        "__setattr__",
        [](nb::handle self, nb::handle name, nb::handle value) {
            if (!PyUnicode_Check(name.ptr())) throw nb::type_error("attribute name must be a string");
            const std::string n = nb::cast<std::string>(name);
            if (n.rfind("__", 0) != 0) {
                int idx = -1;
                const gala_qp_setting_desc *d = nullptr;
                if (gala_qp_settings_find(n.c_str(), &idx) != GALA_OK ||
                    gala_qp_settings_field(idx, &d) != GALA_OK || n != d->name) {
                    nb::object exc = nb::module_::import_("gala._errors").attr("UnknownSettingError")(
                        "'" + n + "' is not a setting (gala.qp_settings_table() lists them)");
                    PyErr_SetObject((PyObject *)Py_TYPE(exc.ptr()), exc.ptr());
                    throw nb::python_error();
                }
                if (value.is_none()) throw nb::type_error((n + ": expected a number, got None").c_str());
            }
            if (PyObject_GenericSetAttr(self.ptr(), name.ptr(), value.ptr()) != 0) throw nb::python_error();
        },
        "name"_a, "value"_a.none());
}

std::vector<nb::dict> settings_table()
{
    std::vector<nb::dict> out;
    for (int i = 0; i < gala_qp_settings_count(); ++i) {
        const gala_qp_setting_desc *d;
        check(gala_qp_settings_field(i, &d), nullptr);
        nb::dict r;
        r["name"] = d->name;
        r["kind"] = d->kind == GALA_QP_SETTING_BOOL ? "bool"
                    : d->kind == GALA_QP_SETTING_INT ? "int"
                    : d->kind == GALA_QP_SETTING_REAL ? "real"
                                                      : "enum";
        r["osqp"] = bool(d->flags & GALA_QP_SETTING_OSQP);
        r["fixed"] = bool(d->flags & GALA_QP_SETTING_FIXED);
        r["default"] = d->def;
        r["lo"] = d->lo;
        r["hi"] = d->hi;
        r["lo_open"] = bool(d->flags & GALA_QP_SETTING_LO_OPEN);
        r["hi_open"] = bool(d->flags & GALA_QP_SETTING_HI_OPEN);
        std::vector<std::string> ch;
        for (int v = 0; v < d->nchoices; ++v) ch.emplace_back(gala_qp_setting_choice(i, (int)d->lo + v));
        r["choices"] = ch;
        r["help"] = d->help;
        out.push_back(r);
    }
    return out;
}

using F64 = nb::ndarray<nb::ro, double, nb::c_contig, nb::device::cpu>;
using I32 = nb::ndarray<nb::ro, int32_t, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

gala_csc csc_of(int rows, int cols, const I32 &p, const I32 &i, const F64 &x)
{
    gala_csc c;
    std::memset(&c, 0, sizeof c);
    c.m = rows;
    c.n = cols;
    c.p = const_cast<int *>(p.data());
    c.i = const_cast<int *>(i.data());
    c.x = const_cast<double *>(x.data());
    return c;
}

void need_size(const char *what, size_t have, size_t want, int k)
{
    if (have != want)
        value_error(std::string(what) + (k >= 0 ? " of QP " + std::to_string(k) : std::string()) +
                    " has " + std::to_string(have) + " entries, expected " + std::to_string(want));
}

// The progress callback of every solve from Python: lets Ctrl-C interrupt a batch (the QPs
// still running get INTERRUPTED, as OSQP's SIGINT), then raises KeyboardInterrupt.
int check_signals(void *user, int, int, int)
{
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
        *(int *)user = 1;
        PyErr_Clear();
        return 1;
    }
    return 0;
}

struct QPSolver {
    gala_qp_solver *s = nullptr;
    nb::object context;
    std::vector<nb::object> devices; // gala_qp_setup_devices: the contexts, kept alive
    std::vector<int> n, m;   // per QP
    size_t ntot = 0, mtot = 0;
    int interrupted = 0;
    ~QPSolver()
    {
        if (s) gala_qp_destroy(s);
    }
    gala_context *ctx() const { return nb::cast<Context &>(context).ctx; }
    void sizes(const gala_qp_problem *pb, int count)
    {
        n.resize((size_t)count);
        m.resize((size_t)count);
        ntot = mtot = 0;
        for (int k = 0; k < count; ++k) {
            n[(size_t)k] = pb[k].n > 0 ? pb[k].n : 0;
            m[(size_t)k] = pb[k].m > 0 ? pb[k].m : 0;
            ntot += (size_t)n[(size_t)k];
            mtot += (size_t)m[(size_t)k];
        }
    }
    // devs: several contexts (gala_qp_setup_devices; devs[0] is context_), or empty
    void setup(nb::object context_, std::vector<gala_qp_problem> &pb, const gala_qp_settings &set,
               const std::vector<nb::object> &devs, const std::vector<double> &weights)
    {
        gala_context *c = context_arg(context_).ctx;
        context = context_;
        std::vector<gala_context *> cs;
        for (const nb::object &d : devs) cs.push_back(context_arg(d).ctx);
        if (!weights.empty() && weights.size() != cs.size())
            value_error("weights: " + std::to_string(weights.size()) + " entries for " +
                        std::to_string(cs.size()) + " devices");
        devices = devs;
        gala_qp_settings s2 = set;
        s2.progress = check_signals;
        s2.progress_user = &interrupted;
        gala_status st;
        {
            nb::gil_scoped_release nogil;
            st = cs.empty() ? gala_qp_setup(c, pb.data(), (int)pb.size(), &s2, &s)
                            : gala_qp_setup_devices(cs.data(), (int)cs.size(),
                                                    weights.empty() ? nullptr : weights.data(),
                                                    pb.data(), (int)pb.size(), &s2, &s);
        }
        check(st, c);
        sizes(pb.data(), (int)pb.size());
    }
};

// Heterogeneous batch: problems[k] = (n, m, Pp, Pi, Px, q, Ap, Ai, Ax, l, u, c0).
using ProblemIn = std::tuple<int, int, I32, I32, F64, F64, I32, I32, F64, F64, F64, double>;

void check_csc_arrays(const char *what, int cols, const I32 &p, const I32 &i, const F64 &x, int k)
{
    need_size((std::string(what) + ".indptr").c_str(), p.size(), (size_t)(cols > 0 ? cols : 0) + 1, k);
    const int nnz = p.data()[cols > 0 ? cols : 0];
    if (nnz < 0 || (size_t)nnz > i.size() || (size_t)nnz > x.size())
        value_error(std::string(what) + (k >= 0 ? " of QP " + std::to_string(k) : std::string()) +
                    ": indptr[-1] = " + std::to_string(nnz) + " runs past indices (" +
                    std::to_string(i.size()) + ") or data (" + std::to_string(x.size()) + ")");
}

QPSolver *qp_setup(nb::object context, std::vector<ProblemIn> problems, const gala_qp_settings &set,
                   std::vector<nb::object> devices, std::vector<double> weights)
{
    const size_t count = problems.size();
    if (count == 0) value_error("problems: the batch is empty");
    std::vector<gala_qp_problem> pb(count);
    for (size_t k = 0; k < count; ++k) {
        const ProblemIn &t = problems[k];
        const int n = std::get<0>(t), m = std::get<1>(t), K = (int)k;
        const I32 &Pp = std::get<2>(t), &Pi = std::get<3>(t), &Ap = std::get<6>(t), &Ai = std::get<7>(t);
        const F64 &Px = std::get<4>(t), &q = std::get<5>(t), &Ax = std::get<8>(t);
        const F64 &l = std::get<9>(t), &u = std::get<10>(t);
        /* sizes that do not match are the solver's to report (the QP becomes INVALID_DATA);
         * here only what would make it read past the arrays */
        need_size("q", q.size(), (size_t)(n > 0 ? n : 0), K);
        need_size("l", l.size(), (size_t)(m > 0 ? m : 0), K);
        need_size("u", u.size(), (size_t)(m > 0 ? m : 0), K);
        check_csc_arrays("P", n, Pp, Pi, Px, K);
        check_csc_arrays("A", n, Ap, Ai, Ax, K);
        gala_qp_problem &p = pb[k];
        std::memset(&p, 0, sizeof p);
        p.n = n;
        p.m = m;
        p.P = csc_of(n, n, Pp, Pi, Px);
        p.A = csc_of(m, n, Ap, Ai, Ax);
        p.q = const_cast<double *>(q.data());
        p.l = const_cast<double *>(l.data());
        p.u = const_cast<double *>(u.data());
        p.c0 = std::get<11>(t);
    }
    auto solver = std::make_unique<QPSolver>();
    solver->setup(context, pb, set, devices, weights);
    return solver.release();
}

// Shared P and A, stacked vectors: q (k×n), l (k×m), u (k×m), row-major float64.
QPSolver *qp_setup_shared(nb::object context, int n, int m, I32 Pp, I32 Pi, F64 Px, I32 Ap, I32 Ai,
                          F64 Ax, F64 q, F64 l, F64 u, double c0, const gala_qp_settings &set,
                          std::vector<nb::object> devices, std::vector<double> weights)
{
    if (n < 1) value_error("n = " + std::to_string(n) + ": need at least one variable");
    if (m < 0) value_error("m = " + std::to_string(m) + " < 0");
    check_csc_arrays("P", n, Pp, Pi, Px, -1);
    check_csc_arrays("A", n, Ap, Ai, Ax, -1);
    const size_t count = q.size() / (size_t)n;
    if (count < 1 || q.size() != count * (size_t)n) value_error("q: expected k rows of n entries");
    need_size("l", l.size(), count * (size_t)m, -1);
    need_size("u", u.size(), count * (size_t)m, -1);
    std::vector<gala_qp_problem> pb(count);
    const gala_csc Pc = csc_of(n, n, Pp, Pi, Px), Ac = csc_of(m, n, Ap, Ai, Ax);
    for (size_t k = 0; k < count; ++k) {
        gala_qp_problem &p = pb[k];
        std::memset(&p, 0, sizeof p);
        p.n = n;
        p.m = m;
        p.P = Pc;
        p.A = Ac;
        p.q = const_cast<double *>(q.data()) + k * (size_t)n;
        p.l = const_cast<double *>(l.data()) + k * (size_t)m;
        p.u = const_cast<double *>(u.data()) + k * (size_t)m;
        p.c0 = c0;
    }
    auto solver = std::make_unique<QPSolver>();
    solver->setup(context, pb, set, devices, weights);
    return solver.release();
}

// One pattern of P and of A for every QP, per-QP values: Px holds nnz(P) values (every QP
// the same) or count·nnz(P) (QP k's at k·nnz(P)), Ax likewise; q (count×n), l, u (count×m)
// row-major float64. The values are not copied: gala reads them during setup.
QPSolver *qp_setup_stacked(nb::object context, int n, int m, I32 Pp, I32 Pi, F64 Px, I32 Ap,
                           I32 Ai, F64 Ax, F64 q, F64 l, F64 u, double c0,
                           const gala_qp_settings &set, std::vector<nb::object> devices,
                           std::vector<double> weights)
{
    if (n < 1) value_error("n = " + std::to_string(n) + ": need at least one variable");
    if (m < 0) value_error("m = " + std::to_string(m) + " < 0");
    const size_t count = q.size() / (size_t)n;
    if (count < 1 || q.size() != count * (size_t)n) value_error("q: expected k rows of n entries");
    need_size("l", l.size(), count * (size_t)m, -1);
    need_size("u", u.size(), count * (size_t)m, -1);
    need_size("P.indptr", Pp.size(), (size_t)n + 1, -1);
    need_size("A.indptr", Ap.size(), (size_t)n + 1, -1);
    const int pnz = Pp.data()[n], anz = Ap.data()[n];
    if (pnz < 0 || (size_t)pnz > Pi.size()) value_error("P: indptr[-1] runs past indices");
    if (anz < 0 || (size_t)anz > Ai.size()) value_error("A: indptr[-1] runs past indices");
    auto per_qp = [&](const char *what, size_t have, int nnz) -> size_t {
        if (have == (size_t)nnz) return 0;
        if (have == count * (size_t)nnz) return (size_t)nnz;
        value_error(std::string(what) + " has " + std::to_string(have) + " values, expected " +
                    std::to_string(nnz) + " (one matrix) or " + std::to_string(count) + "×" +
                    std::to_string(nnz));
        return 0;
    };
    const size_t ps = per_qp("Px", Px.size(), pnz), as = per_qp("Ax", Ax.size(), anz);
    std::vector<gala_qp_problem> pb(count);
    for (size_t k = 0; k < count; ++k) {
        gala_qp_problem &p = pb[k];
        std::memset(&p, 0, sizeof p);
        p.n = n;
        p.m = m;
        p.P = csc_of(n, n, Pp, Pi, Px);
        p.P.x += k * ps;
        p.A = csc_of(m, n, Ap, Ai, Ax);
        p.A.x += k * as;
        p.q = const_cast<double *>(q.data()) + k * (size_t)n;
        p.l = const_cast<double *>(l.data()) + k * (size_t)m;
        p.u = const_cast<double *>(u.data()) + k * (size_t)m;
        p.c0 = c0;
    }
    auto solver = std::make_unique<QPSolver>();
    solver->setup(context, pb, set, devices, weights);
    return solver.release();
}

void qp_solve(QPSolver &s)
{
    s.interrupted = 0;
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_solve(s.s);
    }
    check(st, s.ctx()); // after Ctrl-C the QPs still running are INTERRUPTED, as OSQP's
}

nb::dict qp_infos(const QPSolver &s)
{
    const int count = gala_qp_count(s.s);
    std::vector<gala_qp_info> in((size_t)count);
    check(gala_qp_get_infos(s.s, 0, count, in.data()), s.ctx());
    auto ints = [&](auto get) {
        IntOut a = int_array((size_t)count);
        for (int k = 0; k < count; ++k) a.data()[k] = get(in[(size_t)k]);
        return a;
    };
    auto reals = [&](auto get) {
        double *p = new double[count ? (size_t)count : 1];
        nb::capsule owner(p, [](void *q) noexcept { delete[] (double *)q; });
        for (int k = 0; k < count; ++k) p[k] = get(in[(size_t)k]);
        return nb::ndarray<nb::numpy, double, nb::ndim<1>>(p, {(size_t)count}, owner);
    };
    nb::dict d;
    d["status_val"] = ints([](const gala_qp_info &i) { return i.status; });
    d["iter"] = ints([](const gala_qp_info &i) { return i.iter; });
    d["rho_updates"] = ints([](const gala_qp_info &i) { return i.rho_updates; });
    d["status_polish"] = ints([](const gala_qp_info &i) { return i.status_polish; });
    d["obj_val"] = reals([](const gala_qp_info &i) { return i.obj_val; });
    d["dual_obj_val"] = reals([](const gala_qp_info &i) { return i.dual_obj_val; });
    d["prim_res"] = reals([](const gala_qp_info &i) { return i.prim_res; });
    d["dual_res"] = reals([](const gala_qp_info &i) { return i.dual_res; });
    d["duality_gap"] = reals([](const gala_qp_info &i) { return i.duality_gap; });
    d["rho_estimate"] = reals([](const gala_qp_info &i) { return i.rho_estimate; });
    d["rho"] = reals([](const gala_qp_info &i) { return i.rho; });
    d["setup_time"] = reals([](const gala_qp_info &i) { return i.setup_time; });
    d["solve_time"] = reals([](const gala_qp_info &i) { return i.solve_time; });
    d["update_time"] = reals([](const gala_qp_info &i) { return i.update_time; });
    d["polish_time"] = reals([](const gala_qp_info &i) { return i.polish_time; });
    nb::list msg; /* mostly empty: one shared "" */
    nb::str empty("");
    for (int k = 0; k < count; ++k)
        msg.append(in[(size_t)k].message[0] ? nb::str(in[(size_t)k].message) : empty);
    d["message"] = msg;
    return d;
}

// One QP's gala_qp_info as a tuple, in the struct's order (the single-QP path of the OSQP
// interface reads this after every solve, so it makes no arrays).
nb::tuple qp_info(const QPSolver &s, int k)
{
    gala_qp_info i;
    check(gala_qp_get_info(s.s, k, &i), s.ctx());
    return nb::make_tuple(i.status, i.iter, i.rho_updates, i.status_polish, i.obj_val,
                          i.dual_obj_val, i.prim_res, i.dual_res, i.duality_gap, i.rho_estimate,
                          i.rho, i.setup_time, i.solve_time, i.update_time, i.polish_time,
                          std::string(i.message));
}

using F64Out = nb::ndarray<double, nb::c_contig, nb::device::cpu>;

double *new_doubles(size_t n, nb::capsule &owner)
{
    double *p = new double[n ? n : 1];
    owner = nb::capsule(p, [](void *q) noexcept { delete[] (double *)q; });
    return p;
}

// The single-QP path of the OSQP interface in one crossing: gala_qp_solve, then QP k's
// x, y, certificates (new NumPy arrays) and gala_qp_info (the tuple of qp_info).
nb::tuple qp_solve_one(QPSolver &s, int k)
{
    qp_solve(s);
    if (k < 0 || k >= gala_qp_count(s.s)) value_error("k = " + std::to_string(k) + " outside the batch");
    const size_t n = (size_t)s.n[(size_t)k], m = (size_t)s.m[(size_t)k];
    const double *px, *py, *pc, *dc;
    check(gala_qp_get_solution(s.s, k, &px, &py, &pc, &dc), s.ctx());
    nb::capsule ox, oy, opc, odc;
    double *x = new_doubles(n, ox), *y = new_doubles(m, oy), *c1 = new_doubles(m, opc),
           *c2 = new_doubles(n, odc);
    std::memcpy(x, px, sizeof(double) * n);
    std::memcpy(y, py, sizeof(double) * m);
    std::memcpy(c1, pc, sizeof(double) * m);
    std::memcpy(c2, dc, sizeof(double) * n);
    using Vec = nb::ndarray<nb::numpy, double, nb::ndim<1>>;
    return nb::make_tuple(Vec(x, {n}, ox), Vec(y, {m}, oy), Vec(c1, {m}, opc), Vec(c2, {n}, odc),
                          qp_info(s, k));
}

void qp_solutions(const QPSolver &s, std::optional<F64Out> x, std::optional<F64Out> y)
{
    if (x) need_size("x", x->size(), s.ntot, -1);
    if (y) need_size("y", y->size(), s.mtot, -1);
    check(gala_qp_get_solutions(s.s, x ? x->data() : nullptr, y ? y->data() : nullptr), s.ctx());
}

// QP k's x, y and certificates (gala_qp_get_solution) into caller arrays; any may be None.
void qp_solution(const QPSolver &s, int k, std::optional<F64Out> x, std::optional<F64Out> y,
                 std::optional<F64Out> pcert, std::optional<F64Out> dcert)
{
    if (k < 0 || k >= gala_qp_count(s.s)) value_error("k = " + std::to_string(k) + " outside the batch");
    const size_t n = (size_t)s.n[(size_t)k], m = (size_t)s.m[(size_t)k];
    if (x) need_size("x", x->size(), n, k);
    if (y) need_size("y", y->size(), m, k);
    if (pcert) need_size("prim_inf_cert", pcert->size(), m, k);
    if (dcert) need_size("dual_inf_cert", dcert->size(), n, k);
    const double *px = nullptr, *py = nullptr, *pc = nullptr, *dc = nullptr;
    check(gala_qp_get_solution(s.s, k, &px, &py, &pc, &dc), s.ctx());
    if (x) std::memcpy(x->data(), px, sizeof(double) * n);
    if (y) std::memcpy(y->data(), py, sizeof(double) * m);
    if (pcert) std::memcpy(pcert->data(), pc, sizeof(double) * m);
    if (dcert) std::memcpy(dcert->data(), dc, sizeof(double) * n);
}

const double *opt_vec(const std::optional<F64> &v, size_t want, const char *what)
{
    if (!v) return nullptr;
    need_size(what, v->size(), want, -1);
    return v->data();
}

void qp_update_vectors(QPSolver &s, int k, std::optional<F64> q, std::optional<F64> l,
                       std::optional<F64> u)
{
    const size_t wn = k < 0 ? s.ntot : (k < (int)s.n.size() ? (size_t)s.n[(size_t)k] : 0);
    const size_t wm = k < 0 ? s.mtot : (k < (int)s.m.size() ? (size_t)s.m[(size_t)k] : 0);
    const double *pq = opt_vec(q, wn, "q"), *pl = opt_vec(l, wm, "l"), *pu = opt_vec(u, wm, "u");
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_update_vectors(s.s, k, pq, pl, pu);
    }
    check(st, s.ctx());
}

void qp_update_matrices(QPSolver &s, int k, std::optional<F64> Px, std::optional<F64> Ax)
{
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_update_matrices(s.s, k, Px ? Px->data() : nullptr, Ax ? Ax->data() : nullptr);
    }
    check(st, s.ctx());
}

void qp_warm_start(QPSolver &s, int k, std::optional<F64> x, std::optional<F64> y)
{
    const size_t wn = k < 0 ? s.ntot : (k < (int)s.n.size() ? (size_t)s.n[(size_t)k] : 0);
    const size_t wm = k < 0 ? s.mtot : (k < (int)s.m.size() ? (size_t)s.m[(size_t)k] : 0);
    const double *px = opt_vec(x, wn, "x"), *py = opt_vec(y, wm, "y");
    check(gala_qp_warm_start(s.s, k, px, py), s.ctx());
}

// The device-buffer forms (CUDA arrays wrapped as Buffers): every QP's vectors one after
// another from offset 0, queued on the context without waiting.
gala_buffer *buf_of(Buffer *b) { return b ? b->buf : nullptr; }

void qp_update_vectors_device(QPSolver &s, Buffer *q, Buffer *l, Buffer *u)
{
    check(gala_qp_update_vectors_device(s.s, buf_of(q), 0, buf_of(l), 0, buf_of(u), 0), s.ctx());
}

void qp_get_solution_device(QPSolver &s, Buffer *x, Buffer *y)
{
    check(gala_qp_get_solution_device(s.s, buf_of(x), 0, buf_of(y), 0), s.ctx());
}

void qp_warm_start_device(QPSolver &s, Buffer *x, Buffer *y)
{
    check(gala_qp_warm_start_device(s.s, buf_of(x), 0, buf_of(y), 0), s.ctx());
}

gala_qp_settings qp_get_settings(const QPSolver &s)
{
    gala_qp_settings out;
    check(gala_qp_get_settings(s.s, &out), s.ctx());
    out.progress = nullptr;
    out.progress_user = nullptr;
    return out;
}

void qp_update_settings(QPSolver &s, const gala_qp_settings &set)
{
    gala_qp_settings s2 = set;
    s2.progress = check_signals;
    s2.progress_user = &s.interrupted;
    check(gala_qp_update_settings(s.s, &s2), s.ctx());
}

nb::dict qp_profile(const QPSolver &s)
{
    gala_qp_profile p;
    check(gala_qp_get_profile(s.s, &p), s.ctx());
    nb::dict d;
    for (int i = 0; i < GALA_QP_NPHASES; ++i) d[gala_qp_phase_name(i)] = nb::make_tuple(p.seconds[i], p.calls[i]);
    return d;
}

// ----------------------------------------------------------------------------- derivatives

// gala_qp_adjoint_derivative_compute: dx (Σn) and dy (Σm) in batch order, None = zero.
void qp_deriv_compute(QPSolver &s, std::optional<F64> dx, std::optional<F64> dy)
{
    const double *px = opt_vec(dx, s.ntot, "dx"), *py = opt_vec(dy, s.mtot, "dy");
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_adjoint_derivative_compute(s.s, px, py);
    }
    check(st, s.ctx());
}

// gala_qp_adjoint_derivative_status: one gala_qp_deriv_status per QP
IntOut qp_deriv_status(const QPSolver &s)
{
    IntOut st = int_array((size_t)gala_qp_count(s.s));
    check(gala_qp_adjoint_derivative_status(s.s, st.data()), s.ctx());
    return st;
}

// gala_qp_adjoint_derivative_mat_nnz: (pnz, anz), per QP its values in get_mat's layout
std::tuple<IntOut, IntOut> qp_deriv_mat_nnz(const QPSolver &s)
{
    const size_t count = (size_t)gala_qp_count(s.s);
    IntOut p = int_array(count), a = int_array(count);
    check(gala_qp_adjoint_derivative_mat_nnz(s.s, p.data(), a.data()), s.ctx());
    return {p, a};
}

// gala_qp_adjoint_derivative_get_vec into caller arrays (Σn, Σm, Σm); any may be None
void qp_deriv_get_vec(const QPSolver &s, std::optional<F64Out> dq, std::optional<F64Out> dl,
                      std::optional<F64Out> du)
{
    if (dq) need_size("dq", dq->size(), s.ntot, -1);
    if (dl) need_size("dl", dl->size(), s.mtot, -1);
    if (du) need_size("du", du->size(), s.mtot, -1);
    check(gala_qp_adjoint_derivative_get_vec(s.s, dq ? dq->data() : nullptr,
                                             dl ? dl->data() : nullptr, du ? du->data() : nullptr),
          s.ctx());
}

// The sizes of get_mat's outputs: every QP's nnz (sum), or the shared pattern's (max: the QPs
// rejected at setup count 0, the others all have the shared pattern when the sum is allowed).
std::pair<size_t, size_t> deriv_mat_sizes(const QPSolver &s, bool shared)
{
    const size_t count = (size_t)gala_qp_count(s.s);
    std::vector<int> p(count), a(count);
    check(gala_qp_adjoint_derivative_mat_nnz(s.s, p.data(), a.data()), s.ctx());
    size_t pt = 0, at = 0;
    for (size_t k = 0; k < count; ++k) {
        pt = shared ? std::max(pt, (size_t)p[k]) : pt + (size_t)p[k];
        at = shared ? std::max(at, (size_t)a[k]) : at + (size_t)a[k];
    }
    return {pt, at};
}

// gala_qp_adjoint_derivative_get_mat into caller arrays (the valid QPs' values one after
// another, adjoint_derivative_mat_nnz's sums); either may be None
void qp_deriv_get_mat(const QPSolver &s, std::optional<F64Out> dP, std::optional<F64Out> dA)
{
    const auto [pt, at] = deriv_mat_sizes(s, false);
    if (dP) need_size("dP", dP->size(), pt, -1);
    if (dA) need_size("dA", dA->size(), at, -1);
    check(gala_qp_adjoint_derivative_get_mat(s.s, dP ? dP->data() : nullptr,
                                             dA ? dA->data() : nullptr),
          s.ctx());
}

// gala_qp_adjoint_derivative_get_mat_sum into caller arrays (nnz of the shared P and A)
void qp_deriv_get_mat_sum(const QPSolver &s, std::optional<F64Out> dP, std::optional<F64Out> dA)
{
    const auto [pt, at] = deriv_mat_sizes(s, true);
    if (dP) need_size("dP", dP->size(), pt, -1);
    if (dA) need_size("dA", dA->size(), at, -1);
    check(gala_qp_adjoint_derivative_get_mat_sum(s.s, dP ? dP->data() : nullptr,
                                                 dA ? dA->data() : nullptr),
          s.ctx());
}

// ----------------------------------------------------------------------------- problems

// A problem gala allocated (owned = 1: a reader's or a generator's) as a dict of NumPy
// copies: name, n, m, P and A as CSC arrays (P_indptr, P_indices, P_data, A_...; P is the
// upper triangle), q, l, u, c0. The problem is released in any case.
nb::dict problem_dict(gala_qp_problem &p)
{
    struct Release {
        gala_qp_problem *p;
        ~Release() { gala_qp_problem_free(p); }
    } release{&p};
    auto f64 = [](const double *src, size_t count) {
        double *a = new double[count ? count : 1];
        if (count) std::memcpy(a, src, sizeof(double) * count);
        nb::capsule owner(a, [](void *q) noexcept { delete[] (double *)q; });
        return nb::ndarray<nb::numpy, double, nb::ndim<1>>(a, {count}, owner);
    };
    auto i32 = [](const int *src, size_t count) {
        IntOut a = int_array(count);
        if (count) std::memcpy(a.data(), src, sizeof(int32_t) * count);
        return a;
    };
    const size_t n = (size_t)(p.n > 0 ? p.n : 0), m = (size_t)(p.m > 0 ? p.m : 0);
    const size_t pnz = p.P.p ? (size_t)p.P.p[n] : 0, anz = p.A.p ? (size_t)p.A.p[n] : 0;
    nb::dict d;
    d["name"] = std::string(p.name);
    d["n"] = p.n;
    d["m"] = p.m;
    d["P_indptr"] = p.P.p ? i32(p.P.p, n + 1) : int_array(n + 1);
    d["P_indices"] = i32(p.P.i, pnz);
    d["P_data"] = f64(p.P.x, pnz);
    d["A_indptr"] = p.A.p ? i32(p.A.p, n + 1) : int_array(n + 1);
    d["A_indices"] = i32(p.A.i, anz);
    d["A_data"] = f64(p.A.x, anz);
    d["q"] = f64(p.q, n);
    d["l"] = f64(p.l, m);
    d["u"] = f64(p.u, m);
    d["c0"] = p.c0;
    return d;
}

// gala_qp_read_qps_ex: (problem as problem_dict, what the reader found as a dict)
std::tuple<nb::dict, nb::dict> read_qps(const std::string &path, unsigned flags)
{
    gala_qp_problem p;
    gala_qps_info info;
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_read_qps_ex(path.c_str(), flags, &p, &info);
    }
    check(st, nullptr);
    nb::dict i;
    i["rows"] = info.rows;
    i["bound_rows"] = info.bound_rows;
    i["objective_sense"] = info.objective_sense;
    i["warnings"] = info.warnings;
    i["warning_count"] = info.warning_count;
    i["first_warning"] = std::string(info.first_warning);
    i["first_warning_line"] = info.first_warning_line;
    return {problem_dict(p), i};
}

// gala_qp_generate, as problem_dict
nb::dict qp_generate(int family, int n, uint64_t seed)
{
    gala_qp_problem p;
    gala_status st;
    {
        nb::gil_scoped_release nogil;
        st = gala_qp_generate((gala_qp_family)family, n, seed, &p);
    }
    check(st, nullptr);
    return problem_dict(p);
}

} // namespace

NB_MODULE(_ext, m)
{
    m.doc() = "gala's C API for Python (see the gala package for the Python interface)";
    m.attr("version") = gala_version();

    nb::enum_<gala_status>(m, "Status", nb::is_arithmetic())
        .value("OK", GALA_OK)
        .value("ERR_INVALID_ARG", GALA_ERR_INVALID_ARG)
        .value("ERR_OUT_OF_MEMORY", GALA_ERR_OUT_OF_MEMORY)
        .value("ERR_DEVICE_MEMORY", GALA_ERR_DEVICE_MEMORY)
        .value("ERR_DEVICE", GALA_ERR_DEVICE)
        .value("ERR_KERNEL_BUILD", GALA_ERR_KERNEL_BUILD)
        .value("ERR_NOT_SUPPORTED", GALA_ERR_NOT_SUPPORTED)
        .value("ERR_NO_DEVICE", GALA_ERR_NO_DEVICE)
        .value("ERR_NOT_POSITIVE_DEFINITE", GALA_ERR_NOT_POSITIVE_DEFINITE)
        .value("ERR_SINGULAR", GALA_ERR_SINGULAR)
        .value("ERR_NOT_FINITE", GALA_ERR_NOT_FINITE)
        .value("ERR_IO", GALA_ERR_IO)
        .value("ERR_PARSE", GALA_ERR_PARSE)
        .value("ERR_INVALID_MATRIX", GALA_ERR_INVALID_MATRIX)
        .value("ERR_WRONG_INERTIA", GALA_ERR_WRONG_INERTIA)
        .value("ERR_INTERNAL", GALA_ERR_INTERNAL);
    m.def("status_string", [](int st) { return std::string(gala_status_string((gala_status)st)); });

    nb::enum_<gala_backend>(m, "Backend", nb::is_arithmetic())
        .value("AUTO", GALA_BACKEND_AUTO)
        .value("OPENCL", GALA_BACKEND_OPENCL)
        .value("CUDA", GALA_BACKEND_CUDA)
        .value("HOST", GALA_BACKEND_HOST);
    nb::enum_<gala_uplo>(m, "Uplo", nb::is_arithmetic()).value("UPPER", GALA_UPPER).value("LOWER", GALA_LOWER);
    nb::enum_<gala_diag>(m, "Diag", nb::is_arithmetic()).value("NON_UNIT", GALA_NON_UNIT).value("UNIT", GALA_UNIT);
    nb::enum_<gala_qp_status>(m, "QPStatus", nb::is_arithmetic())
        .value("SOLVED", GALA_QP_SOLVED)
        .value("SOLVED_INACCURATE", GALA_QP_SOLVED_INACCURATE)
        .value("PRIMAL_INFEASIBLE", GALA_QP_PRIMAL_INFEASIBLE)
        .value("PRIMAL_INFEASIBLE_INACCURATE", GALA_QP_PRIMAL_INFEASIBLE_INACCURATE)
        .value("DUAL_INFEASIBLE", GALA_QP_DUAL_INFEASIBLE)
        .value("DUAL_INFEASIBLE_INACCURATE", GALA_QP_DUAL_INFEASIBLE_INACCURATE)
        .value("MAX_ITER_REACHED", GALA_QP_MAX_ITER_REACHED)
        .value("TIME_LIMIT_REACHED", GALA_QP_TIME_LIMIT_REACHED)
        .value("NON_CVX", GALA_QP_NON_CVX)
        .value("INTERRUPTED", GALA_QP_INTERRUPTED)
        .value("UNSOLVED", GALA_QP_UNSOLVED)
        .value("INVALID_DATA", GALA_QP_INVALID_DATA);
    m.def("qp_status_string", [](int st) { return std::string(gala_qp_status_string(st)); });
    nb::enum_<gala_qp_deriv_status>(m, "QPDerivStatus", nb::is_arithmetic())
        .value("OK", GALA_QP_DERIV_OK)
        .value("NOT_COMPUTED", GALA_QP_DERIV_NOT_COMPUTED)
        .value("NOT_SOLVED", GALA_QP_DERIV_NOT_SOLVED)
        .value("NOT_FINITE", GALA_QP_DERIV_NOT_FINITE)
        .value("SINGULAR", GALA_QP_DERIV_SINGULAR);
    nb::enum_<gala_qp_linsys>(m, "QPLinsys", nb::is_arithmetic())
        .value("AUTO", GALA_QP_LINSYS_AUTO)
        .value("DENSE", GALA_QP_LINSYS_DENSE)
        .value("DENSE_SHARED", GALA_QP_LINSYS_DENSE_SHARED)
        .value("SPARSE_LDLT", GALA_QP_LINSYS_SPARSE_LDLT)
        .value("PCG", GALA_QP_LINSYS_PCG);
    m.def("qp_linsys_name", [](int l) { return std::string(gala_qp_linsys_name(l)); });
    nb::enum_<gala_qp_adaptive_rho>(m, "QPAdaptiveRho", nb::is_arithmetic())
        .value("DISABLED", GALA_QP_ADAPTIVE_RHO_DISABLED)
        .value("ITERATIONS", GALA_QP_ADAPTIVE_RHO_ITERATIONS)
        .value("TIME", GALA_QP_ADAPTIVE_RHO_TIME);

    nb::enum_<gala_qp_family>(m, "QPFamily", nb::is_arithmetic())
        .value("RANDOM", GALA_QP_GEN_RANDOM)
        .value("EQUALITY", GALA_QP_GEN_EQUALITY)
        .value("CONTROL", GALA_QP_GEN_CONTROL)
        .value("PORTFOLIO", GALA_QP_GEN_PORTFOLIO)
        .value("LASSO", GALA_QP_GEN_LASSO)
        .value("HUBER", GALA_QP_GEN_HUBER)
        .value("SVM", GALA_QP_GEN_SVM)
        .value("DOUBLE_INTEGRATOR", GALA_QP_GEN_DOUBLE_INTEGRATOR);
    m.def("qp_family_name", [](int f) { return std::string(gala_qp_family_name((gala_qp_family)f)); });
    m.attr("QPS_ALL_BOUND_ROWS") = GALA_QPS_ALL_BOUND_ROWS;
    m.attr("QPS_STRICT") = GALA_QPS_STRICT;
    m.def("read_qps", &read_qps, "path"_a, "flags"_a = 0,
          "gala_qp_read_qps_ex: (problem, info) as dicts (CSC arrays, NumPy copies)");
    m.def("qp_generate", &qp_generate, "family"_a, "n"_a, "seed"_a,
          "gala_qp_generate: the problem as a dict (CSC arrays, NumPy copies)");

    m.def("backend_available", [](const std::string &b) { return bool(gala_backend_available(backend_of(b))); });
    m.def("device_list", &device_list, "gala_device_list: every device of every backend in this build");
    m.def("last_error", []() { return std::string(gala_last_error(nullptr)); });

    nb::class_<Context>(m, "Context", "gala_context: one backend and one device")
        .def("__init__", &context_init, "backend"_a = "auto", "platform"_a = nb::none(),
             "device"_a = nb::none(), "stream"_a = 0, "use_environment"_a = true,
             "profiling"_a = false)
        .def_prop_ro("info", &device_info, "gala_context_info, as a dict")
        .def("stats", &context_stats, "gala_context_stats, as a dict")
        .def("tune_set", &context_tune_set, "key"_a, "value"_a, "dtype"_a = nb::none(),
             "gala_tune_set: a tuning value for this context (docs/tuning.md lists the keys); "
             "dtype None, 'float32' or 'float64'")
        .def("tune_get", &context_tune_get, "key"_a, "dtype"_a = nb::none(),
             "gala_tune_get: the tuning value that applies on this context")
        .def("finish", [](Context &c) {
            gala_status st;
            {
                nb::gil_scoped_release nogil;
                st = gala_finish(c.ctx);
            }
            check(st, c.ctx);
        })
        .def("last_error", [](const Context &c) { return std::string(gala_last_error(c.ctx)); })
        .def_prop_ro("handle", [](const Context &c) { return (uintptr_t)c.ctx; })
        .def_prop_ro("stream", [](const Context &c) { return c.stream; },
                     "the CUDA stream given at creation (0: the context's own)");

    nb::class_<Buffer>(m, "Buffer", "gala_buffer: typed device memory of a context")
        .def_static("create", &buffer_create, "context"_a, "dtype"_a, "count"_a,
                    nb::rv_policy::take_ownership)
        .def_static("wrap", &buffer_wrap, "context"_a, "array"_a.none(), "name"_a = "array",
                    "readonly"_a = false, nb::rv_policy::take_ownership)
        .def("write", &buffer_write, "offset"_a, "src"_a)
        .def("read", &buffer_read, "offset"_a, "dst"_a.noconvert())
        .def_prop_ro("count", [](const Buffer &b) { return gala_buffer_count(b.get("Buffer.count")); })
        .def_prop_ro("dtype", [](const Buffer &b) { return std::string(gala_dtype_name(gala_buffer_dtype(b.get("Buffer.dtype")))); })
        .def("free", [](Buffer &b) {
            if (b.buf) gala_buffer_free(b.buf);
            b.buf = nullptr;
            b.keep = nb::none();
        });

    m.def("potrf_batched", &potrf_batched, "context"_a, "uplo"_a, "n"_a, "A"_a, "a_off"_a, "lda"_a,
          "a_stride"_a, "batch"_a, "gala_potrf_batched; returns info (numerical failures are not raised)");
    m.def("potrs_batched", &potrs_batched, "context"_a, "uplo"_a, "n"_a, "nrhs"_a, "A"_a, "a_off"_a,
          "lda"_a, "a_stride"_a, "B"_a, "b_off"_a, "ldb"_a, "b_stride"_a, "batch"_a,
          "gala_potrs_batched, then waits for the device");
    m.def("potri_batched", &potri_batched, "context"_a, "uplo"_a, "n"_a, "A"_a, "a_off"_a, "lda"_a,
          "a_stride"_a, "batch"_a, "gala_potri_batched; returns info");
    m.def("trtri_batched", &trtri_batched, "context"_a, "uplo"_a, "diag"_a, "n"_a, "A"_a, "a_off"_a,
          "lda"_a, "a_stride"_a, "B"_a, "b_off"_a, "ldb"_a, "b_stride"_a, "batch"_a,
          "gala_trtri_batched; returns info");
    m.def("ldlt_batched", &ldlt_batched, "context"_a, "uplo"_a, "n"_a, "A"_a, "a_off"_a, "lda"_a,
          "a_stride"_a, "batch"_a, "gala_ldlt_batched; returns (info, inertia)");

    bind_settings(m);
    m.def("qp_settings_table", &settings_table, "the rows of GALA_QP_SETTINGS, as dicts");

    nb::class_<QPSolver>(m, "QPSolver", "gala_qp_solver: a batch of QPs set up on a context")
        .def_static("setup", &qp_setup, "context"_a, "problems"_a, "settings"_a,
                    "devices"_a = std::vector<nb::object>(), "weights"_a = std::vector<double>(),
                    nb::rv_policy::take_ownership,
                    "gala_qp_setup; with devices (contexts, the first one context): "
                    "gala_qp_setup_devices")
        .def_static("setup_shared", &qp_setup_shared, "context"_a, "n"_a, "m"_a, "Pp"_a, "Pi"_a,
                    "Px"_a, "Ap"_a, "Ai"_a, "Ax"_a, "q"_a, "l"_a, "u"_a, "c0"_a, "settings"_a,
                    "devices"_a = std::vector<nb::object>(), "weights"_a = std::vector<double>(),
                    nb::rv_policy::take_ownership)
        .def_static("setup_stacked", &qp_setup_stacked, "context"_a, "n"_a, "m"_a, "Pp"_a,
                    "Pi"_a, "Px"_a, "Ap"_a, "Ai"_a, "Ax"_a, "q"_a, "l"_a, "u"_a, "c0"_a,
                    "settings"_a, "devices"_a = std::vector<nb::object>(),
                    "weights"_a = std::vector<double>(), nb::rv_policy::take_ownership,
                    "one P and A pattern, per-QP values (count·nnz, or nnz for all)")
        .def("solve", &qp_solve)
        .def_prop_ro("count", [](const QPSolver &s) { return gala_qp_count(s.s); })
        .def_prop_ro("linsys_used", [](const QPSolver &s) { return gala_qp_linsys_used(s.s); })
        .def_prop_ro("chunk_count", [](const QPSolver &s) { return gala_qp_chunk_count(s.s); })
        .def_prop_ro("device_count", [](const QPSolver &s) { return gala_qp_device_count(s.s); })
        .def("device_share", [](const QPSolver &s, int d) {
                 int k0 = 0, count = 0, chunks = 0;
                 check(gala_qp_device_share(s.s, d, &k0, &count, &chunks), s.ctx());
                 return nb::make_tuple(k0, count, chunks);
             }, "d"_a, "gala_qp_device_share: (first QP, QPs, chunks) of device d")
        .def_prop_ro("n", [](const QPSolver &s) { return s.n; })
        .def_prop_ro("m", [](const QPSolver &s) { return s.m; })
        .def("infos", &qp_infos, "every QP's gala_qp_info, as a dict of arrays")
        .def("solutions", &qp_solutions, "x"_a.none().noconvert(), "y"_a.none().noconvert())
        .def("info", &qp_info, "k"_a, "QP k's gala_qp_info as a tuple in the struct's order")
        .def("solve_one", &qp_solve_one, "k"_a = 0,
             "gala_qp_solve, then QP k's (x, y, prim_inf_cert, dual_inf_cert, info tuple)")
        .def("solution", &qp_solution, "k"_a, "x"_a.none().noconvert(), "y"_a.none().noconvert(),
             "prim_inf_cert"_a.none().noconvert(), "dual_inf_cert"_a.none().noconvert())
        .def("update_vectors", &qp_update_vectors, "k"_a, "q"_a.none(), "l"_a.none(), "u"_a.none())
        .def("update_matrices", &qp_update_matrices, "k"_a, "Px"_a.none(), "Ax"_a.none())
        .def("update_rho", [](QPSolver &s, int k, double rho) { check(gala_qp_update_rho(s.s, k, rho), s.ctx()); })
        .def("warm_start", &qp_warm_start, "k"_a, "x"_a.none(), "y"_a.none())
        .def("cold_start", [](QPSolver &s) { check(gala_qp_cold_start(s.s), s.ctx()); })
        .def("update_vectors_device", &qp_update_vectors_device, "q"_a.none(), "l"_a.none(),
             "u"_a.none(), "gala_qp_update_vectors_device (offsets 0)")
        .def("get_solution_device", &qp_get_solution_device, "x"_a.none(), "y"_a.none(),
             "gala_qp_get_solution_device (offsets 0)")
        .def("warm_start_device", &qp_warm_start_device, "x"_a.none(), "y"_a.none(),
             "gala_qp_warm_start_device (offsets 0)")
        .def("adjoint_derivative_compute", &qp_deriv_compute, "dx"_a.none(), "dy"_a.none(),
             "gala_qp_adjoint_derivative_compute (dx: Σn, dy: Σm, batch order; None = zero)")
        .def("adjoint_derivative_status", &qp_deriv_status,
             "gala_qp_adjoint_derivative_status: a QPDerivStatus per QP")
        .def("adjoint_derivative_mat_nnz", &qp_deriv_mat_nnz,
             "gala_qp_adjoint_derivative_mat_nnz: (pnz, anz) per QP, 0 for one rejected at setup")
        .def("adjoint_derivative_get_vec", &qp_deriv_get_vec, "dq"_a.none().noconvert(),
             "dl"_a.none().noconvert(), "du"_a.none().noconvert(),
             "gala_qp_adjoint_derivative_get_vec into caller arrays")
        .def("adjoint_derivative_get_mat", &qp_deriv_get_mat, "dP"_a.none().noconvert(),
             "dA"_a.none().noconvert(), "gala_qp_adjoint_derivative_get_mat into caller arrays")
        .def("adjoint_derivative_get_mat_sum", &qp_deriv_get_mat_sum, "dP"_a.none().noconvert(),
             "dA"_a.none().noconvert(),
             "gala_qp_adjoint_derivative_get_mat_sum into caller arrays")
        .def("get_settings", &qp_get_settings)
        .def("update_settings", &qp_update_settings)
        .def("profile", &qp_profile);
}
