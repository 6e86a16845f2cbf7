"""Quantizes the models bench/make_models.py exported with MXNet 1.9.1's own quantize_net (oneDNN
backend, calib_mode='naive', 8 seeded standard-normal calibration images, uint8/int8 chosen per layer):
OUT_DIR/NAME-int8-symbol.json and -0000.params, the files Quiver's quiver-int8 engine runs.

    <mxnet venv python> bench/quantize_models.py OUT_DIR NAME...
"""
import os
import sys

import numpy as np
import mxnet as mx
from mxnet import gluon
from mxnet.contrib import quantization

SHAPE = (1, 3, 224, 224)


def quantize(out_dir: str, name: str) -> None:
    source = os.path.join(out_dir, name)
    net = gluon.SymbolBlock.imports(source + "-symbol.json", ["data"], source + "-0000.params", ctx=mx.cpu())
    calibration = np.random.RandomState(7).standard_normal((8,) + SHAPE[1:]).astype(np.float32)
    qnet = quantization.quantize_net(
        net, quantized_dtype="auto", quantize_mode="full", calib_mode="naive", num_calib_examples=8,
        calib_data=mx.io.NDArrayIter(mx.nd.array(calibration), batch_size=4),
        data_shapes=[mx.io.DataDesc("data", SHAPE)], ctx=mx.cpu())
    # export needs one forward, which rewrites the int8 inner-product weights in place: put them back.
    saved = {k: v.data().copy() for k, v in qnet.collect_params().items()}
    qnet.hybridize(static_alloc=True, static_shape=True)
    qnet(mx.nd.zeros(SHAPE))
    for k, v in qnet.collect_params().items():
        v.set_data(saved[k])
    qnet.export(source + "-int8")
    print(f"quantize_models: {name}", file=sys.stderr)


def main() -> None:
    out_dir, names = sys.argv[1], sys.argv[2:]
    for name in names:
        quantize(out_dir, name)


if __name__ == "__main__":
    main()
