// sum, mean, max, min and prod. Where the reduced axes are one run (size-1 axes aside), the input is
// (outer, reduced, inner) and a threaded loop reduces it: oneDNN 3.7 sends most such shapes to its
// reference reduction (`ref:any`), which took 130 of ResNeSt-50's 210 ms for the split-attention sum
// over axis 1 of 5-D data. Other axis sets go to oneDNN's reduction: row-major source, and a
// destination of the source's rank with 1s on the reduced axes, whose bytes are the output's whatever
// its shape.
#include <algorithm>
#include <cmath>
#include <optional>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "ops/op_families.h"
#include "ops/reduce.h"

namespace qv::cpu {
namespace {

// The input as (outer, reduced, inner), row-major.
struct ReduceRun {
  int64_t outer = 1, reduced = 1, inner = 1;
};

// The run, or nothing when the reduced axes longer than 1 are not adjacent once size-1 axes are dropped.
std::optional<ReduceRun> SingleRun(const Shape& x, const Shape& kept) {
  ReduceRun run;
  int phase = 0;  // 0: kept axes before the run, 1: in the run, 2: kept axes after it
  for (size_t d = 0; d < x.size(); ++d) {
    if (x[d] == 1) continue;
    const bool reduced = kept[d] != x[d];
    if (reduced && phase == 2) return std::nullopt;
    if (reduced) phase = 1;
    else if (phase == 1) phase = 2;
    (phase == 0 ? run.outer : phase == 1 ? run.reduced : run.inner) *= x[d];
  }
  return run;
}

// One reduction's arithmetic, fixed at compile time so that the loops below vectorize. Sums and
// products accumulate in double, as the CUDA kernel does; max and min pass on a NaN they meet, as
// MXNet's reducers do.
template <ReduceKind K>
double Add(double acc, double v) {
  if constexpr (K == ReduceKind::kProd) return acc * v;
  else if constexpr (K == ReduceKind::kMax) return std::isnan(acc) || acc >= v ? acc : v;
  else if constexpr (K == ReduceKind::kMin) return std::isnan(acc) || acc <= v ? acc : v;
  else return acc + v;
}

template <ReduceKind K>
float Finish(double acc, int64_t count) {
  return static_cast<float>(K == ReduceKind::kMean ? acc / static_cast<double>(count) : acc);
}

template <ReduceKind K>
class RunReduceKernel : public Kernel {
 public:
  explicit RunReduceKernel(ReduceRun run) : run_(run) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    if (run_.inner == 1) {
      ParallelFor(args.threads, run_.outer, [&](int64_t o) { y[o] = ReduceRow(x + o * run_.reduced); });
      return;
    }
    const int64_t blocks = (run_.inner + kLanes - 1) / kLanes;
    ParallelFor(args.threads, run_.outer * blocks, [&](int64_t task) {
      const int64_t o = task / blocks, begin = task % blocks * kLanes;
      ReduceLanes(x + o * run_.reduced * run_.inner + begin, y + o * run_.inner + begin,
                  std::min(kLanes, run_.inner - begin));
    });
  }

 private:
  // Lanes of the inner axis reduced side by side: consecutive addresses on every reduced step.
  static constexpr int64_t kLanes = 256;
  // Partial results of a contiguous row, interleaved, so that the additions do not wait on each other.
  static constexpr int64_t kWays = 8;

  // y[i] = the reduction over r of x[r * inner + i], for i < lanes.
  void ReduceLanes(const float* x, float* y, int64_t lanes) const {
    double acc[kLanes];
    for (int64_t i = 0; i < lanes; ++i) acc[i] = x[i];
    for (int64_t r = 1; r < run_.reduced; ++r) {
      const float* row = x + r * run_.inner;
      for (int64_t i = 0; i < lanes; ++i) acc[i] = Add<K>(acc[i], row[i]);
    }
    for (int64_t i = 0; i < lanes; ++i) y[i] = Finish<K>(acc[i], run_.reduced);
  }

  // The reduction of x[0, reduced).
  float ReduceRow(const float* x) const {
    double acc = x[0];
    int64_t r = 1;
    if (run_.reduced >= 2 * kWays) {
      double part[kWays];
      for (int64_t w = 0; w < kWays; ++w) part[w] = x[w];
      for (r = kWays; r + kWays <= run_.reduced; r += kWays)
        for (int64_t w = 0; w < kWays; ++w) part[w] = Add<K>(part[w], x[r + w]);
      acc = part[0];
      for (int64_t w = 1; w < kWays; ++w) acc = Add<K>(acc, part[w]);
    }
    for (; r < run_.reduced; ++r) acc = Add<K>(acc, x[r]);
    return Finish<K>(acc, run_.reduced);
  }

  ReduceRun run_;
};

std::unique_ptr<Kernel> MakeRunReduceKernel(ReduceKind kind, ReduceRun run) {
  switch (kind) {
    case ReduceKind::kSum: return std::make_unique<RunReduceKernel<ReduceKind::kSum>>(run);
    case ReduceKind::kMean: return std::make_unique<RunReduceKernel<ReduceKind::kMean>>(run);
    case ReduceKind::kMax: return std::make_unique<RunReduceKernel<ReduceKind::kMax>>(run);
    case ReduceKind::kMin: return std::make_unique<RunReduceKernel<ReduceKind::kMin>>(run);
    case ReduceKind::kProd: return std::make_unique<RunReduceKernel<ReduceKind::kProd>>(run);
  }
  return nullptr;
}

dnnl::algorithm ReductionAlgorithm(ReduceKind kind) {
  switch (kind) {
    case ReduceKind::kSum: return dnnl::algorithm::reduction_sum;
    case ReduceKind::kMean: return dnnl::algorithm::reduction_mean;
    case ReduceKind::kMax: return dnnl::algorithm::reduction_max;
    case ReduceKind::kMin: return dnnl::algorithm::reduction_min;
    case ReduceKind::kProd: return dnnl::algorithm::reduction_mul;
  }
  return dnnl::algorithm::reduction_sum;
}

KernelBuild BuildReduce(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const Desc src = PlainDesc(x);
  const Shape kept = ReducedKeepingDims(req.attrs, x);
  const ReduceKind kind = ReduceKindOf(req.attrs.op());
  KernelBuild build;
  AddRuntimeInput(build, 0, src);
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  // Only size-1 axes reduced (which oneDNN refuses) is a run of length 1: the loop copies.
  if (const std::optional<ReduceRun> run = SingleRun(x, kept)) {
    build.kernel = MakeRunReduceKernel(kind, *run);
  } else {
    const Desc dst = PlainDesc(kept);
    const dnnl::reduction::primitive_desc pd(CpuEngine(), ReductionAlgorithm(kind), src, dst, 0.f, 0.f, BaseAttr());
    std::unordered_map<int, ArgSource> args;
    args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
    args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
    build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  }
  return build;
}

const CpuKernelRegistrar kRegister(ReduceOps(), BuildReduce);

}  // namespace
}  // namespace qv::cpu
