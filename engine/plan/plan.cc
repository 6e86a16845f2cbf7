#include "plan/plan.h"

#include <algorithm>
#include <cstdint>
#include <map>

#include "common/error.h"
#include "common/fault_injection.h"
#include "common/profiler.h"
#include "graph/graph_check.h"
#include "ops/input_to_float32.h"
#include "ops/op.h"
#include "plan/memory_plan.h"
#include "tensor/device_memory.h"

namespace qv {
namespace {

// Backends are only handed tensors that could exist (oneDNN crashes, SIGFPE, on some absurd shapes), and a plan
// holding a tensor larger than its device's memory could never run anyway.
void CheckAllocatable(const TensorType& t, const std::string& what, const Device& device) {
  const std::string described = what + " " + ShapeToString(t.shape);
  int64_t bytes = 0;
  try {
    bytes = ByteCount(t.shape, DTypeSize(t.dtype));
  } catch (const Error& e) {
    throw Error(e.status(), what + ": " + e.what());
  }
  const size_t capacity = DeviceMemoryOf(device).Capacity(device);
  Check(static_cast<uint64_t>(bytes) <= capacity, Status::kOutOfMemory,
        described + " needs " + std::to_string(bytes) + " bytes, more than " + device.ToString() +
            (device.type == DeviceType::kCpu ? " lets this process use (" : " has (") + std::to_string(capacity) + ")");
  for (int64_t d : t.shape)
    Check(d <= INT32_MAX, Status::kUnsupported, described + ": dimensions above 2^31-1 are not supported");
}

// Room for the pieces of one binding is rounded up to this, so that every tensor in the workspace
// starts aligned for vector loads.
constexpr size_t kPieceAlignment = 64;

size_t Aligned(size_t bytes) { return (bytes + kPieceAlignment - 1) / kPieceAlignment * kPieceAlignment; }

template <typename Piece>
size_t BoundBytes(const std::vector<Piece>& pieces) {
  size_t total = 0;
  for (const Piece& piece : pieces) total += piece.bytes;
  return total;
}

bool AlignedTo(const void* data, size_t alignment) { return reinterpret_cast<uintptr_t>(data) % alignment == 0; }

// A binding the steps read or write where it is: one piece in the device's memory, the tensor's size,
// as aligned as the backend's kernels need (Backend::in_place_alignment; a foreign device pointer may
// not be).
bool InPlace(const InputBinding& pieces, size_t bytes, size_t alignment) {
  return pieces.size() == 1 && !pieces[0].host && pieces[0].bytes == bytes && AlignedTo(pieces[0].data, alignment);
}
bool InPlace(const OutputBinding& pieces, size_t bytes, size_t alignment) {
  return pieces.size() == 1 && pieces[0].bytes == bytes && AlignedTo(pieces[0].data, alignment);
}

template <typename Binding>
void CheckBinding(const std::vector<Binding>& bindings, const std::vector<size_t>& bytes, const char* what) {
  Check(bindings.size() == bytes.size(), Status::kInternal,
        std::string("a plan of ") + std::to_string(bytes.size()) + " " + what + "s run with " +
            std::to_string(bindings.size()));
  for (size_t i = 0; i < bindings.size(); ++i)
    Check(BoundBytes(bindings[i]) <= bytes[i], Status::kInternal,
          std::string(what) + " " + std::to_string(i) + " bound to " + std::to_string(BoundBytes(bindings[i])) +
              " bytes, more than its " + std::to_string(bytes[i]));
}

}  // namespace

// Walks the graph in topological order, building kernels and inserting layout conversions, then
// assigns every intermediate value a place in the workspace.
class Plan::Builder {
 public:
  Builder(const BoundGraph& g, const ConstantMap& constants, const std::vector<TensorType>& inputs,
          Precision precision, ConstantStore& store, Plan* plan)
      : g_(g),
        constants_(constants),
        inputs_(inputs),
        precision_(precision),
        store_(store),
        backend_(plan->backend_),
        plan_(plan) {}

  void Build() {
    for (size_t i = 0; i < g_.data_inputs.size(); ++i) {
      CheckAllocatable(inputs_[i], "input '" + g_.input_names[i] + "'", plan_->device_);
      plan_->input_bytes_.push_back(static_cast<size_t>(ByteCount(inputs_[i].shape, DTypeSize(inputs_[i].dtype))));
      const int v = AddValue(inputs_[i], backend_.PlainLayout(inputs_[i]), {BufferRef::kInput, i});
      entry_value_[{g_.data_inputs[i], 0}] = inputs_[i].dtype == DType::kFloat32 ? v : ToFloat32(v, g_.input_names[i]);
    }
    for (const auto& [id, constant] : constants_) {
      // A packed constant is in its backend's layout already; a plain one is row-major.
      const LayoutPtr layout = constant->is_packed() ? constant->layout() : backend_.PlainLayout(constant->type());
      const int v = AddValue(constant->type(), layout, {BufferRef::kConstant, 0, constant->data()});
      values_[v].constant = constant;
      entry_value_[{id, 0}] = v;
    }
    for (int id : TopologicalOrder(g_.graph))
      if (!g_.graph.nodes[id].is_variable()) AddNode(id);
    AddOutputs();
    AssignBuffers();
  }

 private:
  struct Value {
    TensorType type;
    LayoutPtr layout;
    BufferRef ref;
    ConstantPtr constant;
    int producer = -1;  // step writing it (arena and output values)
    int last_use = -1;  // last step reading it
  };
  struct PendingStep {
    const Kernel* kernel;
    std::vector<int> inputs, outputs;  // value ids
    int accumulate_input;
    std::string node;
    int parallelism;
    std::string op, fused;  // the operator ("" for a conversion) and the nodes fused into it
  };

  int AddValue(const TensorType& type, LayoutPtr layout, BufferRef ref) {
    values_.push_back({type, std::move(layout), ref, nullptr, -1, -1});
    return static_cast<int>(values_.size()) - 1;
  }

  size_t BytesOf(int v) const { return values_[v].layout->bytes(); }

  // `flops`: the kernel's arithmetic, where that bounds it (KernelBuild::flops); 0 for data movement.
  // `op` and `fused` describe the step in profiles (empty for a layout conversion).
  int AddStep(std::unique_ptr<Kernel> kernel, std::vector<int> inputs, std::vector<int> outputs,
              int accumulate_input, const std::string& node, double flops = 0, const std::string& op = "",
              const std::string& fused = "") {
    const int step = static_cast<int>(steps_.size());
    double bytes = 0;
    for (int v : inputs) {
      values_[v].last_use = step;
      bytes += static_cast<double>(BytesOf(v));
    }
    for (int v : outputs) {
      values_[v].producer = step;
      bytes += static_cast<double>(BytesOf(v));
    }
    const int parallelism = backend_.StepParallelism(flops, bytes);
    steps_.push_back(
        {kernel.get(), std::move(inputs), std::move(outputs), accumulate_input, node, parallelism, op, fused});
    plan_->kernels_.push_back(std::move(kernel));
    return step;
  }

  // The value in `layout`: itself, or a converted copy made once per layout.
  int Convert(int v, const LayoutPtr& layout, const std::string& node) {
    if (values_[v].layout->SameAs(*layout)) return v;
    for (const auto& [converted_layout, converted] : conversions_[v])
      if (converted_layout->SameAs(*layout)) return converted;
    const int out = AddValue(values_[v].type, layout, {});
    AddStep(backend_.MakeConversion(values_[v].layout, layout), {v}, {out}, -1, node);
    conversions_[v].push_back({layout, out});
    return out;
  }

  void AddNode(int id) {
    const Node& node = g_.graph.nodes[id];
    std::vector<int> inputs;
    for (const NodeEntry& in : node.inputs) inputs.push_back(entry_value_.at(in));
    std::string fused;
    for (const FusedNode& f : node.fused) fused += (fused.empty() ? "" : ", ") + f.name + " (" + f.op + ")";
    const std::vector<int> outs = AddOperatorStep(AttrsOf(node), inputs, fused);
    for (size_t o = 0; o < outs.size(); ++o) entry_value_[{id, static_cast<int>(o)}] = outs[o];
  }

  // Quiver computes in float32: an input of another element type is converted by a first step.
  int ToFloat32(int v, const std::string& input) {
    static const std::map<std::string, std::string> kNoAttrs;
    return AddOperatorStep(Attrs(kNoAttrs, kInputToFloat32, input), {v}).front();
  }

  // A step running operator `attrs.op()` on values `inputs`; returns its output values.
  std::vector<int> AddOperatorStep(const Attrs& attrs, const std::vector<int>& inputs, const std::string& fused = "") {
    std::vector<TensorType> types;
    std::vector<ValueInfo> infos;
    for (int in : inputs) {
      const Value& v = values_[in];
      types.push_back(v.type);
      infos.push_back({v.type, v.layout, v.constant});
    }
    const std::vector<TensorType> out_types = FindOp(attrs.op())->InferShape(attrs, types);
    for (size_t o = 0; o < out_types.size(); ++o)
      CheckAllocatable(out_types[o], attrs.Where() + "output " + std::to_string(o), plan_->device_);
    KernelBuild build = backend_.BuildKernel({attrs, store_, infos, out_types, precision_, plan_->device_});

    std::vector<int> ins, outs;
    for (size_t r = 0; r < build.runtime_inputs.size(); ++r)
      ins.push_back(Convert(inputs[build.runtime_inputs[r]], build.input_layouts[r], attrs.node()));
    for (size_t o = 0; o < build.output_layouts.size(); ++o)
      outs.push_back(AddValue(out_types[o], build.output_layouts[o], {}));
    AddStep(std::move(build.kernel), ins, outs, build.accumulate_input, attrs.node(), build.flops, attrs.op(), fused);
    return outs;
  }

  // Graph outputs are written row-major into the caller's arrays: directly by the producing step when
  // it writes that layout, else through a final conversion.
  void AddOutputs() {
    std::vector<bool> taken(values_.size(), false);
    for (size_t k = 0; k < g_.graph.outputs.size(); ++k) {
      const int v = entry_value_.at(g_.graph.outputs[k]);
      const TensorType type = values_[v].type;
      const LayoutPtr plain = backend_.PlainLayout(type);
      plan_->output_types_.push_back(type);
      plan_->output_bytes_.push_back(static_cast<size_t>(ByteCount(type.shape, DTypeSize(type.dtype))));
      if (values_[v].ref.kind == BufferRef::kArena && values_[v].layout->SameAs(*plain) && !taken[v]) {
        values_[v].ref = {BufferRef::kOutput, k};
        taken[v] = true;
        continue;
      }
      const int out = AddValue(type, plain, {BufferRef::kOutput, k});
      AddStep(backend_.MakeConversion(values_[v].layout, plain), {v}, {out}, -1, "output " + g_.output_names[k]);
      taken.resize(values_.size(), false);
    }
  }

  bool IsArena(int v) const { return values_[v].ref.kind == BufferRef::kArena; }

  void AssignBuffers() {
    // Each arena value starts as its own buffer; a fused residual sum may share its input's buffer.
    std::vector<int> root(values_.size());
    for (size_t v = 0; v < values_.size(); ++v) root[v] = static_cast<int>(v);
    std::vector<int> group_last(values_.size());
    for (size_t v = 0; v < values_.size(); ++v) group_last[v] = std::max(values_[v].last_use, values_[v].producer);
    std::vector<bool> copy_before(steps_.size(), false);
    for (size_t s = 0; s < steps_.size(); ++s) {
      const PendingStep& st = steps_[s];
      if (st.accumulate_input < 0) continue;
      const int a = st.inputs[st.accumulate_input], o = st.outputs[0];
      const bool read_elsewhere =
          std::count(st.inputs.begin(), st.inputs.end(), a) > 1;
      if (IsArena(a) && IsArena(o) && values_[a].last_use == static_cast<int>(s) && !read_elsewhere) {
        root[o] = root[a];
        group_last[root[a]] = std::max(group_last[root[a]], group_last[o]);
      } else {
        copy_before[s] = true;
      }
    }
    std::vector<BufferLifetime> buffers;
    std::vector<int> buffer_of(values_.size(), -1);
    for (size_t v = 0; v < values_.size(); ++v) {
      if (!IsArena(static_cast<int>(v)) || root[v] != static_cast<int>(v)) continue;
      buffer_of[v] = static_cast<int>(buffers.size());
      buffers.push_back({BytesOf(static_cast<int>(v)), values_[v].producer, group_last[v]});
    }
    const MemoryPlan memory = PlanMemory(buffers);
    plan_->workspace_bytes_ = memory.total_bytes;
    for (size_t v = 0; v < values_.size(); ++v)
      if (IsArena(static_cast<int>(v))) values_[v].ref.index = memory.offsets[buffer_of[root[v]]];

    for (size_t s = 0; s < steps_.size(); ++s) {
      const PendingStep& st = steps_[s];
      Step step;
      step.kernel = st.kernel;
      step.node = st.node;
      step.parallelism = st.parallelism;
      std::string shapes;
      for (int v : st.inputs) shapes += (shapes.empty() ? "" : " ") + ShapeToString(values_[v].type.shape);
      if (!st.fused.empty()) shapes += "; fused: " + st.fused;
      step.label = std::make_shared<const profiler::Label>(
          profiler::Label{st.node, st.op.empty() ? "conversion" : "operator", st.op, shapes, st.kernel->Implementation()});
      for (int v : st.inputs) step.inputs.push_back(values_[v].ref);
      for (int v : st.outputs) step.outputs.push_back(values_[v].ref);
      if (copy_before[s]) {
        step.accumulate_input = st.accumulate_input;
        step.accumulate_bytes = BytesOf(st.outputs[0]);
      }
      plan_->steps_.push_back(std::move(step));
    }
  }

  const BoundGraph& g_;
  const ConstantMap& constants_;
  const std::vector<TensorType>& inputs_;
  const Precision precision_;
  ConstantStore& store_;
  const Backend& backend_;
  Plan* plan_;
  std::vector<Value> values_;
  std::map<NodeEntry, int> entry_value_;
  std::map<int, std::vector<std::pair<LayoutPtr, int>>> conversions_;
  std::vector<PendingStep> steps_;
};

std::unique_ptr<Plan> Plan::Compile(const BoundGraph& graph, const ConstantMap& constants,
                                    const std::vector<TensorType>& inputs, const Backend& backend,
                                    const Device& device, Precision precision, ConstantStore& store,
                                    StepRecording recording) {
  auto plan = std::unique_ptr<Plan>(new Plan(backend, device));
  Builder(graph, constants, inputs, precision, store, plan.get()).Build();
  if (recording != StepRecording::kOff) plan->replay_ = backend.NewStepReplay(*plan, device, recording);
  return plan;
}

void Plan::RunSteps(Execution& execution, char* arena, const std::vector<const void*>& inputs,
                    const std::vector<void*>& outputs, const std::function<void()>& before_step) const {
  auto resolve = [&](const BufferRef& ref) -> void* {
    switch (ref.kind) {
      case BufferRef::kArena: return arena + ref.index;
      case BufferRef::kInput: return const_cast<void*>(inputs[ref.index]);
      case BufferRef::kOutput: return outputs[ref.index];
      case BufferRef::kConstant: return const_cast<void*>(ref.constant);
    }
    return nullptr;
  };
  ExecArgs args;
  for (const Step& step : steps_) {
    if (before_step) before_step();
    args.inputs.clear();
    args.outputs.clear();
    for (const auto& ref : step.inputs) args.inputs.push_back(resolve(ref));
    for (const auto& ref : step.outputs) args.outputs.push_back(resolve(ref));
    if (step.accumulate_input >= 0)
      execution.CopyInOrder(args.outputs[0], args.inputs[step.accumulate_input], step.accumulate_bytes);
    fault::Hit(fault::Site::kKernel);
    const bool profiled = profiler::Enabled();
    if (profiled) execution.BeginStepSpan();
    execution.Run(*step.kernel, args, step.parallelism, step.node);
    if (profiled) execution.EndStepSpan(step.label);
  }
}

size_t Plan::WorkspaceBytes(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs) const {
  const size_t alignment = backend_.in_place_alignment();
  size_t bytes = Aligned(workspace_bytes_);
  for (size_t i = 0; i < inputs.size(); ++i)
    if (!InPlace(inputs[i], input_bytes_[i], alignment)) bytes += Aligned(input_bytes_[i]);
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!InPlace(outputs[k], output_bytes_[k], alignment)) bytes += Aligned(output_bytes_[k]);
  return bytes;
}

void Plan::Enqueue(Execution& execution, char* workspace, const std::vector<InputBinding>& inputs,
                   const std::vector<OutputBinding>& outputs, const std::function<void()>& before_step) const {
  const size_t alignment = backend_.in_place_alignment();
  char* room = workspace + Aligned(workspace_bytes_);  // for the bindings that are not in place
  std::vector<const void*> in_ptrs;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (InPlace(inputs[i], input_bytes_[i], alignment)) {
      in_ptrs.push_back(inputs[i][0].data);
      continue;
    }
    execution.Gather(room, input_bytes_[i], inputs[i]);
    in_ptrs.push_back(room);
    room += Aligned(input_bytes_[i]);
  }
  std::vector<void*> out_ptrs;
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (InPlace(outputs[k], output_bytes_[k], alignment)) {
      out_ptrs.push_back(outputs[k][0].data);
      continue;
    }
    out_ptrs.push_back(room);
    room += Aligned(output_bytes_[k]);
  }
  RunSteps(execution, workspace, in_ptrs, out_ptrs, before_step);
  for (size_t k = 0; k < outputs.size(); ++k)
    if (!InPlace(outputs[k], output_bytes_[k], alignment)) execution.Scatter(out_ptrs[k], outputs[k]);
}

void Plan::Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
               const std::function<void()>& before_step) const {
  std::vector<InputBinding> in_bindings;
  for (size_t i = 0; i < inputs.size(); ++i) in_bindings.push_back({{inputs[i], input_bytes_.at(i), false}});
  std::vector<OutputBinding> out_bindings;
  for (size_t k = 0; k < outputs.size(); ++k) out_bindings.push_back({{outputs[k], output_bytes_.at(k)}});
  CheckBinding(in_bindings, input_bytes_, "input");
  CheckBinding(out_bindings, output_bytes_, "output");
  const StoragePool::Lease workspace = workspaces_.Borrow(WorkspaceBytes(in_bindings, out_bindings));
  // Destroyed before the workspace: it waits for steps that were started when one throws.
  const std::unique_ptr<Execution> execution = backend_.StartExecution(device_);
  Enqueue(*execution, static_cast<char*>(workspace.data()), in_bindings, out_bindings, before_step);
  execution->Finish();
}

void Plan::RunAsync(const std::vector<InputBinding>& inputs, const std::vector<OutputBinding>& outputs,
                    const std::function<void()>& before_step, Execution::Done done) const {
  CheckBinding(inputs, input_bytes_, "input");
  CheckBinding(outputs, output_bytes_, "output");
  // A recording replays its steps as one unit: while the profiler is on they run one by one, each timed.
  if (replay_ && !profiler::Enabled()) {
    if (before_step) before_step();
    if (replay_->TryRun(inputs, outputs, done)) return;
  }
  auto workspace = std::make_shared<StoragePool::Lease>(workspaces_.Borrow(WorkspaceBytes(inputs, outputs)));
  std::unique_ptr<Execution> execution = backend_.StartExecution(device_);
  Enqueue(*execution, static_cast<char*>(workspace->data()), inputs, outputs, before_step);
  // The workspace goes back to the pool before `done` runs: the caller may drop the plan in it.
  execution->FinishAsync([workspace = std::move(workspace), done = std::move(done)](std::exception_ptr failure) mutable {
    workspace.reset();
    done(failure);
  });
}

}  // namespace qv
