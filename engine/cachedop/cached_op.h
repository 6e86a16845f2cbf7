// A cached op: a bound, optimised graph plus one compiled plan per input shape. Invocations are pushed
// to the dependency engine and share the parameters; each running one borrows its own workspace.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backends/backend.h"
#include "common/counted_slot.h"
#include "scheduler/invocation_control.h"
#include "batching/batch_runner.h"
#include "batching/batch_scheduler.h"
#include "batching/batching_options.h"
#include "batching/op_statistics.h"
#include "cachedop/cached_op_options.h"
#include "cachedop/input_dtypes.h"
#include "cachedop/plan_cache.h"
#include "plan/plan.h"
#include "common/device.h"
#include "common/precision.h"
#include "graph/bound_graph.h"

namespace qv {

// Per-invocation options (QvInvokeAsyncEx).
struct InvokeOptions {
  int64_t deadline_us = 0;  // > 0: microseconds from submission
  int priority = 0;         // orders the request queue
};

class CachedOp : public std::enable_shared_from_this<CachedOp> {
 public:
  static std::shared_ptr<CachedOp> Create(const Graph& graph, const std::map<std::string, NDArrayPtr>& params,
                                          const CachedOpOptions& options);

  const std::vector<std::string>& input_names() const { return graph_.input_names; }
  const std::vector<std::string>& output_names() const { return graph_.output_names; }
  // The element type each data input takes, in input_names() order.
  const std::vector<InputDType>& input_dtypes() const { return input_dtypes_; }
  // The graph the op runs: the file's after the backend's inference passes (Optimize).
  const Graph& graph() const { return graph_.graph; }
  // What the op computes in: the `precision` flag as the backend resolved it (never kAuto).
  Precision precision() const { return options_.precision; }

  // Validates inputs, finds or compiles the plan, and pushes the computation (to the request queue,
  // if the op has one). `outputs` empty: allocates them; else they must match the plan's output
  // types. Throws on bad input or Status::kBusy. The outputs' producer() cancels the invocation.
  // With buckets, a request of another length runs padded to its bucket (bucketing.h).
  void Invoke(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
              const InvokeOptions& request = {});
  // The op's handle is gone: queued requests run without waiting for others to join their batch.
  void DrainQueue();
  // What it has done since creation (QvCachedOpGetStats), with the plans it keeps and has evicted.
  struct Statistics {
    OpStatistics::Snapshot counts;
    size_t plans_cached = 0;
    uint64_t plans_evicted = 0;
  };
  Statistics statistics() const { return {statistics_.Read(), plans_.size(), plans_.evictions()}; }

 private:
  CachedOp(BoundGraph graph, std::vector<InputDType> input_dtypes, ConstantMap constants, const Backend& backend,
           CachedOpOptions options);
  std::shared_ptr<const Plan> PlanFor(const std::vector<TensorType>& types);
  // Flag data_shapes: compiles the plans invocations of these input types will use.
  void WarmUp(const std::vector<TensorType>& types);
  // `outputs` for a run returning `types`: new ones when empty, else the caller's, checked (count,
  // device, shape, dtype, no memory shared with an input). Throws naming the output.
  void PrepareOutputs(const std::vector<NDArrayPtr>& inputs, const std::vector<TensorType>& types,
                      std::vector<NDArrayPtr>* outputs) const;
  // What an unpadded run on `inputs` would return (shape inference, no plan), remembered per shapes:
  // bucketed requests ask it on every invocation.
  std::vector<TensorType> UnpaddedOutputTypes(const std::vector<TensorType>& inputs);
  // One of the max_inflight slots, or kBusy: taken before anything is compiled or allocated.
  std::unique_ptr<CountedSlot> Admit();
  // Invoke for inputs whose shapes the plan takes as they are, in the admitted `slot`.
  void InvokeExact(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
                   const InvokeOptions& request, std::unique_ptr<CountedSlot> slot);
  // Invoke padded to the request's bucket, passing `slot` on; false (nothing done, the slot kept) where
  // the inputs' length is a bucket already or no input has the bucket axis.
  bool InvokeBucketed(const std::vector<NDArrayPtr>& inputs, std::vector<NDArrayPtr>* outputs,
                      const InvokeOptions& request, std::unique_ptr<CountedSlot>& slot);
  // The compiled plan for these shapes, or null; throws for a new shape of a static_shape op.
  std::shared_ptr<const Plan> FindPlan(const std::vector<Shape>& key);
  void CheckInputs(const std::vector<NDArrayPtr>& inputs) const;

  BoundGraph graph_;
  std::vector<InputDType> input_dtypes_;
  CachedOpOptions options_;
  const Backend& backend_;
  ConstantMap constants_;  // the parameters, plain or packed by store_
  const std::map<int, TensorType> constant_types_;  // their types, which packing keeps (shape inference)
  // UnpaddedOutputTypes' answers by input shapes; emptied when full (lengths x batch sizes seen).
  static constexpr size_t kMaxUnpaddedOutputs = 1024;
  std::mutex unpadded_outputs_mu_;
  std::map<std::vector<Shape>, std::vector<TensorType>> unpadded_outputs_;
  std::unique_ptr<ConstantStore> store_;
  std::vector<int> packable_;  // parameters read only as Convolution / FullyConnected weights
  std::mutex compile_mu_;  // one compilation at a time; guards constants_ and store_
  PlanCache plans_;
  std::atomic<int> inflight_{0};
  OpStatistics statistics_;  // declared before the queue, whose requests count into it
  VarPtr serial_var_;  // written by every invocation when not thread-safe, which orders them
  std::unique_ptr<BatchRunner> batch_runner_;  // runs the scheduler's batches, if options_.batching.enabled
  std::unique_ptr<BatchScheduler> scheduler_;  // the request queue, if options_.batching.enabled
};

}  // namespace qv
