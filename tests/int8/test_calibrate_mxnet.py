"""quiver.calibrate (Quiver's own int8 calibration) against MXNet 1.9.1's quantize_net, on the float32
models and calibration images of tests/int8/make_fixtures.py.

For each model, Quiver calibrates the float32 model on the images MXNet's naive calibration read, in
the same batches, and the file it writes is compared with MXNet's naive export (M0):
  * the same model: the same operators with the same attributes and fused subgraphs, and the same
    parameters bit for bit (convolution weights as given; inner products' int8 weights and biases
    quantized as MXNet quantizes them);
  * the same ranges: both are the smallest and largest float32 value of each tensor over the same
    images, computed by two runtimes whose float32 results differ in summation order only (about
    1e-6 relative) and printed by MXNet with 6 decimals; so each range end agrees within
    1e-5 x the range's size + 1e-6;
  * MXNet 1.9.1 loads and runs it (tests/int8/run_mxnet.py, a fresh Module): its error against
    float32 (F) is of the size of its error on its own export, |M - F| <= 1.5 |M0 - F| (the files
    differ in the ranges' last digits only, which move single roundings: the same argument and
    factor as test_int8_mxnet.py's);
  * Quiver runs it at precision int8 within test_int8_mxnet.py's rule against MXNet's output of the
    same file: |Q - F| <= 1.5 |M - F|;
  * the digits CNN calibrated by Quiver keeps 98.3% of the 360 held-back digits in Quiver and in MXNet.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quiver
from int8_support import load_manifest, not_run_without_int8_cpu, skip_or_fail

INT8_DIR = Path(os.environ.get("QUIVER_INT8_DIR", ""))
DIGITS_DIR = Path(os.environ.get("QUIVER_FIXTURES_DIR", ""))
MXNET = os.environ.get("QUIVER_MXNET", "")
RUN_MXNET = Path(__file__).with_name("run_mxnet.py")
MODELS = ["resnet18_v1", "mobilenetv2_1.0", "mobilenet0.25", "digits_cnn"]


@pytest.fixture(scope="module")
def manifest() -> dict:
    manifest = load_manifest("QUIVER_INT8_DIR", "tests/int8/make_fixtures.sh")
    if not MXNET:
        skip_or_fail("no MXNet: set QUIVER_MXNET to scripts/setup_mxnet_venv.sh's python")
    return manifest


@pytest.fixture(scope="module")
def calibrated(manifest, tmp_path_factory) -> dict:
    """Each model calibrated by Quiver: name -> (its manifest entry, the written prefix)."""
    out_dir = tmp_path_factory.mktemp("calibrated")
    models = {}
    for entry in manifest["models"]:
        name, files = entry["name"], entry["files"]
        shape = tuple(entry["input_shape"][1:])
        images = np.fromfile(INT8_DIR / files["calibration"], dtype="<f4").reshape((-1,) + shape)
        batch = entry["calibration"]["batch"]
        batches = [images[i:i + batch] for i in range(0, len(images), batch)]
        prefix = quiver.calibrate(INT8_DIR / files["float32_model"], batches, out_dir / name)
        models[name] = (entry, prefix)
    return models


def _load(path, shape) -> np.ndarray:
    return np.fromfile(path, dtype="<f4").reshape(shape)


def _mxnet_run(prefix: str, x: np.ndarray, tmp_path: Path) -> np.ndarray:
    x_file, out_file = tmp_path / "x.f32", tmp_path / "out.f32"
    x.astype("<f4").tofile(x_file)
    subprocess.run([MXNET, str(RUN_MXNET), prefix, str(x_file), ",".join(map(str, x.shape)), str(out_file)],
                   check=True, env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
                   stdout=sys.stderr, stderr=sys.stderr)
    return np.fromfile(out_file, dtype="<f4")


def _quiver_int8(prefix: str, x: np.ndarray) -> np.ndarray:
    try:
        with quiver.Predictor(prefix, precision="int8") as p:
            assert p.precision == "int8"
            return np.array(p.predict(x))
    except quiver.UnsupportedError as e:
        not_run_without_int8_cpu(e)


def _inner_ops(node: dict) -> list:
    """The operators a fused node runs (its subgraph's), in order; none for a plain node."""
    return [n for n in node.get("subgraphs", [{"nodes": []}])[0]["nodes"] if n["op"] != "null"]


def _layer(node: dict) -> str:
    """The name of the layer a node runs: its first fused operator's, else its own."""
    inner = _inner_ops(node)
    return inner[0]["name"] if inner else node["name"]


def _fused_nodes(symbol: dict) -> dict:
    """Each operator node by the name of the layer it runs, with its attributes minus the ranges."""
    nodes: dict = {}
    for node in symbol["nodes"]:
        if node["op"] == "null":
            continue
        attrs = {k: v for k, v in node.get("attrs", {}).items() if "calib_range" not in k}
        nodes.setdefault(_layer(node), []).append(
            (node["op"], attrs, [(n["op"], n.get("attrs", {})) for n in _inner_ops(node)]))
    return nodes


def _ranges(symbol: dict) -> dict:
    return {_layer(node): (float(node["attrs"]["min_calib_range"]), float(node["attrs"]["max_calib_range"]))
            for node in symbol["nodes"] if "min_calib_range" in node.get("attrs", {})}


@pytest.mark.parametrize("name", MODELS)
def test_writes_what_quantize_net_writes(calibrated, name):
    _, prefix = calibrated[name]
    ours = json.loads(Path(prefix + "-symbol.json").read_text())
    theirs = json.loads((INT8_DIR / f"{name}-naive-symbol.json").read_text())
    assert _fused_nodes(ours) == _fused_nodes(theirs)
    ours_ranges, their_ranges = _ranges(ours), _ranges(theirs)
    assert ours_ranges.keys() == their_ranges.keys()
    worst = 0.0
    for key, (lo, hi) in their_ranges.items():
        bound = 1e-5 * (hi - lo) + 1e-6
        gap = max(abs(ours_ranges[key][0] - lo), abs(ours_ranges[key][1] - hi))
        assert gap <= bound, (key, ours_ranges[key], (lo, hi))
        worst = max(worst, gap / (hi - lo))
    print(f"{name}: {len(their_ranges)} ranges, largest difference {worst:.2e} of the range")

    ours_params, their_params = _params(prefix + "-0000.params"), _params(str(INT8_DIR / f"{name}-naive-0000.params"))
    assert ours_params.keys() == their_params.keys()
    for key, theirs_array in their_params.items():
        assert ours_params[key].dtype == theirs_array.dtype, key
        assert np.array_equal(ours_params[key], theirs_array), key


def _params(path: str) -> dict:
    """A .params file's arrays by stored name (each numpy array owns its handle)."""
    handles, names = quiver.capi.QvNDArrayLoad(path)
    return {n: quiver.capi.array_to_numpy(h) for n, h in zip(names, handles)}


@pytest.mark.parametrize("name", MODELS)
def test_mxnet_and_quiver_run_it_with_int8_error_of_mxnets_size(calibrated, name, tmp_path):
    entry, prefix = calibrated[name]
    files = entry["files"]
    x = _load(INT8_DIR / files["input"], entry["input_shape"])
    f32 = _load(INT8_DIR / files["float32"], entry["output_shape"])
    mxnet_own = _load(INT8_DIR / entry["modes"]["naive"]["output_file"], entry["output_shape"])
    mxnet = _mxnet_run(prefix, x, tmp_path).reshape(f32.shape)
    ours = _quiver_int8(prefix, x)
    scale = float(np.abs(f32).max())
    err_m0, err_m, err_q = (float(np.abs(a - f32).max()) / scale for a in (mxnet_own, mxnet, ours))
    print(f"{name}: int8 error / scale: MXNet on its export {err_m0:.4f}, MXNet on Quiver's {err_m:.4f}, "
          f"Quiver on Quiver's {err_q:.4f}")
    assert err_m <= 1.5 * err_m0
    assert err_q <= 1.5 * err_m


def test_digits_cnn_calibrated_by_quiver_keeps_its_accuracy(calibrated, tmp_path):
    _, prefix = calibrated["digits_cnn"]
    digits = json.loads((DIGITS_DIR / "manifest.json").read_text())["models"]["digits_cnn"]
    test_set = next(c for c in digits["cases"] if c["name"] == "test_set")
    x = _load(DIGITS_DIR / test_set["input_file"], test_set["input_shape"])
    labels = np.fromfile(DIGITS_DIR / test_set["labels_file"], dtype=np.int32)
    ours = float((_quiver_int8(prefix, x).argmax(axis=1) == labels).mean())
    mxnet = float((_mxnet_run(prefix, x, tmp_path).reshape(len(labels), -1).argmax(axis=1) == labels).mean())
    print(f"digits calibrated by Quiver: Quiver int8 {ours:.4f}, MXNet int8 {mxnet:.4f}")
    assert ours >= 0.983 and mxnet >= 0.983
