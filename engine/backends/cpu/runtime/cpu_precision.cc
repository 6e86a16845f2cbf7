#include "backends/cpu/runtime/cpu_precision.h"

#include <cstdint>

namespace qv::cpu {
namespace {

// oneDNN's ISA values are bit sets: a CPU level includes every bit of the levels below it.
bool Includes(dnnl::cpu_isa have, dnnl::cpu_isa level) {
  const auto bits = static_cast<uint32_t>(level);
  return (static_cast<uint32_t>(have) & bits) == bits;
}

// Native bfloat16 dot products: AVX512_BF16 (Cooper Lake, Zen 4 and later), or AVX-NE-CONVERT with
// AVX-VNNI-INT8 on AVX2-only cores (Sierra Forest).
bool HasNativeBFloat16(dnnl::cpu_isa isa) {
  return Includes(isa, dnnl::cpu_isa::avx512_core_bf16) || Includes(isa, dnnl::cpu_isa::avx2_vnni_2);
}

}  // namespace

bool HasInt8DotProducts() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return Includes(isa, dnnl::cpu_isa::avx512_core_vnni) || Includes(isa, dnnl::cpu_isa::avx2_vnni);
}

bool HasAvx2() { return Includes(dnnl::get_effective_cpu_isa(), dnnl::cpu_isa::avx2); }

bool HasAvx512() { return Includes(dnnl::get_effective_cpu_isa(), dnnl::cpu_isa::avx512_core); }

Precision ResolveCpuPrecision(Precision requested) {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  switch (requested) {
    case Precision::kFloat32: return requested;
    case Precision::kBFloat16:
      Check(HasNativeBFloat16(isa), Status::kUnsupported,
            "precision 'bfloat16' needs native bfloat16 instructions (avx512_bf16, or avx_ne_convert with "
            "avx_vnni_int8), which this CPU lacks or ONEDNN_MAX_CPU_ISA hides; use 'float32' or 'auto'");
      return requested;
    case Precision::kInt8:
      Check(HasAvx2(), Status::kUnsupported,
            "precision 'int8' needs AVX2 (oneDNN's int8 kernels), which this CPU lacks or ONEDNN_MAX_CPU_ISA "
            "hides; use 'float32' or 'auto'");
      return requested;
    case Precision::kAuto: return HasNativeBFloat16(isa) ? Precision::kBFloat16 : Precision::kFloat32;
  }
  return Precision::kFloat32;
}

dnnl::memory::data_type ComputeType(Precision precision) {
  return precision == Precision::kBFloat16 ? dnnl::memory::data_type::bf16 : dnnl::memory::data_type::f32;
}

}  // namespace qv::cpu
