// The two-input element-wise operators (ops/binary_math.h) with numpy broadcasting, up to 8 dimensions.
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "common/error.h"
#include "ops/elemwise_binary.h"
#include "ops/op_families.h"

namespace qv::cuda {
namespace {

class BinaryKernel : public CudaKernel {
 public:
  BinaryKernel(BinaryMath f, const launch::BroadcastGeometry& g, int64_t n) : f_(f), g_(g), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Binary(f_, g_, static_cast<const float*>(args.inputs[0]), static_cast<const float*>(args.inputs[1]),
                   static_cast<float*>(args.outputs[0]), n_, on.stream);
    CheckLaunch("a binary element-wise kernel");
  }

 private:
  BinaryMath f_;
  launch::BroadcastGeometry g_;
  int64_t n_;
};

// Row-major strides of `in` over the output's axes (aligned at the right); 0 where it broadcasts.
void StridesFor(const Shape& in, const Shape& out, int64_t* strides) {
  int64_t stride = 1;
  for (int d = static_cast<int>(in.size()) - 1; d >= 0; --d) {
    const size_t od = out.size() - in.size() + d;
    strides[od] = in[d] == 1 ? 0 : stride;
    stride *= in[d];
  }
}

KernelBuild BuildBinary(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& a = req.inputs[0].type.shape;
  const Shape& b = req.inputs[1].type.shape;
  const Shape& out = req.outputs[0].shape;
  Check(out.size() <= static_cast<size_t>(launch::kMaxDims), Status::kUnsupported,
        req.attrs.Where() + "broadcasting over " + std::to_string(out.size()) + " dimensions " + ShapeToString(out) +
            " is not supported on " + req.device.ToString() + " (at most " + std::to_string(launch::kMaxDims) + ")");
  launch::BroadcastGeometry g;
  g.ndim = static_cast<int>(out.size());
  g.same_shapes = a == b;
  for (size_t d = 0; d < out.size(); ++d) g.out[d] = out[d];
  StridesFor(a, out, g.a_stride);
  StridesFor(b, out, g.b_stride);
  return RowMajorBuild(req, {0, 1}, std::make_unique<BinaryKernel>(BinaryMathOf(req.attrs.op()), g,
                                                                   ElementCount(out)));
}

const CudaKernelRegistrar kRegister(BinaryOps(), BuildBinary);

}  // namespace
}  // namespace qv::cuda
