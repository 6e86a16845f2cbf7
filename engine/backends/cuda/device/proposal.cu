// _contrib_Proposal and _contrib_MultiProposal, deciding exactly as the CPU (ops/proposal.cc):
//  1. one thread per candidate shifts its anchor, decodes it with MXNet's float and double
//     operations (each rounded on its own, never fused; exp in double, rounded once, as glibc's expf
//     all but always is), clips it, scores -1 past im_info's extent and widens it below min_size;
//  2. one block per image sorts the candidates by descending score, ties by index (64-bit keys,
//     bitonic), suppresses greedily over the first `pre` with the CPU's IoU arithmetic, stopping at
//     `keep` boxes, and writes `rows` rows cycling through the kept ones.
#include "backends/cuda/device/block_sort.cuh"
#include "backends/cuda/device/device_kernels.h"
#include "backends/cuda/device/launch_grid.cuh"
#include "ops/rcnn_math.h"

namespace qv::cuda::launch {
namespace {

constexpr int kBlock = 1024;

struct ProposalLayout {
  int64_t sort_length = 1;
  size_t keys = 0, area = 0, suppressed = 0, kept = 0, per_image = 0;  // byte offsets after the boxes
};

ProposalLayout LayoutOf(const ProposalGeometry& g) {
  ProposalLayout l;
  l.sort_length = SortLength(g.count);
  l.keys = Aligned(static_cast<size_t>(g.count) * 5 * sizeof(float));
  l.area = l.keys + Aligned(static_cast<size_t>(l.sort_length) * sizeof(uint64_t));
  l.suppressed = l.area + Aligned(static_cast<size_t>(g.pre) * sizeof(float));
  l.kept = l.suppressed + Aligned(static_cast<size_t>(g.pre));
  l.per_image = l.kept + Aligned(static_cast<size_t>(g.keep) * sizeof(int64_t));
  return l;
}

__device__ float Exp(float x) { return __double2float_rn(exp(static_cast<double>(x))); }

// (double)a + b * (c - 1.0), as MXNet's `a + 0.5 * (c - 1.0)` with b = +-0.5, rounded to float once.
__device__ float HalfExtent(float a, double b, float c) {
  return __double2float_rn(__dadd_rn(static_cast<double>(a), __dmul_rn(b, __dsub_rn(static_cast<double>(c), 1.0))));
}

__global__ void DecodeKernel(ProposalGeometry g, size_t per_image, const float* anchors, const float* cls_prob,
                             const float* bbox_pred, const float* im_info, char* workspace) {
  const int64_t plane = g.height * g.width;
  for (int64_t i = FirstIndex(); i < g.batch * g.count; i += GridStride()) {
    const int64_t n = i / g.count, c = i % g.count;
    const int64_t a = c % g.anchors, w = (c / g.anchors) % g.width, h = c / (g.anchors * g.width);
    const float* info = im_info + n * 3;
    const float* delta = bbox_pred + (n * 4 * g.anchors + a * 4) * plane + h * g.width + w;
    const float* anchor = anchors + a * 4;
    const float sx = static_cast<float>(w * g.feature_stride), sy = static_cast<float>(h * g.feature_stride);
    const float x1 = __fadd_rn(anchor[0], sx), y1 = __fadd_rn(anchor[1], sy);
    const float x2 = __fadd_rn(anchor[2], sx), y2 = __fadd_rn(anchor[3], sy);
    float px1, py1, px2, py2;
    if (g.iou_loss) {
      px1 = __fadd_rn(x1, delta[0]);
      py1 = __fadd_rn(y1, delta[plane]);
      px2 = __fadd_rn(x2, delta[2 * plane]);
      py2 = __fadd_rn(y2, delta[3 * plane]);
    } else {
      const float width = __double2float_rn(__dadd_rn(static_cast<double>(__fsub_rn(x2, x1)), 1.0));
      const float height = __double2float_rn(__dadd_rn(static_cast<double>(__fsub_rn(y2, y1)), 1.0));
      const float ctr_x = HalfExtent(x1, 0.5, width), ctr_y = HalfExtent(y1, 0.5, height);
      const float pcx = __fadd_rn(__fmul_rn(delta[0], width), ctr_x);
      const float pcy = __fadd_rn(__fmul_rn(delta[plane], height), ctr_y);
      const float pw = __fmul_rn(Exp(delta[2 * plane]), width), ph = __fmul_rn(Exp(delta[3 * plane]), height);
      px1 = HalfExtent(pcx, -0.5, pw);
      py1 = HalfExtent(pcy, -0.5, ph);
      px2 = HalfExtent(pcx, 0.5, pw);
      py2 = HalfExtent(pcy, 0.5, ph);
    }
    const float max_x = __fsub_rn(info[1], 1.0f), max_y = __fsub_rn(info[0], 1.0f);
    float box[5] = {Max(Min(px1, max_x), 0.0f), Max(Min(py1, max_y), 0.0f), Max(Min(px2, max_x), 0.0f),
                    Max(Min(py2, max_y), 0.0f),
                    cls_prob[((n * 2 + 1) * g.anchors + a) * plane + h * g.width + w]};
    const int32_t real_height = TruncToInt32(__fdiv_rn(info[0], static_cast<float>(g.feature_stride)));
    const int32_t real_width = TruncToInt32(__fdiv_rn(info[1], static_cast<float>(g.feature_stride)));
    if (h >= real_height || w >= real_width) box[4] = -1.0f;
    const float min_size = __fmul_rn(static_cast<float>(g.min_size), info[2]);
    const float iw = __fadd_rn(__fsub_rn(box[2], box[0]), 1.0f), ih = __fadd_rn(__fsub_rn(box[3], box[1]), 1.0f);
    if (iw < min_size || ih < min_size) {
      const float half = __fdiv_rn(min_size, 2.0f);
      box[0] = __fsub_rn(box[0], half);
      box[1] = __fsub_rn(box[1], half);
      box[2] = __fadd_rn(box[2], half);
      box[3] = __fadd_rn(box[3], half);
      box[4] = -1.0f;
    }
    float* out = reinterpret_cast<float*>(workspace + n * per_image) + c * 5;
    for (int k = 0; k < 5; ++k) out[k] = box[k];
  }
}

__device__ float Area(const float* b) {
  return __fmul_rn(__fadd_rn(__fsub_rn(b[2], b[0]), 1.0f), __fadd_rn(__fsub_rn(b[3], b[1]), 1.0f));
}

__global__ void __launch_bounds__(kBlock) SuppressKernel(ProposalGeometry g, ProposalLayout l, const float* im_info,
                                                         float* rois, float* scores, char* workspace) {
  const int64_t t = threadIdx.x, threads = blockDim.x, n = blockIdx.x;
  char* scratch = workspace + n * l.per_image;
  const float* boxes = reinterpret_cast<const float*>(scratch);
  uint64_t* keys = reinterpret_cast<uint64_t*>(scratch + l.keys);
  float* area = reinterpret_cast<float*>(scratch + l.area);
  char* suppressed = scratch + l.suppressed;
  int64_t* kept = reinterpret_cast<int64_t*>(scratch + l.kept);
  float* out = rois + n * g.rows * 5;
  float* out_scores = scores ? scores + n * g.rows : nullptr;

  const float* info = im_info + n * 3;
  const int32_t real_height = TruncToInt32(__fdiv_rn(info[0], static_cast<float>(g.feature_stride)));
  const int32_t real_width = TruncToInt32(__fdiv_rn(info[1], static_cast<float>(g.feature_stride)));
  if (real_height > g.height || real_width > g.width) {  // the CPU fails the run
    for (int64_t i = t; i < g.rows * 5; i += threads) out[i] = __int_as_float(0x7fc00000);
    if (out_scores)
      for (int64_t i = t; i < g.rows; i += threads) out_scores[i] = __int_as_float(0x7fc00000);
    return;
  }

  for (int64_t i = t; i < l.sort_length; i += threads)
    keys[i] = i < g.count ? DescendingScoreKey(boxes[i * 5 + 4], i) : kInvalidKey;
  __syncthreads();
  BitonicSort(keys, l.sort_length);
  for (int64_t i = t; i < g.pre; i += threads) {
    area[i] = Area(boxes + (keys[i] & 0xffffffffu) * 5);
    suppressed[i] = 0;
  }
  __syncthreads();

  // Greedy suppression: every thread walks the same candidates and reads the same flags (each written
  // before the barrier that ends the pass of a kept box), so all agree on what is kept.
  int64_t count = 0;
  for (int64_t i = 0; i < g.pre && count < g.keep; ++i) {
    if (suppressed[i]) continue;
    if (t == 0) kept[count] = i;
    ++count;
    const float* a = boxes + (keys[i] & 0xffffffffu) * 5;
    const float ia = area[i];
    for (int64_t j = i + 1 + t; j < g.pre; j += threads) {
      if (suppressed[j]) continue;
      const float* b = boxes + (keys[j] & 0xffffffffu) * 5;
      const float w = Max(0.0f, __fadd_rn(__fsub_rn(Min(a[2], b[2]), Max(a[0], b[0])), 1.0f));
      const float h = Max(0.0f, __fadd_rn(__fsub_rn(Min(a[3], b[3]), Max(a[1], b[1])), 1.0f));
      const float inter = __fmul_rn(w, h);
      if (__fdiv_rn(inter, __fsub_rn(__fadd_rn(ia, area[j]), inter)) > g.threshold) suppressed[j] = 1;
    }
    __syncthreads();
  }

  const float image = g.multi ? static_cast<float>(n) : 0.f;
  for (int64_t r = t; r < g.rows; r += threads) {
    const float* b = boxes + (keys[kept[r % count]] & 0xffffffffu) * 5;
    out[r * 5] = image;
    for (int k = 0; k < 4; ++k) out[r * 5 + 1 + k] = b[k];
    if (out_scores) out_scores[r] = b[4];
  }
}

}  // namespace

size_t ProposalWorkspace(const ProposalGeometry& g) { return static_cast<size_t>(g.batch) * LayoutOf(g).per_image; }

void Proposal(const ProposalGeometry& g, const float* base_anchors, const float* cls_prob, const float* bbox_pred,
              const float* im_info, float* rois, float* scores, void* workspace, cudaStream_t stream) {
  const ProposalLayout l = LayoutOf(g);
  char* scratch = static_cast<char*>(workspace);
  DecodeKernel<<<BlocksFor(g.batch * g.count), kThreads, 0, stream>>>(g, l.per_image, base_anchors, cls_prob, bbox_pred,
                                                                       im_info, scratch);
  SuppressKernel<<<static_cast<unsigned>(g.batch), kBlock, 0, stream>>>(g, l, im_info, rois, scores, scratch);
}

}  // namespace qv::cuda::launch
