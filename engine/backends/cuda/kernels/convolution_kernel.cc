// Convolution on cuDNN: 2-D (NCHW) and 3-D (NCDHW), float32, grouped and depthwise too, with the post-ops the backend
// fuses (convolution_kernel.h).
//
// Everything but the pointers is fixed when the plan is built: the descriptors, and the algorithm,
// chosen once from cuDNN's heuristics (cudnnGetConvolutionForwardAlgorithm_v7). Only exact FP32
// algorithms are taken: FMA math (no TF32), and GEMM-like ones (no Winograd or FFT, whose transforms
// round differently), so results stay within FP32 rounding of the CPU's direct convolution. The
// chosen algorithm's workspace (at most kMaxConvolutionWorkspaceBytes) is reserved on the device's streams.
//
// A weight or bias the graph computes (SiamRPN's correlation) is read from the run's own row-major value,
// which is cuDNN's filter layout already: nothing is packed, for a parameter or a computed weight.
//
// A ReLU after a bias runs in one cudnnConvolutionBiasActivationForward, y = relu(conv(x) + z + b)
// with z = y for a residual sum (the plan has put the residual in the output) and z weighted 0
// otherwise. Every other combination is cudnnConvolutionForward, blending into the output's residual
// (beta = 1) for a sum, then cudnnAddTensor for the bias and cudnnActivationForward in place for the
// activation: cuDNN's fused call takes no activation but ReLU, and without one it needs
// IMPLICIT_PRECOMP_GEMM, which the heuristics may not have picked. Whether cuDNN runs the fused call
// for a configuration is known only by calling it, so the kernel calls it once when it is built, on
// zeros in scratch memory; if cuDNN refuses, every run takes the sequence instead.
#include "backends/cuda/kernels/convolution_kernel.h"

#include <tuple>
#include <algorithm>
#include <climits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/runtime/block_pool.h"
#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/runtime/cuda_error.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/cudnn_convolution.h"
#include "backends/cuda/runtime/cudnn_error.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/runtime/device_resources.h"
#include "common/error.h"
#include "ops/convolution.h"

namespace qv::cuda {
namespace {

bool IsFusedActivation(const PostOp& post) {
  return post.kind == PostOp::kRelu || (post.kind == PostOp::kClip && post.alpha == 0.f && post.beta > 0.f);
}

// GEMM-like algorithms accumulate products as a direct convolution does.
bool IsExact(cudnnConvolutionFwdAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         algo == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || algo == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

class ConvolutionKernel : public CudaKernel {
 public:
  ConvolutionKernel(const KernelRequest& req, DeviceConstantStore& constants, const ConvolutionParams& p)
      : where_(req.attrs.Where()) {
    for (const PostOp& post : p.post_ops) {
      if (post.kind == PostOp::kSum && !sum_ && !activation_) {
        sum_ = true;
      } else if (IsFusedActivation(post) && !activation_) {
        activation_ = true;
        clip_ = post.kind == PostOp::kClip;
        ceiling_ = post.beta;
      } else {
        throw Error(Status::kInternal, where_ + "a post-op the CUDA backend does not fuse reached Convolution");
      }
    }
    const Shape& x = req.inputs[0].type.shape;
    const Shape& w = req.inputs[1].type.shape;
    const Shape& y = req.outputs[0].shape;
    for (const Shape* s : {&x, &y})
      Check(ElementCount(*s) <= INT_MAX, Status::kUnsupported,
            where_ + "cuDNN's descriptors address fewer than 2^31 elements, got " + ShapeToString(*s));

    // Runtime inputs: the data, then a computed weight and bias, then the residual.
    int next_input = 1;
    if (req.inputs[1].constant) weight_ = constants.Get(req.inputs[1].constant, req.device);
    else weight_input_ = next_input++;
    has_bias_ = !p.no_bias;
    if (has_bias_ && req.inputs[2].constant) bias_ = constants.Get(req.inputs[2].constant, req.device);
    else if (has_bias_) bias_input_ = next_input++;
    if (sum_) sum_input_ = next_input;
    fused_ = activation_ && !clip_ && has_bias_;

    auto ints = [](const std::vector<int64_t>& v) { return std::vector<int>(v.begin(), v.end()); };
    const int spatial = static_cast<int>(p.kernel.size());
    MakeTensor(&d_.x, x, where_, "the data's descriptor");
    MakeTensor(&d_.y, y, where_, "the output's descriptor");
    CheckCudnn(cudnnCreateFilterDescriptor(&d_.w), where_ + "creating the weight's descriptor");
    CheckCudnn(cudnnSetFilterNdDescriptor(d_.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, spatial + 2, ints(w).data()),
               where_ + "describing the weight " + ShapeToString(w));
    CheckCudnn(cudnnCreateConvolutionDescriptor(&d_.conv), where_ + "creating the convolution's descriptor");
    CheckCudnn(cudnnSetConvolutionNdDescriptor(d_.conv, spatial, ints(p.pad).data(), ints(p.stride).data(),
                                               ints(p.dilate).data(), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
               where_ + "describing the convolution");
    CheckCudnn(cudnnSetConvolutionGroupCount(d_.conv, static_cast<int>(p.num_group)), where_ + "setting the group count");
    CheckCudnn(cudnnSetConvolutionMathType(d_.conv, CUDNN_FMA_MATH), where_ + "asking for FP32 (FMA) math");
    std::vector<int> dims(y.size());
    CheckCudnn(cudnnGetConvolutionNdForwardOutputDim(d_.conv, d_.x, d_.w, static_cast<int>(dims.size()), dims.data()),
               where_ + "computing the output's shape");
    Check(Shape(dims.begin(), dims.end()) == y, Status::kInternal,
          where_ + "cuDNN computes an output of " + ShapeToString(Shape(dims.begin(), dims.end())) + ", the operator " +
              ShapeToString(y));
    if (has_bias_) {
      Shape bias(y.size(), 1);
      bias[1] = y[1];
      MakeTensor(&d_.bias, bias, where_, "the bias's descriptor");
    }
    if (activation_) {
      CheckCudnn(cudnnCreateActivationDescriptor(&d_.act), where_ + "creating the activation's descriptor");
      // The fused call accepts only CUDNN_NOT_PROPAGATE_NAN; the separate one does the same, to agree.
      CheckCudnn(cudnnSetActivationDescriptor(d_.act, clip_ ? CUDNN_ACTIVATION_CLIPPED_RELU : CUDNN_ACTIVATION_RELU,
                                              CUDNN_NOT_PROPAGATE_NAN, clip_ ? ceiling_ : 0.0),
                 where_ + "describing the activation");
    }

    const CurrentDevice current(req.device.id);
    StreamPool& streams = ResourcesOf(req.device.id).streams;
    {
      // The heuristics want a handle of the device; a pooled stream's serves.
      const StreamPool::Lease lease(streams);
      ChooseAlgorithm(lease.context().dnn, req.device);
    }
    streams.ReserveWorkspace(workspace_bytes_);
    if (fused_)
      fused_ = KeepsFusedCall([&] { return ProbeFusedCall(req.device, FloatBytes(x), FloatBytes(w), FloatBytes({y[1]}), FloatBytes(y)); });
  }

  // The node inputs the kernel reads at run time, in ExecArgs order, and which of them is the residual (-1: none).
  std::vector<int> runtime_inputs(int node_inputs) const {
    std::vector<int> inputs = {0};
    if (weight_input_ > 0) inputs.push_back(1);
    if (bias_input_ > 0) inputs.push_back(2);
    if (sum_) inputs.push_back(node_inputs - 1);
    return inputs;
  }
  int sum_input() const { return sum_input_; }

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_bytes_, Status::kInternal,
          "the stream's workspace is smaller than the convolution reserved");
    const void* x = args.inputs[0];
    const void* w = weight_ ? weight_.get() : args.inputs[weight_input_];
    const void* b = !has_bias_ ? nullptr : bias_ ? bias_.get() : args.inputs[bias_input_];
    void* y = args.outputs[0];
    if (fused_) {
      CheckCudnn(CallFused(on, x, w, b, y), "cudnnConvolutionBiasActivationForward");
      return;
    }
    const float one = 1.f, zero = 0.f;
    const float* residual = sum_ ? &one : &zero;
    CheckCudnn(cudnnConvolutionForward(on.dnn, &one, d_.x, x, d_.w, w, d_.conv, algo_, on.workspace,
                                       workspace_bytes_, residual, d_.y, y),
               "cudnnConvolutionForward");
    if (has_bias_)
      CheckCudnn(cudnnAddTensor(on.dnn, &one, d_.bias, b, &one, d_.y, y), "adding the bias (cudnnAddTensor)");
    if (activation_)
      CheckCudnn(cudnnActivationForward(on.dnn, d_.act, &one, d_.y, y, &zero, d_.y, y),
                 "the fused activation (cudnnActivationForward)");
  }

 private:
  static size_t FloatBytes(const Shape& s) { return static_cast<size_t>(ElementCount(s)) * sizeof(float); }

  // y = relu(conv(x) + z + bias) in one call, z being y itself (weighted 0 without a residual sum).
  cudnnStatus_t CallFused(const StreamContext& on, const void* x, const void* w, const void* b, void* y) const {
    const float one = 1.f, zero = 0.f;
    return cudnnConvolutionBiasActivationForward(on.dnn, &one, d_.x, x, d_.w, w, d_.conv, algo_, on.workspace,
                                                 workspace_bytes_, sum_ ? &one : &zero, d_.y, y, d_.bias, b, d_.act,
                                                 d_.y, y);
  }

  // Makes the fused call once on zeroed scratch data of `x_bytes` and `y_bytes` (and a zeroed weight of
  // `w_bytes` and bias of `b_bytes` where the graph computes those), and returns cuDNN's status. Expects
  // the workspace reserved and the device current. Throws Error (Status::kOutOfMemory without memory for
  // the data).
  cudnnStatus_t ProbeFusedCall(const Device& device, size_t x_bytes, size_t w_bytes, size_t b_bytes,
                               size_t y_bytes) const {
    DeviceResources& resources = ResourcesOf(device.id);
    const StreamPool::Lease lease(resources.streams);
    const StreamContext& on = lease.context();
    const PooledBlock x(resources.memory, x_bytes), y(resources.memory, y_bytes);
    std::optional<PooledBlock> w, b;
    if (!weight_) w.emplace(resources.memory, w_bytes);
    if (!bias_) b.emplace(resources.memory, b_bytes);
    const std::string where = where_ + "trying cuDNN's fused convolution on " + device.ToString();
    cudnnStatus_t status = CUDNN_STATUS_SUCCESS;
    try {
      CheckCuda(cudaMemsetAsync(x.data(), 0, x_bytes, on.stream), where);
      CheckCuda(cudaMemsetAsync(y.data(), 0, y_bytes, on.stream), where);
      if (w) CheckCuda(cudaMemsetAsync(w->data(), 0, w_bytes, on.stream), where);
      if (b) CheckCuda(cudaMemsetAsync(b->data(), 0, b_bytes, on.stream), where);
      status = CallFused(on, x.data(), w ? w->data() : weight_.get(), b ? b->data() : bias_.get(), y.data());
      CheckCuda(cudaStreamSynchronize(on.stream), where);
    } catch (...) {
      cudaStreamSynchronize(on.stream);  // the blocks go back to the pool only once the stream is done with them
      throw;
    }
    if (status != CUDNN_STATUS_SUCCESS) TakeCudnnLastError();  // a refusal is an answer here, not an error
    return status;
  }

  // The first exact algorithm in the heuristics' order whose workspace fits.
  void ChooseAlgorithm(cudnnHandle_t handle, const Device& device) {
    int count = 0;
    CheckCudnn(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &count), where_ + "counting cuDNN's algorithms");
    std::vector<cudnnConvolutionFwdAlgoPerf_t> ranked(static_cast<size_t>(std::max(count, 1)));
    int returned = 0;
    CheckCudnn(cudnnGetConvolutionForwardAlgorithm_v7(handle, d_.x, d_.w, d_.conv, d_.y, count, &returned,
                                                      ranked.data()),
               where_ + "choosing a cuDNN algorithm");
    auto workspace_of = [&](cudnnConvolutionFwdAlgo_t algo, size_t* bytes) {
      return cudnnGetConvolutionForwardWorkspaceSize(handle, d_.x, d_.w, d_.conv, d_.y, algo, bytes);
    };
    std::tie(algo_, workspace_bytes_) = FirstExactAlgorithm(ranked.data(), returned, IsExact, workspace_of, where_, device);
  }

  const std::string where_;
  bool sum_ = false, activation_ = false, clip_ = false;
  double ceiling_ = 0;  // a clip's upper bound
  bool fused_ = false;  // bias, residual and ReLU in one cudnnConvolutionBiasActivationForward (cuDNN ran it once)
  bool has_bias_ = false;
  std::shared_ptr<const void> weight_, bias_;  // parameters; null where the graph computes them
  int weight_input_ = -1, bias_input_ = -1, sum_input_ = -1;  // places in ExecArgs::inputs
  ConvolutionDescriptors d_;
  cudnnConvolutionFwdAlgo_t algo_ = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t workspace_bytes_ = 0;
};

KernelBuild BuildConvolution(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = ConvolutionParams::Parse(req.attrs);
  auto kernel = std::make_unique<ConvolutionKernel>(req, constants, p);
  std::vector<int> runtime_inputs = kernel->runtime_inputs(static_cast<int>(req.inputs.size()));
  const int sum_input = kernel->sum_input();
  KernelBuild build = RowMajorBuild(req, std::move(runtime_inputs), std::move(kernel));
  build.accumulate_input = sum_input;
  const Shape& w = req.inputs[1].type.shape;  // (filters, channels per group, kernel...)
  build.flops = 2.0 * static_cast<double>(ElementCount(req.outputs[0].shape)) *
                static_cast<double>(ElementCount(w) / w[0]);
  return build;
}

const CudaKernelRegistrar kRegister({"Convolution"}, BuildConvolution);

}  // namespace

bool ConvolutionFusesPostOp(const Node& producer, const PostOp& post) {
  if (producer.op != "Convolution" || !IsFusedActivation(post)) return false;
  for (const PostOp& op : producer.post_ops)
    if (op.kind != PostOp::kSum) return false;  // one activation at most
  return true;
}

bool ConvolutionFusesSum(const Node& producer) { return producer.op == "Convolution" && producer.post_ops.empty(); }

bool KeepsFusedCall(const std::function<cudnnStatus_t()>& probe) {
  try {
    return probe() == CUDNN_STATUS_SUCCESS;
  } catch (const Error& e) {
    if (e.status() != Status::kOutOfMemory) throw;
    return false;
  }
}

}  // namespace qv::cuda
