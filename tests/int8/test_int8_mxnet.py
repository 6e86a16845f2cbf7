"""MXNet 1.9.1's int8 models (quantize_net, calib_mode naive, entropy and none; tests/int8/make_fixtures.py)
at precision int8, against MXNet's own outputs for the same files.

The oracle is MXNet twice: its float32 output of the original model (F) and its int8 output of the
quantized file (M). Quiver's int8 output (Q) uses the same calibration, the same quantization grids
and the same per-channel weight scales, so its error against float32 is of the size of MXNet's:
    |Q - F| <= 1.5 |M - F|      (maximum over outputs, per model and mode)
1.5 and not 1: where Quiver rounds a float accumulation and MXNet an int32 one (its bias is rounded
to int32, Quiver's stays float32), an intermediate value may land on the other neighbouring step;
over a network those single-step moves change which rounding errors add up, not their size. On a CPU
without int8 dot products (AVX2; ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 emulates one) Quiver's
weights have 7 bits and the bound is 3 |M - F| (int8_support.error_bound_factor); there MXNet keeps 8
bits and lets oneDNN's 16-bit pair sums saturate (measured, digits CNN calib_mode none: MXNet 0.074 of
the logits' scale where it is 0.014 with VNNI; Quiver 0.015).

Where MXNet 1.9.1 is itself wrong, Quiver is not made to agree:
  * ResNet v1's downsampling blocks add an int8 residual into a uint8 output; MXNet then writes that
    output as int8 with the uint8 scale, so every value above half the calibrated range saturates
    (measured: the first such block's outputs never exceed integer 127, and MXNet's int8 error
    jumps from 1% to 50% of the layer's range there). Quiver reads the residual as int8 and writes
    uint8, so it is closer to float32 than MXNet on these models (asserted by the rule above).
  * MobileNetV2 with calib_mode='none' overflows in MXNet (outputs around 1e7); the rule above holds
    trivially there, and the test also requires Quiver's error to stay below the outputs' scale.

The digits CNN (trained, real data) must keep 98.3% on the 360 held-back digits in every mode.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import quiver
from int8_support import error_bound_factor, load_manifest, not_run_without_int8_cpu

INT8_DIR = Path(os.environ.get("QUIVER_INT8_DIR", ""))
DIGITS_DIR = Path(os.environ.get("QUIVER_FIXTURES_DIR", ""))


@pytest.fixture(scope="module")
def manifest() -> dict:
    manifest = load_manifest("QUIVER_INT8_DIR", "tests/int8/make_fixtures.sh")
    try:
        with quiver.Predictor(str(INT8_DIR / "digits_cnn-naive"), precision="int8"):
            pass
    except quiver.UnsupportedError as e:
        not_run_without_int8_cpu(e)
    return manifest


def _load(name: str, shape) -> np.ndarray:
    return np.fromfile(INT8_DIR / name, dtype="<f4").reshape(shape)


def _cases():
    path = INT8_DIR / "manifest.json"
    if not path.exists():
        return [pytest.param("missing", "naive", id="fixtures-missing")]
    models = json.loads(path.read_text())["models"]
    return [(m["name"], mode) for m in models for mode in m["modes"]]


def _run(prefix: Path, x: np.ndarray, precision: str) -> np.ndarray:
    with quiver.Predictor(str(prefix), precision=precision) as p:
        assert p.precision == precision
        return np.array(p.predict(x))


@pytest.mark.parametrize("name,mode", _cases())
def test_int8_error_is_of_mxnets_size(manifest, name, mode):
    model = next(m for m in manifest["models"] if m["name"] == name)
    info = model["modes"][mode]
    x = _load(model["files"]["input"], model["input_shape"])
    f32 = _load(model["files"]["float32"], model["output_shape"])
    mxnet_int8 = _load(info["output_file"], model["output_shape"])
    prefix = INT8_DIR / info["symbol_file"][: -len("-symbol.json")]
    ours = _run(prefix, x, "int8")
    scale = float(np.abs(f32).max())
    ours_error = float(np.abs(ours - f32).max()) / scale
    mxnet_error = float(np.abs(mxnet_int8 - f32).max()) / scale
    print(f"{name} {mode}: int8 error / scale: Quiver {ours_error:.4f}, MXNet {mxnet_error:.4f}")
    assert ours_error <= error_bound_factor() * mxnet_error
    assert ours_error < 1.0
    # Really int8: float32 on the same file (its float model, with MXNet's int8 inner-product weights)
    # computes something else.
    assert not np.array_equal(ours, _run(prefix, x, "float32"))


@pytest.mark.parametrize("mode", ["naive", "entropy", "none"])
def test_digits_cnn_keeps_its_accuracy_in_int8(manifest, mode):
    model = next(m for m in manifest["models"] if m["name"] == "digits_cnn")
    digits = json.loads((DIGITS_DIR / "manifest.json").read_text())["models"]["digits_cnn"]
    test_set = next(c for c in digits["cases"] if c["name"] == "test_set")
    x = np.fromfile(DIGITS_DIR / test_set["input_file"], dtype="<f4").reshape(test_set["input_shape"])
    labels = np.fromfile(DIGITS_DIR / test_set["labels_file"], dtype=np.int32)
    out = _run(INT8_DIR / f"digits_cnn-{mode}", x, "int8")
    accuracy = float((out.argmax(axis=1) == labels).mean())
    print(f"digits int8 {mode}: {accuracy:.4f} (MXNet int8 {model['accuracy']['int8'][mode]:.4f})")
    assert accuracy >= 0.983, accuracy


def test_auto_picks_int8_for_a_quantized_model(manifest):
    with quiver.Predictor(str(INT8_DIR / "digits_cnn-naive"), precision="auto") as p:
        assert p.precision == "int8"
