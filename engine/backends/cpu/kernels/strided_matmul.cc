#include "backends/cpu/kernels/strided_matmul.h"

namespace qv::cpu {

std::unique_ptr<Kernel> MakeStridedMatmul(const MatrixView& a, const MatrixView& b, const MatrixView& dst,
                                          float scale) {
  using dt = dnnl::memory::data_type;
  const Desc a_desc(a.dims, dt::f32, a.strides), b_desc(b.dims, dt::f32, b.strides);
  const Desc dst_desc(dst.dims, dt::f32, dst.strides);
  dnnl::primitive_attr attr = BaseAttr();
  if (scale != 1.f) {
    dnnl::post_ops ops;
    ops.append_eltwise(dnnl::algorithm::eltwise_linear, scale, 0.f);
    attr.set_post_ops(ops);
  }
  try {
    const dnnl::matmul::primitive_desc pd(CpuEngine(), a_desc, b_desc, dst_desc, attr);
    std::unordered_map<int, ArgSource> args;
    args[DNNL_ARG_SRC] = {ArgSource::kInput, a.index, nullptr, a_desc, sizeof(float) * static_cast<size_t>(a.offset)};
    args[DNNL_ARG_WEIGHTS] = {ArgSource::kInput, b.index, nullptr, b_desc,
                              sizeof(float) * static_cast<size_t>(b.offset)};
    args[DNNL_ARG_DST] = {ArgSource::kOutput, dst.index, nullptr, dst_desc,
                          sizeof(float) * static_cast<size_t>(dst.offset)};
    return std::make_unique<DnnlKernel>(pd, std::move(args));
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

}  // namespace qv::cpu
