"""Segmenter and `quiver segment` on a hand-made model whose class scores are the normalised pixel itself."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import quiver
from cli_runner import one_line_error, quiver as run_quiver
from conftest import prefix
from mxnet_files import params_bytes, symbol_json
from quiver.segmenter import _bilinear, _nearest, palette

LABELS = ["red", "green", "blue"]
RED, BLUE = (255, 0, 0), (0, 0, 255)


def _rgb_model():
    """(N, 3, H, W) -> the same map: a 1x1 convolution with identity weights, so class c scores channel c."""
    nodes = [("null", "data", {}, []), ("null", "conv_weight", {}, []),
             ("Convolution", "conv", {"kernel": "(1, 1)", "num_filter": "3", "no_bias": "True"}, [0, 1])]
    params = {"arg:conv_weight": np.eye(3, dtype=np.float32).reshape(3, 3, 1, 1)}
    return symbol_json(nodes, [2]), params_bytes(params)


def _halves(height, width):
    """Red on the left half, blue on the right."""
    image = np.zeros((height, width, 3), np.uint8)
    image[:, :width // 2] = RED
    image[:, width // 2:] = BLUE
    return image


def _softmax_max(pixel):
    logits = (np.asarray(pixel, np.float64) - quiver.image.IMAGENET_MEAN) / quiver.image.IMAGENET_STD
    e = np.exp(logits - logits.max())
    return e.max() / e.sum()


@pytest.fixture()
def segmenter():
    symbol, params = _rgb_model()
    with quiver.Segmenter.from_bytes(symbol, params, synset=LABELS, image_size=(8, 8)) as model:
        yield model


def test_segmentation_is_at_the_image_size_with_softmax_scores(segmenter):
    result = segmenter.segment(_halves(20, 40))
    assert result.class_ids.shape == result.scores.shape == (20, 40)
    assert result.class_ids.dtype == np.int32 and result.scores.dtype == np.float32
    # Away from the boundary (which resizing to 8x8 blurs), each half is its colour's class.
    assert (result.class_ids[:, :14] == 0).all() and (result.class_ids[:, 26:] == 2).all()
    assert result.label_at(3, 10) == "red" and result.label_at(35, 10) == "blue"
    np.testing.assert_allclose(result.scores[:, :10], _softmax_max(RED), rtol=1e-5)
    np.testing.assert_allclose(result.scores[:, 30:], _softmax_max(BLUE), rtol=1e-5)
    shares = dict(result.classes())
    assert set(shares) <= set(LABELS) and shares["red"] == pytest.approx(0.5, abs=0.1)
    assert sum(shares.values()) == pytest.approx(1.0)


def test_batches_keep_each_image_size_and_match_single_runs(segmenter, tmp_path):
    path = tmp_path / "halves.png"
    Image.fromarray(_halves(30, 16)).save(path)
    both = segmenter.segment_batch([_halves(20, 40), path])
    assert [r.class_ids.shape for r in both] == [(20, 40), (30, 16)]
    alone = segmenter.segment(Image.open(path))
    np.testing.assert_array_equal(both[1].class_ids, alone.class_ids)
    np.testing.assert_allclose(both[1].scores, alone.scores, rtol=1e-6)


def test_softmax_false_returns_the_raw_best_score():
    symbol, params = _rgb_model()
    with quiver.Segmenter.from_bytes(symbol, params, synset=LABELS, image_size=(8, 8), softmax=False) as model:
        result = model.segment(_halves(8, 8))
    want = (255 - quiver.image.IMAGENET_MEAN[2]) / quiver.image.IMAGENET_STD[2]  # blue's own channel
    np.testing.assert_allclose(result.scores[:, 7], want, rtol=1e-5)


def test_mask_is_a_palette_image_of_class_ids(segmenter):
    result = segmenter.segment(_halves(20, 40))
    mask = result.mask()
    assert mask.mode == "P" and mask.size == (40, 20)
    np.testing.assert_array_equal(np.asarray(mask), result.class_ids)
    colours = palette(4)
    assert colours[0].tolist() == [0, 0, 0] and len({tuple(c) for c in colours}) == 4


def test_resizing_rules():
    np.testing.assert_array_equal(_nearest(6, 3), [0, 0, 1, 1, 2, 2])
    np.testing.assert_array_equal(_nearest(2, 3), [0, 2])  # centres at 0.75 and 2.25 of the source
    plane = np.array([[0.0, 1.0], [2.0, 3.0]], np.float32)
    np.testing.assert_array_equal(_bilinear(plane, 2, 2), plane)
    # 2 -> 4: centres at -0.25 (clamped), 0.25, 0.75, 1.25 (clamped) of the source grid; 2 -> 1: the mean.
    np.testing.assert_allclose(_bilinear(plane, 1, 4)[0], [1.0, 1.25, 1.75, 2.0])
    np.testing.assert_allclose(_bilinear(plane, 4, 1)[:, 0], [0.5, 1.0, 2.0, 2.5])


def test_models_that_are_not_segmenters_are_refused(manifest):
    symbol, params = _rgb_model()
    with quiver.Segmenter.from_bytes(symbol, params, synset=["a", "b"], image_size=(8, 8)) as wrong_labels:
        with pytest.raises(quiver.ShapeError, match="3 classes but the synset has 2 labels"):
            wrong_labels.segment(_halves(8, 8))
    with quiver.Segmenter(prefix("tiny"), image_size=(16, 16)) as classifier:
        with pytest.raises(quiver.ShapeError, match="not a segmentation model"):
            classifier.segment(_halves(16, 16))
    with pytest.raises(ValueError, match="softmax"):
        quiver.Segmenter.from_bytes(symbol, params, softmax="sometimes")


def _write_model(tmp_path):
    symbol, params = _rgb_model()
    (tmp_path / "rgb-symbol.json").write_text(symbol)
    (tmp_path / "rgb-0000.params").write_bytes(params)
    (tmp_path / "synset.txt").write_text("\n".join(LABELS) + "\n")
    return str(tmp_path / "rgb")


def test_segment_command_prints_shares_and_writes_masks(tmp_path):
    model = _write_model(tmp_path)
    images = []
    for i, size in enumerate([(20, 40), (12, 12)]):
        images.append(str(tmp_path / f"image{i}.png"))
        Image.fromarray(_halves(*size)).save(images[-1])
    one = run_quiver("segment", model, images[0], "--shape", "data:1,3,8,8", "--out", str(tmp_path / "m.png"),
                     "--json")
    assert one.status == 0
    with quiver.Segmenter(model, image_size=(8, 8)) as segmenter:
        want = segmenter.segment(images[0])
    line = one.json_lines()[0]
    assert [c["label"] for c in line["classes"]] == [label for label, _ in want.classes()]
    np.testing.assert_array_equal(np.asarray(Image.open(tmp_path / "m.png")), want.class_ids)
    several = run_quiver("segment", model, *images, "--shape", "data:1,3,8,8", "--out", str(tmp_path / "masks"))
    assert several.status == 0 and "red" in several.stdout
    assert Image.open(tmp_path / "masks" / "image1.png").size == (12, 12)


def test_segment_command_errors(manifest, tmp_path):
    model = _write_model(tmp_path)
    one_line_error(run_quiver("segment", model, str(tmp_path / "missing.png"), "--shape", "data:1,3,8,8"),
                   "segment", "missing.png")
    one_line_error(run_quiver("segment", prefix("tiny"), str(tmp_path / "missing.png"), "--shape",
                              "data:1,3,16,16", "--synset", str(tmp_path / "none.txt")), "segment", "none.txt")
