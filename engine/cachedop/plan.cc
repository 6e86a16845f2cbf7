#include "cachedop/plan.h"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

#include "cachedop/memory_plan.h"
#include "common/error.h"
#include "common/fault_injection.h"
#include "graph/graph_check.h"
#include "scheduler/cpu_budget.h"

namespace qv {
namespace {

// oneDNN is only handed tensors that could exist: it crashes (SIGFPE) on some absurd shapes, and a plan
// holding a tensor larger than this process may allocate could never run anyway.
void CheckAllocatable(const TensorType& t, const std::string& what) {
  const std::string described = what + " " + ShapeToString(t.shape);
  int64_t bytes = 0;
  try {
    bytes = ByteCount(t.shape, DTypeSize(t.dtype));
  } catch (const Error& e) {
    throw Error(e.status(), what + ": " + e.what());
  }
  Check(static_cast<uint64_t>(bytes) <= Storage::MaxBytes(), QV_ERR_OUT_OF_MEMORY,
        described + " needs " + std::to_string(bytes) + " bytes, more than this process may use (" +
            std::to_string(Storage::MaxBytes()) + ")");
  for (int64_t d : t.shape)
    Check(d <= INT32_MAX, QV_ERR_UNSUPPORTED, described + ": dimensions above 2^31-1 are not supported");
}

}  // namespace

// Walks the graph in topological order, building kernels and inserting layout conversions, then
// assigns every intermediate value a place in the workspace.
class Plan::Builder {
 public:
  Builder(const BoundGraph& g, const std::vector<TensorType>& inputs, cpu::ConstantCache& constants, Plan* plan)
      : g_(g), inputs_(inputs), constants_(constants), plan_(plan) {}

  void Build() {
    for (size_t i = 0; i < g_.data_inputs.size(); ++i) {
      CheckAllocatable(inputs_[i], "input '" + g_.input_names[i] + "'");
      entry_value_[{g_.data_inputs[i], 0}] = AddValue(inputs_[i], cpu::PlainDesc(inputs_[i].shape), {BufferRef::kInput, i});
    }
    for (const auto& [id, array] : g_.constants) {
      const int v = AddValue({array->shape(), array->dtype()}, cpu::PlainDesc(array->shape()),
                             {BufferRef::kConstant, 0, array->data()});
      values_[v].constant = array;
      entry_value_[{id, 0}] = v;
    }
    cpu::SetComputeThreads(CpuBudget::Get().threads());
    for (int id : TopologicalOrder(g_.graph))
      if (!g_.graph.nodes[id].is_variable()) AddNode(id);
    AddOutputs();
    AssignBuffers();
  }

 private:
  struct Value {
    TensorType type;
    cpu::Desc desc;
    BufferRef ref;
    NDArrayPtr constant;
    int producer = -1;  // step writing it (arena and output values)
    int last_use = -1;  // last step reading it
  };
  struct PendingStep {
    const cpu::Kernel* kernel;
    std::vector<int> inputs, outputs;  // value ids
    int accumulate_input;
    std::string node;
    int max_threads;
  };

  int AddValue(const TensorType& type, const cpu::Desc& desc, BufferRef ref) {
    values_.push_back({type, desc, ref, nullptr, -1, -1});
    return static_cast<int>(values_.size()) - 1;
  }

  // `flops`: the kernel's arithmetic, where that bounds it (KernelBuild::flops); 0 for data movement.
  int AddStep(std::unique_ptr<cpu::Kernel> kernel, std::vector<int> inputs, std::vector<int> outputs,
              int accumulate_input, const std::string& node, double flops = 0) {
    const int step = static_cast<int>(steps_.size());
    double bytes = 0;
    for (int v : inputs) {
      values_[v].last_use = step;
      bytes += static_cast<double>(values_[v].desc.get_size());
    }
    for (int v : outputs) {
      values_[v].producer = step;
      bytes += static_cast<double>(values_[v].desc.get_size());
    }
    const int max_threads = ThreadsWorthUsing(flops, bytes);
    kernel->Prepare(CpuBudget::Get().LeaseSize(max_threads));
    steps_.push_back({kernel.get(), std::move(inputs), std::move(outputs), accumulate_input, node, max_threads});
    plan_->kernels_.push_back(std::move(kernel));
    return step;
  }

  // The value in layout `desc`: itself, or a converted copy made once per layout.
  int Convert(int v, const cpu::Desc& desc, const std::string& node) {
    if (values_[v].desc == desc) return v;
    for (const auto& [layout, converted] : conversions_[v])
      if (layout == desc) return converted;
    const int out = AddValue(values_[v].type, desc, {});
    AddStep(cpu::MakeReorderKernel(values_[v].desc, desc), {v}, {out}, -1, node);
    conversions_[v].push_back({desc, out});
    return out;
  }

  void AddNode(int id) {
    const Node& node = g_.graph.nodes[id];
    const Attrs attrs(node.attrs, node.op, node.name);
    std::vector<TensorType> types;
    std::vector<cpu::ValueInfo> infos;
    for (const NodeEntry& in : node.inputs) {
      const Value& v = values_[entry_value_.at(in)];
      types.push_back(v.type);
      infos.push_back({v.type, v.desc, v.constant});
    }
    const std::vector<TensorType> out_types = FindOp(node.op)->InferShape(attrs, types);
    for (size_t o = 0; o < out_types.size(); ++o)
      CheckAllocatable(out_types[o], attrs.Where() + "output " + std::to_string(o));
    const cpu::KernelFactory factory = cpu::FindCpuKernel(node.op);
    Check(factory != nullptr, QV_ERR_UNSUPPORTED, attrs.Where() + "has no kernel on cpu(0)");
    cpu::KernelBuild build;
    try {
      build = factory({attrs, constants_, infos, out_types});
    } catch (const dnnl::error& e) {
      throw Error(QV_ERR_UNSUPPORTED, attrs.Where() + "oneDNN cannot build its kernel: " + e.what());
    }

    std::vector<int> ins, outs;
    for (size_t r = 0; r < build.runtime_inputs.size(); ++r)
      ins.push_back(Convert(entry_value_.at(node.inputs[build.runtime_inputs[r]]), build.input_descs[r], node.name));
    for (size_t o = 0; o < build.output_descs.size(); ++o) {
      outs.push_back(AddValue(out_types[o], build.output_descs[o], {}));
      entry_value_[{id, static_cast<int>(o)}] = outs.back();
    }
    AddStep(std::move(build.kernel), ins, outs, build.accumulate_input, node.name, build.flops);
  }

  // Graph outputs are written row-major into the caller's arrays: directly by the producing step when
  // it writes that layout, else through a final conversion.
  void AddOutputs() {
    std::vector<bool> taken(values_.size(), false);
    for (size_t k = 0; k < g_.graph.outputs.size(); ++k) {
      const int v = entry_value_.at(g_.graph.outputs[k]);
      const TensorType type = values_[v].type;
      const cpu::Desc plain = cpu::PlainDesc(type.shape);
      plan_->output_types_.push_back(type);
      if (values_[v].ref.kind == BufferRef::kArena && values_[v].desc == plain && !taken[v]) {
        values_[v].ref = {BufferRef::kOutput, k};
        taken[v] = true;
        continue;
      }
      const int out = AddValue(type, plain, {BufferRef::kOutput, k});
      AddStep(cpu::MakeReorderKernel(values_[v].desc, plain), {v}, {out}, -1, "output " + g_.output_names[k]);
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
      buffers.push_back({values_[v].desc.get_size(), values_[v].producer, group_last[v]});
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
      step.max_threads = st.max_threads;
      for (int v : st.inputs) step.inputs.push_back(values_[v].ref);
      for (int v : st.outputs) step.outputs.push_back(values_[v].ref);
      if (copy_before[s]) {
        step.accumulate_input = st.accumulate_input;
        step.accumulate_bytes = values_[st.outputs[0]].desc.get_size();
      }
      plan_->steps_.push_back(std::move(step));
    }
  }

  const BoundGraph& g_;
  const std::vector<TensorType>& inputs_;
  cpu::ConstantCache& constants_;
  Plan* plan_;
  std::vector<Value> values_;
  std::map<NodeEntry, int> entry_value_;
  std::map<int, std::vector<std::pair<cpu::Desc, int>>> conversions_;
  std::vector<PendingStep> steps_;
};

std::unique_ptr<Plan> Plan::Compile(const BoundGraph& graph, const std::vector<TensorType>& inputs,
                                    cpu::ConstantCache& constants) {
  // Compiling sets OpenMP's thread count on the calling thread, which belongs to the caller.
  struct RestoreThreads {
    int threads = omp_get_max_threads();
    ~RestoreThreads() { omp_set_num_threads(threads); }
  } restore;
  auto plan = std::unique_ptr<Plan>(new Plan());
  Builder(graph, inputs, constants, plan.get()).Build();
  // The kernels just built brought oneDNN's global state into being.
  static std::once_flag stop_workers_at_exit;
  std::call_once(stop_workers_at_exit, Engine::StopWorkersAtExit);
  return plan;
}

void Plan::Run(const std::vector<const void*>& inputs, const std::vector<void*>& outputs,
               const std::function<void()>& before_step) const {
  const StoragePool::Lease workspace = workspaces_.Borrow(workspace_bytes_);
  char* arena = static_cast<char*>(workspace.data());
  auto resolve = [&](const BufferRef& ref) -> void* {
    switch (ref.kind) {
      case BufferRef::kArena: return arena + ref.index;
      case BufferRef::kInput: return const_cast<void*>(inputs[ref.index]);
      case BufferRef::kOutput: return outputs[ref.index];
      case BufferRef::kConstant: return const_cast<void*>(ref.constant);
    }
    return nullptr;
  };
  CpuBudget& budget = CpuBudget::Get();
  CpuBudget::Participant participant(&budget);
  cpu::ExecArgs args;
  for (const Step& step : steps_) {
    if (before_step) before_step();
    args.inputs.clear();
    args.outputs.clear();
    for (const auto& ref : step.inputs) args.inputs.push_back(resolve(ref));
    for (const auto& ref : step.outputs) args.outputs.push_back(resolve(ref));
    if (step.accumulate_input >= 0)
      std::memcpy(args.outputs[0], args.inputs[step.accumulate_input], step.accumulate_bytes);
    fault::Hit(fault::Site::kKernel);
    const CpuBudget::Lease lease = budget.Acquire(step.max_threads);
    args.threads = lease.threads();
    try {
      step.kernel->Execute(args);
    } catch (const dnnl::error& e) {
      throw Error(QV_ERR_INTERNAL, "node '" + step.node + "': oneDNN failed: " + e.what());
    }
  }
}

}  // namespace qv
