"""Runs an MXNet checkpoint on a float32 input with MXNet's Module API (a fresh load of the files), for
tests that need MXNet's output of a file Quiver wrote.

    python tests/int8/run_mxnet.py PREFIX INPUT.f32 D0,D1,... OUTPUT.f32

Run with scripts/setup_mxnet_venv.sh's python. .f32: little-endian float32.
"""
import sys

import mxnet as mx
import numpy as np


def main():
    prefix, input_file, shape, output_file = sys.argv[1:]
    x = np.fromfile(input_file, dtype="<f4").reshape(tuple(int(d) for d in shape.split(",")))
    sym, args, auxs = mx.model.load_checkpoint(prefix, 0)
    mod = mx.mod.Module(sym, data_names=["data"], label_names=None, context=mx.cpu())
    mod.bind(data_shapes=[("data", x.shape)], for_training=False)
    mod.set_params(args, auxs, allow_missing=False, allow_extra=False)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)]), is_train=False)
    mod.get_outputs()[0].asnumpy().astype("<f4").tofile(output_file)


if __name__ == "__main__":
    main()
