"""The conformance suite's sequence models: a small BERT encoder built with Gluon op for op as GluonNLP
0.10's BERTModel builds its graph (imported by make_fixtures.py; GluonNLP itself is not in the suite's
venv).

What it reproduces of GluonNLP's `BERTModel(BERTEncoder(...), use_pooler=True)`, hybridized: the
(batch, seq, C) -> (seq, batch, C) transpose; positions counted with `_contrib_arange_like`; the valid
lengths broadcast to (batch, seq) and cast to int32; a position embedding added and LayerNorm(eps 1e-12);
per layer the fused self-attention of DotProductSelfAttentionCell (query/key/value weights reshaped per
head and concatenated in the graph, one FullyConnected, `_contrib_interleaved_matmul_selfatt_qk`,
`softmax(use_length=True)` over lengths broadcast to (batch * heads, seq), `_contrib_interleaved_matmul_
selfatt_valatt`), the projection, residual and LayerNorm, the GELU feed-forward (LeakyReLU gelu) with
its residual and LayerNorm; SequenceMask over the valid lengths; the pooler (first position, Dense,
tanh). Outputs: the sequence (batch, seq, C) and the pooled (batch, C).

Differences: the inputs are the token embeddings (batch, seq, C) rather than token ids (the word and
token-type Embedding lookups are left out until Quiver has Embedding), and the position embedding is
`slice_like` of the position table instead of `Embedding(arange_like(x))` (the same rows).

`fused=False` builds the same network from the unfused operators MXNet documents as the interleaved
ops' equivalent (reshape, transpose, `_contrib_div_sqrt_dim`, `batch_dot`): the "transformer_unfused"
model, and the float64 reference, since MXNet's interleaved operators run only in float32 on the CPU.
"""
import os
import zlib

import mxnet as mx
import numpy as np
from mxnet.gluon import HybridBlock, nn


class SelfAttention(HybridBlock):
    def __init__(self, units, heads, fused, **kwargs):
        super().__init__(**kwargs)
        self._units, self._heads, self._fused = units, heads, fused
        with self.name_scope():
            for part in ("query", "key", "value"):
                setattr(self, part + "_weight", self.params.get(part + "_weight", shape=(units, units)))
                setattr(self, part + "_bias", self.params.get(part + "_bias", shape=(units,)))

    def hybrid_forward(self, F, x, lengths, query_weight, key_weight, value_weight, query_bias, key_bias,
                       value_bias):
        h = self._heads
        if self._fused:  # GluonNLP's interleaved projection: per head, its query, key and value rows
            w = F.concat(*[F.reshape(p, shape=(h, -1, 0), reverse=True)
                           for p in (query_weight, key_weight, value_weight)], dim=-2)
            b = F.stack(*[F.reshape(p, shape=(h, -1), reverse=True) for p in (query_bias, key_bias, value_bias)],
                        axis=1)
            qkv = F.FullyConnected(x, F.reshape(w, shape=(-1, 0), reverse=True), F.reshape(b, shape=-1),
                                   num_hidden=3 * self._units, flatten=False)
            scores = F.contrib.interleaved_matmul_selfatt_qk(qkv, heads=h)
            weights = F.softmax(scores, lengths, axis=-1, use_length=True)
            return F.contrib.interleaved_matmul_selfatt_valatt(qkv, weights, heads=h)

        def heads_first(p, bias):  # (seq, batch, C) -> (batch * heads, seq, C / heads)
            y = F.FullyConnected(x, p, bias, num_hidden=self._units, flatten=False)
            y = F.transpose(F.reshape(y, shape=(0, 0, h, -1)), axes=(1, 2, 0, 3))
            return F.reshape(y, shape=(-1, 0, 0), reverse=True)
        q = F.contrib.div_sqrt_dim(heads_first(query_weight, query_bias))
        k, v = heads_first(key_weight, key_bias), heads_first(value_weight, value_bias)
        weights = F.softmax(F.batch_dot(q, k, transpose_b=True), lengths, axis=-1, use_length=True)
        ctx = F.reshape(F.batch_dot(weights, v), shape=(-1, h, 0, 0), reverse=True)  # (batch, heads, seq, d)
        return F.reshape(F.transpose(ctx, axes=(2, 0, 1, 3)), shape=(0, 0, -1))


class EncoderLayer(HybridBlock):
    def __init__(self, units, hidden, heads, fused, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.attention = SelfAttention(units, heads, fused)
            self.proj = nn.Dense(units, flatten=False, in_units=units)
            self.ln_attention = nn.LayerNorm(epsilon=1e-12, in_channels=units)
            self.ffn_1 = nn.Dense(hidden, flatten=False, in_units=units)
            self.ffn_2 = nn.Dense(units, flatten=False, in_units=hidden)
            self.ln_ffn = nn.LayerNorm(epsilon=1e-12, in_channels=units)

    def hybrid_forward(self, F, x, lengths):
        x = self.ln_attention(self.proj(self.attention(x, lengths)) + x)
        return self.ln_ffn(self.ffn_2(F.LeakyReLU(self.ffn_1(x), act_type="gelu")) + x)


class SmallBert(HybridBlock):
    def __init__(self, units=64, hidden=128, heads=2, layers=2, max_length=64, fused=True, **kwargs):
        super().__init__(**kwargs)
        self._units, self._heads = units, heads
        with self.name_scope():
            self.position_weight = self.params.get("position_weight", shape=(max_length, units))
            self.ln = nn.LayerNorm(epsilon=1e-12, in_channels=units)
            self.layers = nn.HybridSequential()
            for _ in range(layers):
                self.layers.add(EncoderLayer(units, hidden, heads, fused))
            self.pooler = nn.Dense(units, flatten=False, in_units=units, activation="tanh")

    def hybrid_forward(self, F, data, valid_length, position_weight):
        x = F.transpose(data, axes=(1, 0, 2))  # (seq, batch, C)
        steps = F.contrib.arange_like(x, axis=0)
        lengths = F.broadcast_add(F.reshape(valid_length, shape=(-1, 1)), F.reshape(F.zeros_like(steps), shape=(1, -1)))
        lengths = F.cast(lengths, dtype="int32")  # (batch, seq)
        x = F.broadcast_add(x, F.expand_dims(F.slice_like(position_weight, x, axes=(0,)), axis=1))
        x = self.ln(x)
        per_head = F.reshape(F.broadcast_axis(F.expand_dims(lengths, axis=1), axis=1, size=self._heads),
                             shape=(-1, 0), reverse=True)  # (batch * heads, seq)
        for layer in self.layers:
            x = layer(x, per_head)
        x = F.transpose(F.SequenceMask(x, valid_length, use_sequence_length=True, axis=0), axes=(1, 0, 2))
        first = F.reshape(F.slice(x, begin=(0, 0, 0), end=(None, 1, None)), shape=(-1, self._units))
        return x, self.pooler(first)


SEQUENCE_MODELS = {"bert_small": True, "transformer_unfused": False}  # name -> fused attention
INPUT_NAMES = ["data0", "data1"]  # as HybridBlock.export names them: token embeddings, valid lengths


def initialize(net, rng):
    """Weights of unit-scale outputs (N(0, 1 / fan_in)), so that attention scores are O(1) and the
    softmax masks matter; small random biases; LayerNorm affine terms near identity."""
    for name, p in sorted(net.collect_params().items()):
        shape = p.shape
        if name.endswith("weight"):
            fan_in = shape[1] if len(shape) > 1 and not name.endswith("position_weight") else 1
            value = rng.normal(0, 1 / np.sqrt(fan_in), shape)
        elif name.endswith("gamma"):
            value = rng.uniform(0.5, 1.5, shape)
        else:
            value = rng.uniform(-0.2, 0.2, shape)
        p.initialize(init=mx.init.Constant(mx.nd.array(value)), force_reinit=True)
        p.set_data(mx.nd.array(value))


def build(name, rng):
    """The network (hybridized, run once) and its unfused twin with the same parameters."""
    net = SmallBert(fused=SEQUENCE_MODELS[name], prefix="bert_")
    initialize(net, rng)
    twin = SmallBert(fused=False, prefix="bert_", params=net.collect_params())
    net.hybridize()
    return net, twin


def inputs(batch, seq, units, rng):
    """Token embeddings N(0, 1) and valid lengths (float32, as MXNet users feed them): the first
    sequence full, the others shorter."""
    lengths = [seq] + [int(v) for v in rng.randint(1, seq, batch - 1)]
    return {"data0": rng.normal(0, 1, (batch, seq, units)).astype(np.float32),
            "data1": np.array(lengths, np.float32)}


def float32_error(sym, reference, args, feed):
    """MXNet float32 (the exported symbol) against float64 (the unfused twin, same parameters):
    max |f32 - f64| / max |f64| over both outputs."""
    runs = []
    for s, dtype in ((sym, "float32"), (reference, "float64")):
        values = dict(args, **{k: mx.nd.array(v) for k, v in feed.items()})
        ex = s.bind(mx.cpu(), args={k: values[k].astype(dtype) for k in s.list_arguments()}, grad_req="null")
        runs.append(np.concatenate([o.asnumpy().astype(np.float64).ravel() for o in ex.forward(is_train=False)]))
    return float(np.abs(runs[0] - runs[1]).max() / np.abs(runs[1]).max())


def export(name, cases, out_dir, tmp_dir):
    """Exports the hybridized network as a Gluon user would, and records MXNet's outputs of the saved
    files for each (batch, sequence length) case; the manifest entry names each input's file."""
    rng = np.random.RandomState(zlib.crc32(name.encode()) % (2 ** 31))
    net, twin = build(name, rng)
    units = net._units
    first = inputs(cases[0][0], cases[0][1], units, rng)
    net(*[mx.nd.array(first[k]) for k in INPUT_NAMES])
    net.export(os.path.join(out_dir, name))
    prefix = os.path.join(out_dir, name)
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", INPUT_NAMES, prefix + "-0000.params")
    model.hybridize()
    sym = mx.sym.load(prefix + "-symbol.json")
    reference = mx.sym.Group(list(twin(*[mx.sym.var(k) for k in INPUT_NAMES])))
    args = {k: v.data() for k, v in net.collect_params().items()}
    entry = {"name": name, "prefix": name, "task": "sequence", "cases": [], "refused": []}
    for batch, seq in cases:
        feed = inputs(batch, seq, units, rng)
        outs = [o.asnumpy() for o in model(*[mx.nd.array(feed[k]) for k in INPUT_NAMES])]
        tag = "%dx%d" % (batch, seq)
        case = {"inputs": {}, "shape": [batch, seq], "outputs": [],
                "mxnet_float32_error": float32_error(sym, reference, args, feed)}
        for k in INPUT_NAMES:
            case["inputs"][k] = "%s-%s-%s.npy" % (name, k, tag)
            np.save(os.path.join(out_dir, case["inputs"][k]), feed[k])
        for i, o in enumerate(outs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, i, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), o)
        entry["cases"].append(case)
    return entry
