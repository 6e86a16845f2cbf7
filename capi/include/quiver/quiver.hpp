/* Quiver's C++17 API: a header-only layer over quiver/c_api.h, for C++ programs that would otherwise wrap
 * the C handles themselves. Nothing here is compiled into libquiver.so: a program includes this header and
 * links the same library as a C program, and only the C ABI crosses between them.
 *
 *   quiver::CachedOp op = quiver::CachedOp::Load("resnet18_v1", 0, {{"device", "cpu"}});
 *   quiver::NDArray input = quiver::NDArray::FromVector(pixels, {1, 3, 224, 224});
 *   std::vector<float> scores = op.Invoke({&input})[0].ToVector<float>();
 *
 * Every failure of the C API is thrown as quiver::Error, carrying the status code (QvStatus) and the
 * runtime's message. Handles are owned: NDArray, CachedOp and Invocation are movable, not copyable, and
 * release their handle when destroyed (safe while work on it is in flight, as the C API says).
 *
 * Threads: a CachedOp created thread-safe (the default) may be invoked from any number of threads at
 * once; an NDArray may be read from several threads once it is readable, and waited on from any thread.
 * An Invocation belongs to one thread at a time. Callbacks (Invocation::OnReady) run on the runtime's
 * callback thread, one at a time, and must not wait for other work. */
#ifndef QUIVER_QUIVER_HPP_
#define QUIVER_QUIVER_HPP_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "quiver/c_api.h"

namespace quiver {

/* A failed call: status() is its QvStatus code, what() the runtime's message. */
class Error : public std::runtime_error {
 public:
  Error(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

namespace detail {

/* Throws the last failure of this thread when `status` is not QV_OK. */
inline void Check(int status) {
  if (status != QV_OK) throw Error(status, QvGetLastError());
}

template <typename T>
struct DTypeOf;
template <>
struct DTypeOf<float> {
  static constexpr int value = QV_FLOAT32;
};
template <>
struct DTypeOf<double> {
  static constexpr int value = QV_FLOAT64;
};
template <>
struct DTypeOf<uint8_t> {
  static constexpr int value = QV_UINT8;
};
template <>
struct DTypeOf<int8_t> {
  static constexpr int value = QV_INT8;
};
template <>
struct DTypeOf<int32_t> {
  static constexpr int value = QV_INT32;
};
template <>
struct DTypeOf<int64_t> {
  static constexpr int value = QV_INT64;
};

inline size_t DTypeSize(int dtype) {
  switch (dtype) {
    case QV_FLOAT64:
    case QV_INT64: return 8;
    case QV_FLOAT32:
    case QV_INT32: return 4;
    case QV_FLOAT16: return 2;
    default: return 1;
  }
}

inline std::vector<std::string> Names(uint32_t n, const char** names) { return {names, names + n}; }

}  // namespace detail

/* Where an array lives or an op runs (QvDeviceType codes). */
struct Device {
  int type = QV_CPU;
  int id = 0;
  static Device Cpu(int id = 0) { return {QV_CPU, id}; }
  static Device Gpu(int id) { return {QV_GPU, id}; }
};

/* A dense, row-major tensor (QvNDArrayHandle), owned. Work writing it runs asynchronously: Ready()
 * polls, Wait() blocks, and reading it (ToVector, CopyTo) waits first. */
class NDArray {
 public:
  NDArray() = default;
  /* Takes ownership of `handle` (QvNDArrayFree when destroyed). */
  explicit NDArray(QvNDArrayHandle handle) : handle_(handle) {}
  NDArray(NDArray&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  NDArray& operator=(NDArray&& other) noexcept {
    if (this != &other) {
      Reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;
  ~NDArray() { Reset(); }

  /* A zero-filled array. */
  static NDArray Zeros(const std::vector<int64_t>& shape, int dtype = QV_FLOAT32, Device device = {}) {
    QvNDArrayHandle h = nullptr;
    detail::Check(QvNDArrayCreate(shape.data(), static_cast<uint32_t>(shape.size()), device.type, device.id,
                                  dtype, &h));
    return NDArray(h);
  }
  /* A CPU array holding a copy of `values` (as many as `shape` has elements). */
  template <typename T>
  static NDArray FromVector(const std::vector<T>& values, const std::vector<int64_t>& shape) {
    NDArray a = Zeros(shape, detail::DTypeOf<T>::value);
    a.CopyFrom(values.data(), values.size() * sizeof(T));
    return a;
  }

  QvNDArrayHandle get() const noexcept { return handle_; }
  explicit operator bool() const noexcept { return handle_ != nullptr; }

  std::vector<int64_t> shape() const {
    uint32_t ndim = 0;
    const int64_t* dims = nullptr;
    detail::Check(QvNDArrayGetShape(handle_, &ndim, &dims));
    return {dims, dims + ndim};
  }
  int dtype() const {
    int dtype = 0;
    detail::Check(QvNDArrayGetDType(handle_, &dtype));
    return dtype;
  }
  Device device() const {
    Device d;
    detail::Check(QvNDArrayGetDevice(handle_, &d.type, &d.id));
    return d;
  }
  /* Elements. */
  size_t size() const {
    uint32_t ndim = 0;
    const int64_t* dims = nullptr;
    detail::Check(QvNDArrayGetShape(handle_, &ndim, &dims));
    size_t n = 1;
    for (uint32_t d = 0; d < ndim; ++d) n *= static_cast<size_t>(dims[d]);
    return n;
  }
  size_t nbytes() const { return size() * detail::DTypeSize(dtype()); }

  /* Whether Wait() would return at once. Never blocks. */
  bool Ready() const {
    int ready = 0;
    detail::Check(QvNDArrayCanRead(handle_, &ready));
    return ready != 0;
  }
  /* Waits for the work writing it; throws that work's failure (QV_ERR_CANCELLED, ...). */
  void Wait() const { detail::Check(QvNDArrayWaitToRead(handle_)); }
  /* Copies `nbytes` (its whole size) in, after pending work on it has finished. */
  void CopyFrom(const void* data, size_t nbytes) { detail::Check(QvNDArraySyncCopyFromCPU(handle_, data, nbytes)); }
  /* Copies it out, once readable; throws the producing work's failure. */
  void CopyTo(void* data, size_t nbytes) const { detail::Check(QvNDArraySyncCopyToCPU(handle_, data, nbytes)); }
  template <typename T>
  std::vector<T> ToVector() const {
    if (dtype() != detail::DTypeOf<T>::value)
      throw Error(QV_ERR_INVALID_ARGUMENT, "ToVector: the array's dtype code is " + std::to_string(dtype()) +
                                               ", not the requested type's " +
                                               std::to_string(detail::DTypeOf<T>::value));
    std::vector<T> values(size());
    CopyTo(values.data(), values.size() * sizeof(T));
    return values;
  }

 private:
  void Reset() noexcept {
    if (handle_ != nullptr) QvNDArrayFree(handle_);
    handle_ = nullptr;
  }
  QvNDArrayHandle handle_ = nullptr;
};

/* Per-invocation options (QvInvokeOptions). */
struct InvokeOptions {
  int64_t deadline_us = 0;  // > 0: fail with QV_ERR_DEADLINE_EXCEEDED unless finished this long after submission
  int32_t priority = 0;     // higher first among requests queued on the same op
};

/* One submitted invocation: its outputs, readable once it ends. */
class Invocation {
 public:
  explicit Invocation(std::vector<NDArray> outputs) : outputs_(std::move(outputs)) {}

  /* Whether it has ended (successfully or not). Never blocks. */
  bool Ready() const { return outputs_.empty() || outputs_.front().Ready(); }
  /* Waits for the end; throws its failure (QV_ERR_CANCELLED, QV_ERR_DEADLINE_EXCEEDED, ...). */
  void Wait() const {
    for (const NDArray& o : outputs_) o.Wait();
  }
  /* Waits, then hands over the outputs (in CachedOp::output_names() order). */
  std::vector<NDArray> Get() {
    Wait();
    return std::move(outputs_);
  }
  /* Cancels it if it has not been claimed for delivery yet: true if this call cancelled it (QvCancel). */
  bool Cancel() {
    int cancelled = 0;
    if (!outputs_.empty()) detail::Check(QvCancel(outputs_.front().get(), &cancelled));
    return cancelled != 0;
  }
  /* Calls `callback(status, message)` once, when it ends (status QV_OK or its failure), on the runtime's
   * callback thread (or on this one if it has ended already). The outputs stay this object's. */
  void OnReady(std::function<void(int status, const std::string& message)> callback) const {
    if (outputs_.empty()) {
      callback(QV_OK, "");
      return;
    }
    // The last output is written last of all: its end is the invocation's.
    auto* heap = new std::function<void(int, const std::string&)>(std::move(callback));
    const int status = QvNDArrayOnReady(
        outputs_.back().get(),
        [](QvNDArrayHandle, int s, void* user) {
          std::unique_ptr<std::function<void(int, const std::string&)>> call(
              static_cast<std::function<void(int, const std::string&)>*>(user));
          (*call)(s, s == QV_OK ? std::string() : std::string(QvGetLastError()));
        },
        heap);
    if (status != QV_OK) {
      delete heap;
      detail::Check(status);
    }
  }
  const std::vector<NDArray>& outputs() const noexcept { return outputs_; }

 private:
  std::vector<NDArray> outputs_;
};

/* A compiled, shareable model (QvCachedOpHandle), owned. */
class CachedOp {
 public:
  using Flags = std::map<std::string, std::string>;

  /* `prefix`-symbol.json and `prefix`-EPOCH.params (epoch as %04d), compiled with these cached-op flags
   * (QvListCachedOpFlags lists them; `quiver flags` too). */
  static CachedOp Load(const std::string& prefix, int epoch = 0, const Flags& flags = {}, bool thread_safe = true) {
    char params_path[4096];
    std::snprintf(params_path, sizeof params_path, "%s-%04d.params", prefix.c_str(), epoch);
    uint32_t n = 0, n_names = 0;
    QvNDArrayHandle* loaded = nullptr;
    const char** names = nullptr;
    detail::Check(QvNDArrayLoad(params_path, &n, &loaded, &n_names, &names));
    std::vector<NDArray> arrays;  // owned from here, so that a failure below frees them
    for (uint32_t i = 0; i < n; ++i) arrays.emplace_back(loaded[i]);
    std::map<std::string, const NDArray*> params;
    for (uint32_t i = 0; i < n_names && i < n; ++i) params[names[i]] = &arrays[i];
    QvSymbolHandle sym = nullptr;
    detail::Check(QvSymbolCreateFromFile((prefix + "-symbol.json").c_str(), &sym));
    return Create(sym, params, flags, thread_safe);
  }
  /* A symbol's JSON and its parameters by name ("arg:"/"aux:" prefixes allowed); the op keeps its own
   * copy of them. */
  static CachedOp FromJson(const std::string& json, const std::map<std::string, const NDArray*>& params,
                           const Flags& flags = {}, bool thread_safe = true) {
    QvSymbolHandle sym = nullptr;
    detail::Check(QvSymbolCreateFromJSON(json.c_str(), &sym));
    return Create(sym, params, flags, thread_safe);
  }

  CachedOp(CachedOp&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CachedOp& operator=(CachedOp&& other) noexcept {
    if (this != &other) {
      if (handle_ != nullptr) QvFreeCachedOp(handle_);
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }
  CachedOp(const CachedOp&) = delete;
  CachedOp& operator=(const CachedOp&) = delete;
  ~CachedOp() {
    if (handle_ != nullptr) QvFreeCachedOp(handle_);
  }

  QvCachedOpHandle get() const noexcept { return handle_; }

  std::vector<std::string> input_names() const {
    uint32_t n = 0;
    const char** names = nullptr;
    detail::Check(QvCachedOpListInputs(handle_, &n, &names));
    return detail::Names(n, names);
  }
  std::vector<std::string> output_names() const {
    uint32_t n = 0;
    const char** names = nullptr;
    detail::Check(QvCachedOpListOutputs(handle_, &n, &names));
    return detail::Names(n, names);
  }
  /* What it computes in: "float32", "bfloat16" or "int8". */
  std::string precision() const {
    const char* p = nullptr;
    detail::Check(QvCachedOpGetPrecision(handle_, &p));
    return p;
  }

  /* Submits one invocation and returns at once (QvInvokeAsyncEx): inputs in input_names() order, CPU or
   * the op's device. Throws bad inputs (count, dtype, shape) and QV_ERR_BUSY now; failures of the run
   * itself come from Invocation::Wait / Get. The inputs must not be written until it ends. */
  Invocation Submit(const std::vector<const NDArray*>& inputs, const InvokeOptions& options = {}) const {
    std::vector<QvNDArrayHandle> handles;
    for (const NDArray* a : inputs) handles.push_back(a->get());
    QvInvokeOptions o{};
    o.struct_size = sizeof(o);
    o.deadline_us = options.deadline_us;
    o.priority = options.priority;
    uint32_t n = 0;
    QvNDArrayHandle* out = nullptr;
    detail::Check(
        QvInvokeAsyncEx(handle_, static_cast<uint32_t>(handles.size()), handles.data(), &n, &out, &o));
    std::vector<NDArray> outputs;
    for (uint32_t k = 0; k < n; ++k) outputs.emplace_back(out[k]);
    return Invocation(std::move(outputs));
  }
  /* Submits and waits: the outputs, or the run's failure thrown. */
  std::vector<NDArray> Invoke(const std::vector<const NDArray*>& inputs, const InvokeOptions& options = {}) const {
    return Submit(inputs, options).Get();
  }

 private:
  explicit CachedOp(QvCachedOpHandle handle) : handle_(handle) {}

  // Takes `sym`, which it frees whatever happens.
  static CachedOp Create(QvSymbolHandle sym, const std::map<std::string, const NDArray*>& params, const Flags& flags,
                         bool thread_safe) {
    std::vector<const char*> names, keys, vals;
    std::vector<QvNDArrayHandle> arrays;
    for (const auto& [name, array] : params) {
      names.push_back(name.c_str());
      arrays.push_back(array->get());
    }
    for (const auto& [key, value] : flags) {
      keys.push_back(key.c_str());
      vals.push_back(value.c_str());
    }
    QvCachedOpHandle op = nullptr;
    const int status =
        QvCreateCachedOpEx(sym, static_cast<uint32_t>(arrays.size()), names.data(), arrays.data(),
                           static_cast<int>(keys.size()), keys.data(), vals.data(), &op, thread_safe ? 1 : 0);
    QvSymbolFree(sym);  // the op does not need it
    detail::Check(status);
    return CachedOp(op);
  }

  QvCachedOpHandle handle_ = nullptr;
};

/* The process's compute-thread budget (QvSetNumThreads / QvGetNumThreads). */
inline void SetNumThreads(int threads) { detail::Check(QvSetNumThreads(threads)); }
inline int NumThreads() {
  int threads = 0;
  detail::Check(QvGetNumThreads(&threads));
  return threads;
}

}  // namespace quiver

#endif  // QUIVER_QUIVER_HPP_
