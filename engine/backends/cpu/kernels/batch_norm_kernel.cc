// Stand-alone BatchNorm (one that could not be folded into a convolution), with an optional fused
// ReLU, using the moving statistics: oneDNN's on the producer's layout, except on row-major float32
// data, where oneDNN 3.7 has only its slow ncsp_bnorm (0.2-1.8 ms a node on Residual Attention's
// 56x56 maps, 9% of its run) and a threaded affine loop per channel plane does it.
#include <algorithm>

#include "backends/cpu/runtime/compute_pool.h"
#include "backends/cpu/runtime/constant_cache.h"
#include "ops/batch_norm.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

// y = x * s[c] + t[c] (then ReLU) over (N, C, everything else) row-major data.
class PlainBatchNormKernel : public Kernel {
 public:
  PlainBatchNormKernel(std::vector<float> scale_shift, const Shape& shape, bool relu)
      : scale_shift_(std::move(scale_shift)),
        channels_(shape[1]),
        planes_(shape[0] * shape[1]),
        inner_(ElementCount(shape) / planes_),
        relu_(relu) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, planes_, [&](int64_t plane) {
      const float s = scale_shift_[plane % channels_], t = scale_shift_[channels_ + plane % channels_];
      const float* in = x + plane * inner_;
      float* out = y + plane * inner_;
      if (relu_) {
        for (int64_t i = 0; i < inner_; ++i) out[i] = std::max(in[i] * s + t, 0.f);
      } else {
        for (int64_t i = 0; i < inner_; ++i) out[i] = in[i] * s + t;
      }
    });
  }

 private:
  std::vector<float> scale_shift_;  // channels scales, then channels shifts
  int64_t channels_, planes_, inner_;
  bool relu_;
};

KernelBuild BuildBatchNorm(const KernelRequest& req) {
  const auto p = BatchNormParams::Parse(req.attrs);
  for (int i = 1; i < 5; ++i)
    Check(req.inputs[i].constant != nullptr, Status::kUnsupported,
          req.attrs.Where() + "gamma, beta and the moving statistics must be parameters");
  const Shape& shape = req.inputs[0].type.shape;
  const int64_t c = shape[1];
  const bool relu = !p.post_ops.empty();  // only a ReLU is ever fused (BatchNormParams::Parse)
  // Normalisation works on any layout; keep the producer's.
  const Desc& data = DescOf(req.inputs[0]);
  KernelBuild build;
  AddRuntimeInput(build, 0, data);
  AddOutput(build, data);
  if (data == PlainDesc(shape)) {
    const auto plain = [&](int input) { return req.inputs[input].constant->plain().data_as<float>(); };
    build.kernel = std::make_unique<PlainBatchNormKernel>(p.ScaleShift(plain(1), plain(2), plain(3), plain(4), c),
                                                          shape, relu);
    return build;
  }

  ConstantCache& constants = CpuConstants(req);
  const Desc vec({c}, memory::data_type::f32, memory::format_tag::a);
  std::shared_ptr<void> scale;
  if (p.fix_gamma) {  // MXNet ignores the stored gamma and scales by 1
    scale = AllocateConstant(c * sizeof(float));
    std::fill_n(static_cast<float*>(scale.get()), c, 1.f);
  } else {
    scale = constants.Get(req.inputs[1].constant, vec, vec);
  }

  auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale |
               dnnl::normalization_flags::use_shift;
  if (relu) flags = flags | dnnl::normalization_flags::fuse_norm_relu;
  const float eps = static_cast<float>(p.eps);
  const dnnl::batch_normalization_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, data,
                                                               data, eps, flags, BaseAttr());

  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, data};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, data};
  args[DNNL_ARG_MEAN] = {ArgSource::kConstant, 0, constants.Get(req.inputs[3].constant, vec, vec), vec};
  args[DNNL_ARG_VARIANCE] = {ArgSource::kConstant, 0, constants.Get(req.inputs[4].constant, vec, vec), vec};
  args[DNNL_ARG_SCALE] = {ArgSource::kConstant, 0, scale, vec};
  args[DNNL_ARG_SHIFT] = {ArgSource::kConstant, 0, constants.Get(req.inputs[2].constant, vec, vec), vec};

  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"BatchNorm"}, BuildBatchNorm);

}  // namespace
}  // namespace qv::cpu
