// The fused RNN operator (LSTM, GRU, vanilla) against a plain reference written here from MXNet 1.9.1's
// definitions (rnn_impl.h): the packed parameter vector holds every layer's and direction's W_x then
// W_h, then every b_x then b_h; gates i, f, g, o (LSTM) and r, z, n (GRU, n = tanh(x_n + r (h_n + b_hn))).
#include <cmath>

#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

namespace {

struct RnnCase {
  std::string mode;
  int64_t layers = 1, directions = 1, hidden = 4, steps = 5, batch = 3, input = 6;
  bool state_outputs = false;
  int64_t gates() const { return mode == "lstm" ? 4 : mode == "gru" ? 3 : 1; }
  bool lstm() const { return mode == "lstm"; }
  int64_t layer_input(int64_t l) const { return l == 0 ? input : directions * hidden; }
  std::string Describe() const {
    return mode + " layers " + std::to_string(layers) + " directions " + std::to_string(directions);
  }
};

double Sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

struct RefOut {
  Tensor y, hy, cy;
};

// The reference: layer by layer, each direction over the steps in its order, in double.
RefOut RefRnn(const RnnCase& c, const Tensor& x, const std::vector<float>& params, const Tensor* h0, const Tensor* c0) {
  const int64_t H = c.hidden, G = c.gates(), N = c.batch, T = c.steps, D = c.directions;
  // Offsets of each (layer, direction)'s W_x, W_h, b_x, b_h.
  std::vector<int64_t> wx, wh, bx, bh;
  int64_t at = 0;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      wx.push_back(at);
      at += G * H * c.layer_input(l);
      wh.push_back(at);
      at += G * H * H;
    }
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < D; ++d) {
      bx.push_back(at);
      at += G * H;
      bh.push_back(at);
      at += G * H;
    }
  REQUIRE(at == static_cast<int64_t>(params.size()));
  RefOut out{Tensor(), Tensor({c.layers * D, N, H}), Tensor({c.layers * D, N, H})};
  std::vector<double> in(x.data.begin(), x.data.end());
  int64_t width = c.input;
  for (int64_t l = 0; l < c.layers; ++l) {
    std::vector<double> next(static_cast<size_t>(T * N * D * H));
    for (int64_t d = 0; d < D; ++d) {
      const int64_t k = l * D + d;
      for (int64_t n = 0; n < N; ++n) {
        std::vector<double> h(H), cell(H);
        for (int64_t j = 0; j < H; ++j) {
          h[j] = h0 ? h0->data[(k * N + n) * H + j] : 0;
          cell[j] = c0 ? c0->data[(k * N + n) * H + j] : 0;
        }
        for (int64_t s = 0; s < T; ++s) {
          const int64_t t = d == 0 ? s : T - 1 - s;
          std::vector<double> gx(G * H), gh(G * H);
          for (int64_t r = 0; r < G * H; ++r) {
            gx[r] = params[bx[k] + r];
            gh[r] = params[bh[k] + r];
            for (int64_t i = 0; i < width; ++i) gx[r] += params[wx[k] + r * width + i] * in[(t * N + n) * width + i];
            for (int64_t i = 0; i < H; ++i) gh[r] += params[wh[k] + r * H + i] * h[i];
          }
          for (int64_t j = 0; j < H; ++j) {
            if (c.mode == "lstm") {
              const double ig = Sigmoid(gx[j] + gh[j]), fg = Sigmoid(gx[H + j] + gh[H + j]);
              const double gg = std::tanh(gx[2 * H + j] + gh[2 * H + j]), og = Sigmoid(gx[3 * H + j] + gh[3 * H + j]);
              cell[j] = fg * cell[j] + ig * gg;
              h[j] = og * std::tanh(cell[j]);
            } else if (c.mode == "gru") {
              const double rg = Sigmoid(gx[j] + gh[j]), zg = Sigmoid(gx[H + j] + gh[H + j]);
              const double ng = std::tanh(gx[2 * H + j] + rg * gh[2 * H + j]);
              h[j] = (1 - zg) * ng + zg * h[j];
            } else {
              const double v = gx[j] + gh[j];
              h[j] = c.mode == "rnn_relu" ? std::max(v, 0.0) : std::tanh(v);
            }
            next[(t * N + n) * D * H + d * H + j] = h[j];
          }
        }
        for (int64_t j = 0; j < H; ++j) {
          out.hy.data[(k * N + n) * H + j] = static_cast<float>(h[j]);
          out.cy.data[(k * N + n) * H + j] = static_cast<float>(cell[j]);
        }
      }
    }
    in = std::move(next);
    width = D * H;
  }
  out.y = Tensor({T, N, D * H}, std::vector<float>(in.begin(), in.end()));
  return out;
}

AttrMap RnnAttrs(const RnnCase& c) {
  return {{"mode", c.mode},
          {"num_layers", std::to_string(c.layers)},
          {"state_size", std::to_string(c.hidden)},
          {"bidirectional", c.directions == 2 ? "True" : "False"},
          {"state_outputs", c.state_outputs ? "True" : "False"},
          {"p", "0.2"},
          {"projection_size", "None"},
          {"lstm_state_clip_min", "None"},
          {"use_sequence_length", "False"}};
}

int64_t ParamCount(const RnnCase& c) {
  int64_t n = 0;
  for (int64_t l = 0; l < c.layers; ++l) n += c.directions * c.gates() * c.hidden * (c.layer_input(l) + c.hidden + 2);
  return n;
}

// mx.sym.RNN with the packed vector as one parameter and the begin states as data inputs.
void CheckWithStates(const RnnCase& c, unsigned seed) {
  const Tensor x = RandomTensor({c.steps, c.batch, c.input}, seed);
  const Tensor params = RandomTensor({ParamCount(c)}, seed + 1, -0.6f, 0.6f);
  const Shape state = {c.layers * c.directions, c.batch, c.hidden};
  const Tensor h0 = RandomTensor(state, seed + 2, -1, 1), c0 = RandomTensor(state, seed + 3, -1, 1);
  GraphBuilder g;
  std::vector<qv_test::Entry> inputs = {g.Variable("data"), g.Variable("rnn_parameters"), g.Variable("h0")};
  if (c.lstm()) inputs.push_back(g.Variable("c0"));
  const int rnn = g.Op("RNN", "rnn0", RnnAttrs(c), inputs);
  const int outputs = c.state_outputs ? (c.lstm() ? 3 : 2) : 1;
  for (int i = 0; i < outputs; ++i) g.Output({rnn, i});
  std::vector<Tensor> data = {x, h0};
  if (c.lstm()) data.push_back(c0);
  const auto got = Run(g, data, {{"rnn_parameters", params}});
  const RefOut want = RefRnn(c, x, params.data, &h0, c.lstm() ? &c0 : nullptr);
  REQUIRE(got.size() == static_cast<size_t>(outputs));
  ExpectClose(got[0], want.y, c.Describe() + " output");
  if (outputs > 1) ExpectClose(got[1], want.hy, c.Describe() + " hy");
  if (outputs > 2) ExpectClose(got[2], want.cy, c.Describe() + " cy");
}

}  // namespace

TEST_CASE("RNN matches a reference LSTM, GRU and vanilla RNN with given begin states", "[ops][rnn]") {
  unsigned seed = 1200;
  for (const std::string mode : {"lstm", "gru", "rnn_tanh", "rnn_relu"})
    for (const auto& [layers, directions] : std::vector<std::pair<int64_t, int64_t>>{{1, 1}, {2, 2}, {3, 1}})
      // Hidden 37: whole vectors of the step's loops and a remainder; batch 6: past the rows the step
      // runs as loops, on oneDNN's inner product.
      for (const auto& [hidden, batch] : std::vector<std::pair<int64_t, int64_t>>{{4, 3}, {37, 3}, {37, 6}}) {
        RnnCase c;
        c.mode = mode;
        c.layers = layers;
        c.directions = directions;
        c.hidden = hidden;
        c.batch = batch;
        c.state_outputs = layers != 3;
        RunCase(c.Describe() + " hidden " + std::to_string(hidden) + " batch " + std::to_string(batch),
                [&] { CheckWithStates(c, seed += 10); });
      }
}

TEST_CASE("RNN as Gluon exports it: _zeros begin states, weights joined by _rnn_param_concat", "[ops][rnn]") {
  for (const std::string mode : {"lstm", "gru"}) {
    RunCase(mode, [&] {
      RnnCase c;
      c.mode = mode;
      c.layers = 2;
      c.directions = 2;
      c.state_outputs = true;
      c.batch = 2;
      const Tensor x = RandomTensor({c.steps, c.batch, c.input}, 1300);
      // One parameter per matrix and bias, flattened and joined in MXNet's order.
      Net net(1301);
      GraphBuilder& g = net.g;
      const int data = g.Variable("data");
      std::vector<qv_test::Entry> parts;
      std::vector<float> packed;
      for (const char* kind : {"weight", "bias"})
        for (int64_t l = 0; l < c.layers; ++l)
          for (const char* dir : {"l", "r"})
            for (const char* which : {"i2h", "h2h"}) {
              const std::string name = std::string(dir) + std::to_string(l) + "_" + which + "_" + kind;
              const int64_t rows = c.gates() * c.hidden;
              const int64_t cols = std::string(which) == "i2h" ? c.layer_input(l) : c.hidden;
              const Tensor& p = std::string(kind) == "weight" ? net.Param(name, {rows, cols}, -0.6f, 0.6f)
                                                              : net.Param(name, {rows}, -0.6f, 0.6f);
              packed.insert(packed.end(), p.data.begin(), p.data.end());
              parts.push_back(g.Op("Reshape", "reshape_" + name, {{"shape", "-1"}}, {g.Variable(name)}));
            }
      const int joined = g.Op("_rnn_param_concat", "concat0", {{"dim", "0"}, {"num_args", std::to_string(parts.size())}},
                              parts);
      const AttrMap zeros = {{"shape", "(4, 0, 4)"}, {"dtype", "float32"}, {"__layout__", "LNC"}};
      std::vector<qv_test::Entry> inputs = {data, joined, g.Op("_zeros", "h0", zeros, {})};
      if (c.lstm()) inputs.push_back(g.Op("_zeros", "c0", zeros, {}));
      const int rnn = g.Op("RNN", "rnn0", RnnAttrs(c), inputs);
      g.Output({rnn, 0});
      g.Output({rnn, 1});
      CompiledGraph compiled(g.ToJson(), net.params);
      CHECK(compiled.InputNames() == std::vector<std::string>{"data"});
      const auto got = compiled.Run({x});
      const RefOut want = RefRnn(c, x, packed, nullptr, nullptr);
      ExpectClose(got[0], want.y, mode + " output");
      ExpectClose(got[1], want.hy, mode + " hy");
    });
  }
}

TEST_CASE("RNN refuses what it does not implement, naming the attribute or input", "[ops][rnn]") {
  RnnCase c;
  c.mode = "lstm";
  const Tensor x = RandomTensor({c.steps, c.batch, c.input}, 1400);
  const Tensor params = RandomTensor({ParamCount(c)}, 1401);
  const Tensor state = RandomTensor({1, c.batch, c.hidden}, 1402);
  auto run = [&](const AttrMap& extra, const Tensor& p, const Tensor& h0) {
    AttrMap attrs = RnnAttrs(c);
    for (const auto& [k, v] : extra) attrs[k] = v;
    GraphBuilder g;
    g.Output(g.Op("RNN", "rnn0", attrs, {g.Variable("data"), g.Variable("rnn_parameters"), g.Variable("h0"), g.Variable("c0")}));
    Run(g, {x, h0, h0}, {{"rnn_parameters", p}});
  };
  ExpectMessage(FailureOf([&] { run({{"projection_size", "2"}}, params, state); }), "rnn0", {"projection_size"});
  ExpectMessage(FailureOf([&] { run({{"use_sequence_length", "True"}}, params, state); }), "rnn0", {"use_sequence_length"});
  ExpectMessage(FailureOf([&] { run({{"lstm_state_clip_max", "1.0"}}, params, state); }), "rnn0", {"lstm_state_clip_max"});
  ExpectMessage(FailureOf([&] { run({{"mode", "lstmp"}}, params, state); }), "rnn0", {"mode", "lstmp"});
  ExpectMessage(FailureOf([&] { run({}, RandomTensor({ParamCount(c) - 1}, 1403), state); }), "rnn0", {"parameters"});
  ExpectMessage(FailureOf([&] { run({}, params, RandomTensor({2, c.batch, c.hidden}, 1404)); }), "rnn0", {"state"});
  // Weights computed at run time (joined with a data input) cannot be packed when the plan is built.
  GraphBuilder g;
  const int data = g.Variable("data"), more = g.Variable("more"), h0 = g.Variable("h0"), c0 = g.Variable("c0");
  const int joined = g.Op("_rnn_param_concat", "concat0", {{"dim", "0"}, {"num_args", "2"}},
                          {g.Variable("rnn_parameters"), more});
  g.Output(g.Op("RNN", "rnn0", RnnAttrs(c), {data, joined, h0, c0}));
  const Tensor head({ParamCount(c) - 3}, std::vector<float>(params.data.begin(), params.data.end() - 3));
  CompiledGraph compiled(g.ToJson(), {{"rnn_parameters", head}});
  REQUIRE(compiled.InputNames() == std::vector<std::string>{"data", "more", "h0", "c0"});
  ExpectMessage(FailureOf([&] { compiled.Run({x, RandomTensor({3}, 1405), state, state}); }), "rnn0",
                {"parameters must be a parameter"});
}

TEST_CASE("RNN begin states from _zeros: a full shape stays an input, a size to infer must agree", "[ops][rnn]") {
  RnnCase c;
  c.mode = "gru";
  c.state_outputs = true;
  const Tensor x = RandomTensor({c.steps, c.batch, c.input}, 1500);
  const Tensor params = RandomTensor({ParamCount(c)}, 1501, -0.6f, 0.6f);
  auto run = [&](const std::string& shape) {
    GraphBuilder g;
    const int zeros = g.Op("_zeros", "h0", {{"shape", shape}}, {});
    const int rnn = g.Op("RNN", "rnn0", RnnAttrs(c), {g.Variable("data"), g.Variable("rnn_parameters"), zeros});
    g.Output({rnn, 0});
    g.Output({rnn, 1});
    return Run(g, {x}, {{"rnn_parameters", params}});
  };
  const RefOut want = RefRnn(c, x, params.data, nullptr, nullptr);
  for (const std::string shape : {"(1, 3, 4)", "(1, 0, 4)", "(0, 0, 0)"}) {
    const auto got = run(shape);
    ExpectClose(got[0], want.y, "begin state " + shape + ": output");
    ExpectClose(got[1], want.hy, "begin state " + shape + ": hy");
  }
  ExpectMessage(FailureOf([&] { run("(1, 2, 4)"); }), "rnn0", {"state", "(1, 2, 4)"});
  ExpectMessage(FailureOf([&] { run("(1, 0, 5)"); }), "h0", {"(1, 0, 5)"});
}
