"""Tensors of the Open Inference Protocol (v2) and numpy: datatypes, request parameters, and Triton's
classification extension (a requested output's ``classification`` parameter)."""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, List, Optional, Sequence, TypeVar

import numpy as np

from .errors import bad_request

Number = TypeVar("Number", int, float)

# v2 datatype names by numpy type.
DATATYPES = {np.dtype(np.bool_): "BOOL", np.dtype(np.uint8): "UINT8", np.dtype(np.uint16): "UINT16",
             np.dtype(np.uint32): "UINT32", np.dtype(np.uint64): "UINT64", np.dtype(np.int8): "INT8",
             np.dtype(np.int16): "INT16", np.dtype(np.int32): "INT32", np.dtype(np.int64): "INT64",
             np.dtype(np.float16): "FP16", np.dtype(np.float32): "FP32", np.dtype(np.float64): "FP64"}


def datatype(dtype: Any) -> str:
    """The v2 name of a numpy element type; object arrays (strings, encoded images) are BYTES."""
    dtype = np.dtype(dtype)
    return "BYTES" if dtype == np.object_ else DATATYPES[dtype]


def as_array(infer_input: Any, expected: str) -> np.ndarray:
    """A request input (kserve's InferInput) as a numpy array of the datatype the model takes, or a
    protocol error naming what is wrong. Binary inputs become arrays over the request's bytes."""
    if infer_input.datatype != expected:
        raise bad_request(f"input {infer_input.name!r} has datatype {infer_input.datatype}; the model takes {expected}")
    try:
        return np.asarray(infer_input.as_numpy())
    except (ValueError, TypeError) as error:  # data that does not fill the shape, or is not numbers
        raise bad_request(f"input {infer_input.name!r}: its data does not fit shape {list(infer_input.shape)} "
                          f"of {infer_input.datatype} ({error})") from None


def parameter(parameters: Any, key: str) -> Optional[Any]:
    """A request parameter's value from REST (a dict) or gRPC (a map of InferParameter), or None."""
    if not parameters or key not in parameters:
        return None
    value = parameters[key]
    if hasattr(value, "WhichOneof"):
        choice = value.WhichOneof("parameter_choice")
        return getattr(value, choice) if choice else None
    return value


def number_parameter(parameters: Any, key: str, kind: Callable[[Any], Number]) -> Optional[Number]:
    """A numeric request parameter (kind int or float), or None; one that is not a finite number is a
    bad request."""
    value = parameter(parameters, key)
    if value is None:
        return None
    try:
        number = kind(value)
    except (TypeError, ValueError, OverflowError):
        raise bad_request(f"request parameter {key!r} must be a number, not {value!r}") from None
    if not math.isfinite(number):
        raise bad_request(f"request parameter {key!r} must be finite, not {value!r}")
    return number


def classification(scores: np.ndarray, count: int, labels: Optional[Sequence[str]]) -> np.ndarray:
    """Triton's classification extension: per batch row, the `count` best classes as BYTES
    ``b"score:index[:label]"``, best first (shape (rows, count))."""
    rows = scores.reshape(len(scores), -1).astype(np.float64)
    count = max(1, min(int(count), rows.shape[1]))
    best = np.argsort(-rows, axis=1, kind="stable")[:, :count]
    out = np.empty(best.shape, dtype=object)
    for r, row in enumerate(best):
        for k, c in enumerate(row):
            label = f":{labels[c]}" if labels is not None and c < len(labels) else ""
            out[r, k] = f"{rows[r, c]:f}:{c}{label}".encode("utf-8")
    return out


def tensor_entry(name: str, dtype: Any, shape: Sequence[int]) -> Dict[str, Any]:
    """One entry of the model metadata's inputs or outputs."""
    return {"name": name, "datatype": datatype(dtype), "shape": [int(d) for d in shape]}


def requested_names(request_outputs: Optional[List[Any]], available: Sequence[str]) -> List[str]:
    """The outputs a request asks for (all of them when it names none); an unknown name is a bad request."""
    if not request_outputs:
        return list(available)
    names = [output.name for output in request_outputs]
    unknown = [n for n in names if n not in available]
    if unknown:
        raise bad_request(f"the model has no output {unknown}; its outputs: {list(available)}")
    return names
