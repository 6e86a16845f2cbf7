// A direct double-precision reference for 3-D Convolution (NCDHW; weight (filters, C / groups, kd, kh, kw)),
// shared by the float32 and int8 convolution tests.
#pragma once

#include <string>
#include <vector>

#include "engine/ops/op_test_util.h"

namespace qv_op_test {

struct Conv3d {
  int64_t filters, groups;
  std::vector<int64_t> kernel, stride, pad, dilate;
  bool bias;
};

inline std::string TupleOf(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

inline AttrMap Conv3dAttrs(const Conv3d& c) {
  return {{"num_filter", std::to_string(c.filters)}, {"num_group", std::to_string(c.groups)},
          {"kernel", TupleOf(c.kernel)},  {"stride", TupleOf(c.stride)},
          {"pad", TupleOf(c.pad)},        {"dilate", TupleOf(c.dilate)},
          {"no_bias", c.bias ? "False" : "True"}};
}

inline Tensor RefConv3d(const Tensor& x, const Tensor& w, const Tensor* b, const Conv3d& c) {
  const int64_t n = x.shape[0], ci = x.shape[1], cig = ci / c.groups, cog = c.filters / c.groups;
  int64_t in[3], out[3];
  for (int a = 0; a < 3; ++a) {
    in[a] = x.shape[2 + a];
    out[a] = (in[a] + 2 * c.pad[a] - c.dilate[a] * (c.kernel[a] - 1) - 1) / c.stride[a] + 1;
  }
  Tensor y({n, c.filters, out[0], out[1], out[2]});
  int64_t at = 0;
  for (int64_t s = 0; s < n; ++s)
    for (int64_t o = 0; o < c.filters; ++o)
      for (int64_t d = 0; d < out[0]; ++d)
        for (int64_t h = 0; h < out[1]; ++h)
          for (int64_t v = 0; v < out[2]; ++v) {
            double acc = b ? b->data[o] : 0.0;
            const int64_t g = o / cog;
            for (int64_t i = 0; i < cig; ++i)
              for (int64_t kd = 0; kd < c.kernel[0]; ++kd)
                for (int64_t kh = 0; kh < c.kernel[1]; ++kh)
                  for (int64_t kw = 0; kw < c.kernel[2]; ++kw) {
                    const int64_t zd = d * c.stride[0] - c.pad[0] + kd * c.dilate[0];
                    const int64_t zh = h * c.stride[1] - c.pad[1] + kh * c.dilate[1];
                    const int64_t zw = v * c.stride[2] - c.pad[2] + kw * c.dilate[2];
                    if (zd < 0 || zd >= in[0] || zh < 0 || zh >= in[1] || zw < 0 || zw >= in[2]) continue;
                    const float xv = x.data[(((s * ci + g * cig + i) * in[0] + zd) * in[1] + zh) * in[2] + zw];
                    const float wv =
                        w.data[(((o * cig + i) * c.kernel[0] + kd) * c.kernel[1] + kh) * c.kernel[2] + kw];
                    acc += static_cast<double>(xv) * wv;
                  }
            y.data[at++] = static_cast<float>(acc);
          }
  return y;
}


}  // namespace qv_op_test
