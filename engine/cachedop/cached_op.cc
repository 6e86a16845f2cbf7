#include "cachedop/cached_op.h"

#include <algorithm>

#include "common/counted_slot.h"
#include "common/error.h"
#include "graph/graph_check.h"
#include "graph/mxnet_subgraphs.h"
#include "graph/output_types.h"
#include "ops/int8_hints.h"
#include "ops/op.h"
#include "plan/invocation.h"
#include "scheduler/invocation_control.h"

namespace qv {
namespace {

// Parameters that kernels read only in their own layouts (OpDef::PackedInputs), when nothing else
// reads them.
std::vector<int> PackableParameters(const BoundGraph& g, const ConstantMap& constants) {
  std::map<int, bool> packable;
  for (const auto& [id, constant] : constants) packable[id] = true;
  for (int id : TopologicalOrder(g.graph)) {
    const Node& node = g.graph.nodes[id];
    if (node.is_variable()) continue;
    const std::vector<int> packed = FindOp(node.op)->PackedInputs(AttrsOf(node));
    for (size_t slot = 0; slot < node.inputs.size(); ++slot)
      if (std::find(packed.begin(), packed.end(), static_cast<int>(slot)) == packed.end())
        packable[node.inputs[slot].node] = false;
  }
  for (const NodeEntry& out : g.graph.outputs) packable[out.node] = false;
  std::vector<int> ids;
  for (const auto& [id, ok] : packable)
    if (ok && constants.count(id)) ids.push_back(id);
  return ids;
}

// One admitted invocation: returns its slot when released, whether the work ran or was skipped.
using InflightSlot = CountedSlot;

// The precision the op runs: int8 needs a model that says how to quantize (MXNet's int8 models, or
// quiver.calibrate's output), which `auto` then picks where the device has int8 arithmetic.
Precision ResolveModelPrecision(const Graph& graph, const Backend& backend, const CachedOpOptions& options) {
  const bool calibrated = CountInt8Nodes(graph) > 0;
  if (options.precision == Precision::kInt8)
    Check(calibrated, Status::kInvalidArgument,
          "precision 'int8' needs a model with int8 calibration (an MXNet quantize_net export, or "
          "quiver.calibrate's output); this one has none");
  if (options.precision == Precision::kAuto && calibrated) {
    try {
      return backend.ResolvePrecision(Precision::kInt8, options.device);
    } catch (const Error& e) {
      if (e.status() != Status::kUnsupported) throw;
    }
  }
  return backend.ResolvePrecision(options.precision, options.device);
}

// An int8 node's output range is that of everything MXNet fused after it: graph passes must have
// fused the same operators.
void CheckInt8Fusions(const Graph& graph) {
  for (int id : TopologicalOrder(graph)) {
    const Node& node = graph.nodes[id];
    if (node.is_variable()) continue;
    const Int8Hints hints = Int8Hints::Parse(AttrsOf(node));
    Check(!hints.present || static_cast<int>(node.fused.size()) == hints.fused_ops, Status::kUnsupported,
          "node '" + node.name + "': MXNet fused " + std::to_string(hints.fused_ops) +
              " operators into this int8 node, Quiver " + std::to_string(node.fused.size()) +
              "; its int8 output range would not apply");
  }
}

std::map<int, TensorType> TypesOf(const ConstantMap& constants) {
  std::map<int, TensorType> types;
  for (const auto& [id, constant] : constants) types[id] = constant->type();
  return types;
}

// `array`'s elements in host memory: itself on the CPU, else a copy (bucketing pads and cuts there).
std::shared_ptr<const void> HostBytes(const NDArrayPtr& array) {
  if (array->device().type == DeviceType::kCpu) return std::shared_ptr<const void>(array, array->data());
  auto copy = std::shared_ptr<char[]>(new char[array->nbytes()]);
  array->CopyToHost(copy.get(), array->nbytes());
  return std::shared_ptr<const void>(copy, copy.get());
}

// Writes `from`'s block shared with `to` (bucketing.h) into `to`, on any device.
void CopyBlockInto(const NDArrayPtr& from, const NDArrayPtr& to) {
  const std::shared_ptr<const void> source = HostBytes(from);
  const size_t element = DTypeSize(to->dtype());
  if (to->device().type == DeviceType::kCpu) {
    CopySharedBlock(source.get(), from->shape(), to->data(), to->shape(), element);
    return;
  }
  std::vector<char> staged(to->nbytes());
  CopySharedBlock(source.get(), from->shape(), staged.data(), to->shape(), element);
  to->CopyFromHost(staged.data(), staged.size());
}

}  // namespace

CachedOp::CachedOp(BoundGraph graph, std::vector<InputDType> input_dtypes, ConstantMap constants,
                   const Backend& backend, CachedOpOptions options)
    : graph_(std::move(graph)),
      input_dtypes_(std::move(input_dtypes)),
      options_(std::move(options)),
      backend_(backend),
      constants_(std::move(constants)),
      constant_types_(TypesOf(constants_)),
      store_(backend.NewConstantStore()),
      packable_(PackableParameters(graph_, constants_)),
      plans_(options_.max_plans),
      serial_var_(Engine::Get().NewVar()) {
  if (!options_.batching.enabled) return;
  // Batches hold requests, which hold the op: `this` outlives every run.
  batch_runner_ = std::make_unique<BatchRunner>(
      options_.batching, [this](const std::vector<TensorType>& types) { return PlanFor(types); }, options_.device,
      statistics_);
  scheduler_ = std::make_unique<BatchScheduler>(
      options_.batching,
      [this](const std::vector<RequestPtr>& batch, std::function<void()> done) {
        batch_runner_->Run(batch, std::move(done));
      },
      options_.thread_safe ? nullptr : serial_var_, backend_.completes_asynchronously(), statistics_);
}

std::shared_ptr<CachedOp> CachedOp::Create(const Graph& graph, const std::map<std::string, NDArrayPtr>& file_params,
                                           const CachedOpOptions& options) {
  std::map<std::string, NDArrayPtr> params = file_params;
  DequantizeInt8Params(graph, params);
  CheckGraphOperators(graph);
  const Backend& backend = FindBackend(options.device);
  CachedOpOptions resolved = options;
  resolved.precision = ResolveModelPrecision(graph, backend, options);
  BoundGraph bound = BindParameters(graph, params);
  std::vector<InputDType> input_dtypes = ResolveInputDTypes(bound, options.data_types);
  RecordInputDTypes(bound, input_dtypes);  // integer inputs start integer tensors for the graph passes
  Optimize(bound, backend.fusions());
  if (resolved.precision == Precision::kInt8) CheckInt8Fusions(bound.graph);
  for (int id : TopologicalOrder(bound.graph)) {
    const Node& node = bound.graph.nodes[id];
    Check(node.is_variable() || backend.Supports(node.op), Status::kUnsupported,
          "node '" + node.name + "': operator '" + node.op + "' has no kernel on " + options.device.ToString());
  }
  for (const auto& [name, shape] : options.data_shapes) {
    bool known = false;
    for (const auto& input : bound.input_names) known = known || input == name;
    Check(known, Status::kNotFound, "flag 'data_shapes' names '" + name + "', which is not a data input");
  }
  // From here on the op holds its parameters as constants, which backends may pack.
  ConstantMap constants;
  for (const auto& [id, array] : bound.constants) constants[id] = std::make_shared<const Constant>(array);
  bound.constants.clear();
  auto op = std::shared_ptr<CachedOp>(
      new CachedOp(std::move(bound), std::move(input_dtypes), std::move(constants), backend, resolved));
  if (!options.data_shapes.empty()) {
    std::vector<TensorType> types;
    for (const auto& name : op->input_names()) {
      auto it = options.data_shapes.find(name);
      Check(it != options.data_shapes.end(), Status::kInvalidArgument, "flag 'data_shapes' lacks input '" + name + "'");
      for (int64_t d : it->second)
        Check(d > 0, Status::kShape, "flag 'data_shapes': input '" + name + "' has an empty dimension in " +
                                       ShapeToString(it->second));
      types.push_back({it->second, op->input_dtypes_[types.size()].dtype});
    }
    op->WarmUp(types);
  }
  return op;
}

void CachedOp::WarmUp(const std::vector<TensorType>& types) {
  // With buckets, the plans requests of any length use: one per bucket.
  const auto axis = static_cast<size_t>(options_.buckets.axis);
  const bool bucketed =
      std::any_of(types.begin(), types.end(), [&](const TensorType& t) { return t.shape.size() > axis; });
  std::vector<std::vector<TensorType>> variants;
  for (int64_t bucket : bucketed ? options_.buckets.lengths : std::vector<int64_t>{}) {
    variants.push_back(types);
    for (auto& t : variants.back())
      if (t.shape.size() > axis) t.shape[axis] = bucket;
  }
  if (variants.empty()) variants.push_back(types);
  for (const auto& compiled : variants) {
    PlanFor(compiled);
    // Every batch size the request queue can form, so that no request waits for a compile.
    if (batch_runner_) batch_runner_->CompileRowCounts(compiled);
  }
}

std::shared_ptr<const Plan> CachedOp::FindPlan(const std::vector<Shape>& key) {
  if (auto plan = plans_.Find(key)) return plan;
  const auto compiled = plans_.AnyKey();
  if (options_.static_shape && compiled) {
    std::string expected, got;
    for (const auto& s : *compiled) expected += ShapeToString(s) + " ";
    for (const auto& s : key) got += ShapeToString(s) + " ";
    throw Error(Status::kShape, "static_shape op was compiled for input shapes " + expected + "and cannot take " + got);
  }
  return nullptr;
}

std::shared_ptr<const Plan> CachedOp::PlanFor(const std::vector<TensorType>& types) {
  std::vector<Shape> key;
  for (const auto& t : types) key.push_back(t.shape);
  if (auto plan = FindPlan(key)) return plan;
  // Compiling takes a while: invocations whose plan exists go on meanwhile; compilations queue.
  std::lock_guard<std::mutex> compiling(compile_mu_);
  if (auto plan = FindPlan(key)) return plan;
  std::shared_ptr<const Plan> plan = Plan::Compile(graph_, constants_, types, backend_, options_.device,
                                                    options_.precision, *store_, options_.backend.step_recording);
  plans_.Insert(key, plan);
  statistics_.PlanCompiled();
  // Keep each weight once: in the layout its kernel reads, not also as the plain copy.
  for (int id : packable_) constants_[id] = store_->Repack(constants_[id]);
  return plan;
}

void CachedOp::CheckInputs(const std::vector<NDArrayPtr>& inputs) const {
  Check(inputs.size() == input_names().size(), Status::kInvalidArgument,
        "expected " + std::to_string(input_names().size()) + " inputs, got " + std::to_string(inputs.size()));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NDArray& a = *inputs[i];
    const std::string what = "input '" + input_names()[i] + "'";
    CheckInputDType(input_names()[i], a.dtype(), input_dtypes_[i]);
    // Host inputs of an op on another device are staged onto it by the invocation (Plan::RunAsync).
    const bool stages_host_inputs = options_.device.type != DeviceType::kCpu;
    Check(a.device() == options_.device || a.device().type == DeviceType::kCpu, Status::kDevice,
          what + " is on " + a.device().ToString() + ", expected " + options_.device.ToString() +
              (stages_host_inputs ? " or the CPU" : ""));
    for (int64_t d : a.shape())
      Check(d > 0, Status::kShape, what + " has shape " + ShapeToString(a.shape()) + " with an empty dimension");
  }
}

void CachedOp::DrainQueue() {
  if (scheduler_) scheduler_->Drain();
}

void CachedOp::Invoke(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
                      const InvokeOptions& request) {
  CheckInputs(inputs);
  std::unique_ptr<InflightSlot> slot = Admit();
  if (options_.buckets.enabled() && InvokeBucketed(inputs, outputs, request, slot)) return;
  InvokeExact(inputs, outputs, request, std::move(slot));
}

std::unique_ptr<InflightSlot> CachedOp::Admit() {
  std::unique_ptr<InflightSlot> slot = CountedSlot::TryTake(&inflight_, options_.max_inflight);
  if (!slot) {
    statistics_.RejectedBusy();
    throw Error(Status::kBusy, "max_inflight (" + std::to_string(options_.max_inflight) +
                                 ") invocations are already in flight");
  }
  return slot;
}

void CachedOp::PrepareOutputs(const std::vector<NDArrayPtr>& inputs, const std::vector<TensorType>& types,
                              std::vector<NDArrayPtr>* outputs) const {
  if (outputs->empty()) {
    // The run writes every output in full: a GPU need not zero-fill them (and wait for that) first.
    for (const auto& t : types) outputs->push_back(NDArray::CreateUninitialized(t.shape, t.dtype, options_.device));
    return;
  }
  Check(outputs->size() == types.size(), Status::kInvalidArgument,
        "expected " + std::to_string(types.size()) + " outputs, got " + std::to_string(outputs->size()));
  for (size_t k = 0; k < types.size(); ++k) {
    const NDArray& o = *(*outputs)[k];
    Check(o.device() == options_.device, Status::kDevice,
          "output '" + output_names()[k] + "' is on " + o.device().ToString() + ", expected " +
              options_.device.ToString());
    Check(o.shape() == types[k].shape && o.dtype() == types[k].dtype, Status::kShape,
          "output '" + output_names()[k] + "' is " + ShapeToString(o.shape()) + " " + DTypeName(o.dtype()) +
              ", expected " + ShapeToString(types[k].shape) + " " + DTypeName(types[k].dtype));
    for (const auto& in : inputs)
      Check(in->storage() != o.storage(), Status::kInvalidArgument,
            "output '" + output_names()[k] + "' shares memory with an input");
  }
}

std::vector<TensorType> CachedOp::UnpaddedOutputTypes(const std::vector<TensorType>& inputs) {
  std::vector<Shape> key;
  for (const auto& t : inputs) key.push_back(t.shape);
  std::lock_guard<std::mutex> lock(unpadded_outputs_mu_);
  auto it = unpadded_outputs_.find(key);
  if (it == unpadded_outputs_.end()) {
    if (unpadded_outputs_.size() >= kMaxUnpaddedOutputs) unpadded_outputs_.clear();
    it = unpadded_outputs_.emplace(key, InferOutputTypes(graph_, constant_types_, inputs)).first;
  }
  return it->second;
}

bool CachedOp::InvokeBucketed(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
                              const InvokeOptions& request, std::unique_ptr<InflightSlot>& slot) {
  const auto axis = static_cast<size_t>(options_.buckets.axis);
  int64_t length = -1;
  size_t first = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Shape& s = inputs[i]->shape();
    if (s.size() <= axis) continue;
    if (length < 0) {
      length = s[axis];
      first = i;
    }
    Check(s[axis] == length, Status::kShape,
          "bucketing pads axis " + std::to_string(axis) + " of every input that has it: input '" +
              input_names()[first] + "' has length " + std::to_string(length) + " there, input '" +
              input_names()[i] + "' " + std::to_string(s[axis]));
  }
  if (length < 0) return false;
  const int64_t bucket = options_.buckets.BucketFor(length, "input '" + input_names()[first] + "'");
  if (bucket == length) return false;

  // The bucket's plan first: it refuses shapes the device cannot hold before anything is allocated.
  std::vector<TensorType> real_inputs, bucket_inputs;
  for (const auto& a : inputs) real_inputs.push_back({a->shape(), a->dtype()});
  bucket_inputs = real_inputs;
  for (auto& t : bucket_inputs)
    if (t.shape.size() > axis) t.shape[axis] = bucket;
  const std::shared_ptr<const Plan> bucket_plan = PlanFor(bucket_inputs);
  const std::vector<TensorType>& bucket_output_types = bucket_plan->output_types();
  // What the unpadded run would return: the caller's outputs, each the leading block of the padded run's.
  std::vector<TensorType> real_outputs = UnpaddedOutputTypes(real_inputs);
  for (size_t k = 0; k < real_outputs.size(); ++k) {
    const Shape& padded = bucket_output_types[k].shape;
    real_outputs[k].dtype = bucket_output_types[k].dtype;
    bool inside = real_outputs[k].shape.size() == padded.size();
    for (size_t d = 0; inside && d < padded.size(); ++d) inside = real_outputs[k].shape[d] <= padded[d];
    Check(inside, Status::kShape,
          "bucketing cannot cut output '" + output_names()[k] + "' of the padded run, " + ShapeToString(padded) +
              ", down to the unpadded run's " + ShapeToString(real_outputs[k].shape));
  }
  PrepareOutputs(inputs, real_outputs, outputs);

  // The padded inputs live in host memory (a GPU op stages them like any host input), zero beyond
  // the request's length; an engine operation fills them once the inputs are readable.
  std::vector<NDArrayPtr> padded;
  std::vector<VarPtr> reads, writes;
  for (const auto& a : inputs) {
    if (a->shape().size() <= axis) {
      padded.push_back(a);
      continue;
    }
    Shape shape = a->shape();
    shape[axis] = bucket;
    padded.push_back(NDArray::Create(shape, a->dtype()));
    reads.push_back(a->var());
    writes.push_back(padded.back()->var());
  }
  Engine::Get().Push(
      [inputs, padded] {
        for (size_t i = 0; i < inputs.size(); ++i)
          if (padded[i] != inputs[i]) CopyBlockInto(inputs[i], padded[i]);
      },
      reads, writes);
  std::vector<NDArrayPtr> bucket_outputs;
  InvokeExact(padded, &bucket_outputs, request, std::move(slot));
  // The caller's outputs: the bucket run's, cut to the real shapes once it has ended (its failure,
  // cancellation included, passes to them through the engine).
  reads.clear();
  writes.clear();
  for (const auto& a : bucket_outputs) reads.push_back(a->var());
  for (const auto& a : *outputs) writes.push_back(a->var());
  Engine::Get().Push(
      [bucket_outputs, cut = *outputs] {
        for (size_t k = 0; k < cut.size(); ++k) CopyBlockInto(bucket_outputs[k], cut[k]);
      },
      reads, writes);
  for (const auto& a : *outputs) a->set_producer(bucket_outputs.front()->producer());
  return true;
}

void CachedOp::InvokeExact(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
                           const InvokeOptions& request, std::unique_ptr<InflightSlot> slot) {
  auto control = std::make_shared<InvocationControl>(request.deadline_us);  // the deadline counts from here
  std::vector<TensorType> types;
  for (const auto& a : inputs) types.push_back({a->shape(), a->dtype()});
  std::shared_ptr<const Plan> plan = PlanFor(types);
  const auto& out_types = plan->output_types();

  PrepareOutputs(inputs, out_types, outputs);

  if (scheduler_) {
    RequestPtr r = NewRequest(inputs, *outputs, input_names(), output_names(), out_types,
                              options_.batching.max_batch_size > 1);
    r->priority = request.priority;
    r->control = control;
    r->keepalive = shared_from_this();
    r->admission = std::shared_ptr<InflightSlot>(std::move(slot));
    try {
      scheduler_->Submit(std::move(r));
    } catch (const Error& e) {
      if (e.status() == Status::kBusy) statistics_.RejectedBusy();
      throw;
    }
    statistics_.Admitted();
    for (const auto& a : *outputs) a->set_producer(control);
    return;
  }

  std::vector<VarPtr> reads, writes;
  for (const auto& a : inputs) reads.push_back(a->var());
  for (const auto& a : *outputs) writes.push_back(a->var());
  if (!options_.thread_safe) writes.push_back(serial_var_);
  // The work holds the op (its parameters and plans), the plan and every array until the run is over.
  statistics_.Admitted();
  PushInvocationWork(
      backend_.completes_asynchronously(),
      [self = shared_from_this(), plan, request = InvocationRequest{inputs, *outputs, control, nullptr},
       slot = std::shared_ptr<InflightSlot>(std::move(slot))](const Engine::Completion& done) mutable {
        // The slot is free again before the outputs become readable, so a caller who waited for them
        // can submit at once.
        request.end = [slot = std::move(slot), done, self, started = InvocationControl::Clock::now()](
                          const Failure& ended) mutable {
          slot.reset();
          self->statistics_.Ran(InvocationControl::Clock::now() - started);
          self->statistics_.Ended(ended);
          done(ended);
        };
        StartInvocation(std::move(plan), self->options_.device, {std::move(request)}, [self] {});
      },
      reads, writes);
  for (const auto& a : *outputs) a->set_producer(control);
}

}  // namespace qv
