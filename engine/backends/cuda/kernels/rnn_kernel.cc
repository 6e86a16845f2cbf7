// The fused RNN as cuBLASLt matmuls plus a gate kernel per step (sequence.cu's RnnStep), the CPU
// backend's scheme: per layer one matmul projects every step's input for both directions (W_x of the
// directions stacked), then per direction and step one matmul of the previous h with W_h, and the
// gates (biases added there, so that the matmul descriptors carry no per-layer pointer and one serves
// every layer of its shape). The weights are cut out of MXNet's packed vector and uploaded once per
// node. The projections, h, c and the inner layers' outputs live in the stream's workspace.
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <vector>

#include "backends/cuda/runtime/cublas_lt.h"
#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/runtime/device_resources.h"
#include "common/error.h"
#include "ops/rnn.h"

namespace qv::cuda {
namespace {

// Operands are whole blocks or 256-byte aligned workspace slices, inputs at least 64-byte aligned.
constexpr uint32_t kOperandAlignmentBytes = 64;

// Row-major Y (rows x n) = X (rows x k) W^T, W (n x k), in plain FP32 without workspace; read
// column-major as FullyConnected does (fully_connected_kernel.cc).
class Matmul {
 public:
  Matmul(int device, int64_t rows, int64_t k, int64_t n, const std::string& where) {
    handle_ = LtHandleOf(device);
    cublasLtMatmulDesc_t desc = nullptr;
    CheckCublas(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), where + "cublasLtMatmulDescCreate");
    desc_.reset(desc);
    const cublasOperation_t transpose = CUBLAS_OP_T;
    CheckCublas(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose),
                where + "setting a matmul attribute");
    a_ = MakeLayout(k, n, where);
    b_ = MakeLayout(k, rows, where);
    d_ = MakeLayout(n, rows, where);
    cublasLtMatmulPreference_t created = nullptr;
    CheckCublas(cublasLtMatmulPreferenceCreate(&created), where + "cublasLtMatmulPreferenceCreate");
    const std::unique_ptr<std::remove_pointer_t<cublasLtMatmulPreference_t>, decltype(&cublasLtMatmulPreferenceDestroy)>
        preference(created, cublasLtMatmulPreferenceDestroy);
    const uint64_t no_workspace = 0;
    CheckCublas(cublasLtMatmulPreferenceSetAttribute(created, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &no_workspace,
                                                     sizeof no_workspace),
                where + "setting a matmul preference");
    for (cublasLtMatmulPreferenceAttributes_t attr :
         {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
          CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES})
      CheckCublas(
          cublasLtMatmulPreferenceSetAttribute(created, attr, &kOperandAlignmentBytes, sizeof kOperandAlignmentBytes),
          where + "setting a matmul preference");
    cublasLtMatmulHeuristicResult_t result = {};
    int found = 0;
    CheckCublas(cublasLtMatmulAlgoGetHeuristic(handle_, desc_.get(), a_.get(), b_.get(), d_.get(), d_.get(), created, 1,
                                               &result, &found),
                where + "choosing a cuBLASLt algorithm");
    Check(found > 0, Status::kUnsupported,
          where + "cuBLASLt has no algorithm for (" + std::to_string(rows) + " x " + std::to_string(k) + ") x (" +
              std::to_string(k) + " x " + std::to_string(n) + ")");
    algo_ = result.algo;
  }

  void Run(const void* w, const void* x, void* y, cudaStream_t stream) const {
    const float alpha = 1.f, beta = 0.f;
    CheckCublas(cublasLtMatmul(handle_, desc_.get(), &alpha, w, a_.get(), x, b_.get(), &beta, y, d_.get(), y, d_.get(),
                               &algo_, nullptr, 0, stream),
                "cublasLtMatmul (RNN)");
  }

 private:
  using LayoutPtr =
      std::unique_ptr<std::remove_pointer_t<cublasLtMatrixLayout_t>, decltype(&cublasLtMatrixLayoutDestroy)>;
  static LayoutPtr MakeLayout(int64_t rows, int64_t cols, const std::string& where) {
    cublasLtMatrixLayout_t layout = nullptr;
    CheckCublas(cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, static_cast<uint64_t>(rows),
                                           static_cast<uint64_t>(cols), rows),
                where + "a matmul layout");
    return LayoutPtr(layout, cublasLtMatrixLayoutDestroy);
  }

  cublasLtHandle_t handle_ = nullptr;
  std::unique_ptr<std::remove_pointer_t<cublasLtMatmulDesc_t>, decltype(&cublasLtMatmulDescDestroy)> desc_{
      nullptr, cublasLtMatmulDescDestroy};
  LayoutPtr a_{nullptr, cublasLtMatrixLayoutDestroy}, b_{nullptr, cublasLtMatrixLayoutDestroy},
      d_{nullptr, cublasLtMatrixLayoutDestroy};
  cublasLtMatmulAlgo_t algo_ = {};
};

// One layer's device weights: W_x and b_x of both directions stacked, W_h and b_h per direction.
struct LayerWeights {
  std::shared_ptr<const void> wx, bx;
  std::vector<std::shared_ptr<const void>> wh, bh;
};

// Byte offsets of the workspace's slices, each 256-byte aligned.
struct Workspace {
  size_t gx = 0, gh = 0, h = 0, c = 0, between[2] = {0, 0}, bytes = 0;
  size_t Take(int64_t floats) {
    const size_t at = bytes;
    bytes += (static_cast<size_t>(floats) * sizeof(float) + 255) / 256 * 256;
    return at;
  }
};

class RnnKernel : public CudaKernel {
 public:
  RnnKernel(const KernelRequest& req, DeviceConstantStore& constants, const RnnParams& p) : p_(p) {
    const Shape& x = req.inputs[0].type.shape;
    steps_ = x[0];
    batch_ = x[1];
    const int64_t T = steps_, N = batch_, H = p.hidden, D = p.directions, G = p.gates();
    const std::string where = req.attrs.Where();
    const CurrentDevice current(req.device.id);
    const ConstantPtr param = req.inputs[1].constant;
    for (int64_t l = 0; l < p.layers; ++l) {
      const int64_t in = p.LayerInput(l, x[2]);
      // Values cut out of the packed vector, uploaded once per node.
      auto derive = [&](const std::string& what, std::function<std::vector<float>(const float*)> cut) {
        return constants.GetDerived(req.attrs.node() + "/layer" + std::to_string(l) + "/" + what, req.device,
                                    [param, cut] { return cut(param->plain().data_as<float>()); });
      };
      LayerWeights w;
      std::vector<RnnWeightOffsets> offsets;
      for (int64_t d = 0; d < D; ++d) offsets.push_back(RnnOffsets(p, x[2], l, d));
      w.wx = derive("wx", [=](const float* v) {
        std::vector<float> out;
        for (const auto& o : offsets) out.insert(out.end(), v + o.wx, v + o.wx + G * H * in);
        return out;
      });
      w.bx = derive("bx", [=](const float* v) {
        std::vector<float> out;
        for (const auto& o : offsets) out.insert(out.end(), v + o.bx, v + o.bx + G * H);
        return out;
      });
      for (int64_t d = 0; d < D; ++d) {
        const RnnWeightOffsets o = offsets[static_cast<size_t>(d)];
        const std::string dir = "/dir" + std::to_string(d);
        w.wh.push_back(derive("wh" + dir, [=](const float* v) {
          return std::vector<float>(v + o.wh, v + o.wh + G * H * H);
        }));
        w.bh.push_back(derive("bh" + dir, [=](const float* v) {
          return std::vector<float>(v + o.bh, v + o.bh + G * H);
        }));
      }
      layers_.push_back(std::move(w));
      if (l < 2) input_matmuls_.push_back(std::make_unique<Matmul>(req.device.id, T * N, in, D * G * H, where));
    }
    recurrent_ = std::make_unique<Matmul>(req.device.id, N, H, G * H, where);
    ws_.gx = ws_.Take(T * N * D * G * H);
    ws_.gh = ws_.Take(N * G * H);
    ws_.h = ws_.Take(N * H);
    ws_.c = ws_.Take(N * H);
    if (p.layers > 1) ws_.between[0] = ws_.Take(T * N * D * H);
    if (p.layers > 2) ws_.between[1] = ws_.Take(T * N * D * H);
    ResourcesOf(req.device.id).streams.ReserveWorkspace(ws_.bytes);
  }

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= ws_.bytes, Status::kInternal,
          "the stream's workspace is smaller than the RNN reserved");
    const int64_t T = steps_, N = batch_, H = p_.hidden, D = p_.directions, G = p_.gates();
    char* ws = static_cast<char*>(on.workspace);
    float* gx = reinterpret_cast<float*>(ws + ws_.gx);
    float* gh = reinterpret_cast<float*>(ws + ws_.gh);
    float* h = reinterpret_cast<float*>(ws + ws_.h);
    float* c = reinterpret_cast<float*>(ws + ws_.c);
    const size_t state_bytes = static_cast<size_t>(N * H) * sizeof(float);
    const launch::RnnCell cell = p_.mode == RnnMode::kLstm  ? launch::RnnCell::kLstm
                                 : p_.mode == RnnMode::kGru ? launch::RnnCell::kGru
                                 : p_.mode == RnnMode::kRnnRelu ? launch::RnnCell::kRelu
                                                                : launch::RnnCell::kTanh;
    const size_t L = layers_.size();
    for (size_t l = 0; l < L; ++l) {
      const void* in = l == 0 ? args.inputs[0] : ws + ws_.between[(l - 1) % 2];
      float* y = l + 1 == L ? static_cast<float*>(args.outputs[0]) : reinterpret_cast<float*>(ws + ws_.between[l % 2]);
      const LayerWeights& w = layers_[l];
      input_matmuls_[l == 0 ? 0 : 1]->Run(w.wx.get(), in, gx, on.stream);
      for (int64_t d = 0; d < D; ++d) {
        const int64_t k = static_cast<int64_t>(l) * D + d;
        if (p_.zero_begin_state) {
          CheckCuda(cudaMemsetAsync(h, 0, state_bytes, on.stream), "clearing the RNN state");
          CheckCuda(cudaMemsetAsync(c, 0, state_bytes, on.stream), "clearing the RNN state");
        } else {
          CheckCuda(cudaMemcpyAsync(h, static_cast<const float*>(args.inputs[1]) + k * N * H, state_bytes,
                                    cudaMemcpyDeviceToDevice, on.stream),
                    "copying the RNN state");
          if (p_.has_cell())
            CheckCuda(cudaMemcpyAsync(c, static_cast<const float*>(args.inputs[2]) + k * N * H, state_bytes,
                                      cudaMemcpyDeviceToDevice, on.stream),
                      "copying the RNN state");
        }
        const float* bx = static_cast<const float*>(w.bx.get()) + d * G * H;
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? s : T - 1 - s;
          recurrent_->Run(w.wh[d].get(), h, gh, on.stream);
          const float* bh = static_cast<const float*>(w.bh[d].get());
          launch::RnnStep(cell, gx + (t * N * D + d) * G * H, D * G * H, bx, gh, bh, h, c, y + t * N * D * H + d * H,
                          D * H, N, H, on.stream);
          CheckLaunch("the RNN step kernel");
        }
        if (p_.state_outputs) {
          CheckCuda(cudaMemcpyAsync(static_cast<float*>(args.outputs[1]) + k * N * H, h, state_bytes,
                                    cudaMemcpyDeviceToDevice, on.stream),
                    "writing the RNN state");
          if (p_.has_cell())
            CheckCuda(cudaMemcpyAsync(static_cast<float*>(args.outputs[2]) + k * N * H, c, state_bytes,
                                      cudaMemcpyDeviceToDevice, on.stream),
                      "writing the RNN state");
        }
      }
    }
  }

 private:
  RnnParams p_;
  int64_t steps_ = 0, batch_ = 0;
  std::vector<LayerWeights> layers_;
  std::vector<std::unique_ptr<Matmul>> input_matmuls_;  // the first layer's, then the others'
  std::unique_ptr<Matmul> recurrent_;
  Workspace ws_;
};

KernelBuild BuildRnn(const KernelRequest& req, DeviceConstantStore& constants) {
  const RnnParams p = RnnParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported,
        req.attrs.Where() + "parameters must be a parameter, or _rnn_param_concat of parameters");
  std::vector<int> inputs = {0};
  for (size_t i = 2; i < req.inputs.size(); ++i) inputs.push_back(static_cast<int>(i));
  KernelBuild build = RowMajorBuild(req, inputs, std::make_unique<RnnKernel>(req, constants, p));
  const Shape& x = req.inputs[0].type.shape;
  build.flops = 2.0 * static_cast<double>(p.ParamCount(x[2])) * static_cast<double>(x[0] * x[1]);
  return build;
}

const CudaKernelRegistrar kRegister({"RNN"}, BuildRnn);

}  // namespace
}  // namespace qv::cuda
