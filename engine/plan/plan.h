// A plan: a bound graph compiled for one set of input shapes on one device. It is device-neutral:
// topological order, value lifetimes, the memory plan, the step list and the run loop live here; the
// kernels, their layouts and the compute they run with come from the device's Backend. It owns the
// kernels (built once); running it only binds buffers and executes steps in order, so any number of
// invocations may run one plan at once, each with its own workspace.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "graph/bound_graph.h"
#include "tensor/storage_pool.h"

namespace qv {

class Plan {
 public:
  // `constants`: the graph's parameters as the op keeps them (plain or packed by `store`); `precision`:
  // resolved by the backend (Backend::ResolvePrecision). Throws Error (Status::kShape naming node and
  // input for shapes that do not fit the graph).
  static std::unique_ptr<Plan> Compile(const BoundGraph& graph, const ConstantMap& constants,
                                       const std::vector<TensorType>& inputs, const Backend& backend,
                                       const Device& device, Precision precision, ConstantStore& store);

  const std::vector<TensorType>& output_types() const { return output_types_; }

  // Runs every step; inputs and outputs are row-major. Thread-safe. `before_step`, if given, runs
  // before each operator and may throw to stop the run there (cancellation, deadlines).
  void Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
           const std::function<void()>& before_step = nullptr) const;

 private:
  Plan(const Backend& backend, const Device& device) : backend_(backend), device_(device), workspaces_(device) {}

  struct BufferRef {
    enum Kind { kArena, kInput, kOutput, kConstant } kind = kArena;
    size_t index = 0;  // arena offset, input index or output index
    const void* constant = nullptr;
  };
  struct Step {
    const Kernel* kernel = nullptr;
    std::vector<BufferRef> inputs, outputs;
    int accumulate_input = -1;  // copy inputs[k] into outputs[0] before running (not aliased)
    size_t accumulate_bytes = 0;
    std::string node;
    int parallelism = 1;  // the compute the step is worth (Backend::StepParallelism)
  };
  class Builder;

  const Backend& backend_;
  const Device device_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<Step> steps_;
  std::vector<TensorType> output_types_;
  size_t workspace_bytes_ = 0;
  mutable StoragePool workspaces_;
};

}  // namespace qv
