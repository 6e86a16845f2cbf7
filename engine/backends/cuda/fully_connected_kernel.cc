// FullyConnected as one cuBLASLt matmul, with the bias (and a fused ReLU) as its epilogue.
//
// Row-major Y (rows x N) = X (rows x K) W^T (W is N x K) is, read column-major, Y^T = W^T' X^T: cuBLAS
// sees W's bytes as a K x N matrix to transpose (A), X's as K x rows (B) and Y's as N x rows (D), so
// the bias, one value per output feature, runs along D's rows as the epilogue expects. Descriptors
// and the algorithm are chosen once per plan; compute is plain FP32 (CUBLAS_COMPUTE_32F: no TF32). The
// algorithm's workspace (at most kMaxWorkspaceBytes) is reserved on the device's streams, as the
// convolution's is, so each invocation's stream brings its own.
#include <cstdint>
#include <memory>
#include <type_traits>

#include "backends/cuda/cublas_lt.h"
#include "backends/cuda/cuda_devices.h"
#include "backends/cuda/cuda_kernel.h"
#include "backends/cuda/device_constants.h"
#include "backends/cuda/device_resources.h"
#include "common/error.h"
#include "ops/fully_connected.h"
#include "ops/post_ops.h"

namespace qv::cuda {
namespace {

// What the operands' addresses are promised to be multiples of. cuBLASLt otherwise assumes 256 and
// may pick a kernel that needs it, but values inside a plan's arena are only 64-byte aligned
// (plan/memory_plan.cc); arrays, staged inputs and parameters are whole cudaMalloc blocks (256).
constexpr uint32_t kOperandAlignmentBytes = 64;
// The most workspace an algorithm may ask for: what cuBLAS's documentation recommends on Hopper
// (cublasSetWorkspace; 4 MiB before it). Only what the chosen algorithm needs is reserved.
constexpr uint64_t kMaxWorkspaceBytes = uint64_t{32} << 20;

struct DescDeleter {
  void operator()(cublasLtMatmulDesc_t desc) const { cublasLtMatmulDescDestroy(desc); }
};
struct LayoutDeleter {
  void operator()(cublasLtMatrixLayout_t layout) const { cublasLtMatrixLayoutDestroy(layout); }
};
struct PreferenceDeleter {
  void operator()(cublasLtMatmulPreference_t preference) const { cublasLtMatmulPreferenceDestroy(preference); }
};

class FullyConnectedKernel : public CudaKernel {
 public:
  FullyConnectedKernel(const KernelRequest& req, DeviceConstantStore& constants, const FullyConnectedParams& p,
                       bool relu) {
    const int64_t k = req.inputs[1].type.shape[1], n = p.num_hidden;
    const int64_t rows = ElementCount(req.inputs[0].type.shape) / k;
    const std::string where = req.attrs.Where();
    weight_ = constants.Get(req.inputs[1].constant, req.device);
    if (!p.no_bias) bias_ = constants.Get(req.inputs[2].constant, req.device);
    const CurrentDevice current(req.device.id);
    handle_ = LtHandleOf(req.device.id);

    cublasLtMatmulDesc_t desc = nullptr;
    CheckCublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), where + "cublasLtMatmulDescCreate");
    desc_.reset(desc);
    const cublasOperation_t transpose = CUBLAS_OP_T;
    SetDesc(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose, where);
    cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    if (bias_) epilogue = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    else if (relu) epilogue = CUBLASLT_EPILOGUE_RELU;
    SetDesc(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue, where);
    if (bias_) {
      const void* bias = bias_.get();
      SetDesc(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias, where);
    }
    a_ = MakeLayout(k, n, where + "the weight's layout");
    b_ = MakeLayout(k, rows, where + "the data's layout");
    d_ = MakeLayout(n, rows, where + "the output's layout");

    cublasLtMatmulPreference_t created = nullptr;
    CheckCublas(cublasLtMatmulPreferenceCreate(&created), where + "cublasLtMatmulPreferenceCreate");
    const PreferencePtr preference(created);
    auto prefer = [&](cublasLtMatmulPreferenceAttributes_t attr, const auto& value) {
      CheckCublas(cublasLtMatmulPreferenceSetAttribute(preference.get(), attr, &value, sizeof value),
                  where + "setting a matmul preference");
    };
    prefer(CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, kMaxWorkspaceBytes);
    for (cublasLtMatmulPreferenceAttributes_t attr :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      prefer(attr, kOperandAlignmentBytes);
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    CheckCublas(cublasLtMatmulAlgoGetHeuristic(handle_, desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(),
                                               preference.get(), 1, &result, &found),
                where + "choosing a cuBLASLt algorithm");
    Check(found > 0, Status::kUnsupported,
          where + "cuBLASLt has no algorithm for (" + std::to_string(rows) + " x " + std::to_string(k) + ") x (" +
              std::to_string(k) + " x " + std::to_string(n) + ") on " + req.device.ToString());
    algo_ = result.algo;
    workspace_bytes_ = result.workspaceSize;
    ResourcesOf(req.device.id).streams.ReserveWorkspace(workspace_bytes_);
  }

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_bytes_, Status::kInternal,
          "the stream's workspace is smaller than the matmul reserved");
    const float alpha = 1.f, beta = 0.f;
    CheckCublas(cublasLtMatmul(handle_, desc_.get(), &alpha, weight_.get(), a_.get(), args.inputs[0], b_.get(), &beta,
                               args.outputs[0], d_.get(), args.outputs[0], d_.get(), &algo_, on.workspace,
                               workspace_bytes_, on.stream),
                "cublasLtMatmul");
  }

 private:
  void SetDesc(cublasLtMatmulDescAttributes_t attr, const void* value, size_t size, const std::string& where) {
    CheckCublas(cublasLtMatmulDescSetAttribute(desc_.get(), attr, value, size), where + "setting a matmul attribute");
  }

  using DescPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDeleter>;
  using MatrixLayoutPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDeleter>;
  using PreferencePtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDeleter>;

  // A column-major float32 matrix of `rows` x `cols`, densely packed.
  static MatrixLayoutPtr MakeLayout(int64_t rows, int64_t cols, const std::string& what) {
    cublasLtMatrixLayout_t layout = nullptr;
    CheckCublas(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols),
                                           rows),
                what);
    return MatrixLayoutPtr(layout);
  }

  std::shared_ptr<const void> weight_, bias_;
  cublasLtHandle_t handle_ = nullptr;
  DescPtr desc_;
  MatrixLayoutPtr a_, b_, d_;
  cublasLtMatmulAlgo_t algo_ = {};
  size_t workspace_bytes_ = 0;
};

KernelBuild BuildFullyConnected(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = FullyConnectedParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  Check(p.no_bias || req.inputs[2].constant, Status::kUnsupported, req.attrs.Where() + "bias must be a parameter");
  bool relu = false;
  for (const PostOp& post : req.attrs.post_ops()) {
    Check(post.kind == PostOp::kRelu && !relu, Status::kInternal,
          req.attrs.Where() + "a post-op the CUDA backend does not fuse reached FullyConnected");
    relu = true;
  }
  KernelBuild build = RowMajorBuild(req, {0}, std::make_unique<FullyConnectedKernel>(req, constants, p, relu));
  build.flops = 2.0 * static_cast<double>(ElementCount(req.outputs[0].shape)) *
                static_cast<double>(req.inputs[1].type.shape[1]);
  return build;
}

const CudaKernelRegistrar kRegister({"FullyConnected"}, BuildFullyConnected);

}  // namespace
}  // namespace qv::cuda
