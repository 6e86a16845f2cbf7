"""Every model of the conformance fixtures (tests/conformance/make_fixtures.py), run through Quiver and
compared with the outputs real MXNet 1.9.1 recorded for the same inputs.

Classifiers: max |quiver - mxnet| <= 1e-4 x the output's scale (max |mxnet|). Detectors (GluonCV SSD,
outputs ids, scores, boxes): the same detections above a score threshold, matched one to one by class,
score (within 1e-4) and box (IoU > 0.99).

QUIVER_CONFORMANCE_DIR names the fixture directory (tests/conformance/make_fixtures.sh prints it).
With QUIVER_CONFORMANCE_REPORT set, each case appends one JSON line (model, shape, max error) to that
file; bench/conformance_table.sh reads it.
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
SCORE_THRESHOLD = 0.2  # detections compared; random-weight SSDs score their best boxes 0.3-0.7
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


def report(model: str, shape, error: float) -> None:
    path = os.environ.get("QUIVER_CONFORMANCE_REPORT")
    if path:
        with open(path, "a") as f:
            f.write(json.dumps({"model": model, "shape": shape, "max_error": error}) + "\n")


def iou(a: np.ndarray, b: np.ndarray) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - w * h
    return float(w * h / union) if union > 0 else 0.0


def unmatched(mine, theirs, threshold):
    """Rows (class, score, box) of `mine` scoring above threshold that no row of `theirs` matches."""
    missing = []
    for cls, score, box in mine:
        if score < threshold:
            continue
        if not any(c == cls and abs(s - score) <= TOLERANCE and iou(box, b) > MIN_IOU for c, s, b in theirs):
            missing.append((cls, score, box.tolist()))
    return missing


def compare_detections(got, want, size):
    """Worst score / box difference (boxes relative to the input size) over matched detections."""
    worst = 0.0
    for image in range(want[0].shape[0]):
        rows = [[(float(i), float(s), b) for i, s, b in zip(o[0][image, :, 0], o[1][image, :, 0], o[2][image])]
                for o in (got, want)]
        above = [r for r in rows[1] if r[1] >= SCORE_THRESHOLD]
        assert above, f"image {image}: MXNet found nothing above {SCORE_THRESHOLD}; the fixture tests nothing"
        # A detection just at the threshold may fall on either side: MXNet's rows count from the
        # threshold, Quiver's from slightly above it.
        assert not unmatched(rows[1], rows[0], SCORE_THRESHOLD), f"image {image}: missing in Quiver"
        assert not unmatched(rows[0], rows[1], SCORE_THRESHOLD + TOLERANCE), f"image {image}: extra in Quiver"
        for cls, score, box in above:
            best = min((r for r in rows[0] if r[0] == cls), key=lambda r: abs(r[1] - score) + np.abs(r[2] - box).max())
            worst = max(worst, abs(best[1] - score), float(np.abs(best[2] - box).max()) / size)
    return worst


@pytest.mark.parametrize("model,case", CASES, ids=[f"{m['name']}-{'x'.join(map(str, c['shape']))}" for m, c in CASES])
def test_matches_mxnet(model, case):
    x = np.load(FIXTURES / case["input"])
    want = [np.load(FIXTURES / f) for f in case["outputs"]]
    got = predictor(model["prefix"]).predict(x)
    got = [np.array(g) for g in (got if isinstance(got, list) else [got])]
    assert [g.shape for g in got] == [w.shape for w in want]
    if model["task"] == "detection":
        error = compare_detections(got, want, case["shape"][-1])
    else:
        error = max(float(np.abs(g - w).max() / np.abs(w).max()) for g, w in zip(got, want))
        assert error <= TOLERANCE, f"max |quiver - mxnet| / max |mxnet| = {error:.2e}"
    report(model["name"], case["shape"], error)


@pytest.mark.parametrize("model", [m for m in {m["name"]: m for m, _ in CASES}.values() if m["task"] == "detection"],
                         ids=lambda m: m["name"])
def test_object_detector_reads_the_export(model):
    """ObjectDetector decodes GluonCV's three outputs into labelled pixel boxes inside the image."""
    case = model["cases"][0]
    size = tuple(case["shape"][2:])
    image = np.random.RandomState(0).randint(0, 256, (240, 320, 3), dtype=np.uint8)
    with quiver.ObjectDetector(str(FIXTURES / model["prefix"]), image_size=size) as det:
        found = det.detect(image, threshold=0.0)
    assert found, "no detections at threshold 0"
    assert [d[1] for d in found] == sorted((d[1] for d in found), reverse=True)
    for label, score, (x1, y1, x2, y2) in found:
        assert label.isdigit() and 0 <= int(label) < 20  # VOC's 20 classes, no synset given
        assert 0 <= x1 <= x2 <= 320 and 0 <= y1 <= y2 <= 240
