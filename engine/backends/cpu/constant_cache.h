// Parameters in the layouts kernels chose, shared by every plan of one cached op.
//
// A kernel asks for a parameter in layout `to`; the cache reorders it once and hands the same bytes to
// every later plan that wants that layout. Once a weight is only ever read in one kernel layout,
// Repack makes that copy the parameter itself, so each parameter is held once, not as a plain copy plus
// a packed one. A later plan that wants another layout still gets it, reordered from the packed bytes.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cpu/dnnl_kernel.h"

namespace qv::cpu {

class ConstantCache {
 public:
  // `param` in layout `to`; `from` is the layout the caller assumes its bytes are in (plain).
  std::shared_ptr<void> Get(const NDArrayPtr& param, const Desc& from, const Desc& to);

  // If `param` has been asked for in exactly one layout other than its own, returns a parameter whose
  // bytes are that copy (the plain bytes are then freed with `param`); otherwise returns `param`.
  NDArrayPtr Repack(const NDArrayPtr& param);

 private:
  struct Entry {
    const void* source;
    Desc layout;
    std::shared_ptr<void> data;
  };
  std::shared_ptr<void> Reorder(const NDArrayPtr& param, const Desc& from, const Desc& to);

  std::mutex mu_;
  std::vector<Entry> entries_;
  std::map<const void*, Desc> packed_;  // parameters whose bytes are in a kernel layout, not plain
};

}  // namespace qv::cpu
