"""Every model of the conformance fixtures (tests/conformance/make_fixtures.py), run through Quiver and
compared with the outputs real MXNet 1.9.1 recorded for the same inputs.

Classifiers, segmentation models (GluonCV FCN, PSPNet, DeepLabV3: a dense map of class scores per
pixel), pose estimators (task "pose": dense keypoint heatmaps), sequence models (task "sequence": a
small BERT encoder's outputs) and trackers (task "tracking": SiamRPN's anchor scores and box offsets
for a template and a search region), all compared as a classifier's output
is: max |quiver - mxnet| <= 1e-4 x the output's scale (max |mxnet|). Detectors (GluonCV SSD and
YOLOv3, CenterNet, Faster R-CNN, outputs ids, scores, boxes; Mask R-CNN, masks too; MXNet's symbolic
SSD, one (N, anchors, 6) output of rows with boxes relative to the image): the same detections above a
score threshold, matched by class, score (within 1e-4) and box (IoU > 0.99), and each matched
detection's mask within 1e-4. mx-rcnn's symbolic Faster R-CNN (task "rcnn": inputs data and im_info;
outputs rois, cls_prob, bbox_pred): its rois by the detectors' rule, each scored by its RPN score (the
Proposal's output_score, from the fixture's copy of the file that outputs it), and the head's rows of
each matched roi by the dense rule (compare_rcnn()).

Where MXNet's own float32 result is far from exact, 1e-4 is below what two float32 implementations can
agree on, and the bounds widen to what the fixture measured (make_fixtures.py: each case's
"mxnet_float32_error", MXNet float32 against a float64 run of the same files). Deep random ResNets
amplify rounding ~10% per residual block: ResNet-152 v1 ends 3.2e-4 of its output scale away from
float64 in MXNet and 3.6e-4 in Quiver, which tracks MXNet's error layer by layer. So:
- classifiers and segmentation models: the bound is max(1e-4, 2 x MXNet's float32 error): two
  implementations each as far from the exact result as MXNet is;
- detectors: the error is measured on the logits the scores come from (E, absolute); a softmax
  probability p (SSD) moves by at most 2 p (1 - p) times the logits' error, and so does YOLOv3's score
  p = sigmoid(a) sigmoid(b) (objectness times class: it moves by at most p (2 - sigmoid(a) - sigmoid(b)) E,
  and 2 - u - v <= 2 (1 - u v) for u, v in (0, 1)), and CenterNet's p = sigmoid(a) moves by at most
  p (1 - p) E, so a score may differ by max(1e-4, 4 p (1 - p) E),
  again twice MXNet's own share. Faster and Mask R-CNN's logits are per region proposal: E is measured
  over the proposals MXNet's float32 and float64 runs agree on. A mask probability sigmoid(a) moves by at
  most 1/4 of its logit's error E_mask (measured the same way), and the mask head reads the detection's
  box, which differs between the runs too: it may differ by max(1e-4, E_mask) (mask_tolerance()).

QUIVER_CONFORMANCE_DIR names the fixture directory (tests/conformance/make_fixtures.sh prints it).
With QUIVER_CONFORMANCE_REPORT set, each case appends one JSON line (model, shape, max error, MXNet's
float32 error, whether it passed) to that file; bench/conformance_table.py reads it.
"""
from __future__ import annotations

import functools
import json
import os
from pathlib import Path

import numpy as np
import pytest

import quiver

FIXTURES = Path(os.environ.get("QUIVER_CONFORMANCE_DIR", ""))
TOLERANCE = 1e-4
SCORE_THRESHOLD = 0.2  # detections compared; random-weight SSDs score their best boxes 0.3-0.7, YOLOv3s 0.6-0.8
MIN_IOU = 0.99


def load_cases():
    path = FIXTURES / "manifest.json"
    if not os.environ.get("QUIVER_CONFORMANCE_DIR") or not path.exists():
        return []
    return [(m, c) for m in json.loads(path.read_text())["models"] for c in m["cases"]]


CASES = load_cases()


def test_fixtures_present():
    if not CASES:
        message = f"no conformance fixtures at '{FIXTURES}': run tests/conformance/make_fixtures.sh"
        if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)


@functools.lru_cache(maxsize=1)  # one model loaded at a time: the full set holds several VGGs
def predictor(prefix: str) -> quiver.Predictor:
    return quiver.Predictor(str(FIXTURES / prefix))


def report(model: str, shape, error: float, mxnet_error: float, passed: bool) -> None:
    path = os.environ.get("QUIVER_CONFORMANCE_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"model": model, "shape": shape, "max_error": error,
                                "mxnet_float32_error": mxnet_error, "passed": passed}) + "\n")


def iou(a: np.ndarray, b: np.ndarray) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return float(w * h / union) if union > 0 else 0.0


def score_tolerance(score: float, logit_error: float) -> float:
    """How far two float32 runs may put a detection's score (the module's docstring says why)."""
    return max(TOLERANCE, 4 * score * (1 - score) * logit_error)


def find(row, rows, logit_error):
    """The row of `rows` that is the same detection as `row` (class, score, IoU > MIN_IOU), or None."""
    cls, score, box = row[:3]
    tol = score_tolerance(score, logit_error)
    same = [r for r in rows if r[0] == cls and abs(r[1] - score) <= tol and iou(box, r[2]) > MIN_IOU]
    return min(same, key=lambda r: abs(r[1] - score), default=None)


def mask_tolerance(mask_error: float) -> float:
    """How far two float32 runs may put a mask probability p = sigmoid(a): by at most p (1 - p) <= 1/4
    times the error E of its logit a, twice MXNet's share, and twice that again: the mask head reads the
    detection's box, which the two runs place apart by their box errors, where E is measured only on the
    boxes MXNet's float32 and float64 runs place within 0.01 pixels of each other."""
    return max(TOLERANCE, mask_error)


def matched_detections(got, want, logit_error):
    """Every compared detection of either output with its match in the other: (image, Quiver's row,
    MXNet's row), rows (class, score, box, index in the output); fails naming a detection that has none.

    A detection is compared when it clears the cut-off by more than its score tolerance: the cut-off is
    the score threshold, or the lowest score of an output that is full (all its rows are detections), since
    a detection near either may fall on the other side of it in the other run. A box without area (a
    random-weight R-CNN's, clipped flat against the image's edge) has no IoU to match by and is skipped.
    """
    for image in range(want[0].shape[0]):
        rows = [[(float(i), float(s), b, k)
                 for k, (i, s, b) in enumerate(zip(o[0][image, :, 0], o[1][image, :, 0], o[2][image]))]
                for o in (got, want)]
        assert any(r[1] >= SCORE_THRESHOLD for r in rows[1]), \
            f"image {image}: MXNet found nothing above {SCORE_THRESHOLD}; the fixture tests nothing"
        cutoff = max([SCORE_THRESHOLD] + [min(r[1] for r in side) for side in rows])
        for mine, theirs, where in ((rows[1], rows[0], "missing in Quiver"), (rows[0], rows[1], "extra in Quiver")):
            for row in mine:
                flat = (row[2][2] - row[2][0]) * (row[2][3] - row[2][1]) <= 0
                if flat or row[1] <= cutoff + score_tolerance(row[1], logit_error):
                    continue
                match = find(row, theirs, logit_error)
                assert match is not None, f"image {image}: {where}: class {row[0]:.0f} score {row[1]:.6f} box {row[2]}"
                yield (image, match, row) if mine is rows[1] else (image, row, match)


def compare_detections(got, want, size, logit_error, mask_error=0.0):
    """Checks that each output holds the other's detections (matched_detections()) and, with a fourth
    output, the same mask for each; returns the worst score / box difference (boxes relative to the input
    size) or mask difference over them."""
    worst = 0.0
    for image, ours, theirs in matched_detections(got, want, logit_error):
        worst = max(worst, abs(ours[1] - theirs[1]), float(np.abs(ours[2] - theirs[2]).max()) / size)
        if len(want) == 4:
            error = float(np.abs(got[3][image, ours[3]] - want[3][image, theirs[3]]).max())
            assert error <= mask_tolerance(mask_error), \
                f"image {image}: class {theirs[0]:.0f} score {theirs[1]:.6f}: masks differ by {error:.2e}"
            worst = max(worst, error)
    return worst


def detections(rows, size=4):
    """GluonCV's three outputs (ids, scores, boxes) for one image from (class, score, box) rows,
    padded with -1 rows to `size`."""
    rows = list(rows) + [(-1, -1, (-1, -1, -1, -1))] * (size - len(rows))
    return [np.array([[[r[0]] for r in rows]], np.float32), np.array([[[r[1]] for r in rows]], np.float32),
            np.array([[r[2] for r in rows]], np.float32)]


MXNET_ROWS = [(3, 0.9, (0, 0, 10, 10)), (5, 0.5, (20, 20, 40, 40)), (5, 0.2 + 2e-5, (50, 50, 60, 60))]


@pytest.mark.parametrize("quiver_rows,logit_error", [
    ([(3, 0.9 + 5e-5, (0, 0, 10, 10)), (5, 0.5, (20, 20, 40, 40.01))], 0.0),  # one just at the threshold gone
    ([(3, 0.9, (0, 0, 10, 10)), (5, 0.5 - 9e-4, (20, 20, 40, 40))], 1e-3),   # within 4 p (1 - p) E
    (MXNET_ROWS[:2] + [(4, 0.8, (64, 10, 64, 30))], 0.0),                    # a flat box is not compared
])
def test_detection_matching_accepts_float32_differences(quiver_rows, logit_error):
    compare_detections(detections(quiver_rows), detections(MXNET_ROWS), 64, logit_error)


@pytest.mark.parametrize("quiver_rows,logit_error,message", [
    ([(3, 0.9, (0, 0, 10, 10))], 0.0, "missing in Quiver: class 5"),
    ([(3, 0.9, (0, 0, 10, 10)), (5, 0.5 - 2e-4, (20, 20, 40, 40))], 0.0, "missing in Quiver: class 5"),
    ([(3, 0.9, (0, 0, 10, 10)), (5, 0.5 - 2e-3, (20, 20, 40, 40))], 1e-3, "missing in Quiver: class 5"),
    ([(3, 0.9, (0, 0, 10, 10)), (5, 0.5, (20, 20, 40, 45))], 0.0, "missing in Quiver: class 5"),
    ([(3, 0.9, (0, 0, 10, 10)), (4, 0.5, (20, 20, 40, 40))], 0.0, "missing in Quiver: class 5"),
    (MXNET_ROWS + [(7, 0.3, (0, 0, 5, 5))], 0.0, "extra in Quiver: class 7"),
])
def test_detection_matching_rejects_real_differences(quiver_rows, logit_error, message):
    with pytest.raises(AssertionError, match=message):
        compare_detections(detections(quiver_rows), detections(MXNET_ROWS), 64, logit_error)


def test_detection_matching_compares_masks():
    """With a fourth output, each matched detection's mask is compared too (Mask R-CNN)."""
    want = detections(MXNET_ROWS) + [np.full((1, 4, 2, 2), 0.5, np.float32)]
    got = detections(list(reversed(MXNET_ROWS))) + [np.full((1, 4, 2, 2), 0.5, np.float32)]
    compare_detections(got, want, 64, 0.0)  # the same detections in another order, with the same masks
    got[3][0, 1, 0, 1] += 2e-4  # the second row of Quiver's is MXNet's second: its mask is off by more than 1e-4
    with pytest.raises(AssertionError, match="class 5 score 0.500000: masks differ by 2.00e-04"):
        compare_detections(got, want, 64, 0.0)


def detection_outputs(outputs, size):
    """GluonCV's three outputs (ids, scores, boxes in pixels), and Mask R-CNN's masks as a fourth, from
    either detector output form; rows of MultiBoxDetection's single output whose class is -1 (suppressed,
    or past nms_topk) become padding. CenterNet's ids and scores are (N, K), the others' (N, K, 1)."""
    if len(outputs) in (3, 4):
        return [o[..., None] if o.ndim == 2 else o for o in outputs[:3]] + outputs[3:]
    rows = outputs[0].copy()
    rows[rows[..., 0] < 0] = -1
    return [rows[..., 0:1], rows[..., 1:2], rows[..., 2:6] * size]


def compare_rcnn(got, want, got_scores, want_scores, size, error):
    """mx-rcnn's deploy outputs (rois (N x R, 5), cls_prob (N, R, classes), bbox_pred (N, R, 4 classes)):
    per image, the rois, as detections of one class scored by their RPN score (Proposal's output_score),
    must be the same by the detectors' rule (matched_detections(): score within tolerance, IoU > 0.99,
    rois near the cut-off of a full output exempt: a score that close may rank either side of it); each
    matched roi's cls_prob and bbox_pred rows must then agree within the dense bound max(1e-4, 2 x
    MXNet's float32 error) of each output's scale. Returns the worst relative difference."""
    images, per_image = want[1].shape[:2]

    def as_detections(rois, scores):
        return [np.zeros((images, per_image, 1), np.float32), scores.reshape(images, per_image, 1),
                rois.reshape(images, per_image, 5)[..., 1:5]]

    worst = 0.0
    bound = max(TOLERANCE, 2 * error)
    for image, ours, theirs in matched_detections(as_detections(got[0], got_scores),
                                                  as_detections(want[0], want_scores), error):
        worst = max(worst, abs(ours[1] - theirs[1]), float(np.abs(ours[2] - theirs[2]).max()) / size)
        for g, w in zip(got[1:], want[1:]):
            diff = float(np.abs(g[image, ours[3]] - w[image, theirs[3]]).max() / np.abs(w).max())
            assert diff <= bound, \
                f"image {image}, roi {theirs[3]}: head output {diff:.2e} of its scale off > {bound:.2e}"
            worst = max(worst, diff)
    return worst


@pytest.mark.parametrize("model,case", CASES, ids=[f"{m['name']}-{'x'.join(map(str, c['shape']))}" for m, c in CASES])
def test_matches_mxnet(model, case):
    if "inputs" in case:  # several named inputs (the sequence models)
        x = {name: np.load(FIXTURES / f) for name, f in case["inputs"].items()}
    else:
        x = np.load(FIXTURES / case["input"])
    want = [np.load(FIXTURES / f) for f in case["outputs"]]
    # Each input is fed as the fixture stores it: the Predictor would convert it to the type the model
    # takes, so that type must be the fixture's (int32 ids for a model whose symbol declares int32).
    dtypes = predictor(model["prefix"]).input_dtypes
    for name, array in (x.items() if isinstance(x, dict) else [(next(iter(dtypes)), x)]):
        assert dtypes[name] == array.dtype, f"input '{name}': the model takes {dtypes[name]}, the fixture is {array.dtype}"
    got = predictor(model["prefix"]).predict(x)
    got = [np.array(g) for g in (got if isinstance(got, list) else [got])]
    assert [g.shape for g in got] == [w.shape for w in want]
    mxnet_error = case["mxnet_float32_error"]
    if model["task"] == "rcnn":
        with quiver.Predictor(str(FIXTURES / model["scored_prefix"])) as p:  # its RPN scores as a 4th output
            scored = p.predict(x)
        assert all(np.array_equal(np.asarray(a), b) for a, b in zip(scored, got)), "output_score changed the outputs"
        want_scores = np.load(FIXTURES / case["rpn_scores"])
        error = compare_rcnn(got, want, np.asarray(scored[-1]), want_scores, case["shape"][-1], mxnet_error)
        report(model["name"], case["shape"], error, mxnet_error, True)
    elif model["task"] == "detection":
        size = case["shape"][-1]
        error = compare_detections(detection_outputs(got, size), detection_outputs(want, size), size, mxnet_error,
                                   case.get("mxnet_mask_error", 0.0))
        report(model["name"], case["shape"], error, mxnet_error, True)
    else:  # classifiers' scores and pose heatmaps: dense outputs
        error = max(float(np.abs(g - w).max() / np.abs(w).max()) for g, w in zip(got, want))
        bound = max(TOLERANCE, 2 * mxnet_error)
        report(model["name"], case["shape"], error, mxnet_error, error <= bound)
        assert error <= bound, (f"max |quiver - mxnet| / max |mxnet| = {error:.2e} > {bound:.2e} "
                                f"(MXNet float32 vs float64: {mxnet_error:.2e})")


# Models whose valid-length input masks every padded position (sequence_models.py): padding them to a
# bucket must change nothing.
BUCKETED = ("bert_small",)


@pytest.mark.parametrize("model,case", [(m, c) for m, c in CASES if m["name"] in BUCKETED],
                         ids=lambda v: v["name"] if "name" in v else "x".join(map(str, v["shape"])))
def test_bucketing_gives_the_unpadded_outputs(model, case):
    """Flag buckets: a request padded to the next bucket (3 positions more) gets what MXNet and Quiver's
    unpadded run give, cut back to its own length."""
    x = {name: np.load(FIXTURES / f) for name, f in case["inputs"].items()}
    want = [np.load(FIXTURES / f) for f in case["outputs"]]
    length = case["shape"][-1]
    with quiver.Predictor(str(FIXTURES / model["prefix"]), options={"buckets": f"{length + 3},{2 * length + 3}"}) as p:
        got = [np.asarray(g) for g in p.predict(x)]
        assert p.stats()["plans"]["compiled"] == 1  # the bucket's plan: the request's own length has none
    unpadded = [np.asarray(g) for g in predictor(model["prefix"]).predict(x)]
    assert [g.shape for g in got] == [w.shape for w in want]
    bound = max(TOLERANCE, 2 * case["mxnet_float32_error"])
    for g, w, u in zip(got, want, unpadded):
        assert np.abs(g - w).max() / np.abs(w).max() <= bound
        assert np.abs(g - u).max() / np.abs(u).max() <= 1e-5


@pytest.mark.parametrize("model", [m for m in {m["name"]: m for m, _ in CASES}.values() if m["task"] == "tracking"],
                         ids=lambda m: m["name"])
def test_tracker_refuses_sizes_its_export_did_not_bake(model):
    """SiamRPN's export fixes its feature maps' sizes in Reshape attributes (make_fixtures.py: TRACKERS).
    MXNet, whose Reshape does not check the element count, reads past its buffers at another search size
    and corrupts its heap at another batch size; Quiver refuses both, naming the Reshape."""
    case = model["cases"][0]
    x = {name: np.load(FIXTURES / f) for name, f in case["inputs"].items()}
    batch, _, size = x["data1"].shape[:3]
    other_search = dict(x, data1=np.zeros((batch, 3, size - 32, size - 32), np.float32))
    other_batch = {name: np.concatenate([a, a]) for name, a in x.items()}
    for feed in (other_search, other_batch):
        with pytest.raises(quiver.ShapeError, match=r"\(Reshape\): cannot reshape .* element count"):
            predictor(model["prefix"]).predict(feed)


@pytest.mark.parametrize("model", [m for m in {m["name"]: m for m, _ in CASES}.values() if m["task"] == "detection"],
                         ids=lambda m: m["name"])
def test_object_detector_reads_the_export(model):
    """ObjectDetector decodes the export's outputs into labelled pixel boxes inside the image."""
    classes = 80 if model["name"].endswith("_coco") else 20  # COCO's or VOC's
    case = model["cases"][0]
    size = tuple(case["shape"][2:])
    image = np.random.RandomState(0).randint(0, 256, (240, 320, 3), dtype=np.uint8)
    with quiver.ObjectDetector(str(FIXTURES / model["prefix"]), image_size=size) as det:
        found = det.detect(image, threshold=0.0)
    assert found, "no detections at threshold 0"
    assert [d[1] for d in found] == sorted((d[1] for d in found), reverse=True)
    for label, score, (x1, y1, x2, y2) in found:
        assert label.isdigit() and 0 <= int(label) < classes  # no synset given: the class ids
        assert 0 <= x1 <= x2 <= 320 and 0 <= y1 <= y2 <= 240


@pytest.mark.parametrize("model", [m for m in {m["name"]: m for m, _ in CASES}.values() if m["task"] == "segmentation"],
                         ids=lambda m: m["name"])
def test_segmenter_reads_the_export(model):
    """Segmenter gives each pixel of an image the model's best class: at the model's input size, the
    argmax of the export's class scores for the same preprocessed image."""
    case = model["cases"][0]
    height, width = case["shape"][2:]
    image = np.random.RandomState(0).randint(0, 256, (height, width, 3), dtype=np.uint8)
    with quiver.Segmenter(str(FIXTURES / model["prefix"]), image_size=(height, width)) as seg:
        result = seg.segment(image)
        outputs = seg.predict(seg.transform.batch([image]))
        scores = np.asarray(outputs[0] if isinstance(outputs, list) else outputs)  # DANet, ICNet: several
    assert result.class_ids.shape == (height, width)
    np.testing.assert_array_equal(result.class_ids, scores[0].argmax(axis=0))
    assert 0 < result.scores.min() and result.scores.max() <= 1
    # Another image size: resized to the input, and the mask brought back to the image's own size.
    other = np.random.RandomState(1).randint(0, 256, (height * 2 + 3, width + 5, 3), dtype=np.uint8)
    with quiver.Segmenter(str(FIXTURES / model["prefix"]), image_size=(height, width)) as seg:
        assert seg.segment(other).class_ids.shape == other.shape[:2]
