#include "batching/batch_runner.h"

#include <cstring>

#include "common/error.h"
#include "tensor/storage.h"

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

void Run(const std::vector<RequestPtr>& live, const BatchingOptions& options, const PlanSource& plans) {
  int64_t rows = 0;
  for (const auto& r : live) rows += r->rows;
  const int64_t padded = options.PaddedRows(rows);
  const std::vector<TensorType> types = MergedTypes(live, padded);
  const std::shared_ptr<const Plan> plan = plans(types);

  // Freshly allocated buffers are zero-filled, which is what the padding rows hold.
  std::vector<std::shared_ptr<Storage>> buffers;
  std::vector<const void*> in_ptrs;
  for (size_t i = 0; i < types.size(); ++i) {
    buffers.push_back(Storage::Allocate(static_cast<size_t>(ByteCount(types[i].shape, DTypeSize(types[i].dtype)))));
    char* dst = static_cast<char*>(buffers.back()->data());
    for (const auto& r : live) {
      std::memcpy(dst, r->inputs[i]->data(), r->inputs[i]->nbytes());
      dst += r->inputs[i]->nbytes();
    }
    in_ptrs.push_back(buffers.back()->data());
  }
  std::vector<void*> out_ptrs;
  for (const auto& t : plan->output_types()) {
    buffers.push_back(Storage::Allocate(static_cast<size_t>(ByteCount(t.shape, DTypeSize(t.dtype)))));
    out_ptrs.push_back(buffers.back()->data());
  }

  plan->Run(in_ptrs, out_ptrs, [&live] {
    const auto now = Request::Clock::now();
    for (const auto& r : live)
      if (r->control->Alive(now)) return;
    throw Error(QV_ERR_CANCELLED, "every request of the batch was cancelled or passed its deadline");
  });

  std::vector<const char*> src;
  for (void* p : out_ptrs) src.push_back(static_cast<const char*>(p));
  for (const auto& r : live) {
    const bool deliver = r->control->Claim();
    for (size_t k = 0; k < src.size(); ++k) {
      const size_t bytes = r->outputs[k]->nbytes();
      if (deliver) std::memcpy(r->outputs[k]->data(), src[k], bytes);
      src[k] += bytes;
    }
    if (deliver) r->control->Finish({});
  }
}

}  // namespace

void RunBatch(const std::vector<RequestPtr>& batch, const BatchingOptions& options, const PlanSource& plans) {
  std::vector<RequestPtr> live;
  for (const auto& r : batch)
    if (r->control->Check().ok()) live.push_back(r);
  if (live.empty()) return;
  try {
    Run(live, options, plans);
  } catch (...) {
    const Failure failure = FailureFromCurrentException();
    for (const auto& r : live) r->control->Finish(failure);
  }
}

}  // namespace qv
