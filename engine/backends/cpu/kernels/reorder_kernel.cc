#include <cstring>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/planar_quantize.h"
#include "backends/cpu/kernels/vector_math.h"

namespace qv::cpu {
namespace {

// Quantizes float data with the scale measured on it: max |value| / levels, written where the conversion
// reads its destination scale.
class MeasuredQuantizeKernel : public Kernel {
 public:
  MeasuredQuantizeKernel(const Desc& from, const Desc& to, float levels, std::unique_ptr<Kernel> convert)
      : floats_(static_cast<int64_t>(from.get_size() / sizeof(float))), offset_(ScaleOffset(to)), levels_(levels), convert_(std::move(convert)) {}

  void Execute(const ExecArgs& args) const override {
    const float largest = LargestMagnitude(static_cast<const float*>(args.inputs[0]), floats_);
    // All zeros: any scale gives zeros.
    const float scale = largest > 0 ? largest / levels_ : 1.f;
    std::memcpy(static_cast<char*>(args.outputs[0]) + offset_, &scale, sizeof scale);
    convert_->Execute(args);
  }
  std::string Implementation() const override { return convert_->Implementation(); }

 private:
  int64_t floats_;  // blocked layouts pad with zeros, which leave the maximum alone
  size_t offset_;
  float levels_;
  std::unique_ptr<Kernel> convert_;
};

// oneDNN's reorder, through the scales of int8 tensors.
std::unique_ptr<Kernel> MakeDnnlReorder(const Desc& from, const Desc& to, const Quantization& to_quant) {
  dnnl::primitive_attr attr = BaseAttr();
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_FROM] = {ArgSource::kInput, 0, nullptr, from};
  args[DNNL_ARG_TO] = {ArgSource::kOutput, 0, nullptr, to};
  std::vector<ScaleWrite> writes;
  const bool int8_in = IsQuantized(from), int8_out = IsQuantized(to);
  if (int8_in) {
    attr.set_scales_mask(DNNL_ARG_SRC, 0);
    args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {ArgSource::kInputScale, 0, nullptr, ScaleDesc(), ScaleOffset(from)};
  }
  if (int8_out) {
    attr.set_scales_mask(DNNL_ARG_DST, 0);
    args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {ArgSource::kOutputScale, 0, nullptr, ScaleDesc(), ScaleOffset(to)};
    if (to_quant.scale > 0) writes.push_back({0, ScaleOffset(to), to_quant.scale});
    else if (int8_in) writes.push_back({0, ScaleOffset(to), 0, 0, ScaleOffset(from)});
  }
  const dnnl::reorder::primitive_desc pd(CpuEngine(), from, CpuEngine(), to, attr);
  return std::make_unique<DnnlKernel>(pd, std::move(args), std::move(writes));
}

}  // namespace

std::unique_ptr<Kernel> MakeReorderKernel(const Desc& from, const Desc& to, const Quantization& to_quant) {
  if (IsQuantized(from) || !IsQuantized(to)) return MakeDnnlReorder(from, to, to_quant);
  std::unique_ptr<Kernel> quantize = MakePlanarQuantizeKernel(from, to, to_quant);
  if (!quantize) quantize = MakeDnnlReorder(from, to, to_quant);
  if (to_quant.scale > 0) return quantize;
  return std::make_unique<MeasuredQuantizeKernel>(from, to, to_quant.levels, std::move(quantize));
}

namespace {

// Flatten, Reshape, expand_dims, squeeze and reshape_like keep the row-major order of the data: one reorder reads any
// layout and writes the row-major result, which is the output's bytes (int8 data stays int8).
KernelBuild BuildRowMajorView(const KernelRequest& req) {
  const ValueInfo& in = req.inputs[0];
  const Desc from = DescOf(in);
  const Quantization quant = QuantizationOf(in);
  const auto type = from.get_data_type();
  const bool int8 = IsQuantized(from);
  const Desc to = PlainDesc(in.type.shape, int8 ? type : dnnl::memory::data_type::f32);
  KernelBuild build;
  AddRuntimeInput(build, 0, from, quant);
  AddOutput(build, PlainDesc(req.outputs[0].shape, to.get_data_type()), quant);
  build.kernel = MakeReorderKernel(from, to, quant);
  return build;
}

const CpuKernelRegistrar kRegister({"Flatten", "Reshape", "expand_dims", "squeeze", "reshape_like"}, BuildRowMajorView, true);

}  // namespace
}  // namespace qv::cpu
