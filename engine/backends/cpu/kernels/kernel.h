// The CPU backend's kernel factories: per operator, a function that builds the node's kernel with
// oneDNN (or a plain loop) and says which layouts it reads and writes. Factories take and return the
// Backend interface's KernelRequest and KernelBuild; a CPU layout is a oneDNN memory descriptor with
// the quantization of int8 data (DescOf, QuantizationOf, AddRuntimeInput and AddOutput below).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "backends/backend.h"
#include "ops/attrs.h"
#include "ops/op.h"

namespace qv::cpu {

using Desc = dnnl::memory::desc;

// An int8 or uint8 tensor stands for float values: integer x scale. Its buffer holds the integers (in
// the descriptor's layout) and then, at ScaleOffset, that scale as a float, written by the step that
// produces the tensor, so that a scale measured per run travels with the run's data. `scale` here is
// what is known when plans are built: the fixed scale of a calibrated tensor, or 0 when each run
// measures it, as max |value| / `levels`.
struct Quantization {
  float scale = 0;
  float levels = 0;
  bool operator==(const Quantization& o) const { return scale == o.scale && (scale != 0 || levels == o.levels); }
};
bool IsQuantized(const Desc& desc);  // int8 or uint8 data
size_t ScaleOffset(const Desc& desc);
// The scale's own descriptor, as oneDNN reads runtime scales.
Desc ScaleDesc(int64_t count = 1);

using KernelFactory = KernelBuild (*)(const KernelRequest& request);

struct CpuKernel {
  KernelFactory factory = nullptr;
  // Whether the factory handles int8 inputs (QuantizationOf); the others see them as float32 data in
  // the plain layout, which the plan converts them to.
  bool reads_int8 = false;
};

// factory nullptr when the CPU backend has no kernel for this operator (a canonical name).
CpuKernel FindCpuKernel(const std::string& op);
// Every operator with a CPU kernel, sorted.
std::vector<std::string> ListCpuKernels();

// Registers a factory for canonical operator names (ops/op.h spells the aliases once).
struct CpuKernelRegistrar {
  CpuKernelRegistrar(const std::vector<std::string>& ops, KernelFactory factory, bool reads_int8 = false);
};

// A oneDNN descriptor (with its quantization, when int8 or uint8) as the backend-neutral Layout, and back.
LayoutPtr ToLayout(const Desc& desc, const Quantization& quant = {});
const Desc& DescOf(const Layout& layout);
Quantization QuantizationOf(const Layout& layout);
inline const Desc& DescOf(const ValueInfo& value) { return DescOf(*value.layout); }
inline Quantization QuantizationOf(const ValueInfo& value) { return QuantizationOf(*value.layout); }

// Reads node input `input` at run time, in layout `desc`; returns its place among runtime_inputs.
int AddRuntimeInput(KernelBuild& build, int input, const Desc& desc, const Quantization& quant = {});
// Writes the next node output in layout `desc`.
void AddOutput(KernelBuild& build, const Desc& desc, const Quantization& quant = {});

}  // namespace qv::cpu
