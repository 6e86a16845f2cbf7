"""Records MXNet 1.9.1's own bfloat16 error on the conformance suite's models: its AMP conversion of each
float32 file, run on that file's inputs, against its float32 output.

    python tests/amp/make_conformance_fixtures.py --out DIR --conformance CONFORMANCE_DIR

Run with scripts/setup_mxnet_venv.sh's python (tests/amp/make_fixtures.sh --conformance does, and caches
DIR). CONFORMANCE_DIR is tests/conformance/make_fixtures.sh ci's directory; its files are read, never
changed. MXNet runs bfloat16 only through AMP: each model is converted by mxnet.contrib.amp.convert_model
(target_dtype='bfloat16', cast_optional_params=True) and run twice, through the Module API (graph
executor, oneDNN fusion on) and through gluon.SymbolBlock (no fusion: it rounds elsewhere), since the two
round at different places and differ from each other by about as much as from float32.

What is compared: a classifier's (last) output; for the detector, its two outputs per anchor before
non-maximum suppression (its final detections are a selection from them, which small errors reorder):
the class logits (the input of the last softmax) and the decoded boxes (box_decode's output). For the
detector the directory holds its float32 symbol with these two outputs appended, which is what MXNet ran
and what the test runs; its params are the conformance file's. Those outputs are defined for GluonCV's
SSD only: other detectors (YOLOv3, no box_decode; mx-rcnn's Faster R-CNN, which also takes im_info) are
left out, and listed under "left_out", as are the models of several inputs and those whose data input
is typed (text_gru_int32: MXNet's AMP conversion fails on a typed input, and text_gru has the same
float computation). So is a
model MXNet's AMP cannot convert (PSPNet and DeepLabV3: their Concat joins bfloat16 convolutions with the
float32 output of _contrib_BilinearResize2D, which MXNet 1.9.1's conversion refuses), with MXNet's reason.

Per model and conformance input the directory holds, as little-endian float32:
  NAME-SHAPE-in.f32             the input (copied from the conformance .npy)
  NAME-SHAPE-OUT-float32.f32    MXNet's float32 output of the original file (OUT = output, or logits
                                and decoded for the detector)
  NAME-SHAPE-OUT-amp.f32        MXNet's AMP bfloat16 output (Module), and -amp_gluon.f32 (SymbolBlock)
and manifest.json with the shapes and MXNet's errors (max |amp - float32|, each path).
"""
import argparse
import json
import os
import time

import numpy as np
import mxnet as mx
from mxnet.contrib import amp

import make_fixtures as AMP  # tests/amp/make_fixtures.py: running models, per-anchor outputs, writing files

PATHS = ("amp", "amp_gluon")


def is_ssd(conformance_dir, model):
    """Whether a detector decodes SSD's way (a _contrib_box_decode node), which with_per_anchor() reads."""
    with open(os.path.join(conformance_dir, model["prefix"] + "-symbol.json")) as f:
        return any(n["op"] == "_contrib_box_decode" for n in json.load(f)["nodes"])


def typed_input(conformance_dir, model):
    """Whether the data variable declares a type other than float32 ("__dtype__", code 0 is float32)."""
    with open(os.path.join(conformance_dir, model["prefix"] + "-symbol.json")) as f:
        return any(n["op"] == "null" and n["name"] == "data" and n.get("attrs", {}).get("__dtype__", "0") != "0"
                   for n in json.load(f)["nodes"])


def make_model(out_dir, conformance_dir, model):
    t0 = time.time()
    name, source = model["name"], os.path.join(conformance_dir, model["prefix"])
    sym, args, auxs = mx.model.load_checkpoint(source, 0)
    if model["task"] == "detection":
        compared, first = ("logits", "decoded"), len(sym.list_outputs())
        symbol_file = name + "-per-anchor-symbol.json"
        sym = AMP.with_per_anchor(sym)
        sym.save(os.path.join(out_dir, symbol_file))
    else:
        # The last output, as the test reads it (a model may have several: a feature pyramid's heads).
        compared, first, symbol_file = ("output",), len(sym.list_outputs()) - 1, None
    s16, a16, x16 = amp.convert_model(sym, dict(args), dict(auxs), target_dtype="bfloat16",
                                      cast_optional_params=True)
    amp_prefix = os.path.join(out_dir, "_tmp_amp_" + name)
    mx.model.save_checkpoint(amp_prefix, 0, s16, a16, x16, remove_amp_cast=False)
    cases = []
    for case in model["cases"]:
        x = np.load(os.path.join(conformance_dir, case["input"]))
        stem = "%s-%s" % (name, "x".join(map(str, x.shape)))
        runs = {"float32": AMP.run_module_outputs(sym, args, auxs, x),
                "amp": AMP.run_module_outputs(s16, a16, x16, x), "amp_gluon": AMP.run_gluon_outputs(amp_prefix, x)}
        files, errors, shapes, scales = {"input": stem + "-in.f32"}, {}, {}, {}
        AMP.write_f32(os.path.join(out_dir, files["input"]), x)
        for index, key in enumerate(compared):
            f32 = runs["float32"][first + index]
            shapes[key], scales[key] = list(f32.shape), float(np.max(np.abs(f32)))
            for run, outputs in runs.items():
                files["%s-%s" % (key, run)] = "%s-%s-%s.f32" % (stem, key, run)
                AMP.write_f32(os.path.join(out_dir, files["%s-%s" % (key, run)]), outputs[first + index])
            errors[key] = {path: AMP.stats(runs[path][first + index], f32) for path in PATHS}
        cases.append({"input_shape": list(x.shape), "files": files, "output_shapes": shapes,
                      "output_scales": scales, "mxnet_bfloat16_error": errors})
        AMP.log("%s %s: MXNet bfloat16 error / scale %s" % (name, list(x.shape), ", ".join(
            "%s %.4f (Module) %.4f (Gluon)" % (k, e["amp"] / scales[k], e["amp_gluon"] / scales[k])
            for k, e in errors.items())))
    for suffix in ("-symbol.json", "-0000.params"):
        os.remove(amp_prefix + suffix)
    AMP.log("%s done in %.1f s" % (name, time.time() - t0))
    return {"name": name, "prefix": model["prefix"], "task": model["task"], "compared": list(compared),
            "per_anchor_symbol": symbol_file, "cases": cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--conformance", required=True, help="tests/conformance/make_fixtures.sh ci's directory")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.conformance, "manifest.json")) as f:
        conformance = json.load(f)
    compared = [m for m in conformance["models"]
                 if m["task"] not in ("sequence", "rcnn") and (m["task"] != "detection" or is_ssd(args.conformance, m))
                 and not typed_input(args.conformance, m) and all("input" in c for c in m["cases"])]
    left_out = [m["name"] for m in conformance["models"] if m not in compared]
    if left_out:
        AMP.log("left out (no per-anchor outputs defined for them, several inputs, or a typed input): %s" % ", ".join(left_out))
    models = []
    for m in compared:
        try:
            models.append(make_model(args.out, args.conformance, m))
        except mx.base.MXNetError as e:
            reason = str(e).strip().splitlines()[-1][:300]
            AMP.log("left out %s: MXNet's AMP cannot convert it: %s" % (m["name"], reason))
            left_out.append(m["name"])
            for name in os.listdir(args.out):  # what make_model wrote before it failed
                if name.startswith(m["name"] + "-") or name.startswith("_tmp_amp_" + m["name"]):
                    os.remove(os.path.join(args.out, name))
    AMP.write_manifest(args.out, __file__, {"conformance_set": conformance["set"], "models": models,
                                            "left_out": left_out})


if __name__ == "__main__":
    main()
