// Device memory in a build without the CUDA backend: no device but the CPU exists.
#include "tensor/device_memory.h"

#include "common/error.h"

namespace qv::device_memory {

namespace {

[[noreturn]] void Refuse(const Device& device) {
  throw Error(QV_ERR_DEVICE, "device " + device.ToString() +
                                 " is not available: this build of Quiver has no CUDA backend (see the README's "
                                 "CUDA section: scripts/build_cuda.sh)");
}

}  // namespace

void Require(const Device& device) { Refuse(device); }

std::shared_ptr<Storage> Allocate(const Device& device, size_t) { Refuse(device); }

void CopyFromHost(const Device& device, void*, const void*, size_t) { Refuse(device); }
void CopyToHost(const Device& device, void*, const void*, size_t) { Refuse(device); }

}  // namespace qv::device_memory
