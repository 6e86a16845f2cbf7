"""DataDesc: the name, shape, element type and layout of one model input."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Tuple

import numpy as np


@dataclass(frozen=True)
class DataDesc:
    """Describes one model input.

    Args:
        name: the input's name in the symbol (for example ``"data"``).
        shape: its shape, batch first; the batch size given here is only the one compiled ahead of time
            (any batch size runs).
        dtype: numpy element type name; inputs are converted to it (no copy when they already match).
        layout: axis letters, ``"NCHW"`` for images. Image classes use it to find C, H and W.
    """

    name: str
    shape: Tuple[int, ...]
    dtype: str = "float32"
    layout: str = "NCHW"

    def __init__(self, name: str, shape: Sequence[int], dtype: str = "float32", layout: str = "NCHW") -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "shape", tuple(int(d) for d in shape))
        object.__setattr__(self, "dtype", np.dtype(dtype).name)
        object.__setattr__(self, "layout", layout)
        if layout and self.shape and len(layout) != len(self.shape):
            raise ValueError(f"input '{name}': layout '{layout}' has {len(layout)} axes but shape "
                             f"{self.shape} has {len(self.shape)}")

    def axis(self, letter: str) -> int:
        """The position of an axis letter in the layout (``desc.axis("C")``)."""
        position = self.layout.find(letter)
        if position < 0:
            raise ValueError(f"input '{self.name}': layout '{self.layout}' has no axis '{letter}'")
        return position
