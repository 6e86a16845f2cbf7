"""A model's two files, read as the runtime reads them, for the subcommands that look inside a model."""
from __future__ import annotations

import os
from typing import Any, Dict, List, NamedTuple, Tuple

from .. import capi
from ..errors import NotFoundError

# QvDType codes (MXNet's type flags) -> (numpy name, bytes per element).
DTYPES = {0: ("float32", 4), 1: ("float64", 8), 2: ("float16", 2), 3: ("uint8", 1), 4: ("int32", 4),
          5: ("int8", 1), 6: ("int64", 8)}


class Param(NamedTuple):
    name: str  # without MXNet's "arg:" / "aux:" prefix
    shape: Tuple[int, ...]
    dtype: str
    nbytes: int


def symbol_path(prefix: str) -> str:
    return f"{prefix}-symbol.json"


def params_path(prefix: str, epoch: int) -> str:
    return f"{prefix}-{epoch:04d}.params"


def read_symbol(prefix: str) -> str:
    """The symbol JSON text; a missing file is the runtime's NotFoundError, so every error looks alike."""
    path = symbol_path(prefix)
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise NotFoundError.from_message(f"model file not found: {path}") from None


def load_params(prefix: str, epoch: int) -> Tuple[List[Any], List[Param]]:
    """The .params file's native arrays (the caller frees them with free_arrays) and what each holds."""
    path = params_path(prefix, epoch)
    if not os.path.exists(path):
        raise NotFoundError.from_message(f"model file not found: {path}")
    handles, names = capi.QvNDArrayLoad(path)
    params = []
    for handle, name in zip(handles, names):
        shape = tuple(capi.QvNDArrayGetShape(handle))
        dtype, size = DTYPES.get(capi.QvNDArrayGetDType(handle), ("unknown", 0))
        params.append(Param(name.split(":", 1)[-1], shape, dtype, element_count(shape) * size))
    return handles, params


def free_arrays(handles: List[Any]) -> None:
    for handle in handles:
        capi.QvNDArrayFree(handle)


def element_count(shape: Tuple[int, ...]) -> int:
    count = 1
    for d in shape:
        count *= d
    return count


def nodes(graph: Dict[str, Any]) -> List[Dict[str, Any]]:
    found = graph.get("nodes")
    return found if isinstance(found, list) else []
