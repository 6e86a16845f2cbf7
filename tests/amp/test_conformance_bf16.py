"""Quiver's precision="bfloat16" on the conformance suite's float32 files, against MXNet 1.9.1's own
bfloat16 error on the same files (tests/amp/make_conformance_fixtures.py: MXNet's AMP conversion of each
file, run through the Module API, and through gluon.SymbolBlock for comparison).

Let F be MXNet's float32 output of a file, A its AMP bfloat16 output through the Module API, and Q
Quiver's bfloat16 output of the same file and input. The rule is

    max |Q - F| <= 1.5 max |A - F|

for a classifier's output, and for the detector's class logits and decoded boxes per anchor (before
non-maximum suppression, whose selection small errors reorder; tests/int8/test_int8_ssd.py explains
why). Why: both round every convolution's and inner product's input and weights to bfloat16 and
accumulate in float32; MXNet's AMP under Module also stores in bfloat16 the output of every node it runs
in bfloat16 (each fused convolution, BatchNorm, activation, pooling, addition), while Quiver stores a
convolution's output, with what it fuses, in bfloat16 only where a bfloat16 kernel reads it next, and
keeps everything else in float32 (docs/precision.rst). So Quiver rounds at a subset of the places where
MXNet does, and its error is at most MXNet's up to the spread between the largest elements of two
different samples of rounding errors: the factor 1.5, the same factor and argument as tests/int8's
"same grids, different draws". MXNet's Gluon path (SymbolBlock, no fusion) rounds at other places; its
error is printed for comparison, not asserted on (no subset relation holds there).

QUIVER_AMP_CONFORMANCE_DIR names the fixtures (tests/amp/make_fixtures.sh --conformance[=full] prints it), and
QUIVER_CONFORMANCE_DIR the conformance set they were made from (tests/conformance/make_fixtures.sh ci or
full; scripts/test.sh runs the ci set, tests/conformance/run.sh full the whole zoo).
On a CPU without native bfloat16 the tests say "not run" and skip; so do they where MXNet could not make
the fixtures (no AVX-512: tests/amp/bf16_cpu.py), saying why.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

import quiver
from bf16_cpu import absent_reason

FIXTURES = Path(os.environ.get("QUIVER_AMP_CONFORMANCE_DIR", ""))
CONFORMANCE = Path(os.environ.get("QUIVER_CONFORMANCE_DIR", ""))
FACTOR = 1.5


def _load_manifest() -> dict:
    path = FIXTURES / "manifest.json"
    if not os.environ.get("QUIVER_AMP_CONFORMANCE_DIR") or not path.exists():
        return {}
    return json.loads(path.read_text())


MANIFEST = _load_manifest()
MODELS = MANIFEST.get("models", [])
NOT_RUN = absent_reason(MANIFEST)  # why this CPU has no fixtures by design, or None
# Each model, or where the set is absent by design one case that says why it is not run.
MODEL_PARAMS = ([pytest.param(None, id="absent", marks=pytest.mark.skip(reason=NOT_RUN))] if NOT_RUN else
                [pytest.param(m, id=m["name"]) for m in MODELS])


def test_fixtures_present():
    if NOT_RUN:
        pytest.skip(NOT_RUN)
    if MODELS and (CONFORMANCE / "manifest.json").exists():
        return
    message = (f"no bfloat16 conformance fixtures at '{FIXTURES}' or conformance files at '{CONFORMANCE}': run "
               "tests/amp/make_fixtures.sh --conformance and tests/conformance/make_fixtures.sh ci")
    if "absent" in MANIFEST:
        message += f" (the fixtures say '{MANIFEST['absent']}', but MXNet can run bfloat16 on this CPU: --force)"
    if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
        pytest.fail(message)
    pytest.skip(message)


def _prefix(model: dict, tmp_path: Path) -> str:
    """The file MXNet ran: the conformance file, or for the detector its symbol with the per-anchor outputs."""
    if model["per_anchor_symbol"] is None:
        return str(CONFORMANCE / model["prefix"])
    prefix = tmp_path / model["name"]
    os.symlink(FIXTURES / model["per_anchor_symbol"], f"{prefix}-symbol.json")
    os.symlink(CONFORMANCE / f"{model['prefix']}-0000.params", f"{prefix}-0000.params")
    return str(prefix)


def _outputs(predictor: quiver.Predictor, x: np.ndarray, compared: list) -> dict:
    """The compared outputs: the last len(compared) of the model's."""
    got = predictor.predict(x)
    got = got if isinstance(got, list) else [got]
    return dict(zip(compared, (np.asarray(o, dtype=np.float64) for o in got[len(got) - len(compared):])))


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_bfloat16_error_is_within_mxnets(model, tmp_path):
    prefix = _prefix(model, tmp_path)
    try:
        predictor = quiver.Predictor(prefix, precision="bfloat16")
    except quiver.UnsupportedError as e:  # a CPU without bfloat16 instructions: say so, never pass
        pytest.skip(f"not run: {e}")
    with predictor, quiver.Predictor(prefix) as float32:
        assert predictor.precision == "bfloat16"
        for case in model["cases"]:
            files = case["files"]
            x = np.fromfile(FIXTURES / files["input"], dtype="<f4").reshape(case["input_shape"])
            ours, ours_f32 = _outputs(predictor, x, model["compared"]), _outputs(float32, x, model["compared"])
            for key, q in ours.items():
                shape, scale = case["output_shapes"][key], case["output_scales"][key]
                f = np.fromfile(FIXTURES / files[f"{key}-float32"], dtype="<f4").reshape(shape)
                mxnet = case["mxnet_bfloat16_error"][key]
                error = float(np.abs(q - f).max())
                print(f"{model['name']} {case['input_shape']} {key}: bfloat16 error / scale: Quiver "
                      f"{error / scale:.4f}, MXNet Module {mxnet['amp'] / scale:.4f} (ratio {error / mxnet['amp']:.2f}), "
                      f"MXNet Gluon {mxnet['amp_gluon'] / scale:.4f} (ratio {error / mxnet['amp_gluon']:.2f})")
                assert error <= FACTOR * mxnet["amp"], (key, error, mxnet)
                assert not np.array_equal(q, ours_f32[key]), f"{key}: bfloat16 computed what float32 does"
