// Pooling on oneDNN where it computes what MXNet does, else as a plain loop on row-major data:
// sum pooling (oneDNN has none); average pooling that counts padding in windows reaching past the
// right/bottom padding ("full" convention), where MXNet divides by the part of the window inside the
// padded input and oneDNN by the whole window; and windows lying wholly outside the input, which
// oneDNN refuses and MXNet fills with -FLT_MAX (max) or 0 (avg, sum).
#include <algorithm>
#include <cfloat>

#include "backends/cpu/dnnl_kernel.h"
#include "ops/pooling.h"
#include "scheduler/compute_pool.h"

namespace qv::cpu {
namespace {

class PoolingLoopKernel : public Kernel {
 public:
  PoolingLoopKernel(const PoolingParams& p, const Shape& in, const Shape& out) : p_(p), in_(in), out_(out) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    const int64_t planes = in_[0] * in_[1], h = in_[2], w = in_[3], oh = out_[2], ow = out_[3];
    ParallelFor(args.threads, planes, [&](int64_t plane) {
      const float* src = x + plane * h * w;
      float* dst = y + plane * oh * ow;
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j) dst[i * ow + j] = Window(src, i, j);
    });
  }

 private:
  float Window(const float* src, int64_t i, int64_t j) const {
    const int64_t h = in_[2], w = in_[3];
    int64_t h0 = i * p_.stride[0] - p_.pad[0], w0 = j * p_.stride[1] - p_.pad[1];
    int64_t h1 = std::min(h0 + p_.kernel[0], h + p_.pad[0]), w1 = std::min(w0 + p_.kernel[1], w + p_.pad[1]);
    int64_t count = (h1 - h0) * (w1 - w0);
    h0 = std::max<int64_t>(h0, 0);
    w0 = std::max<int64_t>(w0, 0);
    h1 = std::min(h1, h);
    w1 = std::min(w1, w);
    if (h1 <= h0 || w1 <= w0) return p_.type == PoolingParams::kMax ? -FLT_MAX : 0.f;
    if (!p_.count_include_pad) count = (h1 - h0) * (w1 - w0);
    float acc = p_.type == PoolingParams::kMax ? -FLT_MAX : 0.f;
    for (int64_t a = h0; a < h1; ++a)
      for (int64_t b = w0; b < w1; ++b)
        acc = p_.type == PoolingParams::kMax ? std::max(acc, src[a * w + b]) : acc + src[a * w + b];
    return p_.type == PoolingParams::kAvg ? acc / static_cast<float>(count) : acc;
  }

  PoolingParams p_;
  Shape in_, out_;
};

KernelBuild BuildPooling(const KernelRequest& req) {
  auto p = PoolingParams::Parse(req.attrs);
  const Shape& in = req.inputs[0].type.shape;
  const Shape out = p.Resolve(req.attrs, in);
  dnnl::memory::dims pad_r = {0, 0};
  bool overhang = false;  // a window reaches past the right/bottom padding
  bool empty = false;     // a window lies wholly in that overhang
  for (int i = 0; i < 2; ++i) {
    // The floor convention may leave input rows unused; oneDNN then takes the symmetric padding.
    pad_r[i] = std::max((out[2 + i] - 1) * p.stride[i] + p.kernel[i] - in[2 + i] - p.pad[i], p.pad[i]);
    overhang = overhang || pad_r[i] > p.pad[i];
    empty = empty || pad_r[i] >= p.kernel[i];
  }
  KernelBuild build;
  build.runtime_inputs = {0};
  if (p.type == PoolingParams::kSum || empty || (p.type == PoolingParams::kAvg && p.count_include_pad && overhang)) {
    build.input_descs = {PlainDesc(in)};
    build.output_descs = {PlainDesc(out)};
    build.kernel = std::make_unique<PoolingLoopKernel>(p, in, out);
    return build;
  }
  const auto algorithm = p.type == PoolingParams::kMax ? dnnl::algorithm::pooling_max
                         : p.count_include_pad         ? dnnl::algorithm::pooling_avg_include_padding
                                                       : dnnl::algorithm::pooling_avg_exclude_padding;
  // In the producer's layout and data type (bfloat16 after a bfloat16 convolution; int8 data keeps
  // its scale: maxima and averages of its integers are the output's integers).
  const Desc src = req.inputs[0].desc;
  const Quantization quant = req.inputs[0].quant;
  const dnnl::memory::dims strides(p.stride.begin(), p.stride.end()), kernel(p.kernel.begin(), p.kernel.end()),
      pad_l(p.pad.begin(), p.pad.end());
  const dnnl::memory::dims dilation = {0, 0};  // oneDNN counts dilation from 0
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
  build.input_descs = {src};
  build.input_quants = {quant};
  build.output_descs = {dst};
  build.output_quants = {quant};
  build.kernel = std::make_unique<DnnlKernel>(pd, std::move(args), std::move(writes));
  return build;
}

const CpuKernelRegistrar kRegister({"Pooling"}, BuildPooling, true);

}  // namespace
}  // namespace qv::cpu
