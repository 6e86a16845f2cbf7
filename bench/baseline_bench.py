"""The runtimes Quiver is held to, on the same ONNX export of a model, under concurrent batch-1 clients:
the baselines of bench/compare_runtimes.sh and compare_batching.sh. Prints one JSON line with the keys
quiver_bench prints.

    <baselines venv python> bench/baseline_bench.py --engine E --model M.onnx [--clients 1] [--iters 10]
        [--warmup 3] [--shape 3,224,224] [--input-name data] [--extra-input NAME:D0,...=V0,... ...]
        [--threads N] [--check IN.f32,OUT.f32]

Engines (bench/setup_baselines_venv.sh installs both runtimes):
  onnxruntime       one InferenceSession shared by the clients; --threads sets intra_op_num_threads
  openvino-f32      OpenVINO's CPU plugin with FP32 arithmetic forced (INFERENCE_PRECISION_HINT=f32)
  openvino-default  the same with OpenVINO's own choice of precision: bfloat16 on CPUs with AVX-512 BF16
                    or AMX (the result's "precision" says what it took)
  onnxruntime-int8, openvino-int8
                    the same as onnxruntime and openvino-default, named apart for an int8 (QDQ) model
OpenVINO compiles the model once with the LATENCY hint for one client, or with one stream per client
(THROUGHPUT hint) for several, the way it serves concurrent requests; --threads sets
INFERENCE_NUM_THREADS. Each client owns one infer request. Without --threads each runtime picks its own
thread count (one per usable core). --check runs the recorded input first and reports the largest
difference from the recorded (MXNet) output (the first output; the extra inputs as given). Inputs are
described as quiver_bench describes them (bench/model_inputs.py).
"""
import argparse
import json
import os
import sys
from typing import Callable, Dict, List

import numpy as np

from client_threads import latency_summary, run_clients
from model_inputs import add_input_arguments, extra_arrays, sample_shape

Feeds = Dict[str, np.ndarray]
Call = Callable[[Feeds], np.ndarray]


def onnxruntime_clients(model: str, clients: int, threads: int, result: dict) -> List[Call]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    result["version"] = ort.__version__
    return [lambda feeds: session.run(None, feeds)[0]] * clients


def openvino_clients(model: str, clients: int, threads: int, result: dict, precision: str) -> List[Call]:
    import openvino as ov

    config = {"PERFORMANCE_HINT": "LATENCY"} if clients == 1 else \
        {"PERFORMANCE_HINT": "THROUGHPUT", "NUM_STREAMS": str(clients)}
    if precision == "f32":
        config["INFERENCE_PRECISION_HINT"] = "f32"
    if threads:
        config["INFERENCE_NUM_THREADS"] = str(threads)
    core = ov.Core()
    compiled = core.compile_model(core.read_model(model), "CPU", config)
    result["version"] = ov.__version__
    result["precision"] = compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
    requests = [compiled.create_infer_request() for _ in range(clients)]
    return [lambda feeds, r=r: r.infer(feeds)[0] for r in requests]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--engine", required=True, choices=["onnxruntime", "onnxruntime-int8", "openvino-f32",
                                                            "openvino-default", "openvino-int8"])
    parser.add_argument("--model", required=True)
    parser.add_argument("--clients", type=int, default=1)
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--check", default="")
    add_input_arguments(parser)
    args = parser.parse_args()
    shape = (1,) + sample_shape(args)
    extras = extra_arrays(args.extra_input)

    result = {"engine": args.engine, "model": os.path.basename(args.model).removesuffix(".onnx"), "batch": 1,
              "clients": args.clients, "iters": args.iters, "warmup": args.warmup}
    if args.engine.startswith("onnxruntime"):
        calls = onnxruntime_clients(args.model, args.clients, args.threads, result)
    else:
        calls = openvino_clients(args.model, args.clients, args.threads, result,
                                 "f32" if args.engine == "openvino-f32" else "default")
    if args.check:
        in_file, out_file = args.check.split(",")
        x = np.fromfile(in_file, dtype=np.float32).reshape(shape)
        expected = np.fromfile(out_file, dtype=np.float32).reshape(1, -1)
        got = np.asarray(calls[0]({args.input_name: x, **extras})).reshape(1, -1)
        result["max_abs_diff_vs_mxnet"] = float(np.abs(got - expected).max())

    inputs = [{args.input_name: np.random.default_rng(1234 + c).standard_normal(shape).astype(np.float32), **extras}
              for c in range(args.clients)]
    try:
        seconds, wall = run_clients(args.clients, args.warmup, args.iters, lambda c: calls[c](inputs[c]))
    except Exception as error:
        sys.exit(f"baseline_bench: {args.engine}: {error!r}")
    result.update(latency_summary(seconds, wall, args.clients * args.iters))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
