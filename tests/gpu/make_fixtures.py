#!/usr/bin/env python3
"""Makes the GPU fixtures: small enough to carry to the GPU machine, with MXNet 1.9.1's outputs.

    python tests/gpu/make_fixtures.py --out DIR --fixtures FIXTURES_DIR --conformance CONFORMANCE_CI_DIR

Run with scripts/setup_mxnet_venv.sh's python; tests/gpu/make_fixtures.sh does, and caches DIR.

The project's fixtures hold 2 to 47 MB of weights per model, too much to carry. Here every parameter
of each chosen model is replaced by values tests/gpu/regen_params.py regenerates from a seed: same
name, shape, float64 mean and std as the original (the originals are calibrated so that every layer
has unit-scale outputs; matching each tensor's mean and std keeps the scales sane), uniform values,
BatchNorm variances kept positive. MXNet runs the regenerated file, and DIR keeps only
  NAME-symbol.json                       the original graph
  NAME-recipe.json                       the parameters' recipe, with the MD5 of the file MXNet ran
  NAME-in-SHAPE.npy, NAME-out0-SHAPE.npy  seeded inputs and MXNet's outputs (gluon.SymbolBlock on
                                         the exported files, CPU, float32), two shapes per model
  manifest.json                          what is where, each output's scale (max |out|)
so the GPU machine rebuilds each .params with numpy alone and checks Quiver against MXNet there.

Models: resnet18_v1 and digits_cnn (scripts/make_fixtures.sh's), resnet18_v2, mobilenet0.25 and
mobilenetv2_0.25 (tests/conformance/make_fixtures.sh ci's). The SSD of the ci set is left out: its
outputs are detections, whose comparison (thresholds, flips at the cut-off) tests/conformance does.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time

# Reference outputs from MXNet's plain operators (no oneDNN graph fusion).
os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import regen_params  # noqa: E402  (tests/gpu/regen_params.py)


def _load_amp_helpers():
    """tests/amp/make_fixtures.py, for run_gluon_outputs (a module of the same file name as this one)."""
    path = os.path.join(HERE, "..", "amp", "make_fixtures.py")
    spec = importlib.util.spec_from_file_location("amp_make_fixtures", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


AMP = _load_amp_helpers()
SCHEMA_VERSION = 1
BASE_SEED = 16_000
# (name, source set, source prefix, input shapes)
MODELS = [
    ("resnet18_v1", "fixtures", "resnet18_v1", [(1, 3, 224, 224), (2, 3, 160, 160)]),
    ("resnet18_v2", "conformance", "resnet18_v2", [(1, 3, 64, 64), (2, 3, 96, 96)]),
    ("mobilenet0.25", "conformance", "mobilenet0.25", [(1, 3, 96, 96), (2, 3, 64, 64)]),
    ("mobilenetv2_0.25", "conformance", "mobilenetv2_0.25", [(1, 3, 64, 64), (2, 3, 96, 96)]),
    ("digits_cnn", "fixtures", "digits_cnn", [(1, 1, 8, 8), (16, 1, 8, 8)]),
]
# Sane outputs: finite, neither vanishing nor exploding, and not the same for every input.
MIN_SCALE, MAX_SCALE = 1e-2, 1e4


def log(msg):
    print("gpu make_fixtures: " + msg, file=sys.stderr, flush=True)


def shape_tag(shape):
    return "x".join(str(d) for d in shape)


def recipe_for(params, seed0):
    """The recipe entry of every parameter (file order), matching each tensor's mean and std."""
    tensors = []
    for i, (name, array) in enumerate(params.items()):
        values = array.asnumpy().astype(np.float64)
        positive = name.endswith("running_var") or name.endswith("moving_var")
        tensors.append({"name": name, "shape": list(values.shape), "seed": seed0 + i,
                        "mean": float(values.mean()), "std": float(values.std()),
                        "kind": "positive" if positive else "uniform"})
    return {"format": regen_params.RECIPE_FORMAT, "tensors": tensors}


def check_outputs(name, shape, outputs):
    """Raises unless the outputs are usable as a reference (see MIN_SCALE, MAX_SCALE)."""
    for k, out in enumerate(outputs):
        scale = float(np.abs(out).max())
        if not np.all(np.isfinite(out)) or not MIN_SCALE <= scale <= MAX_SCALE:
            raise RuntimeError("%s %s output %d: scale %g outside [%g, %g] or not finite"
                               % (name, shape, k, scale, MIN_SCALE, MAX_SCALE))
        flat = out.reshape(out.shape[0], -1)
        if float(flat.std(axis=1).min()) < 1e-3 * scale:
            raise RuntimeError("%s %s output %d is (nearly) constant across its values" % (name, shape, k))
        if out.shape[0] > 1 and float(np.abs(flat[1:] - flat[:1]).max()) < 1e-3 * scale:
            raise RuntimeError("%s %s output %d is the same for every sample" % (name, shape, k))


def make_model(out_dir, work, index, name, source_prefix, shapes):
    shutil.copyfile(source_prefix + "-symbol.json", os.path.join(out_dir, name + "-symbol.json"))
    recipe = recipe_for(mx.nd.load(source_prefix + "-0000.params"), BASE_SEED + 1000 * index)
    data = regen_params.regenerate(recipe)
    recipe["params_md5"] = hashlib.md5(data).hexdigest()
    prefix = os.path.join(work, name)
    shutil.copyfile(source_prefix + "-symbol.json", prefix + "-symbol.json")
    with open(prefix + "-0000.params", "wb") as f:
        f.write(data)
    # The writer must make what MXNet itself saves: load the file and save it again through MXNet.
    mx.nd.save(prefix + "-resaved.params", mx.nd.load(prefix + "-0000.params"))
    with open(prefix + "-resaved.params", "rb") as f:
        if f.read() != data:
            raise RuntimeError(name + ": mx.nd.save writes other bytes than regen_params")
    with open(os.path.join(out_dir, name + "-recipe.json"), "w") as f:
        json.dump(recipe, f, indent=0)
    cases = []
    for j, shape in enumerate(shapes):
        x = np.random.RandomState(BASE_SEED + 1000 * index + 500 + j).standard_normal(shape).astype(np.float32)
        outputs = AMP.run_gluon_outputs(prefix, x)
        check_outputs(name, shape, outputs)
        tag = shape_tag(shape)
        case = {"shape": list(shape), "input": "%s-in-%s.npy" % (name, tag), "outputs": [],
                "output_shapes": [list(o.shape) for o in outputs],
                "scales": [float(np.abs(o).max()) for o in outputs]}
        np.save(os.path.join(out_dir, case["input"]), x)
        for k, out in enumerate(outputs):
            case["outputs"].append("%s-out%d-%s.npy" % (name, k, tag))
            np.save(os.path.join(out_dir, case["outputs"][-1]), out)
        cases.append(case)
        log("%s %s: output scale %s" % (name, tag, ", ".join("%.3g" % s for s in case["scales"])))
    return {"name": name, "prefix": name, "recipe": name + "-recipe.json", "params_md5": recipe["params_md5"],
            "params_bytes": len(data), "cases": cases}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--fixtures", required=True, help="scripts/make_fixtures.sh's directory")
    parser.add_argument("--conformance", required=True, help="tests/conformance/make_fixtures.sh ci's directory")
    args = parser.parse_args()
    sources = {"fixtures": args.fixtures, "conformance": args.conformance}
    os.makedirs(args.out, exist_ok=True)
    t0 = time.time()
    models = []
    with tempfile.TemporaryDirectory() as work:
        for index, (name, source, source_name, shapes) in enumerate(MODELS):
            models.append(make_model(args.out, work, index, name, os.path.join(sources[source], source_name), shapes))
    with open(os.path.abspath(__file__), "rb") as f:
        generator_sha = hashlib.sha256(f.read()).hexdigest()
    manifest = {"schema_version": SCHEMA_VERSION, "mxnet_version": mx.__version__, "numpy_version": np.__version__,
                "python_version": platform.python_version(), "generator_sha256": generator_sha,
                "tolerance": "max |quiver - mxnet| <= 1e-4 * max |mxnet| per output", "models": models}
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    log("done in %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
