"""Makes MXNet 1.9.1 int8 (quantized) versions of small models and records MXNet's outputs for them.

    python tests/int8/make_fixtures.py --out DIR --digits DIR_WITH_digits_cnn --conformance CI_DIR

Run with scripts/setup_mxnet_venv.sh's python (tests/int8/make_fixtures.sh does, and caches DIR).

Each model is quantized by mxnet.contrib.quantization.quantize_net on the CPU (quantized_dtype='auto',
quantize_mode='full', so the oneDNN backend fuses convolutions and fully connected layers into
_sg_mkldnn_* operators) once per calibration mode: 'naive' (min/max of the calibration outputs),
'entropy' (KL-divergence thresholds) and 'none' (no calibration: ranges computed at run time).
  resnet18_v1      Gluon model zoo, classes=100, random calibrated weights (tests/amp's
                   random_zoo_model), 64x64 inputs
  mobilenetv2_1.0  the same
  mobilenet0.25    the same
  video3d          3-D convolutions and pooling as in I3D (Video3d below), random calibrated weights,
                   8 frames of 32x32
  digits_cnn       the project's demo CNN (scripts/make_fixtures.sh trains it), quantized through a
                   gluon.SymbolBlock of its checkpoint
  fastscnn_citys, psp_resnet50_ade, simple_pose_resnet18_v1b
                   GluonCV segmentation and pose models from tests/conformance/make_fixtures.sh ci
                   (random calibrated weights; CONFORMANCE below), read through a gluon.SymbolBlock:
                   their BilinearResize2D, AdaptiveAvgPooling2D and Deconvolution run in float32
                   between the int8 layers
Calibration: two batches of 4 seeded standard-normal images for the zoo models; held-back digits that
are not the test input for digits_cnn (DIGITS_DIR has no training digits). The manifest names them.

Per model the directory holds:
  NAME-in.f32                 the input (batch 4, seeded, not part of the calibration data)
  NAME-f32.f32                MXNet's output of the original float32 model
  NAME-float-symbol.json      the original float32 model (what Quiver's own calibration starts from)
  NAME-float-0000.params
  NAME-calib.f32              the calibration images, in the order quantize_net read them
  NAME-MODE-symbol.json       the quantized model, as quantize_net's block exports it
  NAME-MODE-0000.params       (convolution weights stay float32; fully connected weights and biases
                              are int8, each with float32 _min/_max parameters)
  NAME-MODE-int8.f32          MXNet's output of those two files (load_checkpoint, Module API: a fresh
                              load, independent of the in-memory quantized block)
(.f32: little-endian float32) and manifest.json with shapes, the operators in each symbol file and
inside its fused nodes, the parameters' types, MXNet's own int8 error (max |int8 - f32| against
max |f32|, and how many rows keep float32's top-1), whether two int8 runs agree bit for bit and
whether a row run alone gives what it gives in the batch, and for digits_cnn the top-1 accuracies of
the int8 models and the float32 model on all held-back digits.

What MXNet does that a reader of these files should know:
  - 'none' requantizes each layer at the range of its whole int32 output tensor, found at run time,
    so a row's output can depend on the other rows: run the batch of 4 together.
  - 'none': a run can rewrite an uncalibrated quantized FullyConnected's int8 weight in place (seen
    on an all-zero batch: digits_cnn's weight shrank ~14x, and the block's later outputs with it).
    The files hold the weights quantize_net made, before any run.
  - 'none' on mobilenetv2_1.0 is wrong in MXNet itself: each ReLU6 fused into a quantized convolution
    lets the run-time ranges grow (to ~1e8 by the last layer), and the outputs are noise of size ~1e7
    (relative_error ~1e6, no row keeps float32's top-1). The files record what MXNet computes, not an
    approximation of float32.
"""
import argparse
import collections
import importlib.util
import json
import os
import sys
import time

import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.contrib.quantization import quantize_net


def load_module(name, path):
    """Imports the file PATH as module NAME (tests/amp's script has this script's file name)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


AMP = load_module("amp_fixtures", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "amp",
                                               "make_fixtures.py"))
CTX = mx.cpu()
BATCH = 4
CALIB_BATCHES = 2
MODES = ("naive", "entropy", "none")
ZOO = (("resnet18_v1", 1818), ("mobilenetv2_1.0", 2020), ("mobilenet0.25", 2525))
ZOO_SIZE = 64
VIDEO = ("video3d", 3030)
VIDEO_SHAPE = (3, 8, 32, 32)  # channels, frames, height, width
# The conformance suite's ci models, at the size their files were made for: name -> (seed, input shape).
# SimplePose's BatchNorm after its Deconvolution becomes _contrib_quantized_batch_norm, which MXNet 1.9.1
# cannot run without a calibrated range: no 'none' model of it.
CONFORMANCE = {"fastscnn_citys": (6464, (3, 64, 64), MODES), "psp_resnet50_ade": (6400, (3, 64, 64), MODES),
               "simple_pose_resnet18_v1b": (12896, (3, 128, 96), ("naive", "entropy"))}
DIGITS_CALIB_BATCHES = 16


def log(msg):
    print("int8 fixtures: " + msg, file=sys.stderr, flush=True)


def count_ops(nodes):
    return dict(sorted(collections.Counter(n["op"] for n in nodes if n["op"] != "null").items()))


def op_counts(symbol_file):
    """The operators of the graph, and those inside its fused (_sg_mkldnn_*) nodes' subgraphs."""
    with open(symbol_file) as f:
        nodes = json.load(f)["nodes"]
    return count_ops(nodes), count_ops([m for n in nodes for g in n.get("subgraphs", []) for m in g["nodes"]])


def quantize_and_export(net, mode, calib, prefix, exclude_layers=None):
    """quantize_net on NET (a HybridBlock), calibrated on CALIB (N, ...) in batches of BATCH unless
    MODE is 'none'; exports PREFIX-symbol.json and PREFIX-0000.params."""
    calib_data = None if mode == "none" else mx.io.NDArrayIter(calib, batch_size=BATCH)
    shape = (BATCH,) + calib.shape[1:]
    qnet = quantize_net(net, quantized_dtype="auto", quantize_mode="full", calib_data=calib_data,
                        data_shapes=[mx.io.DataDesc("data", shape)], calib_mode=mode,
                        num_calib_examples=len(calib), ctx=CTX, exclude_layers=exclude_layers)
    # export saves the parameters of the graph a forward built, but that forward may rewrite them (an
    # uncalibrated quantized FullyConnected's int8 weight, on this all-zero batch): export what
    # quantize_net made.
    params = qnet.collect_params()
    made = {name: param.data().copy() for name, param in params.items()}
    qnet.hybridize()
    qnet(mx.nd.zeros(shape, ctx=CTX))
    for name, value in made.items():
        params[name].set_data(value)
    qnet.export(prefix, epoch=0)


def max_abs_diff(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b)))


def make_mode(out_dir, name, net, mode, calib, x, out_f32):
    """One quantized model: quantizes, exports, runs the files twice; returns its manifest entry and
    its checkpoint (for further runs)."""
    t0 = time.time()
    stem = "%s-%s" % (name, mode)
    prefix = os.path.join(out_dir, stem)
    quantize_and_export(net, mode, calib, prefix)
    checkpoint = mx.model.load_checkpoint(prefix, 0)
    out = AMP.run_module(*checkpoint, x)
    AMP.write_f32(os.path.join(out_dir, stem + "-int8.f32"), out)
    error, scale = max_abs_diff(out, out_f32), float(np.max(np.abs(out_f32)))
    ops, fused_ops = op_counts(prefix + "-symbol.json")
    param_types = collections.Counter(np.dtype(v.dtype).name for v in list(checkpoint[1].values()) +
                                      list(checkpoint[2].values()))
    entry = {
        "symbol_file": stem + "-symbol.json", "params_file": stem + "-0000.params",
        "output_file": stem + "-int8.f32",
        "ops": ops, "fused_ops": fused_ops, "param_types": dict(sorted(param_types.items())),
        "int8_vs_float32": error, "float32_scale": scale, "relative_error": error / scale,
        "top1_matches_float32": int(np.sum(np.argmax(out, axis=1) == np.argmax(out_f32, axis=1))),
        "deterministic": bool(np.array_equal(out, AMP.run_module(*checkpoint, x))),
        "rows_independent": bool(np.array_equal(out[:1], AMP.run_module(*checkpoint, x[:1]))),
    }
    quantized = sorted(op for op in ops if op.startswith(("_contrib_", "_sg_mkldnn")))
    log("%s %s: |int8-f32| %.3g of scale %.3g (%.3g), top-1 %d/%d as float32, %s, %s, %s (%.1f s)" % (
        name, mode, error, scale, error / scale, entry["top1_matches_float32"], len(x),
        "deterministic" if entry["deterministic"] else "NOT DETERMINISTIC",
        "rows independent" if entry["rows_independent"] else "rows depend on the batch",
        " ".join(quantized), time.time() - t0))
    return entry, checkpoint


def make_model(out_dir, name, net, f32_checkpoint, x, calib, calib_source, modes=MODES):
    """Writes the float32 model, the input, the calibration images and MXNet's float32 output, then
    one quantized model per mode."""
    out_f32 = AMP.run_module(*f32_checkpoint, x)
    files = {"input": name + "-in.f32", "float32": name + "-f32.f32", "float32_model": name + "-float",
             "calibration": name + "-calib.f32"}
    mx.model.save_checkpoint(os.path.join(out_dir, files["float32_model"]), 0, *f32_checkpoint)
    AMP.write_f32(os.path.join(out_dir, files["input"]), x)
    AMP.write_f32(os.path.join(out_dir, files["float32"]), out_f32)
    AMP.write_f32(os.path.join(out_dir, files["calibration"]), calib)
    entries, checkpoints = {}, {}
    for mode in modes:
        entries[mode], checkpoints[mode] = make_mode(out_dir, name, net, mode, calib, x, out_f32)
    entry = {
        "name": name, "epoch": 0, "input_name": "data",
        "input_shape": list(x.shape), "output_shape": list(out_f32.shape), "files": files,
        "calibration": {"source": calib_source, "examples": len(calib), "batch": BATCH},
        "modes": entries,
    }
    return entry, checkpoints


class Video3d(gluon.HybridBlock):
    """A small network of I3D's layers (3-D convolutions and pooling): a 3x5x5 stem with BatchNorm,
    ReLU and max pooling, one residual block of a temporal 3x1x1 and a spatial 1x3x3 convolution,
    global average pooling and a classifier."""

    def __init__(self, classes=100, **kwargs):
        super().__init__(**kwargs)
        nn = gluon.nn
        with self.name_scope():
            self.stem = nn.HybridSequential()
            self.stem.add(nn.Conv3D(16, (3, 5, 5), strides=(1, 2, 2), padding=(1, 2, 2), use_bias=False),
                          nn.BatchNorm(), nn.Activation("relu"),
                          nn.MaxPool3D((1, 3, 3), strides=(1, 2, 2), padding=(0, 1, 1)))
            self.body = nn.HybridSequential()
            self.body.add(nn.Conv3D(16, (3, 1, 1), padding=(1, 0, 0), use_bias=False), nn.BatchNorm(),
                          nn.Activation("relu"), nn.Conv3D(16, (1, 3, 3), padding=(0, 1, 1), use_bias=False),
                          nn.BatchNorm())
            self.pool = nn.GlobalAvgPool3D()
            self.fc = nn.Dense(classes)

    def hybrid_forward(self, F, x):
        x = self.stem(x)
        x = F.Activation(self.body(x) + x, act_type="relu")
        return self.fc(self.pool(x))


def random_model(out_dir, name, net, seed, shape, source):
    """NET (random weights, made for inputs of SHAPE) as float32 files, then seeded_inputs_model."""
    tmp = os.path.join(out_dir, "_tmp_" + name)
    net.export(tmp)
    f32_checkpoint = mx.model.load_checkpoint(tmp, 0)
    os.remove(tmp + "-symbol.json")
    os.remove(tmp + "-0000.params")
    return seeded_inputs_model(out_dir, name, net, f32_checkpoint, seed, shape, source)


def seeded_inputs_model(out_dir, name, net, f32_checkpoint, seed, shape, source, modes=MODES):
    """make_model with an input and calibration images of seeded standard-normal values of SHAPE."""
    x = np.random.RandomState(seed + 1).standard_normal((BATCH,) + shape).astype(np.float32)
    calib = np.random.RandomState(seed + 2).standard_normal((CALIB_BATCHES * BATCH,) + shape).astype(np.float32)
    entry, _ = make_model(out_dir, name, net, f32_checkpoint, x, calib,
                          "seeded standard-normal images (RandomState(%d)), not the input" % (seed + 2), modes)
    entry["source"] = "%s, random calibrated weights, seed %d" % (source, seed)
    return entry


def conformance(out_dir, conformance_dir, name, seed, shape, modes):
    source = os.path.join(conformance_dir, name)
    net = gluon.SymbolBlock.imports(source + "-symbol.json", ["data"], source + "-0000.params", ctx=CTX)
    return seeded_inputs_model(out_dir, name, net, mx.model.load_checkpoint(source, 0), seed, shape,
                               "tests/conformance/make_fixtures.sh ci's %s" % name, modes)


def zoo(out_dir, name, seed):
    return random_model(out_dir, name, AMP.random_zoo_model(name, seed, ZOO_SIZE), seed, (3, ZOO_SIZE, ZOO_SIZE),
                        "Gluon model zoo %s, classes=100" % name)


def video(out_dir):
    name, seed = VIDEO
    net = AMP.random_weights(Video3d(prefix=name + "_"), seed, VIDEO_SHAPE)
    return random_model(out_dir, name, net, seed, VIDEO_SHAPE, "Video3d (this file), classes=100")


def accuracy(checkpoint, images, labels):
    return float(np.mean(np.argmax(AMP.run_module(*checkpoint, images), axis=1) == labels))


def digits(out_dir, digits_dir):
    """digits_cnn: input = the first BATCH held-back digits, calibration = the next DIGITS_CALIB_BATCHES batches."""
    prefix = os.path.join(digits_dir, "digits_cnn")
    with open(os.path.join(digits_dir, "manifest.json")) as f:
        case = json.load(f)["models"]["digits_cnn"]["cases"][0]
    images = np.fromfile(os.path.join(digits_dir, case["input_file"]), dtype="<f4").reshape(case["input_shape"])
    labels = np.fromfile(os.path.join(digits_dir, case["labels_file"]), dtype="<i4")
    end = BATCH * (1 + DIGITS_CALIB_BATCHES)
    x, calib = images[:BATCH], images[BATCH:end]
    net = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params", ctx=CTX)
    f32_checkpoint = mx.model.load_checkpoint(prefix, 0)
    entry, checkpoints = make_model(
        out_dir, "digits_cnn", net, f32_checkpoint, x, calib,
        "held-back digits %d..%d of %s (DIGITS_DIR has no training digits); the input is digits 0..%d"
        % (BATCH, end - 1, case["input_file"], BATCH - 1))
    entry["source"] = "scripts/make_fixtures.sh's digits_cnn, trained on scikit-learn's digits"
    entry["accuracy"] = {
        "images": "all %d held-back digits of %s (labels %s) in one batch, calibration and input "
                  "digits included" % (len(labels), case["input_file"], case["labels_file"]),
        "float32": accuracy(f32_checkpoint, images, labels),
        "int8": {mode: accuracy(checkpoints[mode], images, labels) for mode in MODES},
    }
    log("digits_cnn top-1 on %d held-back digits: float32 %.4f, int8 %s" % (
        len(labels), entry["accuracy"]["float32"],
        ", ".join("%s %.4f" % kv for kv in entry["accuracy"]["int8"].items())))
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--digits", required=True, help="scripts/make_fixtures.sh's directory (digits_cnn)")
    parser.add_argument("--conformance", required=True, help="tests/conformance/make_fixtures.sh ci's directory")
    args = parser.parse_args()
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    mx.random.seed(0)
    models = ([zoo(args.out, name, seed) for name, seed in ZOO] + [video(args.out), digits(args.out, args.digits)] +
              [conformance(args.out, args.conformance, name, seed, shape, modes)
               for name, (seed, shape, modes) in CONFORMANCE.items()])
    AMP.write_manifest(args.out, __file__, {"models": models})
    unstable = ["%s %s" % (m["name"], mode) for m in models for mode, e in m["modes"].items()
                if not e["deterministic"]]
    if unstable:
        raise RuntimeError("MXNet's int8 outputs differ between two runs: " + ", ".join(unstable))
    log("done in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
