// _contrib_box_nms on the CPU in plain C++ (oneDNN has no such primitive), one batch per thread.
// It reproduces MXNet's order exactly: descending score with ties in input order (MXNet sorts
// stably), so the first topk are found with a partial sort under that same total order.
#include <algorithm>
#include <numeric>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "ops/detection.h"
#include "backends/cpu/runtime/compute_pool.h"

namespace qv::cpu {
namespace {

// Length of the overlap of [a0, a1] and [b0, b1] (corner) or of the spans centred at a0, b0 with
// widths a1, b1 (center); 0 when they do not overlap.
float Overlap1D(float a0, float a1, float b0, float b1, BoxFormat f) {
  if (f == BoxFormat::kCenter) {
    const float al = a0 - a1 / 2, ar = a0 + a1 / 2, bl = b0 - b1 / 2, br = b0 + b1 / 2;
    return std::max(std::min(ar, br) - std::max(al, bl), 0.f);
  }
  return std::max(std::min(a1, b1) - std::max(a0, b0), 0.f);
}

float Area(const float* box, BoxFormat f) {
  const float w = f == BoxFormat::kCorner ? box[2] - box[0] : box[2];
  const float h = f == BoxFormat::kCorner ? box[3] - box[1] : box[3];
  return w < 0 || h < 0 ? 0.f : w * h;
}

class BoxNmsKernel : public Kernel {
 public:
  BoxNmsKernel(const BoxNmsParams& p, int64_t batch, int64_t boxes, int64_t width)
      : p_(p), batch_(batch), boxes_(boxes), width_(width) {}

  void Execute(const ExecArgs& args) const override {
    const float* x = static_cast<const float*>(args.inputs[0]);
    float* out = static_cast<float*>(args.outputs[0]);
    const int64_t rows = batch_ * boxes_;
    const int64_t topk = p_.topk < 0 ? boxes_ : std::min(boxes_, p_.topk);
    if (topk < 1) {
      std::copy(x, x + rows * width_, out);
      return;
    }
    std::fill(out, out + rows * width_, -1.f);
    // One task per image: they differ in cost, and helpers take the next one as they come free.
    ComputePool::Get().Run(args.threads, static_cast<int>(batch_), [&](int b, int) {
      RunBatch(x + b * boxes_ * width_, out + b * boxes_ * width_, topk);
    });
  }

 private:
  bool Valid(const float* row) const {
    return row[p_.score_index] > p_.valid_thresh && (p_.id_index < 0 || row[p_.id_index] != p_.background_id);
  }

  void RunBatch(const float* x, float* out, int64_t topk) const {
    std::vector<int64_t> order;
    for (int64_t i = 0; i < boxes_; ++i)
      if (Valid(x + i * width_)) order.push_back(i);
    const int64_t s = p_.score_index;
    auto before = [&](int64_t a, int64_t b) {
      const float sa = x[a * width_ + s], sb = x[b * width_ + s];
      return sa > sb || (sa == sb && a < b);
    };
    const int64_t k = std::min<int64_t>(topk, static_cast<int64_t>(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
    order.resize(k);

    std::vector<float> area(k);
    for (int64_t i = 0; i < k; ++i) area[i] = Area(x + order[i] * width_ + p_.coord_start, p_.in_format);
    std::vector<bool> suppressed(k, false);
    const bool by_class = !p_.force_suppress && p_.id_index >= 0;
    for (int64_t r = 0; r < k; ++r) {
      if (suppressed[r]) continue;
      const float* ref = x + order[r] * width_;
      for (int64_t q = r + 1; q < k; ++q) {
        if (suppressed[q]) continue;
        const float* cand = x + order[q] * width_;
        // MXNet compares class ids as integers.
        if (by_class && static_cast<int>(ref[p_.id_index]) != static_cast<int>(cand[p_.id_index])) continue;
        const float* a = ref + p_.coord_start;
        const float* c = cand + p_.coord_start;
        const float inter = Overlap1D(a[0], a[2], c[0], c[2], p_.in_format) * Overlap1D(a[1], a[3], c[1], c[3], p_.in_format);
        if (inter / (area[r] + area[q] - inter) > p_.overlap_thresh) suppressed[q] = true;
      }
    }
    int64_t kept = 0;
    for (int64_t i = 0; i < k; ++i) {
      if (suppressed[i]) continue;
      float* row = out + kept++ * width_;
      std::copy(x + order[i] * width_, x + (order[i] + 1) * width_, row);
      if (p_.in_format != p_.out_format) Convert(row + p_.coord_start);
    }
  }

  // Between corner and center encodings; like MXNet, a box whose first coordinate is negative is
  // left as it is.
  void Convert(float* box) const {
    if (box[0] < 0) return;
    const float a = box[0], b = box[1], c = box[2], d = box[3];
    if (p_.out_format == BoxFormat::kCenter) {
      box[0] = (a + c) / 2;
      box[1] = (b + d) / 2;
      box[2] = c - a;
      box[3] = d - b;
    } else {
      box[0] = a - c / 2;
      box[1] = b - d / 2;
      box[2] = a + c / 2;
      box[3] = b + d / 2;
    }
  }

  BoxNmsParams p_;
  int64_t batch_, boxes_, width_;
};

KernelBuild BuildBoxNms(const KernelRequest& req) {
  const Shape& x = req.inputs[0].type.shape;
  const int64_t width = x.back(), boxes = x[x.size() - 2];
  KernelBuild build;
  AddRuntimeInput(build, 0, PlainDesc(x));
  AddOutput(build, PlainDesc(x));
  build.kernel = std::make_unique<BoxNmsKernel>(BoxNmsParams::Parse(req.attrs, width), ElementCount(x) / (boxes * width),
                                                boxes, width);
  return build;
}

const CpuKernelRegistrar kRegister({"_contrib_box_nms"}, BuildBoxNms);

}  // namespace
}  // namespace qv::cpu
