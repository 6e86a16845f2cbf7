"""`quiver check`: a model that runs, one whose outputs are not finite, and files that are not there."""
from __future__ import annotations

import numpy as np

from cli_runner import one_line_error, quiver
from conftest import prefix
from mxnet_files import params_bytes, symbol_json


def test_runs_one_random_batch(manifest):
    result = quiver("check", prefix("tiny"), "--shape", "data:2,3,16,16")
    assert result.status == 0
    assert "fc1_output  float32  (2, 10)  finite" in result.stdout and result.stdout.rstrip().endswith("OK")


def test_default_shape_for_an_image_model(manifest):
    result = quiver("check", prefix("resnet18_v1"))
    assert result.status == 0 and "(1, 1000)" in result.stdout


def test_non_finite_outputs_fail_with_status_1(tmp_path):
    nodes = [("null", "data", {}, []), ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
             ("FullyConnected", "fc", {"num_hidden": "2"}, [0, 1, 2])]
    (tmp_path / "nan-symbol.json").write_text(symbol_json(nodes, [3]))
    (tmp_path / "nan-0000.params").write_bytes(params_bytes({
        "arg:fc_weight": np.zeros((2, 4), np.float32), "arg:fc_bias": np.array([0, np.nan], np.float32)}))
    result = quiver("check", str(tmp_path / "nan"), "--shape", "data:1,4")
    assert result.status == 1 and "NOT FINITE" in result.stdout and "FAILED" in result.stdout


def test_errors_are_one_line_with_status_2(manifest, tmp_path):
    one_line_error(quiver("check", str(tmp_path / "absent")), "check", "absent-symbol.json")
    one_line_error(quiver("check", prefix("tiny"), "--shape", "data:1,3,16"), "check", "conv1")
    one_line_error(quiver("check", prefix("tiny"), "--shape", "data:1,3,16,16", "--option", "device=gpu(99)"),
                   "check")
