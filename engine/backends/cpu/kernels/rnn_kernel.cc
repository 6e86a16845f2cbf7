// The fused RNN as oneDNN inner products plus a gate loop. Quiver's oneDNN is built without its RNN
// primitives (scripts/build_onednn.sh), so each layer runs as: one inner product projecting every
// step's input for both directions at once (T*N rows, W_x of both directions stacked, b_x), then per
// direction and step one inner product of the previous h with W_h (+ b_h), and the gates in MXNet's
// order and formulas. The weights are cut out of MXNet's packed vector and reordered into oneDNN's
// preferred layouts once, when the plan is built.
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "common/error.h"
#include "ops/rnn.h"

namespace qv::cpu {
namespace {

using dnnl::memory;

// Y (rows x n) = X (rows x k) W^T + b, W (n x k) and b packed once.
std::unique_ptr<DnnlKernel> InnerProduct(int64_t rows, int64_t k, int64_t n, const std::vector<float>& w,
                                         const std::vector<float>& b) {
  const auto f32 = memory::data_type::f32;
  const Desc src({rows, k}, f32, memory::format_tag::ab), dst({rows, n}, f32, memory::format_tag::ab);
  const Desc bias({n}, f32, memory::format_tag::a);
  const dnnl::inner_product_forward::primitive_desc pd(CpuEngine(), dnnl::prop_kind::forward_inference, src,
                                                         Desc({n, k}, f32, memory::format_tag::any), bias, dst,
                                                         BaseAttr());
  const Desc wei = pd.weights_desc();
  std::unordered_map<int, ArgSource> args;
  args[DNNL_ARG_SRC] = {ArgSource::kInput, 0, nullptr, src};
  args[DNNL_ARG_DST] = {ArgSource::kOutput, 0, nullptr, dst};
  const Desc plain({n, k}, f32, memory::format_tag::ab);
  args[DNNL_ARG_WEIGHTS] = {ArgSource::kConstant, 0, ReorderConstant(w.data(), plain, wei), wei};
  args[DNNL_ARG_BIAS] = {ArgSource::kConstant, 0, ReorderConstant(b.data(), bias, bias), bias};
  return std::make_unique<DnnlKernel>(pd, std::move(args));
}

float Sigmoid(float v) { return 1.f / (1.f + std::exp(-v)); }

// One layer: the input projection of both directions, and each direction's recurrent projection.
struct Layer {
  std::unique_ptr<DnnlKernel> input;
  std::vector<std::unique_ptr<DnnlKernel>> recurrent;  // per direction
};

class RnnKernel : public Kernel {
 public:
  RnnKernel(const RnnParams& p, const Shape& data, std::vector<Layer> layers)
      : p_(p), steps_(data[0]), batch_(data[1]), layers_(std::move(layers)) {}

  void Execute(const ExecArgs& args) const override {
    const int64_t T = steps_, N = batch_, H = p_.hidden, D = p_.directions, G = p_.gates();
    std::vector<float> gx(static_cast<size_t>(T * N * D * G * H)), gh(static_cast<size_t>(N * G * H));
    std::vector<float> h(static_cast<size_t>(N * H)), c(static_cast<size_t>(N * H));
    std::vector<float> between[2];  // inner layers' outputs
    const size_t L = layers_.size();
    for (size_t l = 0; l < L; ++l) {
      const void* in = l == 0 ? args.inputs[0] : between[(l - 1) % 2].data();
      float* y = static_cast<float*>(args.outputs[0]);
      if (l + 1 < L) {
        between[l % 2].resize(static_cast<size_t>(T * N * D * H));
        y = between[l % 2].data();
      }
      Run(*layers_[l].input, in, gx.data(), args.threads);
      for (int64_t d = 0; d < D; ++d) {
        const int64_t k = static_cast<int64_t>(l) * D + d;  // the (layer, direction) row of the states
        if (p_.zero_begin_state) {
          std::fill(h.begin(), h.end(), 0.f);
          std::fill(c.begin(), c.end(), 0.f);
        } else {
          const float* h0 = static_cast<const float*>(args.inputs[1]) + k * N * H;
          std::copy(h0, h0 + N * H, h.begin());
          if (p_.has_cell()) {
            const float* c0 = static_cast<const float*>(args.inputs[2]) + k * N * H;
            std::copy(c0, c0 + N * H, c.begin());
          }
        }
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? s : T - 1 - s;
          Run(*layers_[l].recurrent[d], h.data(), gh.data(), args.threads);
          for (int64_t n = 0; n < N; ++n)
            Gates(gx.data() + ((t * N + n) * D + d) * G * H, gh.data() + n * G * H, h.data() + n * H,
                  c.data() + n * H, y + (t * N + n) * D * H + d * H);
        }
        if (p_.state_outputs) {
          std::copy(h.begin(), h.end(), static_cast<float*>(args.outputs[1]) + k * N * H);
          if (p_.has_cell()) std::copy(c.begin(), c.end(), static_cast<float*>(args.outputs[2]) + k * N * H);
        }
      }
    }
  }

 private:
  static void Run(const DnnlKernel& kernel, const void* in, float* out, int threads) {
    ExecArgs a;
    a.inputs = {const_cast<void*>(in)};
    a.outputs = {out};
    a.threads = threads;
    kernel.Execute(a);
  }

  // One sequence's step: x and r are its input and recurrent projections (biases included), gates in
  // MXNet's order; h and c are updated in place and h is also written to y.
  void Gates(const float* x, const float* r, float* h, float* c, float* y) const {
    const int64_t H = p_.hidden;
    for (int64_t j = 0; j < H; ++j) {
      switch (p_.mode) {
        case RnnMode::kLstm: {
          const float i = Sigmoid(x[j] + r[j]), f = Sigmoid(x[H + j] + r[H + j]);
          const float g = std::tanh(x[2 * H + j] + r[2 * H + j]), o = Sigmoid(x[3 * H + j] + r[3 * H + j]);
          c[j] = f * c[j] + i * g;
          h[j] = o * std::tanh(c[j]);
          break;
        }
        case RnnMode::kGru: {
          const float reset = Sigmoid(x[j] + r[j]), update = Sigmoid(x[H + j] + r[H + j]);
          const float n = std::tanh(x[2 * H + j] + reset * r[2 * H + j]);
          h[j] = (1.f - update) * n + update * h[j];
          break;
        }
        case RnnMode::kRnnRelu: h[j] = std::max(x[j] + r[j], 0.f); break;
        case RnnMode::kRnnTanh: h[j] = std::tanh(x[j] + r[j]); break;
      }
      y[j] = h[j];
    }
  }

  RnnParams p_;
  int64_t steps_, batch_;
  std::vector<Layer> layers_;
};

Layer BuildLayer(const RnnParams& p, const float* params, const Shape& x, int64_t layer) {
  const int64_t gh = p.gates() * p.hidden, in = p.LayerInput(layer, x[2]);
  std::vector<float> wx, bx;
  Layer built;
  for (int64_t d = 0; d < p.directions; ++d) {
    const RnnWeightOffsets o = RnnOffsets(p, x[2], layer, d);
    wx.insert(wx.end(), params + o.wx, params + o.wx + gh * in);
    bx.insert(bx.end(), params + o.bx, params + o.bx + gh);
    const std::vector<float> wh(params + o.wh, params + o.wh + gh * p.hidden), bh(params + o.bh, params + o.bh + gh);
    built.recurrent.push_back(InnerProduct(x[1], p.hidden, gh, wh, bh));
  }
  built.input = InnerProduct(x[0] * x[1], in, p.directions * gh, wx, bx);
  return built;
}

KernelBuild BuildRnn(const KernelRequest& req) {
  const RnnParams p = RnnParams::Parse(req.attrs);
  Check(req.inputs[1].constant != nullptr, Status::kUnsupported,
        req.attrs.Where() + "parameters must be a parameter, or _rnn_param_concat of parameters");
  const Shape& x = req.inputs[0].type.shape;
  const float* params = req.inputs[1].constant->plain().data_as<float>();
  std::vector<Layer> layers;
  for (int64_t l = 0; l < p.layers; ++l) layers.push_back(BuildLayer(p, params, x, l));

  KernelBuild build;
  for (size_t i = 0; i < req.inputs.size(); ++i) {
    if (i == 1) continue;
    build.runtime_inputs.push_back(static_cast<int>(i));
    build.input_descs.push_back(PlainDesc(req.inputs[i].type.shape));
  }
  for (const TensorType& out : req.outputs) build.output_descs.push_back(PlainDesc(out.shape));
  build.flops = 2.0 * static_cast<double>(p.ParamCount(x[2])) * static_cast<double>(x[0] * x[1]);
  build.kernel = std::make_unique<RnnKernel>(p, x, std::move(layers));
  return build;
}

const CpuKernelRegistrar kRegister({"RNN"}, BuildRnn);

}  // namespace
}  // namespace qv::cpu
