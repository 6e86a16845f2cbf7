"""`quiver info` on the fixtures, hand-made models with operators Quiver lacks, and bad arguments."""
from __future__ import annotations

from collections import Counter

import numpy as np

from cli_runner import one_line_error, quiver
from conftest import prefix
from mxnet_files import params_bytes, symbol_json


def test_describes_resnet18_without_a_shape(manifest):
    report = quiver("info", prefix("resnet18_v1"), "--json").json()
    assert report["inputs"] == [{"name": "data", "dtype": "float32", "shape": ["N", 3, "H", "W"],
                                 "source": "weight of 'resnetv10_conv0_fwd'"}]
    assert report["outputs"] == ["resnetv10_dense0_fwd_output"]
    assert report["operators"]["Convolution"] == 20 and report["operators"]["FullyConnected"] == 1
    # Gluon's ResNet-18 v1: 11,689,512 trainable weights plus 9,600 BatchNorm running statistics.
    assert report["parameters"]["elements"] == 11_699_112
    assert report["parameters"]["bytes"] == 4 * 11_699_112 and report["parameters"]["dtypes"] == ["float32"]
    assert report["unsupported"] == [] and "plan" not in report
    # Every BatchNorm follows a convolution it folds into; every activation and residual addition reads a
    # convolution's only use, so it runs as that convolution's post-op: all 45 run inside the 20.
    fused = report["fused"]
    assert Counter(f["op"] for n in fused["nodes"] for f in n["fused"]) == {
        "BatchNorm": 20, "Activation": 17, "elemwise_add": 8}
    assert [n["op"] for n in fused["nodes"]] == ["Convolution"] * 20
    assert sum(fused["patterns"].values()) == 20
    assert fused["patterns"]["Convolution + BatchNorm + elemwise_add + Activation"] == 8


def test_a_shape_compiles_the_plan_and_the_text_says_so(manifest):
    result = quiver("info", prefix("tiny"), "--shape", "data:2,3,16,16")
    assert result.status == 0
    assert "data  float32  (2, 3, 16, 16)  [--shape]" in result.stdout
    assert "plan for data:(2,3,16,16): compiled" in result.stdout
    assert "unsupported by this runtime: none" in result.stdout
    assert "fused: 5 nodes run inside 2 others:\n" in result.stdout
    assert "      1  Convolution + BatchNorm + elemwise_add + Activation\n" in result.stdout


def test_names_every_unsupported_node(tmp_path):
    nodes = [("null", "data", {}, []), ("MadeUpOp", "first_bad", {}, [0]), ("relu", "fine", {}, [1]),
             ("OtherMissing", "second_bad", {"axis": "1"}, [2])]
    (tmp_path / "m-symbol.json").write_text(symbol_json(nodes, [3]))
    (tmp_path / "m-0000.params").write_bytes(params_bytes({"arg:unused": np.zeros(2, np.float32)}))
    result = quiver("info", str(tmp_path / "m"), "--json")
    assert result.status == 1
    assert [(u["node"], u["op"]) for u in result.json()["unsupported"]] == [
        ("first_bad", "MadeUpOp"), ("second_bad", "OtherMissing")]
    assert all("not supported" in u["message"] for u in result.json()["unsupported"])
    assert result.json()["fused"] is None


def test_errors_are_one_line_with_status_2(manifest, tmp_path):
    one_line_error(quiver("info", str(tmp_path / "absent")), "info", "absent-symbol.json")
    one_line_error(quiver("info", prefix("tiny"), "--epoch", "7"), "info", "tiny-0007.params")
    one_line_error(quiver("info", prefix("tiny"), "--shape", "data:1,3,16"), "info", "conv1")
    one_line_error(quiver("info", prefix("tiny"), "--shape", "image:1,3,16,16"), "info", "image")
    one_line_error(quiver("info", prefix("tiny"), "--shape", "data:1,-3"), "info", "data:1,-3")
    (tmp_path / "broken-symbol.json").write_text('{"nodes": [')
    one_line_error(quiver("info", str(tmp_path / "broken")), "info")


def test_every_subcommand_has_help():
    for command in ("info", "check", "bench", "classify", "detect"):
        result = quiver(command, "--help")
        assert result.status == 0 and f"usage: quiver {command}" in result.stdout
