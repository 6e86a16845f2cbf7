// Two-input arithmetic: oneDNN's binary primitive for equal shapes (any layout, the right side
// converted to the left's), a row-major loop with numpy broadcasting otherwise.
#include <vector>

#include "backends/cpu/dnnl_kernel.h"
#include "ops/elemwise_binary.h"
#include "scheduler/compute_pool.h"

namespace qv::cpu {
namespace {

class BroadcastKernel : public Kernel {
 public:
  BroadcastKernel(BinaryOp op, const Shape& a, const Shape& b, const Shape& out) : op_(op), out_(out) {
    // Row-major strides of each input over the output's axes; 0 where the input broadcasts.
    a_strides_ = StridesFor(a);
    b_strides_ = StridesFor(b);
  }

  void Execute(const ExecArgs& args) const override {
    switch (op_) {
      case BinaryOp::kAdd: return Run(args, [](float x, float y) { return x + y; });
      case BinaryOp::kSub: return Run(args, [](float x, float y) { return x - y; });
      case BinaryOp::kMul: return Run(args, [](float x, float y) { return x * y; });
      case BinaryOp::kDiv: return Run(args, [](float x, float y) { return x / y; });
    }
  }

 private:
  template <typename F>
  void Run(const ExecArgs& args, F f) const {
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
      y[i] = f(a[ia], b[ib]);
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

  BinaryOp op_;
  Shape out_;
  std::vector<int64_t> a_strides_, b_strides_;
};

dnnl::algorithm BinaryAlgorithm(BinaryOp op) {
  switch (op) {
    case BinaryOp::kAdd: return dnnl::algorithm::binary_add;
    case BinaryOp::kSub: return dnnl::algorithm::binary_sub;
    case BinaryOp::kMul: return dnnl::algorithm::binary_mul;
    case BinaryOp::kDiv: break;
  }
  return dnnl::algorithm::binary_div;
}

KernelBuild BuildBinary(const KernelRequest& req) {
  const BinaryOp op = BinaryOpOf(req.attrs.op());
  const Shape& a = req.inputs[0].type.shape;
  const Shape& b = req.inputs[1].type.shape;
  const Shape& out = req.outputs[0].shape;
  KernelBuild build;
  build.runtime_inputs = {0, 1};
  // A blocked layout's padding would be divided by zero, so division runs on row-major data.
  const bool plain_only = op == BinaryOp::kDiv && req.inputs[0].desc != PlainDesc(a);
  if (a != b || plain_only) {
    build.input_descs = {PlainDesc(a), PlainDesc(b)};
    build.output_descs = {PlainDesc(out)};
    build.kernel = std::make_unique<BroadcastKernel>(op, a, b, out);
    return build;
  }
  const Desc layout = req.inputs[0].desc;
  const dnnl::algorithm algorithm = BinaryAlgorithm(op);
  const dnnl::binary::primitive_desc pd(CpuEngine(), algorithm, layout, layout, layout, BaseAttr());
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC_0] = {ArgSource::kInput, 0, nullptr, layout};
  args[DNNL_ARG_SRC_1] = {ArgSource::kInput, 1, nullptr, layout};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, layout};
  build.input_descs = {layout, layout};
  build.output_descs = {layout};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"elemwise_add", "elemwise_sub", "elemwise_mul", "elemwise_div", "broadcast_add",
                                    "broadcast_sub", "broadcast_mul", "broadcast_div"},
                                   BuildBinary);

}  // namespace
}  // namespace qv::cpu
