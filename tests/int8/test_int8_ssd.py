"""MXNet 1.9.1's int8 SSD (GluonCV's ssd_512_mobilenet1.0_voc, random calibrated weights, quantized by
quantize_net with calib_mode naive, entropy and none; tests/int8/make_ssd_fixtures.py) at precision
int8, against MXNet's own outputs for the same files.

As in test_int8_mxnet.py, the oracle is MXNet twice: float32 on the original model (F) and int8 on the
quantized file (M); Quiver's int8 error (Q) must be of the size of MXNet's, for the same reason
(same calibration, grids and weight scales; where Quiver rounds a float accumulation and MXNet an
int32 one, single values may land on the neighbouring step, which changes which errors add up, not
their size):
    max |Q - F| <= 1.5 max |M - F|      (3 on a CPU without int8 dot products: see test_int8_mxnet.py)
for the detector's two outputs per anchor, before non-maximum suppression: the class logits (the input
of the last softmax: every score is a softmax of them) and the decoded boxes (box_decode's output:
every box is one of them).

The detections themselves are not compared with float32's: random weights leave the class scores
close together, so int8's errors reorder them and non-maximum suppression keeps other boxes (measured:
at most 4% of float32's detections have an int8 detection of the same class with IoU > 0.9, in MXNet
as in Quiver). Instead each of Quiver's detections is matched to its anchor in Quiver's own per-anchor
outputs (its box is that anchor's decoded box, exactly, and its score the softmax of that anchor's
logits for its class), so the two bounds above hold for every detection; and Quiver keeps as many
detections as MXNet.

Quiver quantizes a tensor only where an int8 kernel reads it (docs/precision.rst), so where the model
quantizes float tensors only to put them through MXNet's quantized concat, Quiver concatenates them in
float32: here all three concats (class and box predictions after a float transpose, and the anchors),
so Quiver's boxes skip MXNet's rounding of the anchors to a uint8 step of max anchor / 255.5. The
int8 concat itself is tested in tests/engine/backends/cpu/int8_kernels_test.cc.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import quiver
from int8_support import error_bound_factor, load_manifest, not_run_without_int8_cpu

SSD_DIR = Path(os.environ.get("QUIVER_INT8_SSD_DIR", ""))
MODES = ("naive", "entropy", "none")
OUTPUTS = ("ids", "scores", "boxes", "logits", "decoded")  # as the graph below returns them


@pytest.fixture(scope="module")
def manifest() -> dict:
    return load_manifest("QUIVER_INT8_SSD_DIR", "tests/int8/make_fixtures.sh --ssd")


def _load(manifest: dict, name: str, key: str) -> np.ndarray:
    return np.fromfile(SSD_DIR / name, dtype="<f4").reshape(manifest["output_shapes"][key])


def _with_per_anchor_outputs(manifest: dict, mode: str, out_dir: Path) -> Path:
    """The mode's files, its graph also returning the logits and the decoded boxes; returns the prefix."""
    info = manifest["modes"][mode]
    sym = json.loads((SSD_DIR / info["symbol_file"]).read_text())
    nodes = sym["nodes"]
    softmax = [i for i, n in enumerate(nodes) if n["op"] == "softmax"][-1]
    decode = next(i for i, n in enumerate(nodes) if n["op"] == "_contrib_box_decode")
    sym["heads"] += [nodes[softmax]["inputs"][0], [decode, 0, 0]]
    prefix = out_dir / f"ssd-{mode}"
    Path(f"{prefix}-symbol.json").write_text(json.dumps(sym))
    os.symlink(SSD_DIR / info["params_file"], f"{prefix}-0000.params")
    return prefix


def _run(prefix: Path, x: np.ndarray, precision: str) -> dict:
    with quiver.Predictor(str(prefix), precision=precision) as p:
        assert p.precision == precision
        return dict(zip(OUTPUTS, (np.array(o) for o in p.predict(x))))


def _softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits.astype(np.float64) - logits.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("mode", MODES)
def test_int8_ssd_error_is_of_mxnets_size(manifest, tmp_path, mode):
    info = manifest["modes"][mode]
    x = np.fromfile(SSD_DIR / manifest["input_file"], dtype="<f4").reshape(manifest["input_shape"])
    f32 = {k: _load(manifest, f, k) for k, f in manifest["float32_files"].items()}
    mxnet = {k: _load(manifest, f, k) for k, f in info["files"].items()}
    prefix = _with_per_anchor_outputs(manifest, mode, tmp_path)
    try:
        ours = _run(prefix, x, "int8")
    except quiver.UnsupportedError as e:
        not_run_without_int8_cpu(e)

    for key in ("logits", "decoded"):
        scale = float(np.abs(f32[key]).max())
        ours_error = float(np.abs(ours[key] - f32[key]).max())
        mxnet_error = float(np.abs(mxnet[key] - f32[key]).max())
        print(f"ssd {mode} {key}: int8 error / scale: Quiver {ours_error / scale:.4f}, MXNet {mxnet_error / scale:.4f} "
              f"(ratio {ours_error / mxnet_error:.2f})")
        assert ours_error <= error_bound_factor() * mxnet_error, key
        assert ours_error < scale, key

    # Every detection is one anchor's decoded box with the softmax of that anchor's logits as its score.
    probabilities = _softmax(ours["logits"])
    kept = ours["ids"][..., 0] >= 0
    for image, row in zip(*np.nonzero(kept)):
        box = ours["boxes"][image, row]
        anchors = np.nonzero((ours["decoded"][image] == box).all(axis=1))[0]
        assert len(anchors) >= 1, f"image {image} detection {row}: box {box} is no anchor's decoded box"
        cls = int(ours["ids"][image, row, 0])
        score = float(ours["scores"][image, row, 0])
        assert np.abs(probabilities[image, anchors, cls + 1] - score).min() <= 1e-5, (image, row)
    assert int(kept.sum()) == info["detections"]

    # Really int8: float32 on the same file computes something else.
    assert not np.array_equal(ours["logits"], _run(prefix, x, "float32")["logits"])
