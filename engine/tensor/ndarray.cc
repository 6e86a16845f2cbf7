#include "tensor/ndarray.h"

#include "tensor/device_memory.h"
#include "tensor/memory_stats.h"

namespace qv {

NDArray::NDArray(const Shape& shape, DType dtype, Device device, std::shared_ptr<Storage> storage, size_t nbytes)
    : shape_(shape), dtype_(dtype), device_(device), storage_(std::move(storage)), nbytes_(nbytes),
      var_(Engine::Get().NewVar()) {
  memory_stats::ArrayCreated();
}

NDArray::~NDArray() { memory_stats::ArrayDestroyed(); }

std::shared_ptr<NDArray> NDArray::Create(const Shape& shape, DType dtype, Device device) {
  return Allocate(shape, dtype, device, true);
}

std::shared_ptr<NDArray> NDArray::CreateUninitialized(const Shape& shape, DType dtype, Device device) {
  return Allocate(shape, dtype, device, false);
}

std::shared_ptr<NDArray> NDArray::Allocate(const Shape& shape, DType dtype, Device device, bool zeroed) {
  const DeviceMemory& memory = DeviceMemoryOf(device);
  memory.Require(device);
  const size_t nbytes = static_cast<size_t>(ByteCount(shape, DTypeSize(dtype)));
  try {
    auto storage = zeroed ? memory.Allocate(device, nbytes) : memory.AllocateUninitialized(device, nbytes);
    return std::shared_ptr<NDArray>(new NDArray(shape, dtype, device, std::move(storage), nbytes));
  } catch (const Error& e) {
    throw Error(e.status(), std::string("array ") + ShapeToString(shape) + " " + DTypeName(dtype) + ": " + e.what());
  }
}

std::shared_ptr<NDArray> NDArray::FromStorage(const Shape& shape, DType dtype, std::shared_ptr<Storage> storage,
                                              Device device) {
  const size_t nbytes = static_cast<size_t>(ByteCount(shape, DTypeSize(dtype)));
  Check(storage && storage->size() >= nbytes, Status::kInternal, "storage smaller than shape " + ShapeToString(shape));
  return std::shared_ptr<NDArray>(new NDArray(shape, dtype, device, std::move(storage), nbytes));
}

void NDArray::CopyFromHost(const void* src, size_t bytes) {
  Check(bytes == nbytes_, Status::kInternal, "copy of " + std::to_string(bytes) + " bytes into an array of " +
                                               std::to_string(nbytes_));
  if (bytes == 0) return;
  DeviceMemoryOf(device_).CopyFromHost(device_, data(), src, bytes);
}

void NDArray::CopyToHost(void* dst, size_t bytes) const {
  Check(bytes == nbytes_, Status::kInternal, "copy of " + std::to_string(bytes) + " bytes from an array of " +
                                               std::to_string(nbytes_));
  if (bytes == 0) return;
  DeviceMemoryOf(device_).CopyToHost(device_, dst, data(), bytes);
}

}  // namespace qv
