#include "backends/cuda/kernels/device_copy_kernel.h"

#include "backends/cuda/runtime/cuda_error.h"

namespace qv::cuda {
namespace {

class DeviceCopyKernel : public CudaKernel {
 public:
  explicit DeviceCopyKernel(size_t bytes) : bytes_(bytes) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    if (args.outputs[0] == args.inputs[0] || bytes_ == 0) return;
    // cudaMemcpyDefault: the source may also be a parameter still in host memory.
    CheckCuda(cudaMemcpyAsync(args.outputs[0], args.inputs[0], bytes_, cudaMemcpyDefault, on.stream), "copying a tensor");
  }

 private:
  size_t bytes_;
};

class ConstantCopyKernel : public CudaKernel {
 public:
  ConstantCopyKernel(std::shared_ptr<const void> values, size_t bytes) : values_(std::move(values)), bytes_(bytes) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    CheckCuda(cudaMemcpyAsync(args.outputs[0], values_.get(), bytes_, cudaMemcpyDeviceToDevice, on.stream),
              "writing constant values");
  }

 private:
  std::shared_ptr<const void> values_;
  size_t bytes_;
};

}  // namespace

std::unique_ptr<CudaKernel> MakeDeviceCopy(size_t bytes) { return std::make_unique<DeviceCopyKernel>(bytes); }

std::unique_ptr<CudaKernel> MakeConstantCopy(std::shared_ptr<const void> values, size_t bytes) {
  return std::make_unique<ConstantCopyKernel>(std::move(values), bytes);
}

}  // namespace qv::cuda
