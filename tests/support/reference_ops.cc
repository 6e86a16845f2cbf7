// Plain reference loops for the operator tests (see reference_ops.h). Sums accumulate in double so
// that the reference is at least as accurate as any kernel it judges.
#include "support/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace qv_ref {

namespace {

void Require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("qv_ref: " + what);
}

int64_t NormaliseAxis(int64_t axis, size_t ndim) {
  const int64_t n = static_cast<int64_t>(ndim);
  if (axis < 0) axis += n;
  Require(axis >= 0 && axis < n, "axis out of range");
  return axis;
}

// Splits shape into (outer, shape[axis], inner).
void SplitAt(const Shape& s, int64_t axis, int64_t* outer, int64_t* mid, int64_t* inner) {
  *outer = 1;
  *inner = 1;
  for (int64_t i = 0; i < axis; ++i) *outer *= s[i];
  *mid = s[axis];
  for (size_t i = static_cast<size_t>(axis) + 1; i < s.size(); ++i) *inner *= s[i];
}

// Softmax over the middle index of an (outer, n, inner) view.
void SoftmaxInPlace(std::vector<float>* data, int64_t outer, int64_t n, int64_t inner, double temperature) {
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      float* base = data->data() + o * n * inner + i;
      double biggest = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) biggest = std::max(biggest, static_cast<double>(base[k * inner]));
      double total = 0;
      std::vector<double> e(static_cast<size_t>(n));
      for (int64_t k = 0; k < n; ++k) {
        e[k] = std::exp((base[k * inner] - biggest) / temperature);
        total += e[k];
      }
      for (int64_t k = 0; k < n; ++k) base[k * inner] = static_cast<float>(e[k] / total);
    }
  }
}

}  // namespace

Tensor::Tensor(Shape s) : shape(std::move(s)), data(static_cast<size_t>(ElementCount(shape)), 0.0f) {}

Tensor::Tensor(Shape s, std::vector<float> values) : shape(std::move(s)), data(std::move(values)) {
  Require(static_cast<int64_t>(data.size()) == ElementCount(shape), "value count does not match shape");
}

int64_t ElementCount(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::ostringstream os;
  os << "(";
  for (size_t i = 0; i < shape.size(); ++i) os << (i ? ", " : "") << shape[i];
  if (shape.size() == 1) os << ",";
  os << ")";
  return os.str();
}

Tensor Convolution(const Tensor& x, const Tensor& weight, const Tensor* bias, const ConvParams& p) {
  Require(x.shape.size() == 4 && weight.shape.size() == 4, "Convolution wants 4-D data and weight");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  const int64_t f = weight.shape[0], g = p.num_group;
  Require(c % g == 0 && f % g == 0, "channels and filters must divide by num_group");
  const int64_t cg = c / g, fg = f / g;
  Require(weight.shape[1] == cg && weight.shape[2] == p.kernel_h && weight.shape[3] == p.kernel_w,
          "weight shape does not fit");
  if (bias) Require(bias->size() == f, "bias needs num_filter values");
  const int64_t oh = (h + 2 * p.pad_h - p.dilate_h * (p.kernel_h - 1) - 1) / p.stride_h + 1;
  const int64_t ow = (w + 2 * p.pad_w - p.dilate_w * (p.kernel_w - 1) - 1) / p.stride_w + 1;
  Require(oh > 0 && ow > 0, "Convolution output would be empty");
  Tensor y({n, f, oh, ow});
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t oc = 0; oc < f; ++oc) {
      const int64_t group = oc / fg;
      for (int64_t oy = 0; oy < oh; ++oy) {
        for (int64_t ox = 0; ox < ow; ++ox) {
          double acc = bias ? bias->data[oc] : 0.0;
          for (int64_t icg = 0; icg < cg; ++icg) {
            const int64_t ic = group * cg + icg;
            for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
              const int64_t iy = oy * p.stride_h - p.pad_h + ky * p.dilate_h;
              if (iy < 0 || iy >= h) continue;
              for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                const int64_t ix = ox * p.stride_w - p.pad_w + kx * p.dilate_w;
                if (ix < 0 || ix >= w) continue;
                const double xv = x.data[((b * c + ic) * h + iy) * w + ix];
                const double wv = weight.data[((oc * cg + icg) * p.kernel_h + ky) * p.kernel_w + kx];
                acc += xv * wv;
              }
            }
          }
          y.data[((b * f + oc) * oh + oy) * ow + ox] = static_cast<float>(acc);
        }
      }
    }
  }
  return y;
}

Tensor BatchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                 const Tensor& var, float eps, bool fix_gamma) {
  Require(x.shape.size() >= 2, "BatchNorm wants at least 2-D data");
  int64_t outer, c, inner;
  SplitAt(x.shape, 1, &outer, &c, &inner);
  Require(gamma.size() == c && beta.size() == c && mean.size() == c && var.size() == c,
          "BatchNorm parameters need one value per channel");
  Tensor y(x.shape);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t ch = 0; ch < c; ++ch) {
      const double g = fix_gamma ? 1.0 : gamma.data[ch];
      const double inv_std = 1.0 / std::sqrt(static_cast<double>(var.data[ch]) + static_cast<double>(eps));
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t at = (o * c + ch) * inner + i;
        y.data[at] = static_cast<float>((x.data[at] - static_cast<double>(mean.data[ch])) * inv_std * g + beta.data[ch]);
      }
    }
  }
  return y;
}

Tensor Activation(const Tensor& x, const std::string& act_type) {
  Tensor y(x.shape);
  for (int64_t i = 0; i < x.size(); ++i) {
    const double v = x.data[i];
    double r;
    if (act_type == "relu") {
      r = v > 0 ? v : 0.0;
    } else if (act_type == "sigmoid") {
      r = 1.0 / (1.0 + std::exp(-v));
    } else if (act_type == "tanh") {
      r = std::tanh(v);
    } else if (act_type == "softrelu") {
      r = std::log1p(std::exp(v));
    } else if (act_type == "softsign") {
      r = v / (1.0 + std::fabs(v));
    } else {
      throw std::invalid_argument("qv_ref: unknown act_type " + act_type);
    }
    y.data[i] = static_cast<float>(r);
  }
  return y;
}

int64_t PooledSize(int64_t in, int64_t kernel, int64_t pad, int64_t stride, bool full_convention) {
  const int64_t room = in + 2 * pad - kernel;
  Require(room >= 0, "pooling kernel larger than the padded input");
  // Both branches divide a non-negative number, so C++ truncation is floor here.
  return 1 + (full_convention ? (room + stride - 1) / stride : room / stride);
}

Tensor Pooling(const Tensor& x, const PoolParams& params) {
  Require(x.shape.size() == 4, "Pooling wants 4-D data");
  const int64_t n = x.shape[0], c = x.shape[1], h = x.shape[2], w = x.shape[3];
  PoolParams p = params;
  if (p.global_pool) {
    // MXNet: the kernel covers the whole image, no padding, stride 1.
    p.kernel_h = h;
    p.kernel_w = w;
    p.pad_h = p.pad_w = 0;
    p.stride_h = p.stride_w = 1;
  }
  const int64_t oh = PooledSize(h, p.kernel_h, p.pad_h, p.stride_h, p.full_convention);
  const int64_t ow = PooledSize(w, p.kernel_w, p.pad_w, p.stride_w, p.full_convention);
  Tensor y({n, c, oh, ow});
  for (int64_t plane = 0; plane < n * c; ++plane) {
    const float* in = x.data.data() + plane * h * w;
    float* out = y.data.data() + plane * oh * ow;
    for (int64_t oy = 0; oy < oh; ++oy) {
      for (int64_t ox = 0; ox < ow; ++ox) {
        // The window, first cut at the end of the padded input ...
        int64_t y0 = oy * p.stride_h - p.pad_h, x0 = ox * p.stride_w - p.pad_w;
        int64_t y1 = std::min(y0 + p.kernel_h, h + p.pad_h), x1 = std::min(x0 + p.kernel_w, w + p.pad_w);
        const int64_t padded_area = (y1 - y0) * (x1 - x0);
        // ... then cut to the real input.
        y0 = std::max<int64_t>(y0, 0);
        x0 = std::max<int64_t>(x0, 0);
        y1 = std::min(y1, h);
        x1 = std::min(x1, w);
        if (p.is_max) {
          float best = std::numeric_limits<float>::lowest();
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) best = std::max(best, in[iy * w + ix]);
          out[oy * ow + ox] = best;
        } else {
          const int64_t area = p.count_include_pad ? padded_area : (y1 - y0) * (x1 - x0);
          double sum = 0;
          for (int64_t iy = y0; iy < y1; ++iy)
            for (int64_t ix = x0; ix < x1; ++ix) sum += in[iy * w + ix];
          // An empty window (possible only with stride > kernel) gives NaN, as in MXNet.
          out[oy * ow + ox] = area > 0 ? static_cast<float>(sum / area) : std::nanf("");
        }
      }
    }
  }
  return y;
}

Tensor FullyConnected(const Tensor& x, const Tensor& weight, const Tensor* bias, bool flatten) {
  Require(!x.shape.empty() && weight.shape.size() == 2, "FullyConnected wants data and a 2-D weight");
  const int64_t hidden = weight.shape[0], k = weight.shape[1];
  int64_t rows;
  Shape out_shape;
  if (flatten) {
    rows = x.shape[0];
    Require(x.size() == rows * k, "FullyConnected (flatten): data does not fit the weight");
    out_shape = {rows, hidden};
  } else {
    Require(x.shape.back() == k, "FullyConnected (no flatten): last axis does not fit the weight");
    rows = x.size() / k;
    out_shape = x.shape;
    out_shape.back() = hidden;
  }
  if (bias) Require(bias->size() == hidden, "bias needs num_hidden values");
  Tensor y(out_shape);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < hidden; ++j) {
      double acc = bias ? bias->data[j] : 0.0;
      for (int64_t i = 0; i < k; ++i)
        acc += static_cast<double>(x.data[r * k + i]) * weight.data[j * k + i];
      y.data[r * hidden + j] = static_cast<float>(acc);
    }
  }
  return y;
}

Tensor Flatten(const Tensor& x) {
  Require(!x.shape.empty(), "Flatten wants at least 1-D data");
  const int64_t n = x.shape[0];
  return Tensor({n, n == 0 ? 0 : x.size() / n}, x.data);
}

Tensor BroadcastAdd(const Tensor& a, const Tensor& b) {
  const size_t nd = std::max(a.shape.size(), b.shape.size());
  // Both shapes padded with leading 1s to nd axes.
  Shape sa(nd, 1), sb(nd, 1), so(nd, 1);
  std::copy(a.shape.begin(), a.shape.end(), sa.begin() + (nd - a.shape.size()));
  std::copy(b.shape.begin(), b.shape.end(), sb.begin() + (nd - b.shape.size()));
  for (size_t i = 0; i < nd; ++i) {
    Require(sa[i] == sb[i] || sa[i] == 1 || sb[i] == 1, "shapes do not broadcast");
    so[i] = sa[i] == 1 ? sb[i] : sa[i];
  }
  Tensor y(so);
  std::vector<int64_t> index(nd, 0);
  for (int64_t flat = 0; flat < y.size(); ++flat) {
    int64_t rem = flat;
    for (size_t i = nd; i-- > 0;) {
      index[i] = rem % so[i];
      rem /= so[i];
    }
    int64_t ia = 0, ib = 0;
    for (size_t i = 0; i < nd; ++i) {
      ia = ia * sa[i] + (sa[i] == 1 ? 0 : index[i]);
      ib = ib * sb[i] + (sb[i] == 1 ? 0 : index[i]);
    }
    y.data[flat] = a.data[ia] + b.data[ib];
  }
  return y;
}

Tensor Softmax(const Tensor& x, int64_t axis, float temperature) {
  Require(temperature > 0, "temperature must be positive");
  axis = NormaliseAxis(axis, x.shape.size());
  int64_t outer, mid, inner;
  SplitAt(x.shape, axis, &outer, &mid, &inner);
  Tensor y = x;
  SoftmaxInPlace(&y.data, outer, mid, inner, temperature);
  return y;
}

Tensor SoftmaxOutput(const Tensor& x, bool multi_output, bool preserve_shape) {
  Require(!x.shape.empty(), "SoftmaxOutput wants at least 1-D data");
  Tensor y = x;
  int64_t outer, mid, inner;
  if (multi_output) {
    SplitAt(x.shape, 1, &outer, &mid, &inner);
  } else if (preserve_shape) {
    SplitAt(x.shape, static_cast<int64_t>(x.shape.size()) - 1, &outer, &mid, &inner);
  } else {
    outer = x.shape.size() == 1 ? 1 : x.shape[0];
    mid = outer == 0 ? 0 : x.size() / outer;
    inner = 1;
  }
  SoftmaxInPlace(&y.data, outer, mid, inner, 1.0);
  return y;
}

Tensor Concat(const std::vector<Tensor>& xs, int64_t dim) {
  Require(!xs.empty(), "Concat wants at least one input");
  const Shape& first = xs[0].shape;
  dim = NormaliseAxis(dim, first.size());
  Shape out_shape = first;
  out_shape[dim] = 0;
  for (const Tensor& t : xs) {
    Require(t.shape.size() == first.size(), "Concat inputs differ in rank");
    for (size_t i = 0; i < first.size(); ++i)
      if (static_cast<int64_t>(i) != dim) Require(t.shape[i] == first[i], "Concat inputs differ off the axis");
    out_shape[dim] += t.shape[dim];
  }
  int64_t outer, mid, inner;
  SplitAt(out_shape, dim, &outer, &mid, &inner);
  Tensor y(out_shape);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t offset = 0;  // position along dim where this input starts
    for (const Tensor& t : xs) {
      const int64_t chunk = t.shape[dim] * inner;
      std::copy(t.data.begin() + o * chunk, t.data.begin() + (o + 1) * chunk,
                y.data.begin() + (o * mid + offset) * inner);
      offset += t.shape[dim];
    }
  }
  return y;
}

}  // namespace qv_ref
