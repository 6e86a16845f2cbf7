"""What an encoded image may be before Quiver decodes it: a format allow-list and a pixel cap, both
checked from the file's header, so a few bytes cannot ask for gigabytes."""
from __future__ import annotations

import io
import os
import struct
from dataclasses import dataclass
from typing import IO, Optional, Tuple, Union

from PIL import Image, UnidentifiedImageError

from .errors import InvalidArgumentError

Encoded = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]

DEFAULT_FORMATS = ("JPEG", "PNG", "WEBP", "BMP")
# The default cap is this many times the model input's pixels, and never under 4096 x 4096, so that
# camera photos (12 MP phones, 4K frames) pass whatever the input size.
DEFAULT_INPUT_MULTIPLE = 16
DEFAULT_MIN_CAP = 4096 * 4096


@dataclass(frozen=True)
class ImageLimits:
    """Limits on the encoded images (bytes, files) a model's preprocessing decodes. Images given
    already decoded (PIL images, arrays) are the caller's; preprocessing them is bounded by the
    model's input size, not theirs.

    Args:
        max_pixels: the most pixels (width x height, read from the header) an image may have; None:
            16 times the model input's, at least 4096 x 4096. Never more than Pillow's own limit
            (``PIL.Image.MAX_IMAGE_PIXELS``).
        formats: the Pillow formats decoded (default JPEG, PNG, WebP, BMP); others are refused.
    """

    max_pixels: Optional[int] = None
    formats: Tuple[str, ...] = DEFAULT_FORMATS

    def __post_init__(self) -> None:
        if self.max_pixels is not None and self.max_pixels < 1:
            raise InvalidArgumentError.from_message(f"max_pixels must be positive, not {self.max_pixels}")
        if not self.formats:
            raise InvalidArgumentError.from_message("ImageLimits needs at least one format")
        object.__setattr__(self, "formats", tuple(f.upper() for f in self.formats))

    def pixel_cap(self, input_size: Tuple[int, int]) -> int:
        """The most pixels an image for a model input of (height, width) may have."""
        cap = self.max_pixels or max(DEFAULT_INPUT_MULTIPLE * input_size[0] * input_size[1], DEFAULT_MIN_CAP)
        pillow = Image.MAX_IMAGE_PIXELS
        return cap if pillow is None else min(cap, int(pillow))

    def decode(self, source: Encoded, input_size: Tuple[int, int]) -> Image.Image:
        """`source` (a path, or the file's bytes) decoded as RGB once its header passes the limits;
        anything refused or undecodable raises InvalidArgumentError naming why."""
        if isinstance(source, (bytes, bytearray, memoryview)):
            return self._decode(io.BytesIO(source), "the image", input_size)
        path = os.fspath(source)
        with open(path, "rb") as file:  # a missing file stays FileNotFoundError
            return self._decode(file, f"image {path}", input_size)

    def _decode(self, file: IO[bytes], what: str, input_size: Tuple[int, int]) -> Image.Image:
        try:
            with Image.open(file, formats=list(self.formats)) as opened:
                width, height = opened.size
                cap = self.pixel_cap(input_size)
                if width * height > cap:
                    raise InvalidArgumentError.from_message(
                        f"{what} is {width}x{height} ({width * height} pixels), more than the {cap} allowed "
                        "(ImageLimits.max_pixels)")
                return opened.convert("RGB")
        except InvalidArgumentError:
            raise
        except UnidentifiedImageError:
            raise InvalidArgumentError.from_message(
                f"{what} is not an image in an allowed format ({', '.join(self.formats)}; ImageLimits.formats)"
            ) from None
        except Image.DecompressionBombError as error:
            raise InvalidArgumentError.from_message(f"{what} is refused by Pillow's pixel limit: {error}") from None
        except (OSError, EOFError, SyntaxError, ValueError, struct.error) as error:  # what Pillow's decoders raise
            raise InvalidArgumentError.from_message(f"{what} could not be decoded: {error}") from None
