// The backend's own CUDA kernels (the .cu files beside this one), as plain launch functions: they
// take device pointers and a stream, enqueue one kernel and return at once. Only plain types cross
// this line, so nvcc never compiles engine headers and the kernel factories stay ordinary C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace qv::cuda::launch {

// y[i] = f(x[i]; a, b) over n floats.
enum class UnaryFn {
  kRelu, kSigmoid, kTanh, kSoftRelu, kSoftSign,
  kClip,          // min(max(x, a), b)
  kLinear,        // a * x + b
  kReciprocal,    // a / x
  kGreater, kGreaterEqual, kLesser, kLesserEqual, kEqual, kNotEqual,  // x ? a: 1 or 0
  kLeaky,         // x > 0 ? x : a * x
  kElu,           // x > 0 ? x : a * (e^x - 1)
  kSelu,          // MXNet's constants
  kGelu,          // 0.5 x (1 + erf(x / sqrt 2))
};
void Unary(UnaryFn fn, float a, float b, const float* x, float* y, int64_t n, cudaStream_t stream);

// y = x * scale[c] + shift[c], then max(y, 0) if relu; c = (i / inner) % channels.
void ChannelAffine(const float* x, const float* scale, const float* shift, float* y, int64_t n, int64_t channels,
                   int64_t inner, bool relu, cudaStream_t stream);

constexpr int kMaxDims = 8;

// a op b over the output's shape; an input's stride is 0 along the axes it broadcasts.
enum class BinaryFn { kAdd, kSub, kMul, kDiv };
struct BroadcastGeometry {
  int ndim = 0;
  int64_t out[kMaxDims] = {};
  int64_t a_stride[kMaxDims] = {};
  int64_t b_stride[kMaxDims] = {};
  bool same_shapes = false;  // no broadcasting: element i of each
};
void Binary(BinaryFn fn, const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
            cudaStream_t stream);

// y[i] = x[offset + sum_d coord_d(i) * stride[d]] over the output's shape (transpose, slices).
struct GatherGeometry {
  int ndim = 0;
  int64_t out[kMaxDims] = {};
  int64_t stride[kMaxDims] = {};
  int64_t offset = 0;
};
void Gather(const GatherGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream);

// Softmax over the middle axis of x viewed as (outer, axis, inner), exp((x - max) * inv_temperature).
void Softmax(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float inv_temperature,
             cudaStream_t stream);

// 2-D pooling of NCHW planes, MXNet's rules (see pooling_kernel.cc).
struct PoolGeometry {
  enum Type { kMax, kAvg, kSum } type = kMax;
  bool count_include_pad = true;
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, ph = 0, pw = 0;
};
void Pool(const PoolGeometry& g, const float* x, float* y, cudaStream_t stream);

}  // namespace qv::cuda::launch
