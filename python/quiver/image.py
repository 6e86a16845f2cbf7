"""Image preprocessing shared by the image models: decode (within ImageLimits), crop, resize, normalise.
An encoded image is decoded when its row is preprocessed, so a batch holds one decoded image at a time."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
from PIL import Image

from .image_limits import ImageLimits

# An image: a file path, the file's bytes (JPEG, PNG, ...), a PIL image or an HxWxC (or HxW) uint8 array.
ImageLike = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, "Image.Image", "np.ndarray[Any, Any]"]

# ImageNet statistics on 0-255 RGB values: what Gluon model-zoo and GluonCV models were trained with.
IMAGENET_MEAN = (123.675, 116.28, 103.53)
IMAGENET_STD = (58.395, 57.12, 57.375)


def load_image(image: ImageLike, limits: ImageLimits = ImageLimits(),
               input_size: Tuple[int, int] = (224, 224)) -> Image.Image:
    """An RGB PIL image from any ImageLike; paths and bytes are decoded within `limits` (for a model
    input of `input_size`)."""
    if isinstance(image, Image.Image):
        return image if image.mode == "RGB" else image.convert("RGB")
    if isinstance(image, (str, os.PathLike, bytes, bytearray, memoryview)):
        return limits.decode(image, input_size)
    if isinstance(image, np.ndarray):
        if image.dtype != np.uint8 or image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] not in (1, 3, 4)):
            raise ValueError(f"image arrays must be HxWxC uint8 with C in 1, 3, 4 (or HxW), got "
                             f"{image.dtype} {image.shape}")
        return Image.fromarray(image[:, :, 0] if image.ndim == 3 and image.shape[2] == 1 else image).convert("RGB")
    raise TypeError(f"expected a path, image bytes, a PIL image or a uint8 array, got {type(image).__name__}")


@dataclass(frozen=True)
class ImageTransform:
    """How an image becomes one CHW float input.

    Args:
        size: (height, width) given to the model.
        resize_short: the shorter side is resized to this before a center crop of `size`; None resizes
            the whole image straight to `size` (no crop; detectors use that).
        mean, std: per-channel statistics on 0-255 RGB values: input = (pixel - mean) / std.
        limits: what the encoded images it decodes (paths, bytes) may be.
    """

    size: Tuple[int, int]
    resize_short: Optional[int] = None
    mean: Sequence[float] = IMAGENET_MEAN
    std: Sequence[float] = IMAGENET_STD
    limits: ImageLimits = field(default_factory=ImageLimits)

    def load(self, image: ImageLike) -> Image.Image:
        """`image` as RGB, decoded within this transform's limits."""
        return load_image(image, self.limits, self.size)

    def __call__(self, image: ImageLike) -> np.ndarray:
        rgb = self.fit(self.load(image))
        pixels = np.asarray(rgb, dtype=np.float32)
        pixels = np.divide(pixels - np.asarray(self.mean, np.float32), np.asarray(self.std, np.float32))
        return np.ascontiguousarray(pixels.transpose(2, 0, 1))

    def fit(self, rgb: Image.Image) -> Image.Image:
        """`rgb` resized (and center-cropped) to `size`. The crop is taken first: only its region of
        the image is resized, at the scale the whole image would have had, so the pixels are those of
        resize-then-crop while the work is bounded by the output (a 100000x1 image costs no more than
        a photo)."""
        height, width = self.size
        if self.resize_short is None:
            return rgb.resize((width, height), Image.Resampling.BILINEAR)
        scale = self.resize_short / min(rgb.size)
        scaled_width = max(width, round(rgb.width * scale))
        scaled_height = max(height, round(rgb.height * scale))
        left, top = (scaled_width - width) // 2, (scaled_height - height) // 2
        sx, sy = rgb.width / scaled_width, rgb.height / scaled_height
        return rgb.resize((width, height), Image.Resampling.BILINEAR,
                          box=(left * sx, top * sy, (left + width) * sx, (top + height) * sy))

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
    single = isinstance(images, (str, os.PathLike, bytes, bytearray, memoryview, Image.Image)) or (
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
