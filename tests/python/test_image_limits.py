"""ImageLimits: encoded images are refused from their headers (pixel cap, formats) before decoding, and
every refusal is an InvalidArgumentError naming the limit."""
from __future__ import annotations

import io
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import quiver
from quiver.image_limits import ImageLimits
from mxnet_files import COLOUR_IMAGE_KWARGS, COLOURS, mean_colour_model, write_model


def _encoded(image: Image.Image, fmt: str) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format=fmt)
    return buffer.getvalue()


@pytest.fixture(scope="module")
def bomb_png() -> bytes:
    """A 13000 x 13000 1-bit PNG: about 20 KB that decode to 507 MB of RGB."""
    return _encoded(Image.new("1", (13000, 13000)), "PNG")


def test_an_image_over_the_pixel_cap_is_refused_from_its_header(bomb_png):
    assert len(bomb_png) < 100_000
    with pytest.raises(quiver.InvalidArgumentError, match=r"13000x13000 .* more than the 16777216 allowed .*max_pixels"):
        ImageLimits().decode(bomb_png, (224, 224))
    # A cap set by the caller applies as given; the default is 16 times the input, at least 4096 x 4096.
    with pytest.raises(quiver.InvalidArgumentError, match="more than the 100 allowed"):
        ImageLimits(max_pixels=100).decode(_encoded(Image.new("RGB", (11, 10)), "PNG"), (8, 8))
    assert ImageLimits(max_pixels=110).decode(_encoded(Image.new("RGB", (11, 10)), "PNG"), (8, 8)).size == (11, 10)
    assert ImageLimits().pixel_cap((2048, 2048)) == 16 * 2048 * 2048
    assert ImageLimits().pixel_cap((224, 224)) == 4096 * 4096


def test_the_cap_never_passes_pillows_own_limit(monkeypatch):
    monkeypatch.setattr(Image, "MAX_IMAGE_PIXELS", 50)
    assert ImageLimits(max_pixels=10**9).pixel_cap((8, 8)) == 50
    with pytest.raises(quiver.InvalidArgumentError, match="more than the 50 allowed"):
        ImageLimits(max_pixels=10**9).decode(_encoded(Image.new("RGB", (10, 10)), "PNG"), (8, 8))


def test_formats_outside_the_allow_list_are_refused():
    gif = _encoded(Image.new("RGB", (4, 4)), "GIF")
    with pytest.raises(quiver.InvalidArgumentError, match=r"not an image in an allowed format \(JPEG, PNG, WEBP, BMP"):
        ImageLimits().decode(gif, (8, 8))
    assert ImageLimits(formats=("gif",)).decode(gif, (8, 8)).mode == "RGB"
    for fmt in ("JPEG", "PNG", "WEBP", "BMP"):
        assert ImageLimits().decode(_encoded(Image.new("RGB", (5, 3)), fmt), (8, 8)).size == (5, 3)


def test_bytes_that_are_not_an_image_or_are_cut_short_say_so(tmp_path: Path):
    with pytest.raises(quiver.InvalidArgumentError, match="not an image"):
        ImageLimits().decode(b"GET / HTTP/1.1\r\n", (8, 8))
    png = _encoded(Image.fromarray(np.random.default_rng(0).integers(0, 256, (64, 64, 3), dtype=np.uint8)), "PNG")
    with pytest.raises(quiver.InvalidArgumentError, match="could not be decoded"):
        ImageLimits().decode(png[: len(png) // 2], (8, 8))
    path = tmp_path / "cut.png"
    path.write_bytes(png[: len(png) // 2])
    with pytest.raises(quiver.InvalidArgumentError, match=f"image {path} could not be decoded"):
        ImageLimits().decode(path, (8, 8))
    with pytest.raises(FileNotFoundError):
        ImageLimits().decode(tmp_path / "missing.png", (8, 8))
    with pytest.raises(quiver.InvalidArgumentError, match="positive"):
        ImageLimits(max_pixels=0)


def test_image_models_take_bytes_within_their_limits(tmp_path: Path, bomb_png):
    prefix = write_model(tmp_path / "colours", mean_colour_model())
    red = np.zeros((8, 8, 3), np.uint8)
    red[:, :, 0] = 255
    with quiver.ImageClassifier(prefix, synset=COLOURS, **COLOUR_IMAGE_KWARGS) as clf:
        assert clf.classify(_encoded(Image.fromarray(red), "PNG"), top_k=1)[0][0][0] == "red"
        with pytest.raises(quiver.InvalidArgumentError, match="max_pixels"):
            clf.classify([_encoded(Image.fromarray(red), "PNG"), bomb_png])
    limits = ImageLimits(max_pixels=32)
    with quiver.ImageClassifier(prefix, synset=COLOURS, image_limits=limits, **COLOUR_IMAGE_KWARGS) as clf:
        with pytest.raises(quiver.InvalidArgumentError, match="more than the 32 allowed"):
            clf.classify(_encoded(Image.fromarray(red), "PNG"))
        assert clf.classify(red, top_k=1)[0][0][0] == "red"  # arrays are already decoded: the caller's
    with quiver.Segmenter(prefix, image_size=(8, 8), image_limits=limits) as seg:
        with pytest.raises(quiver.InvalidArgumentError, match="more than the 32 allowed"):
            seg.segment(_encoded(Image.fromarray(red), "PNG"))


_LONG_STRIP = """
import resource, io
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import numpy as np
from PIL import Image
from quiver.image import ImageTransform
buffer = io.BytesIO()
Image.new("RGB", (100000, 1), (10, 20, 30)).save(buffer, format="PNG")
print(len(buffer.getvalue()), ImageTransform((224, 224), 256)(buffer.getvalue()).shape)
"""


def test_a_long_strip_costs_what_its_crop_costs():
    """A 100000 x 1 PNG under "shorter side 256": resizing it whole would ask Pillow for ~26 GB; cropping first
    fits in a 3 GiB address space."""
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_LONG_STRIP)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    size, shape = done.stdout.split(" ", 1)
    assert int(size) < 1000 and shape.strip() == "(3, 224, 224)"
