// Two-input arithmetic and comparisons (ops/binary_math.h): oneDNN's binary primitive for add, sub,
// mul, div, maximum and minimum of equal shapes (any layout, the right side converted to the left's)
// and where one side broadcasts into the other (the larger in its producer's layout, the smaller
// row-major: SE and attention gates, (N, C, 1, 1) times (N, C, H, W)), a row-major loop with numpy
// broadcasting otherwise.
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "ops/elemwise_binary.h"
#include "ops/op_families.h"

namespace qv::cpu {
namespace {

class BroadcastKernel : public Kernel {
 public:
  BroadcastKernel(BinaryMath f, const Shape& a, const Shape& b, const Shape& out) : f_(f), out_(out) {
    // Row-major strides of each input over the output's axes; 0 where the input broadcasts.
    a_strides_ = StridesFor(a);
    b_strides_ = StridesFor(b);
  }

  void Execute(const ExecArgs& args) const override {
    // One loop per function, so that the function inlines into it.
    using B = BinaryMath;
    switch (f_) {
      case B::kAdd: return Run<B::kAdd>(args);
      case B::kSub: return Run<B::kSub>(args);
      case B::kMul: return Run<B::kMul>(args);
      case B::kDiv: return Run<B::kDiv>(args);
      case B::kMaximum: return Run<B::kMaximum>(args);
      case B::kMinimum: return Run<B::kMinimum>(args);
      case B::kPower: return Run<B::kPower>(args);
      case B::kMod: return Run<B::kMod>(args);
      case B::kEqual: return Run<B::kEqual>(args);
      case B::kNotEqual: return Run<B::kNotEqual>(args);
      case B::kGreater: return Run<B::kGreater>(args);
      case B::kGreaterEqual: return Run<B::kGreaterEqual>(args);
      case B::kLesser: return Run<B::kLesser>(args);
      case B::kLesserEqual: return Run<B::kLesserEqual>(args);
    }
  }

 private:
  template <BinaryMath F>
  void Run(const ExecArgs& args) const {
    const float* a = static_cast<const float*>(args.inputs[0]);
    const float* b = static_cast<const float*>(args.inputs[1]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t n = ElementCount(out_);
    const int ndim = static_cast<int>(out_.size());
    ParallelFor(args.threads, n, [&](int64_t i) {
      int64_t rest = i, ia = 0, ib = 0;
      for (int d = ndim - 1; d >= 0; --d) {
        const int64_t coord = rest % out_[d];
        rest /= out_[d];
        ia += coord * a_strides_[d];
        ib += coord * b_strides_[d];
      }
      y[i] = ApplyBinaryMath(F, a[ia], b[ib]);
    });
  }

  std::vector<int64_t> StridesFor(const Shape& s) const {
    std::vector<int64_t> strides(out_.size(), 0);
    int64_t stride = 1;
    for (int d = static_cast<int>(s.size()) - 1; d >= 0; --d) {
      const size_t od = out_.size() - s.size() + d;
      strides[od] = s[d] == 1 ? 0 : stride;
      stride *= s[d];
    }
    return strides;
  }

  BinaryMath f_;
  Shape out_;
  std::vector<int64_t> a_strides_, b_strides_;
};

// oneDNN's algorithm for the functions it has whose f(0, 0) = 0 (a blocked layout's zero padding stays
// zero); division too, on row-major data only (its padding would be divided by zero).
std::optional<dnnl::algorithm> DnnlAlgorithm(BinaryMath f) {
  switch (f) {
    case BinaryMath::kAdd: return dnnl::algorithm::binary_add;
    case BinaryMath::kSub: return dnnl::algorithm::binary_sub;
    case BinaryMath::kMul: return dnnl::algorithm::binary_mul;
    case BinaryMath::kDiv: return dnnl::algorithm::binary_div;
    case BinaryMath::kMaximum: return dnnl::algorithm::binary_max;
    case BinaryMath::kMinimum: return dnnl::algorithm::binary_min;
    default: return std::nullopt;
  }
}

// `small` right-aligned against `large` with 1s in front, if each of its axes is large's or 1.
std::optional<Shape> BroadcastShape(const Shape& small, const Shape& large) {
  if (small.size() > large.size()) return std::nullopt;
  Shape padded(large.size() - small.size(), 1);
  padded.insert(padded.end(), small.begin(), small.end());
  for (size_t d = 0; d < large.size(); ++d)
    if (padded[d] != large[d] && padded[d] != 1) return std::nullopt;
  return padded;
}

bool Commutes(BinaryMath f) {
  return f == BinaryMath::kAdd || f == BinaryMath::kMul || f == BinaryMath::kMaximum || f == BinaryMath::kMinimum;
}

KernelBuild BuildBinary(const KernelRequest& req) {
  const BinaryMath f = BinaryMathOf(req.attrs.op());
  const Shape& a = req.inputs[0].type.shape;
  const Shape& b = req.inputs[1].type.shape;
  const Shape& out = req.outputs[0].shape;
  KernelBuild build;
  // oneDNN's binary reads its first source (`large`, the output's shape) in any layout, and its second
  // either in that layout (equal shapes) or row-major, broadcast.
  const std::optional<dnnl::algorithm> algorithm = DnnlAlgorithm(f);
  int large = -1;
  std::optional<Shape> small_shape;
  if (algorithm && a == out && (small_shape = BroadcastShape(b, a))) large = 0;
  else if (algorithm && Commutes(f) && b == out && (small_shape = BroadcastShape(a, b))) large = 1;
  const bool plain_only = f == BinaryMath::kDiv && large >= 0 && DescOf(req.inputs[large]) != PlainDesc(out);
  const Desc layout = large >= 0 ? DescOf(req.inputs[large]) : Desc();
  const Desc other = large < 0 ? Desc() : a == b ? layout : PlainDesc(*small_shape);  // as oneDNN reads it
  std::optional<dnnl::binary::primitive_desc> pd;
  if (large >= 0 && !plain_only) pd.emplace(CpuEngine(), *algorithm, layout, other, layout, BaseAttr());
  // oneDNN 3.7 has jit kernels for some broadcasts only (per channel, per tensor, ...); for others
  // (ResNeSt's (1, 2, 64, 1, 1) into (1, 2, 64, 56, 56)) its reference kernel took 15 ms where the
  // loop takes well under 1.
  if (!pd || IsReferenceImpl(*pd)) {
    AddRuntimeInput(build, 0, PlainDesc(a));
    AddRuntimeInput(build, 1, PlainDesc(b));
    AddOutput(build, PlainDesc(out));
    build.kernel = std::make_unique<BroadcastKernel>(f, a, b, out);
    return build;
  }
  const int small = 1 - large;
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC_0] = {ArgSource::kInput, large, nullptr, layout};
  args[DNNL_ARG_SRC_1] = {ArgSource::kInput, small, nullptr, other};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, layout};
  const Desc small_desc = a == b ? layout : PlainDesc(req.inputs[small].type.shape);  // same bytes as `other`
  AddRuntimeInput(build, 0, large == 0 ? layout : small_desc);
  AddRuntimeInput(build, 1, large == 1 ? layout : small_desc);
  AddOutput(build, layout);
  build.kernel = std::make_unique<DnnlKernel>(*pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister(BinaryOps(), BuildBinary);

}  // namespace
}  // namespace qv::cpu
