// Parameters in the layouts kernels chose, shared by every plan of one cached op.
//
// A kernel asks for a parameter in layout `to`; the cache reorders it once and hands the same bytes to
// every later plan that wants that layout. Once a weight is only ever read in one kernel layout,
// Repack makes that copy the parameter itself (a packed Constant), so each parameter is held once,
// not as a plain copy plus a packed one. A later plan that wants another layout still gets it,
// reordered from the packed bytes.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"

namespace qv::cpu {

class ConstantCache : public ConstantStore {
 public:
  // `param` in layout `to`; `from` is the layout a plain parameter's bytes are in (its row-major
  // descriptor, as the kernel groups its dimensions).
  std::shared_ptr<void> Get(const ConstantPtr& param, const Desc& from, const Desc& to);

  // A buffer `make` computes from `param`'s float32 values in row-major order (quantized weights), made
  // once per `key` and shared with later plans like the reordered copies, but never taking the
  // parameter's place (Repack).
  std::shared_ptr<void> GetDerived(const ConstantPtr& param, const Desc& key,
                                   const std::function<std::shared_ptr<void>(const float*)>& make);

  ConstantPtr Repack(const ConstantPtr& param) override;

 private:
  struct Entry {
    const void* source;
    Desc layout;
    std::shared_ptr<void> data;
    bool derived = false;
  };
  std::shared_ptr<void> Reorder(const Constant& param, const Desc& from, const Desc& to);

  std::mutex mu_;
  std::vector<Entry> entries_;
};

// The request's store, which the CPU backend always makes (CpuBackend::NewConstantStore).
inline ConstantCache& CpuConstants(const KernelRequest& request) {
  return static_cast<ConstantCache&>(request.constants);
}

}  // namespace qv::cpu
