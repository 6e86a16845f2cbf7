#include "backends/cpu/constant_cache.h"

namespace qv::cpu {

std::shared_ptr<void> ConstantCache::Get(const NDArrayPtr& param, const Desc& from, const Desc& to) {
  std::lock_guard<std::mutex> lock(mu_);
  auto packed = packed_.find(param->data());
  const Desc actual = packed == packed_.end() ? from : packed->second;
  if (actual == to) return std::shared_ptr<void>(param, param->data());  // already in place: no copy
  for (const auto& e : entries_)
    if (e.source == param->data() && e.layout == to) return e.data;
  entries_.push_back({param->data(), to, Reorder(param, from, to)});
  return entries_.back().data;
}

// The caller holds mu_.
std::shared_ptr<void> ConstantCache::Reorder(const NDArrayPtr& param, const Desc& from, const Desc& to) {
  auto packed = packed_.find(param->data());
  if (packed == packed_.end()) return ReorderConstant(param->data(), from, to);
  const Desc& layout = packed->second;
  if (layout.dims() == to.dims()) return ReorderConstant(param->data(), layout, to);
  // Another view of the same tensor (a 4-D FullyConnected weight seen as 2-D): via row-major bytes,
  // which do not depend on how the dimensions are grouped.
  const auto dims = layout.dims();
  auto plain = ReorderConstant(param->data(), layout, PlainDesc(Shape(dims.begin(), dims.end())));
  return ReorderConstant(plain.get(), from, to);
}

NDArrayPtr ConstantCache::Repack(const NDArrayPtr& param) {
  std::lock_guard<std::mutex> lock(mu_);
  if (packed_.count(param->data())) return param;
  const Entry* only = nullptr;
  for (const auto& e : entries_) {
    if (e.source != param->data()) continue;
    if (only) return param;  // wanted in several layouts: keep the plain source
    only = &e;
  }
  if (!only) return param;
  // The storage keeps the packed bytes alive through the shared pointer it holds.
  auto* keep = new std::shared_ptr<void>(only->data);
  auto storage = Storage::Wrap(
      keep->get(), only->layout.get_size(), [](void* ctx) { delete static_cast<std::shared_ptr<void>*>(ctx); }, keep);
  NDArrayPtr repacked = NDArray::FromStorage(param->shape(), param->dtype(), storage);
  packed_[repacked->data()] = only->layout;
  entries_.erase(entries_.begin() + (only - entries_.data()));
  return repacked;
}

}  // namespace qv::cpu
