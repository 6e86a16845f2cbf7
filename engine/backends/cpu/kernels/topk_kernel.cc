// topk as MXNet 1.9.1's CPU kernel sorts: per row, the indices 0..n-1 ordered by value with std::sort
// when 8k > n, else std::partial_sort of the first k, both comparing values only. These sorts are not
// stable: equal values come out in the order libstdc++'s algorithms leave them, which calling the same
// algorithms with the same comparator reproduces. A row holding a NaN (no strict weak order: the
// unguarded loops of std::sort could run off the row) is instead stably sorted with NaN above +inf.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/topk.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

void SortRow(const float* vals, int64_t* order, int64_t n, int64_t k, bool ascend) {
  std::iota(order, order + n, int64_t{0});
  if (std::any_of(vals, vals + n, [](float v) { return std::isnan(v); })) {
    auto above = [&](int64_t a, int64_t b) {
      const bool na = std::isnan(vals[a]), nb = std::isnan(vals[b]);
      if (na || nb) return ascend ? (nb && !na) : (na && !nb);
      return ascend ? vals[a] < vals[b] : vals[a] > vals[b];
    };
    std::stable_sort(order, order + n, above);
    return;
  }
  auto less = [vals](int64_t a, int64_t b) { return vals[a] < vals[b]; };
  auto greater = [vals](int64_t a, int64_t b) { return vals[a] > vals[b]; };
  const bool full = k * 8 > n;
  if (ascend) {
    if (full) std::sort(order, order + n, less);
    else std::partial_sort(order, order + k, order + n, less);
  } else {
    if (full) std::sort(order, order + n, greater);
    else std::partial_sort(order, order + k, order + n, greater);
  }
}

class TopKKernel : public Kernel {
 public:
  explicit TopKKernel(const TopKParams& p) : p_(p) {}
  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* first = static_cast<float*>(args.outputs[0]);
    float* indices = p_.ret == TopKReturn::kBoth ? static_cast<float*>(args.outputs[1]) : nullptr;
    if (p_.ret == TopKReturn::kMask) std::fill(first, first + p_.outer * p_.n * p_.inner, 0.f);
    ParallelFor(args.threads, p_.outer * p_.inner, [&](int64_t r) {
      const int64_t o = r / p_.inner, i = r % p_.inner;
      const float* src = x + o * p_.n * p_.inner + i;
      std::vector<float> vals(static_cast<size_t>(p_.n));
      std::vector<int64_t> order(static_cast<size_t>(p_.n));
      for (int64_t j = 0; j < p_.n; ++j) vals[j] = src[j * p_.inner];
      SortRow(vals.data(), order.data(), p_.n, p_.k, p_.ascend);
      const int64_t base = o * p_.k * p_.inner + i;
      for (int64_t j = 0; j < p_.k; ++j) {
        const int64_t at = base + j * p_.inner, idx = order[j];
        switch (p_.ret) {
          case TopKReturn::kValue: first[at] = vals[idx]; break;
          case TopKReturn::kIndices: first[at] = static_cast<float>(idx); break;
          case TopKReturn::kMask: first[o * p_.n * p_.inner + idx * p_.inner + i] = 1.f; break;
          case TopKReturn::kBoth:
            first[at] = vals[idx];
            indices[at] = static_cast<float>(idx);
            break;
        }
      }
    });
  }

 private:
  TopKParams p_;
};

KernelBuild BuildTopK(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(x));
  for (const TensorType& out : req.outputs) AddOutput(build, PlainDesc(out.shape));
  build.kernel = std::make_unique<TopKKernel>(TopKParams::Resolve(req.attrs, x));
  return build;
}

const CpuKernelRegistrar kRegister({"topk", "argsort"}, BuildTopK);

}  // namespace
}  // namespace qv::cpu
