"""Writes MXNet model files (symbol JSON and the .params NDArray-list format) for hand-made test models."""
from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

_LIST_MAGIC = 0x112
_ARRAY_MAGIC_V2 = 0xF993FAC9
_DTYPE_FLAG = {np.dtype(np.float32): 0, np.dtype(np.float64): 1, np.dtype(np.int32): 4}


def params_bytes(arrays: Dict[str, np.ndarray]) -> bytes:
    """An MXNet .params file (dense CPU arrays, names as given, e.g. "arg:fc_weight")."""
    out = [struct.pack("<QQQ", _LIST_MAGIC, 0, len(arrays))]
    for array in arrays.values():
        array = np.ascontiguousarray(array)
        out.append(struct.pack("<Ii", _ARRAY_MAGIC_V2, 0))              # magic, dense storage
        out.append(struct.pack("<I", array.ndim) + struct.pack(f"<{array.ndim}q", *array.shape))
        out.append(struct.pack("<iii", 1, 0, _DTYPE_FLAG[array.dtype]))  # cpu(0), dtype
        out.append(array.tobytes())
    out.append(struct.pack("<Q", len(arrays)))
    for name in arrays:
        encoded = name.encode()
        out.append(struct.pack("<Q", len(encoded)) + encoded)
    return b"".join(out)


def symbol_json(nodes: List[Tuple[str, str, Dict[str, str], List[int]]], heads: List[int]) -> str:
    """A symbol from (op, name, attrs, input node ids) tuples; op "null" is a variable."""
    return json.dumps({
        "nodes": [{"op": op, "name": name, "attrs": attrs, "inputs": [[i, 0, 0] for i in inputs]}
                  for op, name, attrs, inputs in nodes],
        "arg_nodes": [i for i, node in enumerate(nodes) if node[0] == "null"],
        "heads": [[h, 0, 0] for h in heads],
        "attrs": {"mxnet_version": ["int", 10901]},
    })


def constant_outputs_model(outputs: List[np.ndarray]) -> Tuple[str, bytes]:
    """A model that ignores its image and always gives `outputs` (arrays, batch 1): per output, a
    zero-weight FullyConnected whose bias holds it, reshaped to its shape."""
    nodes = [("null", "data", {}, []), ("Pooling", "pool", {"global_pool": "True", "kernel": "(1, 1)",
                                                              "pool_type": "avg"}, [0])]
    params, heads = {}, []
    for i, value in enumerate(outputs):
        nodes += [("null", f"fc{i}_weight", {}, []), ("null", f"fc{i}_bias", {}, []),
                  ("FullyConnected", f"fc{i}", {"num_hidden": str(value.size)}, [1, len(nodes), len(nodes) + 1]),
                  ("Reshape", f"out{i}", {"shape": str((0,) + value.shape[1:])}, [len(nodes) + 2])]
        params[f"arg:fc{i}_weight"] = np.zeros((value.size, 3), np.float32)
        params[f"arg:fc{i}_bias"] = value.reshape(-1).astype(np.float32)
        heads.append(len(nodes) - 1)
    return symbol_json(nodes, heads), params_bytes(params)


# Two hand-made models whose float32 results are exact (small integers and sixteenths), so that any
# batching gives the same bits: the scale-out and serving suites share them.
COLOURS = ["red", "green", "blue"]
# ImageClassifier keywords that keep the colours model exact: 8x8 images as they are, 0-255 values.
COLOUR_IMAGE_KWARGS = {"image_size": [8, 8], "resize_short": 8, "mean": [0, 0, 0], "std": [1, 1, 1]}


def write_model(prefix: Path, model: Tuple[str, bytes]) -> str:
    """Writes (symbol JSON, .params bytes) as PREFIX-symbol.json and PREFIX-0000.params; returns PREFIX."""
    symbol, params = model
    prefix.parent.mkdir(parents=True, exist_ok=True)
    (prefix.parent / f"{prefix.name}-symbol.json").write_text(symbol)
    (prefix.parent / f"{prefix.name}-0000.params").write_bytes(params)
    return str(prefix)


def two_output_model(seed: int) -> Tuple[str, bytes]:
    """data (rows, 2, 3) -> fc (rows, 4) and relu (rows, 2, 3), with small-integer weights."""
    rng = np.random.default_rng(seed)
    return symbol_json([
        ("null", "data", {}, []), ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
        ("FullyConnected", "fc", {"num_hidden": "4"}, [0, 1, 2]),
        ("Activation", "relu", {"act_type": "relu"}, [0])], [3, 4]), params_bytes({
            "arg:fc_weight": rng.integers(-3, 4, (4, 6)).astype(np.float32),
            "arg:fc_bias": rng.integers(-3, 4, 4).astype(np.float32)})


def exact_rows(count: int, seed: int = 1) -> np.ndarray:
    """Inputs for two_output_model: small integers, so every sum is exact."""
    return np.random.default_rng(seed).integers(-8, 9, (count, 2, 3)).astype(np.float32)


def mean_colour_model() -> Tuple[str, bytes]:
    """An NCHW image -> its average colour -> 3 scores, one per COLOURS entry."""
    return symbol_json([
        ("null", "data", {}, []),
        ("Pooling", "pool", {"global_pool": "True", "kernel": "(1, 1)", "pool_type": "avg"}, [0]),
        ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
        ("FullyConnected", "fc", {"num_hidden": "3"}, [1, 2, 3])], [4]), params_bytes({
            "arg:fc_weight": np.eye(3, dtype=np.float32) / 16, "arg:fc_bias": np.zeros(3, np.float32)})


def coloured_pngs(count: int) -> List[bytes]:
    """Encoded 8x8 PNG images of mixed colours, each with a dominant channel."""
    import io

    from PIL import Image

    rng = np.random.default_rng(7)
    encoded = []
    for i in range(count):
        pixels = rng.integers(0, 256, (8, 8, 3)).astype(np.uint8)
        pixels[:, :, i % 3] = 255 - (i * 11) % 64
        buffer = io.BytesIO()
        Image.fromarray(pixels).save(buffer, format="PNG")
        encoded.append(buffer.getvalue())
    return encoded
