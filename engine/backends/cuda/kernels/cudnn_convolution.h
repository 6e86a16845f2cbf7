// What the cuDNN Convolution and Deconvolution kernels share: their descriptors, a tensor
// descriptor made in one call, and the choice of algorithm (the first exact FP32 one in cuDNN's
// heuristics' order whose workspace fits).
#pragma once

#include <cudnn.h>

#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/runtime/cudnn_error.h"
#include "common/device.h"
#include "common/error.h"
#include "common/shape.h"

namespace qv::cuda {

// The most workspace a convolution's algorithm may ask for; the chosen one is reserved on the streams.
constexpr size_t kMaxConvolutionWorkspaceBytes = size_t{256} << 20;

// A convolution's cuDNN descriptors, destroyed with it (a Deconvolution's x is its input, the
// convolution's output gradient; `act` only where an activation is fused).
struct ConvolutionDescriptors {
  ConvolutionDescriptors() = default;
  ConvolutionDescriptors(const ConvolutionDescriptors&) = delete;
  ConvolutionDescriptors& operator=(const ConvolutionDescriptors&) = delete;
  ~ConvolutionDescriptors() {
    for (cudnnTensorDescriptor_t t : {x, y, bias})
      if (t != nullptr) cudnnDestroyTensorDescriptor(t);
    if (w != nullptr) cudnnDestroyFilterDescriptor(w);
    if (conv != nullptr) cudnnDestroyConvolutionDescriptor(conv);
    if (act != nullptr) cudnnDestroyActivationDescriptor(act);
  }

  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t act = nullptr;
};

// Creates `*desc` as a packed float tensor of `s` (NCHW or NCDHW, 4 or 5 dimensions); `where` and
// `what` name it in errors.
inline void MakeTensor(cudnnTensorDescriptor_t* desc, const Shape& s, const std::string& where, const std::string& what) {
  CheckCudnn(cudnnCreateTensorDescriptor(desc), where + "creating " + what);
  const std::vector<int> dims(s.begin(), s.end());
  CheckCudnn(cudnnSetTensorNdDescriptorEx(*desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(dims.size()),
                                          dims.data()),
             where + what + " " + ShapeToString(s));
}

// The first of cuDNN's `returned` ranked algorithms that succeeded, is exact (`is_exact`: no Winograd or
// FFT), uses no tensor cores and whose workspace (`workspace_of(algo, &bytes)`, a cuDNN status; a
// failure passes the algorithm over) fits kMaxConvolutionWorkspaceBytes: the algorithm and its bytes.
// Throws Status::kUnsupported, naming `device`, when none does.
template <typename Perf, typename IsExact, typename WorkspaceOf>
auto FirstExactAlgorithm(const Perf* ranked, int returned, IsExact is_exact, WorkspaceOf workspace_of,
                         const std::string& where, const Device& device) {
  for (int i = 0; i < returned; ++i) {
    const Perf& r = ranked[i];
    if (r.status != CUDNN_STATUS_SUCCESS || !is_exact(r.algo) || r.mathType == CUDNN_TENSOR_OP_MATH ||
        r.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      continue;
    size_t bytes = 0;
    if (workspace_of(r.algo, &bytes) != CUDNN_STATUS_SUCCESS) {
      TakeCudnnLastError();  // the algorithm is passed over, not an error
      continue;
    }
    if (bytes <= kMaxConvolutionWorkspaceBytes) return std::make_pair(r.algo, bytes);
  }
  throw Error(Status::kUnsupported, where + "cuDNN offers no exact FP32 algorithm needing at most " +
                                        std::to_string(kMaxConvolutionWorkspaceBytes >> 20) +
                                        " MiB of workspace on " + device.ToString());
}

}  // namespace qv::cuda
