// Memory of one device type: allocation and copies to and from host memory. Host memory is built in
// (host_memory.cc); a backend for another device type registers its own (backends/cuda), so arrays
// live on any device this build has a backend for, and are refused, naming the device, on any other.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "common/device.h"
#include "common/error.h"
#include "tensor/storage.h"

namespace qv {

class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;

  // Throws Error(Status::kDevice) naming the device and why it cannot be used.
  virtual void Require(const Device& device) const = 0;
  // Zero-filled memory; throws Status::kDevice or Status::kOutOfMemory naming the device and size.
  virtual std::shared_ptr<Storage> Allocate(const Device& device, size_t bytes) const = 0;
  // Memory to be written in full before it is read, such as a plan's outputs: as Allocate, but its
  // contents are undefined, which spares a device the fill (host memory is zeroed all the same).
  virtual std::shared_ptr<Storage> AllocateUninitialized(const Device& device, size_t bytes) const = 0;
  // Synchronous copies between host memory and `device` memory, and within `device`.
  virtual void CopyFromHost(const Device& device, void* dst, const void* host_src, size_t bytes) const = 0;
  virtual void CopyToHost(const Device& device, void* host_dst, const void* src, size_t bytes) const = 0;
  virtual void Copy(const Device& device, void* dst, const void* src, size_t bytes) const = 0;
  virtual void SetZero(const Device& device, void* dst, size_t bytes) const = 0;
  // The most memory one allocation on `device` could ever get: the device's memory, or for host
  // memory what this process may use. A bound for refusing impossible shapes, not what is free now.
  virtual size_t Capacity(const Device& device) const = 0;
  // For memory another library's work on `stream` (a stream handle of the device's, such as a
  // cudaStream_t) produces: a function that returns once the work queued on it until now has
  // completed, run before anything reads the memory; empty when there is nothing to wait for. Throws
  // Error(Status::kInvalidArgument) for a stream on a device without streams (the default: host
  // memory, where `stream` must be null).
  virtual std::function<void()> AfterStream(const Device& device, void* stream) const;
};

// Called once per device type, at static-initialisation time, by the backend that owns it.
void RegisterDeviceMemory(DeviceType type, const DeviceMemory* memory);

// The memory of `device`'s type; throws NoBackendError when this build has no backend for it.
const DeviceMemory& DeviceMemoryOf(const Device& device);

// Status::kDevice: this build has no backend for `device`'s type.
Error NoBackendError(const Device& device);

}  // namespace qv
