"""Exports an MXNet model (prefix-symbol.json + prefix-0000.params) to ONNX with MXNet's own exporter,
for the ONNX Runtime and OpenVINO baselines of bench/compare_runtimes.sh and compare_batching.sh.

    PYTHONPATH=<onnx-export dir> <mxnet venv python> bench/export_onnx.py PREFIX OUT.onnx
        [--shape 1,3,224,224 [--shape ...]]      (one --shape per input, in the model's input order)

Runs in the MXNet venv with onnx 1.14.1 on PYTHONPATH (bench/setup_baselines_venv.sh installs it). The
ONNX opset is pinned to 13, the newest MXNet 1.9.1's translations are written for: left alone, the
exporter takes onnx's newest (19), under which its ReduceMean (LayerNorm, mean) is invalid. mx.onnx lists
the weights as graph inputs too; they are removed, as ONNX Runtime only folds and pre-packs initializers
that are not inputs.
"""
import argparse

import numpy as np
import onnx
import onnx.checker
import onnx.defs

OPSET = 13
# The exporter asks onnx.defs for the opset to write and checks its graph under the checker's default
# context; both are set before MXNet's exporter is imported.
onnx.defs.onnx_opset_version = lambda: OPSET
onnx.checker.DEFAULT_CONTEXT.opset_imports = {"": OPSET}

import mxnet as mx  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix")
    parser.add_argument("out")
    parser.add_argument("--epoch", type=int, default=0)
    parser.add_argument("--shape", action="append", help="an input's shape (default: one, 1,3,224,224)")
    args = parser.parse_args()
    shapes = [tuple(int(d) for d in s.split(",")) for s in args.shape or ["1,3,224,224"]]
    mx.onnx.export_model(f"{args.prefix}-symbol.json", f"{args.prefix}-{args.epoch:04d}.params",
                         in_shapes=shapes, in_types=[np.float32] * len(shapes), onnx_file_path=args.out)
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
