// _input_to_float32 (ops/input_to_float32.h) on the device (input_to_float32.cu).
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/row_major_layout.h"
#include "ops/input_to_float32.h"

namespace qv::cuda {
namespace {

class ToFloat32Kernel : public CudaKernel {
 public:
  ToFloat32Kernel(launch::InputElement from, int64_t n) : from_(from), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::ToFloat32(from_, args.inputs[0], static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("the input conversion kernel");
  }

 private:
  launch::InputElement from_;
  int64_t n_;
};

launch::InputElement ElementOf(DType t) {
  switch (t) {
    case DType::kFloat64: return launch::InputElement::kFloat64;
    case DType::kUInt8: return launch::InputElement::kUInt8;
    case DType::kInt8: return launch::InputElement::kInt8;
    case DType::kInt32: return launch::InputElement::kInt32;
    case DType::kInt64: return launch::InputElement::kInt64;
    case DType::kFloat32:
    case DType::kFloat16: break;
  }
  throw Error(Status::kInternal, std::string(kInputToFloat32) + " has no kernel for " + DTypeName(t));
}

KernelBuild BuildInputToFloat32(const KernelRequest& req, DeviceConstantStore&) {
  return RowMajorBuild(req, {0},
                       std::make_unique<ToFloat32Kernel>(ElementOf(req.inputs[0].type.dtype),
                                                         ElementCount(req.outputs[0].shape)));
}

const CudaKernelRegistrar kRegister({kInputToFloat32}, BuildInputToFloat32);

}  // namespace
}  // namespace qv::cuda
