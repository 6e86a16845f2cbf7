// _contrib_MultiBoxDetection, one block per image, deciding exactly as the CPU (ops/multibox.cc):
//  1. each anchor's best class (ties to the lower class) and score; those at or above the threshold
//     are decoded and packed in anchor order (a block-wide count gives each its place);
//  2. the packed rows are sorted by descending score, ties in packed order (64-bit keys, bitonic);
//  3. the first topk are written in that order, the remaining packed rows stay where packing put them
//     with their class cleared, as MXNet leaves them;
//  4. greedy suppression walks the kept rows, the whole block testing the later rows against each kept
//     one with the CPU's IoU arithmetic (each operation rounded on its own, never fused).
#include "backends/cuda/device/block_sort.cuh"
#include "backends/cuda/device/device_kernels.h"

namespace qv::cuda::launch {
namespace {

constexpr int kBlock = 1024;

struct MultiBoxLayout {
  int64_t sort_length = 1;
  size_t keys = 0, rows = 0, per_image = 0;
};

MultiBoxLayout LayoutOf(const MultiBoxGeometry& g) {
  MultiBoxLayout l;
  l.sort_length = SortLength(g.anchors);
  l.rows = Aligned(static_cast<size_t>(l.sort_length) * sizeof(uint64_t));
  l.per_image = l.rows + Aligned(static_cast<size_t>(g.anchors) * 6 * sizeof(float));
  return l;
}

__device__ void Decode(const MultiBoxGeometry& g, const float* a, const float* d, float* out) {
  const float aw = __fsub_rn(a[2], a[0]), ah = __fsub_rn(a[3], a[1]);
  const float ax = __fdiv_rn(__fadd_rn(a[0], a[2]), 2.f), ay = __fdiv_rn(__fadd_rn(a[1], a[3]), 2.f);
  const float ox = __fadd_rn(__fmul_rn(__fmul_rn(d[0], g.variances[0]), aw), ax);
  const float oy = __fadd_rn(__fmul_rn(__fmul_rn(d[1], g.variances[1]), ah), ay);
  const float ow = __fdiv_rn(__fmul_rn(expf(__fmul_rn(d[2], g.variances[2])), aw), 2.f);
  const float oh = __fdiv_rn(__fmul_rn(expf(__fmul_rn(d[3], g.variances[3])), ah), 2.f);
  const float box[4] = {__fsub_rn(ox, ow), __fsub_rn(oy, oh), __fadd_rn(ox, ow), __fadd_rn(oy, oh)};
  for (int k = 0; k < 4; ++k) out[k] = g.clip ? Max(0.f, Min(1.f, box[k])) : box[k];
}

__device__ float Overlap(const float* a, const float* b) {
  const float w = Max(0.f, __fsub_rn(Min(a[2], b[2]), Max(a[0], b[0])));
  const float h = Max(0.f, __fsub_rn(Min(a[3], b[3]), Max(a[1], b[1])));
  const float i = __fmul_rn(w, h);
  const float u = __fsub_rn(__fadd_rn(__fmul_rn(__fsub_rn(a[2], a[0]), __fsub_rn(a[3], a[1])),
                                      __fmul_rn(__fsub_rn(b[2], b[0]), __fsub_rn(b[3], b[1]))),
                            i);
  return u <= 0.f ? 0.f : __fdiv_rn(i, u);
}

__global__ void __launch_bounds__(kBlock) MultiBoxKernel(MultiBoxGeometry g, MultiBoxLayout l, const float* cls_prob,
                                                          const float* loc_pred, const float* anchors, float* y,
                                                          char* workspace) {
  __shared__ int warp_counts[kBlock / 32];
  const int64_t t = threadIdx.x, threads = blockDim.x, n = blockIdx.x;
  const float* cls = cls_prob + n * g.classes * g.anchors;
  const float* loc = loc_pred + n * g.anchors * 4;
  float* out = y + n * g.anchors * 6;
  char* scratch = workspace + n * l.per_image;
  uint64_t* keys = reinterpret_cast<uint64_t*>(scratch + l.keys);
  float* packed = reinterpret_cast<float*>(scratch + l.rows);

  for (int64_t i = t; i < g.anchors * 6; i += threads) out[i] = -1.f;
  int64_t valid = 0;
  for (int64_t base = 0; base < g.anchors; base += threads) {
    const int64_t i = base + t;
    float score = -1.f;
    int64_t id = 0;
    if (i < g.anchors)
      for (int64_t j = 1; j < g.classes; ++j) {
        const float v = cls[j * g.anchors + i];
        if (v > score) score = v, id = j;
      }
    const bool keep = id > 0 && !(score < g.threshold);
    int total = 0;
    const int before = CountBefore(keep, warp_counts, &total);
    if (keep) {
      float* row = packed + (valid + before) * 6;
      row[0] = static_cast<float>(id - 1);
      row[1] = score;
      Decode(g, anchors + i * 4, loc + i * 4, row + 2);
    }
    valid += total;
  }
  __syncthreads();
  for (int64_t i = t; i < valid * 6; i += threads) out[i] = packed[i];
  if (valid < 1 || g.nms_threshold <= 0.f || g.nms_threshold > 1.f) return;

  for (int64_t i = t; i < l.sort_length; i += threads) keys[i] = i < valid ? DescendingScoreKey(packed[i * 6 + 1], i) : kInvalidKey;
  __syncthreads();
  BitonicSort(keys, l.sort_length);
  const int64_t keep = valid < g.topk ? valid : g.topk;
  for (int64_t i = keep + t; i < valid; i += threads) out[i * 6] = -1.f;
  for (int64_t i = t; i < keep; i += threads) {
    const float* src = packed + static_cast<int64_t>(keys[i] & 0xffffffffu) * 6;
    for (int k = 0; k < 6; ++k) out[i * 6 + k] = src[k];
  }
  __syncthreads();

  for (int64_t r = 0; r < keep; ++r) {
    // Every thread reads the same class: nothing has been written since the last barrier.
    const float cls_r = out[r * 6];
    if (cls_r < 0) continue;
    for (int64_t q = r + 1 + t; q < keep; q += threads) {
      float* row = out + q * 6;
      if (row[0] < 0 || !(g.force_suppress || row[0] == cls_r)) continue;
      if (Overlap(out + r * 6 + 2, row + 2) >= g.nms_threshold) row[0] = -1.f;
    }
    __syncthreads();
  }
}

}  // namespace

size_t MultiBoxWorkspace(const MultiBoxGeometry& g) { return static_cast<size_t>(g.batch) * LayoutOf(g).per_image; }

void MultiBoxDetection(const MultiBoxGeometry& g, const float* cls_prob, const float* loc_pred, const float* anchors,
                       float* y, void* workspace, cudaStream_t stream) {
  MultiBoxKernel<<<static_cast<unsigned>(g.batch), kBlock, 0, stream>>>(g, LayoutOf(g), cls_prob, loc_pred, anchors, y,
                                                                        static_cast<char*>(workspace));
}

}  // namespace qv::cuda::launch
