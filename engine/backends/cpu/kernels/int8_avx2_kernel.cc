#include "backends/cpu/kernels/int8_avx2_kernel.h"

#include "backends/cpu/kernels/int8_support.h"
#include "backends/cpu/runtime/constant_cache.h"

namespace qv::cpu {

Int8Avx2Io DeclareInt8Avx2Io(const KernelRequest& req, const ConvolutionParams& p, const Int8Hints& h,
                             KernelBuild& build) {
  using dnnl::memory;
  const ValueInfo& data = req.inputs[0];
  const Int8Input in = Int8InputOf(data, h);
  const bool int8_out = h.out_type != DType::kFloat32;
  const Desc src(ToDims(data.type.shape), in.type, memory::format_tag::nhwc);
  const Desc dst(ToDims(req.outputs[0].shape), DnnlType(h.out_type), memory::format_tag::nhwc);
  const Quantization out = int8_out ? Int8Output(h) : Quantization{};
  AddRuntimeInput(build, 0, src, in.quant);
  AddOutput(build, dst, out);
  build.flops = MultiplyAddFlops(req.outputs[0].shape, req.inputs[1].type.shape);

  Int8Avx2Io io;
  io.signed_data = in.type == memory::data_type::s8;
  io.out = !int8_out ? Int8Out::kFloat32 : h.out_type == DType::kUInt8 ? Int8Out::kUInt8 : Int8Out::kInt8;
  if (!p.no_bias) {
    const Desc bias_desc({p.num_filter}, memory::data_type::f32, memory::format_tag::a);
    io.bias = CpuConstants(req).Get(req.inputs[2].constant, bias_desc, bias_desc);
  }
  std::tie(io.lo, io.hi) = *Int8OutputBounds(p.post_ops);
  io.src_scale_at = ScaleOffset(src);
  io.dst_scale_at = int8_out ? ScaleOffset(dst) : 0;
  io.out_scale = out.scale;
  return io;
}

}  // namespace qv::cpu
