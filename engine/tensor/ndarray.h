// NDArray: a dense, row-major tensor with a shape, an element type, a device, storage and the engine
// variable that orders the work touching it.
#pragma once

#include <memory>

#include "common/device.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "scheduler/engine.h"
#include "tensor/storage.h"

namespace qv {

class InvocationControl;

class NDArray {
 public:
  // A zero-filled array. Throws Error for bad shapes, unsupported devices or failed allocations.
  static std::shared_ptr<NDArray> Create(const Shape& shape, DType dtype, Device device = Device{});
  // As Create, but the contents are undefined (DeviceMemory::AllocateUninitialized): for arrays that
  // are written in full before anything reads them, such as a plan's outputs.
  static std::shared_ptr<NDArray> CreateUninitialized(const Shape& shape, DType dtype, Device device);
  // An array over existing storage of `device`'s memory (which must hold at least the shape's bytes).
  static std::shared_ptr<NDArray> FromStorage(const Shape& shape, DType dtype, std::shared_ptr<Storage> storage,
                                              Device device = Device{});

  ~NDArray();
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;

  const Shape& shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  const Device& device() const { return device_; }
  // On the host for CPU arrays; a device pointer otherwise (read it with CopyToHost).
  void* data() const { return storage_->data(); }
  template <typename T>
  T* data_as() const { return static_cast<T*>(storage_->data()); }
  size_t nbytes() const { return nbytes_; }
  int64_t size() const { return nbytes_ / DTypeSize(dtype_); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }
  const VarPtr& var() const { return var_; }
  // The invocation that last wrote the array (QvCancel finds it here), or null. Thread-safe.
  std::shared_ptr<InvocationControl> producer() const { return std::atomic_load(&producer_); }
  void set_producer(std::shared_ptr<InvocationControl> control) { std::atomic_store(&producer_, std::move(control)); }

  // Synchronous copies of the whole array (`bytes` == nbytes()) from or to host memory, on any device.
  // They do not order themselves with pending work: callers push them to the engine.
  void CopyFromHost(const void* src, size_t bytes);
  void CopyToHost(void* dst, size_t bytes) const;

 private:
  NDArray(const Shape& shape, DType dtype, Device device, std::shared_ptr<Storage> storage, size_t nbytes);
  static std::shared_ptr<NDArray> Allocate(const Shape& shape, DType dtype, Device device, bool zeroed);

  Shape shape_;
  DType dtype_;
  Device device_;
  std::shared_ptr<Storage> storage_;
  size_t nbytes_;
  VarPtr var_;
  std::shared_ptr<InvocationControl> producer_;
};

using NDArrayPtr = std::shared_ptr<NDArray>;

}  // namespace qv
