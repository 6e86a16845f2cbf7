"""Operators in forms that no model of the conformance set exercises, each alone in a symbol that real
MXNet 1.9.1 built, saved and ran (tests/conformance/mxnet_operators.py, in the python that QUIVER_MXNET
names), loaded by Quiver from MXNet's file and run on the same inputs: the same output shape, and
values within 1e-5 of the output's scale (one float32 product's rounding).

dot: every combination of transposes on matrices, N-d operands (MXNet flattens each to a matrix around
its contracted axis) and vectors on either side."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import quiver

MXNET = os.environ.get("QUIVER_MXNET", "")
TOLERANCE = 1e-5


def _dot(name: str, a: tuple, b: tuple, transpose_a: bool = False, transpose_b: bool = False) -> dict:
    return {"name": name, "op": "dot", "shapes": [a, b],
            "attrs": {"transpose_a": transpose_a, "transpose_b": transpose_b}}


CASES = [
    _dot("dot_2d", (3, 5), (5, 4)),
    _dot("dot_2d_ta", (5, 3), (5, 4), transpose_a=True),
    _dot("dot_2d_tb", (3, 5), (4, 5), transpose_b=True),
    _dot("dot_2d_ta_tb", (5, 3), (4, 5), True, True),
    _dot("dot_3d_3d", (2, 3, 5), (5, 4, 2)),
    _dot("dot_3d_ta_2d", (5, 2, 3), (5, 4), transpose_a=True),
    _dot("dot_3d_3d_tb", (2, 3, 5), (4, 2, 5), transpose_b=True),
    _dot("dot_3d_3d_ta_tb", (5, 2, 3), (2, 4, 5), True, True),
    _dot("dot_vectors", (7,), (7,)),
    _dot("dot_vector_matrix", (7,), (7, 3)),
    _dot("dot_vector_matrix_tb", (7,), (3, 7), transpose_b=True),
    _dot("dot_matrix_vector_ta", (7, 4), (7,), transpose_a=True),
    _dot("dot_dense_layer", (16, 256), (256, 512)),
]


@pytest.fixture(scope="module")
def mxnet_cases(tmp_path_factory) -> Path:
    if not MXNET:
        message = "no MXNet: set QUIVER_MXNET to scripts/setup_mxnet_venv.sh's python"
        if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    out = tmp_path_factory.mktemp("mxnet_operators")
    subprocess.run([MXNET, str(Path(__file__).with_name("mxnet_operators.py")), str(out)],
                   input=json.dumps(CASES), text=True, check=True,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_operator_matches_mxnet(mxnet_cases: Path, case: dict) -> None:
    prefix = mxnet_cases / case["name"]
    inputs = {f"in{i}": np.load(f"{prefix}-input{i}.npy") for i in range(len(case["shapes"]))}
    want = np.load(f"{prefix}-output.npy")
    with quiver.Predictor(prefix) as predictor:
        got = np.array(predictor.predict(inputs))
    assert got.shape == want.shape
    scale = max(float(np.abs(want).max()), 1.0)
    assert float(np.abs(got - want).max()) <= TOLERANCE * scale
