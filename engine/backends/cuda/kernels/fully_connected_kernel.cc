// FullyConnected as one cuBLASLt matmul, with the bias (and a fused ReLU) as its epilogue.
//
// Row-major Y (rows x N) = X (rows x K) W^T (W is N x K) is, read column-major, Y^T = W^T' X^T: cuBLAS
// sees W's bytes as a K x N matrix to transpose (A), X's as K x rows (B) and Y's as N x rows (D), so
// the bias, one value per output feature, runs along D's rows as the epilogue expects. Descriptors
// and the algorithm are chosen once per plan; compute is plain FP32 (CUBLAS_COMPUTE_32F: no TF32). The
// algorithm's workspace (at most kMaxWorkspaceBytes) is reserved on the device's streams, as the
// convolution's is, so each invocation's stream brings its own. A weight the graph computes is read
// from the run's row-major value as a parameter's is; a computed bias is given to a copy of the matmul's
// descriptor made for the run, as the shared one must not change while other runs read it.
#include <cstdint>
#include <memory>
#include <type_traits>

#include "backends/cuda/runtime/cublas_lt.h"
#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/runtime/device_resources.h"
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
    // Runtime inputs: the data, then a computed weight and bias.
    int next_input = 1;
    if (req.inputs[1].constant) weight_ = constants.Get(req.inputs[1].constant, req.device);
    else weight_input_ = next_input++;
    if (!p.no_bias && req.inputs[2].constant) bias_ = constants.Get(req.inputs[2].constant, req.device);
    else if (!p.no_bias) bias_input_ = next_input++;
    const CurrentDevice current(req.device.id);
    handle_ = LtHandleOf(req.device.id);

    epilogue_ = CUBLASLT_EPILOGUE_DEFAULT;
    if (!p.no_bias) epilogue_ = relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS;
    else if (relu) epilogue_ = CUBLASLT_EPILOGUE_RELU;
    // Until a run gives it its own, a computed bias is described by a placeholder address as aligned as
    // a parameter's: the heuristics never read through it.
    alignas(256) static const float kBiasPlaceholder = 0;
    desc_ = MakeDesc(bias_ ? bias_.get() : &kBiasPlaceholder, where);
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
    const void* weight = weight_input_ > 0 ? args.inputs[weight_input_] : weight_.get();
    // cuBLASLt reads its descriptor when the matmul is enqueued: a run's own copy may go once it is.
    const DescPtr run_desc = bias_input_ > 0 ? MakeDesc(args.inputs[bias_input_], "") : nullptr;
    CheckCublas(cublasLtMatmul(handle_, run_desc ? run_desc.get() : desc_.get(), &alpha, weight, a_.get(),
                               args.inputs[0], b_.get(), &beta, args.outputs[0], d_.get(), args.outputs[0], d_.get(),
                               &algo_, on.workspace, workspace_bytes_, on.stream),
                "cublasLtMatmul");
  }

 private:
  using DescPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, DescDeleter>;
  using MatrixLayoutPtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, LayoutDeleter>;
  using PreferencePtr = std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, PreferenceDeleter>;

  // The matmul: W transposed, FP32, the epilogue, and `bias` as the bias's address where there is one.
  DescPtr MakeDesc(const void* bias, const std::string& where) const {
    cublasLtMatmulDesc_t created = nullptr;
    CheckCublas(cublasLtMatmulDescCreate(&created, CUBLAS_COMPUTE_32F, CUDA_R_32F), where + "cublasLtMatmulDescCreate");
    DescPtr desc(created);
    auto set = [&](cublasLtMatmulDescAttributes_t attr, const void* value, size_t size) {
      CheckCublas(cublasLtMatmulDescSetAttribute(desc.get(), attr, value, size), where + "setting a matmul attribute");
    };
    const cublasOperation_t transpose = CUBLAS_OP_T;
    set(CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
    set(CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue_, sizeof epilogue_);
    if (epilogue_ == CUBLASLT_EPILOGUE_BIAS || epilogue_ == CUBLASLT_EPILOGUE_RELU_BIAS)
      set(CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
    return desc;
  }

  // A column-major float32 matrix of `rows` x `cols`, densely packed.
  static MatrixLayoutPtr MakeLayout(int64_t rows, int64_t cols, const std::string& what) {
    cublasLtMatrixLayout_t layout = nullptr;
    CheckCublas(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols),
                                           rows),
                what);
    return MatrixLayoutPtr(layout);
  }

  std::shared_ptr<const void> weight_, bias_;  // parameters; null where the graph computes them
  int weight_input_ = -1, bias_input_ = -1;    // places in ExecArgs::inputs
  cublasLtEpilogue_t epilogue_ = CUBLASLT_EPILOGUE_DEFAULT;
  cublasLtHandle_t handle_ = nullptr;
  DescPtr desc_;
  MatrixLayoutPtr a_, b_, d_;
  cublasLtMatmulAlgo_t algo_ = {};
  size_t workspace_bytes_ = 0;
};

KernelBuild BuildFullyConnected(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = FullyConnectedParams::Parse(req.attrs);
  bool relu = false;
  for (const PostOp& post : req.attrs.post_ops()) {
    Check(post.kind == PostOp::kRelu && !relu, Status::kInternal,
          req.attrs.Where() + "a post-op the CUDA backend does not fuse reached FullyConnected");
    relu = true;
  }
  std::vector<int> runtime_inputs = {0};  // the data, then a weight and a bias the graph computes
  if (!req.inputs[1].constant) runtime_inputs.push_back(1);
  if (!p.no_bias && !req.inputs[2].constant) runtime_inputs.push_back(2);
  KernelBuild build = RowMajorBuild(req, std::move(runtime_inputs),
                                    std::make_unique<FullyConnectedKernel>(req, constants, p, relu));
  build.flops = 2.0 * static_cast<double>(ElementCount(req.outputs[0].shape)) *
                static_cast<double>(req.inputs[1].type.shape[1]);
  return build;
}

const CudaKernelRegistrar kRegister({"FullyConnected"}, BuildFullyConnected);

}  // namespace
}  // namespace qv::cuda
