"""Small hand-made models (tests/python/mxnet_files.py) for the PySpark and Ray Data tests, whose results
are exact in float32 (small integers), so that any batching gives the same bits."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Dict

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mxnet_files import (COLOUR_IMAGE_KWARGS as IMAGE_KWARGS, COLOURS, coloured_pngs,  # noqa: E402,F401
                         exact_rows as rows, mean_colour_model, two_output_model, write_model)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"


@pytest.fixture(scope="session")
def models(tmp_path_factory) -> Dict[str, str]:
    """"two_out": data (rows, 2, 3) -> fc (rows, 4) and relu (rows, 2, 3); "colours": an NCHW image ->
    average colour -> 3 scores (red, green, blue), with its synset.txt."""
    root = tmp_path_factory.mktemp("models")
    colours = write_model(root / "colours" / "colours", mean_colour_model())
    (root / "colours" / "synset.txt").write_text("\n".join(COLOURS) + "\n")
    return {"two_out": write_model(root / "two_out", two_output_model(36)), "colours": colours}


@pytest.fixture(scope="session")
def images(tmp_path_factory) -> Path:
    """Eight 8x8 PNG images of mixed colours."""
    folder = tmp_path_factory.mktemp("images")
    for i, encoded in enumerate(coloured_pngs(8)):
        (folder / f"image{i}.png").write_bytes(encoded)
    return folder
