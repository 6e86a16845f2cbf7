"""Writes MXNet model files (symbol JSON and the .params NDArray-list format) for hand-made test models."""
from __future__ import annotations

import json
import struct
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
