// Parameters on the device, shared by every plan of one cached op (the CUDA backend's ConstantStore).
//
// A kernel asks for a parameter on its device; the first request uploads the row-major values once,
// later plans get the same device memory. Once a weight has been uploaded, Repack makes the device
// copy the parameter itself, so the op stops holding the host copy. BatchNorm's per-channel scale and
// shift, computed on the host from several parameters, are uploaded once per node (GetDerived).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend.h"

namespace qv::cuda {

class DeviceConstantStore : public ConstantStore {
 public:
  // `param`'s values on `device`. Throws Status::kDevice / kOutOfMemory naming the device.
  std::shared_ptr<const void> Get(const ConstantPtr& param, const Device& device);
  // The floats `make` returns, uploaded to `device` once per `key` (a node name and what they are).
  std::shared_ptr<const void> GetDerived(const std::string& key, const Device& device,
                                         const std::function<std::vector<float>()>& make);
  ConstantPtr Repack(const ConstantPtr& param) override;

 private:
  struct Upload {
    const void* source;  // the host values it was made from
    int device;
    std::shared_ptr<const void> data;
  };

  std::mutex mu_;
  std::vector<Upload> uploads_;
  std::map<const void*, int> packed_;  // device bytes that became parameters -> their device
  std::map<std::pair<std::string, int>, std::shared_ptr<const void>> derived_;
};

}  // namespace qv::cuda
