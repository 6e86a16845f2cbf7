// What an MXNet NDArrayHandle points at in the drop-in: a Quiver array plus the shape in the two
// integer widths MXNet hands out, and an identity that tells cached ops whether a parameter changed.
#ifndef QUIVER_MXNET_COMPAT_NDARRAY_H_
#define QUIVER_MXNET_COMPAT_NDARRAY_H_

#include <atomic>
#include <cstdint>
#include <vector>

#include "quiver/c_api.h"

namespace mxc {

class NDArray {
 public:
  // Takes ownership of `qv` (freed with the NDArray).
  explicit NDArray(QvNDArrayHandle qv);
  ~NDArray();
  NDArray(const NDArray&) = delete;
  NDArray& operator=(const NDArray&) = delete;

  QvNDArrayHandle qv() const { return qv_; }
  const std::vector<uint32_t>& shape32() const { return shape32_; }
  const std::vector<int>& shape_int() const { return shape_int_; }
  int dtype() const { return dtype_; }
  size_t size() const;  // elements
  // Unique for the life of the process, never reused (unlike the address).
  uint64_t id() const { return id_; }
  // Bumped by every write through the C API, so cached ops rebind parameters whose contents changed.
  uint64_t version() const { return version_.load(std::memory_order_acquire); }
  void MarkWritten() { version_.fetch_add(1, std::memory_order_acq_rel); }

 private:
  QvNDArrayHandle qv_;
  std::vector<uint32_t> shape32_;
  std::vector<int> shape_int_;
  int dtype_ = 0;
  uint64_t id_;
  std::atomic<uint64_t> version_{0};
};

// The handle as an NDArray; throws for NULL.
NDArray* FromHandle(void* handle, const char* what = "NDArray handle");

// Bytes per element of an MXNet dtype code; throws for codes Quiver does not know.
size_t DTypeSize(int dtype);

}  // namespace mxc

#endif  // QUIVER_MXNET_COMPAT_NDARRAY_H_
