// add_n as a chain of element-wise additions into the output: y = x0 + x1, then y += x2, ...
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/device_copy_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/row_major_layout.h"

namespace qv::cuda {
namespace {

class AddNKernel : public CudaKernel {
 public:
  AddNKernel(size_t inputs, int64_t n) : inputs_(inputs), n_(n) { g_.same_shapes = true; }
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    float* y = static_cast<float*>(args.outputs[0]);
    const float* sum = static_cast<const float*>(args.inputs[0]);
    for (size_t i = 1; i < inputs_; ++i) {
      launch::Binary(BinaryMath::kAdd, g_, sum, static_cast<const float*>(args.inputs[i]), y, n_, on.stream);
      CheckLaunch("an add_n kernel");
      sum = y;
    }
  }

 private:
  size_t inputs_;
  int64_t n_;
  launch::BroadcastGeometry g_;
};

KernelBuild BuildAddN(const KernelRequest& req, DeviceConstantStore&) {
  std::vector<int> runtime_inputs;
  for (size_t i = 0; i < req.inputs.size(); ++i) runtime_inputs.push_back(static_cast<int>(i));
  const int64_t n = ElementCount(req.outputs[0].shape);
  if (req.inputs.size() == 1) return RowMajorBuild(req, runtime_inputs, MakeDeviceCopy(RowMajorBytes(req.outputs[0])));
  return RowMajorBuild(req, runtime_inputs, std::make_unique<AddNKernel>(req.inputs.size(), n));
}

const CudaKernelRegistrar kRegister({"add_n"}, BuildAddN);

}  // namespace
}  // namespace qv::cuda
