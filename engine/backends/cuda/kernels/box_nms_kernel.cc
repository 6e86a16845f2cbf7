// _contrib_box_nms on the backend's own kernel (box_nms.cu): the CPU kernel's order and decisions, a
// block per image, its scratch in the stream's workspace (reserved here, when the plan is built).
#include <algorithm>
#include <string>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/runtime/device_resources.h"
#include "backends/cuda/row_major_layout.h"
#include "common/error.h"
#include "ops/detection.h"

namespace qv::cuda {
namespace {

class BoxNmsKernel : public CudaKernel {
 public:
  BoxNmsKernel(const launch::BoxNmsGeometry& g, size_t bytes, size_t workspace)
      : g_(g), bytes_(bytes), workspace_(workspace) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* y = static_cast<float*>(args.outputs[0]);
    if (g_.topk < 1) {  // topk=0 keeps every row as it is, as on the CPU
      CheckCuda(cudaMemcpyAsync(y, x, bytes_, cudaMemcpyDeviceToDevice, on.stream), "copying box_nms's input");
      return;
    }
    Check(on.workspace_bytes >= workspace_, Status::kInternal,
          "box_nms needs a " + std::to_string(workspace_) + "-byte workspace, the stream has " +
              std::to_string(on.workspace_bytes));
    launch::BoxNms(g_, x, y, on.workspace, on.stream);
    CheckLaunch("the box_nms kernel");
  }

 private:
  launch::BoxNmsGeometry g_;
  size_t bytes_, workspace_;
};

KernelBuild BuildBoxNms(const KernelRequest& req, DeviceConstantStore&) {
  const Shape& x = req.inputs[0].type.shape;
  const int64_t width = x.back(), boxes = x[x.size() - 2];
  const BoxNmsParams p = BoxNmsParams::Parse(req.attrs, width);
  launch::BoxNmsGeometry g;
  g.batch = ElementCount(x) / (boxes * width);
  g.boxes = boxes;
  g.width = width;
  Check(boxes <= int64_t{0xffffffff} && g.batch <= int64_t{0x7fffffff}, Status::kUnsupported,
        req.attrs.Where() + ShapeToString(x) + " has more boxes or images than " + req.device.ToString() +
            " handles (2^32 boxes, 2^31 images)");
  g.topk = p.topk < 0 ? boxes : std::min(boxes, p.topk);
  g.overlap_thresh = p.overlap_thresh;
  g.valid_thresh = p.valid_thresh;
  g.background_id = static_cast<float>(p.background_id);
  g.coord_start = static_cast<int>(p.coord_start);
  g.score_index = static_cast<int>(p.score_index);
  g.id_index = static_cast<int>(p.id_index);
  g.by_class = !p.force_suppress && p.id_index >= 0;
  g.center_in = p.in_format == BoxFormat::kCenter;
  g.convert = p.in_format != p.out_format;
  const size_t workspace = g.topk < 1 ? 0 : launch::BoxNmsWorkspace(g);
  if (workspace > 0) ResourcesOf(req.device.id).streams.ReserveWorkspace(workspace);
  return RowMajorBuild(req, {0}, std::make_unique<BoxNmsKernel>(g, RowMajorBytes(req.inputs[0].type), workspace));
}

const CudaKernelRegistrar kRegister({"_contrib_box_nms"}, BuildBoxNms);

}  // namespace
}  // namespace qv::cuda
