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

// A value flowing into a node: its logical type, its physical layout, and its data if it is a
// parameter (plain, or packed into `desc` by the ConstantCache).
struct ValueInfo {
  TensorType type;
  Desc desc;
  ConstantPtr constant;  // null for values computed at run time
};

class ConstantCache;

struct KernelRequest {
  const Attrs& attrs;
  ConstantCache& constants;
  const std::vector<ValueInfo>& inputs;
  const std::vector<TensorType>& outputs;  // inferred by the operator
  Precision precision;  // resolved: float32 or bfloat16
};

// As qv::KernelBuild, in oneDNN descriptors.
struct KernelBuild {
  std::vector<int> runtime_inputs;
  std::vector<Desc> input_descs;
  std::vector<Desc> output_descs;
  int accumulate_input = -1;
  double flops = 0;
  std::unique_ptr<Kernel> kernel;
};

using KernelFactory = KernelBuild (*)(const KernelRequest& request);

// nullptr when the CPU backend has no kernel for this operator (a canonical name).
KernelFactory FindCpuKernel(const std::string& op);
// Every operator with a CPU kernel, sorted.
std::vector<std::string> ListCpuKernels();

// Registers a factory for canonical operator names (ops/op.h spells the aliases once).
struct CpuKernelRegistrar {
  CpuKernelRegistrar(std::initializer_list<const char*> ops, KernelFactory factory);
};

// A oneDNN descriptor as the backend-neutral Layout, and back.
LayoutPtr ToLayout(const Desc& desc);
const Desc& DescOf(const Layout& layout);

}  // namespace qv::cpu
