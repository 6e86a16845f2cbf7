// Deconvolution on cuDNN: 1-D (as 2-D with a height of 1) and 2-D, float32, grouped too. A deconvolution is the data gradient of the
// convolution that maps its output back to its input, so it runs as cudnnConvolutionBackwardData with
// that convolution's descriptors: MXNet's weight (in_channels, num_filter / groups, kh, kw) is already
// that convolution's filter (its outputs are the deconvolution's inputs), its padding is the crop, and
// adj (< stride) is the remainder that convolution's output size rounds away. The bias follows as
// cudnnAddTensor. The CUDA backend fuses nothing into it (a following BatchNorm is folded into the
// weights by the graph passes; a ReLU is a kernel of its own).
//
// As for Convolution, the algorithm is chosen once from cuDNN's heuristics, among the exact ones
// (ALGO_0 and ALGO_1 accumulate products directly; FFT and Winograd round differently), with FMA math
// and at most kMaxConvolutionWorkspaceBytes of workspace, reserved on the device's streams.
#include <tuple>
#include <algorithm>
#include <climits>
#include <memory>
#include <string>
#include <vector>

#include <cudnn.h>

#include "backends/cuda/runtime/cuda_devices.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/cudnn_convolution.h"
#include "backends/cuda/runtime/cudnn_error.h"
#include "backends/cuda/runtime/device_constants.h"
#include "backends/cuda/runtime/device_resources.h"
#include "common/error.h"
#include "ops/deconvolution.h"

namespace qv::cuda {
namespace {

bool IsExact(cudnnConvolutionBwdDataAlgo_t algo) {
  return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 || algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
}

class DeconvolutionKernel : public CudaKernel {
 public:
  DeconvolutionKernel(const KernelRequest& req, DeviceConstantStore& constants, const DeconvolutionParams& p)
      : where_(req.attrs.Where()) {
    Check(p.post_ops.empty(), Status::kInternal, where_ + "a post-op the CUDA backend does not fuse reached Deconvolution");
    const Shape x = As2d(req.inputs[0].type.shape), w = As2d(req.inputs[1].type.shape), y = As2d(req.outputs[0].shape);
    for (const Shape* s : {&x, &y})
      Check(ElementCount(*s) <= INT_MAX, Status::kUnsupported,
            where_ + "cuDNN's 4-D descriptors address fewer than 2^31 elements, got " + ShapeToString(*s));
    const auto geometry = p.Resolve(req.attrs, req.inputs[0].type.shape);
    // 1-D runs as 2-D over a height of 1: kernel, stride and dilation 1 and no crop along it.
    const bool one_d = p.ndim() == 1;
    const int pad_h = one_d ? 0 : dim(geometry.pad[0]), pad_w = dim(geometry.pad.back());
    const int stride_h = one_d ? 1 : dim(p.stride[0]), stride_w = dim(p.stride.back());
    const int dilate_h = one_d ? 1 : dim(p.dilate[0]), dilate_w = dim(p.dilate.back());

    weight_ = constants.Get(req.inputs[1].constant, req.device);
    if (!p.no_bias) bias_ = constants.Get(req.inputs[2].constant, req.device);

    MakeTensor(&d_.x, x, where_, "the data's descriptor");
    MakeTensor(&d_.y, y, where_, "the output's descriptor");
    CheckCudnn(cudnnCreateFilterDescriptor(&d_.w), where_ + "creating the weight's descriptor");
    CheckCudnn(cudnnSetFilter4dDescriptor(d_.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, dim(w[0]), dim(w[1]), dim(w[2]),
                                          dim(w[3])),
               where_ + "describing the weight " + ShapeToString(w));
    CheckCudnn(cudnnCreateConvolutionDescriptor(&d_.conv), where_ + "creating the convolution's descriptor");
    CheckCudnn(cudnnSetConvolution2dDescriptor(d_.conv, pad_h, pad_w, stride_h, stride_w, dilate_h, dilate_w,
                                               CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
               where_ + "describing the convolution");
    CheckCudnn(cudnnSetConvolutionGroupCount(d_.conv, dim(p.num_group)), where_ + "setting the group count");
    CheckCudnn(cudnnSetConvolutionMathType(d_.conv, CUDNN_FMA_MATH), where_ + "asking for FP32 (FMA) math");
    // The convolution of the output must give back the input's shape, or the descriptors disagree.
    int dims[4] = {};
    CheckCudnn(cudnnGetConvolution2dForwardOutputDim(d_.conv, d_.y, d_.w, &dims[0], &dims[1], &dims[2], &dims[3]),
               where_ + "computing the matching convolution's shape");
    Check(Shape(dims, dims + 4) == x, Status::kInternal,
          where_ + "cuDNN's convolution of the output " + ShapeToString(y) + " gives " +
              ShapeToString(Shape(dims, dims + 4)) + ", not the input " + ShapeToString(x));
    if (bias_) MakeTensor(&d_.bias, {1, y[1], 1, 1}, where_, "the bias's descriptor");

    const CurrentDevice current(req.device.id);
    StreamPool& streams = ResourcesOf(req.device.id).streams;
    {
      const StreamPool::Lease lease(streams);  // the heuristics want a handle of the device
      ChooseAlgorithm(lease.context().dnn, req.device);
    }
    streams.ReserveWorkspace(workspace_bytes_);
  }

  void Enqueue(const ExecArgs& args, const StreamContext& on) const override {
    Check(on.workspace_bytes >= workspace_bytes_, Status::kInternal,
          "the stream's workspace is smaller than the deconvolution reserved");
    const float one = 1.f, zero = 0.f;
    void* y = args.outputs[0];
    CheckCudnn(cudnnConvolutionBackwardData(on.dnn, &one, d_.w, weight_.get(), d_.x, args.inputs[0], d_.conv, algo_,
                                            on.workspace, workspace_bytes_, &zero, d_.y, y),
               "cudnnConvolutionBackwardData");
    if (bias_)
      CheckCudnn(cudnnAddTensor(on.dnn, &one, d_.bias, bias_.get(), &one, d_.y, y), "adding the bias (cudnnAddTensor)");
  }

 private:
  static int dim(int64_t d) { return static_cast<int>(d); }

  // A 1-D shape (N, C, W) or weight (C, F, k) as its 2-D form with a height of 1.
  static Shape As2d(Shape s) {
    if (s.size() == 3) s.insert(s.begin() + 2, 1);
    return s;
  }

  // The first exact algorithm in the heuristics' order whose workspace fits.
  void ChooseAlgorithm(cudnnHandle_t handle, const Device& device) {
    int count = 0;
    CheckCudnn(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(handle, &count), where_ + "counting cuDNN's algorithms");
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> ranked(static_cast<size_t>(std::max(count, 1)));
    int returned = 0;
    CheckCudnn(cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d_.w, d_.x, d_.conv, d_.y, count, &returned,
                                                           ranked.data()),
               where_ + "choosing a cuDNN algorithm");
    auto workspace_of = [&](cudnnConvolutionBwdDataAlgo_t algo, size_t* bytes) {
      return cudnnGetConvolutionBackwardDataWorkspaceSize(handle, d_.w, d_.x, d_.conv, d_.y, algo, bytes);
    };
    std::tie(algo_, workspace_bytes_) = FirstExactAlgorithm(ranked.data(), returned, IsExact, workspace_of, where_, device);
  }

  const std::string where_;
  std::shared_ptr<const void> weight_, bias_;
  ConvolutionDescriptors d_;
  cudnnConvolutionBwdDataAlgo_t algo_ = CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
  size_t workspace_bytes_ = 0;
};

KernelBuild BuildDeconvolution(const KernelRequest& req, DeviceConstantStore& constants) {
  const auto p = DeconvolutionParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported, req.attrs.Where() + "weight must be a parameter");
  Check(p.no_bias || req.inputs[2].constant, Status::kUnsupported, req.attrs.Where() + "bias must be a parameter");
  KernelBuild build = RowMajorBuild(req, {0}, std::make_unique<DeconvolutionKernel>(req, constants, p));
  const Shape& w = req.inputs[1].type.shape;  // every input pixel meets every weight of its group once
  build.flops = 2.0 * static_cast<double>(ElementCount(req.inputs[0].type.shape)) * static_cast<double>(ElementCount(w) / w[0]);
  return build;
}

const CudaKernelRegistrar kRegister({"Deconvolution"}, BuildDeconvolution);

}  // namespace
}  // namespace qv::cuda
