"""Exports an MXNet model (prefix-symbol.json + prefix-0000.params) to ONNX with MXNet's own exporter,
for the ONNX Runtime baseline of bench/compare_batching.sh.

    PYTHONPATH=<onnx-export dir> <mxnet venv python> bench/export_onnx.py PREFIX OUT.onnx [--shape 1,3,224,224]

Runs in the MXNet venv with onnx 1.14.1 on PYTHONPATH (bench/setup_baselines_venv.sh installs it). mx.onnx
lists the weights as graph inputs too; they are removed, as ONNX Runtime only folds and pre-packs
initializers that are not inputs.
"""
import argparse

import mxnet as mx
import numpy as np
import onnx


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("out")
    parser.add_argument("--epoch", type=int, default=0)
    parser.add_argument("--shape", default="1,3,224,224", help="the input shape to export for")
    args = parser.parse_args()
    shape = tuple(int(d) for d in args.shape.split(","))
    mx.onnx.export_model(f"{args.prefix}-symbol.json", f"{args.prefix}-{args.epoch:04d}.params",
                         in_shapes=[shape], in_types=[np.float32], onnx_file_path=args.out)
    model = onnx.load(args.out)
    weights = {init.name for init in model.graph.initializer}
    data_inputs = [i for i in model.graph.input if i.name not in weights]
    del model.graph.input[:]
    model.graph.input.extend(data_inputs)
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    print(f"export_onnx: {args.out}: inputs {[i.name for i in data_inputs]}, {len(weights)} initializers")


if __name__ == "__main__":
    main()
