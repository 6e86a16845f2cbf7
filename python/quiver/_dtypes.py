"""The runtime's element types (QvDType codes, MXNet's type flags) as numpy's, both ways."""
from __future__ import annotations

from typing import Any, Dict

import numpy as np

DTYPES: Dict[int, "np.dtype[Any]"] = {
    code: np.dtype(t) for code, t in {
        0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8, 6: np.int64}.items()}
CODES: Dict["np.dtype[Any]", int] = {t: code for code, t in DTYPES.items()}
