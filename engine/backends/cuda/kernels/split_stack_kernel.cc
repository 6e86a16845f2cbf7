// SliceChannel and stack as one pitched copy per part: the (outer, parts, row) view's column of part p
// and the part itself, `outer` rows of `row` floats each.
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/split_stack.h"

namespace qv::cuda {
namespace {

class RowBlocksKernel : public CudaKernel {
 public:
  RowBlocksKernel(const RowBlocks& b, bool split) : b_(b), split_(split) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    const size_t row = static_cast<size_t>(b_.row) * sizeof(float), packed_pitch = row * b_.parts;
    for (int64_t p = 0; p < b_.parts; ++p) {
      const size_t column = row * static_cast<size_t>(p);
      if (split_) {
        CheckCuda(cudaMemcpy2DAsync(args.outputs[p], row, static_cast<const char*>(args.inputs[0]) + column,
                                    packed_pitch, row, static_cast<size_t>(b_.outer), cudaMemcpyDeviceToDevice,
                                    on.stream),
                  "splitting off part " + std::to_string(p));
      } else {
        CheckCuda(cudaMemcpy2DAsync(static_cast<char*>(args.outputs[0]) + column, packed_pitch, args.inputs[p], row,
                                    row, static_cast<size_t>(b_.outer), cudaMemcpyDeviceToDevice, on.stream),
                  "stacking input " + std::to_string(p));
      }
    }
  }

 private:
  RowBlocks b_;
  bool split_;
};

KernelBuild BuildSplit(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0}, std::make_unique<RowBlocksKernel>(ResolveSplit(req.attrs, req.inputs[0].type.shape), true));
}

KernelBuild BuildStack(const KernelRequest& req, DeviceConstantStore&) {
  std::vector<int> runtime_inputs;
  for (size_t i = 0; i < req.inputs.size(); ++i) runtime_inputs.push_back(static_cast<int>(i));
  return RowMajorBuild(req, runtime_inputs,
                       std::make_unique<RowBlocksKernel>(ResolveStack(req.attrs, req.inputs[0].type.shape), false));
}

const CudaKernelRegistrar kRegisterSplit({"SliceChannel"}, BuildSplit);
const CudaKernelRegistrar kRegisterStack({"stack"}, BuildStack);

}  // namespace
}  // namespace qv::cuda
