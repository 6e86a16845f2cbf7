"""`quiver classify` and `quiver detect` give what the Python classes give, from a shell."""
from __future__ import annotations

import numpy as np
from PIL import Image

import quiver
from cli_runner import one_line_error, quiver as run_quiver
from conftest import prefix
from mxnet_files import constant_outputs_model, params_bytes, symbol_json


def test_classify_matches_image_classifier(manifest, tmp_path):
    labels = [f"digit{i}" for i in range(10)]
    (tmp_path / "synset.txt").write_text("\n".join(labels) + "\n")
    rng = np.random.default_rng(3)
    images = []
    for i in range(2):
        images.append(str(tmp_path / f"image{i}.png"))
        Image.fromarray(rng.integers(0, 256, (20, 24, 3), dtype=np.uint8)).save(images[-1])
    result = run_quiver("classify", prefix("tiny"), *images, "--shape", "data:1,3,16,16",
                        "--synset", str(tmp_path / "synset.txt"), "--top-k", "3", "--json")
    assert result.status == 0
    with quiver.ImageClassifier(prefix("tiny"), synset=labels, image_size=(16, 16)) as model:
        expected = [model.classify(image, top_k=3)[0] for image in images]
    for line, want in zip(result.json_lines(), expected):
        assert [c["label"] for c in line["classes"]] == [label for label, _ in want]
        np.testing.assert_allclose([c["probability"] for c in line["classes"]], [p for _, p in want], rtol=1e-5)


def test_classify_errors(manifest, tmp_path):
    one_line_error(run_quiver("classify", prefix("tiny"), str(tmp_path / "missing.png"), "--shape",
                              "data:1,3,16,16", "--synset", str(tmp_path / "none.txt")), "classify", "none.txt")
    (tmp_path / "synset.txt").write_text("\n".join(map(str, range(10))))
    one_line_error(run_quiver("classify", prefix("tiny"), str(tmp_path / "missing.png"), "--shape",
                              "data:1,3,16,16", "--synset", str(tmp_path / "synset.txt")), "classify", "missing.png")


def _write_detector(tmp_path):
    """A model that ignores its image and always finds one 'dog' at relative (0.1, 0.2)-(0.5, 0.6): a
    zero-weight FullyConnected whose bias holds the (N, K, 6) detection rows."""
    rows = np.array([[1, 0.9, 0.1, 0.2, 0.5, 0.6], [0, 0.2, 0.0, 0.0, 1.0, 1.0]], np.float32)
    nodes = [("null", "data", {}, []),
             ("Pooling", "pool", {"global_pool": "True", "kernel": "(1, 1)", "pool_type": "avg"}, [0]),
             ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
             ("FullyConnected", "fc", {"num_hidden": str(rows.size)}, [1, 2, 3]),
             ("Reshape", "det", {"shape": "(0, -1, 6)"}, [4])]
    (tmp_path / "det-symbol.json").write_text(symbol_json(nodes, [5]))
    (tmp_path / "det-0000.params").write_bytes(params_bytes(
        {"arg:fc_weight": np.zeros((rows.size, 3), np.float32), "arg:fc_bias": rows.reshape(-1)}))
    (tmp_path / "synset.txt").write_text("cat\ndog\n")
    return str(tmp_path / "det")


def test_detect_prints_and_draws_boxes(tmp_path):
    model = _write_detector(tmp_path)
    image = tmp_path / "street.png"
    Image.new("RGB", (400, 200), (0, 0, 0)).save(image)
    result = run_quiver("detect", model, str(image), "--shape", "data:1,3,32,32", "--threshold", "0.5",
                        "--draw", str(tmp_path / "drawn"), "--json")
    assert result.status == 0
    [line] = result.json_lines()
    assert [(d["label"], round(d["score"], 6)) for d in line["detections"]] == [("dog", 0.9)]
    np.testing.assert_allclose(line["detections"][0]["box"], (40, 40, 200, 120), rtol=1e-5)
    drawn = np.asarray(Image.open(tmp_path / "drawn" / "street.png"))
    assert tuple(drawn[80, 40]) == (255, 0, 0) and tuple(drawn[80, 120]) == (0, 0, 0)  # edge red, inside not


def test_detect_draws_mask_rcnn_masks(tmp_path):
    """A model with a fourth (mask) output: --draw tints each detection's mask as well as boxing it."""
    masks = np.zeros((1, 1, 4, 4))
    masks[0, 0, :, :2] = 1  # the left half of the box
    symbol, params = constant_outputs_model([np.array([[[1]]]), np.array([[[0.9]]]),
                                             np.array([[[8, 8, 24, 24]]]), masks])  # on a 32 x 32 input
    (tmp_path / "mask-symbol.json").write_text(symbol)
    (tmp_path / "mask-0000.params").write_bytes(params)
    image = tmp_path / "room.png"
    Image.new("RGB", (64, 64), (0, 0, 200)).save(image)
    result = run_quiver("detect", str(tmp_path / "mask"), str(image), "--shape", "data:1,3,32,32",
                        "--draw", str(tmp_path / "drawn"), "--json")
    assert result.status == 0
    [line] = result.json_lines()
    np.testing.assert_allclose(line["detections"][0]["box"], (16, 16, 48, 48), rtol=1e-5)
    drawn = np.asarray(Image.open(tmp_path / "drawn" / "room.png"))
    assert tuple(drawn[32, 20]) == (127, 0, 100)  # inside the mask: tinted
    assert tuple(drawn[32, 44]) == (0, 0, 200)    # inside the box, outside the mask: as it was
    assert tuple(drawn[5, 5]) == (0, 0, 200)


def test_detect_errors(tmp_path):
    model = _write_detector(tmp_path)
    one_line_error(run_quiver("detect", model, str(tmp_path / "missing.jpg")), "detect", "missing.jpg")
    (tmp_path / "not-an-image.png").write_text("text")
    one_line_error(run_quiver("detect", model, str(tmp_path / "not-an-image.png")), "detect", "not-an-image.png")
