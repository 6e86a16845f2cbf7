// Addition: oneDNN's binary primitive for equal shapes (any layout, the right side converted to the
// left's), a row-major loop with numpy broadcasting otherwise.
#include <vector>

#include "backends/cpu/dnnl_kernel.h"

namespace qv::cpu {
namespace {

class BroadcastAddKernel : public Kernel {
 public:
  BroadcastAddKernel(const Shape& a, const Shape& b, const Shape& out) : out_(out) {
    // Row-major strides of each input over the output's axes; 0 where the input broadcasts.
    a_strides_ = StridesFor(a);
    b_strides_ = StridesFor(b);
  }

  void Execute(const ExecArgs& args) const override {
    const float* a = static_cast<const float*>(args.inputs[0]);
    const float* b = static_cast<const float*>(args.inputs[1]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t n = ElementCount(out_);
    const int ndim = static_cast<int>(out_.size());
#pragma omp parallel for num_threads(args.threads) schedule(static)
    for (int64_t i = 0; i < n; ++i) {
      int64_t rest = i, ia = 0, ib = 0;
      for (int d = ndim - 1; d >= 0; --d) {
        const int64_t coord = rest % out_[d];
        rest /= out_[d];
        ia += coord * a_strides_[d];
        ib += coord * b_strides_[d];
      }
      y[i] = a[ia] + b[ib];
    }
  }

 private:
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

  Shape out_;
  std::vector<int64_t> a_strides_, b_strides_;
};

KernelBuild BuildAdd(const KernelRequest& req) {
  const Shape& a = req.inputs[0].type.shape;
  const Shape& b = req.inputs[1].type.shape;
  const Shape& out = req.outputs[0].shape;
  KernelBuild build;
  build.runtime_inputs = {0, 1};
  if (a != b) {
    build.input_descs = {PlainDesc(a), PlainDesc(b)};
    build.output_descs = {PlainDesc(out)};
    build.kernel = std::make_unique<BroadcastAddKernel>(a, b, out);
    return build;
  }
  const Desc layout = req.inputs[0].desc;
  auto make = [=] {
    dnnl::binary::desc d(dnnl::algorithm::binary_add, layout, layout, layout);
    return dnnl::primitive_desc_base(dnnl::binary::primitive_desc(d, BaseAttr(), CpuEngine()));
  };
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC_0] = {ArgSource::kInput, 0, nullptr, layout};
  args[DNNL_ARG_SRC_1] = {ArgSource::kInput, 1, nullptr, layout};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, layout};
  build.input_descs = {layout, layout};
  build.output_descs = {layout};
  build.kernel = std::make_unique<DnnlKernel>(make(), make, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"elemwise_add", "_Plus", "_plus", "_add", "broadcast_add", "broadcast_plus"},
                                   BuildAdd);

}  // namespace
}  // namespace qv::cpu
