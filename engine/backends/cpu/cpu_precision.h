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

// The data type a kernel computes in for a resolved precision (at int8, layers without int8 hints,
// ops/int8_hints.h, compute in float32).
dnnl::memory::data_type ComputeType(Precision precision);

}  // namespace qv::cpu
