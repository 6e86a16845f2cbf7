"""Image preprocessing shared by ImageClassifier and ObjectDetector: decode, resize, crop, normalise."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
from PIL import Image

ImageLike = Union[str, "os.PathLike[str]", "Image.Image", "np.ndarray[Any, Any]"]

# ImageNet statistics on 0-255 RGB values: what Gluon model-zoo and GluonCV models were trained with.
IMAGENET_MEAN = (123.675, 116.28, 103.53)
IMAGENET_STD = (58.395, 57.12, 57.375)


def load_image(image: ImageLike) -> Image.Image:
    """An RGB PIL image from a PIL image, a file path, or an HxWxC (or HxW) uint8 array."""
    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    if isinstance(image, (str, os.PathLike)):
        with Image.open(os.fspath(image)) as opened:
            return opened.convert("RGB")
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
            raise ValueError(f"image arrays must be HxWxC uint8 with C in 1, 3, 4 (or HxW), got "
                             f"{image.dtype} {image.shape}")
        return Image.fromarray(image[:, :, 0] if image.ndim == 3 and image.shape[2] == 1 else image).convert("RGB")
    raise TypeError(f"expected a PIL image, a path or a uint8 array, got {type(image).__name__}")


@dataclass(frozen=True)
class ImageTransform:
    """How an image becomes one CHW float input.

    Args:
        size: (height, width) given to the model.
        resize_short: the shorter side is resized to this before a center crop of `size`; None resizes
            the whole image straight to `size` (no crop; detectors use that).
        mean, std: per-channel statistics on 0-255 RGB values: input = (pixel - mean) / std.
    """

    size: Tuple[int, int]
    resize_short: Optional[int] = None
    mean: Sequence[float] = IMAGENET_MEAN
    std: Sequence[float] = IMAGENET_STD

    def __call__(self, image: ImageLike) -> np.ndarray:
        rgb = load_image(image)
        height, width = self.size
        if self.resize_short is None:
            rgb = rgb.resize((width, height), Image.Resampling.BILINEAR)
        else:
            scale = self.resize_short / min(rgb.size)
            rgb = rgb.resize((max(width, round(rgb.width * scale)), max(height, round(rgb.height * scale))),
                             Image.Resampling.BILINEAR)
            left, top = (rgb.width - width) // 2, (rgb.height - height) // 2
            rgb = rgb.crop((left, top, left + width, top + height))
        pixels = np.asarray(rgb, dtype=np.float32)
        pixels = np.divide(pixels - np.asarray(self.mean, np.float32), np.asarray(self.std, np.float32))
        return np.ascontiguousarray(pixels.transpose(2, 0, 1))

    def batch(self, images: Sequence[ImageLike]) -> np.ndarray:
        return np.stack([self(image) for image in images])


def size_short_within(width: int, height: int, short: int, max_size: int, stride: int = 1) -> Tuple[int, int]:
    """(width, height) keeping the aspect ratio with the shorter side `short`, unless the longer would
    then pass `max_size` (then the longer is `max_size`), each rounded to a multiple of `stride`: the
    sizes of GluonCV's resize_short_within, which its detectors' test presets use (YOLOv3: 416, 1024;
    Faster/Mask R-CNN: 600, 1000; SSD and CenterNet: 512, 1024)."""
    small, large = min(width, height), max(width, height)
    scale = short / small
    if round(scale * large / stride) * stride > max_size:
        scale = (max_size // stride * stride) / large
    return int(round(width * scale / stride) * stride), int(round(height * scale / stride) * stride)


def as_image_list(images: Any) -> List[ImageLike]:
    """One image, or a sequence of them, as a list."""
    single = isinstance(images, (str, os.PathLike, Image.Image)) or (
        isinstance(images, np.ndarray) and images.ndim in (2, 3) and images.dtype == np.uint8)
    return [images] if single else list(images)


def in_layout(batch: np.ndarray, desc: Any) -> np.ndarray:
    """An NCHW image batch in the layout of the input it feeds (NHWC when its DataDesc says so)."""
    return batch.transpose(0, 2, 3, 1) if desc is not None and desc.layout == "NHWC" else batch


def model_image_size(desc: Any, default: Tuple[int, int]) -> Tuple[int, int]:
    """(height, width) from an input's DataDesc (its layout's H and W), or `default`."""
    if desc is None or not desc.shape:
        return default
    return desc.shape[desc.axis("H")], desc.shape[desc.axis("W")]
