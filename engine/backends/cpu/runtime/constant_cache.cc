#include "backends/cpu/runtime/constant_cache.h"

namespace qv::cpu {
namespace {

// The bytes of a constant, kept alive with it.
std::shared_ptr<void> BytesOf(const ConstantPtr& param) {
  return std::shared_ptr<void>(param, const_cast<void*>(param->data()));
}

}  // namespace

std::shared_ptr<void> ConstantCache::Get(const ConstantPtr& param, const Desc& from, const Desc& to) {
  std::lock_guard<std::mutex> lock(mu_);
  const Desc& actual = param->is_packed() ? DescOf(*param->layout()) : from;
  if (actual == to) return BytesOf(param);  // already in place: no copy
  for (const auto& e : entries_)
    if (e.source == param->data() && e.layout == to && !e.derived) return e.data;
  entries_.push_back({param->data(), to, Reorder(*param, from, to)});
  return entries_.back().data;
}

std::shared_ptr<void> ConstantCache::GetDerived(const ConstantPtr& param, const Desc& key,
                                                const std::function<std::shared_ptr<void>(const float*)>& make) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& e : entries_)
    if (e.source == param->data() && e.layout == key && e.derived) return e.data;
  std::shared_ptr<void> plain;
  if (param->is_packed()) {
    const auto dims = DescOf(*param->layout()).get_dims();
    plain = ReorderConstant(param->data(), DescOf(*param->layout()), PlainDesc(Shape(dims.begin(), dims.end())));
  }
  const float* values = static_cast<const float*>(plain ? plain.get() : param->data());
  entries_.push_back({param->data(), key, make(values), true});
  return entries_.back().data;
}

// The caller holds mu_.
std::shared_ptr<void> ConstantCache::Reorder(const Constant& param, const Desc& from, const Desc& to) {
  if (!param.is_packed()) return ReorderConstant(param.data(), from, to);
  const Desc& layout = DescOf(*param.layout());
  if (layout.get_dims() == to.get_dims()) return ReorderConstant(param.data(), layout, to);
  // Another view of the same tensor (a 4-D FullyConnected weight seen as 2-D): via row-major bytes,
  // which do not depend on how the dimensions are grouped.
  const auto dims = layout.get_dims();
  auto plain = ReorderConstant(param.data(), layout, PlainDesc(Shape(dims.begin(), dims.end())));
  return ReorderConstant(plain.get(), from, to);
}

ConstantPtr ConstantCache::Repack(const ConstantPtr& param) {
  std::lock_guard<std::mutex> lock(mu_);
  if (param->is_packed()) return param;
  const Entry* only = nullptr;
  for (const auto& e : entries_) {
    if (e.source != param->data() || e.derived) continue;
    if (only) return param;  // wanted in several layouts: keep the plain source
    only = &e;
  }
  if (!only) return param;
  auto repacked = std::make_shared<const Constant>(param->type(), ToLayout(only->layout), only->data);
  entries_.erase(entries_.begin() + (only - entries_.data()));
  return repacked;
}

}  // namespace qv::cpu
