#include "backends/cpu/kernels/dnnl_kernel.h"

#include <oneapi/dnnl/dnnl_threadpool.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

#include "common/error.h"
#include "backends/cpu/runtime/compute_pool.h"
#include "backends/cpu/runtime/thread_buffer.h"
#include "tensor/huge_pages.h"
#include "tensor/memory_stats.h"

namespace qv::cpu {
namespace {

// oneDNN's parallel loops, run on the compute pool as wide as this thread's current kernel may go.
class PoolThreads : public dnnl::threadpool_interop::threadpool_iface {
 public:
  int get_num_threads() const override { return threads; }
  bool get_in_parallel() const override { return ComputePool::InParallel(); }
  void parallel_for(int n, const std::function<void(int, int)>& task) override {
    ComputePool::Get().Run(threads, n, task);
  }
  uint64_t get_flags() const override { return 0; }  // synchronous: parallel_for returns when done

  int threads = 1;
};

// One scratchpad per thread, grown to the largest any kernel asked for on it.
thread_local ThreadBuffer t_scratchpad;
// Where kPackedInput arguments are reordered to, for the primitive that runs right after.
thread_local ThreadBuffer t_packed;

// This thread's stream, its loops `threads` wide. Deliberately never destroyed: worker threads live
// until the process exits.
dnnl::stream& ThreadStream(int threads) {
  thread_local PoolThreads* pool = nullptr;
  thread_local dnnl::stream* stream = nullptr;
  if (!stream) {
    pool = new PoolThreads;
    stream = new dnnl::stream(dnnl::threadpool_interop::make_stream(CpuEngine(), pool));
  }
  pool->threads = threads;
  return *stream;
}

}  // namespace

dnnl::engine& CpuEngine() {
  static auto* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::memory::dims ToDims(const Shape& shape) {
  if (shape.empty()) return {1};
  return dnnl::memory::dims(shape.begin(), shape.end());
}

Desc PlainDesc(const Shape& shape, dnnl::memory::data_type type) {
  const auto dims = ToDims(shape);
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return Desc(dims, type, strides);
}

KernelBuild PlainIO(const KernelRequest& req) {
  KernelBuild build;
  for (size_t i = 0; i < req.inputs.size(); ++i)
    AddRuntimeInput(build, static_cast<int>(i), PlainDesc(req.inputs[i].type.shape));
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  return build;
}

double MultiplyAddFlops(const Shape& output, const Shape& weight) {
  return 2.0 * static_cast<double>(ElementCount(output)) * static_cast<double>(ElementCount(weight)) /
         static_cast<double>(std::max<int64_t>(weight[0], 1));
}

dnnl::primitive_attr BaseAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

bool IsReferenceImpl(const dnnl::primitive_desc_base& pd) {
  return std::string(pd.impl_info_str()).rfind("ref", 0) == 0;
}

void AppendPostOp(dnnl::post_ops& ops, const PostOp& op, float sum_scale, dnnl::memory::data_type sum_type) {
  switch (op.kind) {
    case PostOp::kRelu: ops.append_eltwise(dnnl::algorithm::eltwise_relu, 0.f, 0.f); return;
    case PostOp::kLeakyRelu: ops.append_eltwise(dnnl::algorithm::eltwise_relu, op.alpha, 0.f); return;
    case PostOp::kClip: ops.append_eltwise(dnnl::algorithm::eltwise_clip, op.alpha, op.beta); return;
    case PostOp::kGelu: ops.append_eltwise(dnnl::algorithm::eltwise_gelu_erf, 0.f, 0.f); return;
    case PostOp::kSum: ops.append_sum(sum_scale, 0, sum_type); return;
  }
}

void SetComputeThreads(int threads) { dnnl_threadpool_interop_set_max_concurrency(threads); }

int ComputeThreads() {
  int threads = 1;
  dnnl_threadpool_interop_get_max_concurrency(&threads);
  return threads;
}

std::shared_ptr<void> AllocateConstant(size_t bytes) {
  const size_t rounded = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  void* p = AllocateLarge(rounded);
  if (!p) throw Error(Status::kOutOfMemory, "cannot allocate " + std::to_string(bytes) + " bytes for parameters");
  memory_stats::AddBytes(static_cast<int64_t>(rounded));
  return std::shared_ptr<void>(p, [rounded](void* q) {
    std::free(q);
    memory_stats::RemoveBytes(static_cast<int64_t>(rounded));
  });
}

std::shared_ptr<void> ReorderConstant(const void* data, const Desc& from, const Desc& to) {
  auto out = AllocateConstant(to.get_size());
  dnnl::memory src(from, CpuEngine(), const_cast<void*>(data));
  dnnl::memory dst(to, CpuEngine(), out.get());
  // Plans are compiled on the caller's thread, which may be short-lived: a stream of its own for the
  // call, on the compute pool with the compile-time thread count (the whole budget).
  PoolThreads pool;
  pool.threads = ComputeThreads();
  dnnl::stream stream = dnnl::threadpool_interop::make_stream(CpuEngine(), &pool);
  dnnl::reorder(src, dst).execute(stream, src, dst);
  stream.wait();
  return out;
}

DnnlKernel::DnnlKernel(const dnnl::primitive_desc_base& pd, std::unordered_map<int, ArgSource> args,
                       std::vector<ScaleWrite> scale_writes)
    : args_(std::move(args)),
      scale_writes_(std::move(scale_writes)),
      primitive_(pd.get()),
      scratchpad_(pd.scratchpad_desc()),
      implementation_(pd.impl_info_str()) {
  for (const auto& [id, source] : args_) {
    if (source.kind != ArgSource::kPackedInput) continue;
    const dnnl::reorder::primitive_desc reorder(CpuEngine(), source.from, CpuEngine(), source.desc, BaseAttr());
    packings_.push_back({id, dnnl::reorder(reorder), reorder.scratchpad_desc(), packed_bytes_});
    packed_bytes_ += (source.desc.get_size() + 63) / 64 * 64;
  }
}

std::unique_ptr<DnnlKernel::RunMemories> DnnlKernel::TakeMemories() const {
  {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (!pool_.empty()) {
      std::unique_ptr<RunMemories> run = std::move(pool_.back());
      pool_.pop_back();
      return run;
    }
  }
  // A new set: every memory without a buffer yet (Execute sets each one before the primitive runs).
  auto run = std::make_unique<RunMemories>();
  const auto unset = [](const Desc& desc) { return dnnl::memory(desc, CpuEngine(), nullptr); };
  for (const auto& [id, source] : args_) run->args.emplace(id, unset(source.desc));
  if (scratchpad_.get_size() > 0) run->args.emplace(DNNL_ARG_SCRATCHPAD, unset(scratchpad_));
  for (const Packing& p : packings_) {
    const ArgSource& source = args_.at(p.arg);
    std::unordered_map<int, dnnl::memory> reorder = {{DNNL_ARG_FROM, unset(source.from)},
                                                     {DNNL_ARG_TO, unset(source.desc)}};
    if (p.scratchpad.get_size() > 0) reorder.emplace(DNNL_ARG_SCRATCHPAD, unset(p.scratchpad));
    run->packings.push_back(std::move(reorder));
  }
  return run;
}

void DnnlKernel::Execute(const ExecArgs& exec) const {
  for (const ScaleWrite& w : scale_writes_) {
    float value = w.value;
    if (w.from_input >= 0) std::memcpy(&value, static_cast<const char*>(exec.inputs[w.from_input]) + w.from_offset, sizeof value);
    std::memcpy(static_cast<char*>(exec.outputs[w.output]) + w.offset, &value, sizeof value);
  }
  dnnl::stream& stream = ThreadStream(exec.threads);
  std::unique_ptr<RunMemories> run = TakeMemories();
  char* packed = packings_.empty() ? nullptr : static_cast<char*>(t_packed.Get(packed_bytes_));
  for (size_t i = 0; i < packings_.size(); ++i) {
    const Packing& p = packings_[i];
    std::unordered_map<int, dnnl::memory>& reorder = run->packings[i];
    reorder.at(DNNL_ARG_FROM).set_data_handle(exec.inputs[args_.at(p.arg).index]);
    reorder.at(DNNL_ARG_TO).set_data_handle(packed + p.offset);
    if (p.scratchpad.get_size() > 0)
      reorder.at(DNNL_ARG_SCRATCHPAD).set_data_handle(t_scratchpad.Get(p.scratchpad.get_size()));
    p.reorder.execute(stream, reorder);
    run->args.at(p.arg).set_data_handle(packed + p.offset);
  }
  for (const auto& [id, source] : args_) {
    void* ptr = nullptr;
    switch (source.kind) {
      case ArgSource::kInput: ptr = static_cast<char*>(exec.inputs[source.index]) + source.offset; break;
      case ArgSource::kOutput: ptr = static_cast<char*>(exec.outputs[source.index]) + source.offset; break;
      case ArgSource::kConstant: ptr = source.constant.get(); break;
      case ArgSource::kInputScale: ptr = static_cast<char*>(exec.inputs[source.index]) + source.offset; break;
      case ArgSource::kOutputScale: ptr = static_cast<char*>(exec.outputs[source.index]) + source.offset; break;
      case ArgSource::kPackedInput: continue;  // packed above
    }
    run->args.at(id).set_data_handle(ptr);
  }
  const size_t scratchpad_bytes = scratchpad_.get_size();
  if (scratchpad_bytes > 0) run->args.at(DNNL_ARG_SCRATCHPAD).set_data_handle(t_scratchpad.Get(scratchpad_bytes));
  primitive_.execute(stream, run->args);
  stream.wait();
  std::lock_guard<std::mutex> lock(pool_mu_);
  pool_.push_back(std::move(run));
}

}  // namespace qv::cpu
