// Memory on devices other than the host CPU. The CPU-only build refuses every GPU with a clear error
// (device_memory_none.cc); the CUDA build implements these over its pools (backends/cuda).
#pragma once

#include <cstddef>
#include <memory>

#include "common/device.h"
#include "tensor/storage.h"

namespace qv::device_memory {

// Throws Error(QV_ERR_DEVICE) naming the device and why it cannot be used.
void Require(const Device& device);

// Zero-filled device memory; throws QV_ERR_DEVICE or QV_ERR_OUT_OF_MEMORY naming the device and size.
std::shared_ptr<Storage> Allocate(const Device& device, size_t bytes);

// Synchronous copies between host memory and `device` memory.
void CopyFromHost(const Device& device, void* device_dst, const void* host_src, size_t bytes);
void CopyToHost(const Device& device, void* host_dst, const void* device_src, size_t bytes);

}  // namespace qv::device_memory
