// The backend's own CUDA kernels (the .cu files beside this one), as plain launch functions: they
// take device pointers and a stream, enqueue one kernel and return at once. Only plain types cross
// this line, so nvcc compiles no engine header but ops/unary_math.h and ops/binary_math.h (plain
// functions written for both compilers, so that both backends compute the same math), and the kernel
// factories stay ordinary C++.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "ops/binary_math.h"
#include "ops/roi_align_math.h"
#include "ops/transformer_math.h"
#include "ops/unary_math.h"

namespace qv::cuda::launch {

// y[i] = f(x[i]; a, b) over n floats.
enum class UnaryFn {
  kRelu, kSigmoid, kTanh, kSoftRelu, kSoftSign,
  kClip,          // min(max(x, a), b)
  kLinear,        // a * x + b
  kLeaky,         // x > 0 ? x : a * x
  kElu,           // x > 0 ? x : a * (e^x - 1)
  kSelu,          // MXNet's constants
  kGelu,          // 0.5 x (1 + erf(x / sqrt 2))
};
void Unary(UnaryFn fn, float a, float b, const float* x, float* y, int64_t n, cudaStream_t stream);

// y = ApplyUnaryMath(f, x): the element-wise math functions, as the CPU computes them (ops/unary_math.h).
void Math(UnaryMath f, const float* x, float* y, int64_t n, cudaStream_t stream);

// y = x * scale[c] + shift[c], then max(y, 0) if relu; c = (i / inner) % channels.
void ChannelAffine(const float* x, const float* scale, const float* shift, float* y, int64_t n, int64_t channels,
                   int64_t inner, bool relu, cudaStream_t stream);

constexpr int kMaxDims = 8;

// f(a, b) over the output's shape; an input's stride is 0 along the axes it broadcasts.
struct BroadcastGeometry {
  int ndim = 0;
  int64_t out[kMaxDims] = {};
  int64_t a_stride[kMaxDims] = {};
  int64_t b_stride[kMaxDims] = {};
  bool same_shapes = false;  // no broadcasting: element i of each
};
void Binary(BinaryMath f, const BroadcastGeometry& g, const float* a, const float* b, float* y, int64_t n,
            cudaStream_t stream);
// y = f(x, c), or f(c, x) when scalar_first: the scalar operators that are no linear map of x.
void ScalarBinary(BinaryMath f, float c, bool scalar_first, const float* x, float* y, int64_t n, cudaStream_t stream);

// y[i] = x[offset + sum_d coord_d(i) * stride[d]] over the output's shape or a view of it (transpose,
// SwapAxis, slices, tile, repeat, broadcasts).
struct GatherGeometry {
  int ndim = 0;
  int64_t out[kMaxDims] = {};
  int64_t stride[kMaxDims] = {};
  int64_t offset = 0;
};
void Gather(const GatherGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream);

// One output element per kept coordinate, reduced over the reduced axes' coordinates: input offset =
// sum kept_coord * kept_stride + sum reduced_coord * reduced_stride (row-major coordinates of each).
enum class ReduceFn { kSum, kMean, kMax, kMin, kProd };
struct ReduceGeometry {
  int kept_ndim = 0;
  int64_t kept[kMaxDims] = {};
  int64_t kept_stride[kMaxDims] = {};
  int reduced_ndim = 0;
  int64_t reduced[kMaxDims] = {};
  int64_t reduced_stride[kMaxDims] = {};
  int64_t reduced_count = 1;
};
void Reduce(ReduceFn fn, const ReduceGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream);

// Softmax over the middle axis of x viewed as (outer, axis, inner), exp((x - max) * inv_temperature).
void Softmax(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float inv_temperature,
             cudaStream_t stream);

// softmax(use_length=True): as Softmax, lane (o, i) normalising only its first lengths[lane] values
// (truncated, bounded to the axis) and writing 0 after them.
void SoftmaxWithLength(const float* x, const float* lengths, float* y, int64_t outer, int64_t axis, int64_t inner,
                       float inv_temperature, cudaStream_t stream);

// GroupNorm over `count` contiguous groups of `size` values; group i is scaled by gamma_beta[i % groups]
// and shifted by gamma_beta[groups + i % groups].
void GroupNorm(const float* x, const float* gamma_beta, float* y, int64_t count, int64_t groups, int64_t size,
               float eps, cudaStream_t stream);

// The transformer operators (ops/transformer_math.h), one thread per lane or output element.
void LayerNorm(const float* x, const float* gamma, const float* beta, float* y, int64_t outer, int64_t axis,
               int64_t inner, float eps, cudaStream_t stream);
void BatchDot(const BatchDotGeometry& g, const float* a, const float* b, float* y, cudaStream_t stream);
void InterleavedQk(const InterleavedGeometry& g, const float* qkv, float* y, cudaStream_t stream);
void InterleavedValAtt(const InterleavedGeometry& g, const float* qkv, const float* attention, float* y,
                       cudaStream_t stream);
void SequenceMask(const SequenceMaskGeometry& g, const float* x, const float* lengths, float* y, int64_t n,
                  cudaStream_t stream);
// y = x / divisor (_contrib_div_sqrt_dim), or y = trunc(x) (Cast to an integer type).
void Divide(const float* x, float divisor, float* y, int64_t n, cudaStream_t stream);
void Truncate(const float* x, float* y, int64_t n, cudaStream_t stream);

// 2-D (NCHW) and 3-D (NCDHW) pooling of planes, MXNet's rules (see pooling_kernel.cc).
struct PoolGeometry {
  enum Type { kMax, kAvg, kSum } type = kMax;
  bool count_include_pad = true;
  int64_t planes = 0;
  // Per spatial axis (depth, height, width): 2-D pooling has depth 1, kernel 1, stride 1, pad 0.
  int64_t in[3] = {1, 1, 1}, out[3] = {1, 1, 1}, kernel[3] = {1, 1, 1}, stride[3] = {1, 1, 1}, pad[3] = {};
};
void Pool(const PoolGeometry& g, const float* x, float* y, cudaStream_t stream);

// _contrib_AdaptiveAvgPooling2D of NCHW planes (ops/adaptive_avg_pooling.h's cells, summed row by
// row, divided by the cell's width and then its height).
struct AdaptivePoolGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
};
void AdaptiveAvgPool(const AdaptivePoolGeometry& g, const float* x, float* y, cudaStream_t stream);

// _contrib_BilinearResize2D of NCHW planes (ops/bilinear_resize.h); scale_h and scale_w are
// BilinearScale's for each axis.
struct BilinearResizeGeometry {
  int64_t planes = 0, h = 0, w = 0, oh = 0, ow = 0;
  float scale_h = 0, scale_w = 0;
  bool align_corners = true;
};
void BilinearResize(const BilinearResizeGeometry& g, const float* x, float* y, cudaStream_t stream);

// y = x > 0 ? x : gamma[c] * x with c = (i / inner) % channels, or gamma[0] everywhere when shared
// (LeakyReLU prelu).
void PRelu(const float* x, const float* gamma, float* y, int64_t n, int64_t channels, int64_t inner, bool shared,
           cudaStream_t stream);

// out[i] = cond[i / row] != 0 ? x[i] : y[i]: `row` elements share one condition value (where).
void Where(const float* cond, const float* x, const float* y, float* out, int64_t n, int64_t row, cudaStream_t stream);

// _input_to_float32: y[i] = x[i] converted to float32, x holding elements of type `from`.
enum class InputElement { kFloat64, kUInt8, kInt8, kInt32, kInt64 };
void ToFloat32(InputElement from, const void* x, float* y, int64_t n, cudaStream_t stream);

// amp_cast: y[i] = x[i] rounded to the nearest bfloat16 or float16 value, kept in float32, exactly as
// ops/amp_cast.h's RoundToBFloat16 / RoundToFloat16 compute it on the host.
enum class NarrowFloat { kBFloat16, kFloat16 };
void RoundTo(NarrowFloat target, const float* x, float* y, int64_t n, cudaStream_t stream);

// L2Normalization of x viewed as (outer, axis, inner): y = x / sqrt(sum over axis of x^2 + eps), the
// sum taken in double as the CPU kernel does.
void L2Normalize(const float* x, float* y, int64_t outer, int64_t axis, int64_t inner, float eps, cudaStream_t stream);

// _contrib_box_decode of (batch, boxes, 4) offsets against (1, boxes, 4) anchors into corner boxes.
struct BoxDecodeGeometry {
  float std[4] = {1, 1, 1, 1};
  float clip = -1;              // > 0: width/height offsets are clipped to it before exp
  bool corner_anchors = false;  // anchors as (xmin, ymin, xmax, ymax), else (x, y, width, height)
  int64_t batch = 0, boxes = 0;
};
void BoxDecode(const BoxDecodeGeometry& g, const float* x, const float* anchors, float* y, cudaStream_t stream);

// _contrib_box_nms over `batch` images of `boxes` rows of `width` floats (ops/detection.h), with the
// CPU kernel's order and decisions: one block per image sorts the valid rows by descending score (ties
// in row order), keeps the first topk (1 <= topk <= boxes), suppresses greedily and writes the kept
// rows first, -1 after. Its scratch lives in `workspace`, BoxNmsWorkspace(g) bytes (256-byte aligned).
struct BoxNmsGeometry {
  int64_t batch = 0, boxes = 0, width = 0, topk = 0;
  float overlap_thresh = 0.5f, valid_thresh = 0.f;
  float background_id = -1;  // compared with the id column as a float, as the CPU does
  int coord_start = 2, score_index = 1, id_index = -1;
  bool by_class = false;    // suppress only within a class (id_index >= 0 and not force_suppress)
  bool center_in = false;   // coordinates as (x, y, width, height)
  bool convert = false;     // write kept boxes in the other encoding
};
size_t BoxNmsWorkspace(const BoxNmsGeometry& g);
void BoxNms(const BoxNmsGeometry& g, const float* x, float* y, void* workspace, cudaStream_t stream);

// _contrib_MultiBoxDetection over `batch` images (ops/multibox.h), with the CPU's order and decisions:
// one block per image. Its scratch lives in `workspace`, MultiBoxWorkspace(g) bytes.
struct MultiBoxGeometry {
  int64_t batch = 0, classes = 0, anchors = 0;
  int64_t topk = 0;  // rows kept for suppression when more are valid (nms_topk, or anchors)
  float threshold = 0.01f, nms_threshold = 0.5f;
  float variances[4] = {0.1f, 0.1f, 0.2f, 0.2f};
  bool clip = true, force_suppress = false;
};
size_t MultiBoxWorkspace(const MultiBoxGeometry& g);
void MultiBoxDetection(const MultiBoxGeometry& g, const float* cls_prob, const float* loc_pred, const float* anchors,
                       float* y, void* workspace, cudaStream_t stream);

// _contrib_Proposal / _contrib_MultiProposal over `batch` images (ops/proposal.h), with the CPU's
// arithmetic, order and decisions: one thread per candidate decodes it, then one block per image sorts
// the candidates (descending score, ties by index), suppresses greedily and writes `rows` rows (and
// their scores if `scores` is not null). An image whose im_info covers more than the map (the CPU
// fails the run) gets NaN rows. `base_anchors` is ProposalBaseAnchors' A x 4 floats on the device;
// the scratch lives in `workspace`, ProposalWorkspace(g) bytes.
struct ProposalGeometry {
  int64_t batch = 1, anchors = 0, height = 0, width = 0;
  int64_t count = 0, pre = 0, keep = 0, rows = 0;  // as ops/proposal.h's ProposalDims
  int64_t feature_stride = 16, min_size = 16;
  float threshold = 0.7f;
  bool iou_loss = false, multi = false;
};
size_t ProposalWorkspace(const ProposalGeometry& g);
void Proposal(const ProposalGeometry& g, const float* base_anchors, const float* cls_prob, const float* bbox_pred,
              const float* im_info, float* rois, float* scores, void* workspace, cudaStream_t stream);

// ROIPooling (ops/roi_pooling.h) of (batch, channels, height, width) data over `rois` rows of 5 into
// (rois, channels, pooled_h, pooled_w): one thread per output bin, ops/rcnn_math.h's window and bins.
struct RoiPoolingGeometry {
  int64_t batch = 0, channels = 0, height = 0, width = 0, rois = 0, pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1.f;
};
void RoiPooling(const RoiPoolingGeometry& g, const float* data, const float* rois, float* y, cudaStream_t stream);

// Nearest UpSampling of one (n, channels, h, w) input by `scale` into output channels [first_channel,
// first_channel + channels) of an (n, out_channels, h * scale, w * scale) output, added to it if `add`.
void UpsampleNearest(const float* x, float* y, int64_t n, int64_t channels, int64_t h, int64_t w,
                     int64_t out_channels, int64_t first_channel, int64_t scale, bool add, cudaStream_t stream);

// Pad of 4-D or 5-D data (ops/pad.h) on its spatial axes: output index i along axis d reads input index
// i - before[d] inside the input; outside, `value` (kConstant), the edge (kEdge) or the mirror image
// without the edge (kReflect, before and after smaller than the axis).
struct PadGeometry {
  enum Mode { kConstant, kEdge, kReflect } mode = kConstant;
  int ndim = 0;
  int64_t in[5] = {}, out[5] = {}, before[5] = {};
  float value = 0;
};
void Pad(const PadGeometry& g, const float* x, float* y, int64_t n, cudaStream_t stream);

// Embedding: row EmbeddingRow(ids[i]) of the (input_dim, dim) weight into y's row i (ops/embedding.h:
// a float id truncated toward zero, clipped into [0, input_dim - 1]).
void Embedding(const float* ids, const float* weight, float* y, int64_t count, int64_t input_dim, int64_t dim,
               cudaStream_t stream);

// SequenceLast (ops/sequence_last.h): y's row n is x's row (step, n) (batch_major: (n, step)) of `row`
// floats, step = lengths ? SequenceLastStep(lengths[n]) : steps - 1.
void SequenceLast(const float* x, const float* lengths, float* y, int64_t steps, int64_t batch, int64_t row,
                  bool batch_major, cudaStream_t stream);

// One step of an RNN layer's direction for `batch` sequences (ops/rnn.h): sequence n's input and
// recurrent projections are x + n * x_stride and r + n * gates * hidden, without their biases bx and
// bh, gates in MXNet's order; h and c (batch, hidden) are updated in place and h is also written to
// y + n * y_stride.
enum class RnnCell { kLstm, kGru, kRelu, kTanh };
void RnnStep(RnnCell cell, const float* x, int64_t x_stride, const float* bx, const float* r, const float* bh, float* h,
             float* c, float* y, int64_t y_stride, int64_t batch, int64_t hidden, cudaStream_t stream);

// gather_nd (ops/gather_nd.h): one thread per output element. An index out of range cannot fail the
// run here as it does on the CPU: the slices it selects are written as NaN.
struct GatherNDGeometry {
  int m = 0;  // indexed axes, at most 10
  int64_t dims[10] = {}, strides[10] = {};
  int64_t positions = 1, slice = 1;
};
void GatherND(const GatherNDGeometry& g, const float* data, const float* indices, float* y, cudaStream_t stream);

// topk (ops/topk.h) over rows of n elements (row r: outer r / inner, inner r % inner), one block per row:
// a bitonic sort of (value, index) keys in `workspace` (TopKWorkspace(g) bytes). Equal values come out
// by ascending index; the CPU keeps MXNet's unstable order, so the two agree where no values tie across
// the k-th place or within the first k. NaN ranks above +inf, as on the CPU.
struct TopKGeometry {
  int64_t rows = 0, n = 0, inner = 1, k = 1;
  enum Return { kValue, kIndices, kMask, kBoth } ret = kIndices;
  bool ascend = false;
};
size_t TopKWorkspace(const TopKGeometry& g);
void TopK(const TopKGeometry& g, const float* x, float* first, float* second, void* workspace, cudaStream_t stream);

// _contrib_ROIAlign (ops/roi_align_math.h): one thread per output cell, its samples' taps worked out in
// the thread. A ROI that the CPU refuses (an image past the batch, a coordinate that is not finite, an
// aligned ROI without extent) cannot fail the run here: its cells are written as NaN.
void RoiAlign(const RoiAlignGeometry& g, const float* data, const float* rois, float* y, cudaStream_t stream);

}  // namespace qv::cuda::launch
