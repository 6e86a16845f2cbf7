// Which precisions this CPU computes natively, as oneDNN sees it (ONEDNN_MAX_CPU_ISA can hide
// instruction sets, and then counts as their absence).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "common/precision.h"

namespace qv::cpu {

// `requested` when the CPU runs it natively; kAuto becomes bfloat16 where the CPU has native bfloat16
// arithmetic, else float32. Throws Error(Status::kUnsupported) naming the missing instructions (never
// falls back to float32 for an explicit request).
Precision ResolveCpuPrecision(Precision requested);

// Whether oneDNN's int8 kernels multiply with int8 dot-product instructions (avx512_vnni, or avx_vnni
// on AVX2 cores), which sum u8 x s8 products exactly; without them (AVX2, and AVX-512 before Cascade
// Lake) they use vpmaddubsw, whose pairwise sums saturate at 16 bits (int8_support.h: QuantizeWeights).
bool HasInt8DotProducts();

// Whether oneDNN runs its AVX2 kernels here, as int8 requires: AVX2 (with FMA, which every AVX2 CPU has
// and oneDNN's AVX2 kernels assume), not hidden by ONEDNN_MAX_CPU_ISA.
bool HasAvx2();
// Whether oneDNN runs its AVX-512 kernels here (avx512_core: AVX-512 F, CD, BW, DQ and VL).
bool HasAvx512();

// The data type a kernel computes in for a resolved precision (at int8, layers without int8 hints,
// ops/int8_hints.h, compute in float32).
dnnl::memory::data_type ComputeType(Precision precision);

}  // namespace qv::cpu
