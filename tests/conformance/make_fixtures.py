#!/usr/bin/env python3
"""Exports the conformance models with real MXNet 1.9.1 (and GluonCV for the detectors) and records MXNet's outputs.

Run by tests/conformance/make_fixtures.sh (which caches the result); directly:
    python tests/conformance/make_fixtures.py --set ci|full --out DIR [--only NAME ...]

Every model gets fixed-seed random weights, then a few calibration passes on a fixed input that give
each layer a unit-scale output (see calibrate()): without them deep random networks end in outputs
that vanish, explode or do not depend on the input, and a detector's class scores all tie, which would make
the comparison meaningless. MXNet's outputs are those of the saved files, loaded back with
SymbolBlock.imports. Each case is an input (float32, N(0, 1), fixed seed; for the sequence
models of TEXT, token ids as float32) and MXNet's outputs for it, saved as .npy; manifest.json lists them. A case MXNet itself refuses (a size the
model's fixed pooling or dense layers cannot take) is recorded under "refused" with MXNet's reason.

Each case also records how far MXNet's own float32 result is from a float64 run of the same files
("mxnet_float32_error", see float32_error()): deep random networks amplify float32 rounding (ResNet-152
v1 ends ~3e-4 of its output scale away from float64, growing ~10% per residual block), so that figure,
not a fixed constant, says how closely two float32 implementations can agree.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import zlib

os.environ.setdefault("MXNET_SUBGRAPH_VERBOSE", "0")
# No oneDNN graph fusion in the executors: the calibration reads layers that fusion would merge away.
os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"
import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

CLASSIFIERS = (["alexnet"] + ["vgg%d%s" % (d, bn) for d in (11, 13, 16, 19) for bn in ("", "_bn")] +
               ["resnet%d_v%d" % (d, v) for v in (1, 2) for d in (18, 34, 50, 101, 152)] +
               ["densenet121", "densenet161", "densenet169", "densenet201", "squeezenet1.0", "squeezenet1.1",
                "inceptionv3"] +
               ["mobilenet%s" % m for m in ("1.0", "0.75", "0.5", "0.25")] +
               ["mobilenetv2_%s" % m for m in ("1.0", "0.75", "0.5", "0.25")])
DETECTORS = ["ssd_300_vgg16_atrous_voc", "ssd_512_resnet50_v1_voc", "ssd_512_mobilenet1.0_voc",
             "yolo3_mobilenet1.0_voc", "yolo3_darknet53_voc"]


def native_size(name):
    if name.startswith("yolo3"):
        return 416
    return 299 if name == "inceptionv3" else 300 if "_300_" in name else 512 if name.startswith("ssd_512") else 224


def full_cases(name):
    """(batch, size) pairs: batch 1 and 2 at the model's own size, batch 1 at another size."""
    size = native_size(name)
    other = {224: 160, 299: 331, 300: 256, 416: 320, 512: 384}[size]
    return [(1, size), (2, size), (1, other)]


# Sequence models (issue 33): token ids (float32, as MXNet users feed them) through Embedding into a
# hybridized Gluon RNN layer; cases are (batch, sequence length).
TEXT = {
    # Embedding -> 2-layer bidirectional LSTM over (N, T) (layout NTC: SwapAxis around RNN) -> mean over time -> Dense.
    "text_lstm_bi2": dict(cell="lstm", layers=2, bidirectional=True, layout="NTC", pool="mean"),
    # Embedding -> GRU over (T, N) -> SequenceLast -> Dense.
    "text_gru": dict(cell="gru", layers=1, bidirectional=False, layout="TNC", pool="last"),
    # Embedding -> 2-layer bidirectional ReLU RNN over (T, N) -> SequenceLast -> Dense (full set only).
    "text_rnn_relu": dict(cell="rnn_relu", layers=2, bidirectional=True, layout="TNC", pool="last"),
}
TEXT_VOCAB, TEXT_EMBED, TEXT_HIDDEN, TEXT_CLASSES = 50, 16, 24, 5
TEXT_CASES = [(1, 7), (3, 7), (1, 20), (3, 20)]

# CI: a few small models on small inputs (its cold cost is part of every fresh CI run).
CI = {"resnet18_v2": [(1, 64), (2, 64)], "mobilenet0.25": [(1, 96), (2, 64)],
      "mobilenetv2_0.25": [(1, 64), (2, 96)],
      "ssd_512_mobilenet1.0_voc": [(1, 128), (2, 128)], "yolo3_mobilenet1.0_voc": [(1, 160), (2, 128)],
      "text_lstm_bi2": [(1, 7), (3, 20)], "text_gru": [(3, 7), (1, 20)]}


class TextClassifier(mx.gluon.HybridBlock):
    def __init__(self, cell, layers, bidirectional, layout, pool, **kwargs):
        super().__init__(**kwargs)
        self.layout, self.pool = layout, pool
        kwargs = dict(num_layers=layers, bidirectional=bidirectional, layout=layout)
        with self.name_scope():
            self.embedding = mx.gluon.nn.Embedding(TEXT_VOCAB, TEXT_EMBED)
            if cell == "rnn_relu":
                self.rnn = mx.gluon.rnn.RNN(TEXT_HIDDEN, activation="relu", **kwargs)
            else:
                self.rnn = {"lstm": mx.gluon.rnn.LSTM, "gru": mx.gluon.rnn.GRU}[cell](TEXT_HIDDEN, **kwargs)
            self.dense = mx.gluon.nn.Dense(TEXT_CLASSES, flatten=False)

    def hybrid_forward(self, F, x):
        h = self.rnn(self.embedding(x))
        time_axis = 1 if self.layout == "NTC" else 0
        h = F.mean(h, axis=time_axis) if self.pool == "mean" else F.SequenceLast(h, axis=time_axis)
        return self.dense(h)


def build(name):
    if name in TEXT:
        return TextClassifier(**TEXT[name])
    if name in DETECTORS:
        from gluoncv import model_zoo
        return model_zoo.get_model(name, pretrained=False, pretrained_base=False)
    from mxnet.gluon.model_zoo import vision
    return vision.get_model(name)


def initialize(net):
    """He-normal weights, zero biases, BatchNorm at identity (calibrate() sets its statistics)."""
    for key, p in net.collect_params().items():
        if key.endswith("weight"):
            init = mx.init.Xavier(rnd_type="gaussian", factor_type="in", magnitude=2)
        elif key.endswith("gamma") or key.endswith("running_var"):
            init = mx.init.One()
        else:
            init = mx.init.Zero()
        p.initialize(default_init=init)


def calibrate(sym, args, auxs, x, rng):
    """Gives every layer a unit-scale output on x, as a trained network would have.

    Works on the exported symbol (GluonCV's SSD backbones are SymbolBlocks that Gluon's block tree does
    not reach), layer by layer in graph order, each measured after the layers before it are set:
    BatchNorm gets random affine terms and moving statistics measured on x (near-zero variances, from
    1x1 feature maps, floored); a Convolution or FullyConnected that no BatchNorm follows gets weights
    scaled so that its output has unit standard deviation.
    """
    nodes = json.loads(sym.tojson())["nodes"]
    internals = sym.get_internals()
    feeds_bn = {n["inputs"][0][0] for n in nodes if n["op"] == "BatchNorm"}

    def measure(i):
        node = nodes[i]
        out = internals[node["name"] if node["op"] == "null" else node["name"] + "_output"]
        feed = dict(args, data=x)
        ex = out.bind(mx.cpu(), args={k: feed[k] for k in out.list_arguments()},
                      aux_states={k: auxs[k] for k in out.list_auxiliary_states()}, grad_req="null")
        return ex.forward(is_train=False)[0].asnumpy().astype(np.float64)

    for i, n in enumerate(nodes):
        params = [nodes[e[0]]["name"] for e in n["inputs"][1:]]
        if n["op"] == "BatchNorm":
            gamma, beta, mean, var = params[:4]
            args[gamma] = mx.nd.array(rng.uniform(0.5, 1.5, args[gamma].shape))
            args[beta] = mx.nd.array(rng.uniform(-0.2, 0.2, args[beta].shape))
            v = measure(n["inputs"][0][0])
            axes = (0,) + tuple(range(2, v.ndim))
            measured = v.var(axis=axes)
            auxs[mean] = mx.nd.array(v.mean(axis=axes))
            auxs[var] = mx.nd.array(np.maximum(measured, 0.25 * measured.mean()))
        elif n["op"] in ("Convolution", "FullyConnected") and i not in feeds_bn:
            std = measure(i).std()
            if std > 0 and np.isfinite(std):
                for p in params:
                    args[p] = args[p] / std


def score_logits(sym):
    """The values a detector's scores are a function of, as one grouped symbol: SSD's class logits (the
    input of its last softmax); YOLOv3's objectness and class logits (the inputs of the sigmoids whose
    outputs multiply into the scores)."""
    nodes = json.loads(sym.tojson())["nodes"]
    internals = sym.get_internals()
    softmax = [n for n in nodes if n["op"] == "softmax"]
    if softmax:
        heads = [softmax[-1]["inputs"][0][0]]
    else:
        sigmoids = {i for i, n in enumerate(nodes) if n["op"] == "sigmoid"}
        heads = sorted({nodes[e[0]]["inputs"][0][0] for n in nodes if n["op"] == "broadcast_mul"
                        for e in n["inputs"] if e[0] in sigmoids})
    return mx.sym.Group([internals[nodes[i]["name"] + "_output"] for i in heads])


def in_dtype(sym, dtype):
    """The symbol with the dtype attribute of the nodes that make their own values (Gluon's `_zeros`
    begin states, Embedding's output) set to `dtype`: they say float32 in the export."""
    graph = json.loads(sym.tojson())
    for node in graph["nodes"]:
        if node["op"] in ("_zeros", "Embedding") and "dtype" in node.get("attrs", {}):
            node["attrs"]["dtype"] = dtype
    return mx.sym.load_json(json.dumps(graph))


def float32_error(sym, args, auxs, x, task):
    """MXNet float32 against MXNet float64 (its own non-oneDNN kernels), both on the exported files.

    Classifiers: max |f32 - f64| / max |f64| over the output. Detectors: max |f32 - f64| over the
    logits its scores are computed from (score_logits()), since GluonCV's decoders do not run in float64
    in MXNet 1.9.1 (they build float32 `_arange`s).
    """
    if task == "detection":
        sym = score_logits(sym)
    runs = []
    for dtype in ("float32", "float64"):
        feed = dict(args, data=mx.nd.array(x))
        ex = in_dtype(sym, dtype).bind(mx.cpu(), args={k: feed[k].astype(dtype) for k in sym.list_arguments()},
                      aux_states={k: auxs[k].astype(dtype) for k in sym.list_auxiliary_states()}, grad_req="null")
        runs.append(np.concatenate([o.asnumpy().astype(np.float64).ravel() for o in ex.forward(is_train=False)]))
    error = np.abs(runs[0] - runs[1]).max()
    return float(error if task == "detection" else error / np.abs(runs[1]).max())


def shape_tag(shape):
    return "x".join(str(d) for d in shape)


def export(name, cases, out_dir, tmp_dir):
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    net = build(name)
    initialize(net)
    # Calibrated at the native size: on small inputs the last feature maps are 1x1, too small for statistics.
    size = native_size(name)
    calib = mx.nd.array(rng.normal(0, 1, (2, 3, size, size)).astype(np.float32))
    net.hybridize()
    net(calib)
    net.export(os.path.join(tmp_dir, name))
    sym, args, auxs = mx.model.load_checkpoint(os.path.join(tmp_dir, name), 0)
    calibrate(sym, args, auxs, calib, rng)
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    # The oracle runs the files exactly as a user would load them.
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    model.hybridize()
    entry = {"name": name, "prefix": name, "task": "detection" if name in DETECTORS else "classification",
             "cases": [], "refused": []}
    for batch, size in cases:
        shape = (batch, 3, size, size)
        x = rng.normal(0, 1, shape).astype(np.float32)
        try:
            outs = model(mx.nd.array(x))
            outs = [o.asnumpy() for o in (outs if isinstance(outs, (list, tuple)) else [outs])]
        except mx.base.MXNetError as e:
            entry["refused"].append({"shape": list(shape), "reason": str(e).strip().splitlines()[-1][:300]})
            continue
        tag = shape_tag(shape)
        case = {"input": "%s-in-%s.npy" % (name, tag), "shape": list(shape), "outputs": [],
                "mxnet_float32_error": float32_error(sym, args, auxs, x, entry["task"])}
        np.save(os.path.join(out_dir, case["input"]), x)
        for i, o in enumerate(outs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, i, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), o)
        entry["cases"].append(case)
    return entry


def export_text(name, cases, out_dir, tmp_dir):
    """A TEXT model with random weights: embeddings N(0, 1), every RNN weight and bias (biases too, so
    that their place in the packed vector is tested) U(-0.4, 0.4), the Dense layer Xavier. No
    calibration: the RNN's gates keep its outputs in (-1, 1)."""
    seed = zlib.crc32(name.encode()) % (2 ** 31)
    rng = np.random.RandomState(seed)
    mx.random.seed(seed)
    net = build(name)
    for key, p in net.collect_params().items():
        init = (mx.init.Normal(1.0) if "embedding" in key else mx.init.Xavier() if "dense" in key and key.endswith("weight")
                else mx.init.Uniform(0.1) if "dense" in key else mx.init.Uniform(0.4))
        p.initialize(init=init)
    layout = TEXT[name]["layout"]

    def ids(batch, steps):
        shape = (batch, steps) if layout == "NTC" else (steps, batch)
        return rng.randint(0, TEXT_VOCAB, shape).astype(np.float32)

    net.hybridize()
    net(mx.nd.array(ids(2, 5)))
    net.export(os.path.join(tmp_dir, name))
    sym, args, auxs = mx.model.load_checkpoint(os.path.join(tmp_dir, name), 0)
    prefix = os.path.join(out_dir, name)
    mx.model.save_checkpoint(prefix, 0, sym, args, auxs)
    model = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    model.hybridize()
    entry = {"name": name, "prefix": name, "task": "classification", "cases": [], "refused": []}
    for batch, steps in cases:
        x = ids(batch, steps)
        tag = shape_tag(x.shape)
        case = {"input": "%s-in-%s.npy" % (name, tag), "shape": list(x.shape),
                "outputs": ["%s-out0-%s.npy" % (name, tag)],
                "mxnet_float32_error": float32_error(sym, args, auxs, x, entry["task"])}
        np.save(os.path.join(out_dir, case["input"]), x)
        np.save(os.path.join(out_dir, case["outputs"][0]), model(mx.nd.array(x)).asnumpy())
        entry["cases"].append(case)
    return entry


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set", choices=["ci", "full"], required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--only", nargs="*", help="models to make (default: the whole set)")
    a = ap.parse_args()
    plan = CI if a.set == "ci" else dict({n: full_cases(n) for n in CLASSIFIERS + DETECTORS},
                                         **{n: TEXT_CASES for n in TEXT})
    if a.only:
        unknown = sorted(set(a.only) - set(plan))
        if unknown:
            sys.exit("not in the %s set: %s" % (a.set, ", ".join(unknown)))
        plan = {n: c for n, c in plan.items() if n in a.only}
    os.makedirs(a.out, exist_ok=True)
    models = []
    tmp_dir = tempfile.mkdtemp()
    for name, cases in plan.items():
        start = time.time()
        models.append((export_text if name in TEXT else export)(name, cases, a.out, tmp_dir))
        shutil.rmtree(tmp_dir)
        os.makedirs(tmp_dir)
        print("%-28s %d cases, %d refused by MXNet, %.1f s" %
              (name, len(models[-1]["cases"]), len(models[-1]["refused"]), time.time() - start), file=sys.stderr)
    with open(os.path.join(a.out, "manifest.json"), "w") as f:
        json.dump({"set": a.set, "mxnet": mx.__version__, "models": models}, f, indent=1)


if __name__ == "__main__":
    main()
