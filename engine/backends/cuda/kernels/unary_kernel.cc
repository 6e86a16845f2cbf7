#include "backends/cuda/kernels/unary_kernel.h"

namespace qv::cuda {
namespace {

class UnaryKernel : public CudaKernel {
 public:
  UnaryKernel(launch::UnaryFn fn, float a, float b, int64_t n) : fn_(fn), a_(a), b_(b), n_(n) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    launch::Unary(fn_, a_, b_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), n_,
                  on.stream);
    CheckLaunch("an element-wise kernel");
  }

 private:
  launch::UnaryFn fn_;
  float a_, b_;
  int64_t n_;
};

}  // namespace

KernelBuild BuildUnary(const KernelRequest& request, launch::UnaryFn fn, float a, float b) {
  const int64_t n = ElementCount(request.outputs[0].shape);
  return RowMajorBuild(request, {0}, std::make_unique<UnaryKernel>(fn, a, b, n));
}

}  // namespace qv::cuda
