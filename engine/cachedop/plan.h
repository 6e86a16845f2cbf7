// A plan: a bound graph compiled for one set of input shapes on the CPU. It owns the kernels (built
// once) and a memory plan; running it only binds buffers and executes kernels in order, so any number
// of invocations may run one plan at once, each with its own workspace.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/cpu/constant_cache.h"
#include "graph/bound_graph.h"
#include "tensor/storage_pool.h"

namespace qv {

class Plan {
 public:
  // Throws Error (QV_ERR_SHAPE naming node and input for shapes that do not fit the graph).
  static std::unique_ptr<Plan> Compile(const BoundGraph& graph, const std::vector<TensorType>& inputs,
                                       cpu::ConstantCache& constants);

  const std::vector<TensorType>& output_types() const { return output_types_; }

  // Runs every step; inputs and outputs are row-major. Thread-safe. `before_step`, if given, runs
  // before each operator and may throw to stop the run there (cancellation, deadlines).
  void Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
           const std::function<void()>& before_step = nullptr) const;

 private:
  struct BufferRef {
    enum Kind { kArena, kInput, kOutput, kConstant } kind = kArena;
    size_t index = 0;  // arena offset, input index or output index
    const void* constant = nullptr;
  };
  struct Step {
    const cpu::Kernel* kernel = nullptr;
    std::vector<BufferRef> inputs, outputs;
    int accumulate_input = -1;  // copy inputs[k] into outputs[0] before running (not aliased)
    size_t accumulate_bytes = 0;
    std::string node;
    int max_threads = 1;  // the most threads worth leasing for it (ThreadsWorthUsing)
  };
  class Builder;

  std::vector<std::unique_ptr<cpu::Kernel>> kernels_;
  std::vector<Step> steps_;
  std::vector<TensorType> output_types_;
  size_t workspace_bytes_ = 0;
  mutable StoragePool workspaces_;
};

}  // namespace qv
