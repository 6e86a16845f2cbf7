// The CPU backend's kernel factories: per operator, a function that builds the node's kernel with
// oneDNN (or a plain loop) and says which layouts (oneDNN memory descriptors) it reads and writes.
// CpuBackend (cpu_backend.cc) turns these into the device-neutral Backend interface.
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

// A value flowing into a node: its logical type, its physical layout, and its data if it is a
// parameter (plain, or packed into `desc` by the ConstantCache).
struct ValueInfo {
  TensorType type;
  Desc desc;
  ConstantPtr constant;  // null for values computed at run time
  Quantization quant;    // when `desc` is int8 or uint8
};

class ConstantCache;

struct KernelRequest {
  const Attrs& attrs;
  ConstantCache& constants;
  const std::vector<ValueInfo>& inputs;
  const std::vector<TensorType>& outputs;  // inferred by the operator
  Precision precision;  // resolved: float32, bfloat16 or int8
};

// As qv::KernelBuild, in oneDNN descriptors (with the quantization of those that are int8 or uint8;
// missing entries are {}).
struct KernelBuild {
  // Reads node input `input` at run time, in layout `desc`; returns its place among runtime_inputs.
  int AddRuntimeInput(int input, const Desc& desc) {
    runtime_inputs.push_back(input);
    input_descs.push_back(desc);
    return static_cast<int>(runtime_inputs.size()) - 1;
  }

  std::vector<int> runtime_inputs;
  std::vector<Desc> input_descs;
  std::vector<Desc> output_descs;
  std::vector<Quantization> input_quants;
  std::vector<Quantization> output_quants;
  int accumulate_input = -1;
  double flops = 0;
  std::unique_ptr<Kernel> kernel;
};

using KernelFactory = KernelBuild (*)(const KernelRequest& request);

struct CpuKernel {
  KernelFactory factory = nullptr;
  // Whether the factory handles int8 inputs (ValueInfo::quant); the others see them as float32 data
  // in the plain layout, which the plan converts them to.
  bool reads_int8 = false;
};

// factory nullptr when the CPU backend has no kernel for this operator (a canonical name).
CpuKernel FindCpuKernel(const std::string& op);
// Every operator with a CPU kernel, sorted.
std::vector<std::string> ListCpuKernels();

// Registers a factory for canonical operator names (ops/op.h spells the aliases once).
struct CpuKernelRegistrar {
  CpuKernelRegistrar(std::initializer_list<const char*> ops, KernelFactory factory, bool reads_int8 = false);
};

// A oneDNN descriptor (with its quantization, when int8 or uint8) as the backend-neutral Layout, and back.
LayoutPtr ToLayout(const Desc& desc, const Quantization& quant = {});
const Desc& DescOf(const Layout& layout);
Quantization QuantizationOf(const Layout& layout);

}  // namespace qv::cpu
