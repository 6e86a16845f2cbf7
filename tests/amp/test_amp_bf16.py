"""MXNet 1.9.1's bfloat16 AMP models (tests/amp/make_fixtures.py) run through Quiver at its default
float32 precision, against MXNet's own outputs.

What Quiver computes: every amp_cast to bfloat16 rounds its values exactly as MXNet does (nearest, ties
to even); bfloat16 parameters load widened; everything else is float32. MXNet's AMP run also stores the
output of every operator that runs in bfloat16 (convolutions, BatchNorm, activations, pooling, adds) in
bfloat16, so it rounds many more values than Quiver does. Hence two comparisons, for each model:

1. Against "emulated": MXNet float32 on the same AMP graph, each cast to bfloat16 followed by a cast
   back to float32 (the values rounded where the casts are, nothing else). That is Quiver's arithmetic,
   so the conformance suite's float32 bound holds: max |quiver - emulated| <= 1e-4 x scale, scale =
   max |MXNet float32 output|, plus one thing float32 noise can do: a cast of a computed value (the
   models' Flatten stays float32, so its output is cast to bfloat16 before the last layer) may round
   to the other bfloat16 neighbour when MXNet's and Quiver's float32 values straddle a midpoint. That
   moves output j by ulp(f_i) |W_ji|; the fixture records the largest such move ("flip_allowance")
   and one flip per row is allowed. A flip needs the two values within float32 noise (~1e-7 relative)
   of a midpoint 2^-8 apart: about 5e-5 per rounded element, so one in a row of these models (256
   features) happens now and then (MobileNet 0.25 has one in four rows here: 2.3e-3 against an
   allowance of 2.4e-2), two in one row practically never.
2. Against MXNet's AMP outputs A (the Module API with its oneDNN fusion, and gluon.SymbolBlock, which
   round in different places and differ from each other by about as much as from float32). Let F be
   MXNet's float32 output of the original model and E_amp = max |A - F|, MXNet's own bfloat16 error
   on these inputs. Quiver rounds a subset of what MXNet rounds (the casts, not every activation), so
   its distance from F is at most about E_amp (the flips of 1. included: they are far smaller); the fixture checks that premise on MXNet alone
   (max |emulated - F| <= E_amp). By the triangle inequality |Q - A| <= |Q - F| + |F - A|, so
       max |quiver - A| <= 2 E_amp + 1e-4 x scale,
   the same "two implementations, each as far from the exact result as MXNet" rule the conformance
   suite uses for float32. A bound from bfloat16's unit roundoff alone (2^-9 relative per rounding)
   does not work here: random-weight networks amplify each layer's rounding, and MXNet measures
   E_amp at 1.3e-2 to 2.1e-1 of the output scale on these models (see the manifest).
3. Top-1: Quiver's class equals MXNet AMP's wherever MXNet's top-1 margin exceeds twice the bound of 2
   (no error within the bound could swap those two classes).

QUIVER_AMP_DIR names the fixture directory (tests/amp/make_fixtures.sh prints it). MXNet makes these
models only on AVX-512 (tests/amp/bf16_cpu.py); elsewhere the directory says why they are absent, and
every test here says "not run" with that reason.
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

import quiver
from bf16_cpu import absent_reason

FIXTURES = Path(os.environ.get("QUIVER_AMP_DIR", ""))
FLOAT32_TOLERANCE = 1e-4  # of the output's scale: the conformance suite's float32 bound
AMP_PATHS = ("amp", "amp_gluon")


def load_manifest():
    path = FIXTURES / "manifest.json"
    if not os.environ.get("QUIVER_AMP_DIR") or not path.exists():
        return {}
    return json.loads(path.read_text())


MANIFEST = load_manifest()
MODELS = MANIFEST.get("models", [])
NOT_RUN = absent_reason(MANIFEST)  # why this CPU has no fixtures by design, or None
# Each model, or where the set is absent by design one case that says why it is not run.
MODEL_PARAMS = ([pytest.param(None, id="absent", marks=pytest.mark.skip(reason=NOT_RUN))] if NOT_RUN else
                [pytest.param(m, id=m["prefix"]) for m in MODELS])


def test_fixtures_present():
    if NOT_RUN:
        pytest.skip(NOT_RUN)
    if not MODELS:
        message = f"no AMP fixtures at '{FIXTURES}': run tests/amp/make_fixtures.sh"
        if "absent" in MANIFEST:
            message += f" --force (they say '{MANIFEST['absent']}', but MXNet can run bfloat16 on this CPU)"
        if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)


def load(model, key, shape_key):
    return np.fromfile(FIXTURES / model["files"][key], dtype="<f4").reshape(model[shape_key])


@functools.lru_cache(maxsize=None)  # each model's output is compared three times: run it once
def quiver_output(prefix):
    model = next(m for m in MODELS if m["prefix"] == prefix)
    with quiver.Predictor(str(FIXTURES / prefix)) as predictor:
        return np.asarray(predictor.predict(load(model, "input", "input_shape")), dtype=np.float64)


def amp_error(model, path):
    return model["amp_vs_float32" if path == "amp" else "amp_gluon_vs_float32"]


def amp_bound(model, path):
    return 2 * amp_error(model, path) + FLOAT32_TOLERANCE * model["output_scale"]


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_fixture_is_what_it_claims(model):
    # The graph really holds the casts, and the bf16 storage is where the generator put it.
    assert model["amp_casts"]["bfloat16"] >= 1
    assert (model["bfloat16_params"] > 0) == model["cast_optional_params"]
    # The premise of the AMP bound, measured on MXNet alone.
    for path in AMP_PATHS:
        assert model["emulated_vs_float32"] <= amp_error(model, path)


@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_matches_mxnet_float32_with_the_same_roundings(model):
    got = quiver_output(model["prefix"])
    want = load(model, "emulated", "output_shape")
    error = float(np.max(np.abs(got - want)))
    bound = FLOAT32_TOLERANCE * model["output_scale"] + model["flip_allowance"]
    assert error <= bound, f"{model['prefix']}: max |quiver - emulated| {error:.3g} > {bound:.3g}"


@pytest.mark.parametrize("path", AMP_PATHS)
@pytest.mark.parametrize("model", MODEL_PARAMS)
def test_matches_mxnet_amp_within_twice_its_bfloat16_error(model, path):
    got = quiver_output(model["prefix"])
    want = load(model, path, "output_shape")
    error = float(np.max(np.abs(got - want)))
    bound = amp_bound(model, path)
    assert error <= bound, (f"{model['prefix']} vs MXNet {path}: max error {error:.3g} > {bound:.3g} "
                            f"(MXNet's own bfloat16 error {amp_error(model, path):.3g})")

    # Top-1 wherever MXNet's margin leaves no doubt.
    ordered = np.sort(want, axis=1)
    clear = ordered[:, -1] - ordered[:, -2] > 2 * bound
    assert np.array_equal(np.argmax(got, axis=1)[clear], np.argmax(want, axis=1)[clear])
