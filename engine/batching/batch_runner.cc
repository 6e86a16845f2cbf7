#include "batching/batch_runner.h"

#include "common/error.h"
#include "common/profiler.h"
#include "plan/invocation.h"

namespace qv {
namespace {

// The merged input types: each request's shapes with axis 0 set to `rows` (a request alone keeps
// its own shapes, which may have no axis 0).
std::vector<TensorType> MergedTypes(const std::vector<RequestPtr>& live, int64_t rows) {
  std::vector<TensorType> types;
  for (const auto& input : live.front()->inputs) {
    Shape shape = input->shape();
    if (live.size() > 1 || rows != live.front()->rows) shape[0] = rows;
    types.push_back({shape, input->dtype()});
  }
  return types;
}

}  // namespace

void BatchRunner::CompileRowCounts(const std::vector<TensorType>& types) {
  std::vector<std::vector<int64_t>> key;
  for (const auto& t : types) {
    if (t.shape.empty()) return;
    key.emplace_back(t.shape.begin() + 1, t.shape.end());
    key.back().push_back(static_cast<int64_t>(t.dtype));
  }
  {
    std::lock_guard<std::mutex> lock(compiled_mu_);
    if (!compiled_rows_.insert(key).second) return;
  }
  std::set<int64_t> counts;
  for (int64_t rows = 1; rows <= options_.max_batch_size; ++rows) counts.insert(options_.PaddedRows(rows));
  std::vector<TensorType> padded = types;
  for (int64_t rows : counts) {
    for (auto& t : padded) t.shape[0] = rows;
    try {
      plans_(padded);
    } catch (const Error&) {
      // Ahead of need: a row count that cannot compile fails the batches that need it, with this error.
    }
  }
}

void BatchRunner::Run(const std::vector<RequestPtr>& batch, std::function<void()> done) {
  // The batch runs from here: each live request's end is reported by the invocation, once it is over.
  const auto started = Request::Clock::now();
  std::vector<RequestPtr> live;
  std::vector<InvocationRequest> requests;
  for (const auto& r : batch) {
    InvocationControl::Finisher end;
    if (!r->control->Check().ok() || !r->control->TakeFinisher(&end)) continue;
    live.push_back(r);
    requests.push_back({r->inputs, r->outputs, r->control, std::move(end)});
    statistics_.QueueWaited(started - r->arrived);
    if (profiler::Enabled())
      profiler::Record(
          {profiler::QueueLabel(), r->arrived, started - r->arrived, profiler::ThreadNumber(), r->priority});
  }
  if (live.empty()) {
    done();
    return;
  }
  std::shared_ptr<const Plan> plan;
  try {
    int64_t rows = 0;
    for (const auto& r : live) rows += r->rows;
    const int64_t padded = options_.PaddedRows(rows);
    const std::vector<TensorType> types = MergedTypes(live, padded);
    CompileRowCounts(types);
    plan = plans_(types);
    statistics_.Batched(rows, padded, options_.max_batch_size);
  } catch (...) {
    done();
    EndInvocation(requests, FailureFromCurrentException());
    return;
  }
  // The requests hold their op, whose parameters the plan reads, until the run is over.
  StartInvocation(std::move(plan), device_, std::move(requests), [this, live, started, done = std::move(done)] {
    statistics_.Ran(Request::Clock::now() - started);
    done();
  });
}

}  // namespace qv
