// Runs one batch of requests: their rows are copied into one input per model input (padded with zero
// rows to BatchingOptions::PaddedRows), the plan for that shape runs once, and each request gets its
// own rows of every output. Requests that ended meanwhile are skipped; if all of them end while the
// batch runs, it stops at the next operator boundary.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "batching/batching_options.h"
#include "batching/request.h"
#include "cachedop/plan.h"

namespace qv {

// The op's compiled plan for these input types (compiling it if needed); may throw Error.
using PlanSource = std::function<std::shared_ptr<const Plan>(const std::vector<TensorType>&)>;

// Never throws: a failure ends every request of the batch that has not ended with that failure.
void RunBatch(const std::vector<RequestPtr>& batch, const BatchingOptions& options, const PlanSource& plans);

}  // namespace qv
