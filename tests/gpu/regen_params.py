#!/usr/bin/env python3
"""Rebuilds a GPU fixture's .params file from its recipe, bit for bit (numpy only, 1.x or 2.x).

    python3 tests/gpu/regen_params.py RECIPE.json OUT.params

The GPU fixtures (tests/gpu/make_fixtures.py) carry no weights: each parameter is a recipe entry
{"name", "shape", "seed", "mean", "std", "kind"} and its values are

    u = numpy.random.RandomState(seed).random_sample(size)    # legacy MT19937: bit-stable across numpy versions
    x = mean + (std * sqrt(3)) * (2 u - 1)                    # uniform with that mean and std, float64
    kind "positive" (BatchNorm variances): the same with the spread sqrt(3) std limited to
    POSITIVE_SPREAD * mean, so that every value lies in mean * [0.5, 1.5] (random variances near 0
    would multiply each layer's scale and blow up deep networks)
    stored as float32 (round to nearest)

Only IEEE-exact operations (+, -, *, min, one correctly rounded sqrt, the float32 cast) follow
the generator: no exp or log, whose results may differ by an ulp between numpy builds and CPUs. The
file is MXNet's NDArray-list format, written by tests/python/mxnet_files.py (byte-identical to
mx.nd.save for dense float32 arrays); the recipe's "params_md5" is the MD5 of the file MXNet ran when
the reference outputs were recorded, and this script fails unless it made exactly those bytes.
"""
import hashlib
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from mxnet_files import params_bytes  # noqa: E402  (tests/python/mxnet_files.py: numpy only)

RECIPE_FORMAT = 1
POSITIVE_SPREAD = 0.5
SQRT3 = math.sqrt(3.0)


def tensor_values(entry):
    """One recipe entry's float32 array."""
    shape = tuple(int(d) for d in entry["shape"])
    u = np.random.RandomState(int(entry["seed"])).random_sample(int(np.prod(shape, dtype=np.int64)))
    mean, std = float(entry["mean"]), float(entry["std"])
    half_width = std * SQRT3
    if entry["kind"] == "positive":
        if not mean > 0:
            raise ValueError("recipe entry %r: kind 'positive' needs a positive mean, got %r" % (entry["name"], mean))
        half_width = min(half_width, POSITIVE_SPREAD * mean)
    elif entry["kind"] != "uniform":
        raise ValueError("recipe entry %r: unknown kind %r" % (entry["name"], entry["kind"]))
    x = mean + half_width * (2.0 * u - 1.0)
    return x.astype(np.float32).reshape(shape)


def regenerate(recipe):
    """The .params file's bytes for a recipe (a dict as in RECIPE.json)."""
    if recipe.get("format") != RECIPE_FORMAT:
        raise ValueError("recipe format %r, expected %d" % (recipe.get("format"), RECIPE_FORMAT))
    return params_bytes({e["name"]: tensor_values(e) for e in recipe["tensors"]})


def write_params(recipe_path, out_path):
    """Writes OUT.params from RECIPE.json; raises unless its MD5 is the recipe's."""
    with open(recipe_path) as f:
        recipe = json.load(f)
    data = regenerate(recipe)
    md5 = hashlib.md5(data).hexdigest()
    if recipe.get("params_md5") and md5 != recipe["params_md5"]:
        raise RuntimeError("%s: regenerated parameters have MD5 %s, the recipe says %s (numpy %s)"
                           % (recipe_path, md5, recipe["params_md5"], np.__version__))
    with open(out_path, "wb") as f:
        f.write(data)
    return md5


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: regen_params.py RECIPE.json OUT.params")
    md5 = write_params(argv[1], argv[2])
    print("regen_params: %s (%d bytes, md5 %s, numpy %s)" % (argv[2], os.path.getsize(argv[2]), md5, np.__version__))


if __name__ == "__main__":
    main(sys.argv)
