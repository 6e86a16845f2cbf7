// Pooling on oneDNN where it computes what MXNet does, else as a plain loop on row-major data:
// sum pooling (oneDNN has none); average pooling that counts padding in windows reaching past the
// right/bottom padding ("full" convention), where MXNet divides by the part of the window inside the
// padded input and oneDNN by the whole window; and windows lying wholly outside the input, which
// oneDNN refuses and MXNet fills with -FLT_MAX (max) or 0 (avg, sum).
#include <algorithm>
#include <cfloat>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/pooling.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

// 2-D pooling runs as 3-D pooling of depth 1.
class PoolingLoopKernel : public Kernel {
 public:
  PoolingLoopKernel(const PoolingParams& p, const Shape& in, const Shape& out) : type_(p.type) {
    count_include_pad_ = p.count_include_pad;
    planes_ = in[0] * in[1];
    const size_t skip = 5 - in.size();  // leading axes of size 1
    for (size_t i = 0; i < 3; ++i) {
      const bool real = i >= skip;
      in_[i] = real ? in[2 + i - skip] : 1;
      out_[i] = real ? out[2 + i - skip] : 1;
      kernel_[i] = real ? p.kernel[i - skip] : 1;
      stride_[i] = real ? p.stride[i - skip] : 1;
      pad_[i] = real ? p.pad[i - skip] : 0;
    }
  }

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t in_plane = in_[0] * in_[1] * in_[2], out_plane = out_[0] * out_[1] * out_[2];
    ParallelFor(args.threads, planes_, [&](int64_t plane) {
      const float* src = x + plane * in_plane;
      float* dst = y + plane * out_plane;
      for (int64_t i = 0; i < out_plane; ++i) dst[i] = Window(src, i);
    });
  }

 private:
  // Output element `at` (row-major in the output plane).
  float Window(const float* src, int64_t at) const {
    int64_t lo[3], hi[3], count = 1, inside = 1;
    for (int a = 2; a >= 0; --a) {
      const int64_t o = at % out_[a];
      at /= out_[a];
      lo[a] = o * stride_[a] - pad_[a];
      hi[a] = std::min(lo[a] + kernel_[a], in_[a] + pad_[a]);
      count *= hi[a] - lo[a];
      lo[a] = std::max<int64_t>(lo[a], 0);
      hi[a] = std::min(hi[a], in_[a]);
      if (hi[a] <= lo[a]) return type_ == PoolingParams::kMax ? -FLT_MAX : 0.f;
      inside *= hi[a] - lo[a];
    }
    if (!count_include_pad_) count = inside;
    float acc = type_ == PoolingParams::kMax ? -FLT_MAX : 0.f;
    for (int64_t d = lo[0]; d < hi[0]; ++d)
      for (int64_t h = lo[1]; h < hi[1]; ++h)
        for (int64_t w = lo[2]; w < hi[2]; ++w) {
          const float v = src[(d * in_[1] + h) * in_[2] + w];
          acc = type_ == PoolingParams::kMax ? std::max(acc, v) : acc + v;
        }
    return type_ == PoolingParams::kAvg ? acc / static_cast<float>(count) : acc;
  }

  PoolingParams::Type type_;
  bool count_include_pad_ = true;
  int64_t planes_ = 0;
  int64_t in_[3], out_[3], kernel_[3], stride_[3], pad_[3];
};

KernelBuild BuildPooling(const KernelRequest& req) {
  auto p = PoolingParams::Parse(req.attrs);
  const Shape& in = req.inputs[0].type.shape;
  const Shape out = p.Resolve(req.attrs, in);
  const size_t n = p.kernel.size();
  dnnl::memory::dims pad_r(n, 0);
  bool overhang = false;  // a window reaches past the right/bottom padding
  bool empty = false;     // a window lies wholly in that overhang
  for (size_t i = 0; i < n; ++i) {
    // The floor convention may leave input rows unused; oneDNN then takes the symmetric padding.
    pad_r[i] = std::max((out[2 + i] - 1) * p.stride[i] + p.kernel[i] - in[2 + i] - p.pad[i], p.pad[i]);
    overhang = overhang || pad_r[i] > p.pad[i];
    empty = empty || pad_r[i] >= p.kernel[i];
  }
  KernelBuild build;
  if (p.type == PoolingParams::kSum || empty || (p.type == PoolingParams::kAvg && p.count_include_pad && overhang)) {
    AddRuntimeInput(build, 0, PlainDesc(in));
    AddOutput(build, PlainDesc(out));
    build.kernel = std::make_unique<PoolingLoopKernel>(p, in, out);
    return build;
  }
  const auto algorithm = p.type == PoolingParams::kMax ? dnnl::algorithm::pooling_max
                         : p.count_include_pad         ? dnnl::algorithm::pooling_avg_include_padding
                                                       : dnnl::algorithm::pooling_avg_exclude_padding;
  // In the producer's layout and data type (bfloat16 after a bfloat16 convolution; int8 data keeps
  // its scale: maxima and averages of its integers are the output's integers).
  const Desc src = DescOf(req.inputs[0]);
  const Quantization quant = QuantizationOf(req.inputs[0]);
  const dnnl::memory::dims strides(p.stride.begin(), p.stride.end()), kernel(p.kernel.begin(), p.kernel.end()),
      pad_l(p.pad.begin(), p.pad.end());
  const dnnl::memory::dims dilation(n, 0);  // oneDNN counts dilation from 0
  const dnnl::pooling_forward::primitive_desc pd(
      CpuEngine(), dnnl::prop_kind::forward_inference, algorithm, src,
      Desc(ToDims(out), src.get_data_type(), dnnl::memory::format_tag::any), strides, kernel, dilation,
      pad_l, pad_r, BaseAttr());
  const Desc dst = pd.dst_desc();
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  std::vector<ScaleWrite> writes;
  if (IsQuantized(src)) writes.push_back({0, ScaleOffset(dst), 0, 0, ScaleOffset(src)});
  AddRuntimeInput(build, 0, src, quant);
  AddOutput(build, dst, quant);
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args), std::move(writes));
  return build;
}

const CpuKernelRegistrar kRegister({"Pooling"}, BuildPooling, true);

}  // namespace
}  // namespace qv::cpu
