// Kernels made of one oneDNN primitive, run with a caller-provided (per-thread) scratchpad, which makes
// concurrent execution of one kernel safe, and on the compute pool (scheduler/compute_pool.h) as wide
// as the run's lease on the CPU budget.
#pragma once

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "backends/cpu/kernels/kernel.h"
#include "ops/post_ops.h"

namespace qv::cpu {

dnnl::engine& CpuEngine();

dnnl::memory::dims ToDims(const Shape& shape);
// Plain row-major layout of a shape (a scalar is treated as shape (1)).
Desc PlainDesc(const Shape& shape, dnnl::memory::data_type type = dnnl::memory::data_type::f32);
// Every input read at run time and output 0 written, all row-major float32 (the caller sets the kernel).
KernelBuild PlainIO(const KernelRequest& req);
// The floating-point operations of a convolution or inner product: two per weight element per output
// element, where each output channel (weight's axis 0) reads weight.size / weight[0] of them.
double MultiplyAddFlops(const Shape& output, const Shape& weight);
// Attributes every primitive is created with: user-managed scratchpad.
dnnl::primitive_attr BaseAttr();
// Whether oneDNN fell back to its reference implementation (plain loops, often 10-100x slower than a
// JIT kernel) for a primitive descriptor.
bool IsReferenceImpl(const dnnl::primitive_desc_base& pd);
// Appends a fused post-op. A residual sum (kSum) adds what the output buffer holds before the primitive
// runs, its stored values times `sum_scale`, read as `sum_type` (undef: the output's type).
void AppendPostOp(dnnl::post_ops& ops, const PostOp& op, float sum_scale = 1.f,
                  dnnl::memory::data_type sum_type = dnnl::memory::data_type::undef);

// Where a primitive argument comes from at execution time.
struct ArgSource {
  // kInput/kOutput: a runtime tensor, read from `offset` bytes into its buffer (a strided view of part
  // of it, as the interleaved attention products read their queries, keys and values);
  // kInputScale/kOutputScale: the scale stored after its int8 data (kernel.h: Quantization), `offset`
  // bytes into the buffer; kPackedInput: a runtime input in layout `from`, reordered into `desc` before
  // every run (a weight the graph computes: packed per run, where a parameter's is packed once).
  enum Kind { kInput, kOutput, kConstant, kInputScale, kOutputScale, kPackedInput } kind;
  int index = 0;                 // into ExecArgs::inputs / outputs
  std::shared_ptr<void> constant;  // kConstant: data in `desc`, owned here
  Desc desc;
  size_t offset = 0;
  Desc from = Desc();  // kPackedInput: the layout the input arrives in
};

// Before the primitive runs, output `output`'s scale (at `offset`) is set: to `value`, or, when
// `from_input` >= 0, copied from that input's scale (at `from_offset`).
struct ScaleWrite {
  int output = 0;
  size_t offset = 0;
  float value = 0;
  int from_input = -1;
  size_t from_offset = 0;
};

class DnnlKernel : public Kernel {
 public:
  // `pd` was made for the whole compute budget (plans are compiled with it set, SetComputeThreads):
  // oneDNN splits the work into that many tasks. A run with a smaller lease runs the same tasks on
  // fewer threads; the threadpool runtime's kernels never wait for each other inside a loop, so that is
  // always safe, and one primitive serves every lease.
  DnnlKernel(const dnnl::primitive_desc_base& pd, std::unordered_map<int, ArgSource> args,
             std::vector<ScaleWrite> scale_writes = {});
  void Execute(const ExecArgs& args) const override;
  std::string Implementation() const override { return implementation_; }

 private:
  // A kPackedInput argument's reorder, into `offset` bytes of this thread's packing buffer.
  struct Packing {
    int arg;
    dnnl::primitive reorder;
    Desc scratchpad;
    size_t offset;
  };

  // The oneDNN memory objects of one run, pointed at that run's buffers (creating them anew each run
  // cost 18% of MobileNetV2's int8 inference on AMX, 6% on AVX2). Concurrent runs each take their own
  // set from pool_; the pool grows to the most runs this kernel has had at once.
  struct RunMemories {
    std::unordered_map<int, dnnl::memory> args;                   // the primitive's
    std::vector<std::unordered_map<int, dnnl::memory>> packings;  // each packing reorder's
  };
  std::unique_ptr<RunMemories> TakeMemories() const;

  std::unordered_map<int, ArgSource> args_;
  std::vector<Packing> packings_;
  size_t packed_bytes_ = 0;
  std::vector<ScaleWrite> scale_writes_;
  const dnnl::primitive primitive_;
  const Desc scratchpad_;
  const std::string implementation_;  // oneDNN's name for the primitive's implementation
  mutable std::mutex pool_mu_;
  mutable std::vector<std::unique_ptr<RunMemories>> pool_;
};

// Copies constant data from `from` (plain) into a new buffer in layout `to` (reorders if they differ).
std::shared_ptr<void> ReorderConstant(const void* data, const Desc& from, const Desc& to);
// A buffer of `bytes`, aligned for oneDNN, counted in the memory statistics.
std::shared_ptr<void> AllocateConstant(size_t bytes);

// Sets the thread count the kernels this thread makes next are made for (oneDNN blocks its work for it).
void SetComputeThreads(int threads);
// That count.
int ComputeThreads();

}  // namespace qv::cpu

namespace qv::cpu {

// Converts a tensor from layout `from` to layout `to` (both describe the same logical shape), through
// the scales of int8 tensors (kernel.h: Quantization): into an int8 `to` with `to_quant`'s fixed scale,
// else with the scale `from` has, or, from float data, the scale measured on it.
std::unique_ptr<Kernel> MakeReorderKernel(const Desc& from, const Desc& to, const Quantization& to_quant = {});

}  // namespace qv::cpu
