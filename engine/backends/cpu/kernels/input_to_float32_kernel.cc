// _input_to_float32 (ops/input_to_float32.h): a data input of another element type, converted
// element by element into row-major float32.
#include <cstdint>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/input_to_float32.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

template <typename T>
class ToFloat32Kernel : public Kernel {
 public:
  explicit ToFloat32Kernel(int64_t n) : n_(n) {}
  void Execute(const ExecArgs& args) const override {
    const T* x = static_cast<const T*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    ParallelFor(args.threads, n_, [&](int64_t i) { y[i] = static_cast<float>(x[i]); });
  }

 private:
  int64_t n_;
};

std::unique_ptr<Kernel> MakeKernel(DType from, int64_t n) {
  switch (from) {
    case DType::kFloat64: return std::make_unique<ToFloat32Kernel<double>>(n);
    case DType::kUInt8: return std::make_unique<ToFloat32Kernel<uint8_t>>(n);
    case DType::kInt8: return std::make_unique<ToFloat32Kernel<int8_t>>(n);
    case DType::kInt32: return std::make_unique<ToFloat32Kernel<int32_t>>(n);
    case DType::kInt64: return std::make_unique<ToFloat32Kernel<int64_t>>(n);
    case DType::kFloat32:
    case DType::kFloat16: break;
  }
  throw Error(Status::kInternal, std::string(kInputToFloat32) + " has no kernel for " + DTypeName(from));
}

KernelBuild BuildInputToFloat32(const KernelRequest& req) {
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(req.inputs[0].type.shape));  // read as its own type: only the order matters
  AddOutput(build, PlainDesc(req.outputs[0].shape));
  build.kernel = MakeKernel(req.inputs[0].type.dtype, ElementCount(req.outputs[0].shape));
  return build;
}

const CpuKernelRegistrar kRegister({kInputToFloat32}, BuildInputToFloat32);

}  // namespace
}  // namespace qv::cpu
