#include "backends/cuda/runtime/cuda_devices.h"

#include <cuda_runtime_api.h>

#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

struct DeviceCount {
  int count = 0;
  std::string why_none;  // set when the runtime could not count the devices
};

const DeviceCount& Devices() {
  static const DeviceCount devices = [] {
    DeviceCount d;
    const cudaError_t status = cudaGetDeviceCount(&d.count);
    if (status != cudaSuccess) {
      cudaGetLastError();
      d.count = 0;
      d.why_none = DescribeCudaError(status);
    }
    return d;
  }();
  return devices;
}

}  // namespace

void RequireDevice(int id) {
  const DeviceCount& d = Devices();
  const std::string name = "device gpu(" + std::to_string(id) + ")";
  Check(d.why_none.empty(), Status::kDevice, name + " is not available: no usable CUDA device (" + d.why_none + ")");
  Check(id >= 0 && id < d.count, Status::kDevice,
        name + " does not exist: this machine has " + std::to_string(d.count) + " CUDA device(s)");
}

CurrentDevice::CurrentDevice(int id) {
  CheckCuda(cudaGetDevice(&previous_), "cudaGetDevice");
  CheckCuda(cudaSetDevice(id), "cudaSetDevice(" + std::to_string(id) + ")");
}

CurrentDevice::~CurrentDevice() { cudaSetDevice(previous_); }

CurrentDeviceQuietly::CurrentDeviceQuietly(int id) {
  cudaGetDevice(&previous_);
  cudaSetDevice(id);
}

CurrentDeviceQuietly::~CurrentDeviceQuietly() {
  cudaGetLastError();
  cudaSetDevice(previous_);
}

}  // namespace qv::cuda
