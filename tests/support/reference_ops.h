// Reference operators for the operator tests: deliberately plain loops over row-major float32 data,
// written for readability, not speed, so that each one can be checked by eye against MXNet's
// definition. Layout is NCHW wherever an operator cares. Nothing here uses the engine; the tests
// compare these results with what the runtime computes through the public C API.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace qv_ref {

using Shape = std::vector<int64_t>;

// A dense row-major float32 tensor.
struct Tensor {
  Shape shape;
  std::vector<float> data;

  Tensor() = default;
  explicit Tensor(Shape s);  // zero-filled
  Tensor(Shape s, std::vector<float> values);
  int64_t size() const { return static_cast<int64_t>(data.size()); }
};

int64_t ElementCount(const Shape& shape);
std::string ShapeToString(const Shape& shape);

// ---- Convolution (2-D, NCHW; weight is (num_filter, C / num_group, kh, kw)). -----------------------
struct ConvParams {
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t dilate_h = 1, dilate_w = 1;
  int64_t num_group = 1;
};
// bias may be nullptr (no_bias=True); otherwise it has num_filter values.
Tensor Convolution(const Tensor& x, const Tensor& weight, const Tensor* bias, const ConvParams& p);

// ---- BatchNorm in inference mode, normalising over axis 1. ------------------------------------------
// y = (x - mean) / sqrt(var + eps) * g + beta, where g = 1 when fix_gamma (MXNet's default!), else gamma.
Tensor BatchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                 const Tensor& var, float eps, bool fix_gamma);

// ---- Activation: "relu", "sigmoid", "tanh", "softrelu" (log(1 + e^x)), "softsign" (x / (1 + |x|)). --
Tensor Activation(const Tensor& x, const std::string& act_type);

// ---- Pooling (2-D, NCHW), following MXNet's own CPU kernels (src/operator/nn/pool.h). ---------------
struct PoolParams {
  bool is_max = true;  // "max", else "avg"
  bool global_pool = false;
  bool full_convention = false;  // pooling_convention "full" (ceil) instead of "valid" (floor)
  bool count_include_pad = true;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
};
// Output spatial size of one dimension.
int64_t PooledSize(int64_t in, int64_t kernel, int64_t pad, int64_t stride, bool full_convention);
// Avg divisor rule (MXNet): the window [start, start + k) is first cut at in + pad (the end of the
// padded input, which only matters in "full" mode, where windows may run past it); with
// count_include_pad that cut window's area divides the sum, otherwise the area of the window further
// cut to the real input [0, in). Max pooling ignores padding altogether.
Tensor Pooling(const Tensor& x, const PoolParams& p);

// ---- FullyConnected: weight (num_hidden, K); bias may be nullptr. -----------------------------------
// flatten: x is viewed as (N, K) with K the product of the other axes -> (N, num_hidden).
// !flatten: applied over the last axis: (..., K) -> (..., num_hidden).
Tensor FullyConnected(const Tensor& x, const Tensor& weight, const Tensor* bias, bool flatten);

// ---- Flatten: (N, d1, d2, ...) -> (N, d1 * d2 * ...). ------------------------------------------------
Tensor Flatten(const Tensor& x);

// ---- a + b with numpy broadcasting (shapes aligned at the right; 1 stretches). ----------------------
Tensor BroadcastAdd(const Tensor& a, const Tensor& b);

// ---- softmax over `axis` (negative counts from the end): exp(x / T) normalised. ----------------------
Tensor Softmax(const Tensor& x, int64_t axis, float temperature);

// ---- SoftmaxOutput in inference. Default: x viewed as (N, rest), normalised over the rest;
// multi_output: over axis 1; preserve_shape: over the last axis. The output keeps x's shape. ---------
Tensor SoftmaxOutput(const Tensor& x, bool multi_output, bool preserve_shape);

// ---- Concat along `dim` (negative counts from the end). ----------------------------------------------
Tensor Concat(const std::vector<Tensor>& xs, int64_t dim);

}  // namespace qv_ref
