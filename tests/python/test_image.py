"""ImageTransform: the center crop taken before the resize gives resize-then-crop's pixels."""
from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from quiver.image import ImageTransform


def _resize_then_crop(rgb: Image.Image, size, resize_short: int) -> np.ndarray:
    """The whole image resized (shorter side `resize_short`), then center-cropped: the reference."""
    height, width = size
    scale = resize_short / min(rgb.size)
    scaled = rgb.resize((max(width, round(rgb.width * scale)), max(height, round(rgb.height * scale))),
                        Image.Resampling.BILINEAR)
    left, top = (scaled.width - width) // 2, (scaled.height - height) // 2
    return np.asarray(scaled.crop((left, top, left + width, top + height)), np.int16)


@pytest.mark.parametrize("image_size", [(300, 400), (480, 640), (224, 224), (97, 1013), (1200, 90), (50, 60)])
def test_crop_first_matches_resize_then_crop(image_size):
    rng = np.random.default_rng(image_size[0])
    rgb = Image.fromarray(rng.integers(0, 256, (*image_size, 3), dtype=np.uint8))
    for size, short in (((224, 224), 256), ((299, 299), 342), ((32, 48), 40)):
        got = np.asarray(ImageTransform(size, short).fit(rgb), np.int16)
        want = _resize_then_crop(rgb, size, short)
        assert got.shape == want.shape == (*size, 3)
        # The same sample points and filter. Pillow takes the box in float32 and rounds its weights to
        # fixed point, so a sample may land a hair away and a pixel round the other way (seen: at most
        # 2, and 1 on a quarter of the pixels of an upscaled 90-pixel-wide image); a crop off by even
        # one source pixel would differ by tens on these random pixels.
        assert np.abs(got - want).max() <= 2
        assert np.abs(got - want).mean() < 0.3


def test_normalisation_follows_the_fitted_pixels():
    rgb = Image.fromarray(np.random.default_rng(3).integers(0, 256, (40, 60, 3), dtype=np.uint8))
    transform = ImageTransform((16, 16), 20, mean=(1, 2, 3), std=(2, 4, 8))
    fitted = np.asarray(transform.fit(rgb), np.float32)
    want = ((fitted - np.float32([1, 2, 3])) / np.float32([2, 4, 8])).transpose(2, 0, 1)
    np.testing.assert_array_equal(transform(rgb), want)
