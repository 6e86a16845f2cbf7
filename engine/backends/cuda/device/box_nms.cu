// _contrib_box_nms, one block per image, deciding exactly as the CPU kernel (box_nms_kernel.cc there):
//  1. each row becomes a 64-bit key, descending score in the high half and the row index in the low
//     half (invalid rows: all ones), so the keys' ascending order is the CPU's total order (score
//     descending, ties by row) and an unstable bitonic sort reproduces it;
//  2. the first min(topk, valid) rows are gathered (coordinates, area, class) into the workspace;
//  3. the greedy pass walks them in order: a row not yet suppressed is kept, and the whole block tests
//     the rows after it against it, with the CPU's IoU arithmetic (each operation rounded on its own,
//     never fused into a multiply-add, std::min/std::max's choices), so every decision is the CPU's;
//  4. the kept rows are written first, in order (a block-wide count gives each its place), -1 after.
// Detection heads run it on one to a few dozen images of up to tens of thousands of rows, which a
// block per image sorts and suppresses in well under a millisecond each.
#include "backends/cuda/device/block_sort.cuh"
#include "backends/cuda/device/device_kernels.h"

namespace qv::cuda::launch {
namespace {

constexpr int kBlock = 1024;

// Where each image's scratch lies, as offsets into its share of the workspace.
struct NmsLayout {
  int64_t sort_length = 1;  // the power of two at least `boxes` the bitonic sort runs over
  size_t keys = 0, coords = 0, area = 0, cls = 0, suppressed = 0, per_image = 0;
};

NmsLayout LayoutOf(const BoxNmsGeometry& g) {
  NmsLayout l;
  l.sort_length = SortLength(g.boxes);
  const size_t n = static_cast<size_t>(g.boxes);
  l.keys = 0;
  l.coords = l.keys + Aligned(static_cast<size_t>(l.sort_length) * sizeof(uint64_t));
  l.area = l.coords + Aligned(n * sizeof(float4));
  l.cls = l.area + Aligned(n * sizeof(float));
  l.suppressed = l.cls + Aligned(n * sizeof(int));
  l.per_image = l.suppressed + Aligned(n);
  return l;
}

// The length of the overlap of two spans: [a0, a1] and [b0, b1] (corner), or centred at a0, b0 with
// widths a1, b1 (center); 0 when they do not overlap.
__device__ float Overlap1D(float a0, float a1, float b0, float b1, bool center) {
  if (center) {
    const float al = __fsub_rn(a0, __fdiv_rn(a1, 2.f)), ar = __fadd_rn(a0, __fdiv_rn(a1, 2.f));
    const float bl = __fsub_rn(b0, __fdiv_rn(b1, 2.f)), br = __fadd_rn(b0, __fdiv_rn(b1, 2.f));
    return Max(__fsub_rn(Min(ar, br), Max(al, bl)), 0.f);
  }
  return Max(__fsub_rn(Min(a1, b1), Max(a0, b0)), 0.f);
}

__device__ float Area(const float* box, bool center) {
  const float w = center ? box[2] : __fsub_rn(box[2], box[0]);
  const float h = center ? box[3] : __fsub_rn(box[3], box[1]);
  return w < 0 || h < 0 ? 0.f : __fmul_rn(w, h);
}

// Between corner and center encodings; a box whose first coordinate is negative stays as it is.
__device__ void Convert(float* box, bool to_center) {
  if (box[0] < 0) return;
  const float a = box[0], b = box[1], c = box[2], d = box[3];
  if (to_center) {
    box[0] = __fdiv_rn(__fadd_rn(a, c), 2.f);
    box[1] = __fdiv_rn(__fadd_rn(b, d), 2.f);
    box[2] = __fsub_rn(c, a);
    box[3] = __fsub_rn(d, b);
  } else {
    box[0] = __fsub_rn(a, __fdiv_rn(c, 2.f));
    box[1] = __fsub_rn(b, __fdiv_rn(d, 2.f));
    box[2] = __fadd_rn(a, __fdiv_rn(c, 2.f));
    box[3] = __fadd_rn(b, __fdiv_rn(d, 2.f));
  }
}

__global__ void __launch_bounds__(kBlock) BoxNmsKernel(BoxNmsGeometry g, NmsLayout l, const float* x, float* y,
                                                        char* workspace) {
  __shared__ int warp_counts[kBlock / 32];
  const int64_t t = threadIdx.x, threads = blockDim.x;
  const float* in = x + blockIdx.x * g.boxes * g.width;
  float* out = y + blockIdx.x * g.boxes * g.width;
  char* scratch = workspace + blockIdx.x * l.per_image;
  uint64_t* keys = reinterpret_cast<uint64_t*>(scratch + l.keys);
  float4* coords = reinterpret_cast<float4*>(scratch + l.coords);
  float* area = reinterpret_cast<float*>(scratch + l.area);
  int* cls = reinterpret_cast<int*>(scratch + l.cls);
  unsigned char* suppressed = reinterpret_cast<unsigned char*>(scratch + l.suppressed);

  for (int64_t i = t; i < l.sort_length; i += threads) {
    uint64_t key = kInvalidKey;
    if (i < g.boxes) {
      const float* row = in + i * g.width;
      const float score = row[g.score_index];
      if (score > g.valid_thresh && (g.id_index < 0 || row[g.id_index] != g.background_id)) key = DescendingScoreKey(score, i);
    }
    keys[i] = key;
  }
  __syncthreads();

  BitonicSort(keys, l.sort_length);

  // Invalid keys sort last: the valid rows are the leading ones.
  int64_t valid = 0;
  for (int64_t base = 0; base < g.boxes; base += threads) {
    const int64_t i = base + t;
    valid += __syncthreads_count(i < g.boxes && keys[i] != kInvalidKey);
  }
  const int64_t k = valid < g.topk ? valid : g.topk;

  for (int64_t i = t; i < k; i += threads) {
    const float* row = in + static_cast<int64_t>(keys[i] & 0xffffffffu) * g.width;
    const float* c = row + g.coord_start;
    coords[i] = make_float4(c[0], c[1], c[2], c[3]);
    area[i] = Area(c, g.center_in);
    cls[i] = g.by_class ? static_cast<int>(row[g.id_index]) : 0;  // the CPU compares ids as ints
    suppressed[i] = 0;
  }
  __syncthreads();

  for (int64_t r = 0; r < k; ++r) {
    // Every thread reads the same flag: nothing has been written since the last barrier.
    if (suppressed[r] != 0) continue;
    const float4 a = coords[r];
    const float area_r = area[r];
    const int cls_r = cls[r];
    for (int64_t q = r + 1 + t; q < k; q += threads) {
      if (suppressed[q] != 0 || cls[q] != cls_r) continue;
      const float4 c = coords[q];
      const float inter =
          __fmul_rn(Overlap1D(a.x, a.z, c.x, c.z, g.center_in), Overlap1D(a.y, a.w, c.y, c.w, g.center_in));
      if (__fdiv_rn(inter, __fsub_rn(__fadd_rn(area_r, area[q]), inter)) > g.overlap_thresh) suppressed[q] = 1;
    }
    __syncthreads();
  }

  int64_t written = 0;
  for (int64_t base = 0; base < k; base += threads) {
    const int64_t i = base + t;
    const bool keep = i < k && suppressed[i] == 0;
    int total = 0;
    const int before = CountBefore(keep, warp_counts, &total);
    if (keep) {
      const float* src = in + static_cast<int64_t>(keys[i] & 0xffffffffu) * g.width;
      float* dst = out + (written + before) * g.width;
      for (int64_t w = 0; w < g.width; ++w) dst[w] = src[w];
      if (g.convert) Convert(dst + g.coord_start, !g.center_in);
    }
    written += total;
  }
  for (int64_t i = written * g.width + t; i < g.boxes * g.width; i += threads) out[i] = -1.f;
}

}  // namespace

size_t BoxNmsWorkspace(const BoxNmsGeometry& g) { return static_cast<size_t>(g.batch) * LayoutOf(g).per_image; }

void BoxNms(const BoxNmsGeometry& g, const float* x, float* y, void* workspace, cudaStream_t stream) {
  BoxNmsKernel<<<static_cast<unsigned>(g.batch), kBlock, 0, stream>>>(g, LayoutOf(g), x, y,
                                                                      static_cast<char*>(workspace));
}

}  // namespace qv::cuda::launch
