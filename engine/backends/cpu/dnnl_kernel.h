// Kernels made of one oneDNN primitive.
//
// oneDNN (OpenMP build) fixes a primitive's thread count when the primitive is created, so a kernel
// keeps one primitive per thread count it has been leased, made on first use with the layouts of the
// first one; all of them run with a caller-provided (per-thread) scratchpad, which makes concurrent
// execution of one kernel safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <unordered_map>

#include "backends/cpu/kernel.h"

namespace qv::cpu {

dnnl::engine& CpuEngine();

dnnl::memory::dims ToDims(const Shape& shape);
// Plain row-major layout of a shape (a scalar is treated as shape (1)).
Desc PlainDesc(const Shape& shape);
// The floating-point operations of a convolution or inner product: two per weight element per output
// element, where each output channel (weight's axis 0) reads weight.size / weight[0] of them.
double MultiplyAddFlops(const Shape& output, const Shape& weight);
// Attributes every primitive is created with: user-managed scratchpad.
dnnl::primitive_attr BaseAttr();

// Where a primitive argument comes from at execution time.
struct ArgSource {
  enum Kind { kInput, kOutput, kConstant } kind;
  int index = 0;                 // into ExecArgs::inputs / outputs
  std::shared_ptr<void> constant;  // kConstant: data in `desc`, owned here
  Desc desc;
};

class DnnlKernel : public Kernel {
 public:
  // `base` was made under the calling thread's current OpenMP thread count (plans are compiled with
  // the whole budget). `make` re-creates it with the concrete layouts `base` chose; it is called with
  // OpenMP set to the thread count of the variant being made. Primitives (oneDNN's compiled code) are
  // made only for the thread counts the kernel runs with.
  using MakePd = std::function<dnnl::primitive_desc_base()>;

  DnnlKernel(dnnl::primitive_desc_base base, MakePd make, std::unordered_map<int, ArgSource> args);
  void Execute(const ExecArgs& args) const override;
  void Prepare(int threads) const override;

 private:
  struct Variant {
    dnnl::primitive primitive;
    Desc scratchpad;
  };
  const Variant& VariantFor(int threads) const;

  MakePd make_;
  std::unordered_map<int, ArgSource> args_;
  const int base_threads_;                 // the thread count `base_` was made for
  const dnnl::primitive_desc_base base_;  // that count's variant is made from it
  mutable std::mutex mu_;
  mutable std::map<int, Variant> variants_;
};

// Copies constant data from `from` (plain) into a new buffer in layout `to` (reorders if they differ).
std::shared_ptr<void> ReorderConstant(const void* data, const Desc& from, const Desc& to);
// A buffer of `bytes`, aligned for oneDNN, counted in the memory statistics.
std::shared_ptr<void> AllocateConstant(size_t bytes);

// Sets OpenMP's thread count for this thread's next parallel regions.
void SetComputeThreads(int threads);

}  // namespace qv::cpu

namespace qv::cpu {

// Converts a tensor from layout `from` to layout `to` (both describe the same logical shape).
std::unique_ptr<Kernel> MakeReorderKernel(const Desc& from, const Desc& to);

}  // namespace qv::cpu
