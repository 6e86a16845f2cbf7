"""Segmenter: per-pixel classes and scores from semantic-segmentation models, at the image's own size."""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np
from PIL import Image

from .classifier import Labels, load_synset, synset_beside
from .errors import ShapeError
from .image import (IMAGENET_MEAN, IMAGENET_STD, ImageLike, ImageTransform, as_image_list, in_layout,
                    model_image_size)
from .image_limits import ImageLimits
from .predictor import Predictor


class Segmentation(NamedTuple):
    """One image's segmentation.

    Attributes:
        class_ids: (height, width) int32, the class of each pixel of the image.
        scores: (height, width) float32, the probability the model gives that class there.
        labels: every class's label, indexed by class id.
    """

    class_ids: np.ndarray
    scores: np.ndarray
    labels: List[str]

    def label_at(self, x: int, y: int) -> str:
        """The label of pixel (x, y)."""
        return self.labels[int(self.class_ids[y, x])]

    def classes(self) -> List[Tuple[str, float]]:
        """``[(label, share of the image's pixels), ...]`` for the classes present, largest first."""
        counts = np.bincount(self.class_ids.reshape(-1), minlength=len(self.labels))
        order = np.argsort(-counts, kind="stable")
        return [(self.labels[c], float(counts[c]) / self.class_ids.size) for c in order if counts[c] > 0]

    def mask(self) -> Image.Image:
        """The classes as a palette image ("P" mode): pixel value = class id, colours from palette()."""
        if len(self.labels) > 256:
            raise ValueError(f"a palette image holds 256 classes; this model has {len(self.labels)}")
        image = Image.fromarray(self.class_ids.astype(np.uint8), mode="P")
        image.putpalette(palette(256).reshape(-1).tolist())
        return image


def palette(n: int) -> np.ndarray:
    """(n, 3) uint8 colours, the PASCAL VOC convention (class 0 black): the bits of the class id spread
    over the high bits of R, G and B in turn, so that neighbouring ids get distant colours."""
    ids = np.arange(n)
    colours = np.zeros((n, 3), np.int64)
    for level in range(8):
        for channel in range(3):
            colours[:, channel] |= ((ids >> (3 * level + channel)) & 1) << (7 - level)
    return colours.astype(np.uint8)


class Segmenter(Predictor):
    """Semantic segmentation with models whose first output is (N, classes, h, w) class scores, as
    GluonCV's FCN, PSPNet and DeepLab exports give (an auxiliary head's output, if exported, is ignored).

    Preprocessing (GluonCV's): the image is resized to the input size (no crop), then per channel
    (pixel - mean) / std on 0-255 RGB values with ImageNet's statistics. The scores are turned into
    probabilities over the class axis (see `softmax`), each pixel of the model's map takes its best
    class, and the map is brought back to the image's size: class ids by nearest neighbour, scores
    bilinearly (pixel centres aligned, edges clamped).

    Takes Predictor's arguments, and these.

    Keyword Args:
        synset: class labels (a list, or a synset.txt path or URI); default ``synset.txt`` next to the
            model if it exists, else labels are the class ids as strings.
        image_size: (height, width) of the input; default from input_descs, else (480, 480).
        mean, std: the normalisation above.
        softmax: "auto" applies a softmax over the classes unless the scores already are probabilities
            (non-negative, summing to 1 at every pixel); True or False forces it.
        image_limits: what encoded images (paths, bytes) may be before they are decoded (ImageLimits).
    """

    def _configure(self, model_dir: Optional[str], *, synset: Optional[Labels] = None,
                   image_size: Optional[Tuple[int, int]] = None, mean: Sequence[float] = IMAGENET_MEAN,
                   std: Sequence[float] = IMAGENET_STD, softmax: Union[str, bool] = "auto",
                   image_limits: ImageLimits = ImageLimits(), **extras: Any) -> None:
        super()._configure(model_dir, **extras)
        if softmax not in ("auto", True, False):
            raise ValueError(f"softmax must be 'auto', True or False, not {softmax!r}")
        self._labels = (load_synset(synset, self._storage_options) if synset is not None
                        else synset_beside(self, model_dir))
        self._softmax = softmax
        size = image_size or model_image_size(self.input_desc(), (480, 480))
        self.transform = ImageTransform(size, None, tuple(mean), tuple(std), image_limits)

    def segment(self, image: ImageLike) -> Segmentation:
        """The segmentation of one image, at its own size."""
        return self.segment_batch([image])[0]

    def segment_batch(self, images: Union[ImageLike, Sequence[ImageLike]]) -> List[Segmentation]:
        """segment() for several images at once (one batch)."""
        # One image decoded at a time; only its size is kept.
        sizes, pixels = [], []
        for image in as_image_list(images):
            rgb = self.transform.load(image)
            sizes.append(rgb.size)
            pixels.append(self.transform(rgb))
        outputs = self.predict(in_layout(np.stack(pixels), self.input_desc()))
        scores = np.asarray(outputs[0] if isinstance(outputs, list) else outputs, dtype=np.float32)
        if scores.ndim != 4 or scores.shape[0] != len(pixels):
            raise ShapeError.from_message(
                f"not a segmentation model: its first output is {scores.shape}; expected (N, classes, height, width)")
        labels = self._labels if self._labels is not None else [str(c) for c in range(scores.shape[1])]
        if scores.shape[1] != len(labels):
            raise ShapeError.from_message(
                f"the model gives {scores.shape[1]} classes but the synset has {len(labels)} labels")
        return [self._per_pixel(s, size, labels) for s, size in zip(scores, sizes)]

    def _per_pixel(self, scores: np.ndarray, image_size: Tuple[int, int], labels: List[str]) -> Segmentation:
        if self._softmax is True or (self._softmax == "auto" and not _are_probabilities(scores)):
            scores = np.exp(scores - scores.max(axis=0, keepdims=True))
            scores /= scores.sum(axis=0, keepdims=True)
        ids = scores.argmax(axis=0)
        best = np.take_along_axis(scores, ids[None], axis=0)[0]
        width, height = image_size
        rows, cols = _nearest(height, ids.shape[0]), _nearest(width, ids.shape[1])
        return Segmentation(ids[np.ix_(rows, cols)].astype(np.int32), _bilinear(best, height, width), labels)


def _are_probabilities(scores: np.ndarray) -> bool:
    return bool((scores >= 0).all() and np.allclose(scores.sum(axis=0), 1.0, atol=1e-3))


def _nearest(out: int, src: int) -> np.ndarray:
    """For each of `out` positions, the source position whose cell holds its centre."""
    return np.minimum(((np.arange(out) + 0.5) * src / out).astype(np.int64), src - 1)


def _bilinear(plane: np.ndarray, height: int, width: int) -> np.ndarray:
    """`plane` resized to height x width, pixel centres aligned, edges clamped."""
    def taps(out: int, src: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
        pos = np.clip((np.arange(out) + 0.5) * src / out - 0.5, 0, src - 1)
        low = np.floor(pos).astype(np.int64)
        return low, np.minimum(low + 1, src - 1), (pos - low).astype(np.float32)
    y0, y1, wy = taps(height, plane.shape[0])
    x0, x1, wx = taps(width, plane.shape[1])
    top = plane[y0][:, x0] * (1 - wx) + plane[y0][:, x1] * wx
    bottom = plane[y1][:, x0] * (1 - wx) + plane[y1][:, x1] * wx
    resized: np.ndarray = (top * (1 - wy)[:, None] + bottom * wy[:, None]).astype(np.float32)
    return resized
