#include "tensor/ndarray.h"

#include "tensor/memory_stats.h"

namespace qv {

NDArray::NDArray(const Shape& shape, DType dtype, Device device, std::shared_ptr<Storage> storage, size_t nbytes)
    : shape_(shape), dtype_(dtype), device_(device), storage_(std::move(storage)), nbytes_(nbytes),
      var_(Engine::Get().NewVar()) {
  memory_stats::ArrayCreated();
}

NDArray::~NDArray() { memory_stats::ArrayDestroyed(); }

std::shared_ptr<NDArray> NDArray::Create(const Shape& shape, DType dtype, Device device) {
  Check(device.type == QV_CPU, QV_ERR_DEVICE, "device " + device.ToString() + " is not available in this build");
  const size_t nbytes = static_cast<size_t>(ByteCount(shape, DTypeSize(dtype)));
  try {
    return std::shared_ptr<NDArray>(new NDArray(shape, dtype, device, Storage::Allocate(nbytes), nbytes));
  } catch (const Error& e) {
    throw Error(e.status(), std::string("array ") + ShapeToString(shape) + " " + DTypeName(dtype) + ": " + e.what());
  }
}

std::shared_ptr<NDArray> NDArray::FromStorage(const Shape& shape, DType dtype, std::shared_ptr<Storage> storage) {
  const size_t nbytes = static_cast<size_t>(ByteCount(shape, DTypeSize(dtype)));
  Check(storage && storage->size() >= nbytes, QV_ERR_INTERNAL, "storage smaller than shape " + ShapeToString(shape));
  return std::shared_ptr<NDArray>(new NDArray(shape, dtype, Device{}, std::move(storage), nbytes));
}

}  // namespace qv
