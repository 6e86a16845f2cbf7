"""ObjectDetector: boxes, labels and scores in image pixel coordinates from detection models."""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .classifier import Labels, load_synset
from .errors import ShapeError
from .image import (IMAGENET_MEAN, IMAGENET_STD, ImageLike, ImageTransform, in_layout, load_image,
                    model_image_size)
from .predictor import Predictor

Detection = Tuple[str, float, Tuple[float, float, float, float]]


class ObjectDetector(Predictor):
    """Detects objects with models whose outputs follow MXNet's detection layout.

    Two output forms are read:
      * one (N, K, 6) output of rows ``[class_id, score, xmin, ymin, xmax, ymax]`` with coordinates
        relative to the input (0..1), as ``_contrib_MultiBoxDetection`` gives;
      * three outputs ``(ids (N, K, 1), scores (N, K, 1), boxes (N, K, 4))`` with boxes in input pixels,
        as GluonCV's SSD exports give.

    Rows with a negative class id are padding and are skipped.

    Preprocessing: the image is resized to the input size (no crop, as SSD does), then normalised per
    channel with ``mean``/``std`` on 0-255 RGB values (ImageNet's by default).

    Takes Predictor's arguments, and these.

    Keyword Args:
        synset: class labels (a list or a synset.txt path); default ``synset.txt`` next to the model if
            it exists, else labels are the class ids as strings.
        image_size: (height, width) of the input; default from input_descs, else (512, 512).
        mean, std: the normalisation above.
    """

    def _configure(self, model_dir: Optional[str], *, synset: Optional[Labels] = None,
                   image_size: Optional[Tuple[int, int]] = None, mean: Sequence[float] = IMAGENET_MEAN,
                   std: Sequence[float] = IMAGENET_STD, **extras: Any) -> None:
        super()._configure(model_dir, **extras)
        if synset is None and model_dir is not None and os.path.exists(os.path.join(model_dir, "synset.txt")):
            synset = os.path.join(model_dir, "synset.txt")
        self._labels = load_synset(synset) if synset is not None else None
        size = image_size or model_image_size(self.input_desc(), (512, 512))
        self.transform = ImageTransform(size, None, tuple(mean), tuple(std))

    def detect(self, image: ImageLike, threshold: float = 0.5) -> List[Detection]:
        """``[(label, score, (xmin, ymin, xmax, ymax)), ...]`` with score >= threshold, best first,
        in the pixel coordinates of `image`."""
        return self.detect_batch([image], threshold)[0]

    def detect_batch(self, images: Sequence[ImageLike], threshold: float = 0.5) -> List[List[Detection]]:
        """detect() for several images at once (one batch)."""
        rgb = [load_image(image) for image in images]
        outputs = self.predict(in_layout(self.transform.batch(rgb), self.input_desc()))
        return [self._decode(rows, pil.size, threshold) for rows, pil in zip(_rows(outputs), rgb)]

    def _decode(self, rows: Tuple[np.ndarray, np.ndarray, np.ndarray, bool], image_size: Tuple[int, int],
                threshold: float) -> List[Detection]:
        ids, scores, boxes, normalized = rows
        width, height = image_size
        in_height, in_width = self.transform.size
        sx, sy = (width, height) if normalized else (width / in_width, height / in_height)
        found = []
        for cls, score, (x1, y1, x2, y2) in zip(ids, scores, boxes):
            if cls < 0 or score < threshold:
                continue
            label = self._labels[int(cls)] if self._labels is not None and int(cls) < len(self._labels) else str(int(cls))
            box = (float(np.clip(x1 * sx, 0, width)), float(np.clip(y1 * sy, 0, height)),
                   float(np.clip(x2 * sx, 0, width)), float(np.clip(y2 * sy, 0, height)))
            found.append((label, float(score), box))
        found.sort(key=lambda d: -d[1])
        return found


def _rows(outputs: Any) -> List[Tuple[np.ndarray, np.ndarray, np.ndarray, bool]]:
    """Per image: (class ids, scores, boxes (K, 4), boxes_are_normalized) from either output form."""
    if not isinstance(outputs, list) and outputs.ndim == 3 and outputs.shape[2] == 6:
        return [(o[:, 0], o[:, 1], o[:, 2:6], True) for o in outputs]
    if isinstance(outputs, list) and len(outputs) == 3:
        ids, scores, boxes = outputs
        if boxes.ndim == 3 and boxes.shape[2] == 4 and ids.shape[:2] == scores.shape[:2] == boxes.shape[:2]:
            return [(i.reshape(-1), s.reshape(-1), b, False) for i, s, b in zip(ids, scores, boxes)]
    shapes = [o.shape for o in outputs] if isinstance(outputs, list) else [outputs.shape]
    raise ShapeError.from_message(
        f"not a detection model: outputs {shapes}; expected one (N, K, 6) output or (N, K, 1), (N, K, 1), (N, K, 4)")
