#include "batching/batch_runner.h"

#include "common/error.h"

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

void BatchRunner::RunLive(const std::vector<RequestPtr>& live) {
  int64_t rows = 0;
  for (const auto& r : live) rows += r->rows;
  const int64_t padded = options_.PaddedRows(rows);
  const std::vector<TensorType> types = MergedTypes(live, padded);
  CompileRowCounts(types);
  const std::shared_ptr<const Plan> plan = plans_(types);

  std::vector<StoragePool::Lease> buffers;
  std::vector<const void*> in_ptrs;
  for (size_t i = 0; i < types.size(); ++i) {
    const auto bytes = static_cast<size_t>(ByteCount(types[i].shape, DTypeSize(types[i].dtype)));
    buffers.push_back(buffers_.Borrow(bytes));
    char* const begin = static_cast<char*>(buffers.back().data());
    char* dst = begin;
    for (const auto& r : live) {
      // A request's inputs may be in host memory for an op on another device.
      if (r->inputs[i]->device() == device_)
        memory_.Copy(device_, dst, r->inputs[i]->data(), r->inputs[i]->nbytes());
      else
        memory_.CopyFromHost(device_, dst, r->inputs[i]->data(), r->inputs[i]->nbytes());
      dst += r->inputs[i]->nbytes();
    }
    memory_.SetZero(device_, dst, bytes - static_cast<size_t>(dst - begin));  // the padding rows
    in_ptrs.push_back(begin);
  }
  std::vector<void*> out_ptrs;
  for (const auto& t : plan->output_types()) {
    buffers.push_back(buffers_.Borrow(static_cast<size_t>(ByteCount(t.shape, DTypeSize(t.dtype)))));
    out_ptrs.push_back(buffers.back().data());
  }

  plan->Run(in_ptrs, out_ptrs, [&live] {
    const auto now = Request::Clock::now();
    for (const auto& r : live)
      if (r->control->Alive(now)) return;
    throw Error(Status::kCancelled, "every request of the batch was cancelled or passed its deadline");
  });

  std::vector<const char*> src;
  for (void* p : out_ptrs) src.push_back(static_cast<const char*>(p));
  for (const auto& r : live) {
    const bool deliver = r->control->Claim();
    for (size_t k = 0; k < src.size(); ++k) {
      const size_t bytes = r->outputs[k]->nbytes();
      if (deliver) memory_.Copy(device_, r->outputs[k]->data(), src[k], bytes);
      src[k] += bytes;
    }
    if (deliver) r->control->Finish({});
  }
}

void BatchRunner::Run(const std::vector<RequestPtr>& batch) {
  std::vector<RequestPtr> live;
  for (const auto& r : batch)
    if (r->control->Check().ok()) live.push_back(r);
  if (live.empty()) return;
  try {
    RunLive(live);
  } catch (...) {
    const Failure failure = FailureFromCurrentException();
    for (const auto& r : live) r->control->Finish(failure);
  }
}

}  // namespace qv
