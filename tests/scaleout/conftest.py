"""Small hand-made models (tests/python/mxnet_files.py) for the PySpark and Ray Data tests, whose results
are exact in float32 (small integers), so that any batching gives the same bits."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mxnet_files import params_bytes, symbol_json  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
COLOURS = ["red", "green", "blue"]


def _write(prefix: Path, nodes, heads, params: Dict[str, np.ndarray]) -> str:
    (prefix.parent / f"{prefix.name}-symbol.json").write_text(symbol_json(nodes, heads))
    (prefix.parent / f"{prefix.name}-0000.params").write_bytes(params_bytes(params))
    return str(prefix)


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Dict[str, str]:
    """"two_out": data (rows, 2, 3) -> fc (rows, 4) and relu (rows, 2, 3); "colours": an NCHW image ->
    average colour -> 3 scores (red, green, blue), with its synset.txt."""
    root = tmp_path_factory.mktemp("models")
    rng = np.random.default_rng(36)
    two_out = _write(root / "two_out", [
        ("null", "data", {}, []), ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
        ("FullyConnected", "fc", {"num_hidden": "4"}, [0, 1, 2]),
        ("Activation", "relu", {"act_type": "relu"}, [0])], [3, 4],
        {"arg:fc_weight": rng.integers(-3, 4, (4, 6)).astype(np.float32),
         "arg:fc_bias": rng.integers(-3, 4, 4).astype(np.float32)})
    (root / "colours").mkdir()
    colours = _write(root / "colours" / "colours", [
        ("null", "data", {}, []),
        ("Pooling", "pool", {"global_pool": "True", "kernel": "(1, 1)", "pool_type": "avg"}, [0]),
        ("null", "fc_weight", {}, []), ("null", "fc_bias", {}, []),
        ("FullyConnected", "fc", {"num_hidden": "3"}, [1, 2, 3])], [4],
        {"arg:fc_weight": np.eye(3, dtype=np.float32) / 16, "arg:fc_bias": np.zeros(3, np.float32)})
    (root / "colours" / "synset.txt").write_text("\n".join(COLOURS) + "\n")
    return {"two_out": two_out, "colours": colours}


# ImageClassifier keywords that keep the colours model exact: 8x8 images as they are, 0-255 values.
IMAGE_KWARGS = {"image_size": [8, 8], "resize_short": 8, "mean": [0, 0, 0], "std": [1, 1, 1]}


@pytest.fixture(scope="session")
def images(tmp_path_factory) -> Path:
    """Eight 8x8 PNG images of mixed colours."""
    from PIL import Image

    folder = tmp_path_factory.mktemp("images")
    rng = np.random.default_rng(7)
    for i in range(8):
        pixels = rng.integers(0, 256, (8, 8, 3)).astype(np.uint8)
        pixels[:, :, i % 3] = 255 - (i * 11) % 64  # a dominant channel
        Image.fromarray(pixels).save(folder / f"image{i}.png")
    return folder


def rows(count: int, seed: int = 1) -> np.ndarray:
    """Inputs for two_out: small integers, so every sum is exact."""
    return np.random.default_rng(seed).integers(-8, 9, (count, 2, 3)).astype(np.float32)
