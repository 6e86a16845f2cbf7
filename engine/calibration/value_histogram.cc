// Built with -ffp-contract=off (engine/CMakeLists.txt): MXNet rounds each product and sum on its own,
// and a fused multiply-add would move bin edges and thresholds by an ulp.
#include "calibration/value_histogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include "common/error.h"

namespace qv {
namespace {

// numpy's floor division of two float64 scalars (its divmod: the quotient of a - fmod(a, b), floored
// and snapped to the nearest integer), which can differ from floor(a / b) in the last bit.
double FloorDivide(double a, double b) {
  double mod = std::fmod(a, b);
  if (b == 0) return a / b;
  double div = (a - mod) / b;
  if (mod != 0 && ((b < 0) != (mod < 0))) {
    mod += b;
    div -= 1.0;
  }
  if (div == 0) return std::copysign(0.0, a / b);
  double floored = std::floor(div);
  if (div - floored > 0.5) floored += 1.0;
  return floored;
}

// MXNet's smoothing of a distribution of counts: each empty bin gets eps, taken evenly from the
// others. Empties `p` when every bin is empty or the others cannot give that much.
void Smooth(std::vector<float>& p) {
  constexpr float kEps = 0.0001f;
  const size_t zeros = static_cast<size_t>(std::count(p.begin(), p.end(), 0.f));
  const size_t nonzeros = p.size() - zeros;
  if (nonzeros == 0) {
    p.clear();
    return;
  }
  const float taken = kEps * static_cast<float>(zeros) / static_cast<float>(nonzeros);
  if (taken >= 1.0f) {
    p.clear();
    return;
  }
  for (float& v : p) v += v == 0.f ? kEps : -taken;
}

// KL(p || q) of two smoothed distributions of counts, each normalised first; float32 throughout.
float Divergence(std::vector<float>& p, std::vector<float>& q) {
  float p_sum = 0.f, q_sum = 0.f;
  for (float v : p) p_sum += v;
  for (float v : q) q_sum += v;
  for (float& v : p) v = v / p_sum;
  for (float& v : q) v = v / q_sum;
  float sum = 0.f;
  for (size_t i = 0; i < p.size(); ++i) sum += p[i] * std::log(p[i] / q[i]);
  return sum;
}

}  // namespace

void ValueHistogram::Reset(double limit, int64_t bins, bool single) {
  limit_ = limit;
  single_ = single;
  // numpy widens an empty range [0, 0] to [-0.5, 0.5].
  const double lo = limit == 0 ? -0.5 : -limit, hi = limit == 0 ? 0.5 : limit;
  counts_.assign(bins, 0);
  // numpy's linspace in float64, rounded to float32 (the histogram's type is its data's).
  edges_.resize(bins + 1);
  const double step = (hi - lo) / static_cast<double>(bins);
  for (int64_t i = 0; i < bins; ++i) {
    const double scaled = static_cast<double>(i) * step;
    edges_[i] = static_cast<float>(scaled + lo);
  }
  edges_[bins] = static_cast<float>(hi);
  // numpy's bin index: (v - lo) * (bins / (hi - lo)), in float32 once the data is float32.
  const double width = single ? static_cast<double>(static_cast<float>(hi) - static_cast<float>(lo)) : hi - lo;
  first_ = static_cast<float>(lo);
  last_ = static_cast<float>(hi);
  scale_ = static_cast<float>(static_cast<double>(bins) / width);
}

int64_t ValueHistogram::BinOf(float v) const {
  const int64_t bins = static_cast<int64_t>(counts_.size());
  int64_t i = static_cast<int64_t>((v - first_) * scale_);
  // Then numpy's corrections: the last edge belongs to the last bin, and a value rounded into the
  // wrong neighbour moves by one.
  if (i == bins) --i;
  if (v < edges_[i]) --i;
  if (v >= edges_[i + 1] && i != bins - 1) ++i;
  return i;
}

void ValueHistogram::Count(const float* values, int64_t n) {
  for (int64_t k = 0; k < n; ++k) {
    const float v = values[k];
    if (v >= first_ && v <= last_) ++counts_[BinOf(v)];
  }
}

void ValueHistogram::Add(const float* values, int64_t n, float lo, float hi) {
  const float t = std::max(std::fabs(lo), std::fabs(hi));
  if (counts_.empty()) {
    Reset(t, kBins, true);
    Count(values, n);
    return;
  }
  if (t <= limit_) {
    Count(values, n);
    return;
  }
  std::vector<int64_t> old = std::move(counts_);
  const int64_t old_bins = static_cast<int64_t>(old.size());
  if (limit_ == 0) {
    // Every value so far was zero (MXNet itself fails here, dividing by a bin width of zero): start
    // over on this batch's range with the zeros in the bin that holds zero.
    Reset(t, kBins, true);
    Count(values, n);
    int64_t zeros = 0;
    for (int64_t c : old) zeros += c;
    counts_[BinOf(0.f)] += zeros;
    return;
  }
  // MXNet's widening: as many bins of the old width on each side as cover t, the old counts in the
  // middle. numpy computes the old width and the new limit in float64, the growth in float32 while
  // the limit is still a batch's float32 maximum.
  const double old_step = 2.0 * limit_ / static_cast<double>(old_bins);
  const double growth = single_ ? static_cast<double>(t - static_cast<float>(limit_)) : static_cast<double>(t) - limit_;
  const int64_t extra = static_cast<int64_t>(FloorDivide(growth, old_step) + 1.0);
  const double added = static_cast<double>(extra) * old_step;
  Reset(added + limit_, old_bins + 2 * extra, false);
  Count(values, n);
  for (int64_t i = 0; i < old_bins; ++i) counts_[extra + i] += old[i];
}

Range ValueHistogram::EntropyRange(bool non_negative) const {
  Check(!counts_.empty(), Status::kInternal, "entropy range of an empty histogram");
  const float t = KlOptimalThreshold(counts_, edges_, non_negative ? 511 : 255);
  return non_negative ? Range{0.f, t} : Range{-t, t};
}

float KlOptimalThreshold(const std::vector<int64_t>& counts, const std::vector<float>& edges, int num_quantized_bins) {
  const int64_t bins = static_cast<int64_t>(counts.size());
  Check(bins % 2 == 1 && edges.size() == counts.size() + 1 && num_quantized_bins > 0 &&
            num_quantized_bins / 2 <= bins / 2,
        Status::kInternal, "KL threshold: histogram of " + std::to_string(bins) + " bins");
  const int64_t nq = num_quantized_bins;
  const int64_t middle = bins / 2;
  // MXNet hands the operator the counts as float32.
  std::vector<float> hist(counts.begin(), counts.end());
  std::vector<float> below(bins);  // below[j]: hist[0] + ... + hist[j], summed in that order in float32
  float running = 0.f;
  for (int64_t j = 0; j < bins; ++j) below[j] = running += hist[j];

  float best = std::numeric_limits<float>::max();  // MXNet starts from FLT_MAX: an infinity never wins
  float threshold = edges[middle + nq / 2 + 1];
  std::vector<float> p, q, merged(nq);
  std::vector<int64_t> kept;
  for (int64_t half = nq / 2; half <= middle; ++half) {
    const int64_t start = middle - half, stop = middle + half + 1, size = stop - start;
    // p: the reference distribution, the counts in (start, stop) with everything at or below `start`
    // in its first bin and everything from stop - 1 up in its last (MXNet's asymmetric split).
    p.assign(size, 0.f);
    kept.assign(size, 0);
    p[0] = below[start];
    for (int64_t k = 1; k < size; ++k) {
      p[k] = hist[start + k];
      kept[k] = static_cast<int64_t>(hist[start + k]);
    }
    for (int64_t j = stop; j < bins; ++j) p[size - 1] += hist[j];
    // q: the kept counts merged into nq groups (the remainder joins the last), each group's total
    // spread evenly over the bins where p is not empty, counted by the group's non-empty kept bins.
    const int64_t group = size / nq;
    for (int64_t g = 0; g < nq; ++g) {
      int64_t total = 0;
      for (int64_t k = g * group; k < (g + 1) * group; ++k) total += kept[k];
      merged[g] = static_cast<float>(total);
    }
    int64_t rest = 0;
    for (int64_t k = nq * group; k < size; ++k) rest += kept[k];
    merged[nq - 1] += static_cast<float>(rest);
    q.assign(size, 0.f);
    for (int64_t g = 0; g < nq; ++g) {
      const int64_t from = g * group, to = g == nq - 1 ? size : (g + 1) * group;
      const int64_t nonempty = std::count_if(kept.begin() + from, kept.begin() + to, [](int64_t c) { return c != 0; });
      if (nonempty == 0) continue;
      for (int64_t k = from; k < to; ++k)
        if (p[k] != 0.f) q[k] = merged[g] / static_cast<float>(nonempty);
    }
    Smooth(p);
    Smooth(q);
    const float divergence = q.empty() ? std::numeric_limits<float>::infinity() : Divergence(p, q);
    if (divergence < best) {
      best = divergence;
      threshold = edges[stop];
    }
  }
  return threshold;
}

}  // namespace qv
