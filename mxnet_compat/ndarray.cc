// The NDArray functions of MXNet's c_api.h over Quiver arrays.
#include "ndarray.h"

#include <memory>
#include <string>

#include "errors.h"
#include "mx_abi.h"

namespace mxc {

namespace {
std::atomic<uint64_t> next_id{1};

// MXNDArrayLoad's results live, as in MXNet, in per-thread storage until the next load on the thread.
struct LoadResult {
  std::vector<NDArrayHandle> handles;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
};
thread_local LoadResult load_result;

void Load(uint32_t* out_size, NDArrayHandle** out_arr, uint32_t* out_name_size, const char*** out_names,
          uint32_t n, QvNDArrayHandle* arrays, uint32_t n_names, const char** names) {
  // Wrap every array first: if wrapping fails midway, the rest are still freed.
  std::vector<std::unique_ptr<NDArray>> wrapped;
  for (uint32_t i = 0; i < n; ++i) {
    try {
      wrapped.emplace_back(new NDArray(arrays[i]));
    } catch (...) {
      for (uint32_t j = i; j < n; ++j) QvNDArrayFree(arrays[j]);
      throw;
    }
  }
  LoadResult& r = load_result;
  r.handles.clear();
  r.names.assign(names, names + n_names);
  r.name_ptrs.clear();
  for (const auto& s : r.names) r.name_ptrs.push_back(s.c_str());
  for (auto& a : wrapped) r.handles.push_back(a.release());
  *out_size = n;
  *out_arr = r.handles.data();
  *out_name_size = n_names;
  *out_names = r.name_ptrs.data();
}
}  // namespace

NDArray::NDArray(QvNDArrayHandle qv) : qv_(qv), id_(next_id.fetch_add(1)) {
  uint32_t ndim = 0;
  const int64_t* shape = nullptr;
  CheckQv(QvNDArrayGetShape(qv, &ndim, &shape), "reading the array's shape");
  CheckQv(QvNDArrayGetDType(qv, &dtype_), "reading the array's dtype");
  for (uint32_t i = 0; i < ndim; ++i) {
    shape32_.push_back(static_cast<uint32_t>(shape[i]));
    shape_int_.push_back(static_cast<int>(shape[i]));
  }
}

NDArray::~NDArray() { QvNDArrayFree(qv_); }

size_t NDArray::size() const {
  size_t n = 1;
  for (uint32_t d : shape32_) n *= d;
  return n;
}

NDArray* FromHandle(void* handle, const char* what) {
  Require(handle != nullptr, std::string(what) + " is NULL");
  return static_cast<NDArray*>(handle);
}

size_t DTypeSize(int dtype) {
  switch (dtype) {
    case QV_FLOAT32: return 4;
    case QV_FLOAT64: return 8;
    case QV_FLOAT16: return 2;
    case QV_UINT8: return 1;
    case QV_INT32: return 4;
    case QV_INT8: return 1;
    case QV_INT64: return 8;
  }
  throw Error("unsupported dtype code " + std::to_string(dtype));
}

}  // namespace mxc

using mxc::FromHandle;
using mxc::Guarded;
using mxc::Require;

int MXNDArrayCreateEx(const uint32_t* shape, uint32_t ndim, int dev_type, int dev_id, int /*delay_alloc*/,
                      int dtype, NDArrayHandle* out) {
  // delay_alloc only postpones MXNet's allocation; Quiver allocates on creation either way.
  return Guarded(__func__, [&] {
    Require(out != nullptr, "out is NULL");
    Require(shape != nullptr || ndim == 0, "shape is NULL");
    std::vector<int64_t> dims(shape, shape + ndim);
    QvNDArrayHandle qv = nullptr;
    mxc::CheckQv(QvNDArrayCreate(dims.data(), ndim, dev_type, dev_id, dtype, &qv), "creating the array");
    try {
      *out = new mxc::NDArray(qv);
    } catch (...) {
      QvNDArrayFree(qv);
      throw;
    }
  });
}

int MXNDArrayCreate(const uint32_t* shape, uint32_t ndim, int dev_type, int dev_id, int delay_alloc,
                    NDArrayHandle* out) {
  return MXNDArrayCreateEx(shape, ndim, dev_type, dev_id, delay_alloc, QV_FLOAT32, out);
}

int MXNDArrayLoad(const char* fname, uint32_t* out_size, NDArrayHandle** out_arr, uint32_t* out_name_size,
                  const char*** out_names) {
  return Guarded(__func__, [&] {
    Require(fname && out_size && out_arr && out_name_size && out_names, "a pointer argument is NULL");
    uint32_t n = 0, n_names = 0;
    QvNDArrayHandle* arrays = nullptr;
    const char** names = nullptr;
    mxc::CheckQv(QvNDArrayLoad(fname, &n, &arrays, &n_names, &names), std::string("loading '") + fname + "'");
    mxc::Load(out_size, out_arr, out_name_size, out_names, n, arrays, n_names, names);
  });
}

int MXNDArrayLoadFromBuffer(const void* ndarray_buffer, size_t size, uint32_t* out_size, NDArrayHandle** out_arr,
                            uint32_t* out_name_size, const char*** out_names) {
  return Guarded(__func__, [&] {
    Require(ndarray_buffer && out_size && out_arr && out_name_size && out_names, "a pointer argument is NULL");
    uint32_t n = 0, n_names = 0;
    QvNDArrayHandle* arrays = nullptr;
    const char** names = nullptr;
    mxc::CheckQv(QvNDArrayLoadFromBuffer(ndarray_buffer, size, &n, &arrays, &n_names, &names),
                 "loading arrays from the buffer");
    mxc::Load(out_size, out_arr, out_name_size, out_names, n, arrays, n_names, names);
  });
}

// MXNet's `size` counts elements of the array's dtype, not bytes, and must be the whole array.
int MXNDArraySyncCopyFromCPU(NDArrayHandle handle, const void* data, size_t size) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(data != nullptr || size == 0, "data is NULL");
    Require(size == a->size(), "Memory size do not match: the array holds " + std::to_string(a->size()) +
                                   " elements, " + std::to_string(size) + " given");
    mxc::CheckQv(QvNDArraySyncCopyFromCPU(a->qv(), data, size * mxc::DTypeSize(a->dtype())), "copying in");
    a->MarkWritten();
  });
}

int MXNDArraySyncCopyToCPU(NDArrayHandle handle, void* data, size_t size) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(data != nullptr || size == 0, "data is NULL");
    Require(size == a->size(), "Memory size do not match: the array holds " + std::to_string(a->size()) +
                                   " elements, " + std::to_string(size) + " asked for");
    mxc::CheckQv(QvNDArraySyncCopyToCPU(a->qv(), data, size * mxc::DTypeSize(a->dtype())), "copying out");
  });
}

int MXNDArrayWaitToRead(NDArrayHandle handle) {
  return Guarded(__func__, [&] { mxc::CheckQv(QvNDArrayWaitToRead(FromHandle(handle)->qv()), "waiting"); });
}

// Quiver can wait for an array's writers but not for its readers alone; waiting for all work
// pushed so far covers both, which is what MXNet's WaitToWrite promises.
int MXNDArrayWaitToWrite(NDArrayHandle handle) {
  return Guarded(__func__, [&] {
    FromHandle(handle);
    mxc::CheckQv(QvWaitAll(), "waiting");
  });
}

int MXNDArrayWaitAll() {
  return Guarded(__func__, [&] { mxc::CheckQv(QvWaitAll(), "waiting"); });
}

int MXNDArrayGetShape(NDArrayHandle handle, uint32_t* out_dim, const uint32_t** out_pdata) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(out_dim && out_pdata, "a pointer argument is NULL");
    *out_dim = static_cast<uint32_t>(a->shape32().size());
    *out_pdata = a->shape32().data();
  });
}

int MXNDArrayGetShapeEx(NDArrayHandle handle, int* out_dim, const int** out_pdata) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(out_dim && out_pdata, "a pointer argument is NULL");
    *out_dim = static_cast<int>(a->shape_int().size());
    *out_pdata = a->shape_int().data();
  });
}

int MXNDArrayGetDType(NDArrayHandle handle, int* out_dtype) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(out_dtype != nullptr, "out_dtype is NULL");
    *out_dtype = a->dtype();
  });
}

int MXNDArrayGetContext(NDArrayHandle handle, int* out_dev_type, int* out_dev_id) {
  return Guarded(__func__, [&] {
    mxc::NDArray* a = FromHandle(handle);
    Require(out_dev_type && out_dev_id, "a pointer argument is NULL");
    mxc::CheckQv(QvNDArrayGetDevice(a->qv(), out_dev_type, out_dev_id), "reading the device");
  });
}

int MXNDArrayFree(NDArrayHandle handle) {
  return Guarded(__func__, [&] { delete FromHandle(handle); });
}
