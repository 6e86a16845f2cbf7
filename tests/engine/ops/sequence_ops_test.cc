// Embedding, SequenceLast and _zeros / _ones against references from MXNet 1.9.1's rules: Embedding
// truncates float ids toward zero and clips them into [0, input_dim - 1]; SequenceLast picks step
// length - 1 (axis 0: (T, N, ...), axis 1: (N, T, ...)).
#include "engine/ops/op_test_util.h"

using namespace qv_op_test;

TEST_CASE("Embedding picks weight rows by id, truncating and clipping as MXNet does", "[ops][embedding]") {
  Net net(1500);
  const Tensor& w = net.Param("emb_weight", {5, 3});
  const int emb = net.g.Op("Embedding", "emb0", {{"input_dim", "5"}, {"output_dim", "3"}, {"dtype", "float32"}},
                           {net.g.Variable("data"), net.g.Variable("emb_weight")});
  net.g.Output(emb);
  const Tensor ids({2, 4}, {0, 4, 2.7f, 1.2f, -1, 5, 9, -0.5f});
  const std::vector<int64_t> rows = {0, 4, 2, 1, 0, 4, 4, 0};
  Tensor want({2, 4, 3});
  for (size_t i = 0; i < rows.size(); ++i)
    for (int64_t j = 0; j < 3; ++j) want.data[i * 3 + j] = w.data[rows[i] * 3 + j];
  ExpectClose(RunSingleInput(net, ids).at(0), want, "embedding", 0.0);

  Net bad(1501);
  bad.Param("emb_weight", {4, 3});
  bad.g.Output(bad.g.Op("Embedding", "emb0", {{"input_dim", "5"}, {"output_dim", "3"}},
                        {bad.g.Variable("data"), bad.g.Variable("emb_weight")}));
  ExpectMessage(FailureOf([&] { RunSingleInput(bad, ids); }), "emb0", {"weight", "(4, 3)", "(5, 3)"});
}

TEST_CASE("SequenceLast takes each sequence's last step, along axis 0 or 1", "[ops][sequence_last]") {
  const Tensor x = RandomTensor({4, 3, 2, 2}, 1600);  // (T, N, 2, 2)
  auto ref = [&](bool batch_major, const std::vector<int64_t>& last) {
    const int64_t d0 = x.shape[0], d1 = x.shape[1];
    const int64_t n_batch = batch_major ? d0 : d1;
    Tensor y({n_batch, 2, 2});
    for (int64_t n = 0; n < n_batch; ++n)
      for (int64_t r = 0; r < 4; ++r)
        y.data[n * 4 + r] = x.data[(batch_major ? n * d1 + last[n] : last[n] * d1 + n) * 4 + r];
    return y;
  };
  ExpectClose(RunUnary("SequenceLast", {{"axis", "0"}}, x), ref(false, {3, 3, 3}), "axis 0", 0.0);
  ExpectClose(RunUnary("SequenceLast", {{"axis", "1"}}, x), ref(true, {2, 2, 2, 2}), "axis 1", 0.0);
  ExpectClose(RunUnary("SequenceLast", {}, x), ref(false, {3, 3, 3}), "default axis", 0.0);
  for (const std::string axis : {"0", "1"}) {
    GraphBuilder g;
    g.Output(g.Op("SequenceLast", "op0", {{"axis", axis}, {"use_sequence_length", "True"}},
                  {g.Variable("data"), g.Variable("sequence_length")}));
    // Float lengths are truncated; outside [1, T] they are clamped.
    const bool batch_major = axis == "1";
    const Tensor lengths = batch_major ? Tensor({4}, {1, 3.7f, 0, 9}) : Tensor({3}, {2, 4, 1.5f});
    const std::vector<int64_t> last = batch_major ? std::vector<int64_t>{0, 2, 0, 2} : std::vector<int64_t>{1, 3, 0};
    ExpectClose(Run(g, {x, lengths}).at(0), ref(batch_major, last), "lengths, axis " + axis, 0.0);
  }
  ExpectMessage(FailureOf([&] { RunUnary("SequenceLast", {{"axis", "2"}}, x); }), "op0", {"axis 2"});
}

TEST_CASE("_zeros and _ones fill their shape; a size left to inference comes from a consumer", "[ops][fill]") {
  for (const std::string op : {"_zeros", "_ones"}) {
    GraphBuilder g;
    const int data = g.Variable("data");
    g.Output(g.Op("elemwise_add", "add0", {}, {data, g.Op(op, "fill0", {{"shape", "(2, 3)"}, {"dtype", "float32"}}, {})}));
    const Tensor x = RandomTensor({2, 3}, 1700);
    Tensor want = x;
    if (op == "_ones")
      for (float& v : want.data) v += 1;
    ExpectClose(Run(g, {x}).at(0), want, op, 0.0);
  }
  // MXNet fills a 0 from the other operand of an elementwise consumer: (2, 0) + (2, 3) is (2, 3).
  GraphBuilder g;
  const int data = g.Variable("data");
  g.Output(g.Op("elemwise_add", "add0", {}, {data, g.Op("_ones", "fill0", {{"shape", "(2, 0)"}}, {})}));
  Tensor x = RandomTensor({2, 3}, 1701), want = x;
  for (float& v : want.data) v += 1;
  ExpectClose(Run(g, {x}).at(0), want, "(2, 0) from its consumer", 0.0);
  // With nothing sized to meet, the size stays unknown: refused.
  GraphBuilder alone;
  alone.Output(alone.Op("elemwise_add", "add0", {}, {alone.Op("_zeros", "fill0", {{"shape", "(0, 3)"}}, {}),
                                                     alone.Op("_zeros", "fill1", {{"shape", "(2, 0)"}}, {})}));
  ExpectMessage(FailureOf([&] { Run(alone, {}); }), "fill0", {"(0, 3)"});
}

// One step of an unrolled LSTM cell as Gluon's LSTMCell.unroll and mx.rnn.LSTMCell export it: the begin
// states are _zeros of shape (0, hidden), whose batch size MXNet's shape inference takes from the i2h
// projection they are added to (through the h2h FullyConnected), and the cell state from the gate it
// is multiplied with (through SliceChannel and sigmoid).
TEST_CASE("Unrolled cells' begin states take the batch size from their consumers", "[ops][fill]") {
  for (int64_t batch : {1, 3}) {
    Net net(1702);
    const Tensor& wi = net.Param("i2h_weight", {8, 4});
    const Tensor& bi = net.Param("i2h_bias", {8});
    const Tensor& wh = net.Param("h2h_weight", {8, 2});
    const Tensor& bh = net.Param("h2h_bias", {8});
    GraphBuilder& g = net.g;
    const int i2h = g.Op("FullyConnected", "i2h", {{"num_hidden", "8"}},
                         {g.Variable("data"), g.Variable("i2h_weight"), g.Variable("i2h_bias")});
    const int h0 = g.Op("_zeros", "begin_state_0", {{"shape", "(0, 2)"}, {"dtype", "float32"}}, {});
    const int c0 = g.Op("_zeros", "begin_state_1", {{"shape", "(0, 2)"}, {"dtype", "float32"}}, {});
    const int h2h = g.Op("FullyConnected", "h2h", {{"num_hidden", "8"}}, {h0, g.Variable("h2h_weight"),
                                                                         g.Variable("h2h_bias")});
    const int gates = g.Op("SliceChannel", "slice", {{"num_outputs", "4"}},
                           {g.Op("elemwise_add", "plus0", {}, {i2h, h2h})});
    const int forget = g.Op("sigmoid", "f", {}, {qv_test::Entry(gates, 1)});
    const int in = g.Op("sigmoid", "i", {}, {qv_test::Entry(gates, 0)});
    g.Output(g.Op("elemwise_add", "c1", {}, {g.Op("elemwise_mul", "mul0", {}, {forget, c0}), in}));
    const Tensor x = RandomTensor({batch, 4}, 1703);
    // h2h of zeros is its bias: the input gate is sigmoid of i2h's first quarter plus h2h's bias.
    const Tensor proj = qv_ref::FullyConnected(x, wi, &bi, true);
    Tensor want({batch, 2});
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t j = 0; j < 2; ++j)
        want.data[n * 2 + j] = 1.0f / (1.0f + std::exp(-(proj.data[n * 8 + j] + bh.data[j])));
    ExpectClose(RunSingleInput(net, x).at(0), want, "batch " + std::to_string(batch), 1e-6);
    (void)wh;
  }
}
