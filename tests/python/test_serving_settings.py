"""quiver.serving's settings (plain Python: no serving engine needed) and `quiver serve`'s answer where
the serving extra is not installed. The server itself is tested in tests/serving (scripts/test_serving.sh)."""
from __future__ import annotations

import importlib.util
import json

import pytest
from cli_runner import one_line_error, quiver as run_quiver
from quiver.errors import InvalidArgumentError
from quiver.serving import ModelSettings, load_settings


def test_a_settings_file_with_several_models(tmp_path):
    (tmp_path / "models.json").write_text(json.dumps({"models": [
        {"prefix": "resnet/resnet18_v1", "kind": "image_classifier", "precision": "auto",
         "options": {"max_inflight": 8, "static_shape": False}, "kwargs": {"resize_short": 256}},
        {"name": "bert", "prefix": "s3://bucket/bert", "shapes": {"data0": [1, 128]}, "dtypes": {"data0": "int32"},
         "max_batch_size": 1}]}))
    resnet, bert = load_settings(str(tmp_path / "models.json"))
    assert resnet.name == "resnet18_v1" and resnet.prefix == str(tmp_path / "resnet" / "resnet18_v1")
    keywords, options = resnet.predictor_arguments()
    assert keywords == {"epoch": 0, "device": "cpu", "max_inflight": 8, "resize_short": 256}
    assert options == {"max_batch_size": "16", "batch_timeout_us": "1000", "precision": "auto", "static_shape": False}
    assert bert.prefix == "s3://bucket/bert"  # URIs are left as they are
    keywords, options = bert.predictor_arguments()
    assert "max_batch_size" not in options and keywords["max_inflight"] == 512


@pytest.mark.parametrize("document, words", [
    ({"prefix": "m", "batch": 4}, "unknown model settings ['batch']"),
    ({"prefix": "m", "kind": "segmenter"}, "kind must be one of"),
    ({"prefix": "m", "max_batch_size": 0}, "max_batch_size must be at least 1"),
    ({"prefix": "m", "max_rows": 0}, "max_rows must be at least 1"),
    ({"prefix": "m", "shapes": {"data": [1, 0]}}, "shape of 'data'"),
    ({"models": [{"prefix": "a/m"}, {"prefix": "b/m"}]}, "model names repeat"),
    ({"models": "m"}, "expected a model object"),
])
def test_bad_settings_are_refused_naming_the_problem(tmp_path, document, words):
    (tmp_path / "models.json").write_text(json.dumps(document))
    with pytest.raises(InvalidArgumentError) as caught:
        load_settings(str(tmp_path / "models.json"))
    assert words in str(caught.value.message)


def test_rows_per_request_default_to_the_batch_size_where_requests_are_batched():
    assert ModelSettings(prefix="m").row_cap == 16
    assert ModelSettings(prefix="m", max_batch_size=1).row_cap is None
    assert ModelSettings(prefix="m", max_batch_size=1, max_rows=4).row_cap == 4


def test_settings_need_a_prefix():
    with pytest.raises(InvalidArgumentError):
        ModelSettings(prefix="")


def test_serve_says_what_it_needs(tmp_path):
    if importlib.util.find_spec("kserve") is None:
        one_line_error(run_quiver("serve", str(tmp_path / "model")), "serve", "pip install 'quiver[serving]'")
    else:  # the extra is installed: the command still refuses what makes no sense
        one_line_error(run_quiver("serve"), "serve", "PREFIX or --settings")
