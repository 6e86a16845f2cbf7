"""Folds the constant subgraphs of an ONNX model (ONNX Runtime's basic graph optimizations, which keep to
standard ONNX operators) and writes the result. MXNet's exporter computes some shapes in the graph, such as
slice_like's ends in BERT's position embedding (Shape, ScatterND, GatherND); OpenVINO's CPU plugin cannot
compile a slice whose bounds it cannot work out (it fails with "The memory desc is undefined"), while with
static input shapes they fold to constants. Run on the exports of bench/make_sequence_models.sh.

    <baselines venv python> bench/fold_onnx.py IN.onnx OUT.onnx
"""
import sys

import onnxruntime as ort


def main() -> None:
    source, target = sys.argv[1], sys.argv[2]
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
    options.optimized_model_filepath = target
    options.log_severity_level = 3  # the exporter's unused initializers are reported at warning level
    ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    print(f"fold_onnx: {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
