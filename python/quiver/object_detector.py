"""ObjectDetector: boxes, labels and scores in image pixel coordinates from detection models."""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from .classifier import Labels, load_synset, synset_beside
from .errors import DeadlineExceededError, InvalidArgumentError, ShapeError
from .image import (IMAGENET_MEAN, IMAGENET_STD, ImageLike, ImageTransform, in_layout, model_image_size,
                    size_short_within)
from .image_limits import ImageLimits
from .predictor import Predictor, check_timeout

Box = Tuple[float, float, float, float]
Detection = Tuple[str, float, Box]
# A detection with its mask: a boolean (height, width) array over the image, True inside the object.
Instance = Tuple[str, float, Box, np.ndarray]
# Per image: class ids, scores, boxes (K, 4), whether boxes are relative to the input, masks (K, mh, mw) or None.
_Rows = Tuple[np.ndarray, np.ndarray, np.ndarray, bool, Optional[np.ndarray]]


class ObjectDetector(Predictor):
    """Detects objects with models whose outputs follow MXNet's detection layout.

    These output forms are read:
      * one (N, K, 6) output of rows ``[class_id, score, xmin, ymin, xmax, ymax]`` with coordinates
        relative to the input (0..1), as ``_contrib_MultiBoxDetection`` gives;
      * three outputs ``(ids (N, K, 1), scores (N, K, 1), boxes (N, K, 4))`` with boxes in input pixels,
        as GluonCV's SSD, YOLOv3 and Faster R-CNN exports give (CenterNet's ids and scores are (N, K));
      * those three and a fourth, ``masks (N, K, mh, mw)``: each detection's object probabilities over
        its box, as GluonCV's Mask R-CNN gives; detect_instances() returns them as image masks.

    Rows with a negative class id are padding and are skipped.

    Preprocessing: the image is resized to the input size (no crop, as SSD does), or with ``short``
    keeping its aspect ratio as GluonCV's detector presets do (for models that take any input size:
    YOLOv3, Faster/Mask R-CNN, CenterNet), then normalised per channel with ``mean``/``std`` on 0-255
    RGB values (ImageNet's by default). Boxes come back in the pixels of each image either way.

    Takes Predictor's arguments, and these.

    Keyword Args:
        synset: class labels (a list, or a synset.txt path or URI); default ``synset.txt`` next to the
            model if it exists, else labels are the class ids as strings.
        image_size: (height, width) of the input; default from input_descs, else (512, 512).
        short, max_size, stride: resize each image keeping its aspect ratio, its shorter side to
            ``short`` unless the longer would pass ``max_size``, both rounded to multiples of ``stride``
            (GluonCV's resize_short_within; YOLOv3 416/1024, Faster and Mask R-CNN 600/1000, CenterNet
            512/1024); images of one size share a run. ``image_size`` is then unused.
        mean, std: the normalisation above.
        image_limits: what encoded images (paths, bytes) may be before they are decoded (ImageLimits:
            a pixel cap and the allowed formats).
    """

    def _configure(self, model_dir: Optional[str], *, synset: Optional[Labels] = None,
                   image_size: Optional[Tuple[int, int]] = None, short: Optional[int] = None,
                   max_size: int = 1024, stride: int = 1, mean: Sequence[float] = IMAGENET_MEAN,
                   std: Sequence[float] = IMAGENET_STD, image_limits: ImageLimits = ImageLimits(),
                   **extras: Any) -> None:
        super()._configure(model_dir, **extras)
        self._labels = (load_synset(synset, self._storage_options) if synset is not None
                        else synset_beside(self, model_dir))
        size = image_size or model_image_size(self.input_desc(), (512, 512))
        self.transform = ImageTransform(size, None, tuple(mean), tuple(std), image_limits)
        self._within = (short, max_size, stride) if short is not None else None

    def detect(self, image: ImageLike, threshold: float = 0.5, *, timeout: Optional[float] = None,
               priority: int = 0) -> List[Detection]:
        """``[(label, score, (xmin, ymin, xmax, ymax)), ...]`` with score >= threshold, best first,
        in the pixel coordinates of `image`. `timeout` (seconds, counted from this call: decoding
        included) and `priority` are predict()'s."""
        return self.detect_batch([image], threshold, timeout=timeout, priority=priority)[0]

    def detect_batch(self, images: Sequence[ImageLike], threshold: float = 0.5, *,
                     timeout: Optional[float] = None, priority: int = 0) -> List[List[Detection]]:
        """detect() for several images at once (one batch)."""
        return self._detect(images, threshold, None, timeout, priority)

    def detect_instances(self, image: ImageLike, threshold: float = 0.5, mask_threshold: float = 0.5, *,
                         timeout: Optional[float] = None, priority: int = 0) -> List[Instance]:
        """detect()'s detections, each with its mask over `image`: the model's mask probabilities
        stretched over the detection's box (bilinear), above `mask_threshold`. For models with a mask
        output (Mask R-CNN)."""
        return self._detect([image], threshold, mask_threshold, timeout, priority)[0]

    def _detect(self, images: Sequence[ImageLike], threshold: float, mask_threshold: Optional[float],
                timeout: Optional[float], priority: int) -> List[List[Any]]:
        check_timeout(timeout)
        deadline = None if timeout is None else time.monotonic() + timeout
        # One image decoded at a time: each becomes its input (its own size with `short`) at once.
        sizes: List[Tuple[int, int]] = []
        image_sizes: List[Tuple[int, int]] = []
        pixels: List[np.ndarray] = []
        for image in images:
            rgb = self.transform.load(image)
            size = self.transform.size if self._within is None else self._size_within(rgb.size)
            image_sizes.append(rgb.size)
            sizes.append(size)
            pixels.append(replace(self.transform, size=size)(rgb))
        found: List[List[Any]] = [[] for _ in pixels]
        for size in dict.fromkeys(sizes):
            members = [i for i, s in enumerate(sizes) if s == size]
            batch = in_layout(np.stack([pixels[i] for i in members]), self.input_desc())
            rows = _rows(self.predict(batch, timeout=_remaining(deadline, timeout), priority=priority))
            if mask_threshold is not None and rows[0][4] is None:
                raise ShapeError.from_message("the model has no mask output: detect_instances() needs a "
                                              "fourth output (N, K, mh, mw), as Mask R-CNN gives")
            for i, r in zip(members, rows):
                found[i] = self._decode(r, image_sizes[i], size, threshold, mask_threshold)
        return found

    def _size_within(self, image_size: Tuple[int, int]) -> Tuple[int, int]:
        """The (height, width) input of an image of (width, height) under ``short``/``max_size``."""
        assert self._within is not None
        width, height = size_short_within(*image_size, *self._within)
        if width < 1 or height < 1:
            raise InvalidArgumentError.from_message(
                f"an image of {image_size[0]}x{image_size[1]} is too elongated for this detector: resized within "
                f"{self._within[1]} pixels one side would be {min(width, height)}")
        return height, width

    def _decode(self, rows: _Rows, image_size: Tuple[int, int], input_size: Tuple[int, int], threshold: float,
                mask_threshold: Optional[float]) -> List[Any]:
        ids, scores, boxes, normalized, masks = rows
        width, height = image_size
        in_height, in_width = input_size
        sx, sy = (width, height) if normalized else (width / in_width, height / in_height)
        found: List[Any] = []
        for k, (cls, score, (x1, y1, x2, y2)) in enumerate(zip(ids, scores, boxes)):
            if cls < 0 or score < threshold:
                continue
            label = self._labels[int(cls)] if self._labels is not None and int(cls) < len(self._labels) else str(int(cls))
            box = (float(np.clip(x1 * sx, 0, width)), float(np.clip(y1 * sy, 0, height)),
                   float(np.clip(x2 * sx, 0, width)), float(np.clip(y2 * sy, 0, height)))
            if mask_threshold is None or masks is None:
                found.append((label, float(score), box))
            else:
                unclipped = (float(x1 * sx), float(y1 * sy), float(x2 * sx), float(y2 * sy))
                mask = _paste_mask(masks[k], unclipped, (height, width)) > mask_threshold
                found.append((label, float(score), box, mask))
        found.sort(key=lambda d: -d[1])
        return found


def _remaining(deadline: Optional[float], timeout: Optional[float]) -> Optional[float]:
    """The seconds left before `deadline` (None: no deadline); past it, DeadlineExceededError."""
    if deadline is None:
        return None
    left = deadline - time.monotonic()
    if left <= 0:
        raise DeadlineExceededError.from_message(f"the detection's timeout ({timeout} s) passed before its run")
    return left


def _paste_mask(mask: np.ndarray, box: Box, image_shape: Tuple[int, int]) -> np.ndarray:
    """A (mh, mw) grid of probabilities laid over `box` (pixels, may reach outside the image) as an
    (height, width) float array: each pixel inside the box takes the bilinear sample of the grid at its
    centre (grid cells spanning the box evenly, their centres the sample points); 0 outside the box."""
    height, width = image_shape
    mh, mw = mask.shape
    x1, y1, x2, y2 = box
    out = np.zeros((height, width), np.float32)
    cols = np.arange(max(0, int(np.floor(x1))), min(width, int(np.ceil(x2))))
    rows = np.arange(max(0, int(np.floor(y1))), min(height, int(np.ceil(y2))))
    if x2 <= x1 or y2 <= y1 or not len(cols) or not len(rows):
        return out

    def taps(pixels: np.ndarray, start: float, extent: float, cells: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        at = np.clip((pixels + 0.5 - start) / extent * cells - 0.5, 0, cells - 1)
        low = np.floor(at).astype(int)
        return low, np.minimum(low + 1, cells - 1), (at - low).astype(np.float32)

    c0, c1, fx = taps(cols, x1, x2 - x1, mw)
    r0, r1, fy = taps(rows, y1, y2 - y1, mh)
    m = mask.astype(np.float32)
    top = m[r0][:, c0] * (1 - fx) + m[r0][:, c1] * fx
    bottom = m[r1][:, c0] * (1 - fx) + m[r1][:, c1] * fx
    out[rows[0]:rows[-1] + 1, cols[0]:cols[-1] + 1] = top * (1 - fy)[:, None] + bottom * fy[:, None]
    return out


def _rows(outputs: Any) -> List[_Rows]:
    """Per image: (class ids, scores, boxes (K, 4), boxes_are_normalized, masks or None) from any output form."""
    if not isinstance(outputs, list) and outputs.ndim == 3 and outputs.shape[2] == 6:
        return [(o[:, 0], o[:, 1], o[:, 2:6], True, None) for o in outputs]
    if isinstance(outputs, list) and len(outputs) in (3, 4):
        ids, scores, boxes = outputs[:3]
        masks = outputs[3] if len(outputs) == 4 else None
        if (boxes.ndim == 3 and boxes.shape[2] == 4 and ids.shape[:2] == scores.shape[:2] == boxes.shape[:2]
                and (masks is None or (masks.ndim == 4 and masks.shape[:2] == boxes.shape[:2]))):
            return [(i.reshape(-1), s.reshape(-1), b, False, None if masks is None else masks[n])
                    for n, (i, s, b) in enumerate(zip(ids, scores, boxes))]
    shapes = [o.shape for o in outputs] if isinstance(outputs, list) else [outputs.shape]
    raise ShapeError.from_message(
        f"not a detection model: outputs {shapes}; expected one (N, K, 6) output or (N, K, 1), (N, K, 1), "
        "(N, K, 4) and optionally masks (N, K, mh, mw)")
