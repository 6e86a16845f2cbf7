"""tests/gpu/regen_params.py: recipes rebuild the exact .params bytes MXNet ran (numpy 1.x or 2.x).

    python -m pytest tests/gpu/test_regen_params.py      # the fixtures: tests/gpu/make_fixtures.sh

The fixture directory is $QUIVER_GPU_FIXTURES or ~/.cache/quiver/gpu-fixtures; without it the
byte-identity test is skipped (the generator's own test, of the values, always runs).
"""
import glob
import hashlib
import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regen_params  # noqa: E402

FIXTURES = os.environ.get("QUIVER_GPU_FIXTURES", os.path.expanduser("~/.cache/quiver/gpu-fixtures"))


def test_values_follow_the_recipe():
    entry = {"name": "w", "shape": [64, 32, 3, 3], "seed": 5, "mean": 0.25, "std": 0.5, "kind": "uniform"}
    x = regen_params.tensor_values(entry).astype(np.float64)
    assert x.shape == (64, 32, 3, 3) and x.dtype == np.float64
    assert abs(x.mean() - 0.25) < 0.02 and abs(x.std() - 0.5) < 0.02
    var = regen_params.tensor_values(dict(entry, kind="positive", mean=1.0, std=2.0))
    assert var.min() >= 0.5 and var.max() <= 1.5
    assert np.array_equal(regen_params.tensor_values(entry), regen_params.tensor_values(entry))


@pytest.mark.skipif(not os.path.isdir(FIXTURES), reason="no GPU fixtures (tests/gpu/make_fixtures.sh)")
@pytest.mark.parametrize("recipe_path", sorted(glob.glob(os.path.join(FIXTURES, "*-recipe.json"))))
def test_recipe_rebuilds_the_bytes_mxnet_ran(recipe_path):
    with open(recipe_path) as f:
        recipe = json.load(f)
    assert hashlib.md5(regen_params.regenerate(recipe)).hexdigest() == recipe["params_md5"]
