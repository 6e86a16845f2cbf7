"""Makes MXNet 1.9.1 int8 versions of the conformance suite's SSD and records MXNet's outputs for them.

    python tests/int8/make_ssd_fixtures.py --out DIR --conformance DIR_WITH_ssd_512_mobilenet1.0_voc

Run with scripts/setup_mxnet_venv.sh's python (tests/int8/make_fixtures.sh --ssd does, and caches DIR).
The model is tests/conformance/make_fixtures.sh ci's ssd_512_mobilenet1.0_voc (GluonCV, random
calibrated weights), read from its files, so GluonCV is not needed here. It is quantized as
tests/int8/make_fixtures.py quantizes the classifiers (same modes, calibration on two batches of 4
seeded standard-normal images, here 128x128), with one layer excluded: the decoder's last Concat,
which joins (class id, score, box) for box_nms. Quantized, it shares one int8 range between ids 0..19,
scores 0..1 and box coordinates in the hundreds, so every score rounds to 0 and no detection is left.

Per mode the directory holds (.f32: little-endian float32):
  ssd-in.f32                    the input (4, 3, 128, 128)
  ssd-f32-OUT.f32               MXNet's float32 outputs, OUT = ids, scores, boxes, and two per anchor,
                                before non-maximum suppression: logits (the class logits, the input
                                of the last softmax, (4, anchors, 21)) and decoded (the decoded
                                boxes, the output of box_decode, (4, anchors, 4))
  ssd-MODE-symbol.json          the quantized model
  ssd-MODE-0000.params
  ssd-MODE-int8-OUT.f32         MXNet's outputs of those files (Module API)
and manifest.json. Random weights leave the class scores close together, so int8's small errors reorder
the detections: compare per anchor (logits, decoded), which the manifest's error figures are about.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import mxnet as mx
from mxnet import gluon

import make_fixtures as int8  # tests/int8/make_fixtures.py: this directory is first on sys.path

NAME = "ssd_512_mobilenet1.0_voc"
SIZE = 128
SEED = 512
OUTPUTS = ("ids", "scores", "boxes", "logits", "decoded")


def log(msg):
    print("int8 ssd fixtures: " + msg, file=sys.stderr, flush=True)


def nms_concat(symbol_file):
    """The name of the Concat that feeds box_nms."""
    with open(symbol_file) as f:
        nodes = json.load(f)["nodes"]
    nms = next(n for n in nodes if n["op"] == "_contrib_box_nms")
    source = nodes[nms["inputs"][0][0]]
    if source["op"] != "Concat":
        raise RuntimeError("box_nms reads %s (%s), not a Concat" % (source["name"], source["op"]))
    return source["name"]


def run(checkpoint, x):
    """The model's outputs and its per-anchor logits and decoded boxes, by name (OUTPUTS)."""
    sym, args, auxs = checkpoint
    return dict(zip(OUTPUTS, int8.AMP.run_module_outputs(int8.AMP.with_per_anchor(sym), args, auxs, x)))


def write_outputs(out_dir, stem, outputs):
    files = {}
    for key, value in outputs.items():
        files[key] = "%s-%s.f32" % (stem, key)
        int8.AMP.write_f32(os.path.join(out_dir, files[key]), value)
    return files


def make_mode(out_dir, net, mode, calib, x, excluded, f32):
    t0 = time.time()
    stem = "ssd-" + mode
    prefix = os.path.join(out_dir, stem)
    int8.quantize_and_export(net, mode, calib, prefix, exclude_layers=[excluded])
    checkpoint = mx.model.load_checkpoint(prefix, 0)
    out = run(checkpoint, x)
    ops, fused_ops = int8.op_counts(prefix + "-symbol.json")
    error, scale = int8.max_abs_diff(out["logits"], f32["logits"]), float(np.max(np.abs(f32["logits"])))
    box_error = int8.max_abs_diff(out["decoded"], f32["decoded"])
    entry = {
        "symbol_file": stem + "-symbol.json", "params_file": stem + "-0000.params",
        "files": write_outputs(out_dir, stem + "-int8", out), "ops": ops, "fused_ops": fused_ops,
        "logits_int8_vs_float32": error, "logits_float32_scale": scale, "logits_relative_error": error / scale,
        "decoded_int8_vs_float32": box_error,
        "detections": int(np.sum(out["ids"] >= 0)),
        "deterministic": all(np.array_equal(v, run(checkpoint, x)[k]) for k, v in out.items()),
    }
    log("%s: logits |int8-f32| %.3g of scale %.3g (%.3g), decoded boxes |int8-f32| %.3g, %d detections "
        "(float32 %d), %s (%.1f s)" % (
        mode, error, scale, error / scale, box_error, entry["detections"], int(np.sum(f32["ids"] >= 0)),
        "deterministic" if entry["deterministic"] else "NOT DETERMINISTIC", time.time() - t0))
    return entry


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--conformance", required=True, help="tests/conformance/make_fixtures.sh ci's directory")
    args = parser.parse_args()
    t0 = time.time()
    os.makedirs(args.out, exist_ok=True)
    source = os.path.join(args.conformance, NAME)
    net = gluon.SymbolBlock.imports(source + "-symbol.json", ["data"], source + "-0000.params", ctx=int8.CTX)
    rng = np.random.RandomState(SEED)
    x = rng.standard_normal((int8.BATCH, 3, SIZE, SIZE)).astype(np.float32)
    calib = rng.standard_normal((int8.CALIB_BATCHES * int8.BATCH, 3, SIZE, SIZE)).astype(np.float32)
    f32 = run(mx.model.load_checkpoint(source, 0), x)
    int8.AMP.write_f32(os.path.join(args.out, "ssd-in.f32"), x)
    excluded = nms_concat(source + "-symbol.json")
    modes = {mode: make_mode(args.out, net, mode, calib, x, excluded, f32) for mode in int8.MODES}
    int8.AMP.write_manifest(args.out, __file__, {
        "source": "tests/conformance/make_fixtures.sh ci's %s" % NAME, "epoch": 0, "input_name": "data",
        "input_file": "ssd-in.f32", "input_shape": list(x.shape),
        "output_shapes": {k: list(v.shape) for k, v in f32.items()},
        "float32_files": write_outputs(args.out, "ssd-f32", f32),
        "calibration": {"source": "seeded standard-normal images (RandomState(%d), after the input)" % SEED,
                        "examples": len(calib), "batch": int8.BATCH},
        "excluded_layers": [excluded], "modes": modes,
    })
    unstable = [mode for mode, e in modes.items() if not e["deterministic"]]
    if unstable:
        raise RuntimeError("MXNet's int8 SSD outputs differ between two runs: " + ", ".join(unstable))
    log("done in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
