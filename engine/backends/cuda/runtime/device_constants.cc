#include "backends/cuda/runtime/device_constants.h"

#include "backends/cuda/runtime/cuda_memory.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"

namespace qv::cuda {
namespace {

// `bytes` of host memory copied into new device memory, which lives as long as the pointer.
std::shared_ptr<const void> UploadBytes(const void* host, size_t bytes, const Device& device) {
  static const CudaMemory memory;
  std::shared_ptr<Storage> storage = memory.Allocate(device, bytes);
  memory.CopyFromHost(device, storage->data(), host, bytes);
  return std::shared_ptr<const void>(storage, storage->data());
}

}  // namespace

std::shared_ptr<const void> DeviceConstantStore::Get(const ConstantPtr& param, const Device& device) {
  std::lock_guard<std::mutex> lock(mu_);
  if (param->is_packed()) {
    auto it = packed_.find(param->data());
    Check(it != packed_.end() && it->second == device.id, Status::kInternal,
          "a packed parameter reached the CUDA backend for " + device.ToString() + " from another store or device");
    return std::shared_ptr<const void>(param, param->data());
  }
  for (const Upload& u : uploads_)
    if (u.source == param->data() && u.device == device.id) return u.data;
  uploads_.push_back({param->data(), device.id, UploadBytes(param->data(), RowMajorBytes(param->type()), device)});
  return uploads_.back().data;
}

std::shared_ptr<const void> DeviceConstantStore::GetDerived(const std::string& key, const Device& device,
                                                            const std::function<std::vector<float>()>& make) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = derived_[{key, device.id}];
  if (!slot) {
    const std::vector<float> values = make();
    slot = UploadBytes(values.data(), values.size() * sizeof(float), device);
  }
  return slot;
}

ConstantPtr DeviceConstantStore::Repack(const ConstantPtr& param) {
  std::lock_guard<std::mutex> lock(mu_);
  if (param->is_packed()) return param;
  const Upload* only = nullptr;
  for (const Upload& u : uploads_) {
    if (u.source != param->data()) continue;
    if (only) return param;  // on several devices: keep the host values
    only = &u;
  }
  if (!only) return param;
  auto bytes = std::const_pointer_cast<void>(only->data);
  packed_[bytes.get()] = only->device;
  auto repacked = std::make_shared<const Constant>(param->type(), RowMajorLayout(param->type()), bytes);
  uploads_.erase(uploads_.begin() + (only - uploads_.data()));
  return repacked;
}

}  // namespace qv::cuda
