// topk (topk.cu), its sort keys in the stream's workspace, reserved when the plan is built.
#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"
#include "ops/topk.h"

namespace qv::cuda {
namespace {

class TopKKernel : public CudaKernel {
 public:
  TopKKernel(const launch::TopKGeometry& g, size_t workspace) : g_(g), workspace_(workspace) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_, Status::kInternal,
          "topk needs a " + std::to_string(workspace_) + "-byte workspace, the stream has " +
              std::to_string(on.workspace_bytes));
    float* second = g_.ret == launch::TopKGeometry::kBoth ? static_cast<float*>(args.outputs[1]) : nullptr;
    launch::TopK(g_, static_cast<const float*>(args.inputs[0]), static_cast<float*>(args.outputs[0]), second,
                 on.workspace, on.stream);
    CheckLaunch("the topk kernel");
  }

 private:
  launch::TopKGeometry g_;
  size_t workspace_;
};

KernelBuild BuildTopK(const KernelRequest& req, DeviceConstantStore&) {
  const TopKParams p = TopKParams::Resolve(req.attrs, req.inputs[0].type.shape);
  launch::TopKGeometry g;
  g.rows = p.outer * p.inner, g.n = p.n, g.inner = p.inner, g.k = p.k, g.ascend = p.ascend;
  Check(g.rows <= int64_t{0x7fffffff}, Status::kUnsupported,
        req.attrs.Where() + std::to_string(g.rows) + " rows are more than " + req.device.ToString() + " sorts (2^31)");
  switch (p.ret) {
    case TopKReturn::kValue: g.ret = launch::TopKGeometry::kValue; break;
    case TopKReturn::kIndices: g.ret = launch::TopKGeometry::kIndices; break;
    case TopKReturn::kMask: g.ret = launch::TopKGeometry::kMask; break;
    case TopKReturn::kBoth: g.ret = launch::TopKGeometry::kBoth; break;
  }
  const size_t workspace = launch::TopKWorkspace(g);
  ResourcesOf(req.device.id).streams.ReserveWorkspace(workspace);
  return RowMajorBuild(req, {0}, std::make_unique<TopKKernel>(g, workspace));
}

const CudaKernelRegistrar kRegister({"topk", "argsort"}, BuildTopK);

}  // namespace
}  // namespace qv::cuda
