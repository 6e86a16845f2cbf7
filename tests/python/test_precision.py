"""The ``precision`` keyword: what it resolves to, the accuracy of a trained model in bfloat16, and
refusals that say why."""
from __future__ import annotations

import numpy as np
import pytest

import quiver
from conftest import FIXTURES, case, prefix


def _auto() -> str:
    with quiver.Predictor(prefix("tiny"), precision="auto") as p:
        return p.precision


@pytest.fixture(scope="module")
def bfloat16(manifest) -> None:
    if _auto() != "bfloat16":  # then bfloat16 is refused, naming the instructions this CPU lacks
        with pytest.raises(quiver.UnsupportedError) as refusal:
            quiver.Predictor(prefix("tiny"), precision="bfloat16")
        pytest.skip(f"not run: {refusal.value}")


def test_default_is_float32_and_auto_resolves(manifest):
    with quiver.Predictor(prefix("tiny")) as p:
        assert p.precision == "float32"
    assert _auto() in ("bfloat16", "float32")


def test_digits_cnn_keeps_its_accuracy_in_bfloat16(manifest, bfloat16):
    """MXNet's float32 accuracy on the 360 held-back digits is 98.61% (355); bfloat16 must keep 98.3%."""
    model = manifest["models"]["digits_cnn"]
    x, mxnet_out, scale = case(manifest, "digits_cnn", "test_set")
    labels = np.fromfile(FIXTURES / model["cases"][0]["labels_file"], dtype=np.int32)
    with quiver.Predictor(prefix("digits_cnn"), precision="bfloat16") as p:
        assert p.precision == "bfloat16"
        out = p.predict(x)
    accuracy = float((out.argmax(axis=1) == labels).mean())
    assert accuracy >= 0.983, accuracy
    # Really bfloat16: its logits move from MXNet's float32 ones by far more than float32's 1e-4 x
    # scale, and by no more than a few bfloat16 roundings (2^-8 relative) through three layers.
    moved = float(np.abs(out - mxnet_out).max()) / scale
    assert 1e-4 < moved < 0.05, moved


def test_bad_precisions_are_refused_naming_the_flag(manifest):
    with pytest.raises(quiver.InvalidArgumentError, match="precision.*float32, bfloat16, int8, auto"):
        quiver.Predictor(prefix("tiny"), precision="half")
    with pytest.raises(quiver.InvalidArgumentError, match="int8.*calibration"):
        quiver.Predictor(prefix("tiny"), precision="int8")
    with pytest.raises(quiver.InvalidArgumentError, match="precision"):
        quiver.Predictor(prefix("tiny"), precision="bfloat16", options={"precision": "float32"})
