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
#include "common/profiler.h"
#include "graph/bound_graph.h"
#include "tensor/storage_pool.h"

namespace qv {

class Plan : private StepSequence {
 public:
  // `constants`: the graph's parameters as the op keeps them (plain or packed by `store`); `precision`:
  // resolved by the backend (Backend::ResolvePrecision); `recording`: whether RunAsync replays a
  // recording of the steps where the backend makes one (Backend::NewStepReplay: CUDA graphs). Throws
  // Error (Status::kShape naming node and input for shapes that do not fit the graph).
  static std::unique_ptr<Plan> Compile(const BoundGraph& graph, const ConstantMap& constants,
                                       const std::vector<TensorType>& inputs, const Backend& backend,
                                       const Device& device, Precision precision, ConstantStore& store,
                                       StepRecording recording = StepRecording::kOff);

  const std::vector<TensorType>& output_types() const { return output_types_; }

  // Runs every step and waits for them; inputs and outputs are row-major buffers of the plan's device.
  // Thread-safe. `before_step`, if given, runs before each operator and may throw to stop the run
  // there (cancellation, deadlines).
  void Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
           const std::function<void()>& before_step = nullptr) const;
  // Hands every step to the device and returns; the device calls `done` once they have completed
  // (Execution::FinishAsync; on a synchronous backend at once, on this thread). Each input and output
  // is bound to one buffer used in place, or to pieces (a batch's requests, host memory) gathered
  // into and scattered from a buffer of the invocation's workspace (Execution::Gather, Scatter).
  // Throws, without calling `done`, if it fails before that hand-over (a step refused, before_step
  // threw, pieces larger than the tensor). The workspace stays borrowed until `done`; the caller
  // keeps the plan and the bound memory alive until then.
  void RunAsync(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs,
                const std::function<void()>& before_step, Execution::Done done) const;

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
    profiler::LabelPtr label;  // its profiler spans' node, operator, input shapes and fused nodes
  };
  class Builder;

  // Gathers the inputs bound in pieces, runs every step and scatters the outputs bound in pieces, on
  // `execution` with `workspace` (of WorkspaceBytes(inputs, outputs)).
  void Enqueue(Execution& execution, char* workspace, const std::vector<InputBinding>& inputs,
               const std::vector<OutputBinding>& outputs, const std::function<void()>& before_step) const;
  // The arena plus room for each input and output that is not bound to one buffer of its size.
  size_t WorkspaceBytes(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs) const;
  // Runs every step on `execution` in `arena`.
  void RunSteps(Execution& execution, char* arena, const std::vector<const void*>& inputs,
                const std::vector<void*>& outputs, const std::function<void()>& before_step) const;
  // StepSequence, for the backend's replay.
  void RunSteps(Execution& execution, char* arena, const std::vector<const void*>& inputs,
                const std::vector<void*>& outputs) const override {
    RunSteps(execution, arena, inputs, outputs, nullptr);
  }
  size_t arena_bytes() const override { return workspace_bytes_; }
  const std::vector<size_t>& input_bytes() const override { return input_bytes_; }
  const std::vector<size_t>& output_bytes() const override { return output_bytes_; }

  const Backend& backend_;
  const Device device_;
  std::vector<std::unique_ptr<Kernel>> kernels_;
  std::vector<Step> steps_;
  std::vector<TensorType> output_types_;
  std::vector<size_t> input_bytes_;  // per data input
  std::vector<size_t> output_bytes_;
  size_t workspace_bytes_ = 0;
  mutable StoragePool workspaces_;
  std::unique_ptr<StepReplay> replay_;  // null unless asked for and the backend records steps
};

}  // namespace qv
