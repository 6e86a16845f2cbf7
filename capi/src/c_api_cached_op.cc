// Cached ops: creation from a symbol and parameters, and asynchronous invocation.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "arguments.h"
#include "graph_description.h"
#include "cachedop/cached_op_options.h"
#include "handles.h"
#include "scheduler/invocation_control.h"

using namespace qv;

namespace {

thread_local std::vector<QvNDArrayHandle> t_outputs;  // QvInvokeAsync's runtime-allocated outputs

// QvInvokeOptions of this version or any other: fields past struct_size take their defaults, and a
// larger struct (a newer header) is accepted when the fields this version does not know are zero.
InvokeOptions ReadInvokeOptions(const QvInvokeOptions* given) {
  InvokeOptions o;
  if (given == nullptr) return o;
  const size_t v1_size = offsetof(QvInvokeOptions, priority) + sizeof(given->priority);
  // Every invocation passes here: the messages are built only when a check fails.
  if (given->struct_size < v1_size)
    throw Error(Status::kInvalidArgument, "QvInvokeOptions.struct_size is " + std::to_string(given->struct_size) +
                                             ", expected sizeof(QvInvokeOptions) (" +
                                             std::to_string(sizeof(QvInvokeOptions)) + ")");
  const auto* bytes = reinterpret_cast<const unsigned char*>(given);
  for (size_t i = sizeof(QvInvokeOptions); i < given->struct_size; ++i)
    if (bytes[i] != 0)
      throw Error(Status::kInvalidArgument, "QvInvokeOptions sets fields this library (struct_size " +
                                               std::to_string(sizeof(QvInvokeOptions)) + ") does not know");
  if (given->deadline_us < 0)
    throw Error(Status::kInvalidArgument,
                "QvInvokeOptions.deadline_us is negative (" + std::to_string(given->deadline_us) + ")");
  o.deadline_us = given->deadline_us;
  o.priority = given->priority;
  return o;
}

// QvInvokeAsync and QvInvokeAsyncEx: checks the arguments, invokes and hands out the outputs.
void Invoke(QvCachedOpHandle op, uint32_t num_inputs, QvNDArrayHandle* inputs, uint32_t* num_outputs,
            QvNDArrayHandle** outputs, const InvokeOptions& options) {
  const std::shared_ptr<QvCachedOp_> cached_op = capi::CachedOps().Get(op, "cached op");
  capi::Require(num_outputs, "num_outputs");
  capi::Require(outputs, "outputs");
  if (num_inputs > 0) capi::Require(inputs, "inputs");
  std::vector<NDArrayPtr> in;
  for (uint32_t i = 0; i < num_inputs; ++i) in.push_back(capi::ArrayOf(inputs[i], "an input array"));
  std::vector<NDArrayPtr> out;
  // The array this thread got from the previous call is the runtime's, not caller-provided outputs:
  // passing it back (reusing one `outputs` variable) asks for new outputs.
  const bool caller_outputs = *outputs != nullptr && *outputs != t_outputs.data();
  if (caller_outputs)
    for (uint32_t i = 0; i < *num_outputs; ++i) out.push_back(capi::ArrayOf((*outputs)[i], "an output array"));
  cached_op->op->Invoke(in, &out, options);
  if (caller_outputs) return;
  std::vector<QvNDArrayHandle> handles;
  for (auto& a : out) handles.push_back(capi::NewHandle(std::move(a)));
  t_outputs = std::move(handles);
  *num_outputs = static_cast<uint32_t>(t_outputs.size());
  *outputs = t_outputs.data();
}

}  // namespace

extern "C" {

int QvCreateCachedOpEx(QvSymbolHandle sym, uint32_t num_params, const char** param_names, QvNDArrayHandle* params,
                       int num_flags, const char** keys, const char** vals, QvCachedOpHandle* out, int thread_safe) {
  return capi::Guard([&] {
    const std::shared_ptr<QvSymbol_> symbol = capi::Symbols().Get(sym, "symbol");
    capi::Require(out, "out");
    const auto flags = capi::Flags(num_flags, keys, vals);
    const auto bound = capi::NamedParams(num_params, param_names, params);
    auto op = CachedOp::Create(symbol->graph, bound, CachedOpOptions::Parse(flags, thread_safe != 0));
    auto h = std::make_shared<QvCachedOp_>();
    h->op = std::move(op);
    h->inputs = capi::NameList(h->op->input_names());
    h->outputs = capi::NameList(h->op->output_names());
    h->description = capi::DescribeGraph(h->op->graph());
    *out = capi::CachedOps().Add(std::move(h));
  });
}

int QvCachedOpListInputs(QvCachedOpHandle op, uint32_t* n, const char*** names) {
  return capi::Guard([&] {
    capi::CachedOps().Get(op, "cached op")->inputs.Publish(n, names);
  });
}

int QvCachedOpListOutputs(QvCachedOpHandle op, uint32_t* n, const char*** names) {
  return capi::Guard([&] {
    capi::CachedOps().Get(op, "cached op")->outputs.Publish(n, names);
  });
}

int QvCachedOpGetInputDType(QvCachedOpHandle op, uint32_t index, int* dtype) {
  return capi::Guard([&] {
    capi::Require(dtype, "dtype");
    const auto& types = capi::CachedOps().Get(op, "cached op")->op->input_dtypes();
    Check(index < types.size(), Status::kInvalidArgument,
          "input index " + std::to_string(index) + " is out of range: the op has " + std::to_string(types.size()) +
              " data inputs");
    *dtype = static_cast<int>(types[index].dtype);
  });
}

int QvCachedOpDescribe(QvCachedOpHandle op, const char** json) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    *json = capi::CachedOps().Get(op, "cached op")->description.c_str();
  });
}

int QvListCachedOpFlags(const char** json) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    static const std::string text = [] {
      nlohmann::json flags = nlohmann::json::array();
      for (const qv::CachedOpFlag& f : qv::CachedOpFlags())
        flags.push_back({{"name", f.name}, {"default", f.default_value}, {"help", f.help}});
      return flags.dump();
    }();
    *json = text.c_str();
  });
}

int QvCachedOpGetStats(QvCachedOpHandle op, const char** json) {
  return capi::Guard([&] {
    capi::Require(json, "json");
    const CachedOp::Statistics s = capi::CachedOps().Get(op, "cached op")->op->statistics();
    const OpStatistics::Snapshot& c = s.counts;
    nlohmann::json sizes = nlohmann::json::object();
    for (const auto& [rows, batches] : c.batch_sizes) sizes[std::to_string(rows)] = batches;
    const nlohmann::json stats = {
        {"requests",
         {{"admitted", c.admitted},
          {"rejected_busy", c.rejected_busy},
          {"completed", c.completed},
          {"failed", c.failed},
          {"cancelled", c.cancelled},
          {"deadline_exceeded", c.deadline_exceeded}}},
        {"queue_wait_us",
         {{"count", c.queue_wait_count}, {"p50", c.queue_wait_p50_us}, {"p90", c.queue_wait_p90_us},
          {"p99", c.queue_wait_p99_us}}},
        {"run_us", {{"count", c.run_count}, {"p50", c.run_p50_us}, {"p90", c.run_p90_us}, {"p99", c.run_p99_us}}},
        {"batches", {{"count", c.batches}, {"rows", c.batch_rows}, {"padding_rows", c.padding_rows}, {"sizes", sizes},
          {"oversize", c.oversize_batches}}},
        {"plans", {{"compiled", c.plans_compiled}, {"cached", s.plans_cached}, {"evicted", s.plans_evicted}}}};
    thread_local std::string text;
    text = stats.dump();
    *json = text.c_str();
  });
}

int QvCachedOpGetPrecision(QvCachedOpHandle op, const char** precision) {
  return capi::Guard([&] {
    capi::Require(precision, "precision");
    *precision = PrecisionName(capi::CachedOps().Get(op, "cached op")->op->precision());
  });
}

int QvInvokeAsync(QvCachedOpHandle op, uint32_t num_inputs, QvNDArrayHandle* inputs, uint32_t* num_outputs,
                  QvNDArrayHandle** outputs) {
  return capi::Guard([&] { Invoke(op, num_inputs, inputs, num_outputs, outputs, InvokeOptions()); });
}

int QvInvokeAsyncEx(QvCachedOpHandle op, uint32_t num_inputs, QvNDArrayHandle* inputs, uint32_t* num_outputs,
                    QvNDArrayHandle** outputs, const QvInvokeOptions* options) {
  return capi::Guard([&] { Invoke(op, num_inputs, inputs, num_outputs, outputs, ReadInvokeOptions(options)); });
}

int QvCancel(QvNDArrayHandle output, int* cancelled) {
  return capi::Guard([&] {
    const std::shared_ptr<InvocationControl> control = capi::ArrayOf(output, "output")->producer();
    const bool took_effect = control != nullptr && control->Cancel();
    if (cancelled != nullptr) *cancelled = took_effect ? 1 : 0;
  });
}

int QvFreeCachedOp(QvCachedOpHandle op) {
  return capi::Guard([&] {
    const std::shared_ptr<QvCachedOp_> cached_op = capi::CachedOps().Get(op, "cached op");
    capi::CachedOps().Free(op, "cached op");  // refuses a second free before anything is drained
    cached_op->op->DrainQueue();
  });
}

}  // extern "C"
