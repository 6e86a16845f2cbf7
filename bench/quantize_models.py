"""Quantizes the models bench/make_models.py exported with MXNet 1.9.1's own quantize_net (oneDNN
backend, calib_mode='naive' on 8 seeded standard-normal images, uint8/int8 chosen per layer), as the
int8 test fixtures are made (tests/int8/make_fixtures.py: quantize_and_export): OUT_DIR/NAME-int8-symbol.json
and -0000.params, the files Quiver's quiver-int8 engine runs.

    <mxnet venv python> bench/quantize_models.py OUT_DIR NAME...
"""
import os
import sys

import numpy as np
import mxnet as mx
from mxnet import gluon

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "int8"))
from make_fixtures import quantize_and_export  # noqa: E402


def main() -> None:
    out_dir, names = sys.argv[1], sys.argv[2:]
    calibration = mx.nd.array(np.random.RandomState(7).standard_normal((8, 3, 224, 224)).astype(np.float32))
    for name in names:
        source = os.path.join(out_dir, name)
        net = gluon.SymbolBlock.imports(source + "-symbol.json", ["data"], source + "-0000.params", ctx=mx.cpu())
        quantize_and_export(net, "naive", calibration, source + "-int8")
        print(f"quantize_models: {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
