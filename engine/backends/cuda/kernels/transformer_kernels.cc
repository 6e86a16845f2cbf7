// The transformer operators on CUDA: LayerNorm, batch_dot, dot, the interleaved self-attention products,
// _contrib_div_sqrt_dim, SequenceMask, Cast and softmax with lengths (transformer.cu), all on
// row-major data, each computed as the CPU computes it (ops/transformer_math.h).
#include <functional>

#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/device/device_kernels.h"
#include "ops/cast.h"
#include "ops/softmax.h"
#include "ops/transformer_ops.h"

namespace qv::cuda {
namespace {

using Launch = std::function<void(const std::vector<const float*>& in, float* out, cudaStream_t stream)>;

class LaunchKernel : public CudaKernel {
 public:
  LaunchKernel(const char* what, Launch launch) : what_(what), launch_(std::move(launch)) {}
  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    std::vector<const float*> in;
    for (const void* p : args.inputs) in.push_back(static_cast<const float*>(p));
    launch_(in, static_cast<float*>(args.outputs[0]), on.stream);
    CheckLaunch(what_);
  }

 private:
  const char* what_;
  Launch launch_;
};

// Every node input read at run time.
KernelBuild Build(const KernelRequest& req, const char* what, Launch launch) {
  std::vector<int> runtime_inputs;
  for (size_t i = 0; i < req.inputs.size(); ++i) runtime_inputs.push_back(static_cast<int>(i));
  return RowMajorBuild(req, runtime_inputs, std::make_unique<LaunchKernel>(what, std::move(launch)));
}

int64_t OutputCount(const KernelRequest& req) { return ElementCount(req.outputs[0].shape); }

KernelBuild BuildLayerNorm(const KernelRequest& req, DeviceConstantStore&) {
  const LayerNormGeometry g = ResolveLayerNorm(req.attrs, req.inputs[0].type.shape);
  return Build(req, "the LayerNorm kernel", [g](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    launch::LayerNorm(in[0], in[1], in[2], out, g.outer, g.axis, g.inner, g.eps, s);
  });
}

// batch_dot and dot: the matrix products of geometry `g`.
KernelBuild BuildProduct(const KernelRequest& req, const char* what, const BatchDotGeometry& g) {
  return Build(req, what, [g](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    launch::BatchDot(g, in[0], in[1], out, s);
  });
}

KernelBuild BuildBatchDot(const KernelRequest& req, DeviceConstantStore&) {
  return BuildProduct(req, "the batch_dot kernel",
                      ResolveBatchDot(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape));
}

KernelBuild BuildDot(const KernelRequest& req, DeviceConstantStore&) {
  return BuildProduct(req, "the dot kernel",
                      ResolveDot(req.attrs, req.inputs[0].type.shape, req.inputs[1].type.shape));
}

KernelBuild BuildQk(const KernelRequest& req, DeviceConstantStore&) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  return Build(req, "the selfatt_qk kernel", [g](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    launch::InterleavedQk(g, in[0], out, s);
  });
}

KernelBuild BuildValAtt(const KernelRequest& req, DeviceConstantStore&) {
  const InterleavedGeometry g = ResolveInterleaved(req.attrs, req.inputs[0].type.shape);
  return Build(req, "the selfatt_valatt kernel", [g](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    launch::InterleavedValAtt(g, in[0], in[1], out, s);
  });
}

KernelBuild BuildDivSqrtDim(const KernelRequest& req, DeviceConstantStore&) {
  const float divisor = DivSqrtDimDivisor(req.inputs[0].type.shape);
  const int64_t n = OutputCount(req);
  return Build(req, "the div_sqrt_dim kernel", [=](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    launch::Divide(in[0], divisor, out, n, s);
  });
}

KernelBuild BuildSequenceMask(const KernelRequest& req, DeviceConstantStore&) {
  const SequenceMaskGeometry g = ResolveSequenceMask(req.attrs, req.inputs[0].type.shape);
  const int64_t n = OutputCount(req);
  return Build(req, "the SequenceMask kernel", [=](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    if (in.size() == 2) {
      launch::SequenceMask(g, in[0], in[1], out, n, s);
    } else {
      CheckCuda(cudaMemcpyAsync(out, in[0], n * sizeof(float), cudaMemcpyDeviceToDevice, s), "copying SequenceMask's data");
    }
  });
}

KernelBuild BuildCast(const KernelRequest& req, DeviceConstantStore&) {
  const bool truncates = CastTruncates(req.attrs);
  const int64_t n = OutputCount(req);
  return Build(req, "the Cast kernel", [=](const std::vector<const float*>& in, float* out, cudaStream_t s) {
    if (truncates) {
      launch::Truncate(in[0], out, n, s);
    } else {
      CheckCuda(cudaMemcpyAsync(out, in[0], n * sizeof(float), cudaMemcpyDeviceToDevice, s), "copying Cast's data");
    }
  });
}

const CudaKernelRegistrar kLayerNorm({"LayerNorm"}, BuildLayerNorm);
const CudaKernelRegistrar kBatchDot({"batch_dot"}, BuildBatchDot);
const CudaKernelRegistrar kDot({"dot"}, BuildDot);
const CudaKernelRegistrar kQk({"_contrib_interleaved_matmul_selfatt_qk"}, BuildQk);
const CudaKernelRegistrar kValAtt({"_contrib_interleaved_matmul_selfatt_valatt"}, BuildValAtt);
const CudaKernelRegistrar kDivSqrtDim({"_contrib_div_sqrt_dim"}, BuildDivSqrtDim);
const CudaKernelRegistrar kSequenceMask({"SequenceMask"}, BuildSequenceMask);
const CudaKernelRegistrar kCast({"Cast"}, BuildCast);

}  // namespace
}  // namespace qv::cuda
