"""Classifier, ImageClassifier and ObjectDetector on real and hand-made models."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

import quiver
from conftest import FIXTURES, case, load_f32, prefix
from mxnet_files import constant_outputs_model, params_bytes, symbol_json


def _softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def test_classifier_top_k_follows_mxnet_outputs(manifest):
    model = manifest["models"]["digits_cnn"]
    c = model["cases"][0]
    x = load_f32(c["input_file"], c["input_shape"])[:40]
    mxnet_out = load_f32(c["output_file"], c["output_shape"])[:40]
    labels = (FIXTURES / "digits_cnn_synset.txt").read_text().split("\n")
    with quiver.Classifier(prefix("digits_cnn"), synset=FIXTURES / "digits_cnn_synset.txt") as clf:
        results = clf.classify(x, top_k=3)
        everything = clf.classify(x[:2])
    probabilities = _softmax(mxnet_out.astype(np.float64))
    for result, mx_row, p_row in zip(results, mxnet_out, probabilities):
        assert len(result) == 3
        assert [label for label, _ in result] == [labels[i] for i in np.argsort(-mx_row)[:3]]
        assert result[0][1] == pytest.approx(p_row.max(), abs=1e-4)
    assert len(everything[0]) == 10 and sum(p for _, p in everything[0]) == pytest.approx(1.0)


def test_classifier_refuses_a_synset_of_the_wrong_length(manifest):
    with quiver.Classifier(prefix("tiny"), synset=["a", "b"]) as clf:
        with pytest.raises(quiver.ShapeError, match="2 labels"):
            clf.classify(np.zeros((1, 3, 16, 16), np.float32))
    with pytest.raises(quiver.NotFoundError, match="synset"):
        quiver.Classifier(prefix("tiny"), synset=FIXTURES / "no-such-synset.txt")


@pytest.fixture(scope="module")
def image_classifier(manifest):
    labels = [f"class{i}" for i in range(1000)]
    with quiver.ImageClassifier(prefix("resnet18_v1"), synset=labels) as clf:
        yield clf


def test_image_preprocessing_of_a_flat_colour_is_exact(image_classifier):
    colour = np.array([200, 100, 50], np.uint8)
    image = np.broadcast_to(colour, (300, 400, 3)).copy()
    batch = image_classifier.preprocess(image)
    assert batch.shape == (1, 3, 224, 224) and batch.dtype == np.float32
    want = (colour - np.array(quiver.image.IMAGENET_MEAN)) / np.array(quiver.image.IMAGENET_STD)
    np.testing.assert_allclose(batch[0, :, 100, 100], want, rtol=1e-6)
    np.testing.assert_allclose(batch.std(axis=(2, 3)), 0, atol=1e-6)


def test_image_classifier_takes_arrays_pil_images_and_paths(image_classifier, tmp_path):
    rng = np.random.default_rng(5)
    image = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    path = tmp_path / "frame.png"
    Image.fromarray(image).save(path)
    from_array = image_classifier.classify(image, top_k=5)
    assert image_classifier.classify(Image.fromarray(image), top_k=5) == from_array
    assert image_classifier.classify(str(path), top_k=5) == from_array
    two = image_classifier.classify([image, path], top_k=5)
    assert len(two) == 2 and [label for label, _ in two[0]] == [label for label, _ in from_array[0]]
    assert [p for _, p in two[0]] == pytest.approx([p for _, p in from_array[0]], rel=1e-4)
    scores = _softmax(image_classifier.predict(image_classifier.preprocess(image)).astype(np.float64))[0]
    assert [label for label, _ in from_array[0]] == [f"class{i}" for i in np.argsort(-scores)[:5]]


def _detector_model(rows: np.ndarray):
    """A model that ignores its image and always outputs `rows` (K x 6 detections): a zero-weight
    FullyConnected whose bias holds them, reshaped to (N, K, 6)."""
    k = rows.shape[0]
    nodes = [("null", "data", {}, []), ("Pooling", "pool", {"global_pool": "True", "kernel": "(1, 1)",
                                                              "pool_type": "avg"}, [0]),
             ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
             ("FullyConnected", "fc", {"num_hidden": str(6 * k)}, [1, 2, 3]),
             ("Reshape", "det", {"shape": "(0, -1, 6)"}, [4])]
    params = {"arg:fc_weight": np.zeros((6 * k, 3), np.float32), "arg:fc_bias": rows.reshape(-1).astype(np.float32)}
    return symbol_json(nodes, [5]), params_bytes(params)


def test_object_detector_reads_mask_rcnn_outputs():
    """GluonCV Mask R-CNN's form: ids, scores, boxes (input pixels) and (N, K, mh, mw) mask probabilities."""
    ids = np.array([[[1], [0], [-1]]])
    scores = np.array([[[0.9], [0.8], [-1]]])
    boxes = np.array([[[8, 16, 40, 48], [-16, 0, 16, 64], [-1, -1, -1, -1]]])  # on a 64 x 64 input
    masks = np.zeros((1, 3, 4, 4))
    masks[0, 0, :, :2] = 1  # the first object fills the left half of its box
    masks[0, 1] = 0.7       # the second all of its box (clipped to the image)
    symbol, params = constant_outputs_model([ids, scores, boxes, masks])
    with quiver.ObjectDetector.from_bytes(symbol, params, synset=["cat", "dog"], image_size=(64, 64)) as det:
        image = np.zeros((128, 256, 3), np.uint8)  # twice as high and four times as wide as the input
        found = det.detect(image, threshold=0.5)
        assert [(label, round(score, 6)) for label, score, _ in found] == [("dog", 0.9), ("cat", 0.8)]
        np.testing.assert_allclose(found[0][2], (32, 32, 160, 96), rtol=1e-5)
        np.testing.assert_allclose(found[1][2], (0, 0, 64, 128), rtol=1e-5)
        instances = det.detect_instances(image, threshold=0.5)
    assert [d[:3] for d in instances] == found
    dog, cat = instances[0][3], instances[1][3]
    assert dog.shape == cat.shape == (128, 256) and dog.dtype == bool
    # The left half of (32, 32)-(160, 96), where the grid's samples are over 0.5.
    assert dog[32:96, 32:80].all() and not dog[32:96, 112:160].any()
    assert not dog[:32].any() and not dog[96:].any() and not dog[:, :32].any() and not dog[:, 160:].any()
    assert cat[:, :64].all() and not cat[:, 64:].any()  # its box starts left of the image


def test_object_detector_without_masks_refuses_detect_instances():
    symbol, params = _detector_model(np.array([[1, 0.9, 0.1, 0.2, 0.5, 0.6]]))
    with quiver.ObjectDetector.from_bytes(symbol, params, image_size=(32, 32)) as det:
        with pytest.raises(quiver.ShapeError, match="no mask output"):
            det.detect_instances(np.zeros((32, 32, 3), np.uint8))


def test_object_detector_maps_boxes_to_image_pixels():
    rows = np.array([[1, 0.9, 0.1, 0.2, 0.5, 0.6],     # kept
                     [0, 0.3, 0.0, 0.0, 1.0, 1.0],     # below the threshold
                     [-1, 0.99, 0.0, 0.0, 0.5, 0.5],   # padding row
                     [2, 0.7, 0.5, 0.5, 1.2, 0.9]])    # clipped to the image
    symbol, params = _detector_model(rows)
    with quiver.ObjectDetector.from_bytes(symbol, params, synset=["cat", "dog", "bird"], image_size=(64, 64)) as det:
        found = det.detect(np.zeros((200, 400, 3), np.uint8), threshold=0.5)
    assert [(label, round(score, 6)) for label, score, _ in found] == [("dog", 0.9), ("bird", 0.7)]
    np.testing.assert_allclose(found[0][2], (40, 40, 200, 120), rtol=1e-5)
    np.testing.assert_allclose(found[1][2], (200, 100, 400, 180), rtol=1e-5)


def test_object_detector_passes_its_deadline_and_priority_to_each_run(monkeypatch):
    symbol, params = _detector_model(np.array([[1, 0.9, 0.1, 0.2, 0.5, 0.6]]))
    with quiver.ObjectDetector.from_bytes(symbol, params, image_size=(32, 32)) as det:
        image = np.zeros((32, 32, 3), np.uint8)
        plain = det.detect(image)
        runs = []
        predict = det.predict
        monkeypatch.setattr(det, "predict", lambda x, **kw: runs.append(kw) or predict(x, **kw))
        assert det.detect(image, timeout=30, priority=7) == plain
        assert runs[0]["priority"] == 7 and 0 < runs[0]["timeout"] <= 30
        # A timeout that passes while the image is prepared: refused before the run, as the runtime would.
        with pytest.raises(quiver.DeadlineExceededError, match="timeout"):
            det.detect_batch([image, image], timeout=1e-9)
        assert len(runs) == 1


def test_size_short_within_gives_gluoncvs_sizes():
    from quiver.image import size_short_within
    # resize_short_within's documented examples (GluonCV 0.10, gluoncv/data/transforms/image.py).
    assert size_short_within(3482, 2321, 800, 1000) == (1000, 667)
    assert size_short_within(3482, 2321, 800, 1200) == (1200, 800)
    assert size_short_within(3482, 2321, 800, 1200, stride=32) == (1184, 800)
    assert size_short_within(400, 200, 416, 1024) == (832, 416)
    assert size_short_within(200, 400, 64, 1024) == (64, 128)


def test_object_detector_keeps_aspect_ratios_with_short_and_maps_boxes_back():
    """GluonCV's form, boxes in input pixels: with short=64 each image keeps its own aspect ratio."""
    ids, scores = np.array([[[0]]]), np.array([[[0.9]]])
    boxes = np.array([[[8, 16, 40, 48]]])
    symbol, params = constant_outputs_model([ids, scores, boxes])
    with quiver.ObjectDetector.from_bytes(symbol, params, synset=["cat"], short=64) as det:
        wide, tall = np.zeros((200, 400, 3), np.uint8), np.zeros((300, 100, 3), np.uint8)
        # wide: 128 x 64 input (scale 0.32); tall: 64 x 192 (scale 0.64); two runs, one per size.
        found = det.detect_batch([wide, tall, wide], threshold=0.5)
    np.testing.assert_allclose(found[0][0][2], (25, 50, 125, 150), rtol=1e-5)
    np.testing.assert_allclose(found[1][0][2], (12.5, 25, 62.5, 75), rtol=1e-5)
    assert found[2] == found[0]
