"""Shared fixtures: the MXNet-made models of scripts/make_fixtures.sh and their recorded outputs."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Dict

import numpy as np
import pytest

FIXTURES = Path(os.environ.get("QUIVER_FIXTURES_DIR", Path.home() / ".cache" / "quiver" / "fixtures"))


@pytest.fixture(scope="session")
def manifest() -> Dict:
    path = FIXTURES / "manifest.json"
    if not path.exists():
        message = f"no fixtures at {FIXTURES}: run scripts/make_fixtures.sh"
        if os.environ.get("QUIVER_REQUIRE_FIXTURES") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return json.loads(path.read_text())


def prefix(name: str) -> str:
    return str(FIXTURES / name)


def load_f32(file: str, shape) -> np.ndarray:
    return np.fromfile(FIXTURES / file, dtype=np.float32).reshape(shape)


def case(manifest: Dict, model: str, name: str):
    """(input, MXNet's output, output scale) of one recorded case."""
    for c in manifest["models"][model]["cases"]:
        if c["name"] == name:
            return (load_f32(c["input_file"], c["input_shape"]), load_f32(c["output_file"], c["output_shape"]),
                    c["output_scale"])
    raise KeyError(f"{model} has no case {name}")
