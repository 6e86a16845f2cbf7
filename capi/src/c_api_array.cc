// Arrays: creation, loading, copies and completion (CanRead / WaitToRead / OnReady).
#include "graph/params_io.h"
#include "handles.h"

using namespace qv;

// The C API hands the engine's device and dtype codes through as integers: they must stay equal.
static_assert(QV_CPU == static_cast<int>(DeviceType::kCpu) && QV_GPU == static_cast<int>(DeviceType::kGpu));
static_assert(QV_FLOAT32 == static_cast<int>(DType::kFloat32) && QV_FLOAT64 == static_cast<int>(DType::kFloat64) &&
              QV_FLOAT16 == static_cast<int>(DType::kFloat16) && QV_UINT8 == static_cast<int>(DType::kUInt8) &&
              QV_INT32 == static_cast<int>(DType::kInt32) && QV_INT8 == static_cast<int>(DType::kInt8) &&
              QV_INT64 == static_cast<int>(DType::kInt64));

namespace qv::capi {

QvNDArrayHandle NewHandle(NDArrayPtr array) { return Arrays().Add(std::move(array)); }

NDArrayPtr ArrayOf(QvNDArrayHandle h, const char* what) { return Arrays().Get(h, what); }

}  // namespace qv::capi

namespace {

Shape ShapeFrom(const int64_t* shape, uint32_t ndim) {
  Check(ndim <= 32, Status::kShape, std::to_string(ndim) + " dimensions exceed the supported 32");
  if (ndim > 0) capi::Require(shape, "shape");
  Shape s(shape, shape + ndim);
  for (int64_t d : s) Check(d >= 0, Status::kShape, "negative dimension in shape " + ShapeToString(s));
  return s;
}

Device DeviceFrom(int dev_type, int dev_id) {
  Check(dev_type == QV_CPU || dev_type == QV_GPU, Status::kInvalidArgument,
        "unknown device type " + std::to_string(dev_type));
  return Device{static_cast<DeviceType>(dev_type), dev_id};
}

void CheckBytes(const NDArray& a, size_t nbytes) {
  Check(nbytes == a.nbytes(), Status::kInvalidArgument,
        "nbytes is " + std::to_string(nbytes) + " but the array " + ShapeToString(a.shape()) + " " +
            DTypeName(a.dtype()) + " holds " + std::to_string(a.nbytes()));
}

// Handles and names of the last load on this thread (the C API returns pointers into them).
struct LoadResult {
  std::vector<QvNDArrayHandle> handles;
  std::vector<std::string> names;
  std::vector<const char*> name_ptrs;
};
thread_local LoadResult t_load;

// Checks the out-pointers, loads, and hands out the result; `load` runs only if the pointers are valid.
template <typename Load>
void Publish(Load load, uint32_t* n, QvNDArrayHandle** arrays, uint32_t* n_names, const char*** names) {
  capi::Require(n, "n");
  capi::Require(arrays, "arrays");
  capi::Require(n_names, "n_names");
  capi::Require(names, "names");
  NamedArrays loaded = load();
  LoadResult result;
  for (auto& a : loaded.arrays) result.handles.push_back(capi::NewHandle(std::move(a)));
  result.names = std::move(loaded.names);
  for (const auto& s : result.names) result.name_ptrs.push_back(s.c_str());
  t_load = std::move(result);
  *n = static_cast<uint32_t>(t_load.handles.size());
  *arrays = t_load.handles.data();
  *n_names = static_cast<uint32_t>(t_load.name_ptrs.size());
  *names = t_load.name_ptrs.data();
}

}  // namespace

extern "C" {

int QvNDArrayCreate(const int64_t* shape, uint32_t ndim, int dev_type, int dev_id, int dtype, QvNDArrayHandle* out) {
  return capi::Guard([&] {
    capi::Require(out, "out");
    const Shape s = ShapeFrom(shape, ndim);
    const DType t = DTypeFromCode(dtype);
    *out = capi::NewHandle(NDArray::Create(s, t, DeviceFrom(dev_type, dev_id)));
  });
}

int QvNDArrayCreateFromBuffer(void* data, const int64_t* shape, uint32_t ndim, int dtype, void (*release)(void*),
                              void* ctx, QvNDArrayHandle* out) {
  return QvNDArrayCreateFromDevicePointer(data, shape, ndim, dtype, QV_CPU, 0, nullptr, release, ctx, out);
}

int QvNDArrayLoad(const char* path, uint32_t* n, QvNDArrayHandle** arrays, uint32_t* n_names, const char*** names) {
  return capi::Guard([&] {
    capi::Require(path, "path");
    Publish([&] { return LoadParamsFile(path); }, n, arrays, n_names, names);
  });
}

int QvNDArrayLoadFromBuffer(const void* buf, size_t size, uint32_t* n, QvNDArrayHandle** arrays, uint32_t* n_names,
                            const char*** names) {
  return capi::Guard([&] {
    capi::Require(buf, "buf");
    Publish([&] { return LoadParams(buf, size); }, n, arrays, n_names, names);
  });
}

int QvNDArrayGetShape(QvNDArrayHandle a, uint32_t* ndim, const int64_t** shape) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(ndim, "ndim");
    capi::Require(shape, "shape");
    *ndim = static_cast<uint32_t>(arr->shape().size());
    *shape = arr->shape().data();
  });
}

int QvNDArrayGetDType(QvNDArrayHandle a, int* dtype) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(dtype, "dtype");
    *dtype = static_cast<int>(arr->dtype());
  });
}

int QvNDArrayGetDevice(QvNDArrayHandle a, int* dev_type, int* dev_id) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(dev_type, "dev_type");
    capi::Require(dev_id, "dev_id");
    *dev_type = static_cast<int>(arr->device().type);
    *dev_id = arr->device().id;
  });
}

int QvNDArrayGetData(QvNDArrayHandle a, void** data) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(data, "data");
    Check(arr->device().is_cpu(), Status::kDevice,
          "QvNDArrayGetData reads CPU arrays only; this array is on " + arr->device().ToString());
    *data = arr->data();
  });
}

int QvNDArraySyncCopyFromCPU(QvNDArrayHandle a, const void* data, size_t nbytes) {
  return capi::Guard([&] {
    const NDArrayPtr arr = capi::ArrayOf(a, "array");
    CheckBytes(*arr, nbytes);
    if (nbytes > 0) capi::Require(data, "data");
    // A write ordered after pending reads and writes of the array; a success clears an earlier failure.
    Engine& engine = Engine::Get();
    engine.Push([arr, data, nbytes] { arr->CopyFromHost(data, nbytes); }, {}, {arr->var()});
    ThrowIfFailed(engine.WaitToRead(arr->var()));
  });
}

int QvNDArraySyncCopyToCPU(QvNDArrayHandle a, void* data, size_t nbytes) {
  return capi::Guard([&] {
    const NDArrayPtr arr = capi::ArrayOf(a, "array");
    CheckBytes(*arr, nbytes);
    if (nbytes > 0) capi::Require(data, "data");
    Engine& engine = Engine::Get();
    // A read ordered after pending writes; it is skipped (and reports their failure) if they failed.
    VarPtr done = engine.NewVar();
    engine.Push([arr, data, nbytes] { arr->CopyToHost(data, nbytes); }, {arr->var()}, {done});
    ThrowIfFailed(engine.WaitToRead(done));
  });
}

int QvNDArrayCanRead(QvNDArrayHandle a, int* ready) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(ready, "ready");
    *ready = Engine::Get().CanRead(arr->var()) ? 1 : 0;
  });
}

int QvNDArrayWaitToRead(QvNDArrayHandle a) {
  int status = QV_OK;
  const int guard = capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    const Failure f = Engine::Get().WaitToRead(arr->var());
    status = capi::ReportFailure(f);
  });
  return guard != QV_OK ? guard : status;
}

int QvNDArrayOnReady(QvNDArrayHandle a, void (*callback)(QvNDArrayHandle, int, void*), void* user) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(reinterpret_cast<const void*>(callback), "callback");
    capi::Arrays().Retain(a, "array");  // `a` stays valid for the callback even if freed before it runs
    Engine::Get().OnReady(arr->var(), [a, callback, user](const Failure& f) {
      callback(a, capi::ReportFailure(f), user);
      capi::Arrays().Release(a);
    });
  });
}

int QvNDArrayCreateFromDevicePointer(void* data, const int64_t* shape, uint32_t ndim, int dtype, int dev_type,
                                     int dev_id, void* stream, void (*release)(void*), void* ctx,
                                     QvNDArrayHandle* out) {
  return capi::Guard([&] {
    capi::Require(out, "out");
    const Shape s = ShapeFrom(shape, ndim);
    const DType t = DTypeFromCode(dtype);
    const Device device = DeviceFrom(dev_type, dev_id);
    const DeviceMemory& memory = DeviceMemoryOf(device);
    memory.Require(device);
    const int64_t bytes = ByteCount(s, DTypeSize(t));
    if (bytes > 0) capi::Require(data, "data");
    std::function<void()> after_stream = memory.AfterStream(device, stream);
    NDArrayPtr array =
        NDArray::FromStorage(s, t, Storage::Wrap(data, static_cast<size_t>(bytes), release, ctx), device);
    // A write of the array's that ends with the producer's work: every later operation waits for it,
    // and a failed wait is the array's failure.
    if (after_stream) Engine::Get().Push(std::move(after_stream), {}, {array->var()});
    *out = capi::NewHandle(std::move(array));
  });
}

int QvNDArrayGetDevicePointer(QvNDArrayHandle a, void** data) {
  return capi::Guard([&] {
    const NDArrayPtr& arr = capi::ArrayOf(a, "array");
    capi::Require(data, "data");
    *data = arr->data();
  });
}

int QvNDArrayFree(QvNDArrayHandle a) {
  return capi::Guard([&] { capi::Arrays().Free(a, "array"); });
}

}  // extern "C"
