// Runs batches of requests as one invocation (plan/invocation.h): their rows are gathered into one
// input per model input (padded with zero rows to BatchingOptions::PaddedRows), the plan for that
// shape runs once, and each request gets its own rows of every output. Requests that ended before
// the batch starts are left out; if all of them end while it runs, it stops at the next operator
// boundary. The first batch of each row shape compiles the plans of every row count a batch of that
// shape can be padded to, so that later requests never wait for a compile.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

#include "batching/batching_options.h"
#include "batching/op_statistics.h"
#include "batching/request.h"
#include "plan/plan.h"

namespace qv {

// The op's compiled plan for these input types (compiling it if needed); may throw Error.
using PlanSource = std::function<std::shared_ptr<const Plan>(const std::vector<TensorType>&)>;

class BatchRunner {
 public:
  // Requests' arrays and the plans are on `device` (inputs may be in host memory). Queue waits, run
  // times and batch sizes are counted into `statistics` (which outlives the runner).
  BatchRunner(BatchingOptions options, PlanSource plans, const Device& device, OpStatistics& statistics)
      : options_(std::move(options)), plans_(std::move(plans)), device_(device), statistics_(statistics) {}

  // Starts the batch; when its run is over `done` runs, then every request in it ends (on a
  // synchronous backend before this returns). Thread-safe; never throws: a failure ends every request of the batch that has not
  // ended with that failure.
  void Run(const std::vector<RequestPtr>& batch, std::function<void()> done);

  // Compiles the plans for `types` with axis 0 set to each row count PaddedRows can give (1, 2, 4, ...,
  // max_batch_size), once per row shape; a no-op for inputs without axis 0. Never throws: a row count
  // that fails to compile is left to fail the batches that need it.
  void CompileRowCounts(const std::vector<TensorType>& types);

 private:
  const BatchingOptions options_;
  const PlanSource plans_;
  const Device device_;
  OpStatistics& statistics_;
  std::mutex compiled_mu_;
  std::set<std::vector<std::vector<int64_t>>> compiled_rows_;  // row shapes (axis 0 dropped, dtype appended)
};

}  // namespace qv
