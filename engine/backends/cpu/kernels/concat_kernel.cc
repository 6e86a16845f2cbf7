// Concat on oneDNN. Float inputs keep their producers' layouts (all read as row-major float32 when
// their data types differ, which oneDNN's concat does not mix), oneDNN picks the output's.
//
// int8 and uint8 inputs with fixed scales stay quantized, as MXNet's quantized concat does: the output
// covers the widest input range (range = scale x levels) with MXNet's levels for its type, int8 if
// any input is int8, else uint8, and each input is requantized onto that grid (rounded to nearest,
// saturated) straight into its slice of the output. Any other mix, or a scale measured per run, is
// concatenated in float32 (the plan converts the int8 inputs).
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/int8_support.h"
#include "ops/concat.h"

namespace qv::cpu {
namespace {

// Runs one requantizing reorder per input, each writing its slice of the output.
class RequantizingConcatKernel : public Kernel {
 public:
  explicit RequantizingConcatKernel(std::vector<std::unique_ptr<Kernel>> parts) : parts_(std::move(parts)) {}
  void Execute(const ExecArgs& args) const override {
    for (const auto& part : parts_) part->Execute(args);
  }

 private:
  std::vector<std::unique_ptr<Kernel>> parts_;
};

bool AllFixedInt8(const std::vector<ValueInfo>& inputs) {
  return std::all_of(inputs.begin(), inputs.end(), [](const ValueInfo& in) {
    const Quantization quant = QuantizationOf(in);
    return IsQuantized(DescOf(in)) && quant.scale > 0 && quant.levels > 0;
  });
}

KernelBuild BuildInt8Concat(const KernelRequest& req, int dim) {
  bool any_signed = false;
  float range = 0;
  for (const ValueInfo& in : req.inputs) {
    const Quantization quant = QuantizationOf(in);
    any_signed = any_signed || DescOf(in).get_data_type() == dnnl::memory::data_type::s8;
    range = std::max(range, quant.scale * quant.levels);
  }
  const DType out_type = any_signed ? DType::kInt8 : DType::kUInt8;
  const float levels = Int8Hints::DataLevels(out_type);
  const Quantization out_quant{range / levels, levels};
  const Desc dst = PlainDesc(req.outputs[0].shape, DnnlType(out_type));

  KernelBuild build;
  std::vector<std::unique_ptr<Kernel>> parts;
  dnnl::memory::dims offsets(dst.get_dims().size(), 0);
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    const ValueInfo& in = req.inputs[i];
    const Desc& src = DescOf(in);
    const dnnl::memory::dims dims = ToDims(in.type.shape);
    const Desc slice = dst.submemory_desc(dims, offsets);
    offsets[dim] += dims[dim];
    dnnl::primitive_attr attr = BaseAttr();
    attr.set_scales_mask(DNNL_ARG_SRC, 0);
    attr.set_scales_mask(DNNL_ARG_DST, 0);
    const int index = static_cast<int>(i);
    std::unordered_map<int, ArgSource> args;
    args[DNNL_ARG_FROM] = {ArgSource::kInput, index, nullptr, src};
    args[DNNL_ARG_TO] = {ArgSource::kOutput, 0, nullptr, slice};
    args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC] = {ArgSource::kInputScale, index, nullptr, ScaleDesc(), ScaleOffset(src)};
    args[DNNL_ARG_ATTR_SCALES | DNNL_ARG_DST] = {ArgSource::kOutputScale, 0, nullptr, ScaleDesc(), ScaleOffset(dst)};
    // The first part writes the output's scale, which every part reads.
    std::vector<ScaleWrite> writes;
    if (i == 0) writes.push_back({0, ScaleOffset(dst), out_quant.scale});
    const dnnl::reorder::primitive_desc pd(CpuEngine(), src, CpuEngine(), slice, attr);
    parts.push_back(std::make_unique<DnnlKernel>(pd, std::move(args), std::move(writes)));
    AddRuntimeInput(build, index, src, QuantizationOf(in));
  }
  AddOutput(build, dst, out_quant);
  build.kernel = std::make_unique<RequantizingConcatKernel>(std::move(parts));
  return build;
}

KernelBuild BuildConcat(const KernelRequest& req) {
  const int dim = ConcatAxis(req.attrs, req.outputs[0].shape);
  if (AllFixedInt8(req.inputs)) return BuildInt8Concat(req, dim);
  KernelBuild build;
  std::vector<Desc> srcs;
  std::unordered_map<int, ArgSource> args;
  bool mixed = false;
  const auto first_type = DescOf(req.inputs[0]).get_data_type();
  for (const ValueInfo& in : req.inputs)
    mixed = mixed || IsQuantized(DescOf(in)) || DescOf(in).get_data_type() != first_type;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    srcs.push_back(mixed ? PlainDesc(req.inputs[i].type.shape) : DescOf(req.inputs[i]));
    AddRuntimeInput(build, static_cast<int>(i), srcs.back());
    args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = {ArgSource::kInput, static_cast<int>(i), nullptr, srcs.back()};
  }
  const dnnl::primitive_desc_base base = dnnl::concat::primitive_desc(CpuEngine(), dim, srcs, BaseAttr());
  const Desc dst = base.dst_desc(0);
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  AddOutput(build, dst);
  build.kernel = std::make_unique<DnnlKernel>(base, std::move(args));
  return build;
}

const CpuKernelRegistrar kRegister({"Concat"}, BuildConcat, /*reads_int8=*/true);

}  // namespace
}  // namespace qv::cpu
