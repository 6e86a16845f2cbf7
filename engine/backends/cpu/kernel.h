// The CPU backend's kernel interface. A kernel is built once per plan (per node and input shapes),
// then executed by any number of invocations at once: Execute must be thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "ops/attrs.h"
#include "ops/op.h"
#include "tensor/ndarray.h"

namespace qv::cpu {

using Desc = dnnl::memory::desc;

// A value flowing into a node: its logical type, its physical layout, and its data if it is a
// parameter (parameters are plain row-major).
struct ValueInfo {
  TensorType type;
  Desc desc;
  NDArrayPtr constant;  // null for values computed at run time
};

class ConstantCache;

struct KernelRequest {
  const Attrs& attrs;
  ConstantCache& constants;
  const std::vector<ValueInfo>& inputs;
  const std::vector<TensorType>& outputs;  // inferred by the operator
};

struct ExecArgs {
  std::vector<void*> inputs;   // the runtime inputs, in the layouts the kernel asked for
  std::vector<void*> outputs;  // in the layouts the kernel declared
  int threads = 1;             // compute threads leased for this kernel
};

class Kernel {
 public:
  virtual ~Kernel() = default;
  virtual void Execute(const ExecArgs& args) const = 0;
  // Builds ahead what Execute with `threads` needs (at plan compile time, for the thread count the
  // kernel gets when its invocation runs alone), so the first run does not.
  virtual void Prepare(int /*threads*/) const {}
};

struct KernelBuild {
  std::vector<int> runtime_inputs;  // node input indices read at execution time, in ExecArgs order
  std::vector<Desc> input_descs;    // the layout required for each runtime input
  std::vector<Desc> output_descs;
  // Index into runtime_inputs whose contents output 0 must hold before Execute (a fused residual sum).
  int accumulate_input = -1;
  // Floating-point operations of one run, where arithmetic rather than memory bounds it (convolutions,
  // inner products); with the bytes it moves, this says how many threads the kernel is worth.
  double flops = 0;
  std::unique_ptr<Kernel> kernel;
};

using KernelFactory = KernelBuild (*)(const KernelRequest& request);

// nullptr when the CPU backend has no kernel for this operator.
KernelFactory FindCpuKernel(const std::string& op);

struct CpuKernelRegistrar {
  CpuKernelRegistrar(std::initializer_list<const char*> ops, KernelFactory factory);
};

}  // namespace qv::cpu
