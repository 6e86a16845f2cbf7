// The fused RNN as oneDNN inner products plus a gate loop. Quiver's oneDNN is built without its RNN
// primitives (scripts/build_onednn.sh), so each layer runs as: one inner product projecting every
// step's input for both directions at once (T*N rows, W_x of both directions stacked, b_x), then per
// direction and step the projection of the previous h with W_h (+ b_h), and the gates (rnn_gates.h).
// For batches of more than kLoopRows sequences the step's projection is an inner product; below that
// each thread takes a range of hidden units and runs their projection (a vectorized loop over W_h in
// panels) and their gates, one parallel loop per step (a batch-1 LSTM of 200 units, 2 threads: ~8.5 us
// a step instead of ~13). The weights are cut out of MXNet's packed vector and laid out once, when the plan is built.
#include <algorithm>
#include <vector>

#include "backends/cpu/kernels/dnnl_kernel.h"
#include "backends/cpu/kernels/rnn_gates.h"
#include "backends/cpu/runtime/compute_pool.h"
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

constexpr int64_t kLoopRows = 4;

// Hidden units in whole vectors: the loops' gates start at multiples of 16 (W_h^T's and b_h's padding
// columns are zeros).
int64_t Padded(int64_t hidden) { return (hidden + 15) / 16 * 16; }

// One direction's recurrent projection: an inner product, or for the loop W_h in panels (rnn_gates.h),
// gate g's unit j as output g * Padded(hidden) + j, and b_h likewise.
struct Recurrent {
  std::unique_ptr<DnnlKernel> product;
  std::vector<float> panels, bias;
};

// One layer: the input projection of both directions, and each direction's recurrent projection.
struct Layer {
  std::unique_ptr<DnnlKernel> input;
  std::vector<Recurrent> recurrent;  // per direction
};

class RnnKernel : public Kernel {
 public:
  RnnKernel(const RnnParams& p, const Shape& data, std::vector<Layer> layers)
      : p_(p), steps_(data[0]), batch_(data[1]), layers_(std::move(layers)) {}

  void Execute(const ExecArgs& args) const override {
    const int64_t T = steps_, N = batch_, H = p_.hidden, D = p_.directions, G = p_.gates();
    std::vector<float> gx(static_cast<size_t>(T * N * D * G * H)), gh(static_cast<size_t>(N * G * Padded(H)));
    std::vector<float> c(static_cast<size_t>(N * H)), scratch(static_cast<size_t>(G * H));
    std::vector<float> h[2] = {std::vector<float>(static_cast<size_t>(N * H)),
                               std::vector<float>(static_cast<size_t>(N * H))};  // previous and next state
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
          std::fill(h[0].begin(), h[0].end(), 0.f);
          std::fill(c.begin(), c.end(), 0.f);
        } else {
          const float* h0 = static_cast<const float*>(args.inputs[1]) + k * N * H;
          std::copy(h0, h0 + N * H, h[0].begin());
          if (p_.has_cell()) {
            const float* c0 = static_cast<const float*>(args.inputs[2]) + k * N * H;
            std::copy(c0, c0 + N * H, c.begin());
          }
        }
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? s : T - 1 - s;
          const StepArgs step{gx.data() + (t * N * D + d) * G * H, h[s % 2].data(), c.data(), h[(s + 1) % 2].data(),
                              y + t * N * D * H + d * H, gh.data(), scratch.data()};
          Step(layers_[l].recurrent[d], step, args.threads);
        }
        if (p_.state_outputs) {
          const std::vector<float>& last = h[T % 2];
          std::copy(last.begin(), last.end(), static_cast<float*>(args.outputs[1]) + k * N * H);
          if (p_.has_cell()) std::copy(c.begin(), c.end(), static_cast<float*>(args.outputs[2]) + k * N * H);
        }
      }
    }
  }

 private:
  // One step of one direction, every sequence: x (its input projections, sequence n at n*D*G*H), the
  // previous state h, the cell c (updated), the next state h_out, y (its output, sequence n at n*D*H),
  // and room for the recurrent projections (gh: G*H per sequence, or G*Padded(H) for the loop) and the
  // gates (scratch).
  struct StepArgs {
    const float* x;
    const float* h;
    float* c;
    float* h_out;
    float* y;
    float* gh;
    float* scratch;
  };

  void Step(const Recurrent& r, const StepArgs& a, int threads) const {
    const int64_t N = batch_, H = p_.hidden, G = p_.gates(), D = p_.directions;
    if (r.product) {
      Run(*r.product, a.h, a.gh, threads);
      for (int64_t n = 0; n < N; ++n)
        RnnGates(p_.mode, H, H, H, a.x + n * D * G * H, a.gh + n * G * H, a.h + n * H, a.c + n * H, a.h_out + n * H,
                 a.y + n * D * H, a.scratch);
      return;
    }
    // Units in whole vectors of 16 per thread; each thread reads the whole previous state and writes
    // only its units of the next one.
    const int64_t P = Padded(H), blocks = P / 16;
    const int64_t chunks = std::min<int64_t>(threads, blocks);
    ParallelFor(static_cast<int>(chunks), chunks, [&](int64_t chunk) {
      const int64_t j0 = blocks * chunk / chunks * 16, j1 = blocks * (chunk + 1) / chunks * 16;
      for (int64_t n = 0; n < N; ++n) {
        float* gh = a.gh + n * G * P;
        for (int64_t g = 0; g < G; ++g)
          RowTimesPanels(r.panels.data() + (g * P + j0) * H, r.bias.data() + g * P + j0, a.h + n * H,
                         gh + g * P + j0, H, j1 - j0);
        RnnGates(p_.mode, std::min(j1, H) - j0, H, P, a.x + n * D * G * H + j0, gh + j0, a.h + n * H + j0,
                 a.c + n * H + j0, a.h_out + n * H + j0, a.y + n * D * H + j0, a.scratch + G * j0);
      }
    });
  }

  static void Run(const DnnlKernel& kernel, const void* in, float* out, int threads) {
    ExecArgs a;
    a.inputs = {const_cast<void*>(in)};
    a.outputs = {out};
    a.threads = threads;
    kernel.Execute(a);
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
    Recurrent r;
    if (x[1] > kLoopRows) {
      r.product = InnerProduct(x[1], p.hidden, gh, wh, bh);
    } else {
      const int64_t P = Padded(p.hidden);
      r.panels.assign(static_cast<size_t>(p.hidden * p.gates() * P), 0.f);
      r.bias.assign(static_cast<size_t>(p.gates() * P), 0.f);
      for (int64_t g = 0; g < p.gates(); ++g)
        for (int64_t j = 0; j < p.hidden; ++j) {
          const int64_t row = g * p.hidden + j, out = g * P + j;  // W_h's row, the loop's output
          for (int64_t k = 0; k < p.hidden; ++k)
            r.panels[out / 16 * 16 * p.hidden + k * 16 + out % 16] = wh[row * p.hidden + k];
          r.bias[out] = bh[row];
        }
    }
    built.recurrent.push_back(std::move(r));
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
    AddRuntimeInput(build, static_cast<int>(i), PlainDesc(req.inputs[i].type.shape));
  }
  for (const TensorType& out : req.outputs) AddOutput(build, PlainDesc(out.shape));
  build.flops = 2.0 * static_cast<double>(p.ParamCount(x[2])) * static_cast<double>(x[0] * x[1]);
  build.kernel = std::make_unique<RnnKernel>(p, x, std::move(layers));
  return build;
}

const CpuKernelRegistrar kRegister({"RNN"}, BuildRnn);

}  // namespace
}  // namespace qv::cpu
